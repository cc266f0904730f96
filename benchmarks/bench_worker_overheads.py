"""Two overheads around the points, each side by side in one run (the full reproduction's CPU, `docs/ENGINEERING.md`):

1. OpenBLAS threads: APAM ``cost_region`` points (the experiment with the most BLAS calls) in two
   fresh processes, one with OpenBLAS's default thread count and one with
   ``OPENBLAS_NUM_THREADS=1`` (what ``sim/cli/main.py`` sets), alternating; CPU seconds of the process
   (all its threads) and whether the rows are equal.
2. The memory release after a point: ``release_after_point`` (threshold 0: a release after
   every point) with ``gc.collect()`` only, as before, and with ``collect_then_freeze``, each in
   a fresh process over the same points; CPU seconds inside the releases and the RSS at the end.

    python3 benchmarks/bench_worker_overheads.py [--repeat 2]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BLAS_CHILD = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from sim.experiments.config import load_config
from sim.experiments.runner import resolve_run, run_point
cfg, points = resolve_run(load_config(sys.argv[1] + "/experiments/apam/cost_region.toml"), "full")
sel = [p for p in points if p.params["stream_seed"] in (2, 3) and p.params["rate"] == 100]
run_point(cfg, sel[0])                       # kernels loaded, shared statistics computed
t = time.process_time()
rows = [run_point(cfg, p) for p in sel]
cpu = time.process_time() - t
for r in rows:
    r.pop("wall_s", None)
print(json.dumps({"cpu": cpu, "points": len(sel), "rows": json.dumps(rows, sort_keys=True,
                                                                      default=repr)}))
'''

RELEASE_CHILD = r'''
import gc, json, sys, time
sys.path.insert(0, sys.argv[1])
from sim.experiments.config import load_config
from sim.experiments.runner import resolve_run, run_point
from sim.experiments import worker_memory as W
if sys.argv[2] == "collect":
    W.collect_then_freeze = gc.collect       # the plain collection, for comparison
gc.freeze()                                  # as the pool's parent does before forking
tot, n = 0.0, 0
for name, pick in (("adaptive/fig6", lambda p: p["n"] in (4, 5) and p["stream_seed"] == 1),
                   ("apam/exp2", lambda p: True), ("adaptive/fig5", lambda p: p["n"] == 3)):
    cfg, points = resolve_run(load_config(f"{sys.argv[1]}/experiments/{name}.toml"), "full")
    for p in [p for p in points if pick(p.params)][:40]:
        run_point(cfg, p)
        t = time.process_time()
        W.release_after_point(cfg.scenario, threshold_mb=0.0)
        tot += time.process_time() - t
        n += 1
print(json.dumps({"cpu": tot, "releases": n, "rss_mb": W.rss_mb()}))
'''


def _child(code: str, args: list[str], env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", code, str(REPO), *args], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fail(message: str) -> None:
    """Bad input: the message on stderr, exit status 2 (as ``cepsim``)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=2, help="alternating runs of each variant")
    a = ap.parse_args()
    if a.repeat < 1:
        _fail("error: --repeat must be at least 1")
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    base["CEPSIM_COUNTER_CACHE"] = ""          # every point computes its work
    _child(BLAS_CHILD, [], base)                # compiles or loads the kernels first
    blas = {"default threads": [], "one thread": []}
    rows = {}
    for _ in range(a.repeat):
        for label, env in (("default threads", base), ("one thread",
                                                       dict(base, OPENBLAS_NUM_THREADS="1"))):
            got = _child(BLAS_CHILD, [], env)
            blas[label].append(got["cpu"])
            rows[label] = got["rows"]
    print(f"1. APAM cost_region, {got['points']} points, CPU s of the process (best of "
          f"{a.repeat}):")
    for label, v in blas.items():
        print(f"   {label:16s} {min(v):6.2f}")
    print(f"   ratio one / default: {min(blas['one thread']) / min(blas['default threads']):.2f};"
          f" rows equal: {rows['default threads'] == rows['one thread']}")
    rel = {"collect": [], "collect_then_freeze": []}
    for _ in range(a.repeat):
        for label in rel:
            rel[label].append(_child(RELEASE_CHILD, [label], base))
    print("2. release after every point (fig6 / exp2 / fig5 points), CPU s inside the releases:")
    for label, v in rel.items():
        best = min(v, key=lambda r: r["cpu"])
        print(f"   {label:20s} {best['cpu']:6.2f} s over {best['releases']} releases, "
              f"RSS at the end {best['rss_mb']:.0f} MB")
    print(f"   load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

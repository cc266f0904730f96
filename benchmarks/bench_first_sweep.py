"""First local sweep of an ``engine`` grid vs the serial run, each on a cold Numba cache.

Target: the first local sweep takes no more than the serial run's time plus one
compilation, i.e. no more than a cold serial run.  Before, the sweep pinned its own cache and
warmed only the first engine, so workers compiled the other engines' kernels concurrently; then
(spawned workers) each worker imported everything and loaded every kernel from the disk cache,
and two workers could run the same engine for two rates at once.  Now (``sim/experiments/sweep.py``) the
workers are forked from the warmed parent and shared engine work runs first.

Each run is a fresh ``cepsim`` process with its own Numba cache and counter cache, all in one run
of this script so the numbers are side by side under the same machine load:

* serial cold  = compile everything + run every point in one process (empty Numba cache);
* serial warm  = the serial run again on the now warm Numba cache (no compilation);
* compile      = serial cold - serial warm (one compilation of the grid's kernels);
* local cold   = ``cepsim sweep --backend local`` on an empty Numba cache (default: fork);
* local cold, spawn = the same with ``CEPSIM_POOL_CONTEXT=spawn`` (the previous start method);
* local warm   = the local sweep again on its now warm Numba cache.

"kernels" counts the Numba cache writes of each run (one per compiled kernel specialization, in
any process): equal counts for the serial and the local cold runs mean that no worker compiled a
kernel, whatever the machine's load.  Every run starts with an empty counter cache, so each computes every engine run itself.  Wall
seconds depend on the machine's load (shown); CPU seconds (user + sys of the ``cepsim`` process
and its workers) show the work done, which parallelism cannot hide.

    python benchmarks/bench_first_sweep.py [--config examples/engines_vs_rate] [--scale full]
                                           [--repeats 2] [--no-spawn]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(args: list[str], numba_dir: Path, counter_dir: Path, out: Path,
         **env_extra: str) -> tuple[float, float, int]:
    """(wall s, cpu s, kernels compiled) of one ``cepsim`` command in a fresh process.

    Kernels compiled = Numba cache writes (``NUMBA_DEBUG_CACHE`` "data saved" lines, workers
    included): a kernel compiled by two processes is counted twice."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_dir), CEPSIM_COUNTER_CACHE=str(counter_dir),
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NUMBA_DEBUG_CACHE="1", **env_extra)
    c0, t0 = _cpu(), time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "sim.cli", *args, "--out", str(out)], cwd=REPO,
                       env=env, capture_output=True, text=True)
    dt, dc = time.perf_counter() - t0, _cpu() - c0
    if r.returncode not in (0, 1):  # 1 = a claim failed, still a complete run
        raise SystemExit(f"{' '.join(args)} failed (exit {r.returncode}):\n{r.stdout[-2000:]}\n"
                         f"{r.stderr[-4000:]}")
    return dt, dc, (r.stdout + r.stderr).count("data saved")


def _round(a, base: list[str], sweep: list[str], t: Path, i: int) -> dict[str, tuple]:
    """One round; odd rounds run the spawn sweep before the fork one (load drifts over time)."""
    res = {}
    res["serial, cold cache"] = _run(["run", a.config, *base], t / "nA", t / "cA", t / "r1")
    res["serial, warm cache"] = _run(["run", a.config, *base], t / "nA", t / "cB", t / "r2")
    order = ["fork", "spawn"] if not a.no_spawn else ["fork"]
    for kind in (order if i % 2 == 0 else order[::-1]):
        if kind == "fork":
            res["local sweep, cold cache"] = _run(sweep, t / "nC", t / "cC", t / "r3")
        else:
            res["local sweep, cold, spawn"] = _run(sweep, t / "nD", t / "cD", t / "r4",
                                                   CEPSIM_POOL_CONTEXT="spawn")
    res["local sweep, warm cache"] = _run(sweep, t / "nC", t / "cE", t / "r5")
    sc, sw = res["serial, cold cache"], res["serial, warm cache"]
    res["one compilation (cold - warm)"] = (sc[0] - sw[0], sc[1] - sw[1], sc[2] - sw[2])
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="examples/engines_vs_rate")
    ap.add_argument("--scale", default="full")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1,
                    help="rounds of all runs; each figure is reported per round and as the min")
    ap.add_argument("--no-spawn", action="store_true", help="skip the spawn comparison run")
    a = ap.parse_args()
    base = ["--scale", a.scale]
    sweep = ["sweep", a.config, *base, "--backend", "local", "--workers", str(a.workers)]
    rounds = []
    load0 = os.getloadavg()[0]
    for i in range(a.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            rounds.append(_round(a, base, sweep, Path(tmp), i))
    load1 = os.getloadavg()[0]
    print(f"config {a.config} --scale {a.scale}, workers={a.workers}, cpus={os.cpu_count()}, "
          f"load1 {load0:.1f} -> {load1:.1f}, {a.repeats} round(s)")
    cols = "".join(f"{f'wall {i + 1}':>9}{f'cpu {i + 1}':>8}" for i in range(a.repeats))
    print(f"{'run':<32}{cols}{'min wall':>10}{'min cpu':>9}{'kernels':>9}")
    best = {}
    names = ["serial, cold cache", "serial, warm cache", "one compilation (cold - warm)",
             "local sweep, cold cache", "local sweep, cold, spawn", "local sweep, warm cache"]
    for name in [n for n in names if n in rounds[0]]:
        vals = [r[name] for r in rounds]
        best[name] = (min(v[0] for v in vals), min(v[1] for v in vals))
        if name.startswith("one compilation"):  # of the best runs, not the min of differences
            c, w = best["serial, cold cache"], best["serial, warm cache"]
            best[name] = (c[0] - w[0], c[1] - w[1])
        cells = "".join(f"{w:>9.1f}{c:>8.1f}" for w, c, _ in vals)
        kern = "/".join(str(v[2]) for v in vals)
        print(f"{name:<32}{cells}{best[name][0]:>10.1f}{best[name][1]:>9.1f}{kern:>9}")
    for i, r in enumerate(rounds):
        lc, sc = r["local sweep, cold cache"], r["serial, cold cache"]
        line = (f"round {i + 1}: local cold / (serial warm + one compilation) = "
                f"{lc[0] / sc[0]:.2f}x wall, {lc[1] / sc[1]:.2f}x cpu (target <= 1)")
        if "local sweep, cold, spawn" in r:
            sp = r["local sweep, cold, spawn"]
            line += f"; spawned workers: {sp[0] / sc[0]:.2f}x wall, {sp[1] / sc[1]:.2f}x cpu"
        print(line)
    lc, sc = best["local sweep, cold cache"], best["serial, cold cache"]
    print(f"min over rounds: local cold / serial cold = {lc[0] / sc[0]:.2f}x wall, "
          f"{lc[1] / sc[1]:.2f}x cpu")
    return 0


if __name__ == "__main__":
    sys.exit(main())

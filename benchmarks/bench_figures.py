"""CPU to draw the paper figures from stored results (what ``cepsim figures`` does).

``python benchmarks/bench_figures.py RESULTS_ROOT [NAMES...]`` draws every figure of the stored
results under ``RESULTS_ROOT`` (or only those of ``NAMES``: config paths, ``paper/name`` or
``paper``) into a temporary directory and prints the process CPU seconds per figure and in total.
``--baseline REV`` draws the same figures with the code of git revision ``REV`` too, in fresh
processes alternating with this checkout (``benchmarks/baseline.py``), and prints both sides and
their ratio, best of ``--rounds`` per figure.  One figure is drawn first and not counted in either
side (font cache, math text parser), so both start warm.  CPU, not wall time: the machine is
shared, and drawing is single-threaded.  Nothing is asserted; the numbers are for reading.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

_DRAW = r'''
import json, sys, tempfile, time
from pathlib import Path
try:
    from sim.cli.commands.results import collect
except ImportError:   # a revision without sim/cli/commands/
    from sim.cli import _collect as collect
from sim.experiments.functions import resolve
from sim.experiments.staleness import variant_of

root, names = Path(sys.argv[1]), sys.argv[2:] or None
entries, refused = collect(root, names)
jobs = []
for cfg, df in entries:
    suffix = f"@{variant_of(cfg.name)}" if variant_of(cfg.name) else ""
    for i, f in enumerate(cfg.figures):
        fn = resolve(f.fn, "figures", str(cfg.path or cfg.key), f"figures[{i}].fn")
        jobs.append((f"{cfg.paper}/{f.name}{suffix}", fn, df, f.args))
if not jobs:
    raise SystemExit(f"no drawable results under {root} ({'; '.join(refused) or 'none stored'})")
per = {}
with tempfile.TemporaryDirectory() as tmp:
    name, fn, df, args = jobs[0]
    fn(df.copy(), Path(tmp) / "warmup", **args)          # not counted
    for name, fn, df, args in jobs:
        t = time.process_time()
        fn(df.copy(), Path(tmp) / name, **args)
        per[name] = time.process_time() - t
print(json.dumps({"per": per, "total": sum(per.values())}))
'''


def _run_here(root: str, names: list[str]) -> dict:
    import os
    import subprocess

    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, "-c", _DRAW, root, *names], cwd=repo, text=True,
                          capture_output=True, env=dict(os.environ, PYTHONPATH=str(repo)))
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _best(runs: list[dict]) -> dict[str, float]:
    return {k: min(r["per"][k] for r in runs) for k in runs[0]["per"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results root holding stored quick/full results")
    ap.add_argument("names", nargs="*", help="configs to draw (default: all stored)")
    ap.add_argument("--baseline", metavar="REV", default=None,
                    help="git revision to compare with, e.g. main or a commit id")
    ap.add_argument("--rounds", type=int, default=2, help="runs per side (best kept)")
    a = ap.parse_args()
    root = str(Path(a.results).resolve())
    if a.baseline is None:
        runs = [_run_here(root, a.names) for _ in range(a.rounds)]
        new = _best(runs)
        for k, v in sorted(new.items(), key=lambda kv: -kv[1]):
            print(f"{k:60s} {v:7.2f} s")
        print(f"{'TOTAL (%d figures, best per figure of %d)' % (len(new), a.rounds):60s} "
              f"{sum(new.values()):7.2f} s")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import against_revision

    runs = against_revision(a.baseline, _DRAW, [root, *a.names], rounds=a.rounds)
    old, new = _best(runs["old"]), _best(runs["new"])
    print(f"{'figure':60s} {a.baseline[:10]:>10s} {'checkout':>10s} {'ratio':>6s}")
    for k in sorted(new, key=lambda k: -old.get(k, 0.0)):
        o = old.get(k, float("nan"))
        print(f"{k[:60]:60s} {o:10.2f} {new[k]:10.2f} {o / new[k]:6.2f}")
    to, tn = sum(old.get(k, 0.0) for k in new), sum(new.values())
    print(f"{'TOTAL CPU s (%d figures, best of %d per figure)' % (len(new), a.rounds):60s} "
          f"{to:10.2f} {tn:10.2f} {to / tn:6.2f}")
    for tag in ("old", "new"):
        print(f"  {tag} totals per round: " + ", ".join(f"{r['total']:.2f}" for r in runs[tag]))


if __name__ == "__main__":
    main()

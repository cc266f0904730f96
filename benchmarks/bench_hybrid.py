"""Benchmark: the APAM hybrid kernel (working tree) vs a baseline revision of ``engines/evaluators/hybrid.py``.

Workload: the APAM section 6.1 stream (``workloads.apam_synthetic``) of ``--events`` events
for experiment ``--exp`` and the candidate plans of the optimizer (the all-lazy plans of
experiments 2 and 3 dominate the full-scale experiment time).  The baseline is the file
``engines/evaluators/hybrid.py`` at git revision ``--baseline`` (default ``44e693e``), loaded as a separate
module (``git show``), so both versions run in the same process on the same stream.  Both must
return the same matches; their counter totals are printed (the counter *accounting* may differ
between revisions, the match set may not).  Each timing is the best of ``--repeat`` runs after
one compilation run on a short prefix.  Speed is printed, never asserted.

    python benchmarks/bench_hybrid.py [--exp 2] [--events 20000] [--plans 0,1,2] [--baseline 44e693e]

(44e693e = the kernel before the inline single-comparison join step and the counter split.)
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engines import counters as C  # noqa: E402
from engines.planners.apam import candidate_plans, plan_text, estimate_statistics  # noqa: E402
from engines.evaluators.hybrid import run_hybrid  # noqa: E402
from workloads import apam_synthetic as W  # noqa: E402


def load_baseline(rev: str):
    """``engines/evaluators/hybrid.py`` at ``rev`` as a module (its own Numba cache next to the file)."""
    src = subprocess.run(["git", "show", f"{rev}:engines/evaluators/hybrid.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    d = Path(tempfile.mkdtemp(prefix="bench_hybrid_"))
    path = d / "hybrid_baseline.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("hybrid_baseline", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def best_time(fn, repeat: int):
    best, res = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t)
    return best, res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exp", type=int, default=2)
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plans", default="0,1,2", help="candidate indices k (eager variables)")
    ap.add_argument("--baseline", default="44e693e", help="git revision of engines/evaluators/hybrid.py")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    stream = W.generate(a.exp, a.events, a.seed)
    prog = W.program_for(stream)
    stats = estimate_statistics(prog, stream, warmup=a.events // 2, arrival_rate=1000.0)
    plans = [plan_text(stats, e, l) for e, l in candidate_plans(stats)]
    base = load_baseline(a.baseline)
    warm = W.generate(a.exp, 3000, a.seed)
    for p in plans:                                  # compile both kernels
        run_hybrid(prog, warm, plan=p)
        base.run_hybrid(prog, warm, plan=p)
    print(f"APAM exp{a.exp}, {a.events} events, baseline {a.baseline}; best of {a.repeat}")
    print(f"{'plan':<12} {'baseline s':>11} {'current s':>10} {'speed-up':>9} {'matches':>8}  "
          f"counters (pred_eval, join_probe, edge_eval, pm_created) baseline -> current")
    for k in (int(x) for x in a.plans.split(",")):
        p = plans[k]
        tb, rb = best_time(lambda: base.run_hybrid(prog, stream, plan=p), a.repeat)
        tc, rc = best_time(lambda: run_hybrid(prog, stream, plan=p), a.repeat)
        same = (np.array_equal(np.sort(rb.matches.detect), np.sort(rc.matches.detect))
                and len(rb.matches) == len(rc.matches))
        cols = [C.PRED_EVAL, C.JOIN_PROBE, C.EDGE_EVAL, C.PM_CREATED]
        cb = rb.counters[:, cols].sum(0).tolist()
        cc = rc.counters[:, cols].sum(0).tolist()
        print(f"{p:<12} {tb:>11.2f} {tc:>10.2f} {tb / tc:>8.2f}x {len(rc.matches):>8}  "
              f"{cb} -> {cc}{'' if same else '  MATCHES DIFFER'}", flush=True)


if __name__ == "__main__":
    main()

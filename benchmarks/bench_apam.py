"""Benchmark: SASE run-loop counters of one APAM stream, event by event (the reference
``engines.evaluators.sase._sase_kernel``) vs run by run (``engines.evaluators.sase_runs``), and
the cost of one APAM point whose counters are cached.

Both kernels run in this process on the same section 6.1 stream (``workloads.apam_synthetic``,
experiment ``--exp``, reading ``--reading``, ``--events`` events); the script checks that every
counter of every event and the match set are equal and prints the CPU seconds side by side
(after one compilation run on a short prefix).  The reference is quadratic in the stream
length (stale runs are visited by every later event): 3 s at 20k events (exp 1) and about 100 s at
100k, so ``--events 100000`` takes minutes.  Speed is printed, never asserted.

    python benchmarks/bench_apam.py [--exp 1] [--reading shift] [--events 20000] [--points 4]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exp", type=int, default=1)
    ap.add_argument("--reading", default="shift")
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--points", type=int, default=4, help="cached points to time (0 = none)")
    a = ap.parse_args()

    from engines.evaluators.sase import run_sase
    from sim.studies.apam import scenario as S
    from workloads import apam_synthetic as W

    st = W.generate(a.exp, a.events, 1, reading=a.reading)
    prog = W.program_for(st)
    small = W.generate(a.exp, 500, 1, reading=a.reading)
    for ref in (True, False):
        run_sase(prog, small, reference=ref)          # compile
    out = {}
    for ref in (True, False):
        t = time.process_time()
        out[ref] = run_sase(prog, st, reference=ref)
        out[ref, "s"] = time.process_time() - t
    same = bool(np.array_equal(out[True].counters, out[False].counters)) and \
        out[True].matches.key_set() == out[False].matches.key_set()
    c = out[False].counters
    print(f"APAM exp{a.exp} {a.reading}, {a.events} events: runs created "
          f"{int(c[:, S.C.PM_CREATED].sum())}, runs visited {int(c[:, S.C.INSTANCE_WORK].sum())}, "
          f"matches {len(out[False].matches)}")
    print(f"  SASE counters  event by event (reference) {out[True, 's']:8.2f} s   "
          f"run by run {out[False, 's']:8.3f} s   ({out[True, 's'] / max(out[False, 's'], 1e-9):.0f}x)"
          f"   counters and matches equal: {same}")
    if a.points:
        with tempfile.TemporaryDirectory() as cd:
            params = dict(experiment=a.exp, n_events=a.events, n_warmup=a.events // 2,
                          t_pe=7e-7, t_rc=3.5e-6, t_bi=3.5e-7, t_seq=7e-7, base_cost=2e-5,
                          sigma="paper", optimizer="apam", merge_order="final-first",
                          cache_dir=cd, rate=100.0, stream_seed=1, reading=a.reading)
            t = time.process_time()
            S.point(params, 1)
            first = time.process_time() - t
            t = time.process_time()
            for r in np.linspace(500, 4500, a.points):
                S.point(dict(params, rate=float(r)), 2)
            later = (time.process_time() - t) / a.points
        print(f"  APAM point: first of the stream (6 plans + SASE counters) {first:.2f} s, "
              f"later points (cached counters) {later:.3f} s each")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()

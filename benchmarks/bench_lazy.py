"""Tree NFA vs eager NFA throughput on the Figure 7 workload at the smallest f_c.

Run: ``python benchmarks/bench_lazy.py [n_events] [f_c]``.  Both engines are warmed up (Numba
compilation) on a small stream first, then timed on the same stream in one process; the script
prints events/s side by side, the ratio, and the condition evaluations for context.
"""
from __future__ import annotations

import sys
import time

from engines.counters import EDGE_EVAL
from engines.registry import run_engine
from workloads.debs15 import build_program
from workloads.stocks import stock_stream


def _time(name: str, prog, stream, repeat: int = 3) -> tuple[float, int]:
    best = float("inf")
    evals = 0
    for _ in range(repeat):
        t = time.perf_counter()
        r = run_engine(name, prog, stream)
        best = min(best, time.perf_counter() - t)
        evals = int(r.counters[:, EDGE_EVAL].sum())
    return best, evals


def main(n_events: int = 100_000, f_c: float = 0.003, seed: int = 20150629) -> None:
    warm = stock_stream(2000, seed, f_c=f_c)
    wprog = build_program(warm.schema)
    for name in ("eager", "tree"):
        run_engine(name, wprog, warm)
    stream = stock_stream(n_events, seed, f_c=f_c)
    prog = build_program(stream.schema)
    rows = {name: _time(name, prog, stream) for name in ("eager", "tree")}
    print(f"Fig 7 workload: {n_events} events, f_c={f_c}, sequence a,b,c (best of 3)")
    print(f"{'engine':8s} {'seconds':>9s} {'events/s':>12s} {'cond. evals':>12s}")
    for name, (sec, ev) in rows.items():
        print(f"{name:8s} {sec:9.3f} {n_events / sec:12,.0f} {ev:12,d}")
    print(f"tree / eager throughput ratio: {rows['eager'][0] / rows['tree'][0]:.2f}x")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(int(args[0]) if args else 100_000, float(args[1]) if len(args) > 1 else 0.003)

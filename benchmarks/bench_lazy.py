"""Tree NFA vs eager NFA throughput on the Figure 7 workload at the smallest f_c.

Run: ``python benchmarks/bench_lazy.py [n_events] [f_c]``.  Both engines are warmed up (Numba
compilation) on a small stream first, then timed on the same stream in one process; the script
prints events/s side by side, the ratio, and the condition evaluations for context.

``python benchmarks/bench_lazy.py --baseline REV [--events N]`` instead times the lazy chain NFA
on the PVLDB'18 stock-like and traffic-like streams (``workloads.adaptive``; SEQ and OR of three
SEQs, n = 5 and 8, the query order) under git revision ``REV`` and this checkout, alternating
fresh processes (``benchmarks/baseline.py``), and checks that matches and every counter total
agree.  ``--baseline 908e87c`` is the chain before instances were listed by the type they wait
for (every live instance was visited at every event).
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


# chain NFA CPU time per case under whatever ``engines`` is importable (one JSON line)
_CHAIN_CASES = r"""
import json, sys, time
from engines.compile import compile_pattern
from engines.evaluators.lazy_nfa import run_chain
from engines.pattern import parse_pattern
from workloads.adaptive import make_stream, pattern_text
n_events = int(sys.argv[1])
out = {}
for ds in ("stocks", "traffic"):
    st = make_stream(ds, n_events, 1, n_types=24, total_rate=500.0)
    for pset in ("seq", "or"):
        for n in (5, 8):
            prog = compile_pattern(parse_pattern(pattern_text(ds, pset, n, st.schema.type_names,
                                                              1.0)), st.schema)
            run_chain(prog, st.slice(0, 300))
            c0 = time.process_time()
            r = run_chain(prog, st)
            out[f"{ds} {pset} n={n}"] = [time.process_time() - c0, len(r.matches),
                                         [int(x) for x in r.counters.sum(axis=0)]]
print(json.dumps(out))
"""


def against_baseline(rev: str, n_events: int) -> None:
    from baseline import against_revision, best_of
    runs = against_revision(rev, _CHAIN_CASES, [str(n_events)])
    print(f"lazy chain NFA CPU s on {n_events} events (PVLDB'18 streams, query order), {rev} vs "
          f"this checkout, best of 2 alternating runs")
    print(f"{'case':<20}{rev[:10]:>12}{'now':>10}{'speed-up':>10}{'matches':>10}  counters")
    for case in runs["new"][0]:
        old, new = best_of(runs, case)
        same = (runs["old"][0][case][1:] == runs["new"][0][case][1:])
        print(f"{case:<20}{old:12.3f}{new:10.3f}{old / max(new, 1e-9):9.1f}x"
              f"{runs['new'][0][case][1]:10d}  {'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n_events", nargs="?", type=int, default=100_000)
    ap.add_argument("f_c", nargs="?", type=float, default=0.003)
    ap.add_argument("--baseline", metavar="REV", default=None,
                    help="time the chain NFA against git revision REV instead")
    ap.add_argument("--events", type=int, default=20_000, help="stream length for --baseline")
    a = ap.parse_args()
    if a.baseline:
        against_baseline(a.baseline, a.events)
    else:
        main(a.n_events, a.f_c)

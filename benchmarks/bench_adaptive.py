"""Speed of the adaptation pass (statistics + decision + planner) and of a whole point.

Prints events/s of (a) the statistics pass alone, (b) statistics + controller (invariant D with
d = 0.1, greedy and ZStream) at check_every = 10, for n = 3 and 8, beside the static plan's
engine run on the same stream (lazy chain NFA), and the milliseconds of the statistics pass
and of each controller (the figures above time each controller once, after the statistics
pass; the last column is the greedy controller's best of 3 further runs, for comparison);
target: the adaptation pass >= 1 M events/s so that it never dominates a run.  Then one whole
scenario point (all decision methods) with its wall time.  Measured, never asserted.

    PYTHONPATH=$PWD python benchmarks/bench_adaptive.py [--events 100000] [--dataset traffic]
"""
from __future__ import annotations

import argparse
import time

from engines.planners.adaptive.controller import run_controllers
from engines.planners.adaptive.decision import InvariantDecision
from engines.planners.adaptive.stats import check_positions, compute_stats
from engines.compile import compile_pattern
from engines.evaluators.lazy_nfa import run_chain
from engines.pattern import parse_pattern
from workloads.adaptive import make_stream, pattern_text


def _best(f, reps=3):
    best = float("inf")
    out = None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100000)
    ap.add_argument("--dataset", default="traffic")
    ap.add_argument("--model", default=None,
                    help="traffic generator model (skewed = default, uniform = equal rates)")
    ap.add_argument("--point", action="store_true", help="also time one whole scenario point")
    a = ap.parse_args()
    window = 1.0   # the experiments' pattern window (W_s = 3 windows)
    kw = {"model": a.model} if a.model else {}
    st = make_stream(a.dataset, a.events, 1, n_types=24, total_rate=500.0, **kw)
    print(f"{a.dataset}{' (' + a.model + ')' if a.model else ''}, {a.events} events, "
          f"check_every = 10")
    print(f"{'n':>3} {'stats ev/s':>12} {'greedy pass':>12} {'zstream pass':>13} "
          f"{'static engine':>14} {'t_pass/t_eng':>12} {'stats ms':>9} {'greedy ms':>10} "
          f"{'zstream ms':>11} {'greedy ms best of 3':>20}")
    def run_controller(prog, stats, planner, D, n_events, n_warm):
        return run_controllers(prog, stats, planner, [D], n_events, n_warm)[0]

    warm = compile_pattern(parse_pattern(pattern_text(a.dataset, "seq", 3, st.schema.type_names,
                                                      window)), st.schema)
    warm_stats = compute_stats(warm, st, check_positions(a.events, 10), 3 * window, n_samples=2)
    for planner in ("greedy", "zstream"):
        run_controller(warm, warm_stats, planner, InvariantDecision(0.1, 1), a.events,
                       a.events // 10)
    for n in (3, 8):
        prog = compile_pattern(parse_pattern(pattern_text(a.dataset, "seq", n,
                                                          st.schema.type_names, window)),
                               st.schema)
        pos = check_positions(a.events, 10)
        ts, stats = _best(lambda: compute_stats(prog, st, pos, 3 * window, n_samples=2))
        tg, sch = _best(lambda: run_controller(prog, stats, "greedy", InvariantDecision(0.1, 1),
                                               a.events, a.events // 10), 1)
        tz, _ = _best(lambda: run_controller(prog, stats, "zstream", InvariantDecision(0.1, 1),
                                             a.events, a.events // 10), 1)
        tg3, _ = _best(lambda: run_controller(prog, stats, "greedy", InvariantDecision(0.1, 1),
                                              a.events, a.events // 10))
        order = [prog.var_names[v] for v in sch.plans[0]]
        te, _ = _best(lambda: run_chain(prog, st, order=order))
        ev = a.events
        print(f"{n:>3} {ev / ts:>12.3g} {ev / (ts + tg):>12.3g} {ev / (ts + tz):>13.3g} "
              f"{ev / te:>14.3g} {(ts + tg) / te:>12.2f} {ts * 1e3:>9.1f} {tg * 1e3:>10.1f} "
              f"{tz * 1e3:>11.1f} {tg3 * 1e3:>20.1f}")
    if a.point:
        from sim.studies.adaptive.scenario import point
        t = time.perf_counter()
        point({"dataset": a.dataset, "planner": "greedy", "pset": "seq", "n": 5,
               "n_events": a.events, "window": window, "n_types": 24, "total_rate": 500.0}, 1)
        print(f"whole point (all methods, greedy, seq n=5): {time.perf_counter() - t:.1f} s wall")


if __name__ == "__main__":
    main()

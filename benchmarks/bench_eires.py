"""Speed of the remote-data kernel per strategy (Q1 over DS1) and of the SimPy reference.

Prints events/s of ``engines.remote.kernel.run_remote`` (wall clock, the fastest of ``--repeat``
runs, after a warm-up run that compiles) for every strategy with the cost-based cache, and, on a small stream, the SimPy
reference replay (``sim.core.remote_queue``) beside the kernel, as a ratio.  Not asserted anywhere.

    PYTHONPATH=$PWD python benchmarks/bench_eires.py [--events 100000] [--policy nongreedy]
        [--repeat 3]

``--baseline REV`` instead times the kernel as the experiments call it (``sim.studies.eires.scenario.point``:
two runs per point, all queued and Poisson arrivals, latency histograms) on the quick-scale
``overall_q2`` points (Q2 over DS1, 5,000 events, cost cache, both policies, every strategy) and
two Q1 Hybrid points, under git revision REV and under this checkout in fresh processes
(``benchmarks/baseline.py``), and checks that every output column agrees.  ``--baseline f750a0d~1``
is the kernel before its growable stores were packed and grown outside the partial-match loop.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.remote.config import STRATEGIES
from engines.remote.kernel import run_remote
from sim.core.costmodel import load_profile
from sim.core.remote_queue import simulate_remote_simpy
from workloads.eires import generate, queries


_POINTS = r"""
import json, sys, time
from sim.studies.eires.scenario import point
n = int(sys.argv[1])
cases = []
for pol in ("nongreedy", "greedy"):
    for st in ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid"):
        cases.append((f"Q2 DS1 {pol[:3]} cost {st}",
                      dict(query="Q2", dataset="DS1", policy=pol, strategy=st, cache="cost")))
    cases.append((f"Q1 DS1 {pol[:3]} lru Hybrid",
                  dict(query="Q1", dataset="DS1", policy=pol, strategy="Hybrid", cache="lru",
                       v1_max=1000)))
base = dict(n_events=n, v1_max=10000, cache_size=2000, latency_unit_us=10.0, workers=5,
            rate=20000.0, bl3_greedy_events=3000)
point(dict(base, **cases[0][1], n_events=200), 1)                 # compile / load the cache
out = {}
for name, p in cases:
    c0 = time.process_time()
    row = point(dict(base, **p), 20210621)
    out[name] = [time.process_time() - c0, row]
print(json.dumps(out))
"""


def against_baseline(rev: str, n_events: int) -> None:
    from baseline import against_revision, best_of
    runs = against_revision(rev, _POINTS, [str(n_events)])
    print(f"EIRES kernel CPU s per experiment point ({n_events} events, two runs each), {rev} vs "
          f"this checkout, best of 2 alternating runs")
    print(f"{'point':<26}{rev[:10]:>12}{'now':>10}{'speed-up':>10}{'matches':>10}  outputs")
    tot_old = tot_new = 0.0
    for case in runs["new"][0]:
        old, new = best_of(runs, case)
        tot_old += old
        tot_new += new
        ref = json.dumps(runs["new"][0][case][1], sort_keys=True)     # NaN-safe comparison
        same = all(json.dumps(r[case][1], sort_keys=True) == ref for r in runs["old"] + runs["new"])
        print(f"{case:<26}{old:12.3f}{new:10.3f}{old / max(new, 1e-9):9.1f}x"
              f"{runs['new'][0][case][1]['n_matches']:10d}  {'identical' if same else 'DIFFER'}")
    print(f"{'total':<26}{tot_old:12.3f}{tot_new:10.3f}{tot_old / max(tot_new, 1e-9):9.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--small", type=int, default=3000)
    ap.add_argument("--policy", default="nongreedy", choices=["greedy", "nongreedy"])
    ap.add_argument("--v1-max", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per strategy, the fastest reported (another job on a shared "
                         "machine slows single runs by up to 2x)")
    ap.add_argument("--baseline", metavar="REV", default=None,
                    help="time the experiments' kernel calls against git revision REV instead")
    ap.add_argument("--points-events", type=int, default=5000,
                    help="events per point for --baseline (overall_q2 quick: 5000)")
    a = ap.parse_args()
    if a.baseline:
        against_baseline(a.baseline, a.points_events)
        return
    prof = load_profile(None)
    unit, base = prof.unit_vector(), prof.base_cost
    s = generate("DS1", a.events, 1, v1_max=a.v1_max)
    prog = compile_pattern(parse_pattern(queries("Q1", a.policy == "greedy")[0]), s.schema)
    kw = dict(unit_cost=unit, base_cost=base, record_matches=False)
    run_remote(prog, s.slice(0, 200), strategy="Hybrid", **kw)          # compile / load cache
    print(f"Q1 {a.policy} over DS1, {a.events} events, cost-based cache, fastest of "
          f"{max(a.repeat, 1)} runs")
    print(f"{'strategy':10s} {'events/s':>12s} {'matches':>9s} {'fetches':>9s}")
    for st in STRATEGIES:
        if st == "BL3" and a.policy == "greedy":
            continue
        dt = float("inf")
        for _ in range(max(a.repeat, 1)):
            t = time.perf_counter()
            r = run_remote(prog, s, strategy=st, cache="cost", **kw)
            dt = min(dt, time.perf_counter() - t)
        print(f"{st:10s} {a.events / dt:12.0f} {len(r.matches):9d} {r.info['fetches']:9d}")
    small = s.slice(0, a.small)
    print(f"\nSimPy reference vs kernel on {a.small} events (Hybrid, cost cache, trace replay)")
    t = time.perf_counter()
    r = run_remote(prog, small, strategy="Hybrid", cache="cost", trace_cap=5_000_000, **kw)
    tk = time.perf_counter() - t
    t = time.perf_counter()
    simulate_remote_simpy(np.zeros(a.small), r.info["trace"], len(r.matches), 5, 0, 10.0)
    ts = time.perf_counter() - t
    print(f"kernel {a.small / tk:12.0f} events/s   simpy {a.small / ts:12.0f} events/s   "
          f"kernel/simpy {ts / tk:8.1f}x")


if __name__ == "__main__":
    main()

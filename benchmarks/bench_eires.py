"""Speed of the remote-data kernel per strategy (Q1 over DS1) and of the SimPy reference.

Prints events/s of ``engines.remote.kernel.run_remote`` (wall clock, after a warm-up run that
compiles) for every strategy with the cost-based cache, and, on a small stream, the SimPy
reference replay (``sim.remote_queue``) beside the kernel, as a ratio.  Not asserted anywhere.

    PYTHONPATH=$PWD python benchmarks/bench_eires.py [--events 100000] [--policy nongreedy]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.remote.config import STRATEGIES
from engines.remote.kernel import run_remote
from sim.costmodel import load_profile
from sim.remote_queue import simulate_remote_simpy
from workloads.eires import generate, queries


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--small", type=int, default=3000)
    ap.add_argument("--policy", default="nongreedy", choices=["greedy", "nongreedy"])
    ap.add_argument("--v1-max", type=int, default=10_000)
    a = ap.parse_args()
    prof = load_profile(None)
    unit, base = prof.unit_vector(), prof.base_cost
    s = generate("DS1", a.events, 1, v1_max=a.v1_max)
    prog = compile_pattern(parse_pattern(queries("Q1", a.policy == "greedy")[0]), s.schema)
    kw = dict(unit_cost=unit, base_cost=base, record_matches=False)
    run_remote(prog, s.slice(0, 200), strategy="Hybrid", **kw)          # compile / load cache
    print(f"Q1 {a.policy} over DS1, {a.events} events, cost-based cache")
    print(f"{'strategy':10s} {'events/s':>12s} {'matches':>9s} {'fetches':>9s}")
    for st in STRATEGIES:
        if st == "BL3" and a.policy == "greedy":
            continue
        t = time.perf_counter()
        r = run_remote(prog, s, strategy=st, cache="cost", **kw)
        dt = time.perf_counter() - t
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

"""Simulator speed: SimPy path vs Lindley fast path on the same 100k-event workload.

Targets (docs/ARCHITECTURE.md, "Engineering notes", sim issue): fast path >= 100x the SimPy path; SimPy path >= 30k
events/s including the engine.  The workload is the eager NFA (``engines.registry``) on the
``mg1_engine`` stream: SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events,
Poisson arrivals at rho = 0.8 under the default cost profile.  Measured per path:

* end to end, ``sim.core.simulate.simulate(..., path=...)``: engine run + cost model + queue +
  metrics, the number a user of the simulator sees;
* the same minus the engine (``simulate_counters`` on the engine's counters);
* the queue alone (``lindley`` vs ``simulate_simpy`` with a list lookup as service function).

The engine-inclusive ratio is bounded by the engine's own time, which both paths pay; the
queue-only ratio is what the fast path itself buys.  Times are the best of ``--repeats`` runs
after a warm-up (wall clock, ``time.perf_counter``).

    python benchmarks/bench_sim.py [--n 100000] [--repeats 3] [--rho 0.8]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from engines.registry import run_engine
from sim.core.arrivals import poisson_arrivals
from sim.core.costmodel import load_profile
from sim.core.fastpath import lindley
from sim.core.queue import simulate_simpy
from sim.studies.basic.scenario import engine_program, synthetic_stream
from sim.core.simulate import simulate, simulate_counters


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rho", type=float, default=0.8)
    args = ap.parse_args()
    n, rep = args.n, args.repeats
    profile = load_profile(None)

    stream = synthetic_stream(n, seed=1)
    program = engine_program(stream, window=20)
    run_engine("eager", program, stream.slice(0, 1000))                    # compile
    res = run_engine("eager", program, stream)
    counters = np.asarray(res.counters)[:n]
    last, det = res.matches.last_event, res.matches.detect
    service = profile.service_times(counters)
    arrivals = poisson_arrivals(n, args.rho / service.mean(), seed=2)
    lindley(arrivals[:10], service[:10])                                     # compile
    svc = service.tolist()

    t_engine = _best(lambda: run_engine("eager", program, stream), rep)
    t_e2e_fast = _best(lambda: simulate(stream, program, "eager", arrivals, profile, "fast"), rep)
    t_e2e_simpy = _best(lambda: simulate(stream, program, "eager", arrivals, profile, "simpy"),
                        rep)
    t_sc_fast = _best(lambda: simulate_counters(counters, arrivals, profile, "fast", last, det),
                      rep)
    t_sc_simpy = _best(lambda: simulate_counters(counters, arrivals, profile, "simpy", last, det),
                       rep)
    t_q_fast = _best(lambda: lindley(arrivals, service), rep)
    t_q_simpy = _best(lambda: simulate_simpy(arrivals, lambda i, now: svc[i], n), rep)

    print(f"workload: {n} events, {len(res.matches)} matches, rho={args.rho}, eager engine "
          f"SEQ(A,B,C) count window 20, default profile; {os.cpu_count()} cpus, load "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'stage':<52}{'seconds':>10}{'events/s':>14}")
    rows = [("engine alone (eager run_engine)", t_engine),
            ("simulate(), fast path  [engine+cost+queue+metrics]", t_e2e_fast),
            ("simulate(), SimPy path [engine+cost+queue+metrics]", t_e2e_simpy),
            ("simulate_counters fast  [cost+queue+metrics]", t_sc_fast),
            ("simulate_counters SimPy [cost+queue+metrics]", t_sc_simpy),
            ("queue only: Lindley (numba)", t_q_fast),
            ("queue only: SimPy", t_q_simpy)]
    for name, t in rows:
        print(f"{name:<52}{t:>10.4f}{n / t:>14,.0f}")
    print(f"ratio fast/SimPy incl. engine (simulate()):  {t_e2e_simpy / t_e2e_fast:8,.1f}x "
          f"(target >= 100x)")
    print(f"ratio fast/SimPy without engine:             {t_sc_simpy / t_sc_fast:8,.1f}x")
    print(f"ratio fast/SimPy queue only:                 {t_q_simpy / t_q_fast:8,.1f}x")
    print(f"SimPy path incl. engine: {n / t_e2e_simpy:,.0f} events/s (target >= 30,000); "
          f"engine share of the fast path: {t_engine / t_e2e_fast:.0%}")


if __name__ == "__main__":
    main()

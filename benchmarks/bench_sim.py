"""Simulator speed: SimPy path vs Lindley fast path on the same 100k-event workload.

Targets (DESIGN section 10, issue sim/): fast path >= 100x SimPy; SimPy path >= 30k events/s
including the engine and the counters -> service-time lookup.  Counters come from the eager
engine when it is available, else from a seeded synthetic counter matrix (the output says
which).  Times are best of ``--repeats`` runs after a warm-up.

    python benchmarks/bench_sim.py [--n 100000] [--repeats 3]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from engines.counters import N_COUNTERS
from sim.arrivals import poisson_arrivals
from sim.costmodel import load_profile
from sim.fastpath import lindley
from sim.queue import simulate_simpy
from sim.simulate import simulate_counters


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

    engine_fn = None
    try:
        from engines.registry import run_engine
        from sim.scenarios.basic import engine_program, synthetic_stream

        stream = synthetic_stream(n, seed=1)
        program = engine_program(stream, window=20)
        run_engine("eager", program, stream.slice(0, 1000))           # compile
        engine_fn = lambda: run_engine("eager", program, stream)       # noqa: E731
        res = engine_fn()
        counters = np.asarray(res.counters)[:n]
        last, det = res.matches.last_event, res.matches.detect
        source = "eager engine, SEQ(A,B,C) count window 20"
    except (ImportError, ModuleNotFoundError) as exc:
        rng = np.random.default_rng(1)
        counters = rng.poisson([40, 20, 3, 3, 1, 0.2, 0, 0, 0, 0, 10, 4],
                               size=(n, N_COUNTERS)).astype(np.int64)
        last = np.sort(rng.integers(0, n, n // 10))
        det = last.copy()
        source = f"synthetic counter matrix (eager engine unavailable: {exc})"

    service = profile.service_times(counters)
    arrivals = poisson_arrivals(n, args.rho / service.mean(), seed=2)
    lindley(arrivals[:10], service[:10])                                 # compile
    svc = service.tolist()

    t_fast = _best(lambda: lindley(arrivals, service), rep)
    t_simpy = _best(lambda: simulate_simpy(arrivals, lambda i, now: svc[i], n), rep)
    t_fast_full = _best(lambda: simulate_counters(counters, arrivals, profile, "fast", last, det), rep)
    t_simpy_full = _best(lambda: simulate_counters(counters, arrivals, profile, "simpy", last, det),
                         rep)
    t_engine = _best(engine_fn, rep) if engine_fn else 0.0

    print(f"workload: {n} events, rho={args.rho}, counters from {source}")
    print(f"{'stage':<44}{'seconds':>10}{'events/s':>14}")
    rows = [("queue only: Lindley (numba)", t_fast),
            ("queue only: SimPy", t_simpy),
            ("simulate_counters fast (cost+queue+metrics)", t_fast_full),
            ("simulate_counters simpy (cost+queue+metrics)", t_simpy_full)]
    if engine_fn:
        rows += [("engine run (eager)", t_engine),
                 ("engine + simulate fast", t_engine + t_fast_full),
                 ("engine + simulate simpy", t_engine + t_simpy_full)]
    for name, t in rows:
        print(f"{name:<44}{t:>10.4f}{n / t:>14,.0f}")
    print(f"ratio fast/SimPy, queue only:            {t_simpy / t_fast:,.0f}x  (target >= 100x)")
    print(f"ratio fast/SimPy, simulate_counters:     {t_simpy_full / t_fast_full:,.0f}x")
    simpy_rate = n / (t_engine + t_simpy_full)
    print(f"SimPy path incl. {'engine' if engine_fn else 'counters lookup'}: {simpy_rate:,.0f} "
          f"events/s  (target >= 30,000)")


if __name__ == "__main__":
    main()

"""SimPy single-server FIFO queue (docs/ARCHITECTURE.md, "The simulator").

Used when the service of an event depends on the virtual time at which it starts (remote
fetches whose answers arrive later, load shedders looking at the queue).  The service of
event ``i`` is asked for, via ``service_fn(i, now)``, at the instant event ``i`` starts
service, so later issues hook in there.

Design (measured, see ``benchmarks/bench_sim.py``): one server process walks the events in
arrival order and, if the server idles, waits until the next arrival with a single timeout.
That is ~2 SimPy timeouts per event.  A variant with a separate arrival generator feeding a
``simpy.Store`` (``design="store"``) is kept for comparison; it models the same queue but
ran ~4x slower here (75k vs 290k customers/s at 100k customers), so ``"server"`` is the
default.  Both give
identical start/depart times.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import simpy

from engines.errors import CepsimInputError

ServiceFn = Callable[[int, float], float]


def _check(arrivals, n: int) -> np.ndarray:
    a = np.ascontiguousarray(arrivals, dtype=np.float64)
    if a.ndim != 1 or n < 0 or n > a.shape[0]:
        raise CepsimInputError(f"simulate_simpy: n={n} must be between 0 and the number of "
                               f"arrivals ({a.shape[0] if a.ndim == 1 else a.shape})")
    return a


def simulate_simpy(arrivals: np.ndarray, service_fn: ServiceFn, n: int | None = None,
                   design: str = "server") -> tuple[np.ndarray, np.ndarray]:
    """Run the FIFO queue in SimPy; returns ``(start, depart)`` float64 arrays of length ``n``.

    ``service_fn(i, now)`` -> service time (seconds, >= 0) of event ``i`` starting at ``now``.
    """
    if n is None:
        n = len(arrivals)
    a = _check(arrivals, int(n))
    n = int(n)
    start = np.empty(n, dtype=np.float64)
    depart = np.empty(n, dtype=np.float64)
    if n == 0:
        return start, depart
    env = simpy.Environment(initial_time=min(0.0, float(a[0])))
    if design == "server":
        env.process(_server(env, a.tolist(), n, service_fn, start, depart))
    elif design == "store":
        store = simpy.Store(env)
        env.process(_arrivals(env, a.tolist(), n, store))
        env.process(_store_server(env, store, n, service_fn, start, depart))
    else:
        raise CepsimInputError(f"simulate_simpy: design must be 'server' or 'store', got {design!r}")
    env.run()
    return start, depart


def _server(env, arr, n, service_fn, start, depart):
    timeout = env.timeout
    for i in range(n):
        ai = arr[i]
        now = env.now
        if ai > now:
            yield timeout(ai - now)
            now = env.now
        start[i] = now
        s = service_fn(i, now)
        if s < 0:
            raise CepsimInputError(f"service time of event {i} is negative ({s})")
        yield timeout(s)
        depart[i] = env.now


def _arrivals(env, arr, n, store):
    timeout = env.timeout
    for i in range(n):
        d = arr[i] - env.now
        if d > 0:
            yield timeout(d)
        store.put(i)


def _store_server(env, store, n, service_fn, start, depart):
    timeout = env.timeout
    for _ in range(n):
        i = yield store.get()
        now = env.now
        start[i] = now
        s = service_fn(i, now)
        if s < 0:
            raise CepsimInputError(f"service time of event {i} is negative ({s})")
        yield timeout(s)
        depart[i] = env.now

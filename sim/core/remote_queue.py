"""SimPy reference for the remote-data kernel: queue, server and remote store (EIRES).

The model holds the FIFO queue and single server of the CEP engine and the remote store as a
SimPy ``Resource`` of W fetch workers; each fetch is a SimPy process that waits for a worker,
holds it for its latency (drawn here from the same counter-based generator, re-implemented in
plain Python) and then makes the element available.  The engine's *decisions* (which partial
match needs which key, hit or miss) come from the kernel's trace of store interactions
(``run_remote(..., trace_cap=N)``): the server replays it event by event - compute segments as
timeouts, fetch issues as new fetch processes, waits as ``yield`` on the fetch, emissions as
time stamps, blocking fetches on the server's own clock as timeouts (``merge_requests=False``,
the authors' artifact) - and checks every cache observation the kernel made against the SimPy store (a hit
must see a completed, not yet evicted element; a miss must not).  Emission times, start and
departure times then come from SimPy alone, so agreement with the kernel (to ~1e-9 relative,
the rounding of SimPy's absolute clock) checks the kernel's virtual-time model: the queue, the
FIFO workers, the latencies, blocking and when completions become visible.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from engines.errors import CepsimInputError
from engines.remote.kernel import (TR_BLOCK, TR_COMPUTE, TR_EMIT, TR_END, TR_EVICT, TR_ISSUE,
                                   TR_OBSERVE, TR_START, TR_WAIT)

_M64 = (1 << 64) - 1


def py_fetch_latency(seed: int, f: int, unit_s: float) -> float:
    """Plain-Python splitmix64 latency of fetch ``f`` (the kernel's generator, independently)."""
    z = (seed * 0x9E3779B97F4A7C15 + f + 0x632BE59BD9B4E019) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    z ^= z >> 31
    return unit_s * float(1 + z % 10)


@dataclass
class SimpyRemoteResult:
    start: np.ndarray
    depart: np.ndarray
    emit_time: np.ndarray
    observations: int
    fetches: int


def simulate_remote_simpy(arrivals: np.ndarray, trace, n_matches: int, workers: int, seed: int,
                          latency_unit_us: float,
                          fetch_overhead_us: float = 0.0) -> SimpyRemoteResult:
    """Replay a kernel trace in SimPy (see module docstring); raises on any inconsistency."""
    kinds, a_col, b_col, x_col = (np.asarray(t) for t in trace)
    arr = np.asarray(arrivals, dtype=float)
    n = len(arr)
    env = simpy.Environment()
    pool = simpy.Resource(env, capacity=workers)
    present: dict[int, bool] = {}
    fetch_proc: dict[int, simpy.Process] = {}
    start = np.full(n, np.nan)
    depart = np.full(n, np.nan)
    emit = np.full(n_matches, np.nan)
    counts = {"obs": 0, "fetch": 0}
    unit_s = latency_unit_us * 1e-6

    done_at: dict[int, float] = {}

    def fetch(key: int, lat: float):
        with pool.request() as req:
            yield req
            done_at[key] = env.now + lat
            yield env.timeout(lat)
        present[key] = True

    def server():
        k = 0
        for i in range(n):
            if arr[i] > env.now:
                yield env.timeout(arr[i] - env.now)
            if k >= len(kinds) or kinds[k] != TR_START or a_col[k] != i:
                raise CepsimInputError(f"remote trace: expected the start of event {i} at record "
                                       f"{k}")
            start[i] = env.now
            k += 1
            while kinds[k] != TR_END:
                kind, a, b, x = int(kinds[k]), int(a_col[k]), int(b_col[k]), float(x_col[k])
                if kind == TR_COMPUTE:
                    yield env.timeout(x)
                elif kind == TR_ISSUE:
                    lat = py_fetch_latency(seed, b, unit_s) + fetch_overhead_us * 1e-6
                    if lat != x:
                        raise AssertionError(f"fetch {b}: kernel latency {x} != reference {lat}")
                    # (without merging, an earlier request for the key may have completed and not
                    # yet been applied by the kernel: its presence stands)
                    present.setdefault(a, False)
                    fetch_proc[a] = env.process(fetch(a, lat))
                    counts["fetch"] += 1
                elif kind == TR_WAIT:
                    yield fetch_proc[a]
                elif kind == TR_BLOCK:
                    # the artifact's blocking fetch: the server itself sleeps for the latency,
                    # then the element is in the cache (a victim or a rejection follows as EVICT)
                    lat = py_fetch_latency(seed, b, unit_s) + fetch_overhead_us * 1e-6
                    if lat != x:
                        raise AssertionError(f"fetch {b}: kernel latency {x} != reference {lat}")
                    counts["fetch"] += 1
                    yield env.timeout(lat)
                    present[a] = True
                elif kind == TR_OBSERVE:
                    counts["obs"] += 1
                    if bool(present.get(a, False)) != bool(b):
                        # a fetch of the key completing at this very instant (equal in exact
                        # arithmetic; the kernel's and SimPy's sums round apart) is a tie: the
                        # kernel's side of it stands, anything else is a disagreement
                        t_done = done_at.get(a, -1.0)
                        if abs(t_done - env.now) <= 1e-12 * max(1.0, abs(env.now)):
                            present[a] = bool(b)
                            k += 1
                            continue
                        raise AssertionError(f"event {i}: the kernel saw key {a} "
                                             f"{'in' if b else 'not in'} the cache at "
                                             f"{env.now!r}; the SimPy store disagrees")
                elif kind == TR_EVICT:
                    present[a] = False
                elif kind == TR_EMIT:
                    emit[a] = env.now
                k += 1
            depart[i] = env.now
            k += 1

    env.process(server())
    env.run()
    return SimpyRemoteResult(start, depart, emit, counts["obs"], counts["fetch"])

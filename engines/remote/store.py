"""The remote store in numba: per-fetch latency, W FIFO workers, the in-flight heap.

A fetch issued at virtual time ``t`` is served by the worker that frees first (FIFO across
requests: a request waits for the earliest worker release), so its completion time is known at
issue: ``done = max(t, free_w) + latency``.  That is exactly what a SimPy ``Resource`` of
capacity W with FIFO requests gives (``sim.core.remote_queue`` checks it).  The latency of fetch
number ``f`` is ``L * (1 + h(seed, f) mod 10)`` microseconds with ``h`` the splitmix64 mixer.
"""
from __future__ import annotations

import numpy as np

from engines.leaf_jit import leaf_njit


@leaf_njit
def mix64(seed: int, f: int) -> int:
    """splitmix64 of (seed, f): a counter-based pseudo-random 64-bit integer (as uint64)."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(f) + np.uint64(0x632BE59BD9B4E019)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@leaf_njit
def fetch_latency(seed: int, f: int, unit_s: float) -> float:
    """Latency (seconds) of fetch number ``f``: ``unit_s * U{1..10}``."""
    return unit_s * float(1 + mix64(seed, f) % np.uint64(10))


@leaf_njit
def uniform01(seed: int, f: int) -> float:
    """A counter-based uniform in [0, 1) (53 bits)."""
    return float(mix64(seed, f) >> np.uint64(11)) / 9007199254740992.0


@leaf_njit
def assign_worker(wfree: np.ndarray, t: float, lat: float) -> float:
    """Give a fetch issued at ``t`` to the first-free worker; return its completion time."""
    w = 0
    for k in range(1, wfree.shape[0]):
        if wfree[k] < wfree[w]:
            w = k
    start = t if t > wfree[w] else wfree[w]
    done = start + lat
    wfree[w] = done
    return done


@leaf_njit
def heap_push(ht: np.ndarray, hk: np.ndarray, n: int, t: float, k: int) -> int:
    """Push (t, k) on a min-heap of size n (arrays large enough); returns the new size."""
    i = n
    ht[i] = t
    hk[i] = k
    while i > 0:
        p = (i - 1) // 2
        if ht[p] < ht[i] or (ht[p] == ht[i] and hk[p] <= hk[i]):
            break
        ht[p], ht[i] = ht[i], ht[p]
        hk[p], hk[i] = hk[i], hk[p]
        i = p
    return n + 1


@leaf_njit
def heap_pop(ht: np.ndarray, hk: np.ndarray, n: int) -> int:
    """Remove the minimum (read it at index 0 first); returns the new size."""
    n -= 1
    ht[0] = ht[n]
    hk[0] = hk[n]
    i = 0
    while True:
        l = 2 * i + 1
        if l >= n:
            break
        c = l
        r = l + 1
        if r < n and (ht[r] < ht[l] or (ht[r] == ht[l] and hk[r] < hk[l])):
            c = r
        if ht[i] < ht[c] or (ht[i] == ht[c] and hk[i] <= hk[c]):
            break
        ht[c], ht[i] = ht[i], ht[c]
        hk[c], hk[i] = hk[i], hk[c]
        i = c
    return n

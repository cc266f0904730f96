"""Partial-match storage for the NFA engines (eager now, lazy chain/tree NFA later).

Everything here is plain numpy arrays plus ``@njit(cache=True)`` helpers, so a Numba kernel can
keep its whole state in local variables (ENGINEERING.md: structure of arrays, doubling when full,
no per-event Python objects).  A helper that may reallocate returns the new array(s); the caller
rebinds its locals, e.g. ``a = grow_1d(a, 2 * len(a))``.

The pieces and how ``engines/evaluators/eager.py`` combines them:

*Instance arena* — one row per NFA instance (partial match), structure of arrays:
``a_first[i]`` (int64, stream position of the instance's first event; the window is checked from
it), ``a_flags[i]`` (int8, engine specific bits, e.g. "may still loop"/"may still proceed" of a
Kleene state under skip-till-next-match) and ``a_bind[i, s]`` (int32, one column per slot of the
branch: the event bound to a plain slot, the *tail node* of the event list of a Kleene slot, -1 =
not bound yet).  Rows are recycled through a free stack (``free[:nfree]``); ``a_top`` is the high
water mark.  ``arena_grow`` doubles it.

*Pools* — which arena rows wait in which NFA state.  All pools share one flat int32 array
``pidx``; pool ``j`` is the segment ``pidx[poff[j] : poff[j] + pn[j]]`` of capacity ``pcap[j]``.
Appending to a full pool relays the segments with that pool's capacity doubled
(``pool_push``), so memory follows the pools actually used; ``pools_reserve`` makes room for a
known number of appends per pool at once (the eager kernel reserves an event's worst case before
its loops, which then append with plain stores).  Removal swaps the last member
into the hole (``pool_remove_at``); kernels iterate a pool *downwards* from a size snapshot taken
before the event, so members appended while the event is processed are never visited twice and
swap-removals only move already-visited members.

*Event nodes* — Kleene event lists as parent-pointer chains in ``nev`` (event) / ``npar``
(parent node, -1 = first event of the list): appending an event to a list is one new node
pointing at the old tail, so clones share their common prefix.  ``node_collect`` writes a list
in stream order; ``nodes_compact`` garbage-collects the nodes not reachable from given arena rows
(run between events) and renumbers them (parents always have smaller ids, so order is kept).

*Window* — ``window_lo(ts, e, lo, kind, w)`` advances the first stream position that is still
inside the window of event ``e`` (time: ``ts[e] - ts[p] <= w``; count: ``e - p < w``).  An
instance whose ``a_first < lo`` has expired; ts is non-decreasing, so ``lo`` only moves forward.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit

WIN_TIME, WIN_COUNT = 0, 1  # same codes as engines.compile


# ----------------------------------------------------------------------------- arrays
@njit(cache=True)
def grow_1d(a: np.ndarray, new_cap: int) -> np.ndarray:
    """A copy of 1-D ``a`` with capacity ``new_cap`` (the tail is uninitialised)."""
    b = np.empty(new_cap, dtype=a.dtype)
    for k in range(a.shape[0]):
        b[k] = a[k]
    return b


@njit(cache=True)
def grow_rows(a: np.ndarray, new_rows: int) -> np.ndarray:
    """A copy of 2-D ``a`` with ``new_rows`` rows (the new rows are uninitialised)."""
    b = np.empty((new_rows, a.shape[1]), dtype=a.dtype)
    w = a.shape[1]
    for r in range(a.shape[0]):
        for c in range(w):
            b[r, c] = a[r, c]
    return b


# ----------------------------------------------------------------------------- window
@leaf_njit
def window_lo(ts: np.ndarray, e: int, lo: int, kind: int, w: float) -> int:
    """First position still inside the window that ends at event ``e`` (monotone in ``e``)."""
    if kind == WIN_COUNT:
        cand = e - int(w) + 1
        return cand if cand > lo else lo
    t = ts[e]
    while lo < e and t - ts[lo] > w:
        lo += 1
    return lo


# ----------------------------------------------------------------------------- arena
@njit(cache=True)
def arena_grow(a_first: np.ndarray, a_flags: np.ndarray, a_bind: np.ndarray, free: np.ndarray):
    """Double the instance arena (``free`` grows with it so that it can hold every row)."""
    cap = 2 * a_first.shape[0]
    return (grow_1d(a_first, cap), grow_1d(a_flags, cap), grow_rows(a_bind, cap),
            grow_1d(free, cap))


# ----------------------------------------------------------------------------- pools
@njit(cache=True)
def pools_new(n_pools: int, cap: int):
    """Empty pools: (pidx, poff, pcap, pn)."""
    pcap = np.empty(n_pools, dtype=np.int64)
    poff = np.empty(n_pools, dtype=np.int64)
    for j in range(n_pools):
        pcap[j] = cap
        poff[j] = j * cap
    pn = np.zeros(n_pools, dtype=np.int64)
    pidx = np.empty(n_pools * cap, dtype=np.int32)
    return pidx, poff, pcap, pn


@njit(cache=True)
def _pools_relayout(pidx: np.ndarray, poff: np.ndarray, pcap: np.ndarray, pn: np.ndarray,
                    new_cap: np.ndarray) -> np.ndarray:
    """A new ``pidx`` with pool ``q`` given capacity ``new_cap[q]`` (members kept in order);
    ``poff``/``pcap`` are updated in place."""
    total = 0
    for q in range(pcap.shape[0]):
        total += new_cap[q]
    out = np.empty(total, dtype=np.int32)
    off = 0
    for q in range(pcap.shape[0]):
        for k in range(pn[q]):
            out[off + k] = pidx[poff[q] + k]
        poff[q] = off
        pcap[q] = new_cap[q]
        off += new_cap[q]
    return out


@njit(cache=True)
def pool_push(pidx: np.ndarray, poff: np.ndarray, pcap: np.ndarray, pn: np.ndarray, j: int,
              value: int) -> np.ndarray:
    """Append ``value`` to pool ``j``; returns ``pidx`` (reallocated when pool ``j`` was full)."""
    if pn[j] == pcap[j]:
        new_cap = np.empty_like(pcap)
        for q in range(pcap.shape[0]):
            new_cap[q] = pcap[q]
        new_cap[j] = 2 * pcap[j]
        pidx = _pools_relayout(pidx, poff, pcap, pn, new_cap)
    pidx[poff[j] + pn[j]] = value
    pn[j] += 1
    return pidx


@njit(cache=True)
def pools_reserve(pidx: np.ndarray, poff: np.ndarray, pcap: np.ndarray, pn: np.ndarray,
                  need: np.ndarray) -> np.ndarray:
    """Room for ``need[j]`` more members in every pool ``j`` (a short pool's capacity doubles
    until it fits); returns ``pidx`` (reallocated only when some pool was short).  A kernel that
    reserves an event's worst case once can then append with plain stores
    (``pidx[poff[j] + pn[j]] = value; pn[j] += 1``) inside its per-instance loops, where a
    call that may reallocate would cost Numba reference-count updates on every iteration."""
    short = False
    for q in range(pcap.shape[0]):
        if pn[q] + need[q] > pcap[q]:
            short = True
    if not short:
        return pidx
    new_cap = np.empty_like(pcap)
    for q in range(pcap.shape[0]):
        c = max(pcap[q], 1)
        while pn[q] + need[q] > c:
            c *= 2
        new_cap[q] = c
    return _pools_relayout(pidx, poff, pcap, pn, new_cap)


@njit(cache=True, inline="always")
def pool_remove_at(pidx: np.ndarray, poff: np.ndarray, pn: np.ndarray, j: int, k: int) -> None:
    """Remove member ``k`` of pool ``j`` by moving the last member into its place."""
    last = pn[j] - 1
    pidx[poff[j] + k] = pidx[poff[j] + last]
    pn[j] = last


@njit(cache=True, inline="always")
def pool_sweep(pidx, poff, pn, j, a_first, lo, free, nfree):
    """Remove the expired instances (first event before ``lo``) of pool ``j``, their rows onto
    the free stack; returns the new ``nfree``."""
    base = poff[j]
    for k in range(pn[j] - 1, -1, -1):
        i = pidx[base + k]
        if a_first[i] < lo:
            pool_remove_at(pidx, poff, pn, j, k)
            free[nfree] = i
            nfree += 1
    return nfree


# ----------------------------------------------------------------------------- event nodes
@njit(cache=True)
def nodes_grow(nev: np.ndarray, npar: np.ndarray):
    cap = 2 * nev.shape[0]
    return grow_1d(nev, cap), grow_1d(npar, cap)


@leaf_njit
def node_first(nev: np.ndarray, npar: np.ndarray, tail: int) -> int:
    """First (earliest) event of the list ending at node ``tail``."""
    while npar[tail] >= 0:
        tail = npar[tail]
    return nev[tail]


@leaf_njit
def node_count(npar: np.ndarray, tail: int) -> int:
    n = 0
    while tail >= 0:
        n += 1
        tail = npar[tail]
    return n


@leaf_njit
def node_collect(nev: np.ndarray, npar: np.ndarray, tail: int, out: np.ndarray, start: int,
                 length: int) -> None:
    """Write the ``length`` events of the list ending at ``tail`` into ``out[start:start+length]``
    in stream order."""
    k = start + length - 1
    while tail >= 0:
        out[k] = nev[tail]
        k -= 1
        tail = npar[tail]


@njit(cache=True)
def nodes_compact(nev: np.ndarray, npar: np.ndarray, n_nodes: int, a_bind: np.ndarray,
                  rows: np.ndarray, n_rows: int, kleene_cols: np.ndarray) -> int:
    """Keep only the nodes reachable from ``a_bind[rows[:n_rows], kleene_cols]``; renumber them in
    place (order kept) and rewrite those references.  Returns the new node count."""
    mark = np.zeros(n_nodes, dtype=np.bool_)
    for r in range(n_rows):
        i = rows[r]
        for c in kleene_cols:
            k = a_bind[i, c]
            while k >= 0 and not mark[k]:
                mark[k] = True
                k = npar[k]
    newid = np.empty(n_nodes, dtype=np.int32)
    m = 0
    for k in range(n_nodes):
        if mark[k]:
            newid[k] = m
            p = npar[k]
            nev[m] = nev[k]
            npar[m] = newid[p] if p >= 0 else -1
            m += 1
        else:
            newid[k] = -1
    for r in range(n_rows):
        i = rows[r]
        for c in kleene_cols:
            k = a_bind[i, c]
            if k >= 0:
                a_bind[i, c] = newid[k]
    return m

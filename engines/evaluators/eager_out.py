"""Output buffers of the eager NFA (``engines.evaluators.eager``): matches as structure-of-arrays rows.

``o_pos[m, col]`` event of a plain column (-1 unbound, -2 Kleene), ``o_det[m]`` detection index,
``o_kl`` rows (match, column, start, length) into the Kleene event list ``o_kle``.  Buffers grow
by ``OUT_GROWTH`` (see below) and are reserved for an event's worst case before the loops that
fill them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines.evaluators.nfa_buffers import grow_1d, grow_rows, node_collect, node_count

# Output buffers (matches, Kleene rows/events) grow by this factor, not 2: every growth copies
# the old content into freshly mapped memory, and on a match-heavy stream those page faults
# (not the copy itself) cost as much as the matching.  With factor f the copies add about
# 1/(f-1) of the final size instead of about 1x; the unused tail is never touched, so it costs
# address space, not memory.  Match rows never grow beyond max_matches (the kernel stops there).
OUT_GROWTH = 8


@leaf_njit
def out_kleene(o_pos, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle, nk):
    """Write the Kleene columns of match ``nm`` (bound in row ``r`` of ``tab``): ``o_pos`` gets
    -2, ``o_kl`` a row (match, column, start, length) into the event list ``o_kle``.  The room
    was reserved beforehand (``out_reserve``); returns the new (nkl, nk)."""
    for s in range(tab.shape[1]):
        if not el_kleene[s]:
            continue
        ln = node_count(npar, tab[r, s])
        node_collect(nev, npar, tab[r, s], o_kle, nk, ln)
        col = col_of_slot[s]
        o_pos[nm, col] = -2
        o_kl[nkl, 0] = nm
        o_kl[nkl, 1] = col
        o_kl[nkl, 2] = nk
        o_kl[nkl, 3] = ln
        nkl += 1
        nk += ln
    return nkl, nk


@leaf_njit
def out_write(o_pos, o_det, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle,
               nk, detect):
    """Write the match bound in row ``r`` of ``tab`` as output match ``nm`` (room reserved);
    returns the new (nkl, nk)."""
    for c in range(o_pos.shape[1]):
        o_pos[nm, c] = -1
    for s in range(tab.shape[1]):
        if not el_kleene[s]:
            o_pos[nm, col_of_slot[s]] = tab[r, s]
    nkl, nk = out_kleene(o_pos, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle,
                          nk)
    o_det[nm] = detect
    return nkl, nk


@leaf_njit
def kl_len(tab, r, el_kleene, npar):
    """Number of events bound to the Kleene slots of row ``r`` of ``tab``."""
    n = 0
    for s in range(tab.shape[1]):
        if el_kleene[s]:
            n += node_count(npar, tab[r, s])
    return n


@leaf_njit
def cap_for(cap, need):
    """``cap`` doubled until it holds ``need``."""
    cap = max(cap, 1)
    while cap < need:
        cap *= 2
    return cap


@leaf_njit
def out_cap(cap, need, limit):
    """New capacity of an output buffer that must hold ``need``: ``OUT_GROWTH`` times the old
    one, but not beyond ``max(need, limit)``."""
    return max(need, min(OUT_GROWTH * max(cap, 1), limit))


@njit(cache=True)
def out_reserve(o_pos, o_det, o_kl, o_kle, rows, kl_rows, kl_events, limit):
    """Output arrays with room for ``rows`` matches, ``kl_rows`` Kleene rows and ``kl_events``
    Kleene events (see ``OUT_GROWTH``; ``limit`` bounds the match rows, i.e. max_matches)."""
    if rows > o_det.shape[0]:
        cap = out_cap(o_det.shape[0], rows, limit)
        o_pos = grow_rows(o_pos, cap)
        o_det = grow_1d(o_det, cap)
    if kl_rows > o_kl.shape[0]:
        o_kl = grow_rows(o_kl, out_cap(o_kl.shape[0], kl_rows, np.int64(0)))
    if kl_events > o_kle.shape[0]:
        o_kle = grow_1d(o_kle, out_cap(o_kle.shape[0], kl_events, np.int64(0)))
    return o_pos, o_det, o_kl, o_kle



@njit(cache=True)
def cand_grow(c_row, c_first, c_edge, need):
    """Candidate buffers with room for ``need`` candidates."""
    cap = cap_for(c_first.shape[0], need)
    return grow_rows(c_row, cap), grow_1d(c_first, cap), grow_1d(c_edge, cap)

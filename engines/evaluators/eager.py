"""The eager NFA (SASE-style chain in each branch's query order; DEBS'15 section 3).

``run_eager(program, stream, max_partial_matches=..., max_matches=..., max_states=...) ->
EngineResult`` runs one Numba kernel per grouped branch (``Program.grouped``; the same compiled
kernel for every pattern shape: arrays describe the branch) and returns the union of the
branches' matches with the counters summed.

The automaton of a branch (``engines/evaluators/eager_tables.py``): a branch is a sequence of groups, each a
plain slot, a Kleene slot or an *unordered* set of plain slots (an AND of plain events, run
natively: one instance per partial binding whatever the order its events arrived in, instead of
one branch per order).  State ``W(g, mask)`` waits for the unbound slots of group ``g``; the
initial state (pool 0) holds only the sentinel arena row 0 (nothing bound): every event of a
first-group type tries to start an instance from it.  ``K(g)`` (Kleene group ``g`` holds ``>= 1``
events) may *loop* (take one more event of it) or *proceed* (bind a slot of group ``g + 1``).
Each state has a pool of instances; each edge a predicate list fixed by the state's bound slots.

Per event, in this order: (1) the window start ``lo`` advances and the instances whose first
event fell out of it expire (counted exactly at this event); (2) matches waiting for a trailing
NOT whose window has closed are emitted (``detect`` = this event); (3) an event of a trailing
negated type kills the waiting matches it qualifies against; (4) events of other negated types
are buffered; (5) *phase 1*: every live instance waiting for this event's type checks its edge
(predicates that become fully bound, evaluated by ``eval_pred``; a predicate on a Kleene variable
is checked against each of its events) and produces a *candidate* (the extended binding);
(6) *phase 2*: candidates pass the negation checks that became decidable, are emitted when
complete and stored as new instances when they can go on.

Policies.  skip-till-any-match: an extension is a clone, the old instance stays.
skip-till-next-match (docs/SEMANTICS.md rule 6): an instance keeps one flag per edge of its state
(one for a plain slot; LOOP and each PROCEED edge of a ``K`` state; one per unbound slot of an
unordered group -- each order of the AND is its own run), each consumed by the first event
qualifying for that edge (an event qualifying for several creates each run); the instance is
removed when no flag is left.  Negation only filters (a killed run is simply dropped).

Negation (SEMANTICS rule 4).  Middle NOT: checked against the buffered negative events between
the left neighbour group's last and the right neighbour group's first event, on the first edge
after which every slot it needs is final (a Kleene slot is final once the next group starts); a
check that needs the last Kleene slot runs at each emission.  NOT at the start: at each emission, against buffered events in
``[lo, first)``.  Trailing NOT: complete matches wait in the *pending* pool until the window of
their first event closes (or the stream ends: ``detect = n_events``).

Counters (engines/counters.py): PRED_EVAL each ``eval_pred`` call; EDGE_EVAL each edge check
(an attempt to extend/start an instance with an event of the right type, once per edge however
many predicates; DEBS'15 section 7) and each candidate negative event examined by a negation
check; PM_CREATED each instance stored in a pool (under next-match an advancing instance is
counted as removed from its state and created in the next); PM_REMOVED instances leaving the
live set (expired, consumed under next-match, killed); MATCH_EMIT at detection; BUF_INSERT /
BUFFERED the negated-type events held for middle/start NOTs; LIVE_PM = created - removed so far;
INSTANCE_WORK = live instances (after expiry) + 1 for the initial state, per event and branch:
the paper's eager NFA applies every event to every instance (section 3.2.2).
Pending trailing-NOT matches are not partial matches and are not counted as live.

Parts: engines/evaluators/eager_tables.py (the automaton as arrays), engines/evaluators/eager_paths.py
(which edges take the kernel's fast paths), engines/evaluators/eager_preds.py (predicate and
negation checks on instance rows), engines/evaluators/eager_out.py (match output buffers),
engines/evaluators/nfa_buffers.py (instance arena, pools, shared Kleene event-node chains).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import (KIND_KLEENE, PI_C1, PI_C2, PI_KIND, PI_OP, PI_V2, PK_CMP, POLICY_NEXT,
                             Program)
from engines.evaluators.eager_paths import edge_paths, fast_operand
from engines.evaluators.eager_out import (cand_grow, cap_for, kl_len, out_kleene, out_reserve, out_write)
from engines.evaluators.eager_preds import neg_killed, neg_span, trailing_kills
from engines.evaluators.eager_tables import (DEFAULT_MAX_STATES, EDGE_LOOP, ROLE_SECOND,
                                  ROLE_SELF, branch_tables)
from engines.errors import CapacityError, CepsimInputError
from engines.matches import MatchSet
from engines.evaluators.nfa_buffers import (arena_grow, grow_1d, nodes_compact, pool_remove_at,
                                 pool_sweep, pools_new, pools_reserve, window_lo)
from engines.predicates import compare, eval_pred
from engines.registry import EngineResult
from engines.stream import EventStream

DEFAULT_MAX_PARTIAL_MATCHES = 5_000_000
DEFAULT_MAX_MATCHES = 20_000_000
# initial buffer capacity, min pool size before an expiry sweep, min node count before a
# node collection, initial pool capacity
DEFAULT_TUNE = (256, 1024, 1 << 16, 64)
# kernel status
ST_OK, ST_MAX_PM, ST_MAX_MATCHES = 0, 1, 2


# ----------------------------------------------------------------------------- kernel
# Scalar state of a kernel run kept in ``sv`` between calls of ``_eager_events`` (the event
# loop returns to ``eager_kernel`` whenever a buffer must grow, then resumes).
SV_NFREE, SV_ATOP, SV_NDL, SV_NN, SV_NGC, SV_NHEAD, SV_NTAIL, SV_NKL, SV_NM, SV_NK = range(10)
SV_LIVE, SV_LO = 10, 11
# the current event's counters and candidate count, saved when it is resumed mid-event
SV_KEDGE, SV_KPRED, SV_KEMIT, SV_KCREATED, SV_KREMOVED, SV_NC = 12, 13, 14, 15, 16, 17
SV_SIZE = 18
# what must grow before the event loop can resume (``need``): sizes; NEED_POOLS = 1 when
# ``pneed`` holds per-pool appends to reserve
NEED_ARENA, NEED_CAND, NEED_NODES, NEED_OROWS, NEED_OKLROWS, NEED_OKLE, NEED_NBUF = range(7)
NEED_POOLS = 7
NEED_SIZE = 8
# where an event resumes: at its start (nothing of it done yet), at phase 1 (steps 1-4 and the
# maintenance done), at phase 2 (phase 1 done, candidates in c_row/c_first/c_edge)
AT_START, AT_PHASE1, AT_PHASE2 = 0, 1, 2
ST_GROW = 3


@leaf_njit
def _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo):
    sv[SV_NFREE] = nfree
    sv[SV_ATOP] = a_top
    sv[SV_NDL] = ndl
    sv[SV_NN] = nn
    sv[SV_NGC] = ngc_at
    sv[SV_NHEAD] = nhead
    sv[SV_NTAIL] = ntail
    sv[SV_NKL] = nkl
    sv[SV_NM] = nm
    sv[SV_NK] = nk
    sv[SV_LIVE] = live
    sv[SV_LO] = lo


@leaf_njit
def _save_event(sv, k_edge, k_pred, k_emit, k_created, k_removed, nc):
    sv[SV_KEDGE] = k_edge
    sv[SV_KPRED] = k_pred
    sv[SV_KEMIT] = k_emit
    sv[SV_KCREATED] = k_created
    sv[SV_KREMOVED] = k_removed
    sv[SV_NC] = nc


@njit(cache=True)
def _collect_nodes(pidx, poff, pn, n_pools, nev, npar, nn, a_bind, kleene_cols):
    """Node collection between events (``nodes_compact`` over every pooled instance)."""
    tot = np.int64(0)
    for j in range(1, n_pools):
        tot += pn[j]
    rows = np.empty(tot, dtype=np.int64)
    r = 0
    for j in range(1, n_pools):
        for k in range(pn[j]):
            rows[r] = pidx[poff[j] + k]
            r += 1
    return nodes_compact(nev, npar, nn, a_bind, rows, tot, kleene_cols)


@njit(cache=True)
def eager_kernel(types, ts, attrs, pred_i, pred_f,
                 el_type, el_kleene, col_of_slot, n_cols, el_group, g_lo, g_hi,
                 st_start, st_complete, ed_slot, ed_kind, ed_dst, ed_bit,
                 ep_start, ep_pred, ep_role, ep_other, en_start, en_q,
                 ty_start, ty_state, ty_count, ty_edge,
                 ng_type, ng_left, ng_right, ng_emit, ng_trailing,
                 np_start, np_pred, np_role, np_other,
                 window_kind, window, policy, max_pm, max_matches, tune, counters, cnt_first,
                 hold):
    """Run the eager NFA of one branch (automaton: ``engines.evaluators.eager_tables``) over the stream;
    adds into ``counters``.

    ``cnt_first`` (int64[max(n, 1)], zeros): scratch, live instances by first position.
    ``hold`` (int64[n], -1): set to the largest first position of the instances (and parked
    trailing-NOT matches) stored while event ``e`` is processed -- every one of them binds ``e``
    (``match_buffer_gauge``).
    ``tune`` (int64[4]): initial capacity of every buffer, minimum pool size before an expiry
    sweep, minimum node count before a node collection, initial size of the pools (tests set them
    tiny so that every growth/collection path runs).
    Returns (status, event, pos, kl_rows, kl_events, detect); a row of kl_rows is (match,
    column, start, length) of a Kleene column's events in kl_events.

    Speed: no array is reallocated inside the event loop (``_eager_events``).  Numba makes an
    array variable that a loop may rebind a loop-carried value and pays an atomic reference
    count update for it on every iteration (docs/ENGINEERING.md, "Numba hot loops"): with the
    growth calls inside the event loop, those updates were 80 % of the kernel's time on the
    OpenCEP stock patterns.  So the event loop checks, at the three points of an event where
    buffers fill (its start: pending matches flushed, negated events buffered; phase 1; phase 2),
    that the worst case of what follows fits; when it does not, it saves its state (``sv``), and
    returns here, where the buffers grow exactly as the growth calls inside the loop grew them
    (same sizes); the loop then resumes at the same point of the same event.  Every buffer an
    event can fill (candidates, event nodes, arena rows, pools, output) is thus reserved for the
    event's worst case before the loop that fills it.  The per-event counters are accumulated in
    locals and added to ``counters`` once per event.  A state with one edge for the event's type
    whose predicates are at most ``FAST_MAX_PREDS`` comparisons with plain slots
    (skip-till-any-match) takes a fast path (operands on the event's side computed once, no
    per-instance dispatch; see ``fast_operand``), and writes its matches straight to the output
    when nothing (negation, Kleene output, trailing NOT, max_matches) could intervene between
    candidate and emission."""
    cap0 = tune[0]
    n = types.shape[0]
    m = el_type.shape[0]
    S = st_complete.shape[0]
    n_neg = ng_type.shape[0]
    nextp = policy == POLICY_NEXT
    pend_pool = S
    n_pools = S + 1
    has_trailing = np.bool_(False)      # np scalars, not literals: one compile of the callees
    has_buffered_neg = np.bool_(False)  # (docs/ENGINEERING.md, "Numba hot loops")
    has_emit_neg = np.bool_(False)
    for q in range(n_neg):
        if ng_trailing[q]:
            has_trailing = True
        else:
            has_buffered_neg = True
        if ng_emit[q]:
            has_emit_neg = True
    n_kl = np.int64(0)
    for s in range(m):
        if el_kleene[s]:
            n_kl += 1
    kleene_cols = np.empty(n_kl, dtype=np.int64)
    n_kl = 0
    for s in range(m):
        if el_kleene[s]:
            kleene_cols[n_kl] = s
            n_kl += 1
    # per state: full flag mask (one flag per edge)
    st_full = np.zeros(S, dtype=np.int64)
    for j in range(S):
        st_full[j] = (np.int64(1) << (st_start[j + 1] - st_start[j])) - 1
    ed_fast, ed_direct, ed_start, ed_store = edge_paths(
        el_type, el_kleene, st_start, st_complete, ed_slot, ed_kind, ed_dst, ep_start, ep_pred,
        ep_role, ep_other, en_start, ty_start, pred_i, nextp, n_kl, has_trailing, has_emit_neg)
    # the branch binds every output column (no OR): a match row needs no -1 fill first
    all_cols = m == n_cols and n_kl == 0

    # instance arena + pools
    acap = cap0
    a_first = np.empty(acap, dtype=np.int64)
    a_flags = np.zeros(acap, dtype=np.int64)
    a_bind = np.empty((acap, m), dtype=np.int32)
    free = np.empty(acap, dtype=np.int64)
    for s in range(m):
        a_bind[0, s] = -1   # row 0: the sentinel 'nothing bound' instance of pool 0
    a_flags[0] = 0
    pidx, poff, pcap, pn = pools_new(n_pools, max(1, min(tune[3], (1 << 20) // n_pools)))
    snap = np.zeros(n_pools, dtype=np.int64)
    pneed = np.zeros(n_pools, dtype=np.int64)
    touched = np.empty(n_pools, dtype=np.int64)  # pools with pneed > 0 (phase 2)
    # pools that received instances since the last maintenance (sweep candidates)
    dirty = np.zeros(n_pools, dtype=np.bool_)
    dlist = np.empty(n_pools, dtype=np.int64)
    sweep_at = np.empty(n_pools, dtype=np.int64)
    sweep_at[:] = tune[1]
    # Kleene event nodes
    nev = np.empty(cap0, dtype=np.int32)
    npar = np.empty(cap0, dtype=np.int32)
    # candidates of the current event: binding row, first position, edge taken
    c_row = np.empty((cap0, m), dtype=np.int32)
    c_first = np.empty(cap0, dtype=np.int64)
    c_edge = np.empty(cap0, dtype=np.int64)
    # negative-event buffer (positions, ascending)
    nbuf = np.empty(cap0, dtype=np.int64)
    # output matches
    o_pos = np.empty((cap0, n_cols), dtype=np.int64)
    o_det = np.empty(cap0, dtype=np.int64)
    o_kl = np.empty((cap0, 4), dtype=np.int64)
    o_kle = np.empty(cap0, dtype=np.int64)
    # cnt_first (int64[max(n, 1)], all zero): live-instance accounting by first position (exact
    # expiry counts); given by the caller (``new_counters_and_scratch``: in the huge pages of
    # the counter matrix's block)
    sv = np.zeros(SV_SIZE, dtype=np.int64)
    sv[SV_ATOP] = 1
    sv[SV_NGC] = tune[2]
    need = np.zeros(NEED_SIZE, dtype=np.int64)

    e0 = np.int64(0)
    at = np.int64(AT_START)
    while True:
        st, e0, at = _eager_events(
            e0, at, sv, need, types, ts, attrs, pred_i, pred_f,
            el_type, el_kleene, col_of_slot, n_cols, el_group, g_lo, g_hi,
            st_start, st_complete, ed_slot, ed_kind, ed_dst, ed_bit,
            ep_start, ep_pred, ep_role, ep_other, en_start, en_q,
            ty_start, ty_state, ty_count, ty_edge,
            ng_type, ng_left, ng_right, ng_emit, ng_trailing,
            np_start, np_pred, np_role, np_other,
            window_kind, window, nextp, max_pm, max_matches, tune, counters,
            kleene_cols, st_full, ed_fast, ed_direct, ed_start, ed_store, all_cols,
            has_trailing, has_buffered_neg, has_emit_neg,
            a_first, a_flags, a_bind, free, pidx, poff, pcap, pn, snap, pneed, touched,
            dirty, dlist, sweep_at, nev, npar, c_row, c_first, c_edge, nbuf,
            o_pos, o_det, o_kl, o_kle, cnt_first, hold)
        if st != ST_GROW:
            break
        # the growth the event loop asked for (same sizes as the growth calls it replaces)
        if need[NEED_NBUF] > nbuf.shape[0]:
            nbuf = grow_1d(nbuf, 2 * nbuf.shape[0])
        if need[NEED_CAND] > c_first.shape[0]:
            c_row, c_first, c_edge = cand_grow(c_row, c_first, c_edge, need[NEED_CAND])
        if need[NEED_NODES] > nev.shape[0]:
            cap = cap_for(nev.shape[0], need[NEED_NODES])
            nev = grow_1d(nev, cap)
            npar = grow_1d(npar, cap)
        while need[NEED_ARENA] > a_first.shape[0]:
            a_first, a_flags, a_bind, free = arena_grow(a_first, a_flags, a_bind, free)
        if (need[NEED_OROWS] > o_det.shape[0] or need[NEED_OKLROWS] > o_kl.shape[0]
                or need[NEED_OKLE] > o_kle.shape[0]):
            o_pos, o_det, o_kl, o_kle = out_reserve(o_pos, o_det, o_kl, o_kle, need[NEED_OROWS],
                                                    need[NEED_OKLROWS], need[NEED_OKLE],
                                                    max_matches)
        if need[NEED_POOLS]:
            pidx = pools_reserve(pidx, poff, pcap, pn, pneed)
        pneed[:] = 0
        need[:] = 0
    nm = sv[SV_NM]
    nkl = sv[SV_NKL]
    nk = sv[SV_NK]
    if st != ST_OK:
        return st, e0, o_pos[:nm], o_kl[:nkl], o_kle[:nk], o_det[:nm]

    # end of stream: pending trailing-NOT matches are final
    if n > 0 and has_trailing:
        base = poff[pend_pool]
        n_out = pn[pend_pool]
        n_kev = 0
        if n_kl > 0:
            for k in range(n_out):
                n_kev += kl_len(a_bind, pidx[base + k], el_kleene, npar)
        o_pos, o_det, o_kl, o_kle = out_reserve(o_pos, o_det, o_kl, o_kle, nm + n_out,
                                                nkl + n_out * n_kl, nk + n_kev, max_matches)
        for k in range(n_out):
            i = pidx[base + k]
            nkl, nk = out_write(o_pos, o_det, nm, a_bind, i, col_of_slot, el_kleene, nev, npar,
                                o_kl, nkl, o_kle, nk, n)
            nm += 1
            counters[n - 1, C.MATCH_EMIT] += 1
    return ST_OK, -1, o_pos[:nm], o_kl[:nkl], o_kle[:nk], o_det[:nm]


@njit(cache=True)
def _eager_events(e0, at, sv, need, types, ts, attrs, pred_i, pred_f,
                  el_type, el_kleene, col_of_slot, n_cols, el_group, g_lo, g_hi,
                  st_start, st_complete, ed_slot, ed_kind, ed_dst, ed_bit,
                  ep_start, ep_pred, ep_role, ep_other, en_start, en_q,
                  ty_start, ty_state, ty_count, ty_edge,
                  ng_type, ng_left, ng_right, ng_emit, ng_trailing,
                  np_start, np_pred, np_role, np_other,
                  window_kind, window, nextp, max_pm, max_matches, tune, counters,
                  kleene_cols, st_full, ed_fast, ed_direct, ed_start, ed_store, all_cols,
                  has_trailing, has_buffered_neg, has_emit_neg,
                  a_first, a_flags, a_bind, free, pidx, poff, pcap, pn, snap, pneed, touched,
                  dirty, dlist, sweep_at, nev, npar, c_row, c_first, c_edge, nbuf,
                  o_pos, o_det, o_kl, o_kle, cnt_first, hold):
    """The event loop of ``eager_kernel`` from event ``e0`` (resumed at point ``at`` of it), with
    the buffers as they are: (status, event, point).  Status ST_GROW: ``need`` (and ``pneed``)
    say what must grow before event ``event`` can go on at ``point``; nothing of the event past
    that point has been done.  No array variable is rebound here (see ``eager_kernel``)."""
    n = types.shape[0]
    m = el_type.shape[0]
    S = st_complete.shape[0]
    n_types = ty_start.shape[0] - 1
    n_neg = ng_type.shape[0]
    n_kl = kleene_cols.shape[0]
    pend_pool = S
    n_pools = S + 1
    nfree = sv[SV_NFREE]
    a_top = sv[SV_ATOP]
    ndl = sv[SV_NDL]
    nn = sv[SV_NN]
    ngc_at = sv[SV_NGC]
    nhead = sv[SV_NHEAD]
    ntail = sv[SV_NTAIL]
    nkl = sv[SV_NKL]
    nm = sv[SV_NM]
    nk = sv[SV_NK]
    live = sv[SV_LIVE]
    lo = sv[SV_LO]

    for e in range(e0, n):
        t = types[e]
        resume = at if e == e0 else AT_START
        nc = 0
        if resume == AT_START:
            # this event's counters (added to counters[e] at the end of the event)
            k_edge = np.int64(0)
            k_pred = np.int64(0)
            k_emit = np.int64(0)
            k_created = np.int64(0)
            k_removed = np.int64(0)
            new_lo = window_lo(ts, e, lo, window_kind, window)
            # room for the pending matches flushed in (2) and the negated event buffered in (4)
            n_out = 0
            n_kev = 0
            if has_trailing:
                base = poff[pend_pool]
                for k in range(pn[pend_pool]):
                    i = pidx[base + k]
                    if a_first[i] < new_lo:
                        n_out += 1
                        if n_kl > 0:
                            n_kev += kl_len(a_bind, i, el_kleene, npar)
            grow_nbuf = False
            if has_buffered_neg:
                isneg = False
                for q in range(n_neg):
                    if not ng_trailing[q] and ng_type[q] == t:
                        isneg = True
                if isneg and ntail == nbuf.shape[0]:
                    h = nhead
                    while h < ntail and nbuf[h] < new_lo:
                        h += 1
                    grow_nbuf = not h > nbuf.shape[0] // 2
            if grow_nbuf or (n_out > 0 and (nm + n_out > o_det.shape[0]
                                            or nkl + n_out * n_kl > o_kl.shape[0]
                                            or nk + n_kev > o_kle.shape[0])):
                if grow_nbuf:
                    need[NEED_NBUF] = nbuf.shape[0] + 1
                if n_out > 0:
                    need[NEED_OROWS] = nm + n_out
                    need[NEED_OKLROWS] = nkl + n_out * n_kl
                    need[NEED_OKLE] = nk + n_kev
                _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo)
                return ST_GROW, e, AT_START
            # (1) window and expiry
            expired = 0
            for p in range(lo, new_lo):
                expired += cnt_first[p]
                cnt_first[p] = 0
            lo = new_lo
            live -= expired
            k_removed += expired
            # INSTANCE_WORK: the event is offered to every live instance and the initial state
            # (section 3.2.2); the pools skip the instances whose state waits for another type
            counters[e, C.INSTANCE_WORK] += live + 1
            if has_trailing:
                # (2) flush pending matches whose window closed (room checked above)
                base = poff[pend_pool]
                if n_out > 0:
                    for k in range(pn[pend_pool] - 1, -1, -1):
                        i = pidx[base + k]
                        if a_first[i] < lo:
                            nkl, nk = out_write(o_pos, o_det, nm, a_bind, i, col_of_slot,
                                                el_kleene, nev, npar, o_kl, nkl, o_kle, nk, e)
                            nm += 1
                            k_emit += 1
                            pool_remove_at(pidx, poff, pn, pend_pool, k)
                            free[nfree] = i
                            nfree += 1
                # (3) trailing NOT kills
                for q in range(n_neg):
                    if not ng_trailing[q] or ng_type[q] != t:
                        continue
                    nfree, ne, npe = trailing_kills(q, e, pidx, poff, pn, pend_pool, free, nfree,
                                                    a_bind, np_start, np_pred, np_role, np_other,
                                                    el_kleene, nev, npar, pred_i, pred_f, attrs)
                    k_edge += ne
                    k_pred += npe
            # (4) negative-event buffer (room checked above)
            if has_buffered_neg:
                while nhead < ntail and nbuf[nhead] < lo:
                    nhead += 1
                isneg = False
                for q in range(n_neg):
                    if not ng_trailing[q] and ng_type[q] == t:
                        isneg = True
                if isneg:
                    if ntail == nbuf.shape[0]:
                        for k in range(ntail - nhead):
                            nbuf[k] = nbuf[nhead + k]
                        ntail -= nhead
                        nhead = 0
                    nbuf[ntail] = e
                    ntail += 1
                    counters[e, C.BUF_INSERT] += 1
            # maintenance between events: drop expired instances, collect unreachable nodes.
            # A pool is swept when it outgrew sweep_at; only a pool that received instances
            # since the last check can have (the dirty list), unless a node collection resets
            # them all.
            if nn > ngc_at:
                for j in range(1, S):
                    sweep_at[j] = 0
                for j in range(1, S):
                    if pn[j] > 0:
                        nfree = pool_sweep(pidx, poff, pn, j, a_first, lo, free, nfree)
                        sweep_at[j] = max(2 * pn[j], tune[1])
            else:
                for z in range(ndl):
                    j = dlist[z]
                    if pn[j] > sweep_at[j]:
                        nfree = pool_sweep(pidx, poff, pn, j, a_first, lo, free, nfree)
                        sweep_at[j] = max(2 * pn[j], tune[1])
            for z in range(ndl):
                dirty[dlist[z]] = False
            ndl = 0
            if nn > ngc_at:
                nn = _collect_nodes(pidx, poff, pn, n_pools, nev, npar, nn, a_bind, kleene_cols)
                ngc_at = max(2 * nn, tune[2])

            if t < 0 or t >= n_types or ty_start[t] == ty_start[t + 1]:
                counters[e, C.EDGE_EVAL] += k_edge
                counters[e, C.PRED_EVAL] += k_pred
                counters[e, C.MATCH_EMIT] += k_emit
                counters[e, C.PM_REMOVED] += k_removed
                counters[e, C.LIVE_PM] += live
                counters[e, C.BUFFERED] += ntail - nhead
                continue
        else:
            k_edge = sv[SV_KEDGE]
            k_pred = sv[SV_KPRED]
            k_emit = sv[SV_KEMIT]
            k_created = sv[SV_KCREATED]
            k_removed = sv[SV_KREMOVED]
            nc = sv[SV_NC]
        if resume != AT_PHASE2:
            # (5) phase 1: edges of live instances -> candidates.  Pool 0 stands for the initial
            # state: its only member is the sentinel row 0 (nothing bound), first event = e.
            # Room for the worst case first: one candidate per (instance, edge), one node each;
            # the instances that the start edges and fast-path stores put into pools; the
            # matches that the fast path writes straight to the output.
            bound = 0
            n_rows = 0
            n_direct = 0
            ntouch = 0
            for z in range(ty_start[t], ty_start[t + 1]):
                j = ty_state[z]
                n_visit = 1 if j == 0 else pn[j]
                bound += ty_count[z] * n_visit
                d = ty_edge[z]
                if n_visit == 0 or d < 0:
                    continue
                if j == 0 and ed_start[d]:
                    add = 1
                elif j > 0 and ed_fast[d] and ed_store[d]:
                    add = n_visit
                else:
                    if j > 0 and ed_fast[d] and ed_direct[d]:
                        n_direct += n_visit
                    continue
                dst = ed_dst[d]
                if pneed[dst] == 0:
                    touched[ntouch] = dst
                    ntouch += 1
                pneed[dst] += add
                n_rows += add
            short = False
            for z in range(ntouch):
                j = touched[z]
                if pn[j] + pneed[j] > pcap[j]:
                    short = True
            n_direct = min(nm + n_direct, max_matches)
            if (short or bound > c_first.shape[0] or a_top + n_rows - nfree > a_first.shape[0]
                    or (n_kl > 0 and nn + bound > nev.shape[0])
                    or n_direct > o_det.shape[0]):
                need[NEED_POOLS] = 1 if short else 0
                need[NEED_CAND] = bound
                need[NEED_NODES] = nn + bound if n_kl > 0 else 0
                need[NEED_ARENA] = a_top + n_rows - nfree
                need[NEED_OROWS] = n_direct
                _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo)
                _save_event(sv, k_edge, k_pred, k_emit, k_created, k_removed, np.int64(0))
                return ST_GROW, e, AT_PHASE1
            for z in range(ntouch):
                pneed[touched[z]] = 0
            for z in range(ty_start[t], ty_start[t + 1]):
                j = ty_state[z]
                snap[j] = pn[j]
            for z in range(ty_start[t], ty_start[t + 1]):
                j = ty_state[z]
                base = poff[j]
                n_visit = snap[j] if j > 0 else 1
                if n_visit == 0:
                    continue
                d = ty_edge[z]
                if j == 0 and d >= 0 and ed_start[d]:
                    # a new instance of the event alone, stored at once (see ed_start)
                    dst = ed_dst[d]
                    k_edge += 1
                    if nfree > 0:
                        nfree -= 1
                        i = free[nfree]
                    else:
                        i = a_top
                        a_top += 1
                    a_first[i] = e
                    for s2 in range(m):
                        a_bind[i, s2] = -1
                    a_bind[i, ed_slot[d]] = e
                    a_flags[i] = st_full[dst]
                    pidx[poff[dst] + pn[dst]] = i
                    pn[dst] += 1
                    if not dirty[dst]:
                        dirty[dst] = True
                        dlist[ndl] = dst
                        ndl += 1
                    live += 1
                    cnt_first[e] += 1
                    if e > hold[e]:
                        hold[e] = e
                    k_created += 1
                    if live > max_pm:
                        _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk,
                              live, lo)
                        return ST_MAX_PM, e, AT_START
                    continue
                if j > 0 and d >= 0 and ed_fast[d]:
                    # Fast path: the only edge of this state for type t, whose predicates (at
                    # most FAST_MAX_PREDS) are all comparisons with other plain slots
                    # (skip-till-any-match).  Same evaluations (stopping at the first predicate
                    # that fails), counts and candidate order as the general loop below, with
                    # the event's operands computed once per state (``fast_operand``: two
                    # predicates as scalars, which stay in registers) and no per-instance
                    # dispatch on predicate kind, role or Kleene slots; the candidate is written
                    # at ``nc`` every time and ``nc`` advances by the outcome, so a
                    # data-dependent predicate costs no mispredicted branch on the candidate
                    # side.
                    s = ed_slot[d]
                    npr = ep_start[d + 1] - ep_start[d]
                    kk = ep_start[d]
                    op0, o0, col0, sc0, of0, ev0 = fast_operand(kk, e, ep_pred, ep_role,
                                                                 ep_other, pred_i, pred_f, attrs,
                                                                 npr >= 1)
                    op1, o1, col1, sc1, of1, ev1 = fast_operand(kk + 1, e, ep_pred, ep_role,
                                                                 ep_other, pred_i, pred_f, attrs,
                                                                 npr == 2)
                    n_ev = 0
                    n_pe = 0
                    if ed_store[d]:
                        # the new instances go straight into their pool (see ed_store); the
                        # row is written every time and kept by the outcome (branch-free, as
                        # below); room reserved above
                        dst = ed_dst[d]
                        fl_dst = st_full[dst]
                        n_new = 0
                        if not dirty[dst]:
                            dirty[dst] = True
                            dlist[ndl] = dst
                            ndl += 1
                        for k in range(n_visit - 1, -1, -1):
                            i = pidx[base + k]
                            first = a_first[i]
                            if first < lo:  # expired (already counted)
                                pool_remove_at(pidx, poff, pn, j, k)
                                free[nfree] = i
                                nfree += 1
                                continue
                            ok = npr == 0 or compare(op0, attrs[a_bind[i, o0], col0] * sc0 + of0,
                                                     ev0)
                            npe = npr if ok else 1
                            if ok and npr == 2:
                                ok = compare(op1, attrs[a_bind[i, o1], col1] * sc1 + of1, ev1)
                            n_ev += 1
                            n_pe += npe
                            i2 = free[nfree - 1] if nfree > 0 else a_top
                            a_first[i2] = first
                            for s2 in range(m):
                                a_bind[i2, s2] = a_bind[i, s2]
                            a_bind[i2, s] = e
                            a_flags[i2] = fl_dst
                            pidx[poff[dst] + pn[dst]] = i2
                            okn = np.int64(ok)
                            pn[dst] += okn
                            cnt_first[first] += okn
                            if ok and first > hold[e]:
                                hold[e] = first
                            n_new += okn
                            if nfree > 0:
                                nfree -= okn
                            else:
                                a_top += okn
                            if live + n_new > max_pm:
                                _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm,
                                      nk, live, lo)
                                return ST_MAX_PM, e, AT_START
                        live += n_new
                        k_created += n_new
                        k_edge += n_ev
                        k_pred += n_pe
                        continue
                    if ed_direct[d] and nm + n_visit < max_matches:
                        # the candidates would all be emitted in phase 2, in this order and
                        # before any other match of this event, without reaching max_matches:
                        # write them straight to the output (same branch-free scheme; room
                        # reserved above)
                        nm0 = nm
                        col_e = col_of_slot[s]
                        for k in range(n_visit - 1, -1, -1):
                            i = pidx[base + k]
                            first = a_first[i]
                            if first < lo:  # expired (already counted)
                                pool_remove_at(pidx, poff, pn, j, k)
                                free[nfree] = i
                                nfree += 1
                                continue
                            ok = npr == 0 or compare(op0, attrs[a_bind[i, o0], col0] * sc0 + of0,
                                                     ev0)
                            npe = npr if ok else 1
                            if ok and npr == 2:
                                ok = compare(op1, attrs[a_bind[i, o1], col1] * sc1 + of1, ev1)
                            n_ev += 1
                            n_pe += npe
                            if not all_cols:
                                for c in range(n_cols):
                                    o_pos[nm, c] = -1
                            for s2 in range(m):
                                o_pos[nm, col_of_slot[s2]] = a_bind[i, s2]
                            o_pos[nm, col_e] = e
                            o_det[nm] = e
                            nm += np.int64(ok)
                        k_emit += nm - nm0
                        k_edge += n_ev
                        k_pred += n_pe
                        continue
                    for k in range(n_visit - 1, -1, -1):
                        i = pidx[base + k]
                        first = a_first[i]
                        if first < lo:  # expired (already counted)
                            pool_remove_at(pidx, poff, pn, j, k)
                            free[nfree] = i
                            nfree += 1
                            continue
                        ok = npr == 0 or compare(op0, attrs[a_bind[i, o0], col0] * sc0 + of0,
                                                 ev0)
                        npe = npr if ok else 1
                        if ok and npr == 2:
                            ok = compare(op1, attrs[a_bind[i, o1], col1] * sc1 + of1, ev1)
                        n_ev += 1
                        n_pe += npe
                        for s2 in range(m):
                            c_row[nc, s2] = a_bind[i, s2]
                        c_row[nc, s] = e
                        c_first[nc] = first
                        c_edge[nc] = d
                        nc += np.int64(ok)
                    k_edge += n_ev
                    k_pred += n_pe
                    continue
                for k in range(n_visit - 1, -1, -1):
                    if j == 0:
                        i = 0
                        first = e
                        fl = st_full[0]
                    else:
                        i = pidx[base + k]
                        first = a_first[i]
                        if first < lo:  # expired (already counted)
                            pool_remove_at(pidx, poff, pn, j, k)
                            free[nfree] = i
                            nfree += 1
                            continue
                        fl = a_flags[i] if nextp else st_full[j]
                    for d in range(st_start[j], st_start[j + 1]):
                        tgt = ed_slot[d]
                        if el_type[tgt] != t:
                            continue
                        bit = np.int64(1) << ed_bit[d]
                        if nextp and not (fl & bit):
                            continue
                        kind = ed_kind[d]
                        k_edge += 1
                        ok = True
                        for kk in range(ep_start[d], ep_start[d + 1]):
                            p = ep_pred[kk]
                            role = ep_role[kk]
                            o = ep_other[kk]
                            # walk the events bound to the other slot (one, or a Kleene chain)
                            nd = -1
                            if role == ROLE_SELF:
                                x = e
                            elif el_kleene[o]:
                                nd = a_bind[i, o]
                                x = np.int64(nev[nd])
                                nd = npar[nd]
                            else:
                                x = np.int64(a_bind[i, o])
                            while True:
                                if role == ROLE_SECOND:
                                    e1 = x
                                    e2 = e
                                else:
                                    e1 = e
                                    e2 = x
                                k_pred += 1
                                if pred_i[p, PI_KIND] == PK_CMP:
                                    # eval_pred's PK_CMP case written out (the hot path; a call
                                    # costs more than the comparison)
                                    if pred_i[p, PI_V2] >= 0:
                                        ok = compare(pred_i[p, PI_OP], attrs[e1, pred_i[p, PI_C1]],
                                                     attrs[e2, pred_i[p, PI_C2]] * pred_f[p, 0]
                                                     + pred_f[p, 1])
                                    else:
                                        ok = compare(pred_i[p, PI_OP], attrs[e1, pred_i[p, PI_C1]],
                                                     pred_f[p, 1])
                                else:
                                    ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
                                if not ok or nd < 0:
                                    break
                                x = np.int64(nev[nd])
                                nd = npar[nd]
                            if not ok:
                                break
                        if not ok:
                            continue
                        for s2 in range(m):
                            c_row[nc, s2] = a_bind[i, s2]
                        if el_kleene[tgt]:
                            nev[nn] = e
                            npar[nn] = a_bind[i, tgt] if kind == EDGE_LOOP else -1
                            c_row[nc, tgt] = nn
                            nn += 1
                        else:
                            c_row[nc, tgt] = e
                        c_first[nc] = first
                        c_edge[nc] = d
                        nc += 1
                        fl &= ~bit
                    if j > 0 and nextp:
                        if fl == 0:
                            live -= 1
                            cnt_first[first] -= 1
                            k_removed += 1
                            pool_remove_at(pidx, poff, pn, j, k)
                            free[nfree] = i
                            nfree += 1
                        else:
                            a_flags[i] = fl

        # (6) phase 2: negation checks, emission, new instances.
        # Room for the worst case first (no candidate killed): arena rows, pool slots, output.
        if nc > 0:
            # pneed is all zero here; only the pools the candidates reach are touched
            n_out = 0
            n_kev = 0
            ntouch = 0
            for ci in range(nc):
                dst = ed_dst[c_edge[ci]]
                if st_complete[dst]:
                    if has_trailing:
                        if pneed[pend_pool] == 0:
                            touched[ntouch] = pend_pool
                            ntouch += 1
                        pneed[pend_pool] += 1
                    else:
                        n_out += 1
                        if n_kl > 0:
                            n_kev += kl_len(c_row, ci, el_kleene, npar)
                if st_start[dst + 1] > st_start[dst]:
                    if pneed[dst] == 0:
                        touched[ntouch] = dst
                        ntouch += 1
                    pneed[dst] += 1
            short = False
            n_rows = 0
            for z in range(ntouch):
                j = touched[z]
                n_rows += pneed[j]
                if pn[j] + pneed[j] > pcap[j]:
                    short = True
            if (short or a_top + n_rows - nfree > a_first.shape[0]
                    or nm + n_out > o_det.shape[0] or nkl + n_out * n_kl > o_kl.shape[0]
                    or nk + n_kev > o_kle.shape[0]):
                need[NEED_POOLS] = 1 if short else 0
                need[NEED_ARENA] = a_top + n_rows - nfree
                need[NEED_OROWS] = nm + n_out
                need[NEED_OKLROWS] = nkl + n_out * n_kl
                need[NEED_OKLE] = nk + n_kev
                _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo)
                _save_event(sv, k_edge, k_pred, k_emit, k_created, k_removed, nc)
                return ST_GROW, e, AT_PHASE2
            for z in range(ntouch):
                pneed[touched[z]] = 0
        for ci in range(nc):
            d = c_edge[ci]
            dst = ed_dst[d]
            first = c_first[ci]
            alive = True
            for z in range(en_start[d], en_start[d + 1]):
                q = en_q[z]
                lo_ex, hi_ex = neg_span(ng_left[q], ng_right[q], c_row, ci, el_group, g_lo,
                                        g_hi, el_kleene, nev, npar)
                killed, ne, npe = neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
                                             types, ng_type, np_start, np_pred, np_role,
                                             np_other, el_kleene, nev, npar, pred_i, pred_f,
                                             attrs)
                k_edge += ne
                k_pred += npe
                if killed:
                    alive = False
                    break
            if not alive:
                continue
            if st_complete[dst]:
                emit = True
                for q in range(n_neg):
                    if not ng_emit[q]:
                        continue
                    if ng_left[q] < 0:
                        lo_ex = np.int64(lo - 1)
                        hi_ex = np.int64(first)
                    else:
                        lo_ex, hi_ex = neg_span(ng_left[q], ng_right[q], c_row, ci, el_group,
                                                g_lo, g_hi, el_kleene, nev, npar)
                    killed, ne, npe = neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
                                                 types, ng_type, np_start, np_pred, np_role,
                                                 np_other, el_kleene, nev, npar, pred_i,
                                                 pred_f, attrs)
                    k_edge += ne
                    k_pred += npe
                    if killed:
                        emit = False
                        break
                if emit:
                    if nm + pn[pend_pool] >= max_matches:
                        _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk,
                              live, lo)
                        return ST_MAX_MATCHES, e, AT_START
                    if has_trailing:
                        if nfree > 0:
                            nfree -= 1
                            i = free[nfree]
                        else:
                            i = a_top
                            a_top += 1
                        a_first[i] = first
                        a_flags[i] = 0
                        for s2 in range(m):
                            a_bind[i, s2] = c_row[ci, s2]
                        pidx[poff[pend_pool] + pn[pend_pool]] = i
                        pn[pend_pool] += 1
                        if first > hold[e]:
                            hold[e] = first
                    else:
                        for c in range(n_cols):
                            o_pos[nm, c] = -1
                        for s2 in range(m):
                            if not el_kleene[s2]:
                                o_pos[nm, col_of_slot[s2]] = c_row[ci, s2]
                        if n_kl > 0:
                            nkl, nk = out_kleene(o_pos, nm, c_row, ci, col_of_slot, el_kleene,
                                                 nev, npar, o_kl, nkl, o_kle, nk)
                        o_det[nm] = e
                        nm += 1
                        k_emit += 1
            if st_start[dst + 1] == st_start[dst]:
                continue
            # store the instance in its destination state
            if nfree > 0:
                nfree -= 1
                i = free[nfree]
            else:
                i = a_top
                a_top += 1
            a_first[i] = first
            for s2 in range(m):
                a_bind[i, s2] = c_row[ci, s2]
            a_flags[i] = st_full[dst]
            pidx[poff[dst] + pn[dst]] = i
            pn[dst] += 1
            if not dirty[dst]:
                dirty[dst] = True
                dlist[ndl] = dst
                ndl += 1
            live += 1
            cnt_first[first] += 1
            if first > hold[e]:
                hold[e] = first
            k_created += 1
            if live > max_pm:
                _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo)
                return ST_MAX_PM, e, AT_START
        counters[e, C.EDGE_EVAL] += k_edge
        counters[e, C.PRED_EVAL] += k_pred
        counters[e, C.MATCH_EMIT] += k_emit
        counters[e, C.PM_CREATED] += k_created
        counters[e, C.PM_REMOVED] += k_removed
        counters[e, C.LIVE_PM] += live          # += : branches' gauges add up
        counters[e, C.BUFFERED] += ntail - nhead

    _save(sv, nfree, a_top, ndl, nn, ngc_at, nhead, ntail, nkl, nm, nk, live, lo)
    return ST_OK, n, AT_START


def run_eager(program: Program, stream: EventStream,
              max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
              max_matches: int = DEFAULT_MAX_MATCHES, max_states: int = DEFAULT_MAX_STATES,
              flat: bool = False, match_buffers: bool = False, _tune=None,
              **ignored) -> EngineResult:
    """Eager NFA over ``stream``; raises ``CapacityError`` when a cap is exceeded.

    ``max_partial_matches`` caps the live partial matches of a branch, ``max_matches`` the
    matches of a branch (found or waiting for a trailing NOT), ``max_states`` the automaton of
    a branch (an unordered AND of k events has 2**k states).  ``flat=True`` runs the fully
    ordered branches instead (``program.branches``: one per order of each AND, the way the
    engine worked before unordered groups; kept for comparison and benchmarks).  ``_tune`` (tests only) overrides
    ``DEFAULT_TUNE`` (see ``eager_kernel``).  ``match_buffers=True`` adds
    ``info['match_buffer_events']`` (int64[n], ``match_buffer_gauge``: per event, the events held
    in the match buffers of the live instances, summed over branches; the counters are the same
    either way)."""
    if max_partial_matches < 1 or max_matches < 1 or max_states < 1:
        raise CepsimInputError("max_partial_matches, max_matches and max_states must be >= 1")
    if program.has_remote:
        raise CepsimInputError("the eager engine cannot evaluate REMOTE[...] predicates")
    n = len(stream)
    if n >= 2 ** 31 - 1:
        raise CepsimInputError(f"{stream.source}: the eager engine supports streams of fewer "
                               "than 2**31 events")
    counters, cnt_first = C.new_counters_and_scratch(n, max(n, 1))
    pos_vars = program.positive_vars
    names = tuple(program.var_names[v] for v in pos_vars)
    kl = tuple(bool(program.var_kind[v] == KIND_KLEENE) for v in pos_vars)
    types = np.ascontiguousarray(stream.types, dtype=np.int32)
    ts = np.ascontiguousarray(stream.ts, dtype=np.float64)
    attrs = np.ascontiguousarray(stream.attrs, dtype=np.float64)
    pred_i = np.ascontiguousarray(program.pred_i, dtype=np.int32)
    pred_f = np.ascontiguousarray(program.pred_f, dtype=np.float64)
    window = float(program.window)
    tune = np.array(_tune if _tune is not None else DEFAULT_TUNE, dtype=np.int64)
    parts = []
    held = None
    branches = program.branches if flat else program.grouped
    for b, branch in enumerate(branches):
        tb = branch_tables(program, branch, int(max_states))
        if b:
            cnt_first[:] = 0               # each branch's kernel starts from zeros
        hold = np.full(n, -1, dtype=np.int64)
        st, ev, pos, klr, kle, det = eager_kernel(
            types, ts, attrs, pred_i, pred_f,
            tb["el_type"], tb["el_kleene"], tb["col_of_slot"], len(pos_vars),
            tb["el_group"], tb["g_lo"], tb["g_hi"],
            tb["st_start"], tb["st_complete"], tb["ed_slot"], tb["ed_kind"], tb["ed_dst"],
            tb["ed_bit"], tb["ep_start"], tb["ep_pred"], tb["ep_role"], tb["ep_other"],
            tb["en_start"], tb["en_q"], tb["ty_start"], tb["ty_state"], tb["ty_count"], tb["ty_edge"],
            tb["ng_type"], tb["ng_left"], tb["ng_right"], tb["ng_emit"], tb["ng_trailing"],
            tb["np_start"], tb["np_pred"], tb["np_role"], tb["np_other"],
            int(program.window_kind), window, int(program.policy),
            int(max_partial_matches), int(max_matches), tune, counters, cnt_first, hold)
        if st == ST_MAX_PM:
            raise CapacityError(
                f"eager engine: more than {max_partial_matches} live partial matches at event "
                f"{ev} (branch {b}: {branch.describe(program.var_names)}); raise the "
                "cap with --max-partial-matches / max_partial_matches=, or narrow the window")
        if st == ST_MAX_MATCHES:
            raise CapacityError(
                f"eager engine: more than {max_matches} matches at event {ev}; raise the cap with "
                "--max-matches / max_matches=, or narrow the pattern")
        kls = np.zeros(pos.shape, dtype=np.int64)
        kll = np.zeros(pos.shape, dtype=np.int64)
        if len(klr):
            kls[klr[:, 0], klr[:, 1]] = klr[:, 2]
            kll[klr[:, 0], klr[:, 1]] = klr[:, 3]
        # views of the kernel's buffers (at most 2x their content): no copy of large outputs
        parts.append(MatchSet(names, kl, pos, kls, kll, kle, det))
        if match_buffers:
            g = match_buffer_gauge(hold, ts, int(program.window_kind), window)
            held = g if held is None else held + g
    if not parts:
        ms = MatchSet.empty(names, kl)
    else:
        ms = parts[0] if len(parts) == 1 else MatchSet.concat(parts)
    info = {"engine": "eager", "branches": len(branches)}
    if match_buffers:
        info["match_buffer_events"] = held if held is not None else np.zeros(n, np.int64)
    return EngineResult(matches=ms, counters=counters, info=info)


@njit(cache=True)
def _window_starts(ts: np.ndarray, kind: int, w: float) -> np.ndarray:
    """``lo`` of every event (``window_lo``, the kernel's window start)."""
    n = ts.shape[0]
    out = np.empty(n, dtype=np.int64)
    lo = np.int64(0)
    for e in range(n):
        lo = window_lo(ts, e, lo, kind, w)
        out[e] = lo
    return out


def match_buffer_gauge(hold: np.ndarray, ts: np.ndarray, window_kind: int,
                       window: float) -> np.ndarray:
    """Per event ``e``: how many distinct events the match buffers of the live instances hold
    after ``e`` (DEBS'15 section 7: the eager NFA "keeps most of them [the primitive events]
    inside the match buffers of the pending instances"; section 3.1: match buffers share their
    events, so an event held by several instances counts once).

    ``hold[p]`` is the largest first position of the instances stored while event ``p`` was
    processed (-1: none).  Every instance that binds ``p`` descends (by cloning, which keeps the
    first position) from one of those, so under skip-till-any-match ``p`` is held from ``p``
    until the window start passes ``hold[p]``, exactly.  Instances removed earlier (consumed
    under skip-till-next-match, parked matches killed by a trailing NOT) make the gauge an upper
    bound there."""
    n = hold.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    lo = _window_starts(np.ascontiguousarray(ts, dtype=np.float64), int(window_kind),
                        float(window))
    held = np.flatnonzero(hold >= 0)
    # p is held at every e >= p with lo[e] <= hold[p]; lo is non-decreasing
    end = np.searchsorted(lo, hold[held], side="right")
    diff = np.zeros(n + 1, np.int64)
    np.add.at(diff, held, 1)
    np.add.at(diff, end, -1)
    return np.cumsum(diff[:n])

"""The eager NFA (SASE-style chain in each branch's query order; DEBS'15 section 3).

``run_eager(program, stream, max_partial_matches=..., max_matches=...) -> EngineResult`` runs one
Numba kernel per program branch (the same compiled kernel for every pattern shape: arrays
describe the branch) and returns the union of the branches' matches with the counters summed.

NFA states of a branch with slots ``0..m-1`` (``x_j`` plain or Kleene):

* ``A_j`` (pool ``j``, ``1 <= j < m``): slots ``< j`` bound, waiting for (the first event of)
  ``x_j``.  The initial state ``A_0`` (pool 0) holds only the sentinel arena row 0 (nothing
  bound): every event of ``x_0``'s type tries to start an instance from it.
* ``K_j`` (pool ``m + j``, Kleene ``x_j`` only): ``x_j`` holds ``>= 1`` events; the instance may
  *loop* (take one more event of ``x_j``) or *proceed* (bind the first event of ``x_{j+1}``).

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
skip-till-next-match (docs/SEMANTICS.md rule 6): a plain state is left by the first qualifying
event; a ``K_j`` instance keeps two flags, LOOP and PROCEED, each consumed by the first event
qualifying for that move (an event qualifying for both creates both runs); the instance is
removed when neither is left.  Negation only filters (a killed run is simply dropped).

Negation (SEMANTICS rule 4).  Middle NOT: checked against the buffered negative events between
the left neighbour's last and the right neighbour's first event, as soon as every slot it needs
is final (a Kleene slot is final once the next slot binds); a check that needs the last Kleene
slot runs at each emission.  NOT at the start: at each emission, against buffered events in
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

Storage: engines/nfa_buffers.py (instance arena, pools, shared Kleene event-node chains).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import (KIND_KLEENE, KIND_NEG, PI_C1, PI_C2, PI_KIND, PI_OP, PI_V1, PI_V2,
                             PK_CMP, POLICY_NEXT, Program)
from engines.errors import CapacityError, CepsimInputError
from engines.matches import MatchSet
from engines.nfa_buffers import (arena_grow, grow_1d, grow_rows, node_collect, node_count,
                                 node_first, nodes_compact, pool_remove_at, pools_new,
                                 pools_reserve, window_lo)
from engines.predicates import compare, eval_pred
from engines.registry import EngineResult
from engines.stream import EventStream

DEFAULT_MAX_PARTIAL_MATCHES = 5_000_000
DEFAULT_MAX_MATCHES = 20_000_000
# initial buffer capacity, min pool size before an expiry sweep, min node count before a
# node collection, initial pool capacity
DEFAULT_TUNE = (256, 1024, 1 << 16, 64)
# Output buffers (matches, Kleene rows/events) grow by this factor, not 2: every growth copies
# the old content into freshly mapped memory, and on a match-heavy stream those page faults
# (not the copy itself) cost as much as the matching.  With factor f the copies add about
# 1/(f-1) of the final size instead of about 1x; the unused tail is never touched, so it costs
# address space, not memory.  Match rows never grow beyond max_matches (the kernel stops there).
OUT_GROWTH = 8

# predicate roles (how the event being bound / the negative event enters eval_pred)
ROLE_SELF, ROLE_FIRST, ROLE_SECOND = 0, 1, 2
# instance flags of K_j states (skip-till-next-match)
FL_LOOP, FL_PROCEED = 1, 2
# candidate kinds
CAND_ENTER, CAND_LOOP = 0, 1
# negation check times
CHK_TRAILING = -1
# kernel status
ST_OK, ST_MAX_PM, ST_MAX_MATCHES = 0, 1, 2


# ----------------------------------------------------------------------------- predicates
@njit(cache=True)
def _eval_against(p, role, e, o, tab, r, el_kleene, nev, npar, pred_i, pred_f, attrs):
    """Evaluate predicate ``p`` with ``e`` in the role ``role`` and the event(s) of slot ``o`` of
    row ``r`` of ``tab`` in the other role (every event of a Kleene slot).
    Returns (holds, n_evaluations)."""
    if role == ROLE_SELF:
        return eval_pred(pred_i, pred_f, p, attrs, e, e), 1
    if el_kleene[o]:
        k = tab[r, o]
        n = 0
        while k >= 0:
            x = np.int64(nev[k])
            n += 1
            if role == ROLE_FIRST:
                ok = eval_pred(pred_i, pred_f, p, attrs, e, x)
            else:
                ok = eval_pred(pred_i, pred_f, p, attrs, x, e)
            if not ok:
                return False, n
            k = npar[k]
        return True, n
    x = np.int64(tab[r, o])
    if role == ROLE_FIRST:
        return eval_pred(pred_i, pred_f, p, attrs, e, x), 1
    return eval_pred(pred_i, pred_f, p, attrs, x, e), 1


@njit(cache=True)
def _preds_hold(lst_start, lst_pred, lst_role, lst_other, q, e, tab, r, el_kleene, nev, npar,
                pred_i, pred_f, attrs):
    """All predicates of list ``q`` (a CSR row) hold for event ``e``; (holds, n_evaluations)."""
    n = 0
    for k in range(lst_start[q], lst_start[q + 1]):
        ok, c = _eval_against(lst_pred[k], lst_role[k], e, lst_other[k], tab, r, el_kleene,
                              nev,
                              npar, pred_i, pred_f, attrs)
        n += c
        if not ok:
            return False, n
    return True, n


@njit(cache=True)
def _neg_killed(q, lo_ex, hi_ex, tab, r, nbuf, nhead, ntail, types, ng_type, np_start, np_pred,
                np_role, np_other, el_kleene, nev, npar, pred_i, pred_f, attrs):
    """Does a buffered event of negation ``q`` strictly inside (lo_ex, hi_ex) satisfy all of the
    negation's predicates?  Returns (killed, n_edge_checks, n_pred_evals)."""
    a = nhead
    b = ntail
    while a < b:  # first buffered position > lo_ex
        mid = (a + b) // 2
        if nbuf[mid] <= lo_ex:
            a = mid + 1
        else:
            b = mid
    edges = 0
    preds = 0
    tq = ng_type[q]
    for k in range(a, ntail):
        c = nbuf[k]
        if c >= hi_ex:
            break
        if types[c] != tq:
            continue
        edges += 1
        ok, n = _preds_hold(np_start, np_pred, np_role, np_other, q, c, tab, r, el_kleene,
                            nev,
                            npar, pred_i, pred_f, attrs)
        preds += n
        if ok:
            return True, edges, preds
    return False, edges, preds


@njit(cache=True)
def _out_kleene(o_pos, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle, nk):
    """Write the Kleene columns of match ``nm`` (bound in row ``r`` of ``tab``): ``o_pos`` gets
    -2, ``o_kl`` a row (match, column, start, length) into the event list ``o_kle``.  The room
    was reserved beforehand (``_out_reserve``); returns the new (nkl, nk)."""
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


@njit(cache=True)
def _out_write(o_pos, o_det, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle,
               nk, detect):
    """Write the match bound in row ``r`` of ``tab`` as output match ``nm`` (room reserved);
    returns the new (nkl, nk)."""
    for c in range(o_pos.shape[1]):
        o_pos[nm, c] = -1
    for s in range(tab.shape[1]):
        if not el_kleene[s]:
            o_pos[nm, col_of_slot[s]] = tab[r, s]
    nkl, nk = _out_kleene(o_pos, nm, tab, r, col_of_slot, el_kleene, nev, npar, o_kl, nkl, o_kle,
                          nk)
    o_det[nm] = detect
    return nkl, nk


@njit(cache=True)
def _kl_len(tab, r, el_kleene, npar):
    """Number of events bound to the Kleene slots of row ``r`` of ``tab``."""
    n = 0
    for s in range(tab.shape[1]):
        if el_kleene[s]:
            n += node_count(npar, tab[r, s])
    return n


@njit(cache=True)
def _cap_for(cap, need):
    """``cap`` doubled until it holds ``need``."""
    cap = max(cap, 1)
    while cap < need:
        cap *= 2
    return cap


@njit(cache=True)
def _out_cap(cap, need, limit):
    """New capacity of an output buffer that must hold ``need``: ``OUT_GROWTH`` times the old
    one, but not beyond ``max(need, limit)``."""
    return max(need, min(OUT_GROWTH * max(cap, 1), limit))


@njit(cache=True)
def _out_reserve(o_pos, o_det, o_kl, o_kle, rows, kl_rows, kl_events, limit):
    """Output arrays with room for ``rows`` matches, ``kl_rows`` Kleene rows and ``kl_events``
    Kleene events (see ``OUT_GROWTH``; ``limit`` bounds the match rows, i.e. max_matches)."""
    if rows > o_det.shape[0]:
        cap = _out_cap(o_det.shape[0], rows, limit)
        o_pos = grow_rows(o_pos, cap)
        o_det = grow_1d(o_det, cap)
    if kl_rows > o_kl.shape[0]:
        o_kl = grow_rows(o_kl, _out_cap(o_kl.shape[0], kl_rows, 0))
    if kl_events > o_kle.shape[0]:
        o_kle = grow_1d(o_kle, _out_cap(o_kle.shape[0], kl_events, 0))
    return o_pos, o_det, o_kl, o_kle


@njit(cache=True)
def _cand_grow(c_row, c_first, c_slot, c_kind, need):
    cap = _cap_for(c_first.shape[0], need)
    return grow_rows(c_row, cap), grow_1d(c_first, cap), grow_1d(c_slot, cap), grow_1d(c_kind, cap)


# ----------------------------------------------------------------------------- kernel
@njit(cache=True)
def eager_kernel(types, ts, attrs, pred_i, pred_f,
                 el_type, el_kleene, col_of_slot, n_cols,
                 sp_start, sp_pred, sp_role, sp_other,
                 ng_type, ng_left, ng_right, ng_chk, np_start, np_pred, np_role, np_other,
                 window_kind, window, policy, max_pm, max_matches, tune, counters):
    """Run the eager NFA of one branch over the stream; adds into ``counters``.

    ``tune`` (int64[4]): initial capacity of every buffer, minimum pool size before an expiry
    sweep, minimum node count before a node collection, initial size of the pools (tests set them
    tiny so that every growth/collection path runs).
    Returns (status, event, pos, kl_rows, kl_events, detect); a row of kl_rows is (match,
    column, start, length) of a Kleene column's events in kl_events.

    Speed: no array is reallocated inside a per-instance or per-candidate loop.  Every buffer an
    event can fill (candidates, event nodes, arena rows, pools, output) is reserved for the
    event's worst case *before* the loop that fills it, so those loops carry no array variable
    that Numba would have to reference-count on every iteration; the per-event counters are
    accumulated in locals and added to ``counters`` once per event.  A plain state whose edge is
    a single comparison with a plain slot (skip-till-any-match) takes a branch-free fast path,
    and writes its matches straight to the output when nothing (negation, Kleene output,
    trailing NOT, max_matches) could intervene between candidate and emission."""
    cap0 = tune[0]
    n = types.shape[0]
    m = el_type.shape[0]
    n_neg = ng_type.shape[0]
    nextp = policy == POLICY_NEXT
    pend_pool = 2 * m
    n_pools = 2 * m + 1
    has_trailing = False
    has_buffered_neg = False
    for q in range(n_neg):
        if ng_chk[q] == CHK_TRAILING:
            has_trailing = True
        else:
            has_buffered_neg = True
    n_kl = 0
    for s in range(m):
        if el_kleene[s]:
            n_kl += 1
    kleene_cols = np.empty(n_kl, dtype=np.int64)
    n_kl = 0
    for s in range(m):
        if el_kleene[s]:
            kleene_cols[n_kl] = s
            n_kl += 1
    # a candidate for the last slot is a match as soon as its edge holds (no negation check
    # left, no Kleene output, no trailing NOT): the fast path below may write it out directly
    direct_emit = n_kl == 0 and not has_trailing
    for q in range(n_neg):
        if ng_chk[q] >= m - 1:
            direct_emit = False

    # instance arena + pools
    acap = cap0
    a_first = np.empty(acap, dtype=np.int64)
    a_flags = np.zeros(acap, dtype=np.int8)
    a_bind = np.empty((acap, m), dtype=np.int32)
    free = np.empty(acap, dtype=np.int64)
    nfree = np.int64(0)
    for s in range(m):
        a_bind[0, s] = -1   # row 0: the sentinel 'nothing bound' instance of pool 0
    a_flags[0] = 0
    a_top = np.int64(1)
    pidx, poff, pcap, pn = pools_new(n_pools, tune[3])
    snap = np.zeros(n_pools, dtype=np.int64)
    pneed = np.zeros(n_pools, dtype=np.int64)
    sweep_at = np.empty(n_pools, dtype=np.int64)
    sweep_at[:] = tune[1]
    # Kleene event nodes
    nev = np.empty(cap0, dtype=np.int32)
    npar = np.empty(cap0, dtype=np.int32)
    nn = np.int64(0)
    ngc_at = tune[2]
    # candidates of the current event
    c_row = np.empty((cap0, m), dtype=np.int32)
    c_first = np.empty(cap0, dtype=np.int64)
    c_slot = np.empty(cap0, dtype=np.int64)
    c_kind = np.empty(cap0, dtype=np.int8)
    # negative-event buffer (positions, ascending)
    nbuf = np.empty(cap0, dtype=np.int64)
    nhead = np.int64(0)
    ntail = np.int64(0)
    # output matches
    o_pos = np.empty((cap0, n_cols), dtype=np.int64)
    o_det = np.empty(cap0, dtype=np.int64)
    o_kl = np.empty((cap0, 4), dtype=np.int64)
    o_kle = np.empty(cap0, dtype=np.int64)
    nkl = np.int64(0)
    nm = np.int64(0)
    nk = np.int64(0)
    # live-instance accounting by first position (exact expiry counts)
    cnt_first = np.zeros(max(n, 1), dtype=np.int64)
    live = np.int64(0)
    lo = np.int64(0)

    for e in range(n):
        t = types[e]
        # this event's counters (added to counters[e] at the end of the event)
        k_edge = np.int64(0)
        k_pred = np.int64(0)
        k_emit = np.int64(0)
        k_created = np.int64(0)
        k_removed = np.int64(0)
        # (1) window and expiry
        new_lo = window_lo(ts, e, lo, window_kind, window)
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
            # (2) flush pending matches whose window closed
            base = poff[pend_pool]
            n_out = 0
            n_kev = 0
            for k in range(pn[pend_pool]):
                i = pidx[base + k]
                if a_first[i] < lo:
                    n_out += 1
                    if n_kl > 0:
                        n_kev += _kl_len(a_bind, i, el_kleene, npar)
            if n_out > 0:
                if (nm + n_out > o_det.shape[0] or nkl + n_out * n_kl > o_kl.shape[0]
                        or nk + n_kev > o_kle.shape[0]):
                    o_pos, o_det, o_kl, o_kle = _out_reserve(o_pos, o_det, o_kl, o_kle,
                                                             nm + n_out, nkl + n_out * n_kl,
                                                             nk + n_kev, max_matches)
                for k in range(pn[pend_pool] - 1, -1, -1):
                    i = pidx[base + k]
                    if a_first[i] < lo:
                        nkl, nk = _out_write(o_pos, o_det, nm, a_bind, i, col_of_slot, el_kleene,
                                             nev, npar, o_kl, nkl, o_kle, nk, e)
                        nm += 1
                        k_emit += 1
                        pool_remove_at(pidx, poff, pn, pend_pool, k)
                        free[nfree] = i
                        nfree += 1
            # (3) trailing NOT kills
            for q in range(n_neg):
                if ng_chk[q] != CHK_TRAILING or ng_type[q] != t:
                    continue
                base = poff[pend_pool]
                for k in range(pn[pend_pool] - 1, -1, -1):
                    i = pidx[base + k]
                    k_edge += 1
                    ok, ne = _preds_hold(np_start, np_pred, np_role, np_other, q, e, a_bind, i,
                                         el_kleene, nev, npar, pred_i, pred_f, attrs)
                    k_pred += ne
                    if ok:
                        pool_remove_at(pidx, poff, pn, pend_pool, k)
                        free[nfree] = i
                        nfree += 1
        # (4) negative-event buffer
        if has_buffered_neg:
            while nhead < ntail and nbuf[nhead] < lo:
                nhead += 1
            isneg = False
            for q in range(n_neg):
                if ng_chk[q] != CHK_TRAILING and ng_type[q] == t:
                    isneg = True
            if isneg:
                if ntail == nbuf.shape[0]:
                    if nhead > nbuf.shape[0] // 2:
                        for k in range(ntail - nhead):
                            nbuf[k] = nbuf[nhead + k]
                        ntail -= nhead
                        nhead = 0
                    else:
                        nbuf = grow_1d(nbuf, 2 * nbuf.shape[0])
                nbuf[ntail] = e
                ntail += 1
                counters[e, C.BUF_INSERT] += 1
        # maintenance between events: drop expired instances, collect unreachable nodes
        if nn > ngc_at:
            for j in range(1, 2 * m):
                sweep_at[j] = 0
        for j in range(1, 2 * m):
            if pn[j] > sweep_at[j]:
                base = poff[j]
                for k in range(pn[j] - 1, -1, -1):
                    i = pidx[base + k]
                    if a_first[i] < lo:
                        pool_remove_at(pidx, poff, pn, j, k)
                        free[nfree] = i
                        nfree += 1
                sweep_at[j] = max(2 * pn[j], tune[1])
        if nn > ngc_at:
            tot = 0
            for j in range(1, n_pools):
                tot += pn[j]
            rows = np.empty(tot, dtype=np.int64)
            r = 0
            for j in range(1, n_pools):
                for k in range(pn[j]):
                    rows[r] = pidx[poff[j] + k]
                    r += 1
            nn = nodes_compact(nev, npar, nn, a_bind, rows, tot, kleene_cols)
            ngc_at = max(2 * nn, tune[2])

        # (5) phase 1: edges of live instances -> candidates.  Pool 0 stands for the initial
        # state: its only member is the sentinel row 0 (nothing bound), first event = e.
        # Room for the worst case first: one candidate per (instance, edge), one node each.
        bound = 0
        for j in range(2 * m):
            if j < m:
                if el_type[j] == t:
                    bound += 1 if j == 0 else pn[j]
            elif el_kleene[j - m]:
                bound += 2 * pn[j]
        if bound > c_first.shape[0]:
            c_row, c_first, c_slot, c_kind = _cand_grow(c_row, c_first, c_slot, c_kind, bound)
        if n_kl > 0 and nn + bound > nev.shape[0]:
            cap = _cap_for(nev.shape[0], nn + bound)
            nev = grow_1d(nev, cap)
            npar = grow_1d(npar, cap)
        for j in range(n_pools):
            snap[j] = pn[j]
        nc = 0
        for j in range(2 * m):
            if j < m:
                s = j
                if el_type[s] != t:
                    continue
                is_k = False
            else:
                s = j - m
                if not el_kleene[s]:
                    continue
                if el_type[s] != t and not (s + 1 < m and el_type[s + 1] == t):
                    continue
                is_k = True
            base = poff[j]
            n_visit = snap[j] if j > 0 else 1
            if j > 0 and not is_k and not nextp and not el_kleene[s]:
                # Fast path: a plain state whose edge is one comparison with another plain slot
                # (skip-till-any-match).  Same evaluations, counts and candidate order as the
                # general loop below, but branch-free: the candidate is written at ``nc`` every
                # time and ``nc`` advances by the outcome, so a data-dependent predicate costs
                # no mispredicted branch; the event's own operand is computed once.
                kk = sp_start[s]
                p = sp_pred[kk]
                role = sp_role[kk]
                o = sp_other[kk]
                if (sp_start[s + 1] - kk == 1 and role != ROLE_SELF and not el_kleene[o]
                        and pred_i[p, PI_KIND] == PK_CMP and pred_i[p, PI_V2] >= 0):
                    op = pred_i[p, PI_OP]
                    c1 = pred_i[p, PI_C1]
                    c2 = pred_i[p, PI_C2]
                    sc = pred_f[p, 0]
                    of = pred_f[p, 1]
                    lhs_e = attrs[e, c1]              # role FIRST: e is the left operand
                    rhs_e = attrs[e, c2] * sc + of    # role SECOND: e is the right operand
                    n_ev = 0
                    if direct_emit and s == m - 1 and nm + n_visit < max_matches:
                        # the candidates would all be emitted in phase 2, in this order and
                        # before any other match of this event, without reaching max_matches:
                        # write them straight to the output (same branch-free scheme)
                        if nm + n_visit > o_det.shape[0]:
                            o_pos, o_det, o_kl, o_kle = _out_reserve(o_pos, o_det, o_kl, o_kle,
                                                                     nm + n_visit, nkl, nk,
                                                                     max_matches)
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
                            x = a_bind[i, o]
                            if role == ROLE_SECOND:
                                ok = compare(op, attrs[x, c1], rhs_e)
                            else:
                                ok = compare(op, lhs_e, attrs[x, c2] * sc + of)
                            n_ev += 1
                            for c in range(n_cols):
                                o_pos[nm, c] = -1
                            for s2 in range(s):
                                o_pos[nm, col_of_slot[s2]] = a_bind[i, s2]
                            o_pos[nm, col_e] = e
                            o_det[nm] = e
                            nm += np.int64(ok)
                        k_emit += nm - nm0
                        k_edge += n_ev
                        k_pred += n_ev
                        continue
                    for k in range(n_visit - 1, -1, -1):
                        i = pidx[base + k]
                        first = a_first[i]
                        if first < lo:  # expired (already counted)
                            pool_remove_at(pidx, poff, pn, j, k)
                            free[nfree] = i
                            nfree += 1
                            continue
                        x = a_bind[i, o]
                        if role == ROLE_SECOND:
                            ok = compare(op, attrs[x, c1], rhs_e)
                        else:
                            ok = compare(op, lhs_e, attrs[x, c2] * sc + of)
                        n_ev += 1
                        for s2 in range(m):
                            c_row[nc, s2] = a_bind[i, s2]
                        c_row[nc, s] = e
                        c_first[nc] = first
                        c_slot[nc] = s
                        c_kind[nc] = CAND_ENTER
                        nc += np.int64(ok)
                    k_edge += n_ev
                    k_pred += n_ev
                    continue
            for k in range(n_visit - 1, -1, -1):
                if j == 0:
                    i = 0
                    first = e
                    fl = 1
                else:
                    i = pidx[base + k]
                    first = a_first[i]
                    if first < lo:  # expired (already counted)
                        pool_remove_at(pidx, poff, pn, j, k)
                        free[nfree] = i
                        nfree += 1
                        continue
                    fl = a_flags[i] if is_k else 1
                for which in range(2):
                    # the edge tried: plain state -> enter slot s; K_s -> loop (which 0) or
                    # proceed into s + 1 (which 1)
                    if not is_k:
                        if which == 1:
                            break
                        tgt = s
                        kind = CAND_ENTER
                    elif which == 0:
                        if el_type[s] != t or (nextp and not (fl & FL_LOOP)):
                            continue
                        tgt = s
                        kind = CAND_LOOP
                    else:
                        if s + 1 >= m or el_type[s + 1] != t or (nextp and not (fl & FL_PROCEED)):
                            continue
                        tgt = s + 1
                        kind = CAND_ENTER
                    k_edge += 1
                    ok = True
                    for kk in range(sp_start[tgt], sp_start[tgt + 1]):
                        p = sp_pred[kk]
                        role = sp_role[kk]
                        o = sp_other[kk]
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
                        npar[nn] = a_bind[i, tgt] if kind == CAND_LOOP else -1
                        c_row[nc, tgt] = nn
                        nn += 1
                    else:
                        c_row[nc, tgt] = e
                    c_first[nc] = first
                    c_slot[nc] = tgt
                    c_kind[nc] = kind
                    nc += 1
                    if nextp:
                        if not is_k:
                            fl = 0
                        elif kind == CAND_LOOP:
                            fl &= ~FL_LOOP
                        else:
                            fl &= ~FL_PROCEED
                if j > 0 and nextp:
                    if fl == 0:
                        live -= 1
                        cnt_first[first] -= 1
                        k_removed += 1
                        pool_remove_at(pidx, poff, pn, j, k)
                        free[nfree] = i
                        nfree += 1
                    elif is_k:
                        a_flags[i] = fl

        # (6) phase 2: negation checks, emission, new instances.
        # Room for the worst case first (no candidate killed): arena rows, pool slots, output.
        if nc > 0:
            for j in range(n_pools):
                pneed[j] = 0
            n_out = 0
            n_kev = 0
            for ci in range(nc):
                s = c_slot[ci]
                if s == m - 1:
                    if has_trailing:
                        pneed[pend_pool] += 1
                    else:
                        n_out += 1
                        if n_kl > 0:
                            n_kev += _kl_len(c_row, ci, el_kleene, npar)
                    if el_kleene[s]:
                        pneed[m + s] += 1
                elif el_kleene[s]:
                    pneed[m + s] += 1
                else:
                    pneed[s + 1] += 1
            short = False
            n_rows = 0
            for j in range(n_pools):
                n_rows += pneed[j]
                if pn[j] + pneed[j] > pcap[j]:
                    short = True
            if short:
                pidx = pools_reserve(pidx, poff, pcap, pn, pneed)
            while a_top + n_rows - nfree > a_first.shape[0]:
                a_first, a_flags, a_bind, free = arena_grow(a_first, a_flags, a_bind, free)
            if (nm + n_out > o_det.shape[0] or nkl + n_out * n_kl > o_kl.shape[0]
                    or nk + n_kev > o_kle.shape[0]):
                o_pos, o_det, o_kl, o_kle = _out_reserve(o_pos, o_det, o_kl, o_kle, nm + n_out,
                                                         nkl + n_out * n_kl, nk + n_kev,
                                                         max_matches)
        for ci in range(nc):
            s = c_slot[ci]
            first = c_first[ci]
            alive = True
            if c_kind[ci] == CAND_ENTER:
                for q in range(n_neg):
                    if ng_chk[q] != s:
                        continue
                    L = ng_left[q]
                    R = ng_right[q]
                    bl = c_row[ci, L]
                    br = c_row[ci, R]
                    lo_ex = np.int64(nev[bl] if el_kleene[L] else bl)
                    hi_ex = np.int64(node_first(nev, npar, br) if el_kleene[R] else br)
                    killed, ne, npe = _neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
                                                  types, ng_type, np_start, np_pred, np_role,
                                                  np_other, el_kleene, nev, npar, pred_i,
                                                  pred_f, attrs)
                    k_edge += ne
                    k_pred += npe
                    if killed:
                        alive = False
                        break
            if not alive:
                continue
            if s == m - 1:
                emit = True
                for q in range(n_neg):
                    if ng_chk[q] != m:
                        continue
                    L = ng_left[q]
                    R = ng_right[q]
                    if L < 0:
                        lo_ex = np.int64(lo - 1)
                        hi_ex = np.int64(first)
                    else:
                        bl = c_row[ci, L]
                        br = c_row[ci, R]
                        lo_ex = np.int64(nev[bl] if el_kleene[L] else bl)
                        hi_ex = np.int64(node_first(nev, npar, br) if el_kleene[R] else br)
                    killed, ne, npe = _neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
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
                        return ST_MAX_MATCHES, e, o_pos[:nm], o_kl[:nkl], o_kle[:nk], o_det[:nm]
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
                    else:
                        for c in range(n_cols):
                            o_pos[nm, c] = -1
                        for s2 in range(m):
                            if not el_kleene[s2]:
                                o_pos[nm, col_of_slot[s2]] = c_row[ci, s2]
                        if n_kl > 0:
                            nkl, nk = _out_kleene(o_pos, nm, c_row, ci, col_of_slot, el_kleene,
                                                  nev, npar, o_kl, nkl, o_kle, nk)
                        o_det[nm] = e
                        nm += 1
                        k_emit += 1
                if not el_kleene[s]:
                    continue
            # store the instance: K_s for a Kleene slot, else A_{s+1}
            if nfree > 0:
                nfree -= 1
                i = free[nfree]
            else:
                i = a_top
                a_top += 1
            a_first[i] = first
            for s2 in range(m):
                a_bind[i, s2] = c_row[ci, s2]
            if el_kleene[s]:
                a_flags[i] = FL_LOOP | FL_PROCEED if s + 1 < m else FL_LOOP
                dst = m + s
            else:
                a_flags[i] = 0
                dst = s + 1
            pidx[poff[dst] + pn[dst]] = i
            pn[dst] += 1
            live += 1
            cnt_first[first] += 1
            k_created += 1
            if live > max_pm:
                return ST_MAX_PM, e, o_pos[:nm], o_kl[:nkl], o_kle[:nk], o_det[:nm]
        counters[e, C.EDGE_EVAL] += k_edge
        counters[e, C.PRED_EVAL] += k_pred
        counters[e, C.MATCH_EMIT] += k_emit
        counters[e, C.PM_CREATED] += k_created
        counters[e, C.PM_REMOVED] += k_removed
        counters[e, C.LIVE_PM] += live          # += : branches' gauges add up
        counters[e, C.BUFFERED] += ntail - nhead

    # end of stream: pending trailing-NOT matches are final
    if n > 0 and has_trailing:
        base = poff[pend_pool]
        n_out = pn[pend_pool]
        n_kev = 0
        if n_kl > 0:
            for k in range(n_out):
                n_kev += _kl_len(a_bind, pidx[base + k], el_kleene, npar)
        o_pos, o_det, o_kl, o_kle = _out_reserve(o_pos, o_det, o_kl, o_kle, nm + n_out,
                                                 nkl + n_out * n_kl, nk + n_kev, max_matches)
        for k in range(n_out):
            i = pidx[base + k]
            nkl, nk = _out_write(o_pos, o_det, nm, a_bind, i, col_of_slot, el_kleene, nev, npar,
                                 o_kl, nkl, o_kle, nk, n)
            nm += 1
            counters[n - 1, C.MATCH_EMIT] += 1
    return ST_OK, -1, o_pos[:nm], o_kl[:nkl], o_kle[:nk], o_det[:nm]


# ----------------------------------------------------------------------------- tables
def _csr(lists: list[list[tuple[int, int, int]]]):
    start = np.zeros(len(lists) + 1, dtype=np.int64)
    flat = [x for lst in lists for x in lst]
    start[1:] = np.cumsum([len(lst) for lst in lists])
    arr = np.array(flat, dtype=np.int64).reshape(-1, 3)
    return (start, np.ascontiguousarray(arr[:, 0]), np.ascontiguousarray(arr[:, 1]),
            np.ascontiguousarray(arr[:, 2]))


def branch_tables(program: Program, b: int) -> dict:
    """The arrays describing branch ``b`` to the kernel (see ``eager_kernel``)."""
    br = program.branches[b]
    pos_vars = [int(v) for v in br.pos_vars]
    m = len(pos_vars)
    slot = {v: s for s, v in enumerate(pos_vars)}
    kleene = np.array([program.var_kind[v] == KIND_KLEENE for v in pos_vars], dtype=np.bool_)
    cols = {v: c for c, v in enumerate(program.positive_vars)}
    neg_vars = [int(v) for v in br.neg_vars]
    neg_index = {v: q for q, v in enumerate(neg_vars)}
    slot_lists: list[list[tuple[int, int, int]]] = [[] for _ in range(m)]
    neg_lists: list[list[tuple[int, int, int]]] = [[] for _ in neg_vars]
    neg_mentions: list[set[int]] = [set() for _ in neg_vars]
    for p in (int(x) for x in br.pred_ids):
        v1 = int(program.pred_i[p, PI_V1])
        v2 = int(program.pred_i[p, PI_V2])
        negs = [v for v in (v1, v2) if v >= 0 and program.var_kind[v] == KIND_NEG]
        if negs:
            if len(set(negs)) == 2:
                # a predicate between two negated variables has no binding to check against
                continue
            q = neg_index[negs[0]]
            if v2 < 0 or v1 == v2:
                neg_lists[q].append((p, ROLE_SELF, -1))
            elif v1 == negs[0]:
                neg_lists[q].append((p, ROLE_FIRST, slot[v2]))
                neg_mentions[q].add(slot[v2])
            else:
                neg_lists[q].append((p, ROLE_SECOND, slot[v1]))
                neg_mentions[q].add(slot[v1])
            continue
        if v2 < 0 or v1 == v2:
            slot_lists[slot[v1]].append((p, ROLE_SELF, -1))
        elif slot[v1] > slot[v2]:
            slot_lists[slot[v1]].append((p, ROLE_FIRST, slot[v2]))
        else:
            slot_lists[slot[v2]].append((p, ROLE_SECOND, slot[v1]))
    chk = []
    for q in range(len(neg_vars)):
        L, R = int(br.neg_left[q]), int(br.neg_right[q])
        if R >= m:
            chk.append(CHK_TRAILING)
            continue
        if L < 0:
            chk.append(m)
            continue
        need = [L + 1 if kleene[L] else L, R + 1 if (kleene[R] and R in neg_mentions[q]) else R]
        need += [s + 1 if kleene[s] else s for s in neg_mentions[q]]
        chk.append(min(max(need), m))
    sp = _csr(slot_lists)
    npl = _csr(neg_lists)
    return dict(
        el_type=np.array([program.var_type[v] for v in pos_vars], dtype=np.int64),
        el_kleene=kleene,
        col_of_slot=np.array([cols[v] for v in pos_vars], dtype=np.int64),
        sp_start=sp[0], sp_pred=sp[1], sp_role=sp[2], sp_other=sp[3],
        ng_type=np.array([program.var_type[v] for v in neg_vars], dtype=np.int64),
        ng_left=np.asarray(br.neg_left, dtype=np.int64),
        ng_right=np.asarray(br.neg_right, dtype=np.int64),
        ng_chk=np.array(chk, dtype=np.int64),
        np_start=npl[0], np_pred=npl[1], np_role=npl[2], np_other=npl[3],
    )


def run_eager(program: Program, stream: EventStream,
              max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
              max_matches: int = DEFAULT_MAX_MATCHES, _tune=None, **ignored) -> EngineResult:
    """Eager NFA over ``stream``; raises ``CapacityError`` when a cap is exceeded.

    ``max_partial_matches`` caps the live partial matches of a branch, ``max_matches`` the
    matches of a branch (found or waiting for a trailing NOT).  ``_tune`` (tests only) overrides
    ``DEFAULT_TUNE`` (see ``eager_kernel``)."""
    if max_partial_matches < 1 or max_matches < 1:
        raise CepsimInputError("max_partial_matches and max_matches must be >= 1")
    if program.has_remote:
        raise CepsimInputError("the eager engine cannot evaluate REMOTE[...] predicates")
    n = len(stream)
    if n >= 2 ** 31 - 1:
        raise CepsimInputError(f"{stream.source}: the eager engine supports streams of fewer "
                               "than 2**31 events")
    counters = C.new_counters(n)
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
    for b in range(len(program.branches)):
        tb = branch_tables(program, b)
        st, ev, pos, klr, kle, det = eager_kernel(
            types, ts, attrs, pred_i, pred_f,
            tb["el_type"], tb["el_kleene"], tb["col_of_slot"], len(pos_vars),
            tb["sp_start"], tb["sp_pred"], tb["sp_role"], tb["sp_other"],
            tb["ng_type"], tb["ng_left"], tb["ng_right"], tb["ng_chk"],
            tb["np_start"], tb["np_pred"], tb["np_role"], tb["np_other"],
            int(program.window_kind), window, int(program.policy),
            int(max_partial_matches), int(max_matches), tune, counters)
        if st == ST_MAX_PM:
            raise CapacityError(
                f"eager engine: more than {max_partial_matches} live partial matches at event "
                f"{ev} (branch {b}: {program.branches[b].describe(program.var_names)}); raise the "
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
    if not parts:
        ms = MatchSet.empty(names, kl)
    else:
        ms = parts[0] if len(parts) == 1 else MatchSet.concat(parts)
    return EngineResult(matches=ms, counters=counters,
                        info={"engine": "eager", "branches": len(program.branches)})

"""A steppable eager NFA: one event at a time, with its state open to a load shedder.

Load shedding (DARLING and its baselines, PVLDB'22) decides in virtual time which events are
processed at all and which partial matches survive, so the engine cannot run over the whole
stream in one call.  ``Stepper(program, stream)`` keeps the eager NFA's state in plain numpy
arrays (no jitclass) and ``step(e)`` processes stream event ``e`` (events must be stepped in
increasing index order; events never stepped simply do not exist for the engine, i.e. count as
shed).  The kernel is the eager NFA of ``engines/evaluators/eager.py`` restricted to what the DARLING
queries need:

* one flat branch: ``SEQ`` of plain events, with predicates, and ``NOT`` at the start, in the
  middle or at the end;
* a time window (or none); skip-till-any-match.

Anything else (Kleene ``+``, ``AND``/``OR`` with more than one branch, count windows,
skip-till-next-match, ``REMOTE``) is refused with a ``CepsimInputError``.

Exactness.  Stepping every event gives exactly ``run_eager``'s matches and detection indices
and, per event, the same PRED_EVAL, EDGE_EVAL, PM_CREATED, PM_REMOVED, BUF_INSERT, MATCH_EMIT,
INSTANCE_WORK, LIVE_PM and BUFFERED (the per-event order of work is the eager kernel's: window
expiry, trailing-NOT flush and kills, negative-event buffer, edges of the live instances,
negation checks / emission / storage).  LIVE_BOUND (events bound by live partial matches: an
instance in state ``A_j`` binds ``j`` events) is only kept here; DECISION_CHECK / STAT_UPDATE
only count the admission checks below.
Stepping a subset ``S`` gives the oracle's matches on ``stream[S]`` (indices mapped back; a
trailing-NOT match pending at the end is detected at ``n_events`` of the full stream).

Shedder interface: ``live_by_state()``, ``live_bound``, ``pm_snapshot()`` -> (rows, state,
first), ``drop_pms(rows)`` (each counted as PM_REMOVED), and an in-kernel admission check per
(event, partial match) pair: ``set_admission(mode, util, threshold, n_bins)`` makes every pair
look up ``util[state, type, bin]`` (``bin`` = position of the event in the window opened by the
partial match's first event, ``n_bins`` equal time slices of ``W``; mode ``ADM_STATE`` uses the
instance's state, ``ADM_TYPE`` state 0 for every pair) and skip the pair when the utility is
below the threshold; in mode ``ADM_STATE`` (hSPICE) each look-up is one DECISION_CHECK; in mode
``ADM_TYPE`` (eSPICE: one decision per (event, window), the window being the one opened by the
partial match's first event) the caller charges its per-window decisions itself.  Mode ``ADM_COUNT`` never skips: it
adds 1 to ``util[state, type, bin]`` per pair (the pair counts eSPICE/hSPICE learn from during
their warm-up), each one STAT_UPDATE.  The sentinel "start a new partial
match" pair is checked too (state 0, bin 0).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import (KIND_KLEENE, KIND_NEG, PI_C1, PI_C2, PI_KIND, PI_OP, PI_V1, PI_V2,
                             PK_ABS, PK_CMP, PK_CORR, POLICY_ANY, WIN_TIME, Program)
from engines.errors import CepsimInputError
from engines.matches import MatchSet
from engines.evaluators.nfa_buffers import (grow_1d, grow_rows, pool_remove_at, pool_sweep, pools_new,
                                 pools_reserve)
from engines.predicates import compare, eval_pred
from engines.stream import EventStream

ROLE_SELF, ROLE_FIRST, ROLE_SECOND = 0, 1, 2
CHK_TRAILING = -1
ADM_NONE, ADM_STATE, ADM_TYPE, ADM_COUNT = 0, 1, 2, 3
# scalar state (int64 vector ``S``)
S_LO, S_TOP, S_NFREE, S_LIVE, S_BOUND, S_NHEAD, S_NTAIL, S_NM, S_LAST, S_NC = range(10)
N_S = 10
ST_OK, ST_GROW = 0, 1
_A_ADM = 25     # position of adm_mode in step_kernel's argument list (then util, thr, bins)


# ----------------------------------------------------------------------------- helpers
# Speed: a call from one compiled function to another that takes arrays pays an atomic
# reference-count increment and decrement per array argument (Numba increfs its arguments on
# entry).  On the per-(event, partial match) path that cost more than the predicates themselves
# (~185 ns per edge on soccer Q1 at W = 300 ms, 10 array arguments per call; Numba IR inlining
# of such a helper keeps the counts), so phase 1 of ``step_kernel`` writes the predicate loop
# out and evaluates each predicate on attribute values it loads, with the scalar-only
# ``_pred_holds`` -- ``engines.predicates.eval_pred``'s arithmetic for comparison and distance
# predicates; correlation predicates (rare, their cost is the correlation) still call
# ``eval_pred``.  ``_preds_hold`` (trailing-NOT kills, negation checks) is the same loop as a
# function.
@njit(cache=True)
def _pred_holds(kind, op, has2, x1, x2, f0, f1):
    """``eval_pred`` for PK_CMP / PK_ABS on loaded values: ``x1`` = first variable's attribute,
    ``x2`` = second's (ignored when ``has2`` is False: comparison with a constant)."""
    if kind == PK_CMP:
        if not has2:
            return compare(op, x1, f1)
        return compare(op, x1, x2 * f0 + f1)
    if kind == PK_ABS:
        return compare(op, abs(x1 - x2), f1)
    return False


@njit(cache=True)
def _preds_hold(lst_start, lst_pred, lst_role, lst_other, q, e, a_bind, r, pred_i, pred_f,
                attrs):
    """All predicates of CSR list ``q`` hold for event ``e`` against row ``r``; (ok, evals)."""
    n = 0
    ok = True
    for k in range(lst_start[q], lst_start[q + 1]):
        p = lst_pred[k]
        role = lst_role[k]
        n += 1
        e1 = e
        e2 = e
        if role == ROLE_FIRST:
            e2 = np.int64(a_bind[r, lst_other[k]])
        elif role == ROLE_SECOND:
            e1 = np.int64(a_bind[r, lst_other[k]])
        kind = pred_i[p, PI_KIND]
        if kind == PK_CORR:
            ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
        else:
            has2 = pred_i[p, PI_V2] >= 0
            x2 = attrs[e2, pred_i[p, PI_C2]] if has2 else 0.0
            ok = _pred_holds(kind, pred_i[p, PI_OP], has2, attrs[e1, pred_i[p, PI_C1]], x2,
                             pred_f[p, 0], pred_f[p, 1])
        if not ok:
            break
    return ok, n


@njit(cache=True)
def _neg_killed(q, lo_ex, hi_ex, tab, r, nbuf, nhead, ntail, types, ng_type, np_start, np_pred,
                np_role, np_other, pred_i, pred_f, attrs):
    """A buffered event of negation ``q`` strictly inside (lo_ex, hi_ex) satisfying all of the
    negation's predicates?  (killed, edge checks, predicate evaluations) — as the eager NFA."""
    a = nhead
    b = ntail
    while a < b:
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
        ok, n = _preds_hold(np_start, np_pred, np_role, np_other, q, c, tab, r, pred_i, pred_f,
                            attrs)
        preds += n
        if ok:
            return True, edges, preds
    return False, edges, preds


@njit(cache=True)
def _window_lo(ts, e, lo, w):
    t = ts[e]
    while lo < e and t - ts[lo] > w:
        lo += 1
    return lo


# ----------------------------------------------------------------------------- kernel
@njit(cache=True)
def step_kernel(e, types, ts, attrs, pred_i, pred_f, tabs,
                window, S, a_first, a_bind, free, pidx, poff, pcap, pn, cnt_first, bnd_first,
                nbuf, c_row, c_first, c_slot, o_pos, o_det, o_last,
                adm_mode, adm_util, adm_thr, adm_bins, row, row_f, total):
    """Process event ``e``; writes its counter row into ``row`` (zeroed first), the same row as
    float64 into ``row_f`` (for pricing: ``row_f.dot(unit)`` is ``np.dot(row, unit)`` without
    the cast) and adds it to the running sum ``total``.  ``tabs`` is ``pack_tables``' single
    array of the branch tables (fewer arguments to convert at every call from Python).

    Returns ``ST_GROW`` without touching any state when a buffer could overflow on this event
    (the caller grows the buffers and calls again), else ``ST_OK``."""
    el_type = tabs[tabs[0]:tabs[1]]
    col_of_slot = tabs[tabs[1]:tabs[2]]
    sp_start = tabs[tabs[2]:tabs[3]]
    sp_pred = tabs[tabs[3]:tabs[4]]
    sp_role = tabs[tabs[4]:tabs[5]]
    sp_other = tabs[tabs[5]:tabs[6]]
    ng_type = tabs[tabs[6]:tabs[7]]
    ng_left = tabs[tabs[7]:tabs[8]]
    ng_right = tabs[tabs[8]:tabs[9]]
    ng_chk = tabs[tabs[9]:tabs[10]]
    np_start = tabs[tabs[10]:tabs[11]]
    np_pred = tabs[tabs[11]:tabs[12]]
    np_role = tabs[tabs[12]:tabs[13]]
    np_other = tabs[tabs[13]:tabs[14]]
    m = el_type.shape[0]
    n_neg = ng_type.shape[0]
    pend = m
    t = types[e]
    # ---- worst-case room check (nothing mutated before this)
    bound = 0
    for j in range(m):
        if el_type[j] == t:
            bound += 1 if j == 0 else pn[j]
    if bound > c_first.shape[0]:
        return ST_GROW
    if S[S_TOP] + bound + 1 > a_first.shape[0]:
        return ST_GROW
    for j in range(m + 1):
        if pn[j] + bound > pcap[j]:
            return ST_GROW
    if S[S_NM] + bound + pn[pend] + 1 > o_det.shape[0]:
        return ST_GROW
    if S[S_NTAIL] + 1 > nbuf.shape[0]:
        return ST_GROW
    for k in range(row.shape[0]):
        row[k] = 0
    k_edge = 0
    k_pred = 0
    k_emit = 0
    k_created = 0
    k_removed = 0
    k_dec = 0
    k_stat = 0
    lo = S[S_LO]
    nfree = S[S_NFREE]
    a_top = S[S_TOP]
    live = S[S_LIVE]
    lbound = S[S_BOUND]
    nhead = S[S_NHEAD]
    ntail = S[S_NTAIL]
    nm = S[S_NM]
    # (1) window and expiry
    new_lo = _window_lo(ts, e, lo, window)
    for p in range(lo, new_lo):
        live -= cnt_first[p]
        k_removed += cnt_first[p]
        lbound -= bnd_first[p]
        cnt_first[p] = 0
        bnd_first[p] = 0
    lo = new_lo
    # INSTANCE_WORK as the eager NFA: the event is offered to every live instance (after
    # expiry) and to the initial state
    row[C.INSTANCE_WORK] += live + 1
    has_trailing = False
    has_buffered = False
    for q in range(n_neg):
        if ng_chk[q] == CHK_TRAILING:
            has_trailing = True
        else:
            has_buffered = True
    if has_trailing:
        # (2) pending matches whose window closed are final (detect = e)
        base = poff[pend]
        for k in range(pn[pend] - 1, -1, -1):
            i = pidx[base + k]
            if a_first[i] < lo:
                for c in range(o_pos.shape[1]):
                    o_pos[nm, c] = -1
                last = 0
                for s2 in range(m):
                    o_pos[nm, col_of_slot[s2]] = a_bind[i, s2]
                    if a_bind[i, s2] > last:
                        last = a_bind[i, s2]
                o_det[nm] = e
                o_last[nm] = last
                nm += 1
                k_emit += 1
                pool_remove_at(pidx, poff, pn, pend, k)
                free[nfree] = i
                nfree += 1
        # (3) trailing NOT kills
        for q in range(n_neg):
            if ng_chk[q] != CHK_TRAILING or ng_type[q] != t:
                continue
            base = poff[pend]
            for k in range(pn[pend] - 1, -1, -1):
                i = pidx[base + k]
                k_edge += 1
                ok, ne = _preds_hold(np_start, np_pred, np_role, np_other, q, e, a_bind, i,
                                     pred_i, pred_f, attrs)
                k_pred += ne
                if ok:
                    pool_remove_at(pidx, poff, pn, pend, k)
                    free[nfree] = i
                    nfree += 1
    # (4) negative-event buffer
    if has_buffered:
        while nhead < ntail and nbuf[nhead] < lo:
            nhead += 1
        isneg = False
        for q in range(n_neg):
            if ng_chk[q] != CHK_TRAILING and ng_type[q] == t:
                isneg = True
        if isneg:
            if nhead > 0 and ntail == nbuf.shape[0]:
                for k in range(ntail - nhead):
                    nbuf[k] = nbuf[nhead + k]
                ntail -= nhead
                nhead = 0
            nbuf[ntail] = e
            ntail += 1
            row[C.BUF_INSERT] += 1
    # (5) phase 1: edges of the live instances -> candidates
    nc = 0
    for j in range(m):
        if el_type[j] != t:
            continue
        base = poff[j]
        n_visit = pn[j] if j > 0 else 1
        for k in range(n_visit - 1, -1, -1):
            if j == 0:
                i = 0
                first = e
            else:
                i = pidx[base + k]
                first = a_first[i]
                if first < lo:
                    pool_remove_at(pidx, poff, pn, j, k)
                    free[nfree] = i
                    nfree += 1
                    continue
            if adm_mode != ADM_NONE:
                b = 0
                if j > 0 and window > 0.0 and window < np.inf:
                    b = int((ts[e] - ts[first]) / window * adm_bins)
                    if b >= adm_bins:
                        b = adm_bins - 1
                if adm_mode == ADM_COUNT:
                    adm_util[j, t, b] += 1.0
                    k_stat += 1
                else:
                    st = 0
                    if adm_mode == ADM_STATE:
                        k_dec += 1
                        st = j
                    if adm_util[st, t, b] < adm_thr:
                        continue
            k_edge += 1
            # the slot's predicates (``_preds_hold``'s loop, written out here: this is the
            # per-edge path, and a helper taking the arrays would pay their reference counts)
            ok = True
            for kq in range(sp_start[j], sp_start[j + 1]):
                p = sp_pred[kq]
                k_pred += 1
                e1 = e
                e2 = e
                if sp_role[kq] == ROLE_FIRST:
                    e2 = np.int64(a_bind[i, sp_other[kq]])
                elif sp_role[kq] == ROLE_SECOND:
                    e1 = np.int64(a_bind[i, sp_other[kq]])
                kind = pred_i[p, PI_KIND]
                if kind == PK_CORR:
                    ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
                else:
                    has2 = pred_i[p, PI_V2] >= 0
                    x2 = attrs[e2, pred_i[p, PI_C2]] if has2 else 0.0
                    ok = _pred_holds(kind, pred_i[p, PI_OP], has2, attrs[e1, pred_i[p, PI_C1]],
                                     x2, pred_f[p, 0], pred_f[p, 1])
                if not ok:
                    break
            if not ok:
                continue
            for s2 in range(m):
                c_row[nc, s2] = a_bind[i, s2]
            c_row[nc, j] = e
            c_first[nc] = first
            c_slot[nc] = j
            nc += 1
    # (6) phase 2: negation checks, emission, new instances
    for ci in range(nc):
        s = c_slot[ci]
        first = c_first[ci]
        alive = True
        for q in range(n_neg):
            if ng_chk[q] != s:
                continue
            killed, ne, npe = _neg_killed(q, np.int64(c_row[ci, ng_left[q]]),
                                          np.int64(c_row[ci, ng_right[q]]), c_row, ci, nbuf,
                                          nhead, ntail, types, ng_type, np_start, np_pred,
                                          np_role, np_other, pred_i, pred_f, attrs)
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
                if L < 0:
                    lo_ex = np.int64(lo - 1)
                    hi_ex = np.int64(first)
                else:
                    lo_ex = np.int64(c_row[ci, L])
                    hi_ex = np.int64(c_row[ci, ng_right[q]])
                killed, ne, npe = _neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
                                              types, ng_type, np_start, np_pred, np_role,
                                              np_other, pred_i, pred_f, attrs)
                k_edge += ne
                k_pred += npe
                if killed:
                    emit = False
                    break
            if emit:
                if has_trailing:
                    if nfree > 0:
                        nfree -= 1
                        i = free[nfree]
                    else:
                        i = a_top
                        a_top += 1
                    a_first[i] = first
                    for s2 in range(m):
                        a_bind[i, s2] = c_row[ci, s2]
                    pidx[poff[pend] + pn[pend]] = i
                    pn[pend] += 1
                else:
                    for c in range(o_pos.shape[1]):
                        o_pos[nm, c] = -1
                    for s2 in range(m):
                        o_pos[nm, col_of_slot[s2]] = c_row[ci, s2]
                    o_det[nm] = e
                    o_last[nm] = e
                    nm += 1
                    k_emit += 1
            continue
        if nfree > 0:
            nfree -= 1
            i = free[nfree]
        else:
            i = a_top
            a_top += 1
        a_first[i] = first
        for s2 in range(m):
            a_bind[i, s2] = c_row[ci, s2]
        dst = s + 1
        pidx[poff[dst] + pn[dst]] = i
        pn[dst] += 1
        live += 1
        lbound += dst
        cnt_first[first] += 1
        bnd_first[first] += dst
        k_created += 1
    # maintenance: sweep expired members of large pools (not counted: already removed)
    for j in range(1, m):
        if pn[j] > 64 and pn[j] > 2 * (live + 1):
            nfree = pool_sweep(pidx, poff, pn, j, a_first, lo, free, nfree)
    row[C.EDGE_EVAL] += k_edge
    row[C.PRED_EVAL] += k_pred
    row[C.MATCH_EMIT] += k_emit
    row[C.PM_CREATED] += k_created
    row[C.PM_REMOVED] += k_removed
    row[C.DECISION_CHECK] += k_dec
    row[C.STAT_UPDATE] += k_stat
    row[C.LIVE_PM] = live
    row[C.BUFFERED] = ntail - nhead
    row[C.LIVE_BOUND] = lbound
    S[S_LO] = lo
    S[S_NFREE] = nfree
    S[S_TOP] = a_top
    S[S_LIVE] = live
    S[S_BOUND] = lbound
    S[S_NHEAD] = nhead
    S[S_NTAIL] = ntail
    S[S_NM] = nm
    S[S_LAST] = e
    for k in range(row.shape[0]):
        row_f[k] = row[k]
        total[k] += row[k]
    return ST_OK


@njit(cache=True)
def _live_rows(S, a_first, pidx, poff, pn, m, out_row, out_state, out_first):
    """Write the live instances (rows, state, first event); returns their number."""
    lo = S[S_LO]
    n = 0
    for j in range(1, m):
        for k in range(pn[j]):
            i = pidx[poff[j] + k]
            if a_first[i] >= lo:
                out_row[n] = i
                out_state[n] = j
                out_first[n] = a_first[i]
                n += 1
    return n


@njit(cache=True)
def _drop_rows(S, a_first, pidx, poff, pn, free, cnt_first, bnd_first, m, mark):
    """Remove the live instances whose arena row is marked; returns how many were removed."""
    lo = S[S_LO]
    nfree = S[S_NFREE]
    removed = 0
    for j in range(1, m):
        base = poff[j]
        for k in range(pn[j] - 1, -1, -1):
            i = pidx[base + k]
            if mark[i] and a_first[i] >= lo:
                mark[i] = False
                f = a_first[i]
                cnt_first[f] -= 1
                bnd_first[f] -= j
                S[S_LIVE] -= 1
                S[S_BOUND] -= j
                pool_remove_at(pidx, poff, pn, j, k)
                free[nfree] = i
                nfree += 1
                removed += 1
    S[S_NFREE] = nfree
    return removed


# ----------------------------------------------------------------------------- tables
def _csr(lists):
    start = np.zeros(len(lists) + 1, dtype=np.int64)
    flat = [x for lst in lists for x in lst]
    start[1:] = np.cumsum([len(lst) for lst in lists])
    arr = np.array(flat, dtype=np.int64).reshape(-1, 3)
    return (start, np.ascontiguousarray(arr[:, 0]), np.ascontiguousarray(arr[:, 1]),
            np.ascontiguousarray(arr[:, 2]))


def check_supported(program: Program, source: str = "pattern") -> None:
    """Refuse the pattern features the stepper does not implement (module docstring)."""
    why = None
    if len(program.branches) != 1:
        why = "AND/OR patterns (more than one flat branch)"
    elif np.any(program.var_kind == KIND_KLEENE):
        why = "Kleene closure (+)"
    elif program.window_kind != WIN_TIME:
        why = "count windows (WITHIN n events)"
    elif program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif program.has_remote:
        why = "REMOTE[...] predicates"
    if why:
        raise CepsimInputError(f"{source}: the steppable engine (load shedding) does not support "
                               f"{why}; use a SEQ of plain events with optional NOT, a time "
                               "window and skip-till-any-match")


def stepper_tables(program: Program) -> dict:
    """Arrays describing the single branch (slot predicate lists, negations) to the kernel."""
    br = program.branches[0]
    pos_vars = [int(v) for v in br.pos_vars]
    m = len(pos_vars)
    slot = {v: s for s, v in enumerate(pos_vars)}
    cols = {v: c for c, v in enumerate(program.positive_vars)}
    neg_vars = [int(v) for v in br.neg_vars]
    neg_index = {v: q for q, v in enumerate(neg_vars)}
    slot_lists = [[] for _ in range(m)]
    neg_lists = [[] for _ in neg_vars]
    neg_mentions = [set() for _ in neg_vars]
    for p in (int(x) for x in br.pred_ids):
        v1 = int(program.pred_i[p, PI_V1])
        v2 = int(program.pred_i[p, PI_V2])
        negs = [v for v in (v1, v2) if v >= 0 and program.var_kind[v] == KIND_NEG]
        if negs:
            if len(set(negs)) == 2:
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
        elif L < 0:
            chk.append(m)
        else:
            chk.append(min(max([L, R] + list(neg_mentions[q])), m))
    sp = _csr(slot_lists)
    npl = _csr(neg_lists)
    return dict(
        el_type=np.array([program.var_type[v] for v in pos_vars], dtype=np.int64),
        col_of_slot=np.array([cols[v] for v in pos_vars], dtype=np.int64),
        sp_start=sp[0], sp_pred=sp[1], sp_role=sp[2], sp_other=sp[3],
        ng_type=np.array([program.var_type[v] for v in neg_vars], dtype=np.int64),
        ng_left=np.asarray(br.neg_left, dtype=np.int64),
        ng_right=np.asarray(br.neg_right, dtype=np.int64),
        ng_chk=np.array(chk, dtype=np.int64),
        np_start=npl[0], np_pred=npl[1], np_role=npl[2], np_other=npl[3],
    )


TABLE_KEYS = ("el_type", "col_of_slot", "sp_start", "sp_pred", "sp_role", "sp_other", "ng_type",
              "ng_left", "ng_right", "ng_chk", "np_start", "np_pred", "np_role", "np_other")


def pack_tables(tb: dict) -> np.ndarray:
    """``stepper_tables`` as one int64 array: ``len(TABLE_KEYS) + 1`` offsets, then the tables
    in ``TABLE_KEYS`` order (table ``k`` is ``tabs[tabs[k]:tabs[k + 1]]``)."""
    parts = [np.asarray(tb[k], dtype=np.int64) for k in TABLE_KEYS]
    off = len(parts) + 1 + np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    return np.ascontiguousarray(np.concatenate([off] + parts), dtype=np.int64)


# ----------------------------------------------------------------------------- facade
class Stepper:
    """The steppable eager NFA over ``stream`` (see the module docstring)."""

    def __init__(self, program: Program, stream: EventStream, capacity: int = 256,
                 source: str = "pattern") -> None:
        check_supported(program, source)
        if (tuple(stream.schema.type_names) != tuple(program.schema.type_names)
                or tuple(stream.schema.attr_names) != tuple(program.schema.attr_names)):
            raise CepsimInputError(f"{stream.source}: the stream's schema differs from the one "
                                   "the pattern was compiled for; compile it against this stream")
        stream.require_no_nan(program.used_columns)
        self.program = program
        self.n_events = len(stream)
        self.types = np.ascontiguousarray(stream.types, dtype=np.int32)
        self.ts = np.ascontiguousarray(stream.ts, dtype=np.float64)
        self.attrs = np.ascontiguousarray(stream.attrs, dtype=np.float64)
        self.pred_i = np.ascontiguousarray(program.pred_i, dtype=np.int32)
        self.pred_f = np.ascontiguousarray(program.pred_f, dtype=np.float64)
        self.window = float(program.window) if math.isfinite(program.window) else np.inf
        tb = stepper_tables(program)
        self.tb = tb
        self.tabs = pack_tables(tb)
        m = len(tb["el_type"])
        self.m = m
        self.n_cols = len(program.positive_vars)
        cap = max(int(capacity), 4)
        self.S = np.zeros(N_S, dtype=np.int64)
        self.S[S_TOP] = 1
        self.S[S_LAST] = -1
        self._Sv = memoryview(self.S)     # scalar reads as Python ints (S is never replaced)
        self.a_first = np.zeros(cap, dtype=np.int64)
        self.a_bind = np.full((cap, m), -1, dtype=np.int32)
        self.free = np.zeros(cap, dtype=np.int64)
        self.pidx, self.poff, self.pcap, self.pn = pools_new(m + 1, cap)
        n = max(self.n_events, 1)
        self.cnt_first = np.zeros(n, dtype=np.int64)
        self.bnd_first = np.zeros(n, dtype=np.int64)
        self.nbuf = np.zeros(cap, dtype=np.int64)
        self.c_row = np.zeros((cap, m), dtype=np.int32)
        self.c_first = np.zeros(cap, dtype=np.int64)
        self.c_slot = np.zeros(cap, dtype=np.int64)
        self.o_pos = np.zeros((cap, self.n_cols), dtype=np.int64)
        self.o_det = np.zeros(cap, dtype=np.int64)
        self.o_last = np.zeros(cap, dtype=np.int64)
        self.adm_mode = ADM_NONE
        self.adm_util = np.ones((1, 1, 1), dtype=np.float64)
        self.adm_thr = 0.0
        self.adm_bins = 1
        self.row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self.row_f = np.zeros(C.N_COUNTERS, dtype=np.float64)   # last row as float64
        self.total = np.zeros(C.N_COUNTERS, dtype=np.int64)     # sum of every step's row
        self._mark = np.zeros(cap, dtype=np.bool_)
        self.finished = False
        self._args = None
        self._entry = None

    # -- admission (eSPICE / hSPICE)
    def set_admission(self, mode: int, util: np.ndarray | None = None, threshold: float = 0.0,
                      n_bins: int = 1) -> None:
        """Per (event, partial match) admission check; ``mode`` ADM_NONE / ADM_STATE / ADM_TYPE;
        ``util`` float64[m, n_types, n_bins] (state, event type, position bin)."""
        if mode not in (ADM_NONE, ADM_STATE, ADM_TYPE, ADM_COUNT):
            raise CepsimInputError(f"admission mode must be 0..3, got {mode}")
        self.adm_mode = int(mode)
        if util is not None:
            u = np.ascontiguousarray(util, dtype=np.float64)
            nt = len(self.program.schema.type_names)
            if u.ndim != 3 or u.shape[0] < self.m or u.shape[1] < nt or u.shape[2] != n_bins:
                raise CepsimInputError(f"admission utility table has shape {u.shape}; need "
                                       f"({self.m}, {nt}, {n_bins})")
            self.adm_util = u
        self.adm_thr = float(threshold)
        self.adm_bins = int(n_bins)
        if self._args is not None:
            # same kernel types (int, float64[:, :, ::1], float, int): update the argument list
            # in place instead of rebuilding it (eSPICE/hSPICE switch every 64 events)
            self._args[_A_ADM:_A_ADM + 4] = [self.adm_mode, self.adm_util, self.adm_thr,
                                             self.adm_bins]

    # -- growth
    def _grow(self) -> None:
        cap = 2 * self.a_first.shape[0]
        self.a_first = grow_1d(self.a_first, cap)
        self.a_bind = grow_rows(self.a_bind, cap)
        self.free = grow_1d(self.free, cap)
        self._mark = np.zeros(cap, dtype=np.bool_)
        need = np.full(self.m + 1, self.c_first.shape[0] + 1, dtype=np.int64)
        self.pidx = pools_reserve(self.pidx, self.poff, self.pcap, self.pn, need)
        c2 = 2 * self.c_first.shape[0]
        self.c_row = grow_rows(self.c_row, c2)
        self.c_first = grow_1d(self.c_first, c2)
        self.c_slot = grow_1d(self.c_slot, c2)
        o2 = 2 * self.o_det.shape[0]
        self.o_pos = grow_rows(self.o_pos, o2)
        self.o_det = grow_1d(self.o_det, o2)
        self.o_last = grow_1d(self.o_last, o2)
        self.nbuf = grow_1d(self.nbuf, 2 * self.nbuf.shape[0])
        self._args = None

    # -- stepping
    def _build_args(self) -> list:
        """The kernel's argument list (arrays are mutated in place, so it stays valid until a
        buffer grows) and the compiled entry point for its types: calling the entry point
        directly skips Numba's per-call type dispatch over ~30 arguments (~30 % of a step)."""
        args = [0, self.types, self.ts, self.attrs, self.pred_i, self.pred_f, self.tabs,
                self.window, self.S, self.a_first, self.a_bind, self.free, self.pidx, self.poff,
                self.pcap, self.pn, self.cnt_first, self.bnd_first, self.nbuf, self.c_row,
                self.c_first, self.c_slot, self.o_pos, self.o_det, self.o_last, self.adm_mode,
                self.adm_util, self.adm_thr, self.adm_bins, self.row, self.row_f, self.total]
        assert len(args) == _A_ADM + 7
        sig = tuple(step_kernel.typeof_pyval(a) for a in args)
        ov = step_kernel.overloads.get(sig)
        if ov is None:
            step_kernel.compile(sig)
            ov = step_kernel.overloads[sig]
        self._entry = ov.entry_point
        self._args = args
        return args

    def clear_output(self) -> None:
        """Forget the matches emitted so far (their rows are reused): for long runs that only
        need each step's matches (``match_last`` / ``o_pos`` right after the step)."""
        self.S[S_NM] = 0

    def step(self, e: int) -> np.ndarray:
        """Process event ``e`` (> every event stepped before); returns its counter row (a view
        overwritten by the next call; copy it to keep it).  ``row_f`` holds the same row as
        float64, ``total`` the sum of every row returned so far."""
        if e <= self._Sv[S_LAST] or e >= self.n_events or self.finished:
            raise CepsimInputError(f"step({e}): events must be stepped in increasing index order "
                                   f"within 0..{self.n_events - 1}, before finish()")
        args = self._args
        if args is None:
            args = self._build_args()
        args[0] = e
        while True:
            if self._entry(*args) == ST_OK:
                return self.row
            self._grow()
            args = self._build_args()
            args[0] = e

    def finish(self) -> np.ndarray:
        """End of stream: matches waiting for a trailing NOT are final (detect = n_events).
        Returns the counter row of that work (MATCH_EMIT)."""
        row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if self.finished:
            return row
        self.finished = True
        pend = self.m
        k = int(self.pn[pend])
        while self.S[S_NM] + k > self.o_det.shape[0]:
            self._grow()
        for r in range(k):
            i = int(self.pidx[self.poff[pend] + r])
            nm = int(self.S[S_NM])
            self.o_pos[nm, :] = -1
            for s in range(self.m):
                self.o_pos[nm, self.tb["col_of_slot"][s]] = self.a_bind[i, s]
            self.o_det[nm] = self.n_events
            self.o_last[nm] = int(self.a_bind[i, :].max())
            self.S[S_NM] = nm + 1
        self.pn[pend] = 0
        row[C.MATCH_EMIT] = k
        row[C.LIVE_PM] = self.S[S_LIVE]
        row[C.LIVE_BOUND] = self.S[S_BOUND]
        return row

    # -- state views for shedders
    @property
    def n_matches(self) -> int:
        return self._Sv[S_NM]

    @property
    def live(self) -> int:
        """Live partial matches (exact: expired ones are excluded)."""
        return self._Sv[S_LIVE]

    @property
    def live_bound(self) -> int:
        """Events bound by live partial matches (memory gauge)."""
        return self._Sv[S_BOUND]

    def match_last(self, start: int, stop: int) -> np.ndarray:
        """Last event index of matches ``start..stop-1`` (emission order)."""
        return self.o_last[start:stop]

    def pm_snapshot(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, state, first event) of every live partial match; state ``j`` binds ``j``
        events (slots ``0..j-1``)."""
        n = max(self.live, 0)
        rows = np.empty(n, dtype=np.int64)
        state = np.empty(n, dtype=np.int64)
        first = np.empty(n, dtype=np.int64)
        k = _live_rows(self.S, self.a_first, self.pidx, self.poff, self.pn, self.m, rows, state,
                       first)
        return rows[:k], state[:k], first[:k]

    def pm_bindings(self, rows: np.ndarray) -> np.ndarray:
        """Bound event indices of the given rows (``-1`` for unbound slots), slot order."""
        return self.a_bind[np.asarray(rows, dtype=np.int64)]

    def live_by_state(self) -> np.ndarray:
        """Live partial matches per state ``A_0..A_{m-1}`` (``A_0`` is always 0)."""
        _, state, _ = self.pm_snapshot()
        return np.bincount(state, minlength=self.m)[:self.m].astype(np.int64)

    def drop_pms(self, rows) -> np.ndarray:
        """Remove the given live partial matches; returns a counter row (PM_REMOVED)."""
        rows = np.asarray(rows, dtype=np.int64)
        row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if rows.size == 0:
            return row
        self._mark[rows] = True
        k = _drop_rows(self.S, self.a_first, self.pidx, self.poff, self.pn, self.free,
                       self.cnt_first, self.bnd_first, self.m, self._mark)
        self._mark[:] = False
        row[C.PM_REMOVED] = k
        row[C.LIVE_PM] = self.S[S_LIVE]
        row[C.LIVE_BOUND] = self.S[S_BOUND]
        return row

    def matches(self) -> MatchSet:
        """Every match emitted so far (emission order)."""
        nm = self.n_matches
        pos = self.o_pos[:nm].copy()
        z = np.zeros(pos.shape, dtype=np.int64)
        names = tuple(self.program.var_names[v] for v in self.program.positive_vars)
        return MatchSet(names, tuple(False for _ in names), pos, z, z.copy(),
                        np.zeros(0, dtype=np.int64), self.o_det[:nm].copy())

    def first_weights(self, t: int, weight: np.ndarray, base: int) -> tuple[int, int]:
        """Before stepping an event of type ``t``: (the live partial matches it will be
        offered to, the sum over them of ``max(weight[first] - base + 1, 0)``).  eSPICE/hSPICE
        (``sim.shedding.spice``) pass each event's window rank: the sum is the number of
        (window, partial match) pairs their per-window matchers would process."""
        return _first_weights(int(t), np.asarray(self.tb["el_type"], dtype=np.int64),
                              self.pidx, self.poff, self.pn, self.a_first, weight, int(base))


def run_stepped(program: Program, stream: EventStream, events=None,
                max_partial_matches: int | None = None,
                max_matches: int | None = None) -> tuple[MatchSet, np.ndarray]:
    """Step ``events`` (default: all) and finish; returns (matches, counters[n_events])
    where rows of events never stepped are zero and the end-of-stream work is added to the last
    stepped event's row.  More than ``max_partial_matches`` live partial matches after an event,
    or more than ``max_matches`` matches, raise ``CapacityError`` (buffers stay within 2x)."""
    from engines.errors import CapacityError
    stp = Stepper(program, stream)
    n = len(stream)
    counters = C.new_counters(n)
    idx = np.arange(n) if events is None else np.asarray(events, dtype=np.int64)
    max_pm = int(max_partial_matches) if max_partial_matches is not None else None
    max_m = int(max_matches) if max_matches is not None else None
    for e in idx:
        counters[e] = stp.step(int(e))
        if max_pm is not None and stp.live > max_pm:
            raise CapacityError(f"stepper engine: more than {max_pm} live partial matches at "
                                f"event {int(e)}; raise the cap with --max-partial-matches / "
                                f"max_partial_matches=, or narrow the window")
        if max_m is not None and stp.n_matches > max_m:
            raise CapacityError(f"stepper engine: more than {max_m} matches at event {int(e)}; "
                                f"raise the cap with --max-matches / max_matches=, or narrow "
                                f"the pattern")
    fin = stp.finish()
    if max_m is not None and stp.n_matches > max_m:
        raise CapacityError(f"stepper engine: more than {max_m} matches at the end of the stream; "
                            f"raise the cap with --max-matches / max_matches=")
    if len(idx):
        last = int(idx[-1])
        counters[last, C.MATCH_EMIT] += fin[C.MATCH_EMIT]
    return stp.matches(), counters


def run_stepper(program: Program, stream: EventStream, max_partial_matches: int | None = None,
                max_matches: int | None = None, **ignored):
    """Registry entry (``engine = "stepper"``): every event stepped; same matches as ``eager``."""
    from engines.registry import EngineResult
    ms, counters = run_stepped(program, stream, max_partial_matches=max_partial_matches,
                               max_matches=max_matches)
    return EngineResult(matches=ms, counters=counters, info={"engine": "stepper"})


@njit(cache=True)
def _first_weights(t, el_type, pidx, poff, pn, a_first, weight, base):
    """``Stepper.first_weights``: pools ``j >= 1`` waiting for type ``t``; instances whose
    weight is below ``base`` (expired: older than every open window) count for nothing."""
    cnt = 0
    wsum = 0
    for j in range(1, el_type.shape[0]):
        if el_type[j] != t:
            continue
        b = poff[j]
        for k in range(pn[j]):
            w = weight[a_first[pidx[b + k]]] - base + 1
            if w > 0:
                cnt += 1
                wsum += w
    return cnt, wsum

"""The steppable eager NFA's kernel: ``step_kernel`` processes one event against state kept in
numpy arrays owned by ``engines.evaluators.stepper.Stepper`` (see that module for the semantics,
counters and shedder interface), plus the compiled state queries ``live_rows`` / ``drop_rows``.

State layout: the scalar vector ``S`` (``S_*`` indices: window start, arena top, free-stack
size, live partial matches, bound events, negative-buffer head/tail, matches, last event,
candidates of the last step, partial matches dropped by shedders so far, longest Kleene list
stored so far);
the instance arena ``a_first`` / ``a_bind`` with the free stack ``free``; one pool per state
``A_j`` (``pidx``/``poff``/``pcap``/``pn``, ``engines.evaluators.nfa_buffers``), pool ``m``
holding complete matches that wait for a trailing NOT; per first event the live count and
bound events (``cnt_first``/``bnd_first``, exact expiry); the candidate buffer ``c_*`` and
the output ``o_*``.  After a step, ``c_first[ci]`` holds the arena row candidate ``ci``
became (-1 when it became none: killed by a negation or emitted), and a row ``drop_rows``
removed holds ``a_first = -2 - first`` until reused: what the DARLING artifact's storage model
(``engines.shedding.lazy_store``) reads.

Kleene slot ``sk`` (``tabs``' ``kl_slot``; at most one, never the last slot).  A row
(``a_bind`` / ``c_row``) then has ``m + 1 + KL`` columns: the ``m`` slots (the Kleene slot's
column holds its *last* event, so every reader of slot columns -- window, negation spans,
``o_last``, match keys -- sees an event index), column ``m`` the list length ``L`` and columns
``m + 1 .. m + L`` the Kleene events in stream order.  The instances of state ``A_{sk+1}`` hold
a non-empty list: an event of the Kleene type offered to one of them is a LOOP edge (a clone
with the event appended, the old instance stays: skip-till-any-match, docs/SEMANTICS.md rule 5)
whose predicates are slot ``sk``'s; a predicate of a later slot that mentions the Kleene
variable is evaluated against each of its events, newest first, stopping at the first failure
(the eager NFA's order, ``eager_preds.preds_hold``).  A negation checked on the edge into the
Kleene slot is checked on the ENTER edge only (its span ends at the first Kleene event, which a
LOOP does not change).  Admission looks a LOOP pair up at state ``sk`` (the event binds slot
``sk``, as on the ENTER edge).  ``KL`` grows (``ST_GROW``, ``Stepper.grow``) before a list
could outgrow it (``S[S_KLMAX]``).  ``LIVE_BOUND`` and the expiry bookkeeping count bound
*slots* (``j`` per instance of ``A_j``): a Kleene list counts as one.

AND groups (``stepper_tables``): pool ``j``'s instances hold ``j`` bound slots; an edge into a
slot of an AND group skips an instance that already binds it, a predicate between two slots of
the group is evaluated once both are bound (roles ``ROLE_*_DYN``), a negation next to a group
spans from the left group's last event to the right group's first bound event
(``_group_span``), and a ``CHK_DYN`` negation is checked on the candidate that first makes it
decidable (``_dyn_due``).  ``c_slot[ci]`` is the candidate's destination pool minus one (the
slot entered, for a plain SEQ).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import PI_C1, PI_C2, PI_KIND, PI_OP, PI_V2, PK_CORR
from engines.evaluators.eager_preds import neg_killed, pred_holds, trailing_kills
from engines.evaluators.eager_tables import ROLE_FIRST, ROLE_SECOND, ROLE_SELF
from engines.evaluators.nfa_buffers import pool_remove_at, pool_sweep
from engines.evaluators.stepper_tables import CHK_DYN, CHK_TRAILING, ROLE_FIRST_DYN
from engines.predicates import eval_pred

ADM_NONE, ADM_STATE, ADM_TYPE, ADM_COUNT = 0, 1, 2, 3
# scalar state (int64 vector ``S``)
S_LO, S_TOP, S_NFREE, S_LIVE, S_BOUND, S_NHEAD, S_NTAIL, S_NM, S_LAST, S_NC, S_NDROP, \
    S_KLMAX = range(12)
N_S = 12
ST_OK, ST_GROW = 0, 1
A_ADM = 25     # position of adm_mode in step_kernel's argument list (then util, thr, bins)

# ----------------------------------------------------------------------------- helpers
# The predicate and negation checks are the eager NFA's (``engines.evaluators.eager_preds``;
# this automaton has no Kleene slot: an all-False ``el_kleene`` and empty node arrays).
# Speed: a call from one compiled function to another that takes arrays pays an atomic
# reference-count increment and decrement per array argument (Numba increfs its arguments on
# entry).  On the per-(event, partial match) path that cost more than the predicates themselves
# (~185 ns per edge on soccer Q1 at W = 300 ms, 10 array arguments per call; Numba IR inlining
# of such a helper keeps the counts), so phase 1 of ``step_kernel`` writes ``preds_hold``'s
# loop out for plain slots and calls only the scalar-only ``pred_holds`` (correlation
# predicates, rare and costly in themselves, still call ``eval_pred``).
@leaf_njit
def _window_lo(ts, e, lo, w):
    t = ts[e]
    while lo < e and t - ts[lo] > w:
        lo += 1
    return lo


@leaf_njit
def _dyn_due(tab, r, e, r_lo, r_hi, mmask, m):
    """Whether candidate row ``r`` (event ``e`` just bound) makes a ``CHK_DYN`` negation
    decidable: a slot of its right group (``r_lo .. r_hi - 1``) and every mentioned slot bound
    now, but not all before ``e`` was."""
    r_now = False
    r_before = False
    for s in range(r_lo, r_hi):
        if tab[r, s] >= 0:
            r_now = True
            if tab[r, s] != e:
                r_before = True
    m_now = True
    m_before = True
    for s in range(m):
        if (mmask >> s) & 1:
            if tab[r, s] < 0:
                m_now = False
                m_before = False
            elif tab[r, s] == e:
                m_before = False
    return r_now and m_now and not (r_before and m_before)


@leaf_njit
def _group_span(tab, r, l_lo, l_hi, r_lo, r_hi, lo_ex, hi_ex):
    """A middle negation's span when a neighbour is an AND group: (last event of the left
    group, first bound event of the right group) of row ``r``; a plain neighbour keeps the
    value passed in."""
    if l_hi - l_lo > 1:
        lo_ex = np.int64(-1)
        for s in range(l_lo, l_hi):
            if tab[r, s] > lo_ex:
                lo_ex = np.int64(tab[r, s])
    if r_hi - r_lo > 1:
        hi_ex = np.int64(1) << 62
        for s in range(r_lo, r_hi):
            x = np.int64(tab[r, s])
            if x >= 0 and x < hi_ex:
                hi_ex = x
    return lo_ex, hi_ex


@leaf_njit
def _out_kleene(o_pos, nm, tab, r, m):
    """Copy row ``r``'s Kleene list (length at column ``m``, events after it) into output row
    ``nm`` after the variable columns (``Stepper.matches`` reads it there)."""
    n_cols = o_pos.shape[1] - (tab.shape[1] - m)
    L = tab[r, m]
    for kk in range(L + 1):
        o_pos[nm, n_cols + kk] = tab[r, m + kk]


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
    no_kleene = tabs[tabs[14]:tabs[15]]     # all 0: no eager-style Kleene node chains
    no_nodes = tabs[0:0]                    # hence no Kleene event nodes
    sk = tabs[tabs[15]]                     # the Kleene slot, -1 for none
    ed_src = tabs[tabs[16]:tabs[17]]
    ed_slot = tabs[tabs[17]:tabs[18]]
    el_glo = tabs[tabs[18]:tabs[19]]
    el_ghi = tabs[tabs[19]:tabs[20]]
    n_ed = ed_src.shape[0]
    ng_mmask = tabs[tabs[20]:tabs[21]]
    m = el_type.shape[0]
    n_neg = ng_type.shape[0]
    pend = m
    t = types[e]
    # ---- worst-case room check (nothing mutated before this)
    bound = 0
    for d in range(n_ed):
        if el_type[ed_slot[d]] == t:
            bound += 1 if ed_src[d] == 0 else pn[ed_src[d]]
    kl_w = 0                                # Kleene list capacity of a row
    if sk >= 0:
        kl_w = a_bind.shape[1] - m - 1
        if el_type[sk] == t and S[S_KLMAX] + 1 > kl_w:
            return ST_GROW
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
                if sk >= 0:
                    _out_kleene(o_pos, nm, a_bind, i, m)
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
            nfree, ne, npe = trailing_kills(q, e, pidx, poff, pn, pend, free, nfree, a_bind,
                                            np_start, np_pred, np_role, np_other, no_kleene,
                                            no_nodes, no_nodes, pred_i, pred_f, attrs)
            k_edge += ne
            k_pred += npe
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
    # edges (src pool, slot j) in table order (``stepper_tables``): ENTER slot j of the group of
    # pool src (a plain SEQ: j = src); the Kleene slot's LOOP (j = sk from pool sk + 1)
    for d in range(n_ed):
        j = ed_slot[d]
        src = ed_src[d]
        if el_type[j] != t:
            continue
        in_group = el_ghi[j] - el_glo[j] > 1      # an AND group: is slot j still unbound?
        base = poff[src]
        n_visit = pn[src] if src > 0 else 1
        for k in range(n_visit - 1, -1, -1):
            if src == 0:
                i = 0
                first = e
            else:
                i = pidx[base + k]
                first = a_first[i]
                if first < lo:
                    pool_remove_at(pidx, poff, pn, src, k)
                    free[nfree] = i
                    nfree += 1
                    continue
                if in_group and a_bind[i, j] >= 0:
                    continue
            if adm_mode != ADM_NONE:
                b = 0
                if src > 0 and window > 0.0 and window < np.inf:
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
            # the slot's predicates (``preds_hold``'s loop, written out here: this is the
            # per-edge path, and a helper taking the arrays would pay their reference counts)
            ok = True
            for kq in range(sp_start[j], sp_start[j + 1]):
                p = sp_pred[kq]
                k_pred += 1
                e1 = e
                e2 = e
                role = sp_role[kq]
                if role >= ROLE_FIRST_DYN:
                    # the other slot shares slot j's AND group: only once it is bound
                    if a_bind[i, sp_other[kq]] < 0:
                        k_pred -= 1
                        continue
                    role = ROLE_FIRST if role == ROLE_FIRST_DYN else ROLE_SECOND
                if role == ROLE_FIRST:
                    e2 = np.int64(a_bind[i, sp_other[kq]])
                elif role == ROLE_SECOND:
                    e1 = np.int64(a_bind[i, sp_other[kq]])
                kind = pred_i[p, PI_KIND]
                if sk >= 0 and sp_other[kq] == sk and role != ROLE_SELF:
                    # against every event of the Kleene list, newest first
                    k_pred -= 1
                    has2 = pred_i[p, PI_V2] >= 0
                    for kk in range(a_bind[i, m], 0, -1):
                        x = np.int64(a_bind[i, m + kk])
                        e1 = e
                        e2 = x
                        if role == ROLE_SECOND:
                            e1 = x
                            e2 = e
                        k_pred += 1
                        if kind == PK_CORR:
                            ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
                        else:
                            x2 = attrs[e2, pred_i[p, PI_C2]] if has2 else 0.0
                            ok = pred_holds(kind, pred_i[p, PI_OP], has2,
                                            attrs[e1, pred_i[p, PI_C1]], x2, pred_f[p, 0],
                                            pred_f[p, 1])
                        if not ok:
                            break
                elif kind == PK_CORR:
                    ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
                else:
                    has2 = pred_i[p, PI_V2] >= 0
                    x2 = attrs[e2, pred_i[p, PI_C2]] if has2 else 0.0
                    ok = pred_holds(kind, pred_i[p, PI_OP], has2, attrs[e1, pred_i[p, PI_C1]],
                                     x2, pred_f[p, 0], pred_f[p, 1])
                if not ok:
                    break
            if not ok:
                continue
            for s2 in range(m):
                c_row[nc, s2] = a_bind[i, s2]
            c_row[nc, j] = e
            c_first[nc] = first
            # dst - 1: a LOOP stays in pool sk + 1, an ENTER goes to pool src + 1
            c_slot[nc] = j if (j == sk and src == sk + 1) else src
            if sk >= 0:
                L = 0 if src <= sk else a_bind[i, m]
                for kk in range(1, L + 1):
                    c_row[nc, m + kk] = a_bind[i, m + kk]
                if j == sk:
                    L += 1
                    c_row[nc, m + L] = e
                c_row[nc, m] = L
            nc += 1
    # (6) phase 2: negation checks, emission, new instances
    for ci in range(nc):
        s = c_slot[ci]
        first = c_first[ci]
        alive = True
        for q in range(n_neg):
            if ng_chk[q] == CHK_DYN:
                if not _dyn_due(c_row, ci, e, el_glo[ng_right[q]], el_ghi[ng_right[q]],
                                ng_mmask[q], m):
                    continue
            elif ng_chk[q] != s:
                continue
            L = ng_left[q]
            R = ng_right[q]
            lo_ex = np.int64(c_row[ci, L])
            hi_ex = np.int64(c_row[ci, R])
            if sk >= 0 and R == sk:
                if s == sk and c_row[ci, m] > 1:
                    continue                # a LOOP: checked when the list was entered
                hi_ex = np.int64(c_row[ci, m + 1])   # the first Kleene event
            if el_ghi[L] - el_glo[L] > 1 or el_ghi[R] - el_glo[R] > 1:
                lo_ex, hi_ex = _group_span(c_row, ci, el_glo[L], el_ghi[L], el_glo[R],
                                           el_ghi[R], lo_ex, hi_ex)
            killed, ne, npe = neg_killed(q, lo_ex,
                                         hi_ex, c_row, ci, nbuf,
                                         nhead, ntail, types, ng_type, np_start, np_pred,
                                         np_role, np_other, no_kleene, no_nodes, no_nodes,
                                         pred_i, pred_f, attrs)
            k_edge += ne
            k_pred += npe
            if killed:
                alive = False
                break
        if not alive:
            c_first[ci] = -1
            continue
        if s == m - 1:
            c_first[ci] = -1
            emit = True
            for q in range(n_neg):
                if ng_chk[q] != m:
                    continue
                L = ng_left[q]
                if L < 0:
                    lo_ex = np.int64(lo - 1)
                    hi_ex = np.int64(first)
                else:
                    R = ng_right[q]
                    lo_ex = np.int64(c_row[ci, L])
                    hi_ex = np.int64(c_row[ci, R])
                    if sk >= 0 and R == sk:
                        hi_ex = np.int64(c_row[ci, m + 1])
                    if el_ghi[L] - el_glo[L] > 1 or el_ghi[R] - el_glo[R] > 1:
                        lo_ex, hi_ex = _group_span(c_row, ci, el_glo[L], el_ghi[L], el_glo[R],
                                                   el_ghi[R], lo_ex, hi_ex)
                killed, ne, npe = neg_killed(q, lo_ex, hi_ex, c_row, ci, nbuf, nhead, ntail,
                                             types, ng_type, np_start, np_pred, np_role,
                                             np_other, no_kleene, no_nodes, no_nodes, pred_i,
                                             pred_f, attrs)
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
                    if sk >= 0:
                        for kk in range(c_row[ci, m] + 1):
                            a_bind[i, m + kk] = c_row[ci, m + kk]
                    pidx[poff[pend] + pn[pend]] = i
                    pn[pend] += 1
                else:
                    for c in range(o_pos.shape[1]):
                        o_pos[nm, c] = -1
                    for s2 in range(m):
                        o_pos[nm, col_of_slot[s2]] = c_row[ci, s2]
                    if sk >= 0:
                        _out_kleene(o_pos, nm, c_row, ci, m)
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
        c_first[ci] = i             # the candidate's row (``engines.shedding.lazy_store``)
        for s2 in range(m):
            a_bind[i, s2] = c_row[ci, s2]
        if sk >= 0:
            L = c_row[ci, m]
            for kk in range(L + 1):
                a_bind[i, m + kk] = c_row[ci, m + kk]
            if L > S[S_KLMAX]:
                S[S_KLMAX] = L
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
    S[S_NC] = nc
    for k in range(row.shape[0]):
        row_f[k] = row[k]
        total[k] += row[k]
    return ST_OK


@leaf_njit
def live_rows(S, a_first, pidx, poff, pn, m, out_row, out_state, out_first):
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


@leaf_njit
def drop_rows(S, a_first, pidx, poff, pn, free, cnt_first, bnd_first, m, mark):
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
                a_first[i] = -2 - f     # tagged as dropped (``engines.shedding.lazy_store``)
                S[S_LIVE] -= 1
                S[S_BOUND] -= j
                pool_remove_at(pidx, poff, pn, j, k)
                free[nfree] = i
                nfree += 1
                removed += 1
    S[S_NFREE] = nfree
    S[S_NDROP] += removed
    return removed


@leaf_njit
def pool_first_weights(t, el_type, pidx, poff, pn, a_first, weight, base):
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

"""Negation and Kleene closure in the lazy chain NFA and tree NFA (kernel and tables).

``engines.evaluators.lazy_nfa`` runs every pattern with a NOT or a Kleene variable through
``lazy_nk_kernel`` here; patterns without either keep the plain kernel of that module (this
kernel gives the same counters on them, bit for bit, ``kernel="negkleene"`` in
``tests/test_lazy_nfa_neg_kleene.py``, but is slower).
The mechanism (instances with coverage frontiers, take edges over the input buffers in a scope,
chain and tree routing, the counters) is the one that module's docstring describes; what this
kernel adds:

Kleene closure ``B+ b``.  DEBS'15 defines no Kleene operator (its NFA, section 3.2.1, has
*ignore* self-loops only); a Kleene variable is a state with a *take* self-loop, the iteration
of SASE+ (Gyllstrom et al., ICDE 2008, DEBS'15 reference [22]), run lazily like every take
edge here: over the buffered events of the scope.  An instance whose routing names a Kleene
variable ``u`` runs its take edge over the buffered ``u`` events of the scope as for any
variable; each candidate ``x`` that passes (window + the predicates now bound) yields

* a *closed* child: ``u`` bound to the instance's list plus ``x`` and final, so the child goes
  on to the next variable (or completes the match), and
* an *open* child: the same list, still extendable.  It stays pinned to ``u`` (its routing is
  the self-loop, no tree decision) and takes further ``u`` events after ``x`` inside the scope
  (scope start = the list's last event), each again giving a closed and an open child.  The open
  child is not created when the scope is bounded and ``x`` is its last candidate (it could take
  nothing).

So every non-empty ordered subset of the qualifying events is bound exactly once, through the
chain of open instances of its prefixes (skip-till-any-match, docs/SEMANTICS.md rule 5).  A
predicate that relates ``u`` to a bound variable is checked for the candidate against each of
that variable's events (a Kleene variable's list: every pair, rule 2); the events already in
the list were checked when they were taken (an open chain keeps its bound set).  The list is a
parent-pointer chain of event nodes (``engines.evaluators.nfa_buffers``), shared by the
instances that extend it; nodes are only appended during a run.  ``i_ev`` holds a Kleene
variable's first event (the scope end for the variables before it), the node its last.

Negation ``NOT(C c)`` (SEMANTICS rule 4; OpenCEP checks a negated event against the partial
match once every event it depends on is bound, ``tree/nodes/NegationNode.py``).

* **middle** (positive neighbours L and R): checked on the take edge after which L, R and every
  positive variable of c's predicates are bound (a Kleene neighbour counts once it is closed),
  against the buffered ``C`` events strictly between L's last and R's first event.  The engine
  option ``negation_at="match"`` checks it when the match completes instead (OpenCEP's default
  negation algorithm, which adds the negation above the whole positive plan; ``neg_tables``);
  the match set is the same, the work differs;
* **start**: checked when the match completes (its window depends on the last event, and the
  match completes while its last event is processed), against the buffered ``C`` events before
  the first event: the buffer holds exactly those inside the window of the current event;
* **end**: a complete match waits (*pending*, not a live instance) until the window of its first
  event closes: it is emitted at the first event ``e`` with ``ts[e] - ts[first] > W`` (count:
  ``e - first >= N``), or at end of stream (``detect = n_events``), the eager engine's
  convention (``engines.evaluators.eager``, steps 2 and 3).  Every ``C`` event that arrives
  before is checked against every pending match of a branch with that trailing NOT.

A killed candidate yields no closed child (the check is part of the take edge's condition, as
a predicate that fails); its open child, whose list may still grow past the killer, is kept.
Events of the negated type are buffered (``BUF_INSERT``) when a start or middle NOT needs them;
a trailing NOT needs no buffer.  A predicate between two negated variables has no binding to be
checked against and is left out (as in the eager engine).

Counters (docs/COST_MODEL.md): each buffered negated event a NOT check examines is one
``EDGE_EVAL`` and each atomic predicate it evaluates one ``PRED_EVAL`` (the eager engine's
convention), the check stopping at the first killer; a pending match examined by a trailing
negated event is one ``EDGE_EVAL`` plus its ``PRED_EVAL``.  Closed and open children are each
one ``PM_CREATED`` (a completed match included, as in the plain kernel); a candidate killed by a
NOT creates nothing.  A pending match counts ``MATCH_EMIT`` at its detection (end of stream: the
last row); it is no live instance (``LIVE_PM``, ``INSTANCE_WORK`` do not count it), but the
``max_matches`` cap counts it until it is killed.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import KIND_KLEENE, KIND_NEG, PI_V1, PI_V2, Program
from engines.errors import CepsimInputError
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.leaf_jit import leaf_njit
from engines.predicates import eval_pred

NEG_START, NEG_MIDDLE, NEG_END = 0, 1, 2
ST_OK, ST_MAX_PM, ST_MAX_MATCHES = 0, 1, 2

_PRED_EVAL = C.PRED_EVAL
_EDGE_EVAL = C.EDGE_EVAL
_PM_CREATED = C.PM_CREATED
_PM_REMOVED = C.PM_REMOVED
_BUF_INSERT = C.BUF_INSERT
_MATCH_EMIT = C.MATCH_EMIT
_PLAN_GEN = C.PLAN_GEN
_INSTANCE_WORK = C.INSTANCE_WORK
_LIVE_PM = C.LIVE_PM
_BUFFERED = C.BUFFERED
_ROUTING_CHECK = C.ROUTING_CHECK
_NC = C.N_COUNTERS


@leaf_njit
def _lb_row(arr, row, lo, hi, x):
    """First index i in [lo, hi) with ``arr[row, i] >= x``."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[row, mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@leaf_njit
def pred_on_row(pred_i, pred_f, attrs, pr, sv, se, ev, kt, r, var_kle, nev, npar):
    """Predicate ``pr`` with variable ``sv`` bound to event ``se`` and every other variable it
    mentions read from row ``r`` of (``ev``, ``kt``): a plain variable's event, or each event of
    a Kleene variable's list (node ``kt[r, v]``, newest first).  Returns (holds,
    n_evaluations), stopping at the first evaluation that fails."""
    v1 = pred_i[pr, PI_V1]
    v2 = pred_i[pr, PI_V2]
    if v2 < 0:
        v2 = v1
    if v1 == sv and v2 == sv:
        return eval_pred(pred_i, pred_f, pr, attrs, se, se), 1
    w = v2 if v1 == sv else v1
    n = 0
    if var_kle[w] and kt[r, w] >= 0:
        nd = kt[r, w]
        while nd >= 0:
            y = nev[nd]
            n += 1
            ok = eval_pred(pred_i, pred_f, pr, attrs, se, y) if v1 == sv else \
                eval_pred(pred_i, pred_f, pr, attrs, y, se)
            if not ok:
                return False, n
            nd = npar[nd]
        return True, n
    y = ev[r, w]
    ok = eval_pred(pred_i, pred_f, pr, attrs, se, y) if v1 == sv else \
        eval_pred(pred_i, pred_f, pr, attrs, y, se)
    return ok, 1


@leaf_njit
def neg_check(pred_i, pred_f, attrs, buf, q, bh, bt, lo_ex, hi_ex, nvar, preds, b, j, npred,
              ev, kt, r, var_kle, nev, npar):
    """Is some buffered event of buffer ``q`` strictly inside (lo_ex, hi_ex) a killer of row
    ``r`` for the negated variable ``nvar`` (every predicate ``preds[b, j, :npred]`` holds)?
    Returns (killed, n_edge_checks, n_pred_evals)."""
    a = _lb_row(buf, q, bh, bt, lo_ex + 1)
    edges = 0
    pe = 0
    for k in range(a, bt):
        c = buf[q, k]
        if c >= hi_ex:
            break
        edges += 1
        good = True
        for jp in range(npred):
            ok, ne = pred_on_row(pred_i, pred_f, attrs, preds[b, j, jp], nvar, c, ev, kt, r,
                                 var_kle, nev, npar)
            pe += ne
            if not ok:
                good = False
                break
        if good:
            return True, edges, pe
    return False, edges, pe


@njit(cache=True)
def lazy_nk_kernel(types, ts, attrs, pred_i, pred_f, var_type, var_buf, var_kle, buf_stored,
                   n_buf, br_vars, br_len, br_slot, br_preds, br_npred, br_order, route,
                   win_kind, window, max_pm, max_matches, br_nneg, ng_var, ng_kind, ng_lvar,
                   ng_rvar, ng_need, ng_buf, ng_preds, ng_npred, br_trail):
    """The lazy kernel with NOT and Kleene (module docstring).  Returns (counters, match
    events, Kleene list starts, Kleene list lengths, Kleene events, detection positions, peak
    transient instances, routing checks, status, event)."""
    n = types.shape[0]
    V = var_type.shape[0]
    B = br_vars.shape[0]
    cnt = np.zeros((max(n, 1), _NC), dtype=np.int64)
    full = np.zeros(B, dtype=np.int64)
    for b in range(B):
        for j in range(br_len[b]):
            full[b] |= np.int64(1) << br_vars[b, j]

    # ---- input buffers: one per pattern type, positions ascending
    bcap = 64
    buf = np.zeros((n_buf, bcap), dtype=np.int64)
    bhead = np.zeros(n_buf, dtype=np.int64)
    btail = np.zeros(n_buf, dtype=np.int64)
    type_to_buf = np.full(max(int(types.max()) + 1 if n > 0 else 1, int(var_type.max()) + 1), -1,
                          dtype=np.int64)
    for v in range(V):
        if var_buf[v] >= 0:
            type_to_buf[var_type[v]] = var_buf[v]

    # ---- instances; the first B are the roots
    icap = max(64, 2 * B)
    i_ev = np.full((icap, V), -1, dtype=np.int64)
    i_kt = np.full((icap, V), -1, dtype=np.int64)   # Kleene: last node of the list
    i_cov = np.zeros((icap, V), dtype=np.int64)
    i_mask = np.zeros(icap, dtype=np.int64)
    i_br = np.zeros(icap, dtype=np.int64)
    i_depth = np.zeros(icap, dtype=np.int64)
    i_cur = np.full(icap, -1, dtype=np.int64)
    i_open = np.full(icap, -1, dtype=np.int64)     # the Kleene variable an open instance extends
    i_st = np.zeros(icap, dtype=np.int64)
    i_min = np.zeros(icap, dtype=np.int64)
    i_max = np.zeros(icap, dtype=np.int64)
    i_alive = np.zeros(icap, dtype=np.bool_)
    i_next = np.full(icap, -1, dtype=np.int64)
    n_inst = B
    min_cnt = np.zeros(max(n, 1), dtype=np.int64)
    front = 0
    l_head = np.full(max(n_buf, 1), -1, dtype=np.int64)
    l_tail = np.full(max(n_buf, 1), -1, dtype=np.int64)
    todo = np.zeros(icap, dtype=np.int64)
    scap = max(8, 2 * B)
    st_b = np.zeros(scap, dtype=np.int64)
    st_mask = np.zeros(scap, dtype=np.int64)
    st_cur = np.full(scap, -1, dtype=np.int64)
    st_at = np.full(scap, -1, dtype=np.int64)
    st_best = np.full(scap, -1, dtype=np.int64)
    n_st = B
    for b in range(B):
        i_br[b] = b
        i_alive[b] = True
        i_min[b] = -1
        i_st[b] = b
        st_b[b] = b
    live = 0
    peak_transient = 0
    n_route = 0
    # ---- Kleene event nodes (append only)
    ncap = 64
    nev = np.zeros(ncap, dtype=np.int64)
    npar = np.zeros(ncap, dtype=np.int64)
    n_nodes = 0

    # ---- matches (rows; a pending one has m_det = -1, a killed one m_dead)
    mcap = 64
    m_ev = np.full((mcap, V), -1, dtype=np.int64)
    m_kt = np.full((mcap, V), -1, dtype=np.int64)
    m_det = np.zeros(mcap, dtype=np.int64)
    m_first = np.zeros(mcap, dtype=np.int64)
    m_br = np.zeros(mcap, dtype=np.int64)
    m_dead = np.zeros(mcap, dtype=np.bool_)
    pend = np.zeros(mcap, dtype=np.int64)
    n_pend = 0
    n_m = 0
    n_dead = 0   # killed pending rows (not matches: the cap counts the others)
    any_trail = False
    for b in range(B):
        if br_trail[b]:
            any_trail = True

    for p in range(n):
        now = ts[p]
        t = types[p]
        for q in range(n_buf):
            h = bhead[q]
            while h < btail[q]:
                e = buf[q, h]
                if win_kind == 1:
                    if p - e >= window:
                        h += 1
                        continue
                elif now - ts[e] > window:
                    h += 1
                    continue
                break
            bhead[q] = h
        while front < p:
            dead = (p - front >= window) if win_kind == 1 else (now - ts[front] > window)
            if not dead:
                break
            c0 = min_cnt[front]
            if c0 > 0:
                live -= c0
                cnt[p, _PM_REMOVED] += c0
            front += 1
        # -- pending matches (trailing NOT): emit those whose window closed, then kills
        if any_trail and n_pend > 0:
            w = 0
            for r0 in range(n_pend):
                r = pend[r0]
                f0 = m_first[r]
                closed = (p - f0 >= window) if win_kind == 1 else (now - ts[f0] > window)
                if closed:
                    m_det[r] = p
                    cnt[p, _MATCH_EMIT] += 1
                    continue
                b = m_br[r]
                killed = False
                for j in range(br_nneg[b]):
                    if ng_kind[b, j] != NEG_END or var_type[ng_var[b, j]] != t:
                        continue
                    cnt[p, _EDGE_EVAL] += 1
                    good = True
                    for jp in range(ng_npred[b, j]):
                        ok, ne = pred_on_row(pred_i, pred_f, attrs, ng_preds[b, j, jp],
                                             ng_var[b, j], p, m_ev, m_kt, r, var_kle, nev, npar)
                        cnt[p, _PRED_EVAL] += ne
                        if not ok:
                            good = False
                            break
                    if good:
                        killed = True
                        break
                if killed:
                    m_dead[r] = True
                    n_dead += 1
                    continue
                pend[w] = r
                w += 1
            n_pend = w
        qb = type_to_buf[t] if t < type_to_buf.shape[0] else -1
        if qb >= 0:
            if btail[qb] == buf.shape[1]:
                big = 0
                for q in range(n_buf):
                    if btail[q] - bhead[q] > big:
                        big = btail[q] - bhead[q]
                newcap = buf.shape[1] * 2 if big * 2 > buf.shape[1] else buf.shape[1]
                nb = np.zeros((n_buf, newcap), dtype=np.int64)
                for q in range(n_buf):
                    L = btail[q] - bhead[q]
                    nb[q, :L] = buf[q, bhead[q]:btail[q]]
                    btail[q] = L
                    bhead[q] = 0
                buf = nb
            buf[qb, btail[qb]] = p
            btail[qb] += 1
            if buf_stored[qb]:
                cnt[p, _BUF_INSERT] += 1
        n_start = n_inst
        live_start = live
        n_todo = 0
        if route == 0 and qb >= 0:
            if todo.shape[0] < n_inst:
                todo = np.empty(2 * n_inst, dtype=np.int64)
            prev = -1
            k = l_head[qb]
            while k >= 0:
                nx = i_next[k]
                if i_alive[k] and i_min[k] >= front:
                    todo[n_todo] = k
                    n_todo += 1
                    prev = k
                else:
                    if prev < 0:
                        l_head[qb] = nx
                    else:
                        i_next[prev] = nx
                    if l_tail[qb] == k:
                        l_tail[qb] = prev
                k = nx
        seq = 0
        while True:  # growth loop
            grow = False
            need = 0
            while True:  # visit loop: rebinds no array
                from_list = False
                if seq < B or route == 1:
                    k = seq
                elif seq < B + n_todo:
                    k = todo[seq - B]
                    from_list = True
                else:
                    k = n_start + (seq - B - n_todo)
                if k >= n_inst:
                    break
                seq += 1
                if not i_alive[k] or (k >= B and i_min[k] < front):
                    continue
                b = i_br[k]
                m = br_len[b]
                mask = i_mask[k]
                if route == 0:
                    u = br_order[b, i_depth[k]]
                    if from_list and i_cov[k, u] < p:
                        i_cov[k, u] = p
                    if var_type[u] != t and i_cov[k, u] >= p:
                        if i_cov[k, u] < p + 1:
                            i_cov[k, u] = p + 1
                        continue
                elif i_open[k] >= 0:
                    u = i_open[k]  # the self-loop of an open Kleene instance: no decision
                else:
                    sk = i_st[k]
                    if st_at[sk] != p:
                        st_at[sk] = p
                        cnt[p, _ROUTING_CHECK] += 1
                        n_route += 1
                        ok = True
                        best = -1
                        bestc = 0
                        for j in range(m):
                            v = br_vars[b, j]
                            if (mask >> v) & 1:
                                continue
                            qv = var_buf[v]
                            c = btail[qv] - bhead[qv]
                            if c <= 0:
                                ok = False
                                break
                            if best < 0 or c < bestc:
                                best = v
                                bestc = c
                        if ok:
                            cur = st_cur[sk]
                            if cur >= 0:
                                qv = var_buf[cur]
                                if btail[qv] - bhead[qv] == bestc:
                                    best = cur
                            st_cur[sk] = best
                        else:
                            best = -1
                        st_best[sk] = best
                    best = st_best[sk]
                    if best < 0:
                        continue
                    cur = i_cur[k]
                    if cur != best:
                        if cur >= 0:
                            cnt[p, _PLAN_GEN] += 1
                        i_cur[k] = best
                    u = best
                su = br_slot[b, u]
                lo = -1
                hi = p
                bounded = False
                for j in range(m):
                    v = br_vars[b, j]
                    if (mask >> v) & 1:
                        if j < su:
                            # the last event of a preceding variable (a Kleene list's last node)
                            lv = nev[i_kt[k, v]] if (var_kle[v] and i_kt[k, v] >= 0) \
                                else i_ev[k, v]
                            if lv > lo:
                                lo = lv
                        elif j > su:
                            if i_ev[k, v] - 1 < hi:
                                hi = i_ev[k, v] - 1
                                bounded = True
                kle = var_kle[u] != 0
                if kle and i_kt[k, u] >= 0 and nev[i_kt[k, u]] > lo:
                    lo = nev[i_kt[k, u]]  # an open list grows after its last event
                start = lo + 1
                if i_cov[k, u] > start:
                    start = i_cov[k, u]
                qu = var_buf[u]
                if start <= hi:
                    if start >= p:
                        if t == var_type[u]:
                            a = btail[qu] - 1
                            z = btail[qu]
                        else:
                            a = 0
                            z = 0
                    else:
                        a = _lb_row(buf, qu, bhead[qu], btail[qu], start)
                        z = _lb_row(buf, qu, a, btail[qu], hi + 1)
                    need = (2 if kle else 1) * (z - a)
                    if need > 0 and (n_inst + need > icap or n_m + need > mcap
                                     or n_nodes + need > ncap
                                     or (route == 1 and n_st + need > scap)):
                        seq -= 1
                        grow = True
                        break
                    for bi in range(a, z):
                        x = buf[qu, bi]
                        cnt[p, _EDGE_EVAL] += 1
                        mn = x if (k < B or x < i_min[k]) else i_min[k]
                        mx = x if (k < B or x > i_max[k]) else i_max[k]
                        if win_kind == 1:
                            if mx - mn >= window:
                                continue
                        elif ts[mx] - ts[mn] > window:
                            continue
                        good = True
                        for jp in range(br_npred[b]):
                            pr = br_preds[b, jp]
                            v1 = pred_i[pr, 2]
                            v2 = pred_i[pr, 4]
                            if v2 < 0:
                                v2 = v1
                            if v1 != u and v2 != u:
                                continue
                            if v1 != u and not ((mask >> v1) & 1):
                                continue
                            if v2 != u and not ((mask >> v2) & 1):
                                continue
                            ok, ne = pred_on_row(pred_i, pred_f, attrs, pr, u, x, i_ev, i_kt, k,
                                                 var_kle, nev, npar)
                            cnt[p, _PRED_EVAL] += ne
                            if not ok:
                                good = False
                                break
                        if not good:
                            continue
                        # the candidate's binding: row c (scratch until committed)
                        c = n_inst
                        for j in range(m):
                            v = br_vars[b, j]
                            i_ev[c, v] = i_ev[k, v]
                            i_kt[c, v] = i_kt[k, v]
                            i_cov[c, v] = i_cov[k, v]
                        node = -1
                        if kle:
                            node = n_nodes
                            n_nodes += 1
                            nev[node] = x
                            npar[node] = i_kt[k, u]
                            i_kt[c, u] = node
                            if i_kt[k, u] < 0:
                                i_ev[c, u] = x
                        else:
                            i_ev[c, u] = x
                        cm = mask | (np.int64(1) << u)
                        # negations that the closed binding makes decidable (module docstring)
                        killed = False
                        for j in range(br_nneg[b]):
                            nk = ng_kind[b, j]
                            if nk == NEG_END:
                                continue
                            nd = ng_need[b, j]
                            if (nd & cm) != nd or (nd & mask) == nd:
                                continue
                            if nk == NEG_START:
                                lo_ex = np.int64(-1)
                                hi_ex = mn
                            else:
                                lv = ng_lvar[b, j]
                                rv = ng_rvar[b, j]
                                lo_ex = nev[i_kt[c, lv]] if var_kle[lv] else i_ev[c, lv]
                                hi_ex = i_ev[c, rv]
                            qn = ng_buf[b, j]
                            kd, ne, npe = neg_check(pred_i, pred_f, attrs, buf, qn, bhead[qn],
                                                    btail[qn], lo_ex, hi_ex, ng_var[b, j],
                                                    ng_preds, b, j, ng_npred[b, j], i_ev, i_kt,
                                                    c, var_kle, nev, npar)
                            cnt[p, _EDGE_EVAL] += ne
                            cnt[p, _PRED_EVAL] += npe
                            if kd:
                                killed = True
                                break
                        if not killed:
                            cnt[p, _PM_CREATED] += 1
                            if i_depth[k] + 1 == m:
                                if n_m - n_dead >= max_matches:
                                    return cnt, m_ev[:0].copy(), m_ev[:0].copy(), \
                                        m_ev[:0].copy(), m_det[:0].copy(), m_det[:0].copy(), \
                                        peak_transient, n_route, ST_MAX_MATCHES, p
                                for v in range(V):
                                    m_ev[n_m, v] = -1
                                    m_kt[n_m, v] = -1
                                for j in range(m):
                                    v = br_vars[b, j]
                                    m_ev[n_m, v] = i_ev[c, v]
                                    m_kt[n_m, v] = i_kt[c, v]
                                m_first[n_m] = mn
                                m_br[n_m] = b
                                m_dead[n_m] = False
                                cnt[p, _PM_REMOVED] += 1
                                if br_trail[b]:
                                    m_det[n_m] = -1
                                    pend[n_pend] = n_m
                                    n_pend += 1
                                else:
                                    m_det[n_m] = p
                                    cnt[p, _MATCH_EMIT] += 1
                                n_m += 1
                            else:
                                if live >= max_pm:
                                    return cnt, m_ev[:0].copy(), m_ev[:0].copy(), \
                                        m_ev[:0].copy(), m_det[:0].copy(), m_det[:0].copy(), \
                                        peak_transient, n_route, ST_MAX_PM, p
                                n_inst += 1
                                i_mask[c] = cm
                                i_br[c] = b
                                i_depth[c] = i_depth[k] + 1
                                i_cur[c] = -1
                                i_open[c] = -1
                                if route == 1:
                                    sc = -1
                                    for r in range(n_st):
                                        if st_mask[r] == cm and st_b[r] == b:
                                            sc = r
                                            break
                                    if sc < 0:
                                        sc = n_st
                                        n_st += 1
                                        st_b[sc] = b
                                        st_mask[sc] = cm
                                        st_cur[sc] = -1
                                        st_at[sc] = -1
                                    i_st[c] = sc
                                i_min[c] = mn
                                i_max[c] = mx
                                i_alive[c] = True
                                min_cnt[mn] += 1
                                live += 1
                                if live > peak_transient:
                                    peak_transient = live
                        if kle and (bi + 1 < z or not bounded):
                            # the open child: the same list, extendable (the self-loop)
                            if live >= max_pm:
                                return cnt, m_ev[:0].copy(), m_ev[:0].copy(), \
                                    m_ev[:0].copy(), m_det[:0].copy(), m_det[:0].copy(), \
                                    peak_transient, n_route, ST_MAX_PM, p
                            c = n_inst
                            n_inst += 1
                            for j in range(m):
                                v = br_vars[b, j]
                                i_ev[c, v] = i_ev[k, v]
                                i_kt[c, v] = i_kt[k, v]
                                i_cov[c, v] = i_cov[k, v]
                            i_kt[c, u] = node
                            if i_kt[k, u] < 0:
                                i_ev[c, u] = x
                            cnt[p, _PM_CREATED] += 1
                            i_mask[c] = mask
                            i_br[c] = b
                            i_depth[c] = i_depth[k]
                            i_cur[c] = u
                            i_open[c] = u
                            i_st[c] = i_st[k]
                            i_min[c] = mn
                            i_max[c] = mx
                            i_alive[c] = True
                            min_cnt[mn] += 1
                            live += 1
                            if live > peak_transient:
                                peak_transient = live
                if i_cov[k, u] < p + 1:
                    i_cov[k, u] = p + 1
                if bounded and k >= B:
                    i_alive[k] = False
                    min_cnt[i_min[k]] -= 1
                    live -= 1
                    cnt[p, _PM_REMOVED] += 1
            if not grow:
                break
            if n_inst + need > icap:
                icap = max(2 * icap, n_inst + need)
                i_ev = grow_rows(i_ev, icap)
                i_kt = grow_rows(i_kt, icap)
                i_cov = grow_rows(i_cov, icap)
                i_mask = grow_1d(i_mask, icap)
                i_br = grow_1d(i_br, icap)
                i_depth = grow_1d(i_depth, icap)
                i_cur = grow_1d(i_cur, icap)
                i_open = grow_1d(i_open, icap)
                i_st = grow_1d(i_st, icap)
                i_min = grow_1d(i_min, icap)
                i_max = grow_1d(i_max, icap)
                i_alive = grow_1d(i_alive, icap)
                i_next = grow_1d(i_next, icap)
            if n_m + need > mcap:
                mcap = max(2 * mcap, n_m + need)
                m_ev = grow_rows(m_ev, mcap)
                m_kt = grow_rows(m_kt, mcap)
                m_det = grow_1d(m_det, mcap)
                m_first = grow_1d(m_first, mcap)
                m_br = grow_1d(m_br, mcap)
                m_dead = grow_1d(m_dead, mcap)
                pend = grow_1d(pend, mcap)
            if n_nodes + need > ncap:
                ncap = max(2 * ncap, n_nodes + need)
                nev = grow_1d(nev, ncap)
                npar = grow_1d(npar, ncap)
            if route == 1 and n_st + need > scap:
                scap = max(2 * scap, n_st + need)
                st_b = grow_1d(st_b, scap)
                st_mask = grow_1d(st_mask, scap)
                st_cur = grow_1d(st_cur, scap)
                st_at = grow_1d(st_at, scap)
                st_best = grow_1d(st_best, scap)
        cnt[p, _INSTANCE_WORK] += B + live_start + (n_inst - n_start)
        if qb >= 0 and not buf_stored[qb]:
            btail[qb] -= 1
        enlist_from = n_start
        if n_inst - B - live > live:
            w = B
            for r in range(B, n_inst):
                if i_alive[r] and i_min[r] >= front:
                    if w != r:
                        i_ev[w] = i_ev[r]
                        i_kt[w] = i_kt[r]
                        i_cov[w] = i_cov[r]
                        i_mask[w] = i_mask[r]
                        i_br[w] = i_br[r]
                        i_depth[w] = i_depth[r]
                        i_cur[w] = i_cur[r]
                        i_open[w] = i_open[r]
                        i_st[w] = i_st[r]
                        i_min[w] = i_min[r]
                        i_max[w] = i_max[r]
                        i_alive[w] = True
                    w += 1
            for r in range(w, n_inst):
                i_alive[r] = False
            n_inst = w
            if route == 0:
                for q in range(l_head.shape[0]):
                    l_head[q] = -1
                    l_tail[q] = -1
                enlist_from = B
        if route == 0:
            for c in range(enlist_from, n_inst):
                if i_alive[c]:
                    q = var_buf[br_order[i_br[c], i_depth[c]]]
                    i_next[c] = -1
                    if l_tail[q] < 0:
                        l_head[q] = c
                    else:
                        i_next[l_tail[q]] = c
                    l_tail[q] = c
        cnt[p, _LIVE_PM] = live
        tot = 0
        for q in range(n_buf):
            if buf_stored[q]:
                tot += btail[q] - bhead[q]
        cnt[p, _BUFFERED] = tot
    # end of stream: the pending matches are final
    for r0 in range(n_pend):
        r = pend[r0]
        m_det[r] = n
        cnt[max(n - 1, 0), _MATCH_EMIT] += 1
    # output: the surviving matches, Kleene lists flattened in stream order
    n_out = 0
    n_kev = 0
    for r in range(n_m):
        if m_dead[r]:
            continue
        n_out += 1
        for v in range(V):
            nd = m_kt[r, v]
            while nd >= 0:
                n_kev += 1
                nd = npar[nd]
    o_ev = np.full((n_out, V), -1, dtype=np.int64)
    o_ks = np.zeros((n_out, V), dtype=np.int64)
    o_kn = np.zeros((n_out, V), dtype=np.int64)
    o_kev = np.zeros(n_kev, dtype=np.int64)
    o_det = np.zeros(n_out, dtype=np.int64)
    w = 0
    kw = 0
    for r in range(n_m):
        if m_dead[r]:
            continue
        o_det[w] = m_det[r]
        for v in range(V):
            o_ev[w, v] = m_ev[r, v]
            nd = m_kt[r, v]
            if nd >= 0:
                L = 0
                x = nd
                while x >= 0:
                    L += 1
                    x = npar[x]
                o_ks[w, v] = kw
                o_kn[w, v] = L
                x = nd
                for i in range(L - 1, -1, -1):
                    o_kev[kw + i] = nev[x]
                    x = npar[x]
                kw += L
        w += 1
    return cnt, o_ev, o_ks, o_kn, o_kev, o_det, peak_transient, n_route, ST_OK, -1


# ----------------------------------------------------------------------------- tables
NEGATION_AT = ("bound", "match")


def neg_tables(program: Program, branches, var_buf: np.ndarray, type_ids: dict[int, int],
               negation_at: str = "bound"):
    """Per-branch negation tables of ``lazy_nk_kernel``: (br_nneg, ng_var, ng_kind, ng_lvar,
    ng_rvar, ng_need, ng_buf, ng_preds, ng_npred, br_trail).  Negated variables that a start or
    middle NOT reads from an input buffer get a buffer id in ``var_buf`` / ``type_ids`` (in
    place).  ``negation_at``: where a middle NOT is checked -- "bound" (on the take edge after
    which its neighbours and its predicates' variables are bound) or "match" (when the match
    completes, as OpenCEP's default negation algorithm puts the negation above the whole
    positive plan: plan/negation/NaiveNegationAlgorithm.py lines 14-42, misc/DefaultConfig.py
    line 65; PVLDB'18 section 4, "post-processing steps on the generated plan (e.g., to augment
    it with negated events)")."""
    if negation_at not in NEGATION_AT:
        raise CepsimInputError(f"negation_at must be one of {NEGATION_AT}, got {negation_at!r}")
    B = len(branches)
    K = max(1, max(len(br.neg_vars) for br in branches))
    P = max(1, max(len(br.pred_ids) for br in branches))
    br_nneg = np.zeros(B, np.int64)
    ng_var = np.full((B, K), -1, np.int64)
    ng_kind = np.zeros((B, K), np.int64)
    ng_lvar = np.full((B, K), -1, np.int64)
    ng_rvar = np.full((B, K), -1, np.int64)
    ng_need = np.zeros((B, K), np.int64)
    ng_buf = np.full((B, K), -1, np.int64)
    ng_preds = np.zeros((B, K, P), np.int64)
    ng_npred = np.zeros((B, K), np.int64)
    br_trail = np.zeros(B, np.bool_)
    kinds = program.var_kind
    for b, br in enumerate(branches):
        pos = [int(v) for v in br.pos_vars]
        m = len(pos)
        full = 0
        for v in pos:
            full |= 1 << v
        br_nneg[b] = len(br.neg_vars)
        for j, (nv, left, right) in enumerate(zip(br.neg_vars, br.neg_left, br.neg_right)):
            nv, left, right = int(nv), int(left), int(right)
            ng_var[b, j] = nv
            preds = []
            need = 0
            for pr in (int(x) for x in br.pred_ids):
                pv = program.pred_vars(pr)
                if nv not in pv:
                    continue
                if any(kinds[w] == KIND_NEG and w != nv for w in pv):
                    continue        # between two negated variables: left out (eager's reading)
                preds.append(pr)
                for w in pv:
                    if w != nv:
                        need |= 1 << w
            ng_preds[b, j, :len(preds)] = preds
            ng_npred[b, j] = len(preds)
            if right >= m:
                ng_kind[b, j] = NEG_END
                br_trail[b] = True
                ng_need[b, j] = full
                continue
            if left < 0:
                ng_kind[b, j] = NEG_START
                ng_need[b, j] = full
            else:
                ng_kind[b, j] = NEG_MIDDLE
                ng_lvar[b, j] = pos[left]
                ng_rvar[b, j] = pos[right]
                ng_need[b, j] = (need | (1 << pos[left]) | (1 << pos[right])
                                 if negation_at == "bound" else full)
            if var_buf[nv] < 0:
                var_buf[nv] = type_ids.setdefault(int(program.var_type[nv]), len(type_ids))
            ng_buf[b, j] = var_buf[nv]
    return (br_nneg, ng_var, ng_kind, ng_lvar, ng_rvar, ng_need, ng_buf, ng_preds, ng_npred,
            br_trail)


def has_neg_or_kleene(program: Program) -> bool:
    """True when ``program`` has a negated or a Kleene variable (``lazy_nk_kernel`` runs it)."""
    return bool(np.any(program.var_kind == KIND_NEG) or np.any(program.var_kind == KIND_KLEENE))

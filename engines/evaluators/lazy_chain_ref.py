"""The lazy NFA kernel as it stands before the chain kernel of ``engines.evaluators.lazy_chain``:
a frozen copy of ``engines.evaluators.lazy_nfa``'s plain kernel (chain and tree routing in one
loop, the predicate table interpreted per candidate through ``eval_pred``, scope recomputed per
visit over every variable of the branch, counters incremented in the per-event matrix).

Used only by ``tests/test_lazy_chain_fast_equal.py`` and ``benchmarks/bench_kernel_floor.py``
(section ``chain``), which run it beside the engine's chain kernel and compare every output
exactly (counter matrix, match rows, detection positions, peak, routing checks, status).  Do not
edit it to follow the engine: it is the reference the engine's kernel is held to.  Same
arguments and outputs as the engine's ``_lazy_kernel`` (``engines.evaluators.lazy_nfa``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.leaf_jit import leaf_njit
from engines.predicates import eval_pred

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
def _lower_bound_row(arr, row, lo, hi, x):
    """``lower_bound`` of ``arr[row]``, taking the row index: a row view would cost its caller
    a reference-count increment and decrement per call."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[row, mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def lazy_kernel_ref(types, ts, attrs, pred_i, pred_f, var_type, var_buf, buf_stored, n_buf,
                    br_vars, br_len, br_slot, br_preds, br_npred, br_order, route, win_kind,
                    window, max_pm, max_matches):
    """Returns (counters, match events, detection positions, peak transient instances, routing
    checks, status, event): status ST_MAX_PM / ST_MAX_MATCHES when a cap stopped the run at
    ``event`` (the outputs are then partial and must not be used)."""
    n = types.shape[0]
    V = var_type.shape[0]
    B = br_vars.shape[0]
    cnt = np.zeros((max(n, 1), _NC), dtype=np.int64)

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

    # ---- instances (structure of arrays); the first B are the roots (empty partial matches)
    icap = max(64, 2 * B)
    i_ev = np.full((icap, V), -1, dtype=np.int64)
    i_cov = np.zeros((icap, V), dtype=np.int64)
    i_mask = np.zeros(icap, dtype=np.int64)
    i_br = np.zeros(icap, dtype=np.int64)
    i_depth = np.zeros(icap, dtype=np.int64)
    i_cur = np.full(icap, -1, dtype=np.int64)
    i_st = np.zeros(icap, dtype=np.int64)   # tree: index of the instance's state
    i_min = np.zeros(icap, dtype=np.int64)
    i_max = np.zeros(icap, dtype=np.int64)
    i_alive = np.zeros(icap, dtype=np.bool_)
    i_next = np.full(icap, -1, dtype=np.int64)  # chain: next instance waiting for the same type
    n_inst = B
    # Expiry without a pass over the instances: an instance expires with its earliest event, and
    # the expired events form a prefix of the stream (timestamps are non-decreasing), so it is
    # dead once i_min < front; min_cnt[e] = live non-root instances whose earliest event is e.
    min_cnt = np.zeros(max(n, 1), dtype=np.int64)
    front = 0
    # Chain routing: an instance waits for one variable (hence one type) for its whole life, and
    # after its first visit it is "caught up" (coverage = the current position) until an event of
    # that type arrives.  Offering it other events only moves its coverage frontier, so it sits in
    # a linked list per input buffer (ascending index = visiting order) and is visited only for
    # its type; its coverage is brought up to the current position when it is visited.
    l_head = np.full(max(n_buf, 1), -1, dtype=np.int64)
    l_tail = np.full(max(n_buf, 1), -1, dtype=np.int64)
    todo = np.zeros(icap, dtype=np.int64)
    # tree states (lazily instantiated, section 6.1), keyed by (branch, taken-variable set): the
    # routing decision is made once per state and event, all of the state's instances follow it
    scap = max(8, 2 * B)
    st_b = np.zeros(scap, dtype=np.int64)
    st_mask = np.zeros(scap, dtype=np.int64)
    st_cur = np.full(scap, -1, dtype=np.int64)    # the state's current choice (ties keep it)
    st_at = np.full(scap, -1, dtype=np.int64)     # event of the last decision
    st_best = np.full(scap, -1, dtype=np.int64)   # that decision (-1: p_ne failed)
    n_st = B
    for b in range(B):
        i_br[b] = b
        i_alive[b] = True
        i_min[b] = -1
        i_st[b] = b
        st_b[b] = b
    live = 0  # non-root live instances
    peak_transient = 0  # most live instances at any moment, also inside an event
    n_route = 0  # tree routing decisions (the ROUTING_CHECK column's total)

    # ---- matches
    mcap = 64
    m_ev = np.full((mcap, V), -1, dtype=np.int64)
    m_det = np.zeros(mcap, dtype=np.int64)
    n_m = 0

    for p in range(n):
        now = ts[p]
        t = types[p]
        # -- expire buffered events
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
        # -- expire instances (those whose earliest event leaves the window)
        while front < p:
            dead = (p - front >= window) if win_kind == 1 else (now - ts[front] > window)
            if not dead:
                break
            c0 = min_cnt[front]
            if c0 > 0:
                live -= c0
                cnt[p, _PM_REMOVED] += c0
            front += 1
        # -- store the event (temporarily when its type is not a buffered one)
        qb = type_to_buf[t] if t < type_to_buf.shape[0] else -1
        if qb >= 0:
            if btail[qb] == buf.shape[1]:
                # compact every buffer to the front; double only when still over half full
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
        # -- run the live instances: the roots, then (tree) every other instance or (chain) the
        # caught-up instances waiting for this event's type, then the children created while
        # this event is processed (they run at this event too).  Every live instance is offered
        # the event (INSTANCE_WORK, charged in bulk below); a chain instance that is not visited
        # would only have moved its coverage frontier.
        n_start = n_inst
        live_start = live
        n_todo = 0
        if route == 0 and qb >= 0:
            if todo.shape[0] < n_inst:  # a list holds at most every instance
                todo = np.empty(2 * n_inst, dtype=np.int64)
            prev = -1
            k = l_head[qb]
            while k >= 0:
                nx = i_next[k]
                if i_alive[k] and i_min[k] >= front:
                    todo[n_todo] = k
                    n_todo += 1
                    prev = k
                else:  # dead: unlink
                    if prev < 0:
                        l_head[qb] = nx
                    else:
                        i_next[prev] = nx
                    if l_tail[qb] == k:
                        l_tail[qb] = prev
                k = nx
        seq = 0  # position in the visiting order
        while True:  # growth loop: the only place where the instance, match and state arrays rebind
            grow = False
            need = 0
            while True:  # visit loop: rebinds no array (module docstring, "Speed")
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
                # routing: which missing variable does this instance take next?
                if route == 0:
                    u = br_order[b, i_depth[k]]
                    if from_list and i_cov[k, u] < p:
                        i_cov[k, u] = p  # caught up through the events it was not offered
                    if var_type[u] != t and i_cov[k, u] >= p:
                        # waiting for a u event and everything before this one is covered
                        if i_cov[k, u] < p + 1:
                            i_cov[k, u] = p + 1
                        continue
                else:
                    sk = i_st[k]
                    if st_at[sk] != p:
                        # the state's routing decision for this event (p_ne, p_se; section 6).
                        # It is part of offering the event, which INSTANCE_WORK charges for every
                        # instance as the chain's store decision, so it is no EDGE_EVAL (section 7
                        # counts take-edge validations); ROUTING_CHECK records it at cost 0
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
                # scope of take(u): positions (lo, hi]; hi = p means "finish" (stream too)
                su = br_slot[b, u]
                lo = -1
                hi = p
                bounded = False
                for j in range(m):
                    v = br_vars[b, j]
                    if (mask >> v) & 1:
                        if j < su:
                            if i_ev[k, v] > lo:
                                lo = i_ev[k, v]
                        elif j > su:
                            if i_ev[k, v] - 1 < hi:
                                hi = i_ev[k, v] - 1
                                bounded = True
                start = lo + 1
                if i_cov[k, u] > start:
                    start = i_cov[k, u]
                qu = var_buf[u]
                if start <= hi:
                    if start >= p:
                        # only the current event can be new: skip the search when its type differs
                        if t == var_type[u]:
                            a = btail[qu] - 1
                            z = btail[qu]
                        else:
                            a = 0
                            z = 0
                    else:
                        a = _lower_bound_row(buf, qu, bhead[qu], btail[qu], start)
                        z = _lower_bound_row(buf, qu, a, btail[qu], hi + 1)
                    need = z - a  # each candidate makes at most one child or match (or state)
                    if need > 0 and (n_inst + need > icap or n_m + need > mcap
                                     or (route == 1 and n_st + need > scap)):
                        seq -= 1  # visit k again after the growth: what ran so far is idempotent
                        grow = True
                        break
                    for bi in range(a, z):
                        x = buf[qu, bi]
                        cnt[p, _EDGE_EVAL] += 1
                        # window over the instance plus x
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
                            e1 = x if v1 == u else i_ev[k, v1]
                            e2 = x if v2 == u else i_ev[k, v2]
                            cnt[p, _PRED_EVAL] += 1
                            if not eval_pred(pred_i, pred_f, pr, attrs, e1, e2):
                                good = False
                                break
                        if not good:
                            continue
                        cnt[p, _PM_CREATED] += 1
                        if i_depth[k] + 1 == m:
                            if n_m >= max_matches:
                                return cnt, m_ev[:0].copy(), m_det[:0].copy(), peak_transient, \
                                    n_route, ST_MAX_MATCHES, p
                            for v in range(V):
                                m_ev[n_m, v] = -1
                            for j in range(m):
                                v = br_vars[b, j]
                                m_ev[n_m, v] = i_ev[k, v]
                            m_ev[n_m, u] = x
                            m_det[n_m] = p
                            n_m += 1
                            cnt[p, _MATCH_EMIT] += 1
                            cnt[p, _PM_REMOVED] += 1
                            continue
                        if live >= max_pm:
                            return cnt, m_ev[:0].copy(), m_det[:0].copy(), peak_transient, \
                                n_route, ST_MAX_PM, p
                        c = n_inst
                        n_inst += 1
                        # only the branch's columns are ever read (the others may be stale)
                        for j in range(m):
                            v = br_vars[b, j]
                            i_ev[c, v] = i_ev[k, v]
                            i_cov[c, v] = i_cov[k, v]
                        i_ev[c, u] = x
                        i_mask[c] = mask | (np.int64(1) << u)
                        i_br[c] = b
                        i_depth[c] = i_depth[k] + 1
                        i_cur[c] = -1
                        if route == 1:
                            # the child's state: (b, taken set), instantiated on first use
                            cm = i_mask[c]
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
                # coverage: everything up to the current event has been handed out
                if i_cov[k, u] < p + 1:
                    i_cov[k, u] = p + 1
                if bounded and k >= B:
                    i_alive[k] = False
                    min_cnt[i_min[k]] -= 1
                    live -= 1
                    cnt[p, _PM_REMOVED] += 1
            if not grow:
                break
            # room for ``need`` more instances, matches and tree states; every row written later
            if n_inst + need > icap:
                icap = max(2 * icap, n_inst + need)
                i_ev = grow_rows(i_ev, icap)
                i_cov = grow_rows(i_cov, icap)
                i_mask = grow_1d(i_mask, icap)
                i_br = grow_1d(i_br, icap)
                i_depth = grow_1d(i_depth, icap)
                i_cur = grow_1d(i_cur, icap)
                i_st = grow_1d(i_st, icap)
                i_min = grow_1d(i_min, icap)
                i_max = grow_1d(i_max, icap)
                i_alive = grow_1d(i_alive, icap)
                i_next = grow_1d(i_next, icap)
            if n_m + need > mcap:
                mcap = max(2 * mcap, n_m + need)
                m_ev = grow_rows(m_ev, mcap)
                m_det = grow_1d(m_det, mcap)
            if route == 1 and n_st + need > scap:
                scap = max(2 * scap, n_st + need)
                st_b = grow_1d(st_b, scap)
                st_mask = grow_1d(st_mask, scap)
                st_cur = grow_1d(st_cur, scap)
                st_at = grow_1d(st_at, scap)
                st_best = grow_1d(st_best, scap)
        cnt[p, _INSTANCE_WORK] += B + live_start + (n_inst - n_start)
        # -- unstored types leave the buffer again (chain: the first variable's events)
        if qb >= 0 and not buf_stored[qb]:
            btail[qb] -= 1
        # -- compaction of dead instances
        enlist_from = n_start  # chain: the surviving children join their type's list
        if n_inst - B - live > live:  # amortised O(1) per instance created
            w = B
            for r in range(B, n_inst):
                if i_alive[r] and i_min[r] >= front:
                    if w != r:
                        i_ev[w] = i_ev[r]
                        i_cov[w] = i_cov[r]
                        i_mask[w] = i_mask[r]
                        i_br[w] = i_br[r]
                        i_depth[w] = i_depth[r]
                        i_cur[w] = i_cur[r]
                        i_st[w] = i_st[r]
                        i_min[w] = i_min[r]
                        i_max[w] = i_max[r]
                        i_alive[w] = True
                    w += 1
            for r in range(w, n_inst):
                i_alive[r] = False
            n_inst = w
            if route == 0:  # rows moved: rebuild the lists in index order
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
    return cnt, m_ev[:n_m].copy(), m_det[:n_m].copy(), peak_transient, n_route, ST_OK, -1

"""The reference ZStream kernel: the tree-plan evaluator's event loop evaluating each probe by
interpretation (the full binding row merged per probe, the order-constraint table and
``eval_pred`` per predicate), kept as the reference (unchanged but for the probe trace below)
so that the compiled probe loop of ``engines.evaluators.ztree`` is checked against it output
for output (``tests/test_ztree_fast_equal.py``) and timed beside it
(``benchmarks/bench_kernel_floor.py``).

``ztree_kernel_ref`` takes the arguments of ``engines.evaluators.ztree``'s kernel but the probe
tables, plus one: ``trace``, an int64 array ``(m, 2)`` (``m = 0``: off).  Every scan of stored
results by a new result that fits in the rows left is written to it (the input of the
evaluation-only replay of the benchmark): a header ``(-1, T)`` (the window end), ``(code,
event)`` (the node's first predicate ``p`` as ``2 p + 1`` when the new result binds its first
variable, ``2 p`` when it binds the second, -1 when the node has no predicate over two plain
variables; the new result's event of it), then one row per probe, ``(first event of the stored
result, its event of the predicate)``; the count of written rows is returned last.  Tracing only
writes to ``trace``; every other output is the same with or without it.  Not used by any engine.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.predicates import eval_pred
from engines.evaluators.ztree_tables import SPLIT_GEN
from engines.evaluators.ztree_helpers import (lower_count, neg_bounds, node_killed,  # noqa: F401
                                              pred_holds, span_ok, v_first, v_last)

__all__ = ["ztree_kernel_ref"]

ST_SPACE_R, ST_SPACE_K, ST_SPACE_P, ST_SPACE_M = 4, 5, 6, 7
_PE, _PMC, _PMR, _BI, _ME = C.PRED_EVAL, C.PM_CREATED, C.PM_REMOVED, C.BUF_INSERT, C.MATCH_EMIT
_JP, _LIVE, _BUF, _SC = C.JOIN_PROBE, C.LIVE_PM, C.BUFFERED, C.SEARCH_CMP


@leaf_njit
def _compact(k, R_bind, R_first, R_last, noff, nhead, nsize, nmark, nprop, ts, T,
             wkind, W):
    """Drop node ``k``'s dead head and the results whose first event left the window of ``T``;
    order is kept and the new/propagated marks are remapped.  Returns results removed."""
    off = noff[k]
    w = 0
    removed = 0
    mark = nmark[k]
    prop = nprop[k]
    new_mark = -1
    new_prop = -1
    V = R_bind.shape[1]
    for i in range(nhead[k], nsize[k]):
        if i == mark and new_mark < 0:
            new_mark = w
        if i == prop and new_prop < 0:
            new_prop = w
        if span_ok(ts, R_first[off + i], T, wkind, W):
            if w != i:
                for v in range(V):
                    R_bind[off + w, v] = R_bind[off + i, v]
                R_first[off + w] = R_first[off + i]
                R_last[off + w] = R_last[off + i]
            w += 1
        else:
            removed += 1
    if new_mark < 0:
        new_mark = w if mark >= nhead[k] else 0
    if new_prop < 0:
        new_prop = w if prop >= nhead[k] else 0
    nmark[k] = new_mark
    nprop[k] = new_prop
    nsize[k] = w
    nhead[k] = 0
    return removed


@leaf_njit
def _grow(k, R_bind, R_first, R_last, noff, ncap, nsize):
    """Double node ``k``'s capacity inside the arena: the segments of the nodes after ``k`` move
    right by its old capacity (relative indices kept).  Returns False, changing nothing, when
    the arena has no room for it (the caller stops the run; ``run_ztree`` reruns it with a
    larger arena).  Capacities are *logical*: they decide when a buffer is compacted, exactly
    as when the arena was reallocated at every doubling; the arena's size only bounds them."""
    n_nodes = noff.shape[0]
    add = ncap[k]
    total = 0
    for j in range(n_nodes):
        total += ncap[j]
    if total + add > R_first.shape[0]:
        return False
    V = R_bind.shape[1]
    for j in range(n_nodes - 1, k, -1):   # rightmost first, each segment from its end
        src = noff[j]
        dst = src + add
        for i in range(nsize[j] - 1, -1, -1):
            for v in range(V):
                R_bind[dst + i, v] = R_bind[src + i, v]
            R_first[dst + i] = R_first[src + i]
            R_last[dst + i] = R_last[src + i]
        noff[j] = dst
    ncap[k] *= 2
    return True


# ============================================================================= kernel
@njit(cache=True)
def ztree_kernel_ref(types, ts, attrs, pred_i, pred_f, var_kind, wkind, W, trigger,
                  nd_left, nd_right, nd_var, nd_split, nd_trig, nd_alt,
                  np_ptr, np_ids, nn_ptr, nn_ids, nc_ptr, nc_i, nc_j, nc_k,
                  alt_root, ar_ptr, ar_ids, ae_ptr, ae_ids,
                  ng_var, ng_kind, gl_ptr, gl_vars, gr_ptr, gr_vars, gp_ptr, gp_ids,
                  gu_ptr, gu_ids, g_off, tl_ptr, tl_nodes, tn_ptr, tn_ids,
                  init_cap, max_pm, max_matches, max_kleene, cnt,
                  nd_lazy, nd_src1, side_skip, side_hb_ok, side_lb_ok, hb_ptr, hb_x, hb_w,
                  lb_ptr, lb_v, nd_transient, rows_phys, k_phys, p_phys, m_phys, trace):
    """The event loop.  Every growable array is allocated here once, at the size the caller
    passes (``*_phys``), and never reallocated: the loop rebinds no array (``docs/ENGINEERING.md``,
    "Numba hot loops").  A run that needs more stops with ``ST_SPACE_*``."""
    n = types.shape[0]
    V = var_kind.shape[0]
    n_nodes = nd_left.shape[0]
    n_alts = alt_root.shape[0]
    n_negs = ng_var.shape[0]
    status = 0
    # ---- result arena (one segment per node)
    noff = np.empty(n_nodes, dtype=np.int64)
    ncap = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):
        noff[k] = k * init_cap
        ncap[k] = init_cap
    rows = max(rows_phys, n_nodes * init_cap)
    R_bind = np.empty((rows, V), dtype=np.int64)
    R_first = np.empty(rows, dtype=np.int64)
    R_last = np.empty(rows, dtype=np.int64)
    nhead = np.zeros(n_nodes, dtype=np.int64)
    nsize = np.zeros(n_nodes, dtype=np.int64)
    nmark = np.zeros(n_nodes, dtype=np.int64)
    nprop = np.zeros(n_nodes, dtype=np.int64)
    nlive = np.zeros(n_nodes, dtype=np.int64)      # live size after the last compaction
    is_root = np.zeros(n_nodes, dtype=np.int64)
    for a in range(n_alts):
        is_root[alt_root[a]] = 1
    counted = np.zeros(n_nodes, dtype=np.int64)    # 1: results are partial matches (LIVE_PM)
    for k in range(n_nodes):
        if nd_var[k] < 0 or var_kind[nd_var[k]] == 1:
            counted[k] = 1
    # ---- Kleene chains
    kcap = 16   # logical: doubles as needed, checked against max_kleene
    K_ev = np.empty(max(k_phys, kcap), dtype=np.int64)
    K_prev = np.empty(max(k_phys, kcap), dtype=np.int64)
    K_first = np.empty(max(k_phys, kcap), dtype=np.int64)
    kn = 0
    # ---- negation buffers (capacity = events of the type: precomputed offsets)
    G_pos = np.empty(max(g_off[n_negs], 1), dtype=np.int64)
    g_head = np.zeros(n_negs, dtype=np.int64)
    g_size = np.zeros(n_negs, dtype=np.int64)
    # ---- parked matches (trailing NOT)
    P_bind = np.empty((max(p_phys, 1), V), dtype=np.int64)
    P_alt = np.empty(max(p_phys, 1), dtype=np.int64)
    P_first = np.empty(max(p_phys, 1), dtype=np.int64)
    P_last = np.empty(max(p_phys, 1), dtype=np.int64)
    pn = 0
    # ---- output
    M_bind = np.empty((max(m_phys, 1), V), dtype=np.int64)
    M_det = np.empty(max(m_phys, 1), dtype=np.int64)
    mn = 0
    row = np.empty(V, dtype=np.int64)
    n_trace = 0
    trace_cap = trace.shape[0]
    live = 0
    buffered = 0
    peak_live = 0
    any_src1 = False
    for k in range(n_nodes):
        if nd_src1[k] == 1:
            any_src1 = True
    n_tr = 0
    tr_nodes = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):
        if nd_transient[k] == 1:
            tr_nodes[n_tr] = k
            n_tr += 1

    for e in range(n):
        te = types[e]
        # ---------------------------------------------------------------- expiry (heads)
        for k in range(n_nodes):
            off = noff[k]
            h = nhead[k]
            while h < nsize[k] and not span_ok(ts, R_last[off + h], e, wkind, W):
                h += 1
            d = h - nhead[k]
            if d > 0:
                nhead[k] = h
                if nprop[k] < h:
                    nprop[k] = h
                if nmark[k] < h:
                    nmark[k] = h
                if counted[k] == 1:
                    cnt[e, _PMR] += d
                    live -= d
                else:
                    buffered -= d
            if nsize[k] - nhead[k] > 2 * nlive[k] + 16:
                r = _compact(k, R_bind, R_first, R_last, noff, nhead, nsize, nmark, nprop,
                             ts, e, wkind, W)
                nlive[k] = nsize[k]
                if r > 0:
                    if counted[k] == 1:
                        cnt[e, _PMR] += r
                        live -= r
                    else:
                        buffered -= r
        for g in range(n_negs):
            if ng_kind[g] != 2:
                off = g_off[g]
                h = g_head[g]
                while h < g_size[g] and not span_ok(ts, G_pos[off + h], e, wkind, W):
                    h += 1
                buffered -= h - g_head[g]
                g_head[g] = h
        # ---------------------------------------------------------------- negation buffers
        for q in range(tn_ptr[te], tn_ptr[te + 1]):
            g = tn_ids[q]
            ok = True
            for u in range(gu_ptr[g], gu_ptr[g + 1]):
                cnt[e, _PE] += 1
                if not eval_pred(pred_i, pred_f, gu_ids[u], attrs, e, e):
                    ok = False
                    break
            if ok:
                G_pos[g_off[g] + g_size[g]] = e
                g_size[g] += 1
                cnt[e, _BI] += 1
                buffered += 1
        # ---------------------------------------------------------------- parked matches
        if pn > 0:
            w = 0
            for i in range(pn):
                if not span_ok(ts, P_first[i], e, wkind, W):
                    a = P_alt[i]
                    for v in range(V):
                        row[v] = P_bind[i, v]
                    dead = False
                    for q in range(ae_ptr[a], ae_ptr[a + 1]):
                        g = ae_ids[q]
                        if node_killed(g, row, 0, 0, P_first[i], P_last[i], e, 2, G_pos, g_off,
                                       g_head, g_size, gp_ptr, gp_ids, var_kind, K_ev, K_prev,
                                       pred_i, pred_f, attrs, ts, ng_var, wkind, W, cnt, e):
                            dead = True
                            break
                    cnt[e, _PMR] += 1
                    live -= 1
                    if not dead:
                        if mn == M_det.shape[0]:
                            status = ST_SPACE_M
                            break
                        M_bind[mn] = row
                        M_det[mn] = e
                        mn += 1
                        cnt[e, _ME] += 1
                else:
                    if w != i:
                        P_bind[w] = P_bind[i]
                        P_alt[w] = P_alt[i]
                        P_first[w] = P_first[i]
                        P_last[w] = P_last[i]
                    w += 1
            pn = w
            if status != 0:
                break
        # end-NOT buffers: nothing before the oldest parked match's last event is needed
        for g in range(n_negs):
            if ng_kind[g] == 2:
                lim = e
                for i in range(pn):
                    if P_last[i] < lim:
                        lim = P_last[i]
                off = g_off[g]
                h = g_head[g]
                while h < g_size[g] and G_pos[off + h] <= lim and G_pos[off + h] < e:
                    h += 1
                buffered -= h - g_head[g]
                g_head[g] = h
        # ---------------------------------------------------------------- leaves
        fire = trigger == 0
        for q in range(tl_ptr[te], tl_ptr[te + 1]):
            k = tl_nodes[q]
            v = nd_var[k]
            ok = True
            for u in range(np_ptr[k], np_ptr[k + 1]):
                cnt[e, _PE] += 1
                if not eval_pred(pred_i, pred_f, np_ids[u], attrs, e, e):
                    ok = False
                    break
            if not ok:
                continue
            if nd_trig[k] == 1:
                fire = True
            kl = var_kind[v] == 1
            old_lo = nhead[k]
            old_hi = nsize[k]
            need = 1 + (old_hi - old_lo if kl else 0)
            if nsize[k] + need > ncap[k]:
                r = _compact(k, R_bind, R_first, R_last, noff, nhead, nsize, nmark, nprop,
                             ts, e, wkind, W)
                if r > 0:
                    if counted[k] == 1:
                        cnt[e, _PMR] += r
                        live -= r
                    else:
                        buffered -= r
                nlive[k] = nsize[k]
                while nsize[k] + need > ncap[k]:
                    if not _grow(k, R_bind, R_first, R_last, noff, ncap, nsize):
                        status = ST_SPACE_R
                        break
                if status != 0:
                    break
                old_lo = nhead[k]
                old_hi = nsize[k]
            off = noff[k]
            if not kl:
                s = nsize[k]
                for vv in range(V):
                    R_bind[off + s, vv] = -1
                R_bind[off + s, v] = e
                R_first[off + s] = e
                R_last[off + s] = e
                nsize[k] = s + 1
                cnt[e, _BI] += 1
                buffered += 1
                continue
            # Kleene leaf: extend every stored subset still inside the window, then [e]
            cnt[e, _BI] += 1
            if kn + old_hi - old_lo + 1 > kcap:
                while kn + old_hi - old_lo + 1 > kcap:
                    kcap *= 2
                if kcap > max_kleene:
                    status = 3
                    break
            if kn + old_hi - old_lo + 1 > K_ev.shape[0]:
                status = ST_SPACE_K
                break
            for i in range(old_lo, old_hi):
                cnt[e, _JP] += 1
                f = R_first[off + i]
                if not span_ok(ts, f, e, wkind, W):
                    continue
                hprev = R_bind[off + i, v]
                K_ev[kn] = e
                K_prev[kn] = hprev
                K_first[kn] = f
                s = nsize[k]
                for vv in range(V):
                    R_bind[off + s, vv] = -1
                R_bind[off + s, v] = kn
                R_first[off + s] = f
                R_last[off + s] = e
                nsize[k] = s + 1
                kn += 1
                cnt[e, _PMC] += 1
                live += 1
            K_ev[kn] = e
            K_prev[kn] = -1
            K_first[kn] = e
            s = nsize[k]
            for vv in range(V):
                R_bind[off + s, vv] = -1
            R_bind[off + s, v] = kn
            R_first[off + s] = e
            R_last[off + s] = e
            nsize[k] = s + 1
            kn += 1
            cnt[e, _PMC] += 1
            live += 1
        if status != 0:
            break
        if live > max_pm:
            status = 1
            break
        # ---------------------------------------------------------------- joins
        # phase 0: nodes joined on arrival (all of them under push); phase 1: the lazy nodes,
        # at a trigger, replaying the waiting results in stream order
        for phase in range(2):
            if phase == 1 and (not fire or not any_src1):
                break
            T = e
            first_step = True
            while True:
                if phase == 0:
                    if not first_step:
                        break
                    ep = e
                    for k in range(n_nodes):
                        if nd_lazy[k] != 0:
                            continue
                        if nd_var[k] >= 0:
                            nmark[k] = nprop[k]
                            nprop[k] = nsize[k]
                        else:
                            nmark[k] = nsize[k]
                else:
                    # the next event whose results wait for propagation
                    ep = -1
                    for k in range(n_nodes):
                        if nd_src1[k] == 1 and nprop[k] < nsize[k]:
                            x = R_last[noff[k] + nprop[k]]
                            if ep < 0 or x < ep:
                                ep = x
                    if ep < 0:
                        break
                    for k in range(n_nodes):
                        if nd_src1[k] == 1:
                            nmark[k] = nprop[k]
                            off = noff[k]
                            p = nprop[k]
                            while p < nsize[k] and R_last[off + p] == ep:
                                p += 1
                            nprop[k] = p
                        elif nd_var[k] < 0 and nd_lazy[k] == 1:
                            nmark[k] = nsize[k]
                first_step = False
                for k in range(n_nodes):
                    if nd_lazy[k] != phase:
                        continue
                    root = is_root[k] == 1
                    if nd_var[k] >= 0:
                        if not root:
                            continue
                        # a one-variable alternative: its new leaf results are matches
                        lo_k = nmark[k]
                        hi_k = nprop[k]
                        pairs_lo = lo_k
                        pairs_hi = hi_k
                    else:
                        pairs_lo = 0
                        pairs_hi = 0
                    a = nd_alt[k]
                    if nd_var[k] >= 0:
                        # emit leaf results of a single-variable alternative
                        for i in range(pairs_lo, pairs_hi):
                            off = noff[k]
                            if not span_ok(ts, R_first[off + i], T, wkind, W):
                                continue
                            for v in range(V):
                                row[v] = R_bind[off + i, v]
                            first = R_first[off + i]
                            last = R_last[off + i]
                            dead = False
                            for q in range(ar_ptr[a], ar_ptr[a + 1]):
                                g = ar_ids[q]
                                lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr, gr_vars,
                                                         var_kind, K_first, K_ev)
                                if node_killed(g, row, lo_p, hi_p, first, last, T, ng_kind[g],
                                               G_pos, g_off, g_head, g_size, gp_ptr, gp_ids,
                                               var_kind, K_ev, K_prev, pred_i, pred_f, attrs, ts,
                                               ng_var, wkind, W, cnt, e):
                                    dead = True
                                    break
                            if dead:
                                continue
                            if ae_ptr[a + 1] > ae_ptr[a]:
                                if pn == P_alt.shape[0]:
                                    status = ST_SPACE_P
                                    break
                                P_bind[pn] = row
                                P_alt[pn] = a
                                P_first[pn] = first
                                P_last[pn] = last
                                pn += 1
                                live += 1
                                cnt[e, _PMC] += 1
                            else:
                                if mn == M_det.shape[0]:
                                    status = ST_SPACE_M
                                    break
                                M_bind[mn] = row
                                M_det[mn] = ep
                                mn += 1
                                cnt[e, _ME] += 1
                        continue
                    # ---- internal node k: new-left x old-right and old-left x new-right
                    lk = nd_left[k]
                    rk = nd_right[k]
                    split = nd_split[k]
                    l_new_lo = nmark[lk]
                    l_new_hi = nprop[lk] if (nd_var[lk] >= 0 or nd_src1[lk] == 1) else nsize[lk]
                    r_new_lo = nmark[rk]
                    r_new_hi = nprop[rk] if (nd_var[rk] >= 0 or nd_src1[rk] == 1) else nsize[rk]
                    if l_new_hi == l_new_lo and r_new_hi == r_new_lo:
                        continue
                    for side in range(2):
                        # side 0: each new right result against the old left results
                        # side 1: each new left result against the old right results
                        ks = 2 * k + side
                        if side_skip[ks] == 1:
                            continue
                        if side == 0:
                            nk = rk
                            ok_ = lk
                            n_lo = r_new_lo
                            n_hi = r_new_hi
                        else:
                            nk = lk
                            ok_ = rk
                            n_lo = l_new_lo
                            n_hi = l_new_hi
                        o_lo = nhead[ok_]
                        o_hi = nmark[ok_]
                        if n_hi == n_lo or o_hi == o_lo:
                            continue
                        for ni in range(n_lo, n_hi):
                            noffk = noff[nk]
                            nfirst = R_first[noffk + ni]
                            if not span_ok(ts, nfirst, T, wkind, W):
                                continue
                            c_lo = o_lo
                            c_hi = o_hi
                            oo = noff[ok_]
                            if side_hb_ok[ks] == 1:
                                # stored.last < max over stored x of min over new w after x
                                # of first(w) (a SEQ split: stored.last < new.first)
                                hi = -1
                                curx = -1
                                curmin = 1 << 62
                                for q in range(hb_ptr[ks], hb_ptr[ks + 1]):
                                    xv = hb_x[q]
                                    if xv != curx:
                                        if curx >= 0 and curmin > hi:
                                            hi = curmin
                                        curx = xv
                                        curmin = 1 << 62
                                    wv = hb_w[q]
                                    fw = v_first(R_bind[noffk + ni, wv], var_kind[wv] == 1,
                                                 K_first)
                                    if fw < curmin:
                                        curmin = fw
                                if curx >= 0 and curmin > hi:
                                    hi = curmin
                                c_hi = lower_count(R_last, oo + o_lo, oo + o_hi, hi, cnt, e) - oo
                            if side_lb_ok[ks] == 1 and c_hi > c_lo:
                                # a stored plain leaf after every new v before it
                                lo = -1
                                for q in range(lb_ptr[ks], lb_ptr[ks + 1]):
                                    wv = lb_v[q]
                                    lw = v_last(R_bind[noffk + ni, wv], var_kind[wv] == 1, K_ev)
                                    if lw > lo:
                                        lo = lw
                                c_lo = lower_count(R_last, oo + c_lo, oo + c_hi, lo + 1, cnt,
                                                    e) - oo
                            tracing = c_hi > c_lo and n_trace + 2 + c_hi - c_lo <= trace_cap
                            tvar = 0
                            if tracing:
                                # header: the window end, then the node's first predicate (code
                                # 2 p + 1: the new result binds its first variable, 2 p: its
                                # second; -1: none, or not two plain variables) and the new
                                # result's event of it; then per probe (first, stored event)
                                trace[n_trace, 0] = -1
                                trace[n_trace, 1] = T
                                code = -1
                                enew = -1
                                if np_ptr[k + 1] > np_ptr[k]:
                                    pq = np_ids[np_ptr[k]]
                                    v1 = pred_i[pq, 2]
                                    v2 = pred_i[pq, 4]
                                    if v2 >= 0 and var_kind[v1] != 1 and var_kind[v2] != 1:
                                        if R_bind[noff[nk] + ni, v1] >= 0:
                                            code = 2 * pq + 1
                                            enew = R_bind[noff[nk] + ni, v1]
                                            tvar = v2
                                        else:
                                            code = 2 * pq
                                            enew = R_bind[noff[nk] + ni, v2]
                                            tvar = v1
                                trace[n_trace + 1, 0] = code
                                trace[n_trace + 1, 1] = enew
                                n_trace += 2
                            for oi in range(c_lo, c_hi):
                                if status != 0:
                                    break
                                cnt[e, _JP] += 1
                                oo = noff[ok_]
                                ofirst = R_first[oo + oi]
                                if tracing:
                                    trace[n_trace, 0] = ofirst
                                    trace[n_trace, 1] = R_bind[oo + oi, tvar]
                                    n_trace += 1
                                if not span_ok(ts, ofirst, T, wkind, W):
                                    continue
                                noffk = noff[nk]
                                for v in range(V):
                                    x = R_bind[noffk + ni, v]
                                    y = R_bind[oo + oi, v]
                                    row[v] = x if x >= 0 else y
                                good = True
                                if split == SPLIT_GEN:
                                    for q in range(nc_ptr[k], nc_ptr[k + 1]):
                                        vi = nc_i[q]
                                        vj = nc_j[q]
                                        ki = var_kind[vi] == 1
                                        kj = var_kind[vj] == 1
                                        li = v_last(row[vi], ki, K_ev)
                                        fj = v_first(row[vj], kj, K_first)
                                        if nc_k[q] == 0:
                                            if not li < fj:
                                                good = False
                                                break
                                        else:
                                            lj = v_last(row[vj], kj, K_ev)
                                            fi = v_first(row[vi], ki, K_first)
                                            if not (li < fj or lj < fi):
                                                good = False
                                                break
                                if not good:
                                    continue
                                for q in range(np_ptr[k], np_ptr[k + 1]):
                                    pq = np_ids[q]
                                    v1 = pred_i[pq, 2]
                                    v2 = pred_i[pq, 4]
                                    if var_kind[v1] != 1 and var_kind[v2] != 1:
                                        # plain variables (cross predicates have v2 >= 0)
                                        cnt[e, _PE] += 1
                                        if not eval_pred(pred_i, pred_f, pq, attrs, row[v1],
                                                         row[v2]):
                                            good = False
                                            break
                                    elif not pred_holds(pq, row, var_kind, K_ev, K_prev,
                                                         pred_i, pred_f, attrs, -1, -1, cnt, e):
                                        good = False
                                        break
                                if not good:
                                    continue
                                first = nfirst if nfirst < ofirst else ofirst
                                last = ep
                                for q in range(nn_ptr[k], nn_ptr[k + 1]):
                                    g = nn_ids[q]
                                    lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr,
                                                             gr_vars, var_kind, K_first, K_ev)
                                    if node_killed(g, row, lo_p, hi_p, first, last, T, 1, G_pos,
                                                   g_off, g_head, g_size, gp_ptr, gp_ids, var_kind,
                                                   K_ev, K_prev, pred_i, pred_f, attrs, ts, ng_var,
                                                   wkind, W, cnt, e):
                                        good = False
                                        break
                                if not good:
                                    continue
                                if not root:
                                    if nsize[k] == ncap[k]:
                                        r = _compact(k, R_bind, R_first, R_last, noff,
                                                     nhead, nsize, nmark, nprop, ts, T, wkind, W)
                                        if r > 0:
                                            cnt[e, _PMR] += r
                                            live -= r
                                        nlive[k] = nsize[k]
                                        if 2 * nsize[k] > ncap[k]:
                                            if not _grow(k, R_bind, R_first, R_last, noff,
                                                         ncap, nsize):
                                                status = ST_SPACE_R
                                                break
                                    s = noff[k] + nsize[k]
                                    for v in range(V):
                                        R_bind[s, v] = row[v]
                                    R_first[s] = first
                                    R_last[s] = last
                                    nsize[k] += 1
                                    cnt[e, _PMC] += 1
                                    live += 1
                                    if live > max_pm:
                                        status = 1
                                    continue
                                # ---- root: start / root-level NOTs, then emit or park
                                dead = False
                                for q in range(ar_ptr[a], ar_ptr[a + 1]):
                                    g = ar_ids[q]
                                    lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr,
                                                             gr_vars, var_kind, K_first, K_ev)
                                    if node_killed(g, row, lo_p, hi_p, first, last, T, ng_kind[g],
                                                   G_pos, g_off, g_head, g_size, gp_ptr, gp_ids,
                                                   var_kind, K_ev, K_prev, pred_i, pred_f, attrs,
                                                   ts, ng_var, wkind, W, cnt, e):
                                        dead = True
                                        break
                                if dead:
                                    continue
                                if ae_ptr[a + 1] > ae_ptr[a]:
                                    if pn == P_alt.shape[0]:
                                        status = ST_SPACE_P
                                        break
                                    P_bind[pn] = row
                                    P_alt[pn] = a
                                    P_first[pn] = first
                                    P_last[pn] = last
                                    pn += 1
                                    live += 1
                                    cnt[e, _PMC] += 1
                                    if live > max_pm:
                                        status = 1
                                else:
                                    if mn == M_det.shape[0]:
                                        status = ST_SPACE_M
                                        break
                                    M_bind[mn] = row
                                    M_det[mn] = ep
                                    mn += 1
                                    cnt[e, _ME] += 1
                                    if mn > max_matches:
                                        status = 2
                    if status != 0:
                        break
                if status != 0:
                    break
        if status != 0:
            break
        for kk in range(n_tr):
            k = tr_nodes[kk]
            if nhead[k] < nsize[k]:
                buffered -= nsize[k] - nhead[k]
                nhead[k] = nsize[k]
                nprop[k] = nsize[k]
                nmark[k] = nsize[k]
        cnt[e, _LIVE] = live
        cnt[e, _BUF] = buffered
        if live > peak_live:
            peak_live = live
    # ---------------------------------------------------------------- end of stream
    if status == 0 and pn > 0:
        crow = max(n - 1, 0)
        for i in range(pn):
            a = P_alt[i]
            for v in range(V):
                row[v] = P_bind[i, v]
            dead = False
            for q in range(ae_ptr[a], ae_ptr[a + 1]):
                g = ae_ids[q]
                if node_killed(g, row, 0, 0, P_first[i], P_last[i], n, 2, G_pos, g_off, g_head,
                               g_size, gp_ptr, gp_ids, var_kind, K_ev, K_prev, pred_i, pred_f,
                               attrs, ts, ng_var, wkind, W, cnt, crow):
                    dead = True
                    break
            cnt[crow, _PMR] += 1
            if not dead:
                if mn == M_det.shape[0]:
                    status = ST_SPACE_M
                    break
                M_bind[mn] = row
                M_det[mn] = n
                mn += 1
                cnt[crow, _ME] += 1
    return (status, cnt, M_bind[:mn], M_det[:mn], K_ev[:kn], K_prev[:kn], peak_live,
            n_trace)


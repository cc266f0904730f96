"""Helpers of the ZStream tree-plan kernels: window span, a variable's first / last event,
predicate and negation checks over a result's bindings, the counted binary search.  Shared by
the engine's kernel (``engines.evaluators.ztree``) and the interpreting reference kernel
(``engines.evaluators.ztree_ref``), which must evaluate them identically."""
from __future__ import annotations

from numba import njit

from engines import counters as C
from engines.compile import WIN_COUNT
from engines.leaf_jit import leaf_njit
from engines.predicates import eval_pred

_PE, _JP, _SC = C.PRED_EVAL, C.JOIN_PROBE, C.SEARCH_CMP


@njit(cache=True, inline="always")
def span_ok(ts, first, last, wkind, W):
    if wkind == WIN_COUNT:
        return last - first < W
    return ts[last] - ts[first] <= W


@njit(cache=True, inline="always")
def v_first(h, kleene, K_first):
    return K_first[h] if kleene else h


@njit(cache=True, inline="always")
def v_last(h, kleene, K_ev):
    return K_ev[h] if kleene else h


@leaf_njit
def pred_holds(p, row, var_kind, K_ev, K_prev, pred_i, pred_f, attrs, nvar, c, cnt, crow):
    """Predicate ``p`` over the bindings ``row`` (negated variable ``nvar`` bound to event ``c``);
    every event pair for Kleene variables.  Counts evaluations in ``cnt[crow, PRED_EVAL]``."""
    v1 = pred_i[p, 2]
    v2 = pred_i[p, 4]
    if v2 < 0:
        v2 = v1
    k1 = v1 != nvar and var_kind[v1] == 1
    k2 = v2 != nvar and var_kind[v2] == 1
    h1 = c if v1 == nvar else row[v1]
    while True:
        e1 = K_ev[h1] if k1 else h1
        if v2 == v1:
            cnt[crow, _PE] += 1
            if not eval_pred(pred_i, pred_f, p, attrs, e1, e1):
                return False
        else:
            h2 = c if v2 == nvar else row[v2]
            while True:
                e2 = K_ev[h2] if k2 else h2
                cnt[crow, _PE] += 1
                if not eval_pred(pred_i, pred_f, p, attrs, e1, e2):
                    return False
                if not k2:
                    break
                h2 = K_prev[h2]
                if h2 < 0:
                    break
        if not k1:
            break
        h1 = K_prev[h1]
        if h1 < 0:
            break
    return True


@leaf_njit
def lower_count(arr, lo, hi, x, cnt, crow):
    """Index of the first element in ``arr[lo:hi]`` (non-decreasing) that is >= x."""
    while lo < hi:
        mid = (lo + hi) >> 1
        cnt[crow, _SC] += 1
        if arr[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@leaf_njit
def node_killed(g, row, lo_pos, hi_pos, first, last, T, kind, G_pos, g_off, g_head, g_size,
                gp_ptr, gp_ids, var_kind, K_ev, K_prev, pred_i, pred_f, attrs, ts, ng_var,
                wkind, W, cnt, crow):
    """True when a buffered event of negation ``g`` kills the bindings ``row``.
    Middle: candidates strictly between lo_pos and hi_pos.  Start: before ``first`` and inside
    the window of ``last``.  End: after ``last`` and inside the window of ``first``."""
    off = g_off[g]
    lo = off + g_head[g]
    hi = off + g_size[g]
    nvar = ng_var[g]
    if kind == 0:        # start: scan down from the last candidate before first
        k = lower_count(G_pos, lo, hi, first, cnt, crow) - 1
        while k >= lo:
            c = G_pos[k]
            if not span_ok(ts, c, last, wkind, W):
                break
            cnt[crow, _JP] += 1
            ok = True
            for q in range(gp_ptr[g], gp_ptr[g + 1]):
                if not pred_holds(gp_ids[q], row, var_kind, K_ev, K_prev, pred_i, pred_f,
                                   attrs, nvar, c, cnt, crow):
                    ok = False
                    break
            if ok:
                return True
            k -= 1
        return False
    if kind == 1:
        k = lower_count(G_pos, lo, hi, lo_pos + 1, cnt, crow)
        while k < hi:
            c = G_pos[k]
            if c >= hi_pos:
                break
            cnt[crow, _JP] += 1
            ok = True
            for q in range(gp_ptr[g], gp_ptr[g + 1]):
                if not pred_holds(gp_ids[q], row, var_kind, K_ev, K_prev, pred_i, pred_f,
                                   attrs, nvar, c, cnt, crow):
                    ok = False
                    break
            if ok:
                return True
            k += 1
        return False
    k = lower_count(G_pos, lo, hi, last + 1, cnt, crow)
    while k < hi:
        c = G_pos[k]
        if not span_ok(ts, first, c, wkind, W):
            break
        cnt[crow, _JP] += 1
        ok = True
        for q in range(gp_ptr[g], gp_ptr[g + 1]):
            if not pred_holds(gp_ids[q], row, var_kind, K_ev, K_prev, pred_i, pred_f,
                               attrs, nvar, c, cnt, crow):
                ok = False
                break
        if ok:
            return True
        k += 1
    return False


@leaf_njit
def neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr, gr_vars, var_kind, K_first, K_ev):
    lo = -1
    for q in range(gl_ptr[g], gl_ptr[g + 1]):
        v = gl_vars[q]
        x = v_last(row[v], var_kind[v] == 1, K_ev)
        if x > lo:
            lo = x
    hi = 1 << 62
    for q in range(gr_ptr[g], gr_ptr[g + 1]):
        v = gr_vars[q]
        x = v_first(row[v], var_kind[v] == 1, K_first)
        if x < hi:
            hi = x
    return lo, hi

"""The statistics pass's kernel as first written, frozen: the reference
``tests/test_adaptive_pass_equal.py`` compares ``engines.planners.adaptive.stats``'s kernel with
(per-event work, counts and selectivities bit for bit).  Same arguments and outputs as
``stats._stats_kernel`` minus its per-type tables; one queue per variable, every variable
visited at every event.  Not used by the simulator."""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines.predicates import eval_pred


@leaf_njit
def _eval_pair_ref(pred_i, pred_f, plist, npl, j, attrs, e, s):
    """All predicates on {j, k}: ``e`` bound to ``j``, ``s`` to the other variable."""
    for q in range(npl):
        p = plist[q]
        if pred_i[p, 2] == j:
            if not eval_pred(pred_i, pred_f, p, attrs, e, s):
                return False
        else:
            if not eval_pred(pred_i, pred_f, p, attrs, s, e):
                return False
    return True


@njit(cache=True)
def stats_kernel_ref(types, ts, attrs, pred_i, pred_f, var_type, un_list, un_n, pr_list, pr_n,
                  pr_has, w_s, n_buckets, n_samples, snap_pos, type_pos, type_off):
    n = types.shape[0]
    V = var_type.shape[0]
    n_snap = snap_pos.shape[0]
    work = np.zeros(max(n, 1), np.int64)
    count = np.zeros((n_snap, V), np.int64)
    sel = np.ones((n_snap, V, V), np.float64)
    # per-variable queue = a window [qhead, qtail) over the positions of the variable's type
    # (``type_pos[type_off[t]:type_off[t+1]]``, ascending)
    qhead = np.zeros(V, np.int64)
    qtail = np.zeros(V, np.int64)
    for v in range(V):
        qhead[v] = type_off[var_type[v]]
        qtail[v] = type_off[var_type[v]]
    width = w_s / n_buckets
    tests = np.zeros((V, V, n_buckets), np.int64)
    passes = np.zeros((V, V, n_buckets), np.int64)
    stamp = np.full((V, V, n_buckets), -(1 << 62), np.int64)
    si = 0
    for e in range(n):
        t = ts[e]
        b = np.int64(np.floor(t / width))
        slot = b % n_buckets
        # expire
        for v in range(V):
            while qhead[v] < qtail[v] and ts[type_pos[qhead[v]]] <= t - w_s:
                qhead[v] += 1
                work[e] += 1
        for j in range(V):
            if var_type[j] != types[e]:
                continue
            # unary predicates of j
            if un_n[j] > 0:
                if stamp[j, j, slot] != b:
                    stamp[j, j, slot] = b
                    tests[j, j, slot] = 0
                    passes[j, j, slot] = 0
                    work[e] += 1
                ok = True
                for q in range(un_n[j]):
                    if not eval_pred(pred_i, pred_f, un_list[j, q], attrs, e, e):
                        ok = False
                        break
                tests[j, j, slot] += 1
                if ok:
                    passes[j, j, slot] += 1
                work[e] += 1
            # pairwise predicates: sample the most recent in-window events of k
            for k in range(V):
                if k == j or not pr_has[j, k]:
                    continue
                lo = qhead[k]
                hi = qtail[k]
                a, c = (j, k) if j < k else (k, j)
                taken = 0
                idx = hi - 1
                while idx >= lo and taken < n_samples:
                    s = type_pos[idx]
                    idx -= 1
                    if s == e:
                        continue
                    if stamp[a, c, slot] != b:
                        stamp[a, c, slot] = b
                        tests[a, c, slot] = 0
                        passes[a, c, slot] = 0
                        work[e] += 1
                    tests[a, c, slot] += 1
                    if _eval_pair_ref(pred_i, pred_f, pr_list[j, k], pr_n[j, k], j, attrs, e, s):
                        passes[a, c, slot] += 1
                    work[e] += 1
                    taken += 1
        # push after sampling (an event never samples itself)
        for v in range(V):
            if var_type[v] == types[e]:
                qtail[v] += 1
                work[e] += 1
        while si < n_snap and snap_pos[si] == e:
            for v in range(V):
                count[si, v] = qtail[v] - qhead[v]
            for a in range(V):
                for c in range(a, V):
                    if not pr_has[a, c]:
                        continue
                    tt = 0
                    pp = 0
                    for z in range(n_buckets):
                        if stamp[a, c, z] > b - n_buckets and stamp[a, c, z] <= b:
                            tt += tests[a, c, z]
                            pp += passes[a, c, z]
                    if tt > 0:
                        sel[si, a, c] = pp / tt
                        sel[si, c, a] = pp / tt
            si += 1
    return work, count, sel

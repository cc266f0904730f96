"""A's plan at every statistics snapshot in one compiled pass (speed).

The controllers ask A (``planners.greedy_plan`` / ``planners.zstream_plan``) for a plan at every
check (the shadow call of the accuracy bookkeeping) and at every replan.  A is a pure function of
the snapshot's ``(rate_w[s], sel[s])``, so ``snapshot_plans`` computes it for a range of
snapshots at once with the same arithmetic, in the same order (no fastmath: the same IEEE
doubles, the same comparisons and tie-breaks), and returns each snapshot's plan as an id into a
list of the distinct plans (equal ids <=> equal plans).

* greedy (Algorithm 2, ``greedy_at``): ``g_i(j) = rw[j] * sel[j, j] * prod_{k < i}
  sel[p_k, j]`` kept as a running product per candidate (the reference multiplies the same
  factors in the same prefix order); ``p_i`` = the smallest ``(g_i(j), j)``.
* ZStream (Algorithm 3 over contiguous intervals): the interval DP by increasing length (the
  reference recurses with a memo; every interval's value is the same pure function of its
  sub-intervals), the first split with the strictly smallest cost; the plan is encoded as its
  split points in preorder (left subtree before right), one sequence per group.

The deciding conditions a plan carries (``PlanResult.blocks``) are needed only where an
invariant method replans: ``invariants_at`` builds the ones ``InvariantDecision.reset`` would keep
from the same scores / DP tables of that one snapshot.  The planner work (``PlanResult.steps``:
greedy scores, DP splits) does not depend on the statistics, so the reference call at the
warm-up snapshot (P0, which also gives ``d_avg``) gives it for every snapshot.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines.planners.adaptive.rowkeys import unique_rows


def group_arrays(groups) -> tuple[np.ndarray, np.ndarray]:
    """``(gv, goff)``: the groups' variables concatenated and each group's offset into them."""
    gv = np.asarray([v for g in groups for v in g], np.int64)
    goff = np.zeros(len(groups) + 1, np.int64)
    np.cumsum([len(g) for g in groups], out=goff[1:])
    return gv, goff


@leaf_njit
def greedy_at(gv, goff, rate_w, sel, s, chosen, score, sc, done):
    """Greedy at snapshot ``s``: ``chosen[a + i]`` = the index (into ``gv``) picked at step ``i``
    of the group starting at ``a``; ``score[a + i, q]`` = candidate ``q``'s score at that step,
    a running product (the factors ``greedy_score`` multiplies, in prefix order); the smallest
    ``(score, variable)`` wins.  ``sc`` and ``done`` are scratch."""
    for g in range(goff.shape[0] - 1):
        a = goff[g]
        b = goff[g + 1]
        for q in range(a, b):
            v = gv[q]
            sc[q] = rate_w[s, v] * sel[s, v, v]
            done[q] = False
        for i in range(b - a):
            best = -1
            for q in range(a, b):
                if done[q]:
                    continue
                score[a + i, q] = sc[q]
                if best < 0 or sc[q] < sc[best] or (sc[q] == sc[best] and gv[q] < gv[best]):
                    best = q
            done[best] = True
            chosen[a + i] = best
            p = gv[best]
            for q in range(a, b):
                if not done[q]:
                    sc[q] *= sel[s, p, gv[q]]


@njit(cache=True)
def _greedy_orders(gv, goff, rate_w, sel, lo, hi):
    """``int64[hi - lo, len(gv)]``: the greedy order (concatenated over groups) of each snapshot."""
    nv = gv.shape[0]
    out = np.empty((hi - lo, nv), np.int64)
    chosen = np.empty(nv, np.int64)
    score = np.zeros((nv, nv), np.float64)
    sc = np.empty(nv, np.float64)
    done = np.zeros(nv, np.bool_)
    for si in range(hi - lo):
        greedy_at(gv, goff, rate_w, sel, lo + si, chosen, score, sc, done)
        for i in range(nv):
            out[si, i] = gv[chosen[i]]
    return out


@leaf_njit
def split_card_cost(gv, a0, a, k, b, sel, s, card, cost):
    """``(card, cost)`` of splitting the group interval ``[a, b]`` at ``k`` (left ``[a, k - 1]``)
    given the sub-intervals' best ``card`` / ``cost``: ``planners.IntervalDP.best``'s arithmetic."""
    x = 1.0
    for i in range(a, k):
        for j in range(k, b + 1):
            x *= sel[s, gv[a0 + i], gv[a0 + j]]
    cd = card[a, k - 1] * card[k, b] * x
    return cd, cost[a, k - 1] + cost[k, b] + cd


@leaf_njit
def zstream_dp(gv, a0, m, rate_w, sel, s, card, cost, bestk):
    """The interval DP of one group (``gv[a0:a0 + m]``) at snapshot ``s`` into ``card``, ``cost``
    and ``bestk`` (``[a, b]`` = leaves ``a..b`` of the group; ``bestk[a, b]`` = the first split
    with the strictly smallest cost, left part ``[a, k - 1]``).  Same arithmetic as
    ``planners.IntervalDP.best``: ``card = card_L * card_R * SEL(L, R)`` with ``SEL`` the product of
    ``sel`` over left x right leaves (left-major), ``cost = cost_L + cost_R + card``."""
    for a in range(m):
        v = gv[a0 + a]
        c = rate_w[s, v] * sel[s, v, v]
        card[a, a] = c
        cost[a, a] = c
        bestk[a, a] = -1
    for length in range(2, m + 1):
        for a in range(m - length + 1):
            b = a + length - 1
            bk = -1
            bc = 0.0
            bcard = 0.0
            for k in range(a + 1, b + 1):
                cd, cs = split_card_cost(gv, a0, a, k, b, sel, s, card, cost)
                if bk < 0 or cs < bc:
                    bk = k
                    bc = cs
                    bcard = cd
            card[a, b] = bcard
            cost[a, b] = bc
            bestk[a, b] = bk


@njit(cache=True)
def _zstream_splits(gv, goff, rate_w, sel, lo, hi):
    """``int64[hi - lo, len(gv) - n_groups]``: each group's best tree as its split points in
    preorder, groups concatenated."""
    G = goff.shape[0] - 1
    nv = gv.shape[0]
    mm = 1
    for g in range(G):
        mm = max(mm, goff[g + 1] - goff[g])
    out = np.zeros((hi - lo, max(nv - G, 1)), np.int64)
    card = np.empty((mm, mm), np.float64)
    cost = np.empty((mm, mm), np.float64)
    bestk = np.empty((mm, mm), np.int64)
    st_a = np.empty(2 * mm + 2, np.int64)
    st_b = np.empty(2 * mm + 2, np.int64)
    for si in range(hi - lo):
        s = lo + si
        pos = 0
        for g in range(G):
            m = goff[g + 1] - goff[g]
            zstream_dp(gv, goff[g], m, rate_w, sel, s, card, cost, bestk)
            top = 1
            st_a[0] = 0
            st_b[0] = m - 1
            while top > 0:
                top -= 1
                a = st_a[top]
                b = st_b[top]
                if a == b:
                    continue
                k = bestk[a, b]
                out[si, pos] = k
                pos += 1
                st_a[top] = k          # right part, visited after the left one
                st_b[top] = b
                top += 1
                st_a[top] = a
                st_b[top] = k - 1
                top += 1
    return out


def _decode_tree(leaves: list, splits: list, pos: int, a: int, b: int):
    """``(shape, next pos)``: the tree over ``leaves[a..b]`` whose preorder split points start at
    ``splits[pos]`` (a module function, not a closure: no reference cycle per plan)."""
    if a == b:
        return leaves[a], pos
    k = splits[pos]
    left, pos = _decode_tree(leaves, splits, pos + 1, a, k - 1)
    right, pos = _decode_tree(leaves, splits, pos, k, b)
    return (left, right), pos


def snapshot_plans(planner: str, groups, rate_w: np.ndarray, sel: np.ndarray, lo: int,
                   hi: int) -> tuple[np.ndarray, list]:
    """``(ids, plans)``: ``plans[ids[i]]`` is A's plan (``PlanResult.plan``) at snapshot
    ``lo + i``; ``plans`` lists each distinct plan once."""
    gv, goff = group_arrays(groups)
    rw = np.ascontiguousarray(rate_w, np.float64)
    sl = np.ascontiguousarray(sel, np.float64)
    if planner == "greedy":
        enc = _greedy_orders(gv, goff, rw, sl, int(lo), int(hi))
    else:
        enc = _zstream_splits(gv, goff, rw, sl, int(lo), int(hi))
    if len(enc) == 0:
        return np.zeros(0, np.int64), []
    uniq, inv = unique_rows(enc)
    plans = []
    for row in uniq:
        if planner == "greedy":
            plans.append(tuple(int(v) for v in row))
        else:
            splits, pos, trees = row.tolist(), 0, []
            for g in groups:
                tree, pos = _decode_tree([int(v) for v in g], splits, pos, 0, len(g) - 1)
                trees.append(tree)
            plans.append(tuple(trees))
    return np.asarray(inv, np.int64).reshape(-1), plans


# ------------------------------------------------------------- one snapshot's invariants
@njit(cache=True)
def _zstream_tables_at(gv, goff, rate_w, sel, s):
    """The interval DP of every group at snapshot ``s``: best split ``bestk[g, a, b]``, best
    cost ``cost[g, a, b]`` and every split's cost ``split[g, a, b, k]``."""
    G = goff.shape[0] - 1
    mm = 1
    for g in range(G):
        mm = max(mm, goff[g + 1] - goff[g])
    card = np.zeros((G, mm, mm), np.float64)
    cost = np.zeros((G, mm, mm), np.float64)
    bestk = np.zeros((G, mm, mm), np.int64)
    split = np.zeros((G, mm, mm, mm), np.float64)
    for g in range(G):
        m = goff[g + 1] - goff[g]
        zstream_dp(gv, goff[g], m, rate_w, sel, s, card[g], cost[g], bestk[g])
        for a in range(m):
            for b in range(a + 1, m):
                for k in range(a + 1, b + 1):
                    split[g, a, b, k] = split_card_cost(gv, goff[g], a, k, b, sel, s, card[g],
                                                        cost[g])[1]
    return bestk, cost, split


@njit(cache=True)
def greedy_invariant_tables(gv, goff, rate_w, sel, s, K):
    """The greedy plan at snapshot ``s`` and the tables of its kept invariants, compiled:
    ``(order, win, lose, pref, plen, ok)`` equal to ``invariants_at("greedy", ...)`` followed
    by ``fastctl.greedy_tables`` for ``InvariantDecision.keep`` with ``K`` (``K < 0``: all).
    Per step of each group the conditions compare the chosen variable with every other remaining
    one (ascending index into ``gv``); the ``K`` with the smallest plan-time margin
    ``score[loser] - score[winner]`` are kept (ties: the first), in ascending index order.
    ``ok`` is False when a step's margins sum to NaN: ``keep`` then orders NaNs as Python's sort
    does, which the caller reproduces by falling back to ``invariants_at``."""
    nv = gv.shape[0]
    chosen = np.empty(nv, np.int64)
    score = np.zeros((nv, nv), np.float64)
    greedy_at(gv, goff, rate_w, sel, s, chosen, score, np.empty(nv, np.float64),
              np.zeros(nv, np.bool_))
    order = np.empty(nv, np.int64)
    for i in range(nv):
        order[i] = gv[chosen[i]]
    m = 0
    maxp = 1
    for g in range(goff.shape[0] - 1):
        size = goff[g + 1] - goff[g]
        for i in range(size - 1):
            m += (size - 1 - i) if K < 0 else min(K, size - 1 - i)
        if K != 0:                   # the widest kept prefix (greedy_tables' width)
            maxp = max(maxp, size - 2)
    win = np.empty(m, np.int64)
    lose = np.empty(m, np.int64)
    plen = np.empty(m, np.int64)
    pref = np.zeros((m, maxp), np.int64)
    others = np.empty(nv, np.int64)
    margins = np.empty(nv, np.float64)
    taken = np.zeros(nv, np.bool_)
    kept = np.zeros(nv, np.bool_)
    r = 0
    for g in range(goff.shape[0] - 1):
        a = goff[g]
        b = goff[g + 1]
        for q in range(a, b):
            taken[q] = False
        for i in range(b - a):
            pq = chosen[a + i]
            fp = score[a + i, pq]
            n_o = 0
            total = 0.0
            for q in range(a, b):
                if not taken[q] and q != pq:
                    others[n_o] = q
                    margins[n_o] = score[a + i, q] - fp
                    total += margins[n_o]
                    n_o += 1
            if n_o > 0:
                if total != total:
                    return order, win, lose, pref, plen, False
                k = n_o if K < 0 else min(K, n_o)
                for j in range(n_o):
                    kept[j] = K < 0
                if K >= 0:
                    for _ in range(k):       # the k smallest (margin, index), one at a time
                        best = -1
                        for j in range(n_o):
                            if not kept[j] and (best < 0 or margins[j] < margins[best]):
                                best = j
                        kept[best] = True
                for j in range(n_o):
                    if kept[j]:
                        win[r] = gv[pq]
                        lose[r] = gv[others[j]]
                        plen[r] = i
                        for t in range(i):
                            pref[r, t] = gv[chosen[a + t]]
                        r += 1
            taken[pq] = True
    return order, win, lose, pref, plen, True


def invariants_at(planner: str, groups, rate_w: np.ndarray, sel: np.ndarray, s: int, keep
                  ) -> tuple[tuple, list]:
    """``(plan, invariants)`` of A at snapshot ``s``: the plan of ``greedy_plan`` /
    ``zstream_plan`` and the conditions ``keep(margins)`` selects from each of its blocks, in
    block order (``InvariantDecision.reset`` on that ``PlanResult``), with the same planning-time
    sides and margins; only the kept conditions are built.  ``keep=None`` keeps all."""
    from engines.planners.adaptive.planners import GreedyCondition, TreeCondition
    gv, goff = group_arrays(groups)
    pick = (lambda m: range(len(m))) if keep is None else keep
    inv: list = []
    if planner == "greedy":
        nv = len(gv)
        chosen, score = np.empty(nv, np.int64), np.zeros((nv, nv))
        greedy_at(gv, goff, rate_w, sel, int(s), chosen, score, np.empty(nv),
                  np.zeros(nv, np.bool_))
        ch, sc, var = chosen.tolist(), score.tolist(), gv.tolist()
        order: list[int] = []
        for g in range(len(groups)):
            a, b = int(goff[g]), int(goff[g + 1])
            prefix: list[int] = []
            remaining = list(range(a, b))
            for i in range(b - a):
                pq = ch[a + i]
                row = sc[a + i]
                fp = row[pq]
                others = [q for q in remaining if q != pq]
                if others:
                    pre = tuple(prefix)
                    margins = [row[q] - fp for q in others]
                    inv.extend(GreedyCondition(i, var[pq], var[others[j]], pre, margins[j], fp,
                                               row[others[j]]) for j in pick(margins))
                prefix.append(var[pq])
                remaining.remove(pq)
            order.extend(prefix)
        return tuple(order), inv
    bestk, cost, split = _zstream_tables_at(gv, goff, rate_w, sel, int(s))
    bk, co, sp = bestk.tolist(), cost.tolist(), split.tolist()
    trees = []
    for gi, g in enumerate(groups):
        m = len(g)
        bkg = bk[gi]
        sh = [[None] * m for _ in range(m)]        # best shape of every interval (no closure:
        for a in range(m):                          # no reference cycle per call)
            sh[a][a] = int(g[a])
        for length in range(2, m + 1):
            for a in range(m - length + 1):
                b = a + length - 1
                k = bkg[a][b]
                sh[a][b] = (sh[a][k - 1], sh[k][b])
        trees.append(sh[0][m - 1])
        nodes = []                       # the plan's inner nodes, then bottom-up as zstream_plan
        stack = [(0, m - 1)]
        while stack:
            a, b = stack.pop()
            if a < b:
                k = bkg[a][b]
                nodes.append((a, b, k))
                stack.append((a, k - 1))
                stack.append((k, b))
        nodes.sort(key=lambda t: (t[1] - t[0], t[0]))
        for a, b, kw in nodes:
            if b - a + 1 < 3:
                continue
            win = co[gi][a][b]
            row = sp[gi][a][b]
            ks = [k for k in range(a + 1, b + 1) if k != kw]
            margins = [row[k] - win for k in ks]
            for j in pick(margins):
                k = ks[j]
                inv.append(TreeCondition(gi, a, b, kw, k, sh[a][b], (sh[a][k - 1], sh[k][b]),
                                         margins[j], win, row[k]))
    return tuple(trees), inv

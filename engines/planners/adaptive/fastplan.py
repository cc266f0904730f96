"""A's plan at every statistics snapshot in one compiled pass (issue 27 item 4, speed).

The controllers ask A (``planners.greedy_plan`` / ``planners.zstream_plan``) for a plan at every
check (the shadow call of the accuracy bookkeeping) and at every replan.  A is a pure function of
the snapshot's ``(rate_w[s], sel[s])``, so ``snapshot_plans`` computes it for a range of
snapshots at once with the same arithmetic, in the same order (no fastmath: the same IEEE
doubles, the same comparisons and tie-breaks), and returns each snapshot's plan as an id into a
list of the distinct plans (equal ids <=> equal plans).

* greedy (Algorithm 2): ``g_i(j) = rw[j] * sel[j, j] * prod_{k < i} sel[p_k, j]`` kept as a
  running product per candidate (the reference multiplies the same factors in the same prefix
  order); ``p_i`` = the smallest ``(g_i(j), j)``.
* ZStream (Algorithm 3 over contiguous intervals): the interval DP by increasing length (the
  reference recurses with a memo; every interval's value is the same pure function of its
  sub-intervals), the first split with the strictly smallest cost; the plan is encoded as its
  split points in preorder (left subtree before right), one sequence per group.

Only plans and ids come from here.  The deciding conditions a plan carries (``PlanResult.blocks``)
are needed only where an invariant method replans and for ``d_avg``: the controller takes them
from the reference planner at those snapshots and checks that its plan is this one
(``fastctl``).  The planner work (``PlanResult.steps``: greedy scores, DP splits) does not depend
on the statistics, so one reference call gives it for every snapshot.
"""
from __future__ import annotations

import numpy as np
from numba import njit


def group_arrays(groups) -> tuple[np.ndarray, np.ndarray]:
    """``(gv, goff)``: the groups' variables concatenated and each group's offset into them."""
    gv = np.asarray([v for g in groups for v in g], np.int64)
    goff = np.zeros(len(groups) + 1, np.int64)
    np.cumsum([len(g) for g in groups], out=goff[1:])
    return gv, goff


@njit(cache=True)
def _greedy_orders(gv, goff, rate_w, sel, lo, hi):
    """``int64[hi - lo, len(gv)]``: the greedy order (concatenated over groups) of each snapshot."""
    nv = gv.shape[0]
    out = np.empty((hi - lo, nv), np.int64)
    sc = np.empty(nv, np.float64)
    done = np.zeros(nv, np.bool_)
    for si in range(hi - lo):
        s = lo + si
        pos = 0
        for g in range(goff.shape[0] - 1):
            a = goff[g]
            b = goff[g + 1]
            for q in range(a, b):
                v = gv[q]
                sc[q] = rate_w[s, v] * sel[s, v, v]
                done[q] = False
            for _ in range(b - a):
                best = -1
                for q in range(a, b):
                    if done[q]:
                        continue
                    if best < 0 or sc[q] < sc[best] or (sc[q] == sc[best] and gv[q] < gv[best]):
                        best = q
                done[best] = True
                p = gv[best]
                out[si, pos] = p
                pos += 1
                for q in range(a, b):
                    if not done[q]:
                        sc[q] *= sel[s, p, gv[q]]
    return out


@njit(cache=True)
def split_card_cost(gv, a0, a, k, b, sel, s, card, cost):
    """``(card, cost)`` of splitting the group interval ``[a, b]`` at ``k`` (left ``[a, k - 1]``)
    given the sub-intervals' best ``card`` / ``cost``: ``planners._DP.best``'s arithmetic."""
    x = 1.0
    for i in range(a, k):
        for j in range(k, b + 1):
            x *= sel[s, gv[a0 + i], gv[a0 + j]]
    cd = card[a, k - 1] * card[k, b] * x
    return cd, cost[a, k - 1] + cost[k, b] + cd


@njit(cache=True)
def zstream_dp(gv, a0, m, rate_w, sel, s, card, cost, bestk):
    """The interval DP of one group (``gv[a0:a0 + m]``) at snapshot ``s`` into ``card``, ``cost``
    and ``bestk`` (``[a, b]`` = leaves ``a..b`` of the group; ``bestk[a, b]`` = the first split
    with the strictly smallest cost, left part ``[a, k - 1]``).  Same arithmetic as
    ``planners._DP.best``: ``card = card_L * card_R * SEL(L, R)`` with ``SEL`` the product of
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


def _decode_tree(leaves, splits, it_pos: list):
    """The shape of one group from its preorder splits (``splits[it_pos[0]:]``)."""
    def build(a: int, b: int):
        if a == b:
            return leaves[a]
        k = int(splits[it_pos[0]])
        it_pos[0] += 1
        return (build(a, k - 1), build(k, b))
    return build(0, len(leaves) - 1)


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
    uniq, inv = np.unique(enc, axis=0, return_inverse=True)
    plans = []
    for row in uniq:
        if planner == "greedy":
            plans.append(tuple(int(v) for v in row))
        else:
            it = [0]
            plans.append(tuple(_decode_tree([int(v) for v in g], row, it) for g in groups))
    return np.asarray(inv, np.int64).reshape(-1), plans

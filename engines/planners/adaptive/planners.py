"""Plan generators A with invariant recording: greedy order (Algorithm 2) and ZStream DP
(Algorithm 3) over the statistics of ``engines.planners.adaptive.stats``.

Statistics inputs: ``rw[v]`` = ``r_v * W`` (expected events of ``v`` per pattern window) and the
symmetric selectivity matrix ``sel`` (``sel[v, v]`` = single-variable pass rate).

Planning groups.  A pattern is planned per *group*: the distinct positive-variable sets of its
compiled branches (OR alternatives are separate groups; the interleavings of an AND share one
group).  Within a group the variables keep the order of the first branch that binds them (the
sequence order for SEQ, text order for AND): ZStream's DP runs over contiguous intervals of that
order.  Negated variables are not planned (the evaluators apply them as filters); a Kleene
variable is planned like a plain leaf (cardinality of its events, not of their subsets).

Greedy (Algorithm 2).  ``g_i(j) = rw[j] * sel[j, j] * prod_{k < i} sel[p_k, j]`` (product in
prefix order); ``p_i = argmin_j g_i(j)``, ties broken by the smaller variable id.  The deciding
conditions of step ``i`` are ``(g_i(p_i), p_i) < (g_i(j), j)`` for every remaining ``j``, stored
as ``(i, p_i, j, prefix)``: both sides are re-evaluated from current statistics.

ZStream (Algorithm 3, over contiguous intervals).  Leaf cardinality and cost ``rw[v] * sel[v,v]``;
``Card(I) = Card(L) * Card(R) * SEL(L, R)`` with ``SEL`` the product of ``sel[a, b]`` over
``a in L, b in R``; ``Cost(I) = Cost(L) + Cost(R) + Card(I)``; the best split of an interval is the
first (leftmost) split with the strictly smallest cost.  *Index fix.*  As printed, Algorithm 3
initialises ``subtrees[i][1]`` (should be ``subtrees[1][i]``: size 1, start ``i``) and lets ``k``
run to ``j + i``, which makes the right part ``subtrees[i-(k-j)][k]`` empty (size 0) at ``k = j+i``;
``k`` must stop at ``j + i - 1``.  We index intervals by (start, end) directly.
Invariants: every plan node with >= 3 leaves, one condition per losing split,
``Cost(winner) < Cost(loser)``, where both costs are *recomputed* from current statistics over
the stored tree shapes (the winner: the plan's subtree; a loser: the split's children as the DP
had built them at planning time).  Freezing subtree costs as constants would make a condition
unable to fire when only statistics below the node changed.  For ``K = "all"`` the losers'
children are re-optimised under current statistics instead of stored (a DP over the node's
sub-intervals, charged as decision work): only then does "no condition violated" imply that A
returns the same tree (Theorem 2); with stored loser shapes a cheaper re-shaped loser can go
unnoticed (a false negative), never a false positive.

Work: ``steps`` counts greedy scores or DP splits evaluated (PLANNER_STEP).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from engines.compile import KIND_NEG, Program

Shape = object   # int (leaf variable) or (Shape, Shape)


def planning_groups(program: Program) -> tuple[tuple[int, ...], ...]:
    """Disjoint groups of positive variables, each in the order of its first branch (from the
    unexpanded pattern's OR alternatives when the compiled branches were not expanded, e.g. an
    AND of 8: ``branch_error`` says so; reading ``branches`` would raise TooManyBranches)."""
    if program.branch_error or not program.branches:
        from engines.evaluators.ztree_plan import alternatives
        return tuple(tuple(program.var_id(v) for v in alt.vars) for alt in alternatives(program))
    groups: list[list[int]] = []
    for br in program.branches:
        pv = [int(v) for v in br.pos_vars if program.var_kind[int(v)] != KIND_NEG]
        hit = [g for g in groups if set(g) & set(pv)]
        if not hit:
            groups.append(pv)
            continue
        merged = hit[0]
        for g in hit[1:]:
            merged.extend(v for v in g if v not in merged)
            groups.remove(g)
        merged.extend(v for v in pv if v not in merged)
    return tuple(tuple(g) for g in groups)


# ----------------------------------------------------------------------------- greedy
def greedy_score(j: int, prefix, rw: np.ndarray, sel: np.ndarray) -> float:
    # ndarray.item gives the same Python float as float(a[i]), without the numpy scalar
    s = rw.item(j) * sel.item(j, j)
    for k in prefix:
        s *= sel.item(k, j)
    return s


@dataclass
class GreedyCondition:
    step: int
    winner: int
    loser: int
    prefix: tuple[int, ...]
    margin: float          # g(loser) - g(winner) at planning time
    f1: float              # g(winner) at planning time
    f2: float              # g(loser) at planning time


@dataclass
class PlanResult:
    """A plan plus the deciding conditions of its blocks (lists of conditions per block, in
    verification order) and the planner work."""

    kind: str                       # "order" | "tree"
    plan: tuple
    blocks: list[list] = field(default_factory=list)
    steps: int = 0


def greedy_plan(groups, rw: np.ndarray, sel: np.ndarray) -> PlanResult:
    """Algorithm 2 per group; the plan is the concatenation of the groups' orders."""
    order: list[int] = []
    blocks: list[list] = []
    steps = 0
    for g in groups:
        prefix: list[int] = []
        remaining = list(g)
        for i in range(len(g)):
            scores = {j: greedy_score(j, prefix, rw, sel) for j in remaining}
            steps += len(remaining)
            p = min(remaining, key=lambda j: (scores[j], j))
            conds = [GreedyCondition(i, p, j, tuple(prefix), scores[j] - scores[p], scores[p],
                                     scores[j]) for j in remaining if j != p]
            if conds:
                blocks.append(conds)
            prefix.append(p)
            remaining.remove(p)
        order.extend(prefix)
    return PlanResult("order", tuple(order), blocks, steps)


def greedy_violated(c: GreedyCondition, rw, sel, d: float) -> tuple[bool, float, float]:
    """Current sides ``(f1, f2)`` and whether the condition counts as violated at distance d."""
    f1 = greedy_score(c.winner, c.prefix, rw, sel)
    f2 = greedy_score(c.loser, c.prefix, rw, sel)
    if d == 0.0:
        bad = f1 > f2 or (f1 == f2 and c.winner > c.loser)
    else:
        bad = f1 > (1.0 + d) * f2
    return bad, f1, f2


# ----------------------------------------------------------------------------- ZStream
def shape_leaves(s) -> list[int]:
    return list(_leaves(s))


@lru_cache(maxsize=1 << 16)
def _leaves(s) -> tuple[int, ...]:
    """Leaves of a tree shape in order (memoised: shapes are small hashable tuples that the
    planner and the invariant checks revisit at every snapshot)."""
    if isinstance(s, tuple):
        return _leaves(s[0]) + _leaves(s[1])
    return (s,)


@lru_cache(maxsize=1 << 16)
def shape_subtrees(s) -> frozenset:
    """Every subtree of a tree shape (itself and its leaves included), memoised."""
    if isinstance(s, tuple):
        return frozenset((s,)) | shape_subtrees(s[0]) | shape_subtrees(s[1])
    return frozenset((s,))


def _sel_between(left, right, sel: np.ndarray) -> float:
    x = 1.0
    item = sel.item
    for a in left:
        for b in right:
            x *= item(a, b)
    return x


def shape_card_cost(s, rw, sel, counter: list | None = None,
                    memo: dict | None = None) -> tuple[float, float]:
    """(Card, Cost) of a tree shape under the given statistics (same arithmetic as the DP).
    ``memo`` (one per statistics snapshot) shares subtrees between conditions: ``counter``
    then counts each distinct subtree once."""
    if memo is not None and s in memo:
        return memo[s]
    if counter is not None:
        counter[0] += 1
    if not isinstance(s, tuple):
        c = rw.item(s) * sel.item(s, s)
        out = (c, c)
    else:
        cl, kl = shape_card_cost(s[0], rw, sel, counter, memo)
        cr, kr = shape_card_cost(s[1], rw, sel, counter, memo)
        card = cl * cr * _sel_between(_leaves(s[0]), _leaves(s[1]), sel)
        out = (card, kl + kr + card)
    if memo is not None:
        memo[s] = out
    return out


class IntervalDP:
    """Memoised interval DP over one group's leaf order (shared by the planner and the exact
    K = all check so that both use identical arithmetic)."""

    def __init__(self, leaves, rw, sel):
        self.leaves = list(leaves)
        self.rw, self.sel = rw, sel
        self.memo: dict[tuple[int, int], tuple] = {}
        self.steps = 0

    def best(self, a: int, b: int):
        """(shape, card, cost, splits) of the best tree over leaves[a..b] (inclusive);
        ``splits`` = [(k, shape, cost)] for every split k (left = [a, k-1])."""
        key = (a, b)
        if key in self.memo:
            return self.memo[key]
        if a == b:
            v = self.leaves[a]
            c = self.rw.item(v) * self.sel.item(v, v)
            out = (v, c, c, [])
        else:
            best = None
            splits = []
            for k in range(a + 1, b + 1):
                ls, lc, lk, _ = self.best(a, k - 1)
                rs, rc, rk, _ = self.best(k, b)
                self.steps += 1
                card = lc * rc * _sel_between(self.leaves[a:k], self.leaves[k:b + 1], self.sel)
                cost = lk + rk + card
                splits.append((k, (ls, rs), cost))
                if best is None or cost < best[2]:
                    best = ((ls, rs), card, cost, k)
            out = (best[0], best[1], best[2], splits)
        self.memo[key] = out
        return out


@dataclass
class TreeCondition:
    group: int
    a: int
    b: int
    k_win: int
    k_lose: int
    winner: object
    loser: object
    margin: float
    f1: float
    f2: float


def zstream_plan(groups, rw: np.ndarray, sel: np.ndarray) -> PlanResult:
    """Algorithm 3 (fixed) per group; plan = tuple of group trees."""
    trees = []
    blocks: list[list] = []
    steps = 0
    for gi, g in enumerate(groups):
        dp = IntervalDP(g, rw, sel)
        shape = dp.best(0, len(g) - 1)[0]
        steps += dp.steps
        trees.append(shape)
        # plan nodes bottom-up (by interval length, then start)
        nodes = []

        def walk(s, a):
            if isinstance(s, tuple):
                la = len(_leaves(s[0]))
                walk(s[0], a)
                walk(s[1], a + la)
                nodes.append((a, a + len(_leaves(s)) - 1, s, a + la))

        walk(shape, 0)
        nodes.sort(key=lambda t: (t[1] - t[0], t[0]))
        for a, b, s, kw in nodes:
            if b - a + 1 < 3:
                continue
            _, _, win_cost, splits = dp.best(a, b)
            conds = [TreeCondition(gi, a, b, kw, k, s, ls, c - win_cost, win_cost, c)
                     for k, ls, c in splits if k != kw]
            blocks.append(conds)
    return PlanResult("tree", tuple(trees), blocks, steps)


def tree_violated(c: TreeCondition, rw, sel, d: float, counter: list,
                  exact_dp: "IntervalDP | None" = None, memo: dict | None = None
                  ) -> tuple[bool, float, float]:
    """Recompute both sides under current statistics (``exact_dp``: losers re-optimised)."""
    f1 = shape_card_cost(c.winner, rw, sel, counter, memo)[1]
    if exact_dp is None:
        f2 = shape_card_cost(c.loser, rw, sel, counter, memo)[1]
    else:
        before = exact_dp.steps
        _, _, _, splits = exact_dp.best(c.a, c.b)
        counter[0] += exact_dp.steps - before
        f2 = next(cost for k, _, cost in splits if k == c.k_lose)
    if d == 0.0:
        bad = f1 > f2 or (f1 == f2 and c.k_lose < c.k_win)
    else:
        bad = f1 > (1.0 + d) * f2
    return bad, f1, f2


def subtree_constants(c: TreeCondition, rw, sel) -> tuple:
    """Section 4.2's constant-time reading of a ZStream condition ``Cost(T_1) < Cost(T_2)``: the
    cost and cardinality of each side's two subtrees fixed at invariant creation (under ``rw``,
    ``sel``), only the selectivity between the two subtrees read at check time.  Returns
    ``(k_1, c_1, pairs_1, k_2, c_2, pairs_2)``: side ``i`` at check time is
    ``k_i + c_i * prod(sel[a, b] for a, b in pairs_i)``.  (With the subtree cardinalities read at
    check time as well, ``Card(T)`` is the same for both sides, which cover the same event
    types, and the condition could never change: the cardinalities are constants too.)"""
    out: list = []
    for side in (c.winner, c.loser):
        cl, kl = shape_card_cost(side[0], rw, sel)
        cr, kr = shape_card_cost(side[1], rw, sel)
        pairs = tuple((a, b) for a in _leaves(side[0]) for b in _leaves(side[1]))
        out.extend((kl + kr, cl * cr, pairs))
    return tuple(out)


def tree_violated_constant(c: TreeCondition, consts: tuple, sel, d: float
                           ) -> tuple[bool, float, float]:
    """``tree_violated`` on ``subtree_constants``' sides (2 operations: one per side)."""
    k1, c1, p1, k2, c2, p2 = consts
    f1 = k1 + c1 * _sel_pairs(p1, sel)
    f2 = k2 + c2 * _sel_pairs(p2, sel)
    if d == 0.0:
        bad = f1 > f2 or (f1 == f2 and c.k_lose < c.k_win)
    else:
        bad = f1 > (1.0 + d) * f2
    return bad, f1, f2


def _sel_pairs(pairs, sel) -> float:
    x = 1.0
    item = sel.item
    for a, b in pairs:
        x *= item(a, b)
    return x


def make_planner(kind: str):
    if kind == "greedy":
        return greedy_plan
    if kind == "zstream":
        return zstream_plan
    from engines.errors import CepsimInputError
    raise CepsimInputError(f"adaptive: unknown planner {kind!r}; use 'greedy' or 'zstream'")

"""Reoptimizing decision functions D (PVLDB'18 sections 1-3) and the d_avg heuristic.

Each decision object is built from the plan A returned (``reset``) and answers ``check(rw, sel)``
with ``(replan, work)``: ``work`` = decision operations performed (DECISION_CHECK), so that D is
charged in virtual time.

* ``InvariantDecision(K, d)``: from every block's deciding-condition set keep the ``K`` tightest
  conditions (smallest plan-time margin ``f2 - f1``; ``K = None`` = all), verify them in block
  order (greedy: by step; ZStream: bottom-up) and stop at the first violated one.  A condition
  ``f1 < f2`` counts as violated only if ``f1 > (1 + d) * f2`` (for ``d = 0``: ``f1 > f2`` or a
  tie the planner's tie-break would now resolve the other way).  The paper prints the invariant as
  ``(1 + d) * f1 < f2``; read as "the invariant holds", that is *stricter* than the plan-time
  condition and can already be false when the plan is made (any two sides closer than ``d``),
  which would fire D at once and on every check: we therefore use the direction that tolerates a
  relative deviation ``d`` before firing.  Work: greedy = 2 scores per verified condition;
  ZStream = distinct subtrees recomputed in one check (shared between
  conditions) plus DP splits for ``K = all``.  ZStream sides are recomputed whole at every
  check (``subtree = "recompute"``, as OpenCEP's ``ZStreamTreeInvariants`` does:
  ``plan/invariant/Invariants.py`` 82-88 calls the recursive plan cost per side); the named
  variant ``subtree = "constant"`` is section 4.2's constant-time reading: each side's subtree
  costs and cardinalities fixed when the invariant is made, only the selectivity between the
  two subtrees read at check time (``planners.subtree_constants``), 2 operations per verified
  condition; it needs a finite ``K``.
* ``ThresholdDecision(t)`` (ZStream's): the monitored values are the planned variables' ``rw``
  and the monitored selectivities; D is true if any deviates from its value at the last planner
  call by more than ``t`` relative (``|x - x0| > t * x0``; ``x0 = 0``: any ``x > 0``).  Work: one
  per value compared (short-circuit).
* ``UnconditionalDecision``: always true, no work; the controller replaces the plan only if A
  returns a different one.
* ``StaticDecision``: never true; no statistics are charged either.

``d_avg(plan_result)`` = the mean over all deciding conditions of the first plan of
``|f2 - f1| / min(f1, f2)`` (conditions with ``min = 0`` are skipped).
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.planners.adaptive.planners import (PlanResult, IntervalDP, greedy_violated,
                                                subtree_constants, tree_violated,
                                                tree_violated_constant)

#: how a ZStream invariant's sides are evaluated at check time (``InvariantDecision``)
SUBTREE_READINGS = ("recompute", "constant")


class Decision:
    name = "base"
    uses_stats = True

    def reset(self, pr: PlanResult, rw: np.ndarray, sel: np.ndarray, groups) -> None:
        pass

    def check(self, rw: np.ndarray, sel: np.ndarray) -> tuple[bool, int]:
        """``(replan, work)`` at one statistics snapshot."""
        raise NotImplementedError


class StaticDecision(Decision):
    name = "static"
    uses_stats = False

    def check(self, rw, sel):
        return False, 0


class UnconditionalDecision(Decision):
    name = "unconditional"

    def check(self, rw, sel):
        return True, 0


class ThresholdDecision(Decision):
    name = "threshold"

    def __init__(self, t: float, monitored: tuple[tuple[int, int], ...]):
        self.t = float(t)
        self.pairs = tuple(monitored)
        self.ref: np.ndarray | None = None
        self.vars: list[int] = []

    def _values(self, rw, sel) -> np.ndarray:
        return np.array([rw[v] for v in self.vars] + [sel[a, b] for a, b in self.pairs])

    def reset(self, pr, rw, sel, groups):
        self.vars = sorted({v for g in groups for v in g})
        self.ref = self._values(rw, sel)

    def check(self, rw, sel):
        cur = self._values(rw, sel)
        work = 0
        for x, x0 in zip(cur, self.ref):
            work += 1
            if (x0 == 0.0 and x > 0.0) or abs(x - x0) > self.t * x0:
                return True, work
        return False, work


class InvariantDecision(Decision):
    name = "invariant"

    def __init__(self, d: float = 0.0, K: int | None = 1, subtree: str = "recompute"):
        if subtree not in SUBTREE_READINGS:
            raise CepsimInputError(f"adaptive: zs_subtree = {subtree!r}; use one of "
                                   f"{SUBTREE_READINGS}")
        if subtree == "constant" and K is None:
            raise CepsimInputError("adaptive: zs_subtree = 'constant' needs a finite K (with "
                                   "K = all the losing sides are re-optimised at every check)")
        self.d = float(d)
        self.K = K
        self.subtree = subtree
        self.kind = "order"
        self.invariants: list = []
        self.consts: list = []
        self.groups = ()

    def keep(self, margins: list) -> list[int]:
        """Indices (ascending) of a block's conditions kept as invariants: the ``K`` tightest
        (smallest plan-time margin, then first), all for ``K = None``."""
        if self.K == 1 and len(margins):
            # the first smallest margin, as the sort below picks it when no margin is NaN (a
            # NaN makes the sum NaN; so can opposite infinities: the sort decides then)
            ms = list(margins)
            total = sum(ms)
            if total == total:
                return [ms.index(min(ms))]
        ordered = sorted(range(len(margins)), key=lambda i: (margins[i], i))
        return sorted(ordered if self.K is None else ordered[: self.K])

    def install(self, kind: str, invariants: list, groups, rw=None, sel=None) -> None:
        """The state ``reset`` leaves (``fastctl`` builds only the kept conditions); ``rw`` and
        ``sel`` are the statistics the plan was made on (read by ``subtree = "constant"``)."""
        self.kind = kind
        self.groups = groups
        self.invariants = invariants
        self.consts = [subtree_constants(c, rw, sel) for c in invariants] \
            if kind == "tree" and self.subtree == "constant" else []

    def reset(self, pr, rw, sel, groups):
        inv = []
        for conds in pr.blocks:
            inv.extend(conds[i] for i in self.keep([c.margin for c in conds]))
        self.install(pr.kind, inv, groups, rw, sel)

    def check(self, rw, sel):
        if self.kind == "tree" and self.subtree == "constant":
            work = 0
            for c, k in zip(self.invariants, self.consts):
                work += 2
                if tree_violated_constant(c, k, sel, self.d)[0]:
                    return True, work
            return False, work
        if self.kind == "order":
            work = 0
            for c in self.invariants:
                work += 2
                if greedy_violated(c, rw, sel, self.d)[0]:
                    return True, work
            return False, work
        counter = [0]
        memo: dict = {}
        dps: dict[int, IntervalDP] = {}
        for c in self.invariants:
            dp = None
            if self.K is None:
                dp = dps.get(c.group)
                if dp is None:
                    dp = dps[c.group] = IntervalDP(self.groups[c.group], rw, sel)
            if tree_violated(c, rw, sel, self.d, counter, dp, memo)[0]:
                return True, counter[0]
        return False, counter[0]


def dp_split_work(have: set, a: int, b: int) -> int:
    """DP splits of the sub-intervals of ``[a, b]`` not in ``have`` (added to it): the K = all
    check's work for one condition after the conditions that filled ``have``."""
    work = 0
    for a2 in range(a, b + 1):
        for b2 in range(a2, b + 1):
            if (a2, b2) not in have:
                have.add((a2, b2))
                work += b2 - a2
    return work


def d_avg(pr: PlanResult) -> float:
    vals = []
    for conds in pr.blocks:
        for c in conds:
            m = min(c.f1, c.f2)
            if m > 0:
                vals.append(abs(c.f2 - c.f1) / m)
    return float(np.mean(vals)) if vals else 0.0

"""Do the planners rank plans right?  The planners' predicted cost of a plan against the work the
engine executes with it (PVLDB'18 sections 4.1-4.2 cost models; the headroom oracle's candidate
plans and epochs, ``headroom.py``).

* ``predicted_cost(kind, plan, groups, rw, sel)``: the cost the plan generator minimises, under the
  statistics ``rw`` (expected events per window) and ``sel``.  Greedy orders (section 4.1): the
  number of partial matches kept, summed over the prefixes of each group's order,
  ``sum_i prod_{j <= i} rw[p_j] * sel[p_j, p_j] * prod_{j < k <= i} sel[p_j, p_k]`` (the
  expression Algorithm 2 minimises step by step).  ZStream trees (section 4.2): ``Cost(T)`` of
  each group's tree (``planners.shape_card_cost``).  Summed over the planning groups.
* ``kendall_tau(x, y)``: Kendall's tau-b of two equally long score vectors (ties allowed; NaN when
  either is constant): +1 = the same order, -1 = the reverse.
* ``rank_summary(pred, work)``: over epochs, the mean tau between predicted cost and executed work
  of the candidate plans, and the regret of trusting the prediction: executed work of the plan the
  prediction ranks first, summed over epochs, over the best plan's (1 = the planner's cost model
  picks the truly cheapest plan in every epoch).
"""
from __future__ import annotations

import math

import numpy as np

from engines.errors import CepsimInputError
from engines.planners.adaptive.planners import shape_card_cost


def predicted_cost(kind: str, plan, groups, rw: np.ndarray, sel: np.ndarray) -> float:
    """The plan generator's cost of ``plan`` (module docstring) under ``(rw, sel)``."""
    if kind == "order":
        total = 0.0
        for g in groups:
            members = set(g)
            prefix: list[int] = []
            card = 1.0
            for v in plan:
                if v not in members:
                    continue
                card *= float(rw[v]) * float(sel[v, v])
                for u in prefix:
                    card *= float(sel[u, v])
                prefix.append(v)
                total += card
        return total
    if kind == "tree":
        return float(sum(shape_card_cost(t, rw, sel)[1] for t in plan))
    raise CepsimInputError(f"adaptive ranking: unknown plan kind {kind!r}")


def kendall_tau(x, y) -> float:
    """Kendall's tau-b of ``x`` and ``y`` (equal length); NaN with fewer than two items or when
    either vector is constant."""
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise CepsimInputError("kendall_tau: x and y must be 1-d of equal length")
    n = len(x)
    if n < 2:
        return math.nan
    i, j = np.triu_indices(n, 1)
    dx = np.sign(x[i] - x[j])
    dy = np.sign(y[i] - y[j])
    n1 = float(np.count_nonzero(dx))
    n2 = float(np.count_nonzero(dy))
    if n1 == 0 or n2 == 0:
        return math.nan
    return float(np.sum(dx * dy)) / math.sqrt(n1 * n2)


def rank_summary(pred: np.ndarray, work: np.ndarray) -> dict:
    """``pred`` and ``work``: float[candidates, epochs].  Returns ``tau`` (mean over epochs where
    it is defined; NaN if none), ``regret`` (sum over epochs of the executed work of the plan
    with the smallest prediction, first on ties, over the sum of the smallest executed work;
    NaN when that is 0) and ``epochs`` (epochs with a defined tau)."""
    pred = np.asarray(pred, np.float64)
    work = np.asarray(work, np.float64)
    if pred.shape != work.shape or pred.ndim != 2:
        raise CepsimInputError("rank_summary: pred and work must be [candidates, epochs]")
    taus = [kendall_tau(pred[:, e], work[:, e]) for e in range(pred.shape[1])]
    taus = [t for t in taus if not math.isnan(t)]
    if pred.shape[0] == 0 or pred.shape[1] == 0:
        return {"tau": math.nan, "regret": math.nan, "epochs": 0}
    picked = work[np.argmin(pred, axis=0), np.arange(pred.shape[1])].sum()
    best = work.min(axis=0).sum()
    return {"tau": float(np.mean(taus)) if taus else math.nan,
            "regret": float(picked / best) if best > 0 else math.nan, "epochs": len(taus)}

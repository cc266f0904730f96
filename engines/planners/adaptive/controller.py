"""The detection-adaptation loop (Algorithm 1) as a controller pass producing a plan schedule.

Statistics never depend on the running plan (``engines.planners.adaptive.stats``), so the loop can be run
before the evaluation: at every snapshot after the warm-up (one every ``check_every`` events) D
is evaluated; if it says so A is called; if A returns a plan different from the current one, the
new plan is deployed for the events *after* the snapshot position.  The initial plan P0 is A on
the warm-up snapshot (the same P0 for every method; not charged).  The evaluation of the schedule
(``engines.planners.adaptive.epochs``) is separate.

Charged work, added to the row of the event at which it happens: DECISION_CHECK (D's work),
PLAN_GEN (one per call of A), PLANNER_STEP (A's scores / splits), PLAN_DEPLOY (one per
replacement) and STAT_UPDATE (the statistics pass, every event, unless D is static).

Accuracy bookkeeping (``shadow=True``): at every check an *uncharged* shadow call of A tells
whether a different plan was available; ``false_neg`` counts checks where it was and D said no,
``false_pos`` counts calls of A triggered by D that returned the current plan.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines import counters as C
from engines.planners.adaptive.decision import Decision, d_avg
from engines.planners.adaptive.planners import make_planner, planning_groups
from engines.planners.adaptive.stats import StatsSnapshots
from engines.compile import Program
from engines.errors import CepsimInputError


@dataclass
class Schedule:
    kind: str                    # "order" | "tree"
    starts: list[int]            # epoch start positions (starts[0] = 0)
    plans: list[tuple]           # plan of each epoch
    charges: np.ndarray          # int64[n, N_COUNTERS] adaptation work
    n_checks: int
    n_planner_calls: int
    n_replacements: int
    false_pos: int
    false_neg: int
    n_better_available: int      # checks at which the shadow A returned a different plan
    d_avg0: float                # d_avg of the initial plan


def warmup_snapshot(stats: StatsSnapshots, n_warmup: int) -> int:
    idx = int(np.searchsorted(stats.positions, n_warmup, side="left")) - 1
    if idx < 0:
        raise CepsimInputError(f"adaptive: the warm-up ({n_warmup} events) ends before the first "
                               f"statistics snapshot; raise n_warmup or lower check_every")
    return idx


def run_controller(program: Program, stats: StatsSnapshots, planner: str, decision: Decision,
                   n_events: int, n_warmup: int, shadow: bool = False,
                   plan_memo: dict | None = None) -> Schedule:
    """Run Algorithm 1 over the snapshots of ``stats`` (module docstring).  ``plan_memo`` (a
    dict, shared across decision functions on the same statistics) memoises A per snapshot:
    A is deterministic, so this changes run time only, never a charge or a decision."""
    groups = planning_groups(program)
    A0 = make_planner(planner)
    memo = {} if plan_memo is None else plan_memo

    def A(s):
        key = (planner, s)
        if key not in memo:
            memo[key] = A0(groups, stats.rate_w[s], stats.sel[s])
        return memo[key]

    s0 = warmup_snapshot(stats, n_warmup)
    charges = C.new_counters(n_events)
    pr = A(s0)
    decision.reset(pr, stats.rate_w[s0], stats.sel[s0], groups)
    d0 = d_avg(pr)
    starts, plans = [0], [pr.plan]
    n_checks = calls = repl = fp = fn = better = 0
    for s in range(s0 + 1, len(stats)):
        p = int(stats.positions[s])
        if p + 1 >= n_events:
            break
        rw, sel = stats.rate_w[s], stats.sel[s]
        n_checks += 1
        replan, work = decision.check(rw, sel)
        charges[p, C.DECISION_CHECK] += work
        differs = None
        if shadow:
            differs = A(s).plan != pr.plan
            better += differs
        if replan:
            npr = A(s)
            calls += 1
            charges[p, C.PLAN_GEN] += 1
            charges[p, C.PLANNER_STEP] += npr.steps
            if npr.plan != pr.plan:
                repl += 1
                charges[p, C.PLAN_DEPLOY] += 1
                starts.append(p + 1)
                plans.append(npr.plan)
            else:
                fp += 1
            pr = npr
            decision.reset(pr, rw, sel, groups)
        elif differs:
            fn += 1
    if decision.uses_stats:
        charges[:, C.STAT_UPDATE] += stats.stat_work[:n_events]
    return Schedule(pr.kind, starts, plans, charges, n_checks, calls, repl, fp, fn, better, d0)

"""``controller.run_controllers`` (all decision functions of a point, with the compiled passes of
``fastctl``) and ``run_controller`` give every decision function exactly the schedule, charges
and counts of the plain one-function-at-a-time loop (``reference_run_controller``);
``tests/test_adaptive_fastctl.py`` compares them with the lockstep Python loop as well."""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import Program, compile_pattern
from engines.pattern import parse_pattern
from engines.planners.adaptive.controller import (Schedule, run_controller, run_controllers,
                                                  warmup_snapshot)
from engines.planners.adaptive.decision import Decision, d_avg
from engines.planners.adaptive.planners import make_planner, planning_groups
from engines.planners.adaptive.stats import StatsSnapshots
from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision,
                                                ThresholdDecision, UnconditionalDecision)
from engines.planners.adaptive.stats import check_positions, compute_stats
from sim.studies.adaptive import scenario as A
from workloads.adaptive import make_stream, pattern_text


def reference_run_controller(program: Program, stats: StatsSnapshots, planner: str,
                             decision: Decision, n_events: int, n_warmup: int,
                             shadow: bool = False, plan_memo: dict | None = None) -> Schedule:
    """The one-function-at-a-time controller loop written out: the reference."""
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


@pytest.mark.parametrize("dataset,planner,pset,n,K", [
    ("traffic", "greedy", "seq", 5, 1), ("stocks", "greedy", "or", 3, 2),
    ("traffic", "zstream", "seq", 6, 1), ("stocks", "zstream", "or", 3, 1),
    ("traffic", "zstream", "neg", 5, 3), ("traffic", "zstream", "seq", 5, None)])
def test_run_controllers_equals_one_controller_each(dataset, planner, pset, n, K):
    n_events = 3000
    stream = make_stream(dataset, n_events, 4, n_types=12, total_rate=500.0)
    text = pattern_text(dataset, pset, n, stream.schema.type_names, 1.0, 0)
    prog = compile_pattern(parse_pattern(text), stream.schema)
    stats = compute_stats(prog, stream, check_positions(n_events, 5), 3.0, 8, 2)
    warm = n_events // 10

    def decisions():
        return ([StaticDecision(), UnconditionalDecision()]
                + [ThresholdDecision(t, stats.monitored) for t in (0.0, 0.05, 0.3, 2.0)]
                + [InvariantDecision(d, K) for d in (0.0, 0.05, 0.2, 1.0)])

    together = run_controllers(prog, stats, planner, decisions(), n_events, warm, shadow=True,
                               plan_memo={})
    changed = 0
    for D, got in zip(decisions(), together):
        ref = reference_run_controller(prog, stats, planner, D, n_events, warm, shadow=True,
                                       plan_memo={})
        one = run_controller(prog, stats, planner, D, n_events, warm, shadow=True, plan_memo={})
        np.testing.assert_array_equal(one.charges, ref.charges)
        assert (one.starts, one.plans, one.n_checks, one.n_planner_calls, one.false_neg) == \
            (ref.starts, ref.plans, ref.n_checks, ref.n_planner_calls, ref.false_neg)
        assert got.starts == ref.starts and got.plans == ref.plans
        packed = A._pack(ref.charges, stats.stat_work)
        assert got.charges[0] == packed[0] and got.charges[3] == packed[3]
        np.testing.assert_array_equal(got.charges[1], packed[1])
        np.testing.assert_array_equal(got.charges[2], packed[2])
        np.testing.assert_array_equal(A._unpack(got.charges, stats.stat_work), ref.charges)
        for f in ("kind", "n_checks", "n_planner_calls", "n_replacements", "false_pos",
                  "false_neg", "n_better_available", "d_avg0"):
            assert getattr(got, f) == getattr(ref, f), f
        changed += ref.n_replacements > 0
    assert changed >= 2                       # the decisions fired and replaced plans

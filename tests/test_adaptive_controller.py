"""Controllers advanced together (``controller.run_controllers``, sharing each snapshot's
recomputed greedy scores, ZStream subtree costs and monitored values) give every decision
function exactly the schedule, charges and counts of its own ``run_controller``."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.planners.adaptive.controller import run_controller, run_controllers
from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision,
                                                ThresholdDecision, UnconditionalDecision)
from engines.planners.adaptive.stats import check_positions, compute_stats
from sim.scenarios import adaptive as A
from workloads.adaptive import make_stream, pattern_text


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
        ref = run_controller(prog, stats, planner, D, n_events, warm, shadow=True, plan_memo={})
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

"""An OR of independent alternatives (engines/planners/adaptive/branch_runs.py): the epoch sums
of a whole-plan run equal the sums of its sub-plans' runs on the alternatives alone, for both
engines, under any capacity cap; patterns whose alternatives can interact are not split."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CapacityError
from engines.pattern import parse_pattern
from engines.planners.adaptive.branch_runs import (epoch_sums_by_alternatives,
                                                   independent_alternatives)
from engines.planners.adaptive.headroom import epoch_bounds, plan_epoch_sums
from engines.stream import Schema
from workloads.adaptive import make_stream, pattern_text

N_EVENTS = 1500


def _case(dataset: str, seed: int):
    st = make_stream(dataset, N_EVENTS, seed, n_types=10, total_rate=200.0)
    text = pattern_text(dataset, "or", 3, st.schema.type_names, 0.6, type_seed=seed,
                        directions=("up",))
    return st, compile_pattern(parse_pattern(text), st.schema)


def _plans(prog, kind: str, rng, k: int) -> list:
    """``k`` distinct plans whose alternatives' sub-plans come from two choices each, so that
    plans share sub-plans (the case the split is for)."""
    alts = [list(range(g * 3, g * 3 + 3)) for g in range(3)]
    out: list = []
    while len(out) < k:
        if kind == "order":
            subs = [[tuple(rng.permutation(a)) for _ in range(2)] for a in alts]
            picks = [subs[g][int(rng.integers(2))] for g in range(3)]
            slots = rng.permutation([g for g in range(3) for _ in range(3)])
            it = [iter(p) for p in picks]
            plan = tuple(int(next(it[g])) for g in slots)
        else:
            trees = [[((a, b), c), (a, (b, c))] for a, b, c in alts]
            plan = tuple(trees[g][int(rng.integers(2))] for g in range(3))
        if plan not in out:
            out.append(plan)
    return out


def _whole(prog, st, kind, bounds, eopts, calls):
    def run(plan):
        calls.append(plan)
        return plan_epoch_sums(prog, st, kind, plan, bounds, eopts)
    return run


@pytest.mark.parametrize("dataset,seed", [("stocks", 1), ("traffic", 2), ("stocks", 3)])
@pytest.mark.parametrize("kind", ["order", "tree"])
def test_split_sums_equal_whole_plan_runs(dataset, seed, kind):
    st, prog = _case(dataset, seed)
    assert independent_alternatives(prog) is not None
    bounds = epoch_bounds(N_EVENTS, 150, 300)
    plans = _plans(prog, kind, np.random.default_rng(seed), 5)
    calls: list = []
    got = epoch_sums_by_alternatives(prog, st, kind, plans, bounds, {},
                                     _whole(prog, st, kind, bounds, {}, calls))
    assert calls == []                         # every plan came from its alternatives' runs
    for plan, g in zip(plans, got):
        want = plan_epoch_sums(prog, st, kind, plan, bounds)
        assert g is not None and g.dtype == np.int64
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("kind", ["order", "tree"])
def test_caps_give_the_whole_plan_result(kind):
    """Under every cap the result is the whole-plan run's (None where that run stops): the
    split runs each alternative with its share of the cap and runs the plan whole when an
    alternative exceeds it."""
    st, prog = _case("stocks", 1)
    bounds = epoch_bounds(N_EVENTS, 150, 300)
    plans = _plans(prog, kind, np.random.default_rng(7), 4)
    keys = ("max_partial_matches", "max_matches") + (("max_kleene_nodes",) if kind == "tree"
                                                      else ())
    fell_back = split = stopped = 0
    for cap in (3, 12, 40, 150, 600, 2500, 10**7):
        eopts = {k: cap for k in keys}
        calls: list = []
        got = epoch_sums_by_alternatives(prog, st, kind, plans, bounds, eopts,
                                         _whole(prog, st, kind, bounds, eopts, calls))
        for plan, g in zip(plans, got):
            try:
                want = plan_epoch_sums(prog, st, kind, plan, bounds, eopts)
            except CapacityError:
                want = None
            if want is None:
                assert g is None
                stopped += 1
            else:
                np.testing.assert_array_equal(g, want)
            split += plan not in calls
        fell_back += len(calls)
    assert fell_back and split and stopped     # each path ran at least once


def _prog(text: str, n_types: int = 6):
    names = tuple(f"T{i}" for i in range(n_types))
    return compile_pattern(parse_pattern(text), Schema(names, ("x",)))


@pytest.mark.filterwarnings("ignore::engines.compile.PatternWarning")
@pytest.mark.parametrize("text", [
    "PATTERN SEQ(T0 a, T1 b) WITHIN 1 seconds",                                  # no OR
    "PATTERN OR(SEQ(T0 a, T1 b), SEQ(T1 c, T2 d)) WITHIN 1 seconds",              # shared type
    "PATTERN OR(SEQ(T0 a, T1 b), SEQ(T2 c, T3 d)) WHERE a.x < c.x WITHIN 1 seconds",  # cross pred
    "PATTERN OR(SEQ(T0 a, NOT(T4 n), T1 b), SEQ(T2 c, T3 d)) WITHIN 1 seconds",   # negation
    "PATTERN OR(SEQ(T0 a, T1+ b), SEQ(T2 c, T3 d)) WITHIN 1 seconds",             # Kleene
])
def test_interacting_alternatives_are_not_split(text):
    assert independent_alternatives(_prog(text)) is None


def test_split_keeps_each_alternatives_predicates():
    prog = _prog("PATTERN OR(SEQ(T0 a, T1 b), SEQ(T2 c, T3 d)) "
                 "WHERE a.x < b.x AND c.x > d.x WITHIN 1 seconds")
    alts = independent_alternatives(prog)
    assert [a.var_names for a in alts] == [("a", "b"), ("c", "d")]
    assert [len(a.pred_i) for a in alts] == [1, 1]
    assert all(a.window == prog.window and a.schema == prog.schema for a in alts)


def test_no_sharing_runs_plans_whole():
    st, prog = _case("stocks", 1)
    bounds = epoch_bounds(N_EVENTS, 150, 300)
    # two plans that share no sub-plan: splitting saves nothing, so each runs whole
    alts = [list(range(g * 3, g * 3 + 3)) for g in range(3)]
    p1 = tuple(((a, b), c) for a, b, c in alts)
    p2 = tuple((a, (b, c)) for a, b, c in alts)
    calls: list = []
    got = epoch_sums_by_alternatives(prog, st, "tree", [p1, p2], bounds, {},
                                     _whole(prog, st, "tree", bounds, {}, calls))
    assert calls == [p1, p2]
    assert all(g is not None for g in got)

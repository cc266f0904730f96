"""The compiled controller passes (``fastplan`` = A at every snapshot,
``fastctl`` = each decision function's checks) equal the Python reference
(``controller.run_controllers_python``, and ``planners.greedy_plan`` / ``zstream_plan``) in every
plan, charge, count and recorded snapshot plan, on random statistics walks with ties."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.planners.adaptive.controller import (run_controller, run_controllers,
                                                  run_controllers_python, snapshot_plan_list)
from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision,
                                                ThresholdDecision, UnconditionalDecision)
from engines.planners.adaptive.fastplan import snapshot_plans
from engines.planners.adaptive.planners import greedy_plan, planning_groups, zstream_plan
from engines.planners.adaptive.stats import check_positions, compute_stats
from workloads.adaptive import make_stream, pattern_text


def _walk(rng, S, V, quantised):
    """``S`` snapshots of statistics: a random walk (runs of repeated snapshots included);
    quantised values make ties in greedy scores and DP costs frequent."""
    rw = np.empty((S, V))
    sel = np.empty((S, V, V))
    if quantised:
        r = rng.integers(0, 4, V).astype(float)
        s = rng.choice([0.25, 0.5, 1.0], (V, V))
    else:
        r = np.exp(rng.uniform(-1, 4, V))
        s = rng.uniform(0.05, 1.0, (V, V))
    for i in range(S):
        if rng.random() < 0.3:
            if quantised:
                r = r.copy()
                r[rng.integers(V)] = rng.integers(0, 4)
                s = s.copy()
                s[rng.integers(V), rng.integers(V)] = rng.choice([0.0, 0.25, 0.5, 1.0])
            else:
                r = r * np.exp(rng.normal(0, 0.3, V))
                s = np.clip(s * np.exp(rng.normal(0, 0.3, (V, V))), 0.01, 1.0)
        rw[i] = r
        sel[i] = np.triu(s) + np.triu(s, 1).T
    return rw, sel


def _tree_cum_work(invariants: list, exact: bool) -> list[int]:
    """The reference count of a ZStream check's work after each condition, from empty memos
    (``tree_violated``): the distinct subtrees whose (Card, Cost) it computes (winners; losers
    too unless ``exact``) plus, when ``exact`` (K = all), the DP splits of every distinct
    sub-interval of the conditions' intervals, per planning group (``IntervalDP.best`` visits every
    sub-interval ``[a', b']`` of ``[a, b]`` once and evaluates ``b' - a'`` splits there)."""
    from engines.planners.adaptive.decision import dp_split_work
    from engines.planners.adaptive.planners import shape_subtrees
    seen: set = set()
    intervals: dict = {}
    dp_work = 0
    out = []
    for c in invariants:
        seen |= shape_subtrees(c.winner)
        if exact:
            dp_work += dp_split_work(intervals.setdefault(c.group, set()), c.a, c.b)
        else:
            seen |= shape_subtrees(c.loser)
        out.append(len(seen) + dp_work)
    return out


@pytest.mark.parametrize("planner", ["greedy", "zstream"])
@pytest.mark.parametrize("groups", [((0, 1, 2, 3, 4, 5),), ((2, 0, 3, 1),), ((0,), (1, 2, 3)),
                                    ((0, 1, 2), (3, 4, 5, 6)), ((4, 1, 6, 0, 2, 5, 3, 7),)])
def test_batch_planner_equals_reference(planner, groups):
    ref = greedy_plan if planner == "greedy" else zstream_plan
    rng = np.random.default_rng(len(groups) * 31 + len(groups[0]))
    V = 1 + max(max(g) for g in groups)
    for quantised in (True, False):
        rw, sel = _walk(rng, 120, V, quantised)
        ids, plans = snapshot_plans(planner, groups, rw, sel, 3, 120)
        assert len(set(plans)) == len(plans)
        for i, s in enumerate(range(3, 120)):
            assert plans[ids[i]] == ref(groups, rw[s], sel[s]).plan


def _program(dataset, pset, n):
    stream = make_stream(dataset, 1500, 2, n_types=12, total_rate=500.0)
    text = pattern_text(dataset, pset, n, stream.schema.type_names, 1.0, 0)
    prog = compile_pattern(parse_pattern(text), stream.schema)
    return prog, stream


def _decisions(monitored, K):
    return ([StaticDecision(), UnconditionalDecision()]
            + [ThresholdDecision(t, monitored) for t in (0.0, 0.1, 1.0)]
            + [InvariantDecision(d, K) for d in (0.0, 0.05, 0.3)]
            + ([InvariantDecision(d, K, "constant") for d in (0.0, 0.3)] if K is not None
               else []))


def _same(a, b):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "charges":
            if isinstance(x, tuple):
                assert x[0] == y[0] and x[3] == y[3]
                assert x[1].dtype == y[1].dtype and x[2].dtype == y[2].dtype
                np.testing.assert_array_equal(x[1], y[1])
                np.testing.assert_array_equal(x[2], y[2])
            else:
                assert x.dtype == y.dtype
                np.testing.assert_array_equal(x, y)
        else:
            assert x == y and type(x) is type(y), f.name


@pytest.mark.parametrize("dataset,planner,pset,n,K", [
    ("traffic", "greedy", "seq", 6, 1), ("stocks", "greedy", "or", 3, 2),
    ("traffic", "greedy", "seq", 5, None), ("traffic", "zstream", "seq", 6, 1),
    ("stocks", "zstream", "or", 3, 2), ("traffic", "zstream", "seq", 6, None),
    ("traffic", "zstream", "and", 5, None)])
@pytest.mark.parametrize("quantised", [True, False])
def test_fast_controllers_equal_python_reference(dataset, planner, pset, n, K, quantised):
    prog, stream = _program(dataset, pset, n)
    real = compute_stats(prog, stream, check_positions(len(stream), 5), 3.0, 8, 2)
    rng = np.random.default_rng(n * 7 + (K or 0) + quantised)
    rw, sel = _walk(rng, len(real), prog.n_vars, quantised)
    stats = dataclasses.replace(real, rate_w=rw, sel=sel)
    n_events, warm = len(stream) - 37, 150
    for shadow in (True, False):
        memo_f, memo_p = {}, {}
        fast = run_controllers(prog, stats, planner, _decisions(stats.monitored, K), n_events,
                               warm, shadow, memo_f)
        ref = run_controllers_python(prog, stats, planner, _decisions(stats.monitored, K),
                                     n_events, warm, shadow, memo_p)
        for a, b in zip(fast, ref):
            _same(a, b)
        assert snapshot_plan_list(memo_f, planner, len(stats)) == \
            snapshot_plan_list(memo_p, planner, len(stats))
        assert sum(s.n_replacements for s in ref) > 0
        assert sum(s.false_neg for s in ref) > 0 or not shadow or K is None
        for D1, D2 in zip(_decisions(stats.monitored, K), _decisions(stats.monitored, K)):
            _same(run_controller(prog, stats, planner, D1, n_events, warm, shadow),
                  run_controllers_python(prog, stats, planner, [D2], n_events, warm, shadow,
                                         dense=True)[0])


def test_other_decision_functions_take_the_python_path():
    """A decision function without a compiled pass (a subclass) runs the reference loop."""
    class Halved(ThresholdDecision):
        def check(self, rw, sel):
            replan, work = super().check(rw, sel)
            return replan, work // 2

    prog, stream = _program("traffic", "seq", 4)
    stats = compute_stats(prog, stream, check_positions(len(stream), 5), 3.0, 8, 2)
    got = run_controllers(prog, stats, "greedy", [Halved(0.1, stats.monitored)], len(stream),
                          150, True, {})[0]
    ref = run_controllers_python(prog, stats, "greedy", [Halved(0.1, stats.monitored)],
                                 len(stream), 150, True, {})[0]
    _same(got, ref)
    assert got.charges[2].size and got.n_planner_calls > 0


def test_kernel_arithmetic_is_the_reference_arithmetic():
    """Every side the compiled passes compare is the reference's double, bit for bit (a
    reassociated product would change a decision only at a near-tie, which walks rarely hit)."""
    from engines.planners.adaptive.fastctl import greedy_side, node_card_cost, tree_tables
    from engines.planners.adaptive.fastplan import split_card_cost, zstream_dp
    from engines.planners.adaptive.planners import (IntervalDP, TreeCondition, greedy_score,
                                                    shape_card_cost)
    from test_adaptive_planners import _bracketings
    rng = np.random.default_rng(2718)
    g = (4, 1, 6, 0, 2, 5)
    gv = np.asarray(g, np.int64)
    m = len(g)
    for quantised in (True, False):
        rw, sel = _walk(rng, 6, 7, quantised)
        for s in range(len(rw)):
            dp = IntervalDP(g, rw[s], sel[s])
            card, cost = np.zeros((m, m)), np.zeros((m, m))
            best = np.zeros((m, m), np.int64)
            zstream_dp(gv, 0, m, rw, sel, s, card, cost, best)
            for a in range(m):
                for b in range(a, m):
                    shape, c, k, splits = dp.best(a, b)
                    assert (card[a, b], cost[a, b]) == (c, k)
                    for ks, _, cs in splits:
                        assert split_card_cost(gv, 0, a, ks, b, sel, s, card, cost)[1] == cs
            shapes = list(_bracketings(list(g)))
            conds = [TreeCondition(0, 0, m - 1, 1, 2, sh, sh, 0.0, 0.0, 0.0)
                     for sh in shapes[::7]]
            tab = tree_tables(conds, False)
            nc, nk = np.zeros(len(tab[0])), np.zeros(len(tab[0]))
            node_card_cost(rw, sel, s, *tab[:7], nc, nk)
            for c, u in zip(conds, tab[7]):
                assert (nc[u], nk[u]) == shape_card_cost(c.winner, rw[s], sel[s])
            for _ in range(20):
                perm = [int(x) for x in rng.permutation(7)]
                i = int(rng.integers(0, 7))
                pref = np.asarray([perm[:6]], np.int64)
                assert greedy_side(rw, sel, s, perm[6], pref, 0, i) == \
                    greedy_score(perm[6], perm[:i], rw[s], sel[s])


@pytest.mark.parametrize("planner", ["greedy", "zstream"])
@pytest.mark.parametrize("groups", [((0, 1, 2, 3, 4, 5),), ((0,), (1, 2, 3)), ((0, 1), (2, 3)),
                                    ((0, 1, 2), (3, 4, 5, 6)), ((4, 1, 6, 0, 2, 5, 3, 7),)])
def test_invariants_at_equal_reset_on_the_reference(planner, groups):
    """``fastplan.invariants_at`` (the invariant methods' resets) = ``InvariantDecision.reset``
    on ``greedy_plan`` / ``zstream_plan``: the plan and every kept condition with its
    planning-time sides and margin; ZStream node tables count ``_tree_cum_work``'s work."""
    from engines.planners.adaptive.fastctl import tree_tables
    from engines.planners.adaptive.fastplan import invariants_at
    ref = greedy_plan if planner == "greedy" else zstream_plan
    rng = np.random.default_rng(len(groups) * 17 + len(groups[-1]))
    V = 1 + max(max(g) for g in groups)
    for quantised in (True, False):
        rw, sel = _walk(rng, 30, V, quantised)
        for s in range(30):
            pr = ref(groups, rw[s], sel[s])
            for K in (1, 2, None):
                D = InvariantDecision(0.1, K)
                D.reset(pr, rw[s], sel[s], groups)
                plan, inv = invariants_at(planner, groups, rw, sel, s, D.keep)
                assert plan == pr.plan and inv == D.invariants
                assert all(type(c.margin) is float and type(c.f2) is float for c in inv)
                if planner == "zstream":
                    for exact in (True, False):
                        assert tree_tables(inv, exact)[-1].tolist() == \
                            _tree_cum_work(inv, exact)


@pytest.mark.parametrize("groups", [((0, 1, 2, 3, 4, 5),), ((0,), (1, 2, 3)), ((0, 1), (2, 3)),
                                    ((0, 1, 2), (3, 4, 5, 6)), ((4, 1, 6, 0, 2, 5, 3, 7),)])
def test_compiled_greedy_tables_equal_the_conditions_tables(groups):
    """``fastplan.greedy_invariant_tables`` (what the greedy invariant pass reads at a replan) =
    ``invariants_at`` + ``greedy_tables`` element by element, for K = 0, 1, 2, all, on tied,
    zero, infinite and NaN statistics (NaN margins: the function declines, ``ok`` False)."""
    from engines.planners.adaptive.fastctl import greedy_tables
    from engines.planners.adaptive.fastplan import (greedy_invariant_tables, group_arrays,
                                                    invariants_at)
    rng = np.random.default_rng(len(groups) * 31 + len(groups[0]))
    V = 1 + max(max(g) for g in groups)
    gv, goff = group_arrays(groups)
    declined = compared = 0
    for kind in ("quantised", "smooth", "inf", "nan"):
        rw, sel = _walk(rng, 25, V, kind == "quantised")
        if kind in ("inf", "nan"):
            rw[rng.random(rw.shape) < 0.2] = np.inf if kind == "inf" else np.nan
        for s in range(25):
            for K in (0, 1, 2, None):
                D = InvariantDecision(0.1, K)
                plan, inv = invariants_at("greedy", groups, rw, sel, s, D.keep)
                order, *tab, ok = greedy_invariant_tables(gv, goff, rw, sel, s,
                                                          -1 if K is None else K)
                assert tuple(order.tolist()) == plan
                if not ok:
                    declined += 1
                    continue
                compared += 1
                for got, want in zip(tab, greedy_tables(inv)):
                    assert got.dtype == want.dtype and got.shape == want.shape
                    assert np.array_equal(got, want)
    assert compared > 100
    if V > 2:
        assert declined > 0          # the NaN statistics reached the fallback


@pytest.mark.parametrize("K", [1, 2, None])
def test_greedy_invariant_method_with_nan_margins_equals_reference(K):
    """Snapshots whose greedy margins sum to NaN (every rate infinite: inf - inf) send the
    compiled greedy method to the Python conditions at that replan; schedules and the state
    each decision function is left in equal the reference's."""
    prog, stream = _program("traffic", "seq", 5)
    real = compute_stats(prog, stream, check_positions(len(stream), 5), 3.0, 8, 2)
    rng = np.random.default_rng(5 + (K or 0))
    rw, sel = _walk(rng, len(real), prog.n_vars, False)
    rw[rng.random(len(rw)) < 0.05] = np.inf
    stats = dataclasses.replace(real, rate_w=rw, sel=sel)
    n_events, warm = len(stream) - 37, 150
    fast_d, ref_d = _decisions(stats.monitored, K), _decisions(stats.monitored, K)
    fast = run_controllers(prog, stats, "greedy", fast_d, n_events, warm, False, {})
    ref = run_controllers_python(prog, stats, "greedy", ref_d, n_events, warm, False, {})
    for a, b in zip(fast, ref):
        _same(a, b)
    assert sum(s.n_replacements for s in ref) > 0
    for a, b in zip(fast_d, ref_d):
        if isinstance(a, InvariantDecision):
            assert a.invariants == b.invariants

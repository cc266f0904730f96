"""What PVLDB'18 adaptation costs are charged, counted by hand: a plan replacement per section 2.2
(no event's work charged twice), the statistics pass's operations, the decision checks' and the
planners' operations for n = 3 (one unit prices both), and the planners' rank agreement."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.planners.adaptive.decision import InvariantDecision, ThresholdDecision
from engines.planners.adaptive.epochs import disjoint_counters, run_plan, run_schedule
from engines.planners.adaptive.planners import greedy_plan, zstream_plan
from engines.planners.adaptive.ranking import kendall_tau, predicted_cost, rank_summary
from engines.planners.adaptive.stats import compute_stats
from engines.stream import EventStream
from workloads.adaptive import make_stream, pattern_text

SEQ_AB = "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 3 seconds"


def _ab_stream(n: int) -> EventStream:
    """A B A B ... at ts = 0, 1, 2, ...; x = 0, 1, 2, ... (every earlier A matches a later B)."""
    return EventStream.from_arrays(np.array(["A", "B"] * (n // 2)), np.arange(n, dtype=float),
                                   np.arange(n, dtype=float).reshape(-1, 1), ["A", "B"], ["x"])


# --------------------------------------------------------------------------- plan replacement
def test_switch_on_a_hand_built_stream_charges_no_event_twice():
    """8 events, window 3 s, a replacement at event 4: the old epoch's slice runs to the last
    event that can share a match with event 3 (ts <= 3 + 3 = 6) plus one, i.e. [0, 8), so
    events 4..7 (4 events) are seen by both plans.  Section 2.2 ("disjoint"): one base cost
    per event (8), and the old plan's work on matches made only of events >= 4 -- its own run
    from event 4 -- is charged once, to the new plan.  Switching to the *same* order must then
    charge exactly what one uninterrupted run charges, event by event."""
    st = _ab_stream(8)
    prog = compile_pattern(parse_pattern(SEQ_AB), st.schema)
    order = tuple(prog.positive_vars)
    ms, cnt, info = run_schedule(prog, st, "order", [0, 4], [order, order], cache={})
    assert info["overlap_events"] == 4
    np.testing.assert_array_equal(info["live"], [1, 1, 1, 1, 2, 2, 2, 2])
    assert int(info["live"].sum()) == 12          # the "duplicate" reading: a base per live plan
    one = np.asarray(run_plan(prog, st, "order", order, {}).counters)
    dup = np.asarray(run_plan(prog, st.slice(4, 8), "order", order, {}).counters)
    # the duplicate work is the old plan's own run from the replacement point
    np.testing.assert_array_equal(info["dup_rows"][4:], dup)
    assert not info["dup_rows"][:4].any()
    np.testing.assert_array_equal(info["dup_sums"], dup.sum(axis=0))
    np.testing.assert_array_equal(disjoint_counters(cnt, info), one)
    np.testing.assert_array_equal(cnt, one + info["dup_rows"])    # OpenCEP: both plans in full
    # matches: the four (A, B) pairs within 3 s whose A lies before / after the replacement
    assert len(ms) == len(run_plan(prog, st, "order", order, {}).matches)


@pytest.mark.parametrize("dataset", ["traffic", "stocks"])
def test_switch_to_the_same_order_costs_one_run(dataset):
    """On the generated streams too: chain runs are additive over partial matches, so the
    disjoint reading of a switch to the same order equals one run row by row, and the duplicate
    reading exceeds it by exactly the duplicate rows."""
    st = make_stream(dataset, 1200, 3, n_types=6, total_rate=200.0)
    prog = compile_pattern(parse_pattern(pattern_text(dataset, "seq", 3, st.schema.type_names,
                                                      0.5)), st.schema)
    order = tuple(prog.positive_vars)
    one = np.asarray(run_plan(prog, st, "order", order, {}).counters)
    for p in (300, 601):
        _, cnt, info = run_schedule(prog, st, "order", [0, p], [order, order], cache={})
        assert info["dup_sums"].sum() > 0
        np.testing.assert_array_equal(disjoint_counters(cnt, info), one)


def test_disjoint_rows_never_negative_for_trees():
    """Tree runs keep history (buffers), so their duplicate rows are clamped to the old plan's
    rows: the section 2.2 counters stay within [0, the duplicate reading's]."""
    st = make_stream("stocks", 1200, 3, n_types=6, total_rate=200.0)
    prog = compile_pattern(parse_pattern(pattern_text("stocks", "seq", 3, st.schema.type_names,
                                                      0.5)), st.schema)
    a, b, c = prog.positive_vars
    _, cnt, info = run_schedule(prog, st, "tree", [0, 600], [(((a, b), c),), ((a, (b, c)),)],
                                cache={})
    dis = disjoint_counters(cnt, info)
    assert dis.min() >= 0 and np.all(dis <= cnt) and info["dup_sums"].sum() > 0


# --------------------------------------------------------------------------- statistics upkeep
@pytest.mark.parametrize("n_samples,expected", [(2, [1, 3, 2, 3]), (1, [1, 3, 2, 2])])
def test_statistics_upkeep_equals_the_estimators_operation_count(n_samples, expected):
    """A B A B at ts 0..3, one predicate a.x < b.x, W_s = 10 s (nothing expires), one bucket.
    e0 (A): push 1.  e1 (B): bucket reset 1 + one test against e0 + push = 3.  e2 (A): one test
    against e1 + push = 2.  e3 (B): tests against min(n_samples, 2) of e0, e2 + push."""
    st = _ab_stream(4)
    prog = compile_pattern(parse_pattern(SEQ_AB.replace("3 seconds", "10 seconds")), st.schema)
    got = compute_stats(prog, st, np.array([3]), 10.0, 1, n_samples)
    np.testing.assert_array_equal(got.stat_work, expected)


def test_statistics_upkeep_counts_expiries():
    """W_s = 1.5 s, one bucket of 1.5 s: at e2 (ts 2) event e0 (ts 0) has left the window
    (ts <= 2 - 1.5): one pop; at e3 (ts 3) e1 leaves: one pop.  Buckets: e1 in [0, 1.5), e2 in
    [1.5, 3), e3 in [3, 4.5): each of their first tests resets the bucket (+1).  e2: pop, reset,
    test e1, push = 4; e3: pop, reset, test e2 (the only A left), push = 4."""
    st = _ab_stream(4)
    prog = compile_pattern(parse_pattern(SEQ_AB.replace("3 seconds", "1 seconds")), st.schema)
    got = compute_stats(prog, st, np.array([3]), 1.5, 1, 4)
    np.testing.assert_array_equal(got.stat_work, [1, 3, 4, 4])


# --------------------------------------------------------------------------- D and A, n = 3
RW = np.array([1.0, 2.0, 3.0])
SEL = np.ones((3, 3))


def test_greedy_counts_for_n3():
    """Algorithm 2 on 3 variables scores 3 + 2 + 1 = 6 candidates; its deciding conditions are
    2 (step 1) + 1 (step 2); verifying one condition recomputes its two sides (2 operations)."""
    pr = greedy_plan(((0, 1, 2),), RW, SEL)
    assert pr.plan == (0, 1, 2) and pr.steps == 6
    assert [len(b) for b in pr.blocks] == [2, 1]
    for K, work in ((None, 6), (1, 4)):          # all 3 conditions; the tightest per block
        D = InvariantDecision(0.0, K)
        D.reset(pr, RW, SEL, ((0, 1, 2),))
        assert D.check(RW, SEL) == (False, work)
    D = InvariantDecision(0.0, None)
    D.reset(pr, RW, SEL, ((0, 1, 2),))
    fired = D.check(np.array([3.0, 2.0, 1.0]), SEL)   # the first condition now fails
    assert fired == (True, 2)


def test_zstream_counts_for_n3():
    """Algorithm 3 on 3 variables: intervals of length 2 (two, one split each) and of length 3
    (one, two splits): (n^3 - n) / 6 = 4 splits.  Costs with rw = (1, 2, 3), no predicates:
    ((0,1),2) = 1 + 2 + 2 + 3 + 6 = 14 < (0,(1,2)) = 1 + 2 + 3 + 6 + 6 = 18; one condition (the
    root's losing split).  Its check recomputes the distinct subtrees of both sides: ((0,1),2),
    (0,1), 0, 1, 2 and (0,(1,2)), (1,2) = 7 (Card, Cost) evaluations."""
    pr = zstream_plan(((0, 1, 2),), RW, SEL)
    assert pr.plan == (((0, 1), 2),) and pr.steps == 4
    assert [len(b) for b in pr.blocks] == [1]
    assert (pr.blocks[0][0].f1, pr.blocks[0][0].f2) == (14.0, 18.0)
    D = InvariantDecision(0.0, 1)
    D.reset(pr, RW, SEL, ((0, 1, 2),))
    assert D.check(RW, SEL) == (False, 7)


def test_zstream_constant_subtrees_for_n3():
    """Section 4.2's constant-time reading (``subtree = "constant"``): with rw = (1, 2, 3) the
    winner ((0,1),2) keeps Cost(0,1) + Cost(2) = 5 + 3 = 8 and Card(0,1) x Card(2) = 2 x 3 = 6,
    the loser (0,(1,2)) keeps 1 + 11 = 12 and 1 x 6 = 6; each side multiplies its constant
    cardinality by the current selectivity between its subtrees: (0,2)(1,2) and (0,1)(0,2).
    One condition, 2 operations.  A rate change is invisible to it (the recomputing check fires
    on rw = (3, 2, 1): 18 > 14); sel(0,1) = 0.1 makes the loser 12 + 0.6 < 14: it fires."""
    pr = zstream_plan(((0, 1, 2),), RW, SEL)
    D = InvariantDecision(0.0, 1, "constant")
    D.reset(pr, RW, SEL, ((0, 1, 2),))
    k1, c1, p1, k2, c2, p2 = D.consts[0]
    assert (k1, c1, sorted(p1), k2, c2, sorted(p2)) == (8.0, 6.0, [(0, 2), (1, 2)], 12.0, 6.0,
                                                        [(0, 1), (0, 2)])
    assert D.check(RW, SEL) == (False, 2)
    flipped = np.array([3.0, 2.0, 1.0])
    assert D.check(flipped, SEL) == (False, 2)
    R = InvariantDecision(0.0, 1)
    R.reset(pr, RW, SEL, ((0, 1, 2),))
    assert R.check(flipped, SEL)[0]
    sel = SEL.copy()
    sel[0, 1] = sel[1, 0] = 0.1
    assert D.check(RW, sel) == (True, 2)


def test_zstream_constant_subtrees_need_a_finite_k():
    from engines.errors import CepsimInputError
    with pytest.raises(CepsimInputError, match="finite K"):
        InvariantDecision(0.0, None, "constant")
    with pytest.raises(CepsimInputError, match="zs_subtree"):
        InvariantDecision(0.0, 1, "halfway")


def test_threshold_counts_for_n3():
    """ZStream's threshold check compares every monitored value: 3 rates + 1 selectivity."""
    pr = greedy_plan(((0, 1, 2),), RW, SEL)
    D = ThresholdDecision(0.5, ((0, 1),))
    D.reset(pr, RW, SEL, ((0, 1, 2),))
    assert D.check(RW, SEL) == (False, 4)
    assert D.check(np.array([5.0, 2.0, 3.0]), SEL) == (True, 1)     # the first value deviates


def test_one_unit_prices_decisions_and_planning():
    """The default reading ("ops"): a call of A costs its steps only, and a step costs what a
    decision comparison costs; "per_call" adds a fixed price per call."""
    from sim.studies.adaptive import prices
    from sim.studies.adaptive.scenario import cost_profile
    prof, ratio = cost_profile({})
    u = prof.to_dict()["unit_cost"]
    assert ratio == 2.0 ** prices.ADAPT_LOG2
    assert u["plan_gen"] == 0.0
    assert u["planner_step"] == u["decision_check"] == pytest.approx(prices.ADAPT_OP * ratio)
    assert prof.base_cost == prices.ENGINE_BASE_COST
    per_call = cost_profile({"adapt_units": "per_call"})[0].to_dict()["unit_cost"]
    assert per_call["plan_gen"] > 0 and per_call["planner_step"] == u["planner_step"]


# --------------------------------------------------------------------------- rank agreement
def test_predicted_cost_by_hand():
    """Order (0, 1, 2), rw = (1, 2, 3), sel[0, 1] = 0.5: partial matches per prefix 1, 1*2*0.5 = 1,
    1*3 = 3 -> 5.  The tree ((0,1),2): leaves 1, 2, 3; Card(0,1) = 1, Cost 4; Card = 3, Cost 10."""
    sel = SEL.copy()
    sel[0, 1] = sel[1, 0] = 0.5
    assert predicted_cost("order", (0, 1, 2), ((0, 1, 2),), RW, sel) == 5.0
    assert predicted_cost("tree", (((0, 1), 2),), ((0, 1, 2),), RW, sel) == 10.0
    # two groups (an OR): each group's order is summed on its own
    assert predicted_cost("order", (2, 0, 1), ((0, 1), (2,)), RW, sel) == 1 + 1 + 3


def test_kendall_tau_and_regret_by_hand():
    assert kendall_tau([1, 2, 3], [10, 20, 30]) == 1.0
    assert kendall_tau([1, 2, 3], [30, 20, 10]) == -1.0
    # pairs (1,2) +, (1,3) +, (2,3) -: (2 - 1) / 3
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    pred = np.array([[1.0, 5.0], [2.0, 1.0]])       # epoch 0 trusts plan 0, epoch 1 plan 1
    work = np.array([[10.0, 3.0], [4.0, 6.0]])      # best per epoch: 4, 3
    r = rank_summary(pred, work)
    assert r["regret"] == pytest.approx((10.0 + 6.0) / (4.0 + 3.0))
    assert r["tau"] == pytest.approx(-1.0) and r["epochs"] == 2

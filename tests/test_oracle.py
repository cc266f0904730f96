"""The oracle defines the match semantics: hand-worked examples for every rule of
docs/SEMANTICS.md, plus properties against a second, naive enumerator.

Hand-worked streams are written as lists of events ``(type, ts, x[, y[, id]])``; matches are
written as strings such as ``"a0 b2 c3"`` (variable name + event index, Kleene lists as
``b1,2``) in the pattern's variable order.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from engines.compile import (KIND_KLEENE, KIND_NEG, POLICY_NEXT, WIN_COUNT, compile_pattern)
from engines.counters import MATCH_EMIT, N_COUNTERS
from engines.errors import CapacityError, CepsimInputError
from engines.oracle import _BranchOracle, _Pred, run_oracle
from engines.pattern import parse_pattern
from engines.predicates import eval_pred
from engines.stream import EventStream
from strategies import (ATTR_NAMES, GENERATED_PATTERN_WARNINGS, assert_same_matches, cases,
                        small_cases)

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

HAND_ATTRS = ("x", "y", "id", "h[0]", "h[1]", "h[2]")


def mk(*events, types=("A", "B", "C", "D")) -> EventStream:
    """Events ``(type, ts, x=0, y=0, id=0, h=(0, 0, 0))``."""
    rows, tys, ts = [], [], []
    for ev in events:
        t, time, *rest = ev
        x, y, i, h = (list(rest) + [0, 0, 0, (0, 0, 0)][len(rest):])[:4]
        tys.append(t)
        ts.append(time)
        rows.append([x, y, i, *h])
    return EventStream.from_arrays(tys if tys else np.zeros(0, np.int32), ts,
                                   np.array(rows, dtype=float).reshape(len(rows), len(HAND_ATTRS)),
                                   types, HAND_ATTRS)


def seq_stream(types: str, dt: float = 1.0, **xs) -> EventStream:
    """One event per letter, ts = index * dt, x from ``xs`` (index -> x)."""
    return mk(*[(t, i * dt, xs.get(f"x{i}", 0)) for i, t in enumerate(types)])


def fmt(rec: dict, order) -> str:
    parts = []
    for v in order:
        if v in rec:
            val = rec[v]
            parts.append(f"{v}{','.join(map(str, val))}" if isinstance(val, list) else f"{v}{val}")
    return " ".join(parts)


def run(text: str, stream: EventStream, with_detect: bool = False):
    pattern = parse_pattern(text)
    prog = compile_pattern(pattern, stream.schema)
    res = run_oracle(prog, stream)
    order = [prog.var_names[v] for v in prog.positive_vars]
    recs = [fmt(r, order) for r in res.matches.records()]
    assert len(recs) == len(set(recs)), "duplicate matches"
    if with_detect:
        return {r: int(d) for r, d in zip(recs, res.matches.detect)}
    return set(recs)


BOTH = ["skip-till-any-match", "skip-till-next-match"]


# ----------------------------------------------------------------------------- rule 1-2, DEBS'15
@pytest.mark.parametrize("policy", BOTH)
def test_debs15_intro_example(policy):
    # a1 a2 b1 a3 c1 with a.x < b.x < c.x: a3 comes after b1, so it cannot precede it
    s = mk(("A", 0, 1), ("A", 1, 2), ("B", 2, 3), ("A", 3, 0), ("C", 4, 4))
    got = run(f"PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 10 s "
              f"POLICY {policy}", s)
    assert got == {"a0 b2 c4", "a1 b2 c4"}


def test_predicates_filter_and_arithmetic():
    # b.x >= a.x * 2 - 1 : a=3 needs b>=5; a=1 needs b>=1
    s = mk(("A", 0, 3), ("A", 0, 1), ("B", 1, 4), ("B", 2, 5))
    assert run("PATTERN SEQ(A a, B b) WHERE b.x >= a.x * 2 - 1", s) == {
        "a0 b3", "a1 b2", "a1 b3"}
    assert run("PATTERN SEQ(A a, B b) WHERE |a.x - b.x| <= 1", s) == {"a0 b2"}
    assert run("PATTERN SEQ(A a, B b) WHERE a.x = 3", s) == {"a0 b2", "a0 b3"}
    assert run("PATTERN SEQ(A a, B b) WHERE b.x != 4 AND a.x < b.x * -1 + 7", s) == {
        "a1 b3"}
    # one variable on both sides
    s2 = mk(("A", 0, 1, 2), ("A", 1, 3, 2), ("B", 2))
    assert run("PATTERN SEQ(A a, B b) WHERE a.x < a.y", s2) == {"a0 b2"}


def test_equal_timestamps_keep_strict_position_order():
    s = mk(("B", 5), ("A", 5), ("B", 5), ("A", 5))
    assert run("PATTERN SEQ(A a, B b) WITHIN 1 s", s) == {"a1 b2"}
    assert run("PATTERN SEQ(A a, A a2)", mk(("A", 5), ("A", 5), ("A", 5))) == {
        "a0 a21", "a0 a22", "a1 a22"}


# ----------------------------------------------------------------------------- rule 3 windows
def test_time_window_is_inclusive():
    s = mk(("A", 0), ("B", 5))
    assert run("PATTERN SEQ(A a, B b) WITHIN 5 s", s) == {"a0 b1"}
    assert run("PATTERN SEQ(A a, B b) WITHIN 5000 ms", s) == {"a0 b1"}
    assert run("PATTERN SEQ(A a, B b) WITHIN 4.999 s", s) == set()
    assert run("PATTERN SEQ(A a, B b)", s) == {"a0 b1"}  # no WITHIN: unbounded


def test_time_window_spans_first_to_last_event():
    s = mk(("A", 0), ("B", 2), ("C", 4), ("C", 5))
    assert run("PATTERN SEQ(A a, B b, C c) WITHIN 4 s", s) == {"a0 b1 c2"}


def test_count_window_boundary():
    # positions 0 and 3: span 3 -> fits WITHIN 4 events (3 < 4) but not WITHIN 3 events
    s = mk(("A", 0), ("D", 0), ("D", 0), ("B", 0))
    assert run("PATTERN SEQ(A a, B b) WITHIN 4 events", s) == {"a0 b3"}
    assert run("PATTERN SEQ(A a, B b) WITHIN 3 events", s) == set()
    assert run("PATTERN SEQ(A a, B b) WITHIN 2 events", mk(("A", 0), ("B", 9))) == {"a0 b1"}


# ----------------------------------------------------------------------------- rule 4 negation
@pytest.mark.parametrize("policy", BOTH)
def test_not_in_the_middle_kills(policy):
    text = f"PATTERN SEQ(A a, NOT(C c), B b) POLICY {policy}"
    assert run(text, mk(("A", 0), ("C", 1), ("B", 2))) == set()
    # a0 b1 survives; a0 b3 is killed by c2.  Under next-match b1 is the only next B anyway.
    assert run(text, mk(("A", 0), ("B", 1), ("C", 2), ("B", 3))) == {"a0 b1"}
    # a C at the same timestamp but after B does not lie between a and b
    assert run(text, mk(("A", 0), ("B", 1), ("C", 1))) == {"a0 b1"}


def test_not_in_the_middle_with_predicates():
    text = "PATTERN SEQ(A a, NOT(C c), B b) WHERE c.x > a.x"
    # c.x = 1 is not > a.x = 1: no kill; c.x = 2 kills
    assert run(text, mk(("A", 0, 1), ("C", 1, 1), ("B", 2))) == {"a0 b2"}
    assert run(text, mk(("A", 0, 1), ("C", 1, 2), ("B", 2))) == set()
    # the predicate is per match: the C kills a0 (x=1) but not a1 (x=5)
    assert run(text, mk(("A", 0, 1), ("A", 0, 5), ("C", 1, 2), ("B", 2))) == {"a1 b3"}


def test_not_at_start_respects_window():
    text = "PATTERN SEQ(NOT(C c), A a, B b) WITHIN {} s"
    s = mk(("C", 0), ("A", 3), ("B", 4))
    # ts(last) - ts(c) = 4: inside a 4 s window (killed), outside a 3 s window (survives)
    assert run(text.format(4), s) == set()
    assert run(text.format(3), s) == {"a1 b2"}
    assert run("PATTERN SEQ(NOT(C c), A a, B b)", s) == set()  # unbounded
    cnt = "PATTERN SEQ(NOT(C c), A a, B b) WITHIN {} events"
    s2 = mk(("C", 0), ("D", 0), ("A", 0), ("B", 0))
    assert run(cnt.format(4), s2) == set()           # pos(b) - pos(c) = 3 < 4
    assert run(cnt.format(3), s2) == {"a2 b3"}       # 3 < 3 is false


def test_trailing_not_detection_index():
    text = "PATTERN SEQ(A a, B b, NOT(C c)) WITHIN {} s"
    s = mk(("A", 0), ("B", 1), ("C", 5), ("D", 6))
    assert run(text.format(5), s) == set()                      # ts(c) - ts(a) = 5 <= 5
    # window 4: the C at ts 5 is outside; the match is final at the first event with ts > 4,
    # which is the C itself (index 2)
    assert run(text.format(4), s, with_detect=True) == {"a0 b1": 2}
    s2 = mk(("A", 0), ("B", 1), ("D", 2), ("D", 9))
    assert run(text.format(4), s2, with_detect=True) == {"a0 b1": 3}
    # window never closes: detected at end of stream (n_events)
    s3 = mk(("A", 0), ("B", 1), ("D", 2))
    assert run(text.format(4), s3, with_detect=True) == {"a0 b1": 3}
    assert run("PATTERN SEQ(A a, B b, NOT(C c))", s2, with_detect=True) == {"a0 b1": 4}
    # without trailing NOT the detect index is the last event
    assert run("PATTERN SEQ(A a, B b)", s2, with_detect=True) == {"a0 b1": 1}


def test_trailing_not_count_window():
    text = "PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 events"
    # pos(c) - pos(a) = 3 is not < 3: not killed; detected at pos(a) + 3 = 3
    assert run(text, mk(("A", 0), ("B", 0), ("D", 0), ("C", 0)), with_detect=True) == {
        "a0 b1": 3}
    assert run(text, mk(("A", 0), ("B", 0), ("C", 0), ("D", 0))) == set()


def test_not_between_interleaved_and_elements():
    text = "PATTERN AND(SEQ(A a, NOT(C c), B b), D d)"
    assert run(text, mk(("A", 0), ("D", 1), ("B", 2))) == {"a0 b2 d1"}
    assert run(text, mk(("A", 0), ("C", 1), ("D", 2), ("B", 3))) == set()
    assert run(text, mk(("D", 0), ("A", 1), ("B", 2), ("C", 3))) == {"a1 b2 d0"}


# ----------------------------------------------------------------------------- rule 5/6 Kleene
def test_kleene_any_match_gives_all_subsets():
    s = mk(("A", 0), ("B", 1), ("B", 2), ("B", 3), ("C", 4))
    got = run("PATTERN SEQ(A a, B+ b, C c)", s)
    assert len(got) == 2 ** 3 - 1
    assert got == {f"a0 b{','.join(map(str, sub))} c4"
                   for k in (1, 2, 3) for sub in itertools.combinations((1, 2, 3), k)}


def test_kleene_predicate_must_hold_for_every_event():
    s = mk(("A", 0, 1), ("B", 1, 2), ("B", 2, 0), ("B", 3, 3), ("C", 4))
    text = "PATTERN SEQ(A a, B+ b, C c) WHERE b.x > a.x POLICY {}"
    assert run(text.format("skip-till-any-match"), s) == {"a0 b1 c4", "a0 b3 c4",
                                                            "a0 b1,3 c4"}
    # next-match: b's events are consecutive *qualifying* events (b2 does not qualify)
    assert run(text.format("skip-till-next-match"), s) == {"a0 b1 c4", "a0 b1,3 c4"}


def test_two_kleene_variables_every_pair():
    s = mk(("A", 0, 1), ("A", 1, 3), ("B", 2, 2), ("B", 3, 4))
    # a.x < b.x for every pair: a={0} with any b subset; a={1} or {0,1} only with b={3}
    assert run("PATTERN SEQ(A+ a, B+ b) WHERE a.x < b.x", s) == {
        "a0 b2", "a0 b3", "a0 b2,3", "a1 b3", "a0,1 b3"}


def test_kleene_next_match_consecutive_qualifying_events():
    s = mk(("A", 0), ("B", 1), ("B", 2), ("B", 3), ("C", 4))
    assert run("PATTERN SEQ(A a, B+ b, C c) POLICY skip-till-next-match", s) == {
        "a0 b1 c4", "a0 b1,2 c4", "a0 b1,2,3 c4"}


def test_next_match_event_qualifying_as_kleene_and_next_element():
    s = mk(("A", 0), ("B", 1), ("B", 2), ("B", 3))
    text = "PATTERN SEQ(A a, B+ b, B c) POLICY {}"
    assert run(text.format("skip-till-any-match"), s) == {
        "a0 b1 c2", "a0 b1 c3", "a0 b2 c3", "a0 b1,2 c3"}
    # next-match: b starts at the first B; each step takes the first qualifying event
    assert run(text.format("skip-till-next-match"), s) == {"a0 b1 c2", "a0 b1,2 c3"}


def test_next_match_picks_next_qualifying_event():
    s = mk(("A", 0, 1), ("B", 1, 0), ("B", 2, 2), ("B", 3, 3))
    text = "PATTERN SEQ(A a, B b) WHERE b.x > a.x POLICY {}"
    assert run(text.format("skip-till-any-match"), s) == {"a0 b2", "a0 b3"}
    assert run(text.format("skip-till-next-match"), s) == {"a0 b2"}


def test_next_match_every_event_may_start_a_run():
    s = mk(("A", 0), ("A", 1), ("B", 2), ("B", 3), ("C", 4))
    assert run("PATTERN SEQ(A a, B b, C c) POLICY skip-till-next-match", s) == {
        "a0 b2 c4", "a1 b2 c4"}
    assert run("PATTERN SEQ(A a, B b, C c) POLICY skip-till-any-match", s) == {
        "a0 b2 c4", "a0 b3 c4", "a1 b2 c4", "a1 b3 c4"}


def test_next_match_ignores_predicates_on_unbound_variables():
    # c.x > b.x mentions c, unbound when b is chosen: b must still be the next B (b1, x=5),
    # and then no C satisfies c.x > 5, so there is no match (b2 is never considered)
    s = mk(("A", 0), ("B", 1, 5), ("B", 2, 1), ("C", 3, 3))
    text = "PATTERN SEQ(A a, B b, C c) WHERE c.x > b.x POLICY {}"
    assert run(text.format("skip-till-next-match"), s) == set()
    assert run(text.format("skip-till-any-match"), s) == {"a0 b2 c3"}


def test_next_match_window_and_negation_do_not_choose_next():
    # the next B after a0 is b1; NOT(C) between a and b does not make the engine skip to b3
    s = mk(("A", 0), ("C", 1), ("B", 2), ("B", 3))
    text = "PATTERN SEQ(A a, NOT(C c), B b) POLICY skip-till-next-match"
    assert run(text, s) == set()
    # outside the window: b is not qualifying, so the scan ends
    s2 = mk(("A", 0), ("B", 5), ("B", 6))
    assert run("PATTERN SEQ(A a, B b) WITHIN 5 s POLICY skip-till-next-match", s2) == {"a0 b1"}
    assert run("PATTERN SEQ(A a, B b) WITHIN 4 s POLICY skip-till-next-match", s2) == set()


def test_not_next_to_kleene_uses_last_and_first_events():
    # only the gap between the LAST a and the FIRST b matters
    s = mk(("A", 0), ("C", 1), ("A", 2), ("B", 3))
    assert run("PATTERN SEQ(A+ a, NOT(C c), B b)", s) == {"a0,2 b3", "a2 b3"}
    s2 = mk(("A", 0), ("B", 1), ("C", 2), ("B", 3))
    assert run("PATTERN SEQ(A a, NOT(C c), B+ b)", s2) == {"a0 b1", "a0 b1,3"}


def test_negation_predicate_over_kleene_must_hold_for_every_event():
    # c kills only if c.x > b.x for every b event
    text = "PATTERN SEQ(A a, B+ b, NOT(C c)) WHERE c.x > b.x WITHIN 10 s"
    s = mk(("A", 0), ("B", 1, 1), ("B", 2, 5), ("C", 3, 3))
    assert run(text, s, with_detect=True) == {"a0 b2": 4, "a0 b1,2": 4}


def test_kleene_with_count_window_and_trailing_not_detection():
    text = "PATTERN SEQ(A a, B+ b, NOT(C c)) WITHIN 3 events"
    s = mk(("A", 0), ("B", 0), ("B", 0), ("D", 0), ("C", 0))
    assert run(text, s, with_detect=True) == {"a0 b1": 3, "a0 b2": 3, "a0 b1,2": 3}
    assert run("PATTERN SEQ(A a, B+ b) WITHIN 2 events", s) == {"a0 b1"}


def test_next_match_kleene_at_the_end_and_or_branches():
    s = mk(("A", 0), ("B", 1), ("C", 2), ("B", 3))
    assert run("PATTERN SEQ(A a, B+ b) POLICY skip-till-next-match", s) == {
        "a0 b1", "a0 b1,3"}
    # each OR branch is a run of its own
    assert run("PATTERN OR(SEQ(A a, B b), SEQ(A a2, C c)) POLICY skip-till-next-match", s) == {
        "a0 b1", "a20 c2"}


# ----------------------------------------------------------------------------- OR / AND
def test_or_branches_and_detection():
    s = mk(("A", 0), ("C", 1), ("B", 2))
    assert run("PATTERN OR(SEQ(A a, B b), C c)", s, with_detect=True) == {"a0 b2": 2, "c1": 1}
    assert run("PATTERN SEQ(A a, OR(B b, C c))", s) == {"a0 b2", "a0 c1"}


@pytest.mark.parametrize("policy", BOTH)
def test_and_interleavings(policy):
    s = mk(("A", 0), ("B", 1), ("A", 2))
    assert run(f"PATTERN AND(A a, B b) POLICY {policy}", s) == {"a0 b1", "a2 b1"}
    assert run(f"PATTERN SEQ(AND(A a, B b), C c) POLICY {policy}",
               mk(("B", 0), ("A", 1), ("C", 2))) == {"a1 b0 c2"}


def test_and_keeps_kleene_events_together():
    # a0,2 would need b1 inside the Kleene element's run: not an interleaving of elements
    s = mk(("A", 0), ("B", 1), ("A", 2))
    assert run("PATTERN AND(A+ a, B b)", s) == {"a0 b1", "a2 b1"}
    assert run("PATTERN AND(A+ a, B b)", mk(("A", 0), ("A", 1), ("B", 2))) == {
        "a0 b2", "a1 b2", "a0,1 b2"}


# ----------------------------------------------------------------------------- SAME
def test_same_partitions_positive_and_negated():
    # (type, ts, x, y, id)
    s = mk(("A", 0, 0, 0, 1), ("A", 1, 0, 0, 2), ("B", 2, 0, 0, 2), ("C", 3, 0, 0, 1),
           ("C", 4, 0, 0, 2))
    assert run("PATTERN SEQ(A a, B b, C c) WHERE SAME[id]", s) == {"a1 b2 c4"}
    assert run("PATTERN SEQ(A a, B b, C c) WHERE [id]", s) == {"a1 b2 c4"}
    text = "PATTERN SEQ(A a, NOT(B b), C c) WHERE SAME[id]"
    # a0 (id 1) .. c3 (id 1): b2 has id 2, no kill.  a1 .. c4 (id 2): b2 (id 2) kills.
    assert run(text, s) == {"a0 c3"}


def test_same_with_kleene():
    s = mk(("A", 0, 0, 0, 1), ("B", 1, 0, 0, 1), ("B", 2, 0, 0, 2), ("B", 3, 0, 0, 1))
    assert run("PATTERN SEQ(A a, B+ b) WHERE SAME[id]", s) == {"a0 b1", "a0 b3", "a0 b1,3"}


# ----------------------------------------------------------------------------- corr
def test_corr_and_zero_variance():
    s = mk(("A", 0, 0, 0, 0, (1, 2, 3)), ("B", 1, 0, 0, 0, (2, 4, 6)), ("B", 2, 0, 0, 0, (3, 2, 1)),
           ("B", 3, 0, 0, 0, (5, 5, 5)))
    assert run("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0.99", s) == {"a0 b1"}
    assert run("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) < -0.99", s) == {"a0 b2"}
    # zero variance -> NaN: every comparison false, except != (IEEE)
    assert run("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) >= -1", s) == {"a0 b1", "a0 b2"}
    assert run("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) != 7", s) == {
        "a0 b1", "a0 b2", "a0 b3"}


# ----------------------------------------------------------------------------- result shape
def test_counters_and_matchset_shape():
    s = mk(("A", 0), ("B", 1), ("B", 2), ("C", 3))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b, NOT(D d)) WITHIN 10 s"), s.schema)
    res = run_oracle(prog, s)
    assert res.counters.shape == (4, N_COUNTERS) and res.counters.dtype == np.int64
    assert res.counters[:, MATCH_EMIT].sum() == len(res.matches) == 3
    assert res.counters[3, MATCH_EMIT] == 3          # detect = n_events -> last row
    assert np.count_nonzero(np.delete(res.counters, MATCH_EMIT, axis=1)) == 0
    assert list(res.matches.detect) == [4, 4, 4]
    assert res.matches.var_names == ("a", "b") and res.matches.kleene == (False, True)
    empty = run_oracle(prog, s.slice(0, 0))
    assert len(empty.matches) == 0 and empty.counters.shape == (1, N_COUNTERS)


def test_remote_is_evaluated_and_capacity_error_names_option():
    # a.x < REMOTE[b.id]: identity by default, a table or a callable on request
    s = mk(("A", 0, 1), ("B", 1, 0, 0, 2), ("B", 2, 0, 0, 0))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.id]"),
                           s.schema)
    assert [m["b"] for m in run_oracle(prog, s).matches.records()] == [1]
    assert [m["b"] for m in run_oracle(prog, s, remote=[5.0, 0.0, 0.0]).matches.records()] == [2]
    assert len(run_oracle(prog, s, remote=lambda k: -k).matches) == 0
    with pytest.raises(CepsimInputError, match="remote table"):
        run_oracle(prog, s, remote=[1.0])
    s2 = mk(*[("A", i) for i in range(10)])
    prog2 = compile_pattern(parse_pattern("PATTERN SEQ(A a, A+ b)"), s2.schema)
    with pytest.raises(CapacityError, match="max_matches"):
        run_oracle(prog2, s2, max_matches=100)


def test_schema_mismatch_is_an_input_error():
    s = mk(("A", 0), ("B", 1))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b)"), s.schema)
    other = EventStream.from_arrays([0, 1], [0, 1], np.zeros((2, 1)), ["A", "B"], ["x"])
    with pytest.raises(CepsimInputError, match="schema"):
        run_oracle(prog, other)


# ----------------------------------------------------------------------------- properties
def test_python_predicates_equal_numba_kernel():
    """The oracle's plain-Python predicate table agrees bit for bit with engines.predicates."""
    rng = np.random.default_rng(5)
    checked = 0
    for pattern, stream in small_cases(11, 150, max_events=30):
        prog = compile_pattern(pattern, stream.schema)
        if len(stream) == 0 or len(prog.pred_i) == 0:
            continue
        # perturb attributes with non-integers so float rounding is exercised
        attrs = stream.attrs + rng.normal(0, 1, stream.attrs.shape).round(3) * (rng.random() < 0.5)
        rows = attrs.tolist()
        for p in range(len(prog.pred_i)):
            pred = _Pred(prog, p)
            for _ in range(20):
                e1, e2 = (int(v) for v in rng.integers(0, len(stream), 2))
                assert pred.eval(rows, e1, e2) == bool(eval_pred(prog.pred_i, prog.pred_f, p,
                                                                 attrs, e1, e2)), pred.text
                checked += 1
    assert checked > 1000


def _naive(prog, stream):
    """A naive enumerator: every assignment of events to the positive elements (no pruning),
    checked against SEMANTICS rules 1-7.  It reads the same compiled program and uses the Numba
    predicate kernel, so it checks the oracle's search, not the compiler; the check that shares
    nothing with the compiler is ``engines/oracle_ast.py`` (tests/test_oracle_ast.py)."""
    n, ts, types = len(stream), stream.ts, stream.types
    attrs = stream.attrs
    count = prog.window_kind == WIN_COUNT
    W = prog.window

    def inwin(i, j):
        return (j - i < W) if count else (ts[j] - ts[i] <= W)

    def holds(p, bind):
        v1, v2 = int(prog.pred_i[p, 2]), int(prog.pred_i[p, 4])
        if v2 in (-1, v1):
            return all(eval_pred(prog.pred_i, prog.pred_f, p, attrs, e, e) for e in bind[v1])
        return all(eval_pred(prog.pred_i, prog.pred_f, p, attrs, e1, e2)
                   for e1 in bind[v1] for e2 in bind[v2])

    out = {}
    for br in prog.branches:
        elems = [int(v) for v in br.pos_vars]
        negv = set(int(v) for v in br.neg_vars)
        preds = [int(p) for p in br.pred_ids]
        pos_preds = [p for p in preds if not set(prog.pred_vars(p)) & negv]

        def choices(v):
            cand = [e for e in range(n) if types[e] == prog.var_type[v]]
            if prog.var_kind[v] == KIND_KLEENE:
                return [list(c) for k in range(1, len(cand) + 1)
                        for c in itertools.combinations(cand, k)]
            return [[e] for e in cand]

        for combo in itertools.product(*[choices(v) for v in elems]):
            flat = [e for evs in combo for e in evs]
            if any(a >= b for a, b in zip(flat, flat[1:])):
                continue
            first, last = flat[0], flat[-1]
            if not inwin(first, last):
                continue
            bind = dict(zip(elems, combo))
            if not all(holds(p, bind) for p in pos_preds):
                continue
            killed = False
            for v, l, r in zip(br.neg_vars, br.neg_left, br.neg_right):
                v = int(v)
                if l < 0:
                    rng_c = [c for c in range(0, first) if inwin(c, last)]
                elif r >= len(elems):
                    rng_c = [c for c in range(last + 1, n) if inwin(first, c)]
                else:
                    rng_c = range(combo[l][-1] + 1, combo[r][0])
                for c in rng_c:
                    if types[c] == prog.var_type[v] and all(
                            holds(p, {**bind, v: [c]}) for p in preds if v in prog.pred_vars(p)):
                        killed = True
            if killed:
                continue
            if prog.policy == POLICY_NEXT:
                # rule 6 checked directly on the finished match
                steps = [(e, elems[i]) for i, evs in enumerate(combo) for e in evs]
                ok = True
                for j in range(1, len(steps)):
                    e, v = steps[j]
                    prefix: dict = {}
                    for pe, pv in steps[:j]:
                        prefix.setdefault(pv, []).append(pe)
                    for f in range(steps[j - 1][0] + 1, e):
                        b2 = {k: list(x) for k, x in prefix.items()}
                        b2.setdefault(v, []).append(f)
                        if types[f] == prog.var_type[v] and inwin(first, f) and all(
                                holds(p, b2) for p in pos_preds
                                if v in prog.pred_vars(p) and set(prog.pred_vars(p)) <= set(b2)):
                            ok = False
                            break
                    if not ok:
                        break
                if not ok:
                    continue
            if any(r >= len(elems) for r in br.neg_right):
                detect = next((e for e in range(last + 1, n) if not inwin(first, e)), n)
            else:
                detect = last
            rec = tuple(sorted((prog.var_names[v], tuple(evs) if prog.var_kind[v] == KIND_KLEENE
                                else evs[0]) for v, evs in bind.items()))
            assert rec not in out
            out[rec] = detect
    return out


def _check_against_naive(pattern, stream):
    prog = compile_pattern(pattern, stream.schema)
    res = run_oracle(prog, stream)
    got = dict(zip(res.matches.keys(), (int(d) for d in res.matches.detect)))
    want = _naive(prog, stream)
    if got != want:
        only_o = set(got) - set(want)
        only_n = set(want) - set(got)
        det = {k: (got[k], want[k]) for k in set(got) & set(want) if got[k] != want[k]}
        raise AssertionError(f"oracle vs naive differ\n{pattern}\nonly oracle: {only_o}\n"
                             f"only naive: {only_n}\ndetect (oracle, naive): {det}\n"
                             f"{stream.to_pandas()}")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(max_events=11, kleene_max_events=9, unbounded_max_events=9, max_len=4,
             windows=("time", "count", "none")))
def test_oracle_equals_naive_enumerator(case):
    _check_against_naive(*case)


def test_oracle_equals_naive_enumerator_seeded():
    for pattern, stream in small_cases(2024, 500, max_events=12, kleene_max_events=9,
                                       unbounded_max_events=9, max_len=4,
                                       windows=("time", "count", "none")):
        _check_against_naive(pattern, stream)


def _with(pattern, **changes):
    from dataclasses import replace
    return replace(pattern, **changes)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(max_events=60))
def test_next_match_is_subset_of_any_match(case):
    pattern, stream = case
    a = run_oracle(compile_pattern(_with(pattern, policy="skip-till-any-match"), stream.schema),
                   stream)
    n = run_oracle(compile_pattern(_with(pattern, policy="skip-till-next-match"), stream.schema),
                   stream)
    assert n.matches.key_set() <= a.matches.key_set()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(max_events=80, negation=False))
def test_matches_respect_window_and_order(case):
    pattern, stream = case
    prog = compile_pattern(pattern, stream.schema)
    res = run_oracle(prog, stream)
    for rec, det in zip(res.matches.records(), res.matches.detect):
        evs = sorted(e for v in rec.values() for e in (v if isinstance(v, list) else [v]))
        assert len(set(evs)) == len(evs)
        for name, v in rec.items():
            t = prog.var_type[prog.var_id(name)]
            assert all(stream.types[e] == t for e in (v if isinstance(v, list) else [v]))
        if prog.window_kind == WIN_COUNT:
            assert evs[-1] - evs[0] < prog.window
        else:
            assert stream.ts[evs[-1]] - stream.ts[evs[0]] <= prog.window
        assert det == evs[-1]      # no negation: detected at the last event


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(max_events=60, kleene_max_events=30, negation=False,
             policies=("skip-till-any-match",)))
@pytest.mark.slow
def test_any_match_monotone_in_predicates_window_and_stream(case):
    """Without negation, any-match matches only grow when a predicate is dropped, the window
    widened or events appended; they are unchanged by shifting all timestamps."""
    pattern, stream = case
    base = run_oracle(compile_pattern(pattern, stream.schema), stream).matches.key_set()
    if pattern.where:
        fewer = _with(pattern, where=pattern.where[1:])
        assert base <= run_oracle(compile_pattern(fewer, stream.schema),
                                  stream).matches.key_set()
    if pattern.window is not None:
        wider = _with(pattern, window=_with(pattern.window, value=pattern.window.value * 2))
        assert base <= run_oracle(compile_pattern(wider, stream.schema), stream).matches.key_set()
    half = stream.slice(0, len(stream) // 2)
    assert run_oracle(compile_pattern(pattern, stream.schema), half).matches.key_set() <= base
    shifted = EventStream.from_arrays(stream.types, stream.ts + 1000.0, stream.attrs,
                                      stream.schema.type_names, stream.schema.attr_names)
    assert run_oracle(compile_pattern(pattern, stream.schema), shifted).matches.key_set() == base


def test_assert_same_matches_reports_difference():
    s = mk(("A", 0), ("B", 1), ("B", 2))
    p = parse_pattern("PATTERN SEQ(A a, B b) POLICY {}".format("skip-till-any-match"))
    q = _with(p, policy="skip-till-next-match")
    a = run_oracle(compile_pattern(p, s.schema), s)
    b = run_oracle(compile_pattern(q, s.schema), s)
    assert_same_matches(a, a, (p, s))
    with pytest.raises(AssertionError) as info:
        assert_same_matches(a, b, (p, s, "note"), labels=("any", "next"))
    msg = str(info.value)
    assert "only in any (1): {a=0, b=2}" in msg and "SEQ(A a, B b)" in msg and "note" in msg
    assert "  ts" in msg or " ts " in msg


# ----------------------------------------------------------------------------- is_match, bounds
def _branch(text: str, stream: EventStream, **kw):
    """The oracle's search object for the pattern's single branch, and variable name -> index."""
    prog = compile_pattern(parse_pattern(text), stream.schema)
    assert len(prog.grouped) == 1
    return _BranchOracle(prog, prog.grouped[0], stream, **kw), {n: i for i, n in
                                                               enumerate(prog.var_names)}


def test_is_match_checks_the_definition_from_scratch():
    """The search only proposes valid bindings, so the from-scratch check (rules 1-4) is
    exercised here on hand-made bindings that break one rule each."""
    s = mk(*[(t, float(i), x) for i, (t, x) in enumerate(
        [("A", 0), ("A", 0), ("B", 0), ("B", 0), ("C", 9), ("B", 0), ("C", 0), ("A", 0)])])
    o, v = _branch("PATTERN SEQ(A a, B+ b, C c) WITHIN 5 events", s)
    ok = {v["a"]: [1], v["b"]: [2, 3], v["c"]: [4]}
    assert o.is_match(ok)
    bad = {
        "a missing": {v["b"]: [2], v["c"]: [4]},
        "two events for plain a": {v["a"]: [0, 1], v["b"]: [2], v["c"]: [4]},
        "a bound to a B event": {v["a"]: [2], v["b"]: [3], v["c"]: [4]},
        "Kleene events out of order": {v["a"]: [1], v["b"]: [3, 2], v["c"]: [4]},
        "Kleene event repeated": {v["a"]: [1], v["b"]: [2, 2], v["c"]: [4]},
        "a after b": {v["a"]: [7], v["b"]: [2], v["c"]: [4]},
        "count window: span 5 of 5": {v["a"]: [1], v["b"]: [2], v["c"]: [6]},
    }
    for why, bind in bad.items():
        assert not o.is_match(bind), why
    assert o.is_match({v["a"]: [1], v["b"]: [2], v["c"]: [4]})          # span 3 of 5
    # one event bound to two variables of the same type
    o2, v2 = _branch("PATTERN SEQ(A a, A d, C c) WITHIN 5 events", s)
    assert o2.is_match({v2["a"]: [0], v2["d"]: [1], v2["c"]: [4]})
    assert not o2.is_match({v2["a"]: [1], v2["d"]: [1], v2["c"]: [4]})
    # time window (ts = index): span 3 <= 3 holds, 5 does not
    o3, v3 = _branch("PATTERN SEQ(A a, B b, C c) WITHIN 3 s", s)
    assert o3.is_match({v3["a"]: [1], v3["b"]: [2], v3["c"]: [4]})
    assert not o3.is_match({v3["a"]: [1], v3["b"]: [2], v3["c"]: [6]})
    # a predicate and a negation are checked too
    o4, v4 = _branch("PATTERN SEQ(A a, B b, C c) WHERE c.x > 5 WITHIN 8 events", s)
    assert o4.is_match({v4["a"]: [1], v4["b"]: [2], v4["c"]: [4]})
    assert not o4.is_match({v4["a"]: [1], v4["b"]: [5], v4["c"]: [6]})       # c.x = 0
    o5, v5 = _branch("PATTERN SEQ(A a, NOT(B n), C c) WITHIN 8 events", s)
    assert not o5.is_match({v5["a"]: [1], v5["c"]: [4]})                     # B at 2, 3
    assert _branch("PATTERN SEQ(A a, NOT(B n), C c) WITHIN 8 events",
                   mk(("A", 0), ("C", 1)))[0].is_match({v5["a"]: [0], v5["c"]: [1]})


def test_search_step_bound_is_exact():
    """SEQ(A a, B b) on A, B: the search tries (0 as a), (1 as b), (1 as a): three steps."""
    s = mk(("A", 0), ("B", 1))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b)"), s.schema)
    assert len(run_oracle(prog, s, max_steps=3).matches) == 1
    msg = (r"^oracle: more than max_steps=2 search steps \(a Kleene or unwindowed pattern over "
           r"a long stream\); pass a larger max_steps= or use a shorter stream or window$")
    with pytest.raises(CapacityError, match=msg):
        run_oracle(prog, s, max_steps=2)
    o, _ = _branch("PATTERN SEQ(A a, B b)", s, max_steps=3)
    assert o.steps == 0 and o.max_steps == 3
    assert len(list(o.matches())) == 1 and o.steps == 3


def test_max_matches_bound_is_exact_and_info():
    s = mk(("A", 0), ("B", 1), ("B", 2), ("C", 3))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b) WITHIN 10 s"), s.schema)
    res = run_oracle(prog, s, max_matches=3)                # exactly 3 matches: allowed
    assert len(res.matches) == 3
    assert res.info == {"engine": "oracle", "branches": 1}
    with pytest.raises(CapacityError, match=r"^oracle: more than max_matches=2 matches; raise "
                                            r"the cap with --max-matches / max_matches=, or use a "
                                            r"shorter stream or window$"):
        run_oracle(prog, s, max_matches=2)
    # detection rows: each match counted once at its detect row
    assert res.counters[:, MATCH_EMIT].tolist() == [0, 1, 2, 0]
    prog2 = compile_pattern(parse_pattern("PATTERN OR(SEQ(A a, B b), SEQ(A a2, C c)) "
                                          "WITHIN 10 s"), s.schema)
    assert run_oracle(prog2, s).info == {"engine": "oracle", "branches": 2}


def test_schema_mismatch_in_either_part_and_remote_table_bounds():
    s = mk(("A", 0), ("B", 1))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b)"), s.schema)
    msg = (r": the stream's schema differs from the one the pattern was compiled for; compile "
           r"the pattern against this stream's schema$")
    attrs_differ = EventStream.from_arrays([0, 1], [0, 1], np.zeros((2, len(HAND_ATTRS))),
                                           ["A", "B", "C", "D"], ["q", *HAND_ATTRS[1:]])
    types_differ = EventStream.from_arrays([0, 1], [0, 1], np.zeros((2, len(HAND_ATTRS))),
                                           ["A", "B", "C", "E"], HAND_ATTRS)
    for other in (attrs_differ, types_differ):
        with pytest.raises(CepsimInputError, match=msg):
            run_oracle(prog, other)
    # REMOTE[b.id] with b.id = 2: a table of length 2 does not cover key 2, length 3 does
    s2 = mk(("A", 0, 1), ("B", 1, 0, 0, 2))
    prog2 = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.id]"),
                            s2.schema)
    with pytest.raises(CepsimInputError, match=r"^remote key 2\.0 is not an index of the remote "
                                               r"table \(length 2\); make the table cover every "
                                               r"key$"):
        run_oracle(prog2, s2, remote=[0.0, 0.0])
    assert len(run_oracle(prog2, s2, remote=[0.0, 0.0, 5.0]).matches) == 1


def test_remote_forms_order_and_one_event_stream():
    """``REMOTE[y.b] OP c`` and ``x.a OP REMOTE[y.b] * k + c`` against hand-computed values;
    matches come ordered by detection index; a detection past the end of a one-event stream is
    counted on its only row."""
    s = mk(("A", 0, 1, 0, 0), ("B", 1, 0, 0, 1), ("B", 2, 0, 0, 2))
    table = [10.0, 3.0, 1.0]              # R(0) = 10, R(1) = 3, R(2) = 1

    def bs(text):
        prog = compile_pattern(parse_pattern(text), s.schema)
        return [m["b"] for m in run_oracle(prog, s, remote=table).matches.records()]

    assert bs("PATTERN SEQ(A a, B b) WHERE REMOTE[b.id] <= 2") == [2]           # R = 3, 1
    assert bs("PATTERN SEQ(A a, B b) WHERE REMOTE[b.id] > 2") == [1]
    # a.x = 1 < R(b.id) * 2 - 4: b1 -> 6 - 4 = 2 (holds), b2 -> 2 - 4 = -2 (fails)
    assert bs("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.id] * 2 - 4") == [1]
    # a.x = 1 >= R(b.id) * 0.5 + 0.5: b1 -> 2 (fails), b2 -> 1 (holds)
    assert bs("PATTERN SEQ(A a, B b) WHERE a.x >= REMOTE[b.id] * 0.5 + 0.5") == [2]
    # detection order: the OR's second branch detects first (C at 1) though its key sorts later
    s2 = mk(("A", 0), ("C", 1), ("B", 2))
    prog = compile_pattern(parse_pattern("PATTERN OR(SEQ(A a, B b), SEQ(A a2, C c)) "
                                         "WITHIN 5 s"), s2.schema)
    res = run_oracle(prog, s2)
    assert list(res.matches.detect) == [1, 2]
    assert [sorted(m) for m in res.matches.records()] == [["a2", "c"], ["a", "b"]]
    one = mk(("A", 0))
    prog1 = compile_pattern(parse_pattern("PATTERN SEQ(A a, NOT(B n)) WITHIN 2 events"),
                            one.schema)
    r1 = run_oracle(prog1, one)
    assert list(r1.matches.detect) == [1] and r1.counters[:, MATCH_EMIT].tolist() == [1]

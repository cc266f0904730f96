"""The steppable NFA with a Kleene closure and AND (engines/evaluators/stepper.py):

* stepping every event gives exactly ``run_eager``'s matches, detection indices and per-event
  counters (the columns both define alike) on random streams and patterns with one Kleene
  variable (not last, not inside an AND) and/or AND groups (nested in SEQ), predicates and NOT
  at the start, middle and end, time window or none;
* stepping a random subset S gives the oracle's matches on ``stream[S]`` (docs/SEMANTICS.md
  rules 1-5: every non-empty ordered subset of the qualifying Kleene events);
* the NASDAQ sample (workloads/data/opencep_nasdaq) with Kleene and AND patterns equals
  ``eager``;
* hand-counted streams: the Kleene matches, LOOP clones and list storage growth; an AND's
  matches in both orders and its per-mask instances;
* ``drop_pms`` / ``pm_snapshot`` / ``LIVE_BOUND`` on Kleene instances (a Kleene list is one
  bound slot), and the refusals that remain.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.evaluators.eager import run_eager
from engines.evaluators.stepper import Stepper, run_stepped
from engines.evaluators.stepper_tables import check_supported
from engines.matches import MatchSet
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.stream import EventStream
from strategies import (GENERATED_PATTERN_WARNINGS, assert_same_matches, cases,
                        pattern_has_kleene, small_cases)

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large,
                                                      HealthCheck.filter_too_much])
OPTS = dict(kleene=True, and_or=True, policies=("skip-till-any-match",), max_len=4,
            max_preds=3, n_types=3, windows=("time", "none"))
SAME_COLS = [C.PRED_EVAL, C.EDGE_EVAL, C.PM_CREATED, C.PM_REMOVED, C.BUF_INSERT, C.MATCH_EMIT,
             C.INSTANCE_WORK, C.LIVE_PM, C.BUFFERED]


def _supported(program) -> bool:
    try:
        check_supported(program)
    except CepsimInputError:
        return False
    return True


def _in_scope(pattern, program) -> bool:
    """A supported pattern with a Kleene variable or an AND group (the new cases)."""
    if not _supported(program):
        return False
    return pattern_has_kleene(pattern) or not program.grouped[0].is_ordered


def _sub_stream(stream: EventStream, idx: np.ndarray) -> EventStream:
    return EventStream.from_arrays(stream.types[idx], stream.ts[idx], stream.attrs[idx],
                                   stream.schema.type_names, stream.schema.attr_names)


def _map_back(ms: MatchSet, idx: np.ndarray, n: int) -> MatchSet:
    pos = np.where(ms.pos >= 0, idx[np.maximum(ms.pos, 0)] if len(idx) else ms.pos, ms.pos)
    ev = idx[ms.kl_events] if len(ms.kl_events) else ms.kl_events
    det = np.array([idx[d] if d < len(idx) else n for d in ms.detect], dtype=np.int64)
    return MatchSet(ms.var_names, ms.kleene, pos, ms.kl_start, ms.kl_len, ev, det)


def _check_vs_eager(program, stream):
    eager = run_eager(program, stream)
    ms, counters = run_stepped(program, stream)
    assert_same_matches(ms, eager, (program, stream), labels=("stepper", "eager"),
                        check_detect=True)
    n = len(stream)
    assert np.array_equal(counters[:n][:, SAME_COLS], eager.counters[:n][:, SAME_COLS])
    return ms


def test_all_events_equal_eager(match_rate):
    rate = match_rate("stepper with Kleene/AND, every event stepped, vs eager")

    @settings(max_examples=60, **SETTINGS)
    @given(cases(max_events=60, **OPTS))
    def prop(case):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        if not _in_scope(pattern, program):
            return
        ms = _check_vs_eager(program, stream)
        rate.add(pattern, len(ms))

    prop()
    rate.check(min_big=0, min_rate_big=0.0)


def test_subset_equals_oracle_on_substream(match_rate):
    rate = match_rate("stepper with Kleene/AND, random subset stepped, vs oracle")

    @settings(max_examples=60, **SETTINGS)
    @given(cases(max_events=60, **OPTS), st.integers(0, 2 ** 32 - 1),
           st.sampled_from([0.6, 0.9]))
    def prop(case, seed, keep):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        if not _in_scope(pattern, program):
            return
        rng = np.random.default_rng(seed)
        idx = np.flatnonzero(rng.random(len(stream)) < keep).astype(np.int64)
        ms, _ = run_stepped(program, stream, idx)
        sub = _sub_stream(stream, idx)
        oracle = _map_back(run_oracle(compile_pattern(pattern, sub.schema), sub).matches, idx,
                           len(stream))
        assert_same_matches(ms, oracle, (program, stream, f"stepped subset {idx.tolist()}"),
                            labels=("stepper", "oracle"), check_detect=True)
        rate.add(pattern, len(ms))

    prop()
    rate.check(min_big=0, min_rate_big=0.0)


def test_seeded_loop(match_rate):
    """Deterministic numpy-drawn cases: every event vs eager, an 80 % subset vs the oracle."""
    rate = match_rate("stepper with Kleene/AND, seeded loop (numpy), vs eager")
    rng = np.random.default_rng(11)
    n_run = 0
    for pattern, stream in small_cases(2024, 400, max_events=50, **OPTS):
        program = compile_pattern(pattern, stream.schema)
        if not _in_scope(pattern, program):
            continue
        n_run += 1
        ms = _check_vs_eager(program, stream)
        n = len(stream)
        idx = np.flatnonzero(rng.random(n) < 0.8).astype(np.int64)
        ms2, _ = run_stepped(program, stream, idx)
        sub = _sub_stream(stream, idx)
        oracle = _map_back(run_oracle(compile_pattern(pattern, sub.schema), sub).matches, idx, n)
        assert_same_matches(ms2, oracle, (program, stream), labels=("stepper", "oracle"),
                            check_detect=True)
        rate.add(pattern, len(ms))
    assert n_run >= 40
    rate.check(min_big=0, min_rate_big=0.0)


NASDAQ_KLEENE = (
    "PATTERN SEQ({a} x, {b}+ y, {c} z) WHERE y.close > x.close * 0.5 AND z.open > y.open * 0.5 "
    "WITHIN {w} minutes",
    "PATTERN SEQ({b}+ y, {c} z) WHERE y.high < z.high * 10 WITHIN {w} minutes",
    "PATTERN SEQ({a} x, NOT({c} n), {b}+ y, {a} z) WHERE n.volume > x.volume WITHIN {w} minutes",
    "PATTERN SEQ({a} x, {b}+ y, NOT({a} n), {c} z, NOT({b} m)) WHERE y.close > 0 "
    "WITHIN {w} minutes",
)


NASDAQ_AND = (
    "PATTERN AND({a} x, {b} y, {c} z) WHERE y.close > x.close * 0.5 WITHIN {w} minutes",
    "PATTERN SEQ({a} x, AND({b} y, {c} z), {a} u) WHERE u.open > y.open * 0.5 "
    "AND z.close < y.close * 10 WITHIN {w} minutes",
    "PATTERN SEQ({a} x, NOT({c} n), AND({b} y, {a} z)) WHERE n.volume > y.volume "
    "WITHIN {w} minutes",
    "PATTERN SEQ({a} x, {b}+ y, AND({c} z, {a} u), NOT({b} n)) WHERE y.close > 0 "
    "WITHIN {w} minutes",
)


@pytest.mark.parametrize("text", NASDAQ_KLEENE + NASDAQ_AND)
def test_nasdaq_sample_equals_eager(text, repo_root):
    from workloads.loaders import load_stream
    stream = load_stream(repo_root / "workloads/data/opencep_nasdaq/NASDAQ_SHORT.txt",
                         "metastock")
    names = stream.schema.type_names
    pat = text.format(a=names[1], b=names[2], c=names[3], w=2)
    program = compile_pattern(parse_pattern(pat), stream.schema)
    ms = _check_vs_eager(program, stream)
    assert len(ms) > 0, pat


def _hand_stream():
    # A(0) B(1) B(2) C(3) B(4) C(5), timestamps = positions, x = position
    types = np.array([0, 1, 1, 2, 1, 2], dtype=np.int32)
    ts = np.arange(6, dtype=np.float64)
    attrs = np.column_stack([ts, np.array([0, 1, 3, 2, 5, 9], dtype=np.float64)])
    return EventStream.from_arrays(types, ts, attrs, ("A", "B", "C"), ("x", "v"))


def test_kleene_by_hand():
    """SEQ(A a, B+ b, C c) WHERE b.v < c.v WITHIN 5 s on A B B C B C (v = 0 1 3 2 5 9):
    c = 3 (v 2) takes the lists of {1, 2} whose every v < 2: [1] only; c = 5 (v 9, window
    5 - 0 <= 5) takes every non-empty subset of {1, 2, 4}: 7 lists.  8 matches."""
    stream = _hand_stream()
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b, C c) WHERE b.v < c.v "
                                         "WITHIN 5 seconds"), stream.schema)
    stp = Stepper(prog, stream)
    rows = [stp.step(e).copy() for e in range(6)]
    got = sorted(tuple(r["b"]) + (r["c"],) for r in stp.matches().records())
    want = sorted([(1, 3)] + [tuple(s) + (5,) for s in
                              ([1], [2], [4], [1, 2], [1, 4], [2, 4], [1, 2, 4])])
    assert got == want
    # instances: A -> 1; B(1): ENTER 1 -> 2; B(2): ENTER + LOOP -> 4; B(4): ENTER + 3 LOOPs
    assert [int(r[C.PM_CREATED]) for r in rows] == [1, 1, 2, 0, 4, 0]
    assert [int(r[C.LIVE_PM]) for r in rows] == [1, 2, 4, 4, 8, 8]
    # bound slots: 1 for the A instance, 2 for every (a, b+) instance
    assert int(rows[4][C.LIVE_BOUND]) == 1 + 2 * 7
    # C(3): 3 lists offered, the predicate read newest first: [1] 1 eval, [2] 1, [1,2] 1
    # (v=3 of event 2 fails first); C(5): the 7 lists, 1 + 1 + 1 + 2 + 2 + 2 + 3 = 12
    assert int(rows[3][C.PRED_EVAL]) == 3
    assert int(rows[5][C.PRED_EVAL]) == 12


def test_kleene_list_storage_widens():
    """A list longer than the initial row width (8 events) grows the rows; the matches keep
    every event."""
    n = 14
    types = np.array([0] + [1] * 12 + [2], dtype=np.int32)
    ts = np.arange(n, dtype=np.float64)
    stream = EventStream.from_arrays(types, ts, np.zeros((n, 1)), ("A", "B", "C"), ("x",))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b, C c) WITHIN 100 seconds"),
                           stream.schema)
    ms, _ = run_stepped(prog, stream)
    assert len(ms) == 2 ** 12 - 1
    assert max(len(r["b"]) for r in ms.records()) == 12
    assert_same_matches(ms, run_oracle(prog, stream), labels=("stepper", "oracle"))


def test_kleene_drop_and_snapshot():
    stream = _hand_stream()
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b, C c) WITHIN 5 seconds"),
                           stream.schema)
    stp = Stepper(prog, stream)
    for e in range(5):
        stp.step(e)
    rows, state, first = stp.pm_snapshot()
    assert sorted(state.tolist()) == [1] + [2] * 7
    assert stp.live_bound == int(state.sum())
    b = stp.pm_bindings(rows)
    assert b.shape == (8, 3)
    kl = rows[state == 2]
    stp.drop_pms(kl[:3])
    assert stp.live == 5 and stp.live_bound == 1 + 2 * 4
    stp.step(5)
    det = stp.matches().detect
    assert int((det == 3).sum()) == 3       # C(3) met the lists [1], [2], [1, 2]
    assert int((det == 5).sum()) == 4       # the 4 lists left of 7 meet C(5)


def test_and_by_hand():
    """AND(A a, B b) WHERE a.x < b.x WITHIN 5 s on A B B C B C (x = position): b may come
    before or after a; the only A is 0, so every B after it with larger x: 3 matches.  The
    instances: each A starts one (mask {a}), each B one (mask {b}); B(1), B(2), B(4) complete
    the A instance, the A completes no earlier B instance (none before it)."""
    stream = _hand_stream()
    prog = compile_pattern(parse_pattern("PATTERN AND(A a, B b) WHERE a.x < b.x "
                                         "WITHIN 5 seconds"), stream.schema)
    stp = Stepper(prog, stream)
    rows = [stp.step(e).copy() for e in range(6)]
    assert sorted(stp.matches().keys()) == [(("a", 0), ("b", 1)), (("a", 0), ("b", 2)),
                                            (("a", 0), ("b", 4))]
    assert [int(r[C.PM_CREATED]) for r in rows] == [1, 1, 1, 0, 1, 0]
    # B(2): offered to the sentinel (start a {b} instance) and to the A instance (edge b, one
    # predicate) -- not to B(1)'s instance, whose only unbound slot wants an A
    assert int(rows[2][C.EDGE_EVAL]) == 2 and int(rows[2][C.PRED_EVAL]) == 1


def test_and_reverse_order_by_hand():
    """AND(A a, B b) WHERE a.x < b.x: a B first, then an A; the predicate (same group) is
    evaluated on the second binding whatever it is."""
    types = np.array([1, 0, 1], dtype=np.int32)
    ts = np.arange(3, dtype=np.float64)
    attrs = np.array([[5.0], [1.0], [0.0]])
    stream = EventStream.from_arrays(types, ts, attrs, ("A", "B"), ("x",))
    prog = compile_pattern(parse_pattern("PATTERN AND(A a, B b) WHERE a.x < b.x "
                                         "WITHIN 5 seconds"), stream.schema)
    ms, counters = run_stepped(prog, stream)
    # B(0) x=5 then A(1) x=1: 1 < 5 holds; B(2) x=0 after A(1): 1 < 0 fails
    assert ms.keys() == [(("a", 1), ("b", 0))]
    assert counters[:, C.PRED_EVAL].tolist() == [0, 1, 1]


@pytest.mark.parametrize("text, why", [
    ("PATTERN SEQ(A a, B+ b) WITHIN 5 seconds", "last positive element"),
    ("PATTERN SEQ(A+ a, B+ b, C c) WITHIN 5 seconds", "more than one Kleene"),
    ("PATTERN SEQ(A a, NOT(C n), B+ b, C c) WHERE n.v > b.v WITHIN 5 seconds",
     "mention the Kleene"),
    ("PATTERN SEQ(A a, B+ b, C c) WITHIN 5 seconds POLICY skip-till-next-match",
     "skip-till-next-match"),
    ("PATTERN SEQ(A a, AND(B+ b, C c)) WITHIN 5 seconds", "inside an AND"),
    ("PATTERN OR(SEQ(A a, B b), SEQ(B c, C d)) WITHIN 5 seconds", "OR patterns"),
    ("PATTERN AND(A a, B b) WITHIN 5 events", "count windows"),
])
def test_kleene_refusals(text, why):
    stream = _hand_stream()
    program = compile_pattern(parse_pattern(text), stream.schema)
    with pytest.raises(CepsimInputError, match=why):
        Stepper(program, stream)

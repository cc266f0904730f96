"""The steppable eager NFA (engines/evaluators/stepper.py).

* stepping every event gives exactly ``run_eager``'s matches, detection indices and per-event
  counters on the columns whose semantics coincide (PRED_EVAL, EDGE_EVAL, PM_CREATED,
  PM_REMOVED, BUF_INSERT, MATCH_EMIT, INSTANCE_WORK, LIVE_PM, BUFFERED);
* stepping a random subset S gives the oracle's matches on ``stream[S]``;
* an admission hook that never drops changes only DECISION_CHECK;
* ``drop_pms`` removes exactly the partial matches it is given (counted as PM_REMOVED) and
  the LIVE_BOUND gauge equals the events bound by the snapshot;
* unsupported pattern features are refused with CepsimInputError.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import counters as C
from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.errors import CepsimInputError
from engines.matches import MatchSet
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.evaluators.stepper import ADM_STATE, ADM_TYPE, Stepper, run_stepped
from engines.stream import EventStream
from strategies import assert_same_matches, cases, small_cases

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])
OPTS = dict(kleene=False, and_or=False, policies=("skip-till-any-match",), max_len=3, max_preds=2,
            n_types=3,
            windows=("time", "none"))
SAME_COLS = [C.PRED_EVAL, C.EDGE_EVAL, C.PM_CREATED, C.PM_REMOVED, C.BUF_INSERT, C.MATCH_EMIT,
             C.INSTANCE_WORK, C.LIVE_PM, C.BUFFERED]


def test_all_events_equal_eager(match_rate):
    rate = match_rate("stepper, every event stepped, vs eager")

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=80, **OPTS))
    def prop(case):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        eager = run_eager(program, stream)
        ms, counters = run_stepped(program, stream)
        assert_same_matches(ms, eager, (program, stream), labels=("stepper", "eager"),
                            check_detect=True)
        n = len(stream)
        assert np.array_equal(counters[:n][:, SAME_COLS], eager.counters[:n][:, SAME_COLS])
        rate.add(pattern, len(ms))

    prop()
    rate.check(min_big=0, min_rate_big=0.0)       # OPTS: at most 3 variables


def _sub_stream(stream: EventStream, idx: np.ndarray) -> EventStream:
    return EventStream.from_arrays(stream.types[idx], stream.ts[idx], stream.attrs[idx],
                                   stream.schema.type_names, stream.schema.attr_names)


def _map_back(ms: MatchSet, idx: np.ndarray, n: int) -> MatchSet:
    pos = np.where(ms.pos >= 0, idx[np.maximum(ms.pos, 0)] if len(idx) else ms.pos, ms.pos)
    det = np.array([idx[d] if d < len(idx) else n for d in ms.detect], dtype=np.int64)
    return MatchSet(ms.var_names, ms.kleene, pos, ms.kl_start, ms.kl_len, ms.kl_events, det)


def test_subset_equals_oracle_on_substream(match_rate):
    rate = match_rate("stepper, random subset stepped, vs oracle")

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=120, **OPTS), st.integers(0, 2 ** 32 - 1),
           st.sampled_from([0.7, 0.9]))
    def prop(case, seed, keep):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
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


def test_seeded_loop_all_and_subsets(match_rate):
    """Deterministic numpy-drawn cases (denser in matches than hypothesis' shrunk examples)."""
    rate = match_rate("stepper, seeded loop (numpy), every event vs eager")
    rate_sub = match_rate("stepper, seeded loop (numpy), 80 % subset vs oracle")
    rng = np.random.default_rng(7)
    for pattern, stream in small_cases(1313, 60, max_events=80, **OPTS):
        program = compile_pattern(pattern, stream.schema)
        ms, counters = run_stepped(program, stream)
        eager = run_eager(program, stream)
        assert_same_matches(ms, eager, (program, stream), labels=("stepper", "eager"),
                            check_detect=True)
        n = len(stream)
        assert np.array_equal(counters[:n][:, SAME_COLS], eager.counters[:n][:, SAME_COLS])
        idx = np.flatnonzero(rng.random(n) < 0.8).astype(np.int64)
        ms2, _ = run_stepped(program, stream, idx)
        sub = _sub_stream(stream, idx)
        oracle = _map_back(run_oracle(compile_pattern(pattern, sub.schema), sub).matches, idx, n)
        assert_same_matches(ms2, oracle, (program, stream), labels=("stepper", "oracle"),
                            check_detect=True)
        rate.add(pattern, len(ms))
        rate_sub.add(pattern, len(ms2))
    rate.check(min_big=0, min_rate_big=0.0)
    rate_sub.check(min_big=0, min_rate_big=0.0)


def _soccerish(n=400, seed=3):
    rng = np.random.default_rng(seed)
    types = rng.integers(0, 3, n).astype(np.int32)
    ts = np.cumsum(rng.exponential(1.0, n))
    attrs = rng.normal(size=(n, 2))
    return EventStream.from_arrays(types, ts, attrs, ("A", "B", "C"), ("x", "v"))


Q_NEG = ("PATTERN SEQ(A a, NOT(C c), B b, C d) WHERE a.x < b.x AND d.v > a.v AND c.v > 0 "
         "WITHIN 6 seconds")


@pytest.mark.parametrize("mode", [ADM_STATE, ADM_TYPE])
def test_admission_that_never_drops_changes_only_decision_checks(mode):
    stream = _soccerish()
    program = compile_pattern(parse_pattern(Q_NEG), stream.schema)
    ms0, c0 = run_stepped(program, stream)
    stp = Stepper(program, stream)
    stp.set_admission(mode, np.ones((3, 3, 4)), threshold=0.5, n_bins=4)
    rows = np.array([stp.step(e).copy() for e in range(len(stream))])
    stp.finish()
    assert_same_matches(stp.matches(), ms0, labels=("admission", "plain"), check_detect=True)
    others = [k for k in range(C.N_COUNTERS) if k != C.DECISION_CHECK]
    assert np.array_equal(rows[:, others], c0[:, others])
    # hSPICE mode counts one check per pair; eSPICE mode leaves its per-window checks to the
    # caller (engines/shedding/spice.py)
    assert (rows[:, C.DECISION_CHECK].sum() > 0) == (mode == ADM_STATE)
    assert c0[:, C.DECISION_CHECK].sum() == 0


def test_admission_that_drops_removes_pairs():
    stream = _soccerish()
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 6 seconds"), stream.schema)
    ms0, _ = run_stepped(program, stream)
    stp = Stepper(program, stream)
    util = np.ones((3, 3, 4))
    util[2, 2, :] = 0.0     # C events never extend a partial match in state A_2
    stp.set_admission(ADM_STATE, util, threshold=0.5, n_bins=4)
    for e in range(len(stream)):
        stp.step(e)
    assert len(ms0) > 0 and stp.n_matches == 0


def test_row_f_total_and_admission_switch_mid_stream():
    """``row_f`` is the returned row as float64 and ``total`` the sum of the rows; an admission
    check switched on after stepping began (kernel arguments updated in place) acts from the
    next step exactly as with a rebuilt argument list."""
    stream = _soccerish()
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 6 seconds"), stream.schema)
    n = len(stream)
    util = np.ones((3, 3, 4))
    util[2, 2, :] = 0.0

    def run(switch: bool, rebuild: bool):
        stp = Stepper(program, stream)
        rows = []
        for e in range(n):
            if switch and e == n // 2:
                stp.set_admission(ADM_STATE, util, threshold=0.5, n_bins=4)
                if rebuild:
                    stp._args = None
            r = stp.step(e)
            assert np.array_equal(stp.row_f, r.astype(np.float64))
            rows.append(r.copy())
        return stp, np.array(rows)

    a, ra = run(True, False)
    b, rb = run(True, True)
    c, rc = run(False, False)
    assert np.array_equal(ra, rb)
    assert_same_matches(a.matches(), b.matches(), labels=("in place", "rebuilt"),
                        check_detect=True)
    assert np.array_equal(a.total, ra.sum(axis=0)) and np.array_equal(c.total, rc.sum(axis=0))
    # the switch took effect at n // 2 and not before
    assert np.array_equal(ra[:n // 2], rc[:n // 2])
    assert ra[n // 2:, C.DECISION_CHECK].sum() > 0 and a.n_matches < c.n_matches


def test_drop_pms_and_live_bound():
    stream = _soccerish()
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x + 1 WITHIN 6 seconds"), stream.schema)
    full, _ = run_stepped(program, stream)
    stp = Stepper(program, stream)
    k = 200
    for e in range(k + 1):
        stp.step(e)
    rows, state, first = stp.pm_snapshot()
    assert len(rows) == stp.live > 0
    assert stp.live_bound == int(state.sum())
    assert np.array_equal(stp.live_by_state()[1:], np.bincount(state, minlength=3)[1:])
    before = stp.n_matches
    r = stp.drop_pms(rows)
    assert r[C.PM_REMOVED] == len(rows) and stp.live == 0 and stp.live_bound == 0
    for e in range(k + 1, len(stream)):
        stp.step(e)
    got = {kk for kk in stp.matches().keys()[before:]}
    want = {key for key, rec in zip(full.keys(), full.records()) if rec["a"] > k}
    assert got == want


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B+ b) WITHIN 5 seconds",
    "PATTERN OR(SEQ(A a, B b), SEQ(B c, C d)) WITHIN 5 seconds",
    "PATTERN SEQ(A a, B b) WITHIN 5 events",
    "PATTERN SEQ(A a, B b) WITHIN 5 seconds POLICY skip-till-next-match",
])
def test_refuses_unsupported(text):
    stream = _soccerish(20)
    program = compile_pattern(parse_pattern(text), stream.schema)
    with pytest.raises(CepsimInputError, match="steppable engine"):
        Stepper(program, stream)


def test_step_order_enforced():
    stream = _soccerish(20)
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 5 seconds"),
                              stream.schema)
    stp = Stepper(program, stream)
    stp.step(3)
    with pytest.raises(CepsimInputError):
        stp.step(2)

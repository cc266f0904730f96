"""The SASE-like run loop (``engines/evaluators/sase.py``): oracle's matches on simple sequences; stale runs
are visited by every event until a qualifying event deletes them (its defining behaviour)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings

from engines import counters as C
from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.evaluators.sase import run_sase
from engines.stream import EventStream
from strategies import assert_same_matches, cases


def test_sase_equals_oracle(match_rate):
    rate = match_rate("SASE run loop, sequences")

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(cases(max_events=120, min_len=2, max_len=4, simple_sequence=True, max_preds=1,
                 n_types=3, policies=("skip-till-any-match",)).filter(lambda c: len(c[1]) >= 20))
    def prop(case):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        want = run_oracle(program, stream)
        assert_same_matches(run_sase(program, stream), want,
                            (program, stream), labels=("sase", "oracle"), check_detect=True)
        rate.add(pattern, len(want.matches))

    prop()
    rate.check()


def test_stale_runs_are_visited_until_a_qualifying_event():
    # A at 0, then only C's (never B): the A run stays live and is visited by every event
    t = np.array([0] + [2] * 9)
    s = EventStream.from_arrays(t, np.arange(10.0), np.zeros((10, 1)), ("A", "B", "C"), ("x",))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 2 events"), s.schema)
    r = run_sase(prog, s)
    assert r.counters[1:, C.INSTANCE_WORK].tolist() == [1] * 9
    assert r.counters[-1, C.LIVE_PM] == 1
    # a B outside the window deletes it (after evaluating its predicates: none here)
    t2 = np.array([0, 2, 2, 2, 1, 1])
    s2 = EventStream.from_arrays(t2, np.arange(6.0), np.zeros((6, 1)), ("A", "B", "C"), ("x",))
    r2 = run_sase(prog, s2)
    assert r2.counters[4, C.PM_REMOVED] == 1 and r2.counters[4, C.LIVE_PM] == 0
    assert r2.counters[5, C.INSTANCE_WORK] == 0 and len(r2.matches) == 0

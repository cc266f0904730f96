"""The run-by-run SASE kernel (``engines/evaluators/sase_runs.py``) against the event-by-event
reference ``_sase_kernel`` (``engines/evaluators/sase.py``, the specification): every counter
column of every event equal, the same matches with the same detecting events, the same capacity
failure.  Random small streams and patterns (every predicate kind and operator, count and time
windows, repeated types), directed cases for the single-comparison fast path (each operator,
affine right side, arriving event on either side) and the APAM section 6.1 stream."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CapacityError
from engines.evaluators.sase import run_sase
from engines.pattern import parse_pattern
from engines.stream import EventStream
from strategies import GENERATED_PATTERN_WARNINGS, small_cases
from workloads import apam_synthetic as W

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)


def _sorted_matches(res):
    pos = res.matches.pos
    det = res.matches.detect
    if len(det) == 0:
        return np.zeros((0, pos.shape[1] + 1), np.int64)
    rows = np.column_stack([det, pos])
    return rows[np.lexsort(rows.T[::-1])]


def _same(prog, st, **kw):
    ref = run_sase(prog, st, reference=True, **kw)
    new = run_sase(prog, st, **kw)
    assert ref.counters.shape == new.counters.shape
    bad = np.argwhere(ref.counters != new.counters)
    assert bad.size == 0, (f"counter mismatch at (event, column) {bad[:10].tolist()}: "
                           f"ref {ref.counters[tuple(bad[0])]} new {new.counters[tuple(bad[0])]}")
    np.testing.assert_array_equal(_sorted_matches(ref), _sorted_matches(new))
    return ref


@pytest.mark.parametrize("seed", range(6))
def test_random_patterns_equal_reference(seed):
    cases = small_cases(seed, 40, max_events=150, simple_sequence=True, max_preds=3,
                        policies=("skip-till-any-match",), min_len=1, max_len=4)
    n_visits = 0
    for pattern, st in cases:
        prog = compile_pattern(pattern, st.schema)
        ref = _same(prog, st)
        n_visits += int(ref.counters.sum())
    assert n_visits > 0        # the cases did work


def _stream(n, n_types, seed, dom=50, ties=False):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, n_types, n)
    ts = np.cumsum(rng.integers(0, 3, n)).astype(float) if ties else np.arange(n, dtype=float)
    x = rng.integers(0, dom, (n, 2)).astype(float)
    return EventStream.from_arrays(t, ts, x, ("A", "B", "C", "D")[:n_types], ("x", "y"))


@pytest.mark.parametrize("where", [
    "a.x < b.x AND b.y < c.y", "a.x <= b.x AND b.y <= c.y", "a.x > b.x AND b.y > c.y",
    "a.x >= b.x AND b.y >= c.y", "b.x < a.x AND c.y > b.y", "b.x <= a.x AND c.y >= b.y",
    "a.x < b.x * 2 + 1 AND b.y > c.y * 0.5 - 3", "b.x > a.x * 2 - 7 AND c.x < a.y * 3",
    "a.x = b.x AND b.y != c.y", "a.x < b.x AND a.y < b.y AND b.y < c.y", "b.x > 10 AND c.y < a.x",
    "a.x < c.x"])
@pytest.mark.parametrize("window", ["WITHIN 40 events", "WITHIN 25 seconds"])
def test_fast_path_operators_equal_reference(where, window):
    st = _stream(900, 3, 7, ties=window.endswith("seconds"))
    prog = compile_pattern(parse_pattern(f"PATTERN SEQ(A a, B b, C c) WHERE {where} {window}"),
                           st.schema)
    ref = _same(prog, st)
    assert ref.counters.sum() > 0


def test_repeated_types_and_no_predicates_equal_reference():
    st = _stream(400, 2, 3)
    for q in ("PATTERN SEQ(A a, A b, B c) WHERE a.x < b.x WITHIN 15 events",
              "PATTERN SEQ(A a, B b, A c) WITHIN 12 events",
              "PATTERN SEQ(A a) WHERE a.x < 20 WITHIN 5 events",
              "PATTERN SEQ(A a, A b, A c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events"):
        _same(compile_pattern(parse_pattern(q), st.schema), st)


@pytest.mark.parametrize("experiment,reading", [(1, "shift"), (2, "domain"), (3, "shift")])
def test_apam_stream_equals_reference(experiment, reading):
    st = W.generate(experiment, 4000, 2, reading=reading)
    ref = _same(W.program_for(st), st)
    assert len(ref.matches) > 0


def test_capacity_failure_equals_reference():
    # the reference fails when one state would exceed its largest reachable capacity (64 here)
    st = _stream(600, 2, 5, dom=3)
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < 2 WITHIN 400 events"),
                           st.schema)
    outcomes = []
    for ref in (True, False):
        for cap in (10, 127, 128, 10_000):
            try:
                run_sase(prog, st, max_partial_matches=cap, reference=ref)
                outcomes.append((cap, "ok"))
            except CapacityError:
                outcomes.append((cap, "capacity"))
    assert outcomes[:4] == outcomes[4:]
    assert ("capacity" in {o for _, o in outcomes}) and ("ok" in {o for _, o in outcomes})

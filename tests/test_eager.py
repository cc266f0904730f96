"""Unit tests of the eager NFA: operation counters, expiry, caps, buffers, hand-worked runs.

(Match-set equality with the oracle on random cases is in ``test_eager_vs_oracle.py``.)
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.errors import CapacityError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream
from strategies import GENERATED_PATTERN_WARNINGS, small_cases

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

ATTRS = ("p", "q")


def mk(*events, types=("A", "B", "C", "D")) -> EventStream:
    """Events ``(type, ts, p=0, q=0)``."""
    tys = [e[0] for e in events]
    ts = [e[1] for e in events]
    rows = [list(e[2:]) + [0.0] * (2 - len(e[2:])) for e in events]
    return EventStream.from_arrays(tys if tys else np.zeros(0, np.int32), ts,
                                   np.array(rows, dtype=float).reshape(len(events), 2), types,
                                   ATTRS)


def run(text: str, stream: EventStream, **kw):
    return run_eager(compile_pattern(parse_pattern(text), stream.schema), stream, **kw)


def recs(result) -> list:
    ms = result.matches
    return sorted((tuple(sorted(r.items())), int(d)) for r, d in zip(ms.records(), ms.detect))


DEBS = "PATTERN SEQ(A a, B b, C c) WHERE a.p < b.p AND b.p < c.p WITHIN 10 seconds"


# ----------------------------------------------------------------------------- counters
def test_debs15_example_counts_three_then_two_edge_evaluations():
    """DEBS'15 section 7: a3 b7 c9 costs three edge evaluations; when the b edge fails the
    evaluation stops there and costs two."""
    ok = run(DEBS, mk(("A", 0, 3), ("B", 1, 7), ("C", 2, 9)))
    assert ok.counters[:, C.EDGE_EVAL].tolist() == [1, 1, 1]
    assert ok.counters[:, C.PRED_EVAL].tolist() == [0, 1, 1]   # a.p<b.p at b, b.p<c.p at c
    assert ok.counters[:, C.MATCH_EMIT].tolist() == [0, 0, 1]
    assert recs(ok) == [((("a", 0), ("b", 1), ("c", 2)), 2)]
    bad = run(DEBS, mk(("A", 0, 3), ("B", 1, 1), ("C", 2, 9)))
    assert bad.counters[:, C.EDGE_EVAL].tolist() == [1, 1, 0]
    assert int(bad.counters[:, C.EDGE_EVAL].sum()) == 2
    assert len(bad.matches) == 0


def test_any_match_clones_and_counts_instances():
    # a0 a1 b2 b3 c4: instances a0, a1 (+2), then b2 clones both (+2), b3 clones both (+2)
    s = mk(("A", 0, 1), ("A", 0, 2), ("B", 0, 5), ("B", 0, 6), ("C", 0, 9))
    r = run(DEBS, s)
    cnt = r.counters
    assert cnt[:, C.PM_CREATED].tolist() == [1, 1, 2, 2, 0]
    assert cnt[:, C.LIVE_PM].tolist() == [1, 2, 4, 6, 6]
    assert cnt[:, C.EDGE_EVAL].tolist() == [1, 1, 2, 2, 4]
    assert cnt[4, C.MATCH_EMIT] == 4
    assert len(r.matches) == 4


def test_next_match_moves_instances():
    # same stream under skip-till-next-match: a0 and a1 both take b2 (their first qualifying
    # B) and leave A-waiting; b3 finds no instance waiting for B
    s = mk(("A", 0, 1), ("A", 0, 2), ("B", 0, 5), ("B", 0, 6), ("C", 0, 9))
    r = run(DEBS + " POLICY skip-till-next-match", s)
    cnt = r.counters
    assert cnt[:, C.PM_CREATED].tolist() == [1, 1, 2, 0, 0]
    assert cnt[:, C.PM_REMOVED].tolist() == [0, 0, 2, 0, 2]
    assert cnt[:, C.LIVE_PM].tolist() == [1, 2, 2, 2, 0]
    assert cnt[:, C.EDGE_EVAL].tolist() == [1, 1, 2, 0, 2]
    assert recs(r) == [((("a", 0), ("b", 2), ("c", 4)), 4), ((("a", 1), ("b", 2), ("c", 4)), 4)]


def test_live_gauge_is_created_minus_removed_on_random_cases():
    for pattern, stream in small_cases(7, 150, max_events=80):
        r = run_eager(compile_pattern(pattern, stream.schema), stream)
        if len(stream) == 0:
            continue
        cnt = r.counters
        live = np.cumsum(cnt[:, C.PM_CREATED]) - np.cumsum(cnt[:, C.PM_REMOVED])
        assert np.array_equal(live, cnt[:, C.LIVE_PM]), str(pattern)
        assert cnt[:, C.MATCH_EMIT].sum() == len(r.matches)
        assert (cnt[:, C.PRED_EVAL] >= 0).all() and (cnt[:, C.BUFFERED] >= 0).all()


def test_counters_do_not_depend_on_buffer_sizes():
    """Tiny initial buffers (every growth, sweep and node collection path runs) give the very
    same counters and matches as the defaults."""
    for pattern, stream in small_cases(8, 120, max_events=120, kleene_max_events=60):
        program = compile_pattern(pattern, stream.schema)
        a = run_eager(program, stream)
        b = run_eager(program, stream, _tune=(1, 1, 1, 1))
        assert np.array_equal(a.counters, b.counters), str(pattern)
        assert recs(a) == recs(b)


def test_deterministic():
    """Two runs give identical counters and identical match arrays (order included), on
    cases that have matches (a case without matches would prove little)."""
    with_matches = 0
    for pattern, stream in small_cases(9, 12, max_events=60):
        program = compile_pattern(pattern, stream.schema)
        a, b = run_eager(program, stream), run_eager(program, stream)
        assert np.array_equal(a.counters, b.counters)
        for part in ("pos", "kl_start", "kl_len", "kl_events", "detect"):
            assert np.array_equal(getattr(a.matches, part), getattr(b.matches, part)), part
        with_matches += len(a.matches) > 0
    assert with_matches >= 6


# ----------------------------------------------------------------------------- expiry
def test_time_window_expiry_is_counted_at_the_first_event_outside():
    text = "PATTERN SEQ(A a, B b, C c) WITHIN 2 seconds"
    # a0 (ts 0) -> ab instance at b1 (ts 1); at ts 2 still inside (inclusive), at ts 2.5 both
    # instances (first event a0) expire
    s = mk(("A", 0), ("B", 1), ("D", 2), ("D", 2.5), ("C", 3))
    r = run(text, s)
    assert r.counters[:, C.LIVE_PM].tolist() == [1, 2, 2, 0, 0]
    assert r.counters[:, C.PM_REMOVED].tolist() == [0, 0, 0, 2, 0]
    assert len(r.matches) == 0
    s2 = mk(("A", 0), ("B", 1), ("C", 2))
    assert recs(run(text, s2)) == [((("a", 0), ("b", 1), ("c", 2)), 2)]


def test_count_window_expiry():
    text = "PATTERN SEQ(A a, B b) WITHIN 3 events"
    s = mk(("A", 0), ("D", 0), ("B", 0), ("B", 0))   # a0-b2 spans 3 positions: ok; a0-b3 not
    r = run(text, s)
    assert recs(r) == [((("a", 0), ("b", 2)), 2)]
    assert r.counters[:, C.PM_REMOVED].tolist() == [0, 0, 0, 1]
    assert r.counters[3, C.EDGE_EVAL] == 0       # the expired instance is not tried


# ----------------------------------------------------------------------------- negation
def test_trailing_not_waits_for_the_window_and_detects_there():
    text = "PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 seconds"
    s = mk(("A", 0), ("B", 1), ("D", 2), ("D", 3), ("D", 3.5), ("A", 4), ("B", 5), ("C", 6))
    r = run(text, s)
    # a0 b1 has no C within 3 s of ts 0: detected at event 4 (ts 3.5 > 0 + 3);
    # a5 b6 is killed by c7 (ts 6 - 4 <= 3)
    assert recs(r) == [((("a", 0), ("b", 1)), 4)]
    assert r.counters[4, C.MATCH_EMIT] == 1
    s2 = mk(("A", 0), ("B", 1), ("D", 2))
    r2 = run(text, s2)
    assert recs(r2) == [((("a", 0), ("b", 1)), 3)]     # end of stream: detect = n_events
    assert r2.counters[2, C.MATCH_EMIT] == 1


def test_middle_not_buffers_negative_events_within_the_window():
    text = "PATTERN SEQ(A a, NOT(C c), B b) WHERE c.p > a.p WITHIN 2 seconds"
    s = mk(("A", 0, 5), ("C", 0, 1), ("B", 1), ("A", 1, 0), ("C", 2, 3), ("B", 2), ("C", 9, 9))
    r = run(text, s)
    # c1 (p 1) does not kill a0 (p 5); c4 (p 3) kills a3-b5 but not a0-b5
    assert recs(r) == [((("a", 0), ("b", 2)), 2), ((("a", 0), ("b", 5)), 5)]
    assert r.counters[:, C.BUF_INSERT].tolist() == [0, 1, 0, 0, 1, 0, 1]
    assert r.counters[:, C.BUFFERED].tolist() == [0, 1, 1, 1, 2, 2, 1]   # c1, c4 leave at ts 9


def test_start_not_checks_preceding_events_within_the_window():
    text = "PATTERN SEQ(NOT(C c), A a, B b) WITHIN 2 seconds"
    s = mk(("C", 0), ("A", 1), ("B", 2), ("A", 3), ("B", 3))
    # a1 b2: c0 precedes a1 and ts(b2) - ts(c0) = 2 <= 2 -> killed; a1 b4 and a3 b4: c0 is
    # more than 2 s before the last event b4, so it no longer counts
    r = run(text, s)
    assert recs(r) == [((("a", 1), ("b", 4)), 4), ((("a", 3), ("b", 4)), 4)]
    assert recs(r) == recs(run_oracle(compile_pattern(parse_pattern(text), s.schema), s))


# ----------------------------------------------------------------------------- Kleene
def test_kleene_next_match_loops_and_proceeds():
    text = ("PATTERN SEQ(A a, B+ b, C c) WHERE b.p > a.p WITHIN 10 seconds "
            "POLICY skip-till-next-match")
    s = mk(("A", 0, 1), ("B", 1, 2), ("B", 2, 0), ("B", 3, 3), ("C", 4))
    r = run(text, s)
    # b2 does not qualify (p 0 < 1): the Kleene element takes b1, then b3 (next qualifying)
    assert {tuple(m["b"]) for m in r.matches.records()} == {(1, 3), (1,)}
    assert all(m["a"] == 0 and m["c"] == 4 for m in r.matches.records())
    assert r.matches.detect.tolist() == [4, 4]


def test_kleene_any_match_enumerates_subsets():
    text = "PATTERN SEQ(A a, B+ b, C c) WITHIN 10 seconds"
    s = mk(("A", 0), ("B", 1), ("B", 2), ("B", 3), ("C", 4))
    r = run(text, s)
    assert len(r.matches) == 7                       # 2^3 - 1 non-empty subsets
    assert {tuple(m["b"]) for m in r.matches.records()} == {
        (1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)}


# ----------------------------------------------------------------------------- caps, misc
def test_partial_match_cap_raises_a_clear_error():
    text = "PATTERN SEQ(A a, B+ b, C c) WITHIN 100 seconds"
    s = mk(*[("A", 0)] + [("B", i) for i in range(1, 30)])
    with pytest.raises(CapacityError) as ei:
        run(text, s, max_partial_matches=1000)
    msg = str(ei.value)
    assert "max_partial_matches" in msg and "--max-partial-matches" in msg and "1000" in msg


def test_match_cap_raises_a_clear_error():
    s = mk(*[("A", 0)] * 20 + [("B", 1)] * 20)
    with pytest.raises(CapacityError) as ei:
        run("PATTERN SEQ(A a, B b) WITHIN 5 seconds", s, max_matches=50)
    assert "max_matches" in str(ei.value) and "--max-matches" in str(ei.value)
    assert len(run("PATTERN SEQ(A a, B b) WITHIN 5 seconds", s, max_matches=400).matches) == 400


def test_or_branches_union_and_summed_counters():
    text = "PATTERN OR(SEQ(A a, B b), SEQ(A c, D d)) WITHIN 5 seconds"
    s = mk(("A", 0), ("B", 1), ("D", 2))
    r = run(text, s)
    assert {tuple(sorted(m.items())) for m in r.matches.records()} == {
        (("a", 0), ("b", 1)), (("c", 0), ("d", 2))}
    assert r.counters[0, C.PM_CREATED] == 2          # one instance per branch
    assert r.counters[0, C.LIVE_PM] == 2


def test_empty_stream_and_registry():
    s = mk()
    r = run_engine("eager", compile_pattern(parse_pattern(DEBS), s.schema), s)
    assert len(r.matches) == 0 and r.counters.shape == (1, C.N_COUNTERS)
    assert not r.counters.any()

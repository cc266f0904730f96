"""EIRES Listing 2's Q1 (section 7.1): two remote predicates of one candidate, hand-counted.

Section 7.2 explains BL3's advantage on Q1: "for a single complete match of Q1, BL3's aggregated
transmission latency is the maximal latency of all required remote data, instead of their sum
(BL1 and BL2)".  One candidate of Listing 2's Q1 (eight events, keys d.v1 and h.v1) with free
operations: BL1 blocks once at d and once at h (the sum of the two fetch latencies), BL3 with
``bl3_fetch="parallel"`` waits at h for the slower of the two overlapping fetches, and the
artifact's BL3 (``bl3_fetch="serial"``, EIRES_BL3_*/PatternMatcher.cpp 1609-1640) sleeps for one
after the other.  Fetch ``f`` takes ``L * U{1..10}`` (``engines.remote.store.fetch_latency``,
the definition the kernel draws from) plus the fixed overhead.
"""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.remote.kernel import run_remote
from engines.remote.store import fetch_latency
from engines.stream import EventStream
from workloads.eires import ATTRS, TYPES, queries

L_US, OVER_US, SEED = 10.0, 3.0, 11


def _one_candidate() -> EventStream:
    """Listing 2's order A B C D B C A D, one ID, v2 = 0 (a.v2 = h.v2), d.v1 = 7, h.v1 = 9
    (distinct keys, both below the threshold)."""
    order = "ABCDBCAD"
    v1 = [1, 2, 3, 7, 4, 5, 6, 9]
    attrs = np.array([[1.0, float(v), 0.0] for v in v1])
    return EventStream.from_arrays(np.array([TYPES.index(c) for c in order], np.int32),
                                   np.arange(8, dtype=np.float64), attrs, TYPES, ATTRS)


def _run(strategy: str, **kw):
    s = _one_candidate()
    (text,) = queries("Q1L2", greedy=False)
    prog = compile_pattern(parse_pattern(text), s.schema)
    return run_remote(prog, s, strategy=strategy, cache="lru", cache_size=4, seed=SEED,
                      latency_unit_us=L_US, fetch_overhead_us=OVER_US, **kw)


def _lat(f: int) -> float:
    return fetch_latency(SEED, f, L_US * 1e-6) + OVER_US * 1e-6


def test_listing2_q1_has_two_remote_predicates_at_d_and_h():
    (text,) = queries("Q1L2", greedy=True)
    assert "a.v1 = REMOTE[d.v1]" in text and "b.v1 = REMOTE[h.v1]" in text
    assert "a.v2 = h.v2" in text and "SEQ(A a, B b, C c, D d, B e, C f, A g, D h)" in text


@pytest.mark.parametrize("strategy, bl3_fetch, blocked, latency", [
    # BL1: a blocking fetch at d (fetch 0), another at h (fetch 1); the match's latency runs
    # from taking up h, so it holds the second one only
    ("BL1", "serial", lambda: _lat(0) + _lat(1), lambda: _lat(1)),
    # BL3 as section 7.2: both fetches issued at h to free workers, wait for the slower
    ("BL3", "parallel", lambda: max(_lat(0), _lat(1)), lambda: max(_lat(0), _lat(1))),
    # BL3 as the artifact: one sleep per remote predicate, one after the other, at h
    ("BL3", "serial", lambda: _lat(0) + _lat(1), lambda: _lat(0) + _lat(1)),
])
def test_one_candidate_blocks_for_max_or_sum(strategy, bl3_fetch, blocked, latency):
    r = _run(strategy, bl3_fetch=bl3_fetch)
    assert len(r.matches) == 1
    assert r.info["fetches"] == 2
    assert r.info["blocked_time"] == pytest.approx(blocked(), rel=1e-12)
    emit = float(r.info["emit_time"][0])
    assert emit - float(r.info["start"][7]) == pytest.approx(latency(), rel=1e-12)


def test_a_failing_second_predicate_drops_the_candidate():
    s = _one_candidate()
    (text,) = queries("Q1L2", greedy=False, threshold=8.0)     # h.v1 = 9 > 8
    prog = compile_pattern(parse_pattern(text), s.schema)
    for strategy in ("BL1", "BL3", "Hybrid"):
        r = run_remote(prog, s, strategy=strategy, cache="lru", cache_size=4, seed=SEED)
        assert len(r.matches) == 0

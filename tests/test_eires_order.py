"""The authors' order of work inside one event (engine default ``in_event_order="class"``).

``PatternMatcher::event`` (zbjob/EIRES, src/EIRES_cost_cache/PatternMatcher.cpp lines 537-559)
runs the event's transitions in query order, each over the partial matches of its source state;
a blocking fetch sleeps in the matching thread (lines 1071-1072).  So a D event first performs
the blocking fetches of the partial matches waiting for their remote check at an earlier class,
then completes the matches of a later class: their latency includes those fetches.  The
``arrival`` variant (oldest partial match first) emits the match before the fetches.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.remote.kernel import TR_BLOCK, TR_EMIT, TR_START, TR_WAIT, run_remote
from engines.stream import EventStream

TEXT = ("PATTERN SEQ(A a, B b, D c, A e, D h) WHERE SAME[id] AND c.v1 = REMOTE[a.v1] AT c "
        "WITHIN 50 events POLICY skip-till-next-match")


def _stream():
    # run 1: A(5) B D(5) A -> waits at class 3 for a D; run 2: A(7) B -> waits at class 1 for
    # a D whose remote check needs key 7; the last D(7) serves both
    rows = [("A", 5), ("B", 0), ("D", 5), ("A", 9), ("A", 7), ("B", 0), ("D", 7)]
    types = [t for t, _ in rows]
    attrs = np.array([[v, 1.0] for _, v in rows], dtype=float)
    return EventStream.from_arrays(types, np.arange(len(rows), dtype=float), attrs,
                                   ("A", "B", "D"), ("v1", "id"))


def _last_event_trace(res, i):
    kinds, a, _, _ = res.info["trace"]
    starts = np.nonzero((kinds == TR_START) & (a == i))[0]
    return list(kinds[starts[0]:])


def test_blocking_fetches_of_an_earlier_class_precede_the_match():
    s = _stream()
    prog = compile_pattern(parse_pattern(TEXT), s.schema)
    expected = run_oracle(prog, s).matches.key_set()
    unit = np.full(C.N_COUNTERS, 1e-8)
    last = len(s) - 1
    for strategy in ("BL1", "BL2"):
        r = run_remote(prog, s, strategy=strategy, cache="lru", cache_size=4, unit_cost=unit,
                       base_cost=1e-6, latency_unit_us=10.0, trace_cap=10_000)
        assert r.matches.key_set() == expected and len(expected) == 1
        tr = _last_event_trace(r, last)
        assert TR_BLOCK in tr and TR_EMIT in tr
        assert tr.index(TR_BLOCK) < tr.index(TR_EMIT), strategy
        assert TR_WAIT not in tr                     # the artifact's fetch is no worker's
        j = int(np.nonzero(r.matches.detect == last)[0][0])
        lat = r.info["emit_time"][j] - r.info["start"][last]
        assert lat >= 10e-6                          # at least one fetch latency (L * 1)
        # the oldest-first reading emits before the fetch
        r2 = run_remote(prog, s, strategy=strategy, cache="lru", cache_size=4, unit_cost=unit,
                        base_cost=1e-6, latency_unit_us=10.0, trace_cap=10_000,
                        in_event_order="arrival", merge_requests=True)
        assert r2.matches.key_set() == expected
        tr2 = _last_event_trace(r2, last)
        assert tr2.index(TR_EMIT) < tr2.index(TR_WAIT)
        lat2 = r2.info["emit_time"][j] - r2.info["start"][last]
        assert lat2 < 10e-6 < lat


def test_duplicate_requests_are_not_merged_by_default():
    """LzEval re-sends a request at every re-check that misses (PatternMatcher.cpp line 1122);
    ``merge_requests=True`` joins the one in flight."""
    rng = np.random.default_rng(2)
    n = 1500
    t = rng.integers(0, 4, n)
    attrs = np.stack([rng.integers(1, 200, n), rng.integers(0, 5, n)], 1).astype(float)
    s = EventStream.from_arrays(list(np.array(list("ABCD"))[t]), np.arange(n, dtype=float),
                                attrs, tuple("ABCD"), ("v1", "id"))
    prog = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c, D d, A e, B f) WHERE SAME[id] AND d.v1 <= REMOTE[a.v1] AT d "
        "WITHIN 60 events POLICY skip-till-next-match"), s.schema)
    unit = np.full(C.N_COUNTERS, 1e-7)
    kw = dict(strategy="LzEval", cache="lru", cache_size=20, unit_cost=unit, base_cost=1e-6,
              latency_unit_us=100.0, lz_span=3)
    off = run_remote(prog, s, **kw)
    on = run_remote(prog, s, merge_requests=True, **kw)
    assert off.matches.key_set() == on.matches.key_set() == run_oracle(prog, s).matches.key_set()
    assert off.info["fetches"] > on.info["fetches"]

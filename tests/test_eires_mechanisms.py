"""The authors' artifact's own mechanisms in the remote-data kernel, each on a hand-built stream
against a count made by hand (zbjob/EIRES 4dc0a6b; engines/remote/config.py names each line).

* LzEval postpones a missing remote predicate to the accept state: a new worker request per
  miss on the way, one blocking sleep at the accept state (``lz_postpone="accept"``,
  PatternMatcher.cpp lines 1106 / 1122); the requests queue on the W workers.
* BL3 sleeps once per completed candidate, serially, and never reads the cache
  (``bl3_fetch="serial"``, EIRES_BL3_*/PatternMatcher.cpp lines 1609-1640).
* A cache hit refreshes the key only when the predicate holds (``cache_refresh="pass"``,
  PatternMatcher.cpp lines 1056-1065); a key's count drops when a partial match leaves a state
  referencing it (``key_count="live"``, lines 879-880; ``"fifo"``, as the artifact's buffers
  remove entries, is tests/test_eires_fifo_counts.py).
* PFetch sends one prefetch per ``prefetch_period`` transitions into the classes before the
  check that hold the key, with no cache / in-flight / utility test (lines 1035-1046).
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.remote.kernel import TR_BLOCK, TR_ISSUE, run_remote
from engines.stream import EventStream

UNIT = np.full(C.N_COUNTERS, 1e-9)          # event work of nanoseconds: the replay is flat out
NEXT = "POLICY skip-till-next-match"
ANY = "POLICY skip-till-any-match"


def _stream(rows):
    """rows: (type, v1, id) -> an EventStream with attributes v1, id."""
    types = [t for t, _, _ in rows]
    attrs = np.array([[v, g] for _, v, g in rows], dtype=float)
    names = tuple(sorted(set(types) | {"A", "B", "C", "D"}))
    return EventStream.from_arrays(types, np.arange(len(rows), dtype=float), attrs, names,
                                   ("v1", "id"))


def _run(text, s, **kw):
    prog = compile_pattern(parse_pattern(text), s.schema)
    r = run_remote(prog, s, unit_cost=UNIT, base_cost=1e-9, latency_unit_us=10.0, **kw)
    assert r.matches.key_set() == run_oracle(prog, s).matches.key_set()
    return r


# ---------------------------------------------------------------- LzEval: the accept state
Q4 = ("PATTERN SEQ(A a, B b, C c, D d) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b "
      f"WITHIN 100 events {NEXT}")
ONE_RUN = [("A", 7, 1), ("B", 0, 1), ("C", 0, 1), ("D", 0, 1)]


def test_lzeval_postpones_to_the_accept_state():
    """One run, all events at t = 0: the check at b misses (request 1), the re-check at c misses
    (request 2, a new one), the accept state d blocks (a sleep): 3 fetches, 1 blocking, and the
    match waits for that sleep (>= L = 10 us after d is taken up)."""
    s = _stream(ONE_RUN)
    r = _run(Q4, s, strategy="LzEval", cache="lru", cache_size=4)
    assert len(r.matches) == 1
    assert (r.info["fetches"], r.info["blocking_fetches"]) == (3, 1)
    assert r.info["emit_time"][0] - r.info["start"][3] >= 10e-6
    # the paper's span (fixed at 1 class here): the request at b, a blocking sleep at c, a hit at
    # d - 2 fetches, the match itself waits for nothing
    r2 = _run(Q4, s, strategy="LzEval", cache="lru", cache_size=4, lz_postpone="eq8",
              lz_span=1)
    assert (r2.info["fetches"], r2.info["blocking_fetches"]) == (2, 1)
    assert r2.info["emit_time"][0] - r2.info["start"][3] < 10e-6


def test_lzeval_block_probability():
    """``lz_block_prob = 1``: the miss at b blocks at once (the artifact's -Y / -Z = 100): one
    fetch, one blocking; 0 = postpone (3 fetches, as above)."""
    s = _stream(ONE_RUN)
    r = _run(Q4, s, strategy="LzEval", cache="lru", cache_size=4, lz_block_prob=1.0)
    assert (r.info["fetches"], r.info["blocking_fetches"]) == (1, 1)
    r0 = _run(Q4, s, strategy="LzEval", cache="lru", cache_size=4, lz_block_prob=0.0)
    assert (r0.info["fetches"], r0.info["blocking_fetches"]) == (3, 1)


def test_accept_state_blocks_when_the_worker_pool_is_saturated():
    """31 runs A_k B_k at t = 0 (k = 1..31, key 100 + k) each send one request at b; one D for
    run 31 arrives at t = 305 us.  With W = 1 worker the requests queue: the 31st completes
    after 31 fetches of >= 10 us, i.e. >= 310 us, so the D misses and blocks (1 blocking of
    32 fetches).  With W = 40 every request is done within 100 us: the D hits (0 blocking)."""
    q = ("PATTERN SEQ(A a, B b, D d) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b "
         f"WITHIN 1000 events {NEXT}")
    rows = []
    for k in range(1, 32):
        rows += [("A", 100 + k, k), ("B", 0, k)]
    rows.append(("D", 0, 31))
    s = _stream(rows)
    arr = np.zeros(len(rows))
    arr[-1] = 305e-6
    prog = compile_pattern(parse_pattern(q), s.schema)
    for w, blocking in ((1, 1), (40, 0)):
        r = run_remote(prog, s, arrivals=arr, unit_cost=UNIT, base_cost=1e-9,
                       latency_unit_us=10.0, strategy="LzEval", cache="lru", cache_size=100,
                       workers=w, trace_cap=10_000)
        assert len(r.matches) == 1
        assert r.info["blocking_fetches"] == blocking, w
        assert r.info["fetches"] == 31 + blocking
        kinds = r.info["trace"][0]
        assert int((kinds == TR_BLOCK).sum()) == blocking


# ---------------------------------------------------------------- BL3: serial, no cache read
def test_bl3_serial_one_sleep_per_candidate_no_cache_read():
    """Greedy SEQ(A, B, C) over A(7) B C C: two candidates complete, (a, b, c1) at the first C
    and (a, b, c2) at the second.  Serial: one sleep each (2 fetches, 2 blocking, no hit though
    the first sleep cached key 7).  Parallel: the second candidate finds the key cached (1
    fetch, 1 hit)."""
    q = f"PATTERN SEQ(A a, B b, C c) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT c " \
        f"WITHIN 100 events {ANY}"
    s = _stream([("A", 7, 1), ("B", 0, 1), ("C", 0, 1), ("C", 0, 1)])
    r = _run(q, s, strategy="BL3", cache="lru", cache_size=4)
    assert len(r.matches) == 2
    assert (r.info["fetches"], r.info["blocking_fetches"], r.info["cache_hits"]) == (2, 2, 0)
    r2 = _run(q, s, strategy="BL3", cache="lru", cache_size=4, bl3_fetch="parallel")
    assert (r2.info["fetches"], r2.info["cache_hits"]) == (1, 1)


def test_bl3_serial_sleeps_add_up():
    """Greedy A(7) A(8) B C: two candidates complete at C, keys 7 and 8: two serial sleeps of
    >= 10 us each, so the second match is emitted >= 20 us after C is taken up."""
    q = f"PATTERN SEQ(A a, B b, C c) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT c " \
        f"WITHIN 100 events {ANY}"
    s = _stream([("A", 7, 1), ("A", 8, 1), ("B", 0, 1), ("C", 0, 1)])
    r = _run(q, s, strategy="BL3", cache="lru", cache_size=4)
    assert len(r.matches) == 2 and r.info["blocking_fetches"] == 2
    assert max(r.info["emit_time"]) - r.info["start"][3] >= 20e-6


# ---------------------------------------------------------------- the cache: refresh on pass
def test_hit_refreshes_only_when_the_predicate_holds():
    """LRU of 2, BL2, one run per id: keys 100 (holds), 9000 (fails), 100 (hit, holds: most
    recent), 9000 (hit, fails), 200 (miss: evicts the least recent), 100.  ``pass``: the failing
    hit leaves 9000 least recent, 200 evicts it, the last 100 hits: 3 blocking fetches.
    ``hit``: the failing hit refreshes 9000, 200 evicts 100, the last 100 misses: 4."""
    q = f"PATTERN SEQ(A a, B b) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b " \
        f"WITHIN 100 events {NEXT}"
    rows = []
    for g, key in enumerate((100, 9000, 100, 9000, 200, 100)):
        rows += [("A", key, g), ("B", 0, g)]
    s = _stream(rows)
    r = _run(q, s, strategy="BL2", cache="lru", cache_size=2)
    assert r.info["blocking_fetches"] == 3
    r2 = _run(q, s, strategy="BL2", cache="lru", cache_size=2, cache_refresh="hit")
    assert r2.info["blocking_fetches"] == 4


def _count(r, key):
    vals, cnt = r.info["key_values"], r.info["key_count"]
    return int(cnt[np.searchsorted(vals, float(key))])


def test_key_count_drops_when_a_partial_match_leaves():
    """Artifact utility, BL2 (only the checking class b references the key), window 5 events:
    id 1 A(100) B C - the run enters b (+1) and leaves it to complete (-1): 0;
    id 2 A(200) B then 5 X events of id 2 - it expires at b: 0;
    id 3 A(300) B - still at b: 1.  ``cumulative`` keeps every +1: 1, 1, 1."""
    q = f"PATTERN SEQ(A a, B b, C c) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b " \
        f"WITHIN 5 events {NEXT}"
    rows = [("A", 100, 1), ("B", 0, 1), ("C", 0, 1), ("A", 200, 2), ("B", 0, 2)]
    rows += [("X", 0, 2)] * 5
    rows += [("A", 300, 3), ("B", 0, 3)]
    s = _stream(rows)
    r = _run(q, s, strategy="BL2", cache="cost", cache_size=4, utility="artifact",
             key_count="live")
    assert [_count(r, k) for k in (100, 200, 300)] == [0, 0, 1]
    r2 = _run(q, s, strategy="BL2", cache="cost", cache_size=4, utility="artifact",
              key_count="cumulative")
    assert [_count(r2, k) for k in (100, 200, 300)] == [1, 1, 1]


def test_accepted_match_counts_until_its_window_expires():
    """LzEval: b, c and the accept state d reference the key.  A(100) B C D (id 1) completes:
    +1 at b, -1 +1 at c, -1 +1 at d (the accept state keeps it) = 1 right after; 5 X events of id
    1 later its window (5 events from a) has expired: 0."""
    q = ("PATTERN SEQ(A a, B b, C c, D d) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b "
         f"WITHIN 5 events {NEXT}")
    s1 = _stream(ONE_RUN)
    r = _run(q, s1, strategy="LzEval", cache="cost", cache_size=4, utility="artifact",
             key_count="live")
    assert _count(r, 7) == 1
    s2 = _stream(ONE_RUN + [("X", 0, 1)] * 2)
    r2 = _run(q, s2, strategy="LzEval", cache="cost", cache_size=4, utility="artifact",
              key_count="live")
    assert _count(r2, 7) == 0


# ---------------------------------------------------------------- PFetch: every k-th transition
def _pf_runs(n, key=7):
    rows = []
    for g in range(n):
        rows += [("A", key, g), ("B", 0, g), ("C", 0, g)]
    return rows


PF_Q = ("PATTERN SEQ(A a, B b, C c, D d) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT d "
        f"WITHIN 100 events {NEXT}")


@pytest.mark.parametrize("period, fetches", [(1, 12), (3, 4), (5, 3), (2000, 1)])
def test_pfetch_one_prefetch_per_period(period, fetches):
    """4 runs A B C (no D), all with key 7: 3 transitions each into the classes a, b, c before
    the check at d, 12 in all; the 1st, (k+1)-th, ... send a prefetch, cached or in flight or
    not: ceil(12 / k) fetches, none blocking."""
    s = _stream(_pf_runs(4))
    r = _run(PF_Q, s, strategy="PFetch", cache="lru", cache_size=4, prefetch_period=period)
    assert r.info["fetches"] == fetches
    assert r.info["blocking_fetches"] == 0


def test_pfetch_noise_prefetches_key_one():
    """Noise 1.0 (the artifact's -X 100): every prefetch is of key 1 (line 1038)."""
    rows = [("A", 1, 99), ("B", 0, 99)] + _pf_runs(4)
    s = _stream(rows)
    r = _run(PF_Q, s, strategy="PFetch", cache="lru", cache_size=4, prefetch_period=3,
             noise=1.0, trace_cap=10_000)
    kinds, a, _, _ = r.info["trace"]
    keys = r.info["key_values"][a[kinds == TR_ISSUE]]
    assert len(keys) == 5 and np.all(keys == 1.0)      # 14 transitions: 1st, 4th, ..., 13th


def test_new_options_are_checked():
    s = _stream(ONE_RUN)
    prog = compile_pattern(parse_pattern(Q4), s.schema)
    for kw in ({"lz_postpone": "later"}, {"bl3_fetch": "x"}, {"cache_refresh": "x"},
               {"key_count": "x"}, {"prefetch": "x"}, {"prefetch_period": 0},
               {"lz_block_prob": 1.5}):
        with pytest.raises(CepsimInputError):
            run_remote(prog, s, **kw)

"""``key_count="fifo"``: the artifact's key counts drop as its ``State::removeTimeouts`` removes
entries (zbjob/EIRES 4dc0a6b, src/EIRES_cost_cache/PatternMatcher.cpp): from the FRONT of a
state's buffer only, while the front entry is consumed (a non-greedy run moved on, line 1028)
or expired (lines 806-889, the decrement at 879-880), and not at all before the stream's first
window has passed (``event`` calls it only when the timestamp reaches the timeout, 539-545).
Each case against counts made by hand; ``key_count="live"`` (a count drops when the partial
match leaves the state; the accept state's entry when its window ends) beside it.

The query: SEQ(A a, B b), SAME[id], REMOTE[a.v1] checked at b, a count window of 4 events,
non-greedy, PFetch (class 0 holds the key before the check: it references it, as the artifact's
states 1-3 with ``-A``; the checking class does too).
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.remote.kernel import run_remote
from engines.stream import EventStream

Q = ("PATTERN SEQ(A a, B b) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b "
     "WITHIN 4 events POLICY skip-till-next-match")


def _counts(rows, key_count):
    """Final per-key counts {key value: count} after ``rows`` (type, v1, id)."""
    types = [t for t, _, _ in rows]
    s = EventStream.from_arrays(types, np.arange(len(rows), dtype=float),
                                np.array([[v, g] for _, v, g in rows], dtype=float),
                                ("A", "B", "C", "D"), ("v1", "id"))
    prog = compile_pattern(parse_pattern(Q), s.schema)
    r = run_remote(prog, s, unit_cost=np.full(C.N_COUNTERS, 1e-9), base_cost=1e-9,
                   latency_unit_us=10.0, strategy="PFetch", cache="lru", cache_size=4,
                   utility="artifact", key_count=key_count)
    assert r.matches.key_set() == run_oracle(prog, s).matches.key_set()
    return {int(v): int(c) for v, c in zip(r.info["key_values"], r.info["key_count"])}


FILL = ("D", 9, 9)                           # an event the pattern ignores (key 9, id 9)
# four fillers (the first window passes), then run 1 (key 1, id 1) and run 2 (key 2, id 2);
# run 2 completes at e6, run 1 never does
FRONT = [FILL] * 4 + [("A", 1, 1), ("A", 2, 2), ("B", 0, 2)] + [FILL] * 3


@pytest.mark.parametrize("n, fifo, live", [
    # through e6: run 2's class-0 entry is consumed but waits behind run 1's (live front);
    # its accept entry adds one: key 2 counts 2 (live: the leave already counted, 1)
    (7, {1: 1, 2: 2}, {1: 1, 2: 1}),
    # e8: run 1's entry (first event 4) expires: both class-0 entries leave the front; the
    # accept entry (first event 5) stays.  live: run 1 is never offered another id-1 event,
    # so its count stays
    (9, {1: 0, 2: 1}, {1: 1, 2: 1}),
    # e9: the accept entry expires (9 - 5 >= 4)
    (10, {1: 0, 2: 0}, {1: 1, 2: 0}),
])
def test_counts_leave_from_the_front(n, fifo, live):
    got_f = _counts(FRONT[:n], "fifo")
    got_l = _counts(FRONT[:n], "live")
    assert {k: got_f[k] for k in fifo} == fifo
    assert {k: got_l[k] for k in live} == live


# run 1 at e0 completes at e1: its consumed class-0 entry and its accept entry stay until the
# first window has passed (e4), then both leave
FIRST = [("A", 1, 1), ("B", 0, 1)] + [FILL] * 3


@pytest.mark.parametrize("n, fifo, live", [
    (4, {1: 2}, {1: 1}),      # e3: nothing removed yet (fifo); live: the leave at e1 counted
    (5, {1: 0}, {1: 0}),      # e4: the consumed entry and the expired accept entry leave
])
def test_no_removal_in_the_first_window(n, fifo, live):
    assert {1: _counts(FIRST[:n], "fifo")[1]} == fifo
    assert {1: _counts(FIRST[:n], "live")[1]} == live

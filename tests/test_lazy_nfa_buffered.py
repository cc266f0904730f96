"""DEBS'15 section 7's second memory metric, buffered events, counted by hand.

The lazy NFAs hold events in their input buffers (``BUFFERED``); the eager NFA holds them in the
match buffers of its live instances ("eager NFA keeps most of them inside the match buffers of
the pending instances", section 7), given by ``run_eager(..., match_buffers=True)`` as
``info['match_buffer_events']`` (distinct events held by live instances after each event)."""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.evaluators.lazy_nfa import run_chain
from engines.pattern import parse_pattern
from engines.stream import EventStream

TEXT = "PATTERN SEQ(A a, B b, C c) WHERE a.p < b.p WITHIN 3 seconds"
# position: 0    1    2    3    4    5    6    7      (ts = position, seconds)
TYPES = ["A", "B", "B", "A", "C", "B", "C", "C"]
P = [1.0, 2.0, 0.0, 5.0, 0.0, 6.0, 0.0, 0.0]


def _stream() -> EventStream:
    return EventStream.from_arrays(TYPES, np.arange(len(TYPES), dtype=float),
                                   np.array([[p] for p in P]), ("A", "B", "C"), ("p",))


def _program(s: EventStream):
    return compile_pattern(parse_pattern(TEXT), s.schema)


def test_eager_match_buffers_hand_count():
    s = _stream()
    r = run_eager(_program(s), s, match_buffers=True)
    # live instances after each event (an instance expires once its first event is more than
    # 3 s older than the current one; a complete match is emitted, not kept):
    # 0 A: (a0)                    held {0}        1
    # 1 B: (a0), (a0 b1)  [1 < 2]  held {0, 1}     2
    # 2 B: p 0 fails a0 (1 < 0)    held {0, 1}     2
    # 3 A: + (a3)                  held {0, 1, 3}  3
    # 4 C: a0's instances expire (4 - 0 > 3); nothing to complete   held {3}  1
    # 5 B: + (a3 b5)  [5 < 6]      held {3, 5}     2
    # 6 C: (a3 b5 c6) emitted      held {3, 5}     2
    # 7 C: a3 expires (7 - 3 > 3)  held {}         0
    assert r.info["match_buffer_events"].tolist() == [1, 2, 2, 3, 1, 2, 2, 0]
    assert len(r.matches) == 1
    # no negation: the negation buffer (the BUFFERED counter) stays empty
    assert int(r.counters[:, C.BUFFERED].max()) == 0


def test_eager_match_buffers_change_no_counter():
    s = _stream()
    a = run_eager(_program(s), s)
    b = run_eager(_program(s), s, match_buffers=True)
    assert np.array_equal(a.counters, b.counters)
    assert "match_buffer_events" not in a.info


def test_chain_input_buffer_hand_count():
    s = _stream()
    r = run_chain(_program(s), s, order="c,a,b")
    # chain c,a,b takes c from the stream and stores the a and b events (the types its later
    # states take) while they are inside the window of the newest event (3 s):
    # 0 A {0} 1; 1 B {0,1} 2; 2 B {0,1,2} 3; 3 A {0..3} 4; 4 C {1,2,3} 3; 5 B {2,3,5} 3;
    # 6 C {3,5} 2; 7 C {5} 1
    assert r.counters[:, C.BUFFERED].tolist() == [1, 2, 3, 4, 3, 3, 2, 1]

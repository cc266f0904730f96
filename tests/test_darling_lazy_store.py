"""The DARLING artifact's storage with its lazy expiry (``engines.shedding.lazy_store``) against
hand counts of the authors' list rules (tree_evaluation_mechanism.py 204-230: a run of expired
instances leaves a list when a scan reaches a live instance after it; a run at the end stays)."""
from __future__ import annotations

import numpy as np
import pytest

from engines.shedding.base import Shedder
from engines.shedding.memory import leaf_bits
from sim.core.costmodel import load_profile
from sim.core.shedding_queue import run_shedding

# SEQ(A a, B b, C c) WITHIN 1 s over A@0 B@0.5 A@3 B@3.2 C@3.5 A@3.6
TYPES = [0, 1, 0, 1, 2, 0]
TS = [0.0, 0.5, 3.0, 3.2, 3.5, 3.6]
PATTERN = "PATTERN SEQ(A a, B b, C c) WITHIN 1 s"


def _tiny():
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.stream import EventStream
    st = EventStream.from_arrays(np.array(TYPES, np.int32), np.array(TS, float),
                                 np.zeros((len(TYPES), 1)), ("A", "B", "C"), ("x",))
    return st, compile_pattern(parse_pattern(PATTERN), st.schema)


def _run(shedder=None, loop="auto"):
    st, prog = _tiny()
    arr = np.arange(len(TYPES)) * 100.0       # one event in the system at a time
    return run_shedding(st, prog, arr, load_profile(None), shedder, n_warm=0,
                        leaf_bits=leaf_bits(prog, st), loop=loop)


def test_leaf_bits_mark_the_later_slots():
    st, prog = _tiny()
    assert leaf_bits(prog, st).tolist() == [0, 2, 0, 2, 4, 0]


@pytest.mark.parametrize("loop", ["python", "compiled"])
def test_lazy_expiry_keeps_what_the_artifact_keeps(loop):
    """Slots after each event (A_1 = leaf a, A_2 = node (a,b), L1 = leaf b, L2 = leaf c):
    A@0: A_1 [a0] = 1.  B@0.5: scans A_1 (a0 live), L1 [b1], A_2 [(a0,b1)] = 1+1+2 = 4.
    A@3: A_1 [a0, a2]; the new a2 scans L1 = [b1]: b1 expired but last, stays; = 2+2+1 = 5.
    B@3.2: scans A_1 = [a0 expired, a2 live]: a0 leaves; L1 [b1, b3]; A_2 [(a0,b1), (a2,b3)];
    = 1+4+2 = 7.  C@3.5: scans A_2: (a0,b1) leaves; L2 [c4]; the match (a2,b3,c4) counts 3 at
    its event = 1+2+2+1+3 = 9.  A@3.6: A_1 [a2, a5]; scans L1 = [b1 expired, b3 live]: b1
    leaves = 2+2+1+1 = 6.  Peak 9; the window accounting (instances and leaf events leave when
    their window closes, matches not stored) peaks at A@3.6: a2, a5, (a2,b3), b3, c4 = 6."""
    res = _run(loop=loop)
    assert res.metrics["matches_measured"] == 1
    assert res.metrics["peak_pm_slots"] == 9
    assert res.metrics["peak_pm_slots_window"] == 6


class _DropAllBefore(Shedder):
    """Drops every live partial match before serving event ``at`` (Python loop)."""

    name = "drop_all"

    def __init__(self, at: int) -> None:
        self.at = at

    def before_step(self, i, now):
        if i == self.at:
            rows, _, _ = self.ctx.stepper.pm_snapshot()
            return False, self.ctx.stepper.drop_pms(rows)
        return False, None


def test_dropped_partial_matches_leave_the_storage_at_once():
    """As above, but every live partial match is dropped before C@3.5 (a2 and (a2,b3); a0 and
    (a0,b1) are out of the window, not live): A_1 [], A_2 [(a0,b1)] (expired, last: stays),
    L1 [b1, b3], L2 [c4], no match = 0+2+2+1 = 5 at C@3.5; A@3.6: A_1 [a5], L1 [b3] = 1+2+1+1
    = 5.  Peak: B@3.2's 7."""
    res = _run(_DropAllBefore(4), loop="python")
    assert res.metrics["matches_measured"] == 0
    assert res.metrics["pm_removed_by_shedder"] == 2
    assert res.metrics["peak_pm_slots"] == 7

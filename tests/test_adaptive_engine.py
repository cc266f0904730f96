"""The ``adaptive`` registry engine (engines/planners/adaptive/engine.py): invariant-based
re-planning end to end -- statistics, controller, epochs -- emits exactly the oracle's matches,
for both planners, time and count windows, with plans actually replaced; its counters are the
evaluator's plus the adaptation charges."""
from __future__ import annotations

import numpy as np
import pytest
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, small_cases

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.oracle import run_oracle
from engines.registry import run_engine

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

ANY = ("skip-till-any-match",)
SEQ = dict(simple_sequence=True, policies=ANY, windows=("time", "count"), n_types=(2, 3),
           max_len=3, max_preds=2, min_events=30)
TREE = dict(SEQ, simple_sequence=False, and_or=True, kleene=True, negation=True, max_len=4)


@pytest.mark.parametrize("planner, opts", [("greedy", SEQ), ("zstream", SEQ),
                                           ("zstream", TREE)],
                         ids=["greedy", "zstream-seq", "zstream-and-or-kleene-neg"])
def test_adaptive_engine_equals_oracle(planner, opts, match_rate):
    rate = match_rate(f"adaptive engine ({planner})")
    replaced = 0
    for pattern, stream in small_cases(26, 30, max_events=60, **opts):
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        # d = 0 and a check every 3 events: re-plan as often as the statistics move
        res = run_engine("adaptive", prog, stream, planner=planner, d=0.0, check_every=3)
        assert_same_matches(ref, res, (pattern, stream, planner), check_detect=True)
        assert res.counters.shape == (len(stream), C.N_COUNTERS)
        assert res.counters[:, C.STAT_UPDATE].sum() > 0       # statistics are charged
        replaced += res.info["replacements"]
        rate.add(pattern, len(ref.matches))
    assert replaced > 0, "no case replaced its plan: the test would not exercise epochs"
    rate.check(min_big=0, min_rate_big=0.0)


def test_static_decision_is_the_plain_engine_with_p0():
    """decision=static: P0 forever and no statistics charged = the evaluator run with
    initial_plan's plan, counters identical."""
    from engines.planners.adaptive.engine import initial_plan
    for pattern, stream in small_cases(7, 10, max_events=60, **SEQ):
        prog = compile_pattern(pattern, stream.schema)
        for planner, engine, key in (("greedy", "chain", "order"), ("zstream", "ztree", "plan")):
            st = run_engine("adaptive", prog, stream, planner=planner, decision="static")
            plain = run_engine(engine, prog, stream, **{key: initial_plan(prog, stream, planner)})
            np.testing.assert_array_equal(st.counters, plain.counters[:len(stream)])
            assert st.info["replacements"] == 0


def test_adaptive_engine_refuses_short_streams_and_bad_options():
    pattern, stream = small_cases(3, 1, max_events=60, **SEQ)[0]
    prog = compile_pattern(pattern, stream.schema)
    with pytest.raises(CepsimInputError, match="longer than its warm-up"):
        run_engine("adaptive", prog, stream.slice(0, 5), check_every=10)
    with pytest.raises(CepsimInputError, match="planner"):
        run_engine("adaptive", prog, stream, planner="dp")
    with pytest.raises(CepsimInputError, match="decision"):
        run_engine("adaptive", prog, stream, decision="sometimes")

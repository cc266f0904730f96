"""APAM hybrid evaluator: every plan gives exactly the oracle's matches; refusals; counters."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from engines.compile import compile_pattern
from engines.counters import BUF_INSERT, JOIN_PROBE, MATCH_EMIT, PRED_EVAL
from engines.errors import CepsimInputError
from engines.hybrid import parse_plan, run_hybrid
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.stream import EventStream
from strategies import assert_same_matches, cases, small_cases

SIMPLE = dict(simple_sequence=True, policies=("skip-till-any-match",), windows=("time", "count"))


def _random_plan(program, draw_int) -> str:
    names = [program.var_names[v] for v in program.branches[0].pos_vars]
    k = draw_int(0, len(names))
    perm = list(names)
    for i in range(len(perm) - 1, 0, -1):       # Fisher-Yates with the given chooser
        j = draw_int(0, i)
        perm[i], perm[j] = perm[j], perm[i]
    return ",".join(perm[:k]) + "/" + ",".join(perm[k:])


def test_every_plan_matches_oracle(match_rate):
    rate = match_rate("hybrid, random plans")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(case=cases(max_events=80, **SIMPLE), data=hst.data())
    def prop(case, data):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        plan = _random_plan(program, lambda lo, hi: data.draw(hst.integers(lo, hi)))
        got = run_hybrid(program, stream, plan=plan)
        want = run_oracle(program, stream)
        assert_same_matches(got, want, (program, stream, f"plan {plan}"),
                            labels=("hybrid", "oracle"), check_detect=True)
        rate.add(pattern, len(want.matches))

    prop()
    rate.check()


def test_all_plans_small_cases_both_extremes():
    """All-eager (SASE-like), all-lazy (ZStream-like) and one mixed plan on fixed cases."""
    for pattern, stream in small_cases(11, 25, max_events=60, **SIMPLE):
        program = compile_pattern(pattern, stream.schema)
        names = [program.var_names[v] for v in program.branches[0].pos_vars]
        want = run_oracle(program, stream)
        for plan in (",".join(names) + "/", "/" + ",".join(reversed(names)),
                     ",".join(names[::2]) + "/" + ",".join(names[1::2])):
            assert_same_matches(run_hybrid(program, stream, plan=plan), want,
                                (program, stream, f"plan {plan}"), check_detect=True)


def _stream(n=80, seed=3):
    rng = np.random.default_rng(seed)
    return EventStream.from_arrays(rng.integers(0, 3, n), np.arange(n, dtype=float),
                                   rng.integers(0, 5, (n, 2)), ["A", "B", "C"], ["x", "y"])


@pytest.mark.parametrize("text, what", [
    ("PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events", "Kleene"),
    ("PATTERN SEQ(A a, NOT(B b), C c) WITHIN 10 events", "negation"),
    ("PATTERN SEQ(A a, B b) WITHIN 10 events POLICY skip-till-next-match", "next-match"),
    ("PATTERN OR(SEQ(A a, B b), SEQ(A c, C d)) WITHIN 10 events", "AND/OR"),
])
def test_refuses_unsupported_with_eager_hint(text, what):
    st = _stream()
    program = compile_pattern(parse_pattern(text), st.schema)
    with pytest.raises(CepsimInputError, match="eager"):
        run_hybrid(program, st, plan=None)


def test_plan_parsing_and_errors():
    st = _stream()
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c, A d) WHERE a.x < b.x WITHIN 10 events"), st.schema)
    assert parse_plan("c,a/d,b", program) == ([0, 2], [3, 1])
    assert parse_plan("ca/db", program) == ([0, 2], [3, 1])
    for bad in ("a,b,c,d", "a/b/c,d", "a,b/c", "a,b/c,d,a", "a,b/c,z"):
        with pytest.raises(CepsimInputError):
            parse_plan(bad, program)


def test_counters_follow_the_plan():
    st = _stream(200)
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.y < c.y WITHIN 20 events"), st.schema)
    eager = run_hybrid(program, st, plan="a,b,c/")
    lazy = run_hybrid(program, st, plan="/c,b,a")
    assert eager.counters[:, BUF_INSERT].sum() == 0
    # every non-final A/B event is deferred exactly once, every C is one lazy final event
    n_ab = int(np.isin(st.types, [0, 1]).sum())
    n_c = int((st.types == 2).sum())
    assert lazy.counters[:, BUF_INSERT].sum() == n_ab + n_c
    # matches are emitted once each, at their final event
    for res in (eager, lazy):
        assert res.counters[:, MATCH_EMIT].sum() == len(res.matches)
        assert np.all(res.counters[res.matches.detect, MATCH_EMIT] > 0)
    # a merge probe costs its join conditions: PRED_EVAL >= JOIN_PROBE on lazy final events
    fin = st.types == 2
    assert np.all(lazy.counters[fin, PRED_EVAL] >= lazy.counters[fin, JOIN_PROBE])
    assert lazy.counters[fin, JOIN_PROBE].sum() > 0


def test_optimizer_plan_recorded_in_info():
    st = _stream(400)
    program = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.y < c.y WITHIN 20 events"), st.schema)
    res = run_hybrid(program, st, plan=None, warmup=200, arrival_rate=100.0)
    info = res.info
    assert len(info["candidates"]) == 4
    assert info["plan"] == info["predicted"]["plan"]
    assert {"e_qwt", "e_st_fe", "e_l"} <= set(info["candidates"][0])
    assert_same_matches(res, run_oracle(program, st))


def test_sequence_checks_counted_apart_from_parameterized_predicates():
    """JOIN_PROBE = sequence checks of probed merge pairs (1 or 2 per pair: nearest bound
    neighbours), PRED_EVAL = parameterized predicates; eager attempts are EDGE_EVAL only."""
    from engines.counters import EDGE_EVAL

    st = _stream(300, seed=5)
    W = 20
    types = st.types
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 20 events"),
                              st.schema)
    res = run_hybrid(program, st, plan="a,c/b")      # EERB (a, c), then b between them
    for i in range(len(st)):
        lo = max(0, i - W + 1)
        n_a = int((types[lo:i] == 0).sum())
        n_b = int((types[lo:i] == 1).sum())
        c = res.counters[i]
        if types[i] == 2:        # final: n_a eager attempts, n_a x n_b pairs, 2 checks each
            assert c[EDGE_EVAL] == n_a
            assert c[JOIN_PROBE] == 2 * n_a * n_b
            assert c[PRED_EVAL] == 0
        else:
            assert c[JOIN_PROBE] == 0 and c[EDGE_EVAL] == 0
    # one parameterized predicate per pair on top of one sequence check (a before final b)
    prog2 = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 20 events"), st.schema)
    lazy = run_hybrid(prog2, st, plan="/a,b")
    eager = run_hybrid(prog2, st, plan="a,b/")
    for i in np.flatnonzero(types == 1):
        n_a = int((types[max(0, i - W + 1):i] == 0).sum())
        assert lazy.counters[i, JOIN_PROBE] == n_a and lazy.counters[i, PRED_EVAL] == n_a
        assert eager.counters[i, EDGE_EVAL] == n_a and eager.counters[i, PRED_EVAL] == n_a
    assert eager.counters[:, JOIN_PROBE].sum() == 0

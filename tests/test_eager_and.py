"""Native unordered AND in the eager NFA (and the oracle's grouped search).

An AND of plain events compiles into one unordered group (``Program.grouped``) instead of its n!
orders.  Three independent checks on random streams and patterns built around such a group
(with neighbours, negations next to the group, predicates inside and across it, both policies,
time and count windows):

* the eager engine on the grouped automaton == the oracle (grouped search);
* the oracle's grouped search == the oracle over every order (``flat=True``: the definition of
  AND in docs/SEMANTICS.md, built by the old expansion);
* the eager engine on the grouped automaton == the eager engine over every order.

The fraction of drawn examples with at least one match is listed at the end of the run and
asserted (``match_rate`` fixture), overall and for 4+-variable patterns.
"""
from __future__ import annotations

import numpy as np
import pytest

from engines.errors import PatternError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.errors import CapacityError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.stream import EventStream
from strategies import assert_same_matches, streams

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])
TYPES = "ABC"
OPS = ("<", "<=", ">", ">=", "=", "!=")


@st.composite
def and_patterns(draw) -> str:
    k = draw(st.integers(2, 4))
    group = [(draw(st.sampled_from(TYPES)), f"g{i}") for i in range(k)]
    parts: list[str] = []
    names = [v for _, v in group]
    negs: list[str] = []
    if draw(st.booleans()):
        parts.append(f"{draw(st.sampled_from(TYPES))} p")
        names.insert(0, "p")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"NOT({draw(st.sampled_from(TYPES))} n1)")
        negs.append("n1")
    parts.append("AND(" + ", ".join(f"{t} {v}" for t, v in group) + ")")
    if draw(st.integers(0, 3)) == 0:
        parts.append(f"NOT({draw(st.sampled_from(TYPES))} n2)")
        negs.append("n2")
    if draw(st.booleans()):
        parts.append(f"{draw(st.sampled_from(TYPES))} q")
        names.append("q")
    structure = parts[0] if len(parts) == 1 else "SEQ(" + ", ".join(parts) + ")"
    preds = []
    for _ in range(draw(st.integers(0, 2))):
        a = draw(st.sampled_from(names + negs))
        b = draw(st.sampled_from(names))
        op = draw(st.sampled_from(OPS))
        off = draw(st.sampled_from(("", " + 1", " - 1")))
        preds.append(f"{a}.x {op} {b}.y{off}" if a != b else f"{a}.x {op} 2")
    where = (" WHERE " + " AND ".join(preds)) if preds else ""
    window = draw(st.sampled_from(("WITHIN 10 events", "WITHIN 8 s", "WITHIN 14 events")))
    policy = draw(st.sampled_from(("skip-till-any-match", "skip-till-next-match")))
    return f"PATTERN {structure}{where} {window} POLICY {policy}"


def _run_all(text: str, stream: EventStream, tiny: bool):
    program = compile_pattern(parse_pattern(text), stream.schema)
    # skip-till-next-match ANDs are compiled into their orders (engines/compile.py: each order
    # picks its own next event); the unordered group exists under skip-till-any-match
    assert any(not b.is_ordered for b in program.grouped) == (program.policy == 0)
    tune = (1, 1, 1, 1) if tiny else None
    eager = run_eager(program, stream, _tune=tune)
    oracle = run_oracle(program, stream)
    ctx = (program, stream)
    assert_same_matches(eager, oracle, ctx, labels=("eager", "oracle"), check_detect=True)
    flat_oracle = run_oracle(program, stream, flat=True)
    assert_same_matches(oracle, flat_oracle, ctx, labels=("grouped oracle", "flat oracle"),
                        check_detect=True)
    flat_eager = run_eager(program, stream, flat=True, _tune=tune)
    assert_same_matches(eager, flat_eager, ctx, labels=("grouped eager", "flat eager"),
                        check_detect=True)
    return len(oracle.matches)


def test_native_and_equals_oracle_and_every_order(match_rate):
    rate = match_rate("eager, native AND groups")

    @settings(max_examples=70, **SETTINGS)
    @given(and_patterns(), streams(n_types=3, max_events=36, min_events=10), st.booleans())
    def prop(text, stream, tiny):
        rate.add(parse_pattern(text), _run_all(text, stream, tiny))

    prop()
    rate.check()


def _stream(seed: int, n: int, types: str) -> EventStream:
    rng = np.random.default_rng(seed)
    t = rng.choice(list(types), size=n)
    ts = np.cumsum(rng.integers(0, 2, size=n)).astype(float)
    attrs = rng.integers(0, 5, size=(n, 2)).astype(float)
    return EventStream.from_arrays(list(t), ts, attrs, list(types), ("x", "y"))


@st.composite
def two_comparison_patterns(draw) -> str:
    """AND of 3 plain events (optionally after a SEQ neighbour) with 1-3 comparisons
    ``u.x OP v.y * k + c`` between different variables: edges whose predicates are one or two
    such comparisons, with the arriving event on either side, take the kernel's fast path
    (operator flipped when the event is the left operand; ``k`` and ``c`` on the instance's
    or the event's side; instances stored or matches written without candidates)."""
    names = ["g0", "g1", "g2"]
    group = "AND(" + ", ".join(f"{draw(st.sampled_from(TYPES))} {v}" for v in names) + ")"
    structure = group
    if draw(st.booleans()):
        structure = f"SEQ({draw(st.sampled_from(TYPES))} p, {group})"
        names = ["p"] + names
    preds = []
    for _ in range(draw(st.integers(1, 3))):
        a, b = draw(st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True))
        k = draw(st.sampled_from(("", " * 2", " * -1", " * 0.5")))
        c = draw(st.sampled_from(("", " + 1", " - 2")))
        preds.append(f"{a}.x {draw(st.sampled_from(OPS))} {b}.y{k}{c}")
    window = draw(st.sampled_from(("WITHIN 9 events", "WITHIN 7 s")))
    return f"PATTERN {structure} WHERE {' AND '.join(preds)} {window}"


def test_fast_path_comparisons_equal_oracle(match_rate):
    rate = match_rate("eager, AND with comparison predicates (fast path)")

    @settings(max_examples=50, **SETTINGS)
    @given(two_comparison_patterns(), st.integers(0, 10_000), st.booleans())
    def prop(text, seed, tiny):
        stream = _stream(seed, 40, "ABC")
        program = compile_pattern(parse_pattern(text), stream.schema)
        eager = run_eager(program, stream, _tune=(1, 1, 1, 1) if tiny else None)
        oracle = run_oracle(program, stream)
        assert_same_matches(eager, oracle, (program, stream), labels=("eager", "oracle"),
                            check_detect=True)
        rate.add(parse_pattern(text), len(oracle.matches))

    prop()
    rate.check()


def test_and_of_eight_equals_oracle():
    """AND of 8 (40320 orders, refused by the expansion's default limit) runs natively."""
    stream = _stream(7, 40, "ABCD")
    text = ("PATTERN AND(A a1, A a2, B b1, B b2, C c1, C c2, D d1, D d2) "
            "WHERE a1.x < a2.x AND c1.x <= d1.y WITHIN 12 events")
    program = compile_pattern(parse_pattern(text), stream.schema)
    eager = run_eager(program, stream)
    oracle = run_oracle(program, stream)
    assert len(oracle.matches) > 0
    assert_same_matches(eager, oracle, (program, stream), labels=("eager", "oracle"),
                        check_detect=True)
    # under skip-till-next-match the AND runs as its 8! orders: refused by the default capacity
    with pytest.raises(PatternError, match="more than 5000 flat alternatives.*--max-branches"):
        compile_pattern(parse_pattern(text + " POLICY skip-till-next-match"), stream.schema)


def test_max_states_is_a_capacity_option():
    stream = _stream(3, 20, "ABCD")
    program = compile_pattern(parse_pattern(
        "PATTERN AND(A a1, A a2, B b1, B b2, C c1, C c2) WITHIN 5 events"), stream.schema)
    with pytest.raises(CapacityError, match="max_states=32.*--max-states"):
        run_eager(program, stream, max_states=32)
    assert_same_matches(run_eager(program, stream, max_states=64), run_oracle(program, stream))


def test_oracle_search_is_bounded():
    """A Kleene pattern without window over a long stream: CapacityError, not an endless run."""
    stream = _stream(4, 120, "AB")
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B+ b)"), stream.schema)
    with pytest.raises(CapacityError, match="max_steps=2000"):
        run_oracle(program, stream, max_steps=2000)

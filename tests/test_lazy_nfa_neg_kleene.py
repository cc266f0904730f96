"""Negation and Kleene closure in the lazy chain NFA and tree NFA
(engines/evaluators/lazy_negkleene.py): exact match sets and detection positions against the
oracle (every chain order, the tree), the eager engine on the NASDAQ sample, the SEMANTICS
worked examples, hand-counted counters, and the plain patterns' counters against a stored
reference computed before NOT / Kleene were added."""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases, small_cases

from engines.compile import KIND_KLEENE, compile_pattern
from engines.counters import BUF_INSERT, EDGE_EVAL, MATCH_EMIT, PM_CREATED, PRED_EVAL
from engines.errors import CepsimInputError
from engines.evaluators.eager import run_eager
from engines.evaluators.lazy_nfa import run_chain, run_tree
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.pattern.ast import Attr, Compare, Event, Not, Seq
from engines.stream import EventStream

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

ANY = ("skip-till-any-match",)
REF = Path(__file__).parent / "data" / "lazy_counters_ref.npz"


def _features(prog) -> set[str]:
    """Which NOT positions / Kleene the compiled pattern has (for coverage of the tests)."""
    out = set()
    if np.any(prog.var_kind == KIND_KLEENE):
        out.add("kleene")
    for br in prog.branches:
        m = len(br.pos_vars)
        for left, right in zip(br.neg_left, br.neg_right):
            out.add("not_start" if left < 0 else "not_end" if right >= m else "not_middle")
        if len(br.neg_vars) > 1:
            out.add("not_several")
    return out


def _check_all(prog, stream, orders, context):
    ref = run_oracle(prog, stream)
    for o in orders:
        assert_same_matches(ref, run_chain(prog, stream, order=list(o)),
                            context + (f"chain {o}",), labels=("oracle", "chain"),
                            check_detect=True)
    assert_same_matches(ref, run_tree(prog, stream), context + ("tree",),
                        labels=("oracle", "tree"), check_detect=True)
    return ref


@st.composite
def _with_negations(draw):
    """A generated case (Kleene and AND/OR drawn, no NOT) with one to three NOTs inserted into
    its outermost SEQ at drawn places (start, middle, end), each with a drawn type and, half of
    the time, a predicate relating it to a positive variable: every NOT position is covered."""
    kleene = draw(st.booleans(), label="kleene")
    pattern, stream = draw(cases(max_events=40, kleene_max_events=30, policies=ANY,
                                 kleene=kleene, negation=False, and_or=draw(st.booleans()),
                                 windows=("time", "count", "none")))
    kids = list(pattern.structure.children) if isinstance(pattern.structure, Seq) \
        else [pattern.structure]
    pos_vars = [e.var for e, neg in pattern.events() if not neg]
    where = list(pattern.where)
    for i in range(draw(st.integers(1, 3), label="n_not")):
        at = draw(st.integers(0, len(kids)), label="at")
        tname = draw(st.sampled_from(stream.schema.type_names), label="type")
        var = f"n{i}"
        kids.insert(at, Not(Event(tname, var)))
        if draw(st.booleans()):
            other = draw(st.sampled_from(pos_vars))
            op = draw(st.sampled_from(("<", ">", "=")))
            where.append(Compare(Attr(var, "x"), op, Attr(other, "x")))
    return replace(pattern, structure=Seq(tuple(kids)), where=tuple(where)), stream


def test_chain_and_tree_equal_oracle_with_negations(match_rate):
    rate = match_rate("lazy chain + tree, NOT start/middle/end (+ Kleene, AND/OR)")
    seen: Counter = Counter()

    @settings(max_examples=90, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=_with_negations(), data=st.data())
    def prop(case, data):
        pattern, stream = case
        prog = compile_pattern(pattern, stream.schema)
        names = [prog.var_names[v] for v in prog.positive_vars]
        order = data.draw(st.permutations(names), label="order")
        ref = _check_all(prog, stream, [order], (pattern, stream))
        seen.update(_features(prog))
        rate.add(pattern, len(ref.matches))

    prop()
    rate.check()
    for f in ("kleene", "not_start", "not_middle", "not_end", "not_several"):
        assert seen[f] >= 3, f"too few examples with {f}: {dict(seen)}"


def test_chain_and_tree_equal_oracle_generated_kleene_and_negation(match_rate):
    rate = match_rate("lazy chain + tree, generated Kleene + NOT + AND/OR")

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=cases(max_events=40, kleene_max_events=24, policies=ANY, kleene=True,
                      negation=True, and_or=True, windows=("time", "count", "none")),
           data=st.data())
    def prop(case, data):
        pattern, stream = case
        prog = compile_pattern(pattern, stream.schema)
        names = [prog.var_names[v] for v in prog.positive_vars]
        order = data.draw(st.permutations(names), label="order")
        ref = _check_all(prog, stream, [order], (pattern, stream))
        rate.add(pattern, len(ref.matches))

    prop()
    rate.check()


def test_every_order_equals_oracle_with_negation_and_kleene():
    """Every order of the chain (patterns up to 4 positive variables) and the tree, on seeded
    cases with NOT (start, middle, end, several) and Kleene, flat and with AND/OR."""
    seen: Counter = Counter()
    n_match = 0
    for seed in range(4):
        for pattern, stream in small_cases(100 + seed, 10, max_events=36, kleene_max_events=26,
                                           max_len=4, kleene=True, negation=True, policies=ANY,
                                           windows=("time", "count", "none"),
                                           and_or=bool(seed % 2)):
            prog = compile_pattern(pattern, stream.schema)
            names = [prog.var_names[v] for v in prog.positive_vars]
            ref = _check_all(prog, stream, itertools.permutations(names), (pattern, stream))
            n_match += len(ref.matches) > 0
            seen.update(_features(prog))
    assert n_match >= 20
    for f in ("kleene", "not_start", "not_middle", "not_end", "not_several"):
        assert seen[f] >= 3, f"too few cases with {f}: {dict(seen)}"


def _stream(spec: str) -> EventStream:
    """'A0 B0 C0' -> events of types A, B, C with x = the digit, one second apart."""
    toks = spec.split()
    return EventStream.from_arrays([ord(t[0]) - ord("A") for t in toks],
                                   np.arange(len(toks), dtype=float),
                                   np.array([[float(t[1:])] for t in toks]),
                                   ("A", "B", "C"), ("x",))


def _both(text, stream, order=None):
    prog = compile_pattern(parse_pattern(text), stream.schema)
    return prog, run_chain(prog, stream, order=order), run_tree(prog, stream)


def test_semantics_worked_examples():
    """docs/SEMANTICS.md: the Kleene example (every non-empty subset) and the trailing NOT
    example (one match, detected when the window of its first event closes)."""
    s = _stream("A0 B0 B0 C0")
    want = {(("a", 0), ("b", (1,)), ("c", 3)), (("a", 0), ("b", (2,)), ("c", 3)),
            (("a", 0), ("b", (1, 2)), ("c", 3))}
    for order in ("a,b,c", "c,b,a", "b,a,c"):
        _, ch, tr = _both("PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events", s, order)
        assert ch.matches.key_set() == want and tr.matches.key_set() == want
        assert set(ch.matches.detect.tolist()) == {3}
    s = _stream("A0 B0 C0 A0 B0 A0 C0")
    for order in ("a,b", "b,a"):
        _, ch, tr = _both("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 events", s, order)
        for r in (ch, tr):
            assert r.matches.key_set() == {(("a", 3), ("b", 4))}
            assert r.matches.detect.tolist() == [6]
            assert int(r.counters[6, MATCH_EMIT]) == 1 and int(r.counters[:, MATCH_EMIT].sum()) == 1


def test_middle_not_counters_by_hand():
    """SEQ(A a, NOT(C c), B b) WHERE c.x > a.x, chain a,b on A1 C0 C5 B0 A2 B0.

    b=3 with a=0: the buffered C events between 0 and 3 are 1 and 2: C@1 (0 > 1 false: one
    EDGE_EVAL, one PRED_EVAL) then C@2 (5 > 1: a killer, one more of each).  At event 5 the
    instance a=0 finds b=5: C@1, C@2 again (2 + 2, killed at C@2); the instance a=4 finds b=5
    with no C between (no check).  Take edges: b@3 for a=0 (1), b@5 for a=0 and a=4 (2).
    Matches: {a: 4, b: 5} only."""
    s = _stream("A1 C0 C5 B0 A2 B0")
    prog, ch, tr = _both("PATTERN SEQ(A a, NOT(C c), B b) WHERE c.x > a.x WITHIN 10 events", s,
                         "a,b")
    assert ch.matches.key_set() == {(("a", 4), ("b", 5))}
    assert tr.matches.key_set() == {(("a", 4), ("b", 5))}
    c = ch.counters
    assert c[:, EDGE_EVAL].tolist() == [1, 0, 0, 1 + 2, 1, 2 + 2]   # the root takes A@0, A@4
    assert c[:, PRED_EVAL].tolist() == [0, 0, 0, 2, 0, 2]
    # chain a,b: the B events are stored (the take edge's buffer), the C events for the NOT;
    # the A events are taken by the root at once
    assert c[:, BUF_INSERT].tolist() == [0, 1, 1, 1, 0, 1]
    # instances: a=0, a=4 and the match; no instance for the killed candidates
    assert int(c[:, PM_CREATED].sum()) == 3


def test_trailing_not_and_kleene_counters_by_hand():
    """SEQ(A a, B+ b, NOT(C c)) WITHIN 4 events, chain a,b on A0 B0 B0 C0 B0.

    The root takes A@0 (one take edge, instance 1).  B@1: one take edge, a closed child (the match [1],
    pending) and an open child [1] (the scope is unbounded): 2 created.  B@2: instance a takes
    it ([2] pending + open [2]), open [1] takes it ([1,2] pending + open [1,2]): 2 take edges,
    4 created.  C@3 examines the three pending matches (3 EDGE_EVAL, no predicate) and kills
    them.  B@4: position 4 - 0 >= 4, outside the window: the instances have expired."""
    s = _stream("A0 B0 B0 C0 B0")
    prog, ch, tr = _both("PATTERN SEQ(A a, B+ b, NOT(C c)) WITHIN 4 events", s, "a,b")
    assert len(ch.matches) == 0 and len(tr.matches) == 0
    c = ch.counters
    assert c[:, EDGE_EVAL].tolist() == [1, 1, 2, 3, 0]
    assert c[:, PM_CREATED].tolist() == [1, 2, 4, 0, 0]
    assert int(c[:, MATCH_EMIT].sum()) == 0
    # without the C the three matches are emitted when the window of A@0 closes (event 4)
    s = _stream("A0 B0 B0 A0 B0")
    _, ch, tr = _both("PATTERN SEQ(A a, B+ b, NOT(C c)) WITHIN 4 events", s, "a,b")
    for r in (ch, tr):
        got = {(k, d) for k, d in zip(r.matches.keys(), r.matches.detect.tolist())}
        assert got == {((("a", 0), ("b", (1,))), 4), ((("a", 0), ("b", (2,))), 4),
                       ((("a", 0), ("b", (1, 2))), 4), ((("a", 3), ("b", (4,))), 5)}
        assert r.counters[:, MATCH_EMIT].tolist() == [0, 0, 0, 0, 3 + 1]  # end of stream: last row


# types of the NASDAQ sample with about 35 events each (of 117)
NASDAQ_PATTERNS = [
    "PATTERN SEQ(AAPL a, NOT(GOOG n), AMZN b) WHERE n.volume > a.volume WITHIN 6 events",
    "PATTERN SEQ(NOT(GOOG n), AAPL a, AMZN b) WHERE n.volume > a.volume WITHIN 6 events",
    "PATTERN SEQ(AAPL a, AMZN b, NOT(GOOG n)) WHERE n.volume > b.volume WITHIN 6 events",
    "PATTERN SEQ(NOT(LI m), AAPL a, NOT(GOOG n), AMZN b, NOT(FB o)) WHERE n.volume > a.volume "
    "WITHIN 8 events",
    "PATTERN SEQ(AAPL a, AMZN+ b, GOOG c) WHERE b.volume > a.volume WITHIN 8 events",
    "PATTERN SEQ(AAPL+ a, NOT(AMZN n), GOOG c) WHERE n.volume > c.volume WITHIN 7 events",
    "PATTERN AND(AAPL a, AMZN+ b, GOOG c) WHERE a.volume < c.volume WITHIN 6 events",
    "PATTERN OR(SEQ(AAPL a, NOT(GOOG n), AMZN b), SEQ(AMZN d, NOT(AAPL f), GOOG e)) "
    "WHERE n.volume > a.volume AND f.volume < e.volume WITHIN 6 events",
    "PATTERN SEQ(AND(AAPL a, AMZN b), NOT(GOOG n), GOOG c) WHERE n.volume > c.volume "
    "WITHIN 6 events",
]


@pytest.mark.parametrize("text", NASDAQ_PATTERNS)
def test_nasdaq_sample_equals_eager(repo_root, text):
    """Chain (query order and reversed) and tree accept every pattern and find exactly the
    eager engine's matches, with its detection positions, on the repository's NASDAQ sample."""
    from workloads.loaders import load_stream
    stream = load_stream(repo_root / "workloads/data/opencep_nasdaq/NASDAQ_SHORT.txt", "metastock")
    prog = compile_pattern(parse_pattern(text), stream.schema)
    ref = run_eager(prog, stream)
    assert len(ref.matches) > 0, text
    names_pos = [prog.var_names[v] for v in prog.positive_vars]
    for order in (names_pos, names_pos[::-1]):
        assert_same_matches(ref, run_chain(prog, stream, order=order), (prog, stream, str(order)),
                            labels=("eager", "chain"), check_detect=True)
    assert_same_matches(ref, run_tree(prog, stream), (prog, stream, "tree"),
                        labels=("eager", "tree"), check_detect=True)


def _ref_stream(z, i):
    a, b = int(z["offs"][i]), int(z["offs"][i + 1])
    nt = int(z["n_types"][i])
    return EventStream.from_arrays(z["types"][a:b], z["ts"][a:b], z["attrs"][a:b],
                                   tuple(str(t) for t in z["type_names"][:nt]),
                                   tuple(str(x) for x in z["attr_names"]), source="<ref>")


@pytest.mark.parametrize("kernel", ["auto", "negkleene"])
def test_plain_pattern_counters_equal_stored_reference(kernel):
    """Every counter of every event of seeded SEQ / AND / OR patterns (chain in query order and
    reversed, tree) equals the reference stored from the lazy kernel as it was before NOT and
    Kleene were added (tests/data/lazy_counters_ref.npz, 240 runs): with the plain kernel these
    patterns run on ("auto") and with the NOT / Kleene kernel ("negkleene")."""
    z = np.load(REF)
    cache: dict = {}
    for i, (text, how) in enumerate(zip(z["text"], z["order"])):
        stream = _ref_stream(z, i)
        key = (str(text), int(z["offs"][i]))
        if key not in cache:
            cache[key] = compile_pattern(parse_pattern(str(text)), stream.schema)
        prog = cache[key]
        route, _, order = str(how).partition(":")
        # the reference holds every AND as its orders (run_chain's named variant "expanded")
        r = run_chain(prog, stream, order=order or None, kernel=kernel,
                      and_groups="expanded") if route == "chain" \
            else run_tree(prog, stream, kernel=kernel)
        want = z["counters"][z["cnt_off"][i]:z["cnt_off"][i + 1]]
        assert np.array_equal(np.asarray(r.counters), want), (text, how)


def test_still_refused_with_pointer_to_eager():
    s = _stream("A0 B0 C0")
    for text, why in (("PATTERN SEQ(A a, B+ b) WITHIN 5 events POLICY skip-till-next-match",
                       "skip-till-next-match"),
                      ("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.x] WITHIN 5 events",
                       "REMOTE")):
        prog = compile_pattern(parse_pattern(text), s.schema)
        for run in (run_chain, run_tree):
            with pytest.raises(CepsimInputError, match=why):
                run(prog, s)


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B+ b, C c) WITHIN 6 events",
    "PATTERN SEQ(A a, B b, NOT(C c)) WHERE c.x > a.x WITHIN 5 events",
])
def test_caps_stop_inside_the_kernel(text):
    """The caps bound the run: the peak of live instances and the match count pass, one less
    raises ``CapacityError`` (killed trailing-NOT candidates are no matches)."""
    from engines.errors import CapacityError
    s = _stream("A1 B0 B2 A0 C3 B1 B0 C0 A2 B1 C1 B2 C2 A1 B0 C0")
    prog = compile_pattern(parse_pattern(text), s.schema)
    for run in (run_chain, run_tree):
        full = run(prog, s)
        assert len(full.matches) > 0
        peak = full.info["peak_transient_instances"]
        assert run(prog, s, max_partial_matches=peak).matches.key_set() == \
            full.matches.key_set()
        with pytest.raises(CapacityError, match="at event"):
            run(prog, s, max_partial_matches=peak - 1)
        assert run(prog, s, max_matches=len(full.matches)).matches.key_set() == \
            full.matches.key_set()
        with pytest.raises(CapacityError, match="matches at event"):
            run(prog, s, max_matches=len(full.matches) - 1)


def test_negation_at_match_checks_on_completion_by_hand():
    """SEQ(A a, NOT(C c), B b, A d), chain a,b,d on A0 C0 B0 A0.

    "bound": the NOT is decidable once a and b are bound: at B@2 the candidate {a: 0, b: 2}
    examines C@1 (one EDGE_EVAL) and dies.  "match" (OpenCEP's default, the negation above the
    positive plan): {a: 0, b: 2} is created; at A@3 it takes d (one take edge) and the
    completed binding examines C@1 (one EDGE_EVAL) and dies.  The root takes A@0 and A@3."""
    s = _stream("A0 C0 B0 A0")
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, NOT(C c), B b, A d) WITHIN 10 events"),
                           s.schema)
    bound = run_chain(prog, s, order="a,b,d")
    at_match = run_chain(prog, s, order="a,b,d", negation_at="match")
    assert len(bound.matches) == 0 and len(at_match.matches) == 0
    assert bound.counters[:, EDGE_EVAL].tolist() == [1, 0, 1 + 1, 1]
    assert bound.counters[:, PM_CREATED].tolist() == [1, 0, 0, 1]
    assert at_match.counters[:, EDGE_EVAL].tolist() == [1, 0, 1, 1 + 1 + 1]
    assert at_match.counters[:, PM_CREATED].tolist() == [1, 0, 1, 1]
    with pytest.raises(CepsimInputError, match="negation_at"):
        run_chain(prog, s, negation_at="early")


def test_negation_at_match_same_matches_as_oracle():
    for pattern, stream in small_cases(7, 12, max_events=36, kleene_max_events=26, max_len=4,
                                       kleene=True, negation=True, policies=ANY,
                                       windows=("time", "count"), and_or=False):
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        names = [prog.var_names[v] for v in prog.positive_vars]
        for order in (names, names[::-1]):
            assert_same_matches(ref, run_chain(prog, stream, order=order, negation_at="match"),
                                (pattern, stream, f"chain {order} at match"), check_detect=True)
        assert_same_matches(ref, run_tree(prog, stream, negation_at="match"),
                            (pattern, stream, "tree at match"), check_detect=True)

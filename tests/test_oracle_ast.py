"""The AST oracle (engines/oracle_ast.py) against the compiled-program oracle (engines/oracle.py).

The two share no code: the AST oracle never sees a compiled ``Program`` or the predicate
kernel, so agreement on random patterns checks the compiler (branches, columns, predicate
rows, negation neighbours, SAME expansion) as well as the oracle.  Coverage of every operator,
predicate kind, policy and window kind is counted and asserted, so a generator change that
stops producing one of them fails here.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.oracle_ast import AstOracleError, ast_matches, run_oracle_ast
from engines.pattern import parse_pattern
from engines.pattern.ast import AbsDiff, And, Compare, Corr, Event, Not, Or, Same, Seq
from engines.stream import EventStream
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases, small_cases

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

SMALL = dict(max_events=24, kleene_max_events=14, unbounded_max_events=10,
             windows=("time", "count", "none"))


def _compiled(pattern, stream) -> dict:
    res = run_oracle(compile_pattern(pattern, stream.schema), stream)
    return dict(zip(res.matches.keys(), (int(d) for d in res.matches.detect)))


def _compare(pattern, stream) -> int:
    want = _compiled(pattern, stream)
    got = ast_matches(pattern, stream)
    if got != want:
        only_ast = sorted(set(got) - set(want))[:10]
        only_prog = sorted(set(want) - set(got))[:10]
        det = {k: (got[k], want[k]) for k in set(got) & set(want) if got[k] != want[k]}
        raise AssertionError(f"AST oracle ({len(got)}) vs compiled oracle ({len(want)}) differ\n"
                             f"{pattern}\nonly AST: {only_ast}\nonly compiled: {only_prog}\n"
                             f"detect (ast, compiled): {det}\n{stream.to_pandas()}")
    return len(want)


def _features(pattern) -> set[str]:
    out = {f"policy {pattern.policy}",
           "window none" if pattern.window is None else
           ("window count" if pattern.window.is_count else "window time")}

    def walk(node, top):
        if isinstance(node, Event):
            out.add("kleene" if node.kleene else "event")
        elif isinstance(node, Not):
            out.add("not")
        else:
            out.add(type(node).__name__.lower())
            if isinstance(node, Seq):
                kids = node.children
                if top and isinstance(kids[0], Not):
                    out.add("not at start")
                if top and isinstance(kids[-1], Not):
                    out.add("not at end")
                if any(isinstance(k, Not) for k in kids[1:-1]):
                    out.add("not in middle")
            for c in node.children:
                walk(c, False)

    walk(pattern.structure, True)
    for p in pattern.where:
        if isinstance(p, Same):
            out.add("pred same")
        elif isinstance(p, Corr):
            out.add("pred corr")
        elif isinstance(p, AbsDiff):
            out.add("pred abs")
        elif isinstance(p, Compare):
            out.add("pred const" if p.right is None else "pred cmp")
        out.add(f"op {p.op}" if not isinstance(p, Same) else "op same")
    return out


REQUIRED = {"seq", "and", "or", "event", "kleene", "not at start", "not in middle", "not at end",
            "pred same", "pred corr", "pred abs", "pred const", "pred cmp",
            "op <", "op <=", "op >", "op >=", "op =", "op !=",
            "policy skip-till-any-match", "policy skip-till-next-match",
            "window none", "window count", "window time"}


def test_ast_oracle_equals_compiled_oracle_seeded(match_rate):
    """400 fixed numpy-drawn cases; every feature is covered (asserted) and seen with matches."""
    rate = match_rate("AST oracle vs compiled oracle, seeded")
    seen, seen_matching = Counter(), Counter()
    for pattern, stream in small_cases(16, 400, **SMALL):
        n = _compare(pattern, stream)
        rate.add(pattern, n)
        feats = _features(pattern)
        seen.update(feats)
        if n:
            seen_matching.update(feats)
    missing = REQUIRED - set(seen)
    assert not missing, f"generator never produced {sorted(missing)}"
    rare = {f for f in REQUIRED if seen_matching[f] < 3}
    assert not rare, (f"features seen with matches fewer than 3 times: "
                      f"{ {f: seen_matching[f] for f in sorted(rare)} }")
    rate.check()


@pytest.mark.slow
def test_ast_oracle_equals_compiled_oracle_property(match_rate):
    rate = match_rate("AST oracle vs compiled oracle, hypothesis")

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cases(**SMALL))
    def prop(case):
        rate.add(case[0], _compare(*case))

    prop()
    rate.check()


# ----------------------------------------------------------------------------- hand-worked
HAND_ATTRS = ("x", "id", "h[0]", "h[1]", "h[2]")


def _mk(*events, types=("A", "B", "C", "D")) -> EventStream:
    """Events ``(type, ts, x, id)``."""
    rows = [[x, i, 0, 0, 0] for _, _, x, i in events]
    return EventStream.from_arrays([t for t, *_ in events], [float(ts) for _, ts, *_ in events],
                                   np.array(rows, dtype=float).reshape(len(rows), 5), types,
                                   HAND_ATTRS)


def _keys(text, stream):
    return {" ".join(f"{v}{list(e) if isinstance(e, tuple) else e}" for v, e in k)
            for k in ast_matches(parse_pattern(text), stream)}


def test_hand_worked_sequence_and_and():
    s = _mk(("A", 0, 1, 0), ("A", 1, 2, 0), ("B", 2, 3, 0), ("A", 3, 0, 0), ("C", 4, 4, 0))
    assert _keys("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 10 s", s) == {
        "a0 b2 c4", "a1 b2 c4"}
    # AND: any order of a and b, both before nothing else
    assert _keys("PATTERN AND(A a, B b) WITHIN 10 s", s) == {"a0 b2", "a1 b2", "a3 b2"}


def test_hand_worked_negation_positions():
    s = _mk(("B", 0, 0, 0), ("A", 1, 0, 0), ("B", 2, 0, 0), ("C", 3, 0, 0), ("B", 9, 0, 0))
    # middle: the B at 2 kills a1 c3
    assert _keys("PATTERN SEQ(A a, NOT(B n), C c) WITHIN 10 s", s) == set()
    # start: the B at 0 is within 10 s of c3
    assert _keys("PATTERN SEQ(NOT(B n), A a, C c) WITHIN 10 s", s) == set()
    assert _keys("PATTERN SEQ(NOT(B n), A a, C c) WITHIN 2 s", s) == {"a1 c3"}
    # end: the B at 9 is 8 s after a1, inside 10 s, outside 7 s; detect = first event out
    assert _keys("PATTERN SEQ(A a, C c, NOT(B n)) WITHIN 10 s", s) == set()
    got = ast_matches(parse_pattern("PATTERN SEQ(A a, C c, NOT(B n)) WITHIN 7 s"), s)
    assert got == {(("a", 1), ("c", 3)): 4}


def test_hand_worked_next_match_and_kleene():
    s = _mk(("A", 0, 1, 0), ("B", 1, 1, 0), ("B", 2, 5, 0), ("C", 3, 0, 0))
    any_m = _keys("PATTERN SEQ(A a, B+ b, C c) WITHIN 10 s", s)
    assert any_m == {"a0 b[1] c3", "a0 b[2] c3", "a0 b[1, 2] c3"}
    nxt = _keys("PATTERN SEQ(A a, B+ b, C c) WITHIN 10 s POLICY skip-till-next-match", s)
    assert nxt == {"a0 b[1] c3", "a0 b[1, 2] c3"}
    # with b.x > a.x, b1 (x=1) does not qualify: b2 is the next qualifying B
    nxt2 = _keys("PATTERN SEQ(A a, B+ b, C c) WHERE b.x > a.x WITHIN 10 s "
                 "POLICY skip-till-next-match", s)
    assert nxt2 == {"a0 b[2] c3"}


def test_same_anchor_rule_on_a_lone_kleene_variable():
    """SAME relates the anchor (earliest variable) with every *other* variable: a branch with a
    single Kleene variable is not constrained among its own events (SEMANTICS rule 2); both
    oracles agree on that reading."""
    s = _mk(("B", 0, 0, 1), ("B", 1, 0, 2), ("C", 2, 0, 1))
    text = "PATTERN OR(B+ b, SEQ(C c, C d)) WHERE SAME[id] WITHIN 10 s"
    got = _keys(text, s)
    assert "b[0, 1]" in got                       # ids 1 and 2 under one Kleene variable
    assert "c2 d" not in " ".join(got)
    assert ast_matches(parse_pattern(text), s) == _compiled(parse_pattern(text), s)


def test_refuses_remote():
    s = _mk(("A", 0, 0, 0), ("B", 1, 0, 0))
    with pytest.raises(AstOracleError, match="REMOTE"):
        ast_matches(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.id]"), s)


def test_run_oracle_ast_gives_a_matchset_equal_to_the_oracle():
    for pattern, stream in small_cases(3, 20, **SMALL):
        assert_same_matches(run_oracle_ast(pattern, stream),
                            run_oracle(compile_pattern(pattern, stream.schema), stream),
                            (pattern, stream), labels=("ast", "oracle"), check_detect=True)


# ----------------------------------------------------------------------------- teeth
def _broken_programs(prog):
    """Programs with one deliberate compiler bug each (what a compiler regression looks like)."""
    br = prog.branches[0]
    moved = (replace(br, neg_left=br.neg_left * 0 - 1, neg_right=br.neg_right * 0),)
    yield "negation moved to the start", replace(prog, grouped=moved, _alts=(None,),
                                                 _flat=[moved])
    pred_f = prog.pred_f.copy()
    pred_f[:, 1] += 1.0
    yield "predicate offset off by one", replace(prog, pred_f=pred_f)
    pred_i = prog.pred_i.copy()
    pred_i[:, 3] = 1 - pred_i[:, 3]                      # x <-> id column
    yield "wrong attribute column", replace(prog, pred_i=pred_i)


def test_comparison_catches_compiler_bugs():
    """A compiled program with a planted bug disagrees with the AST oracle on fixed streams,
    while the correct program agrees: the comparison has teeth."""
    pattern = parse_pattern("PATTERN SEQ(A a, NOT(B n), C c) WHERE a.x < c.x AND n.id = a.id "
                            "WITHIN 6 s")
    rng = np.random.default_rng(0)
    n = 60
    s = EventStream.from_arrays(rng.integers(0, 3, n), np.arange(n, dtype=float),
                                np.column_stack([rng.integers(0, 4, n), rng.integers(0, 2, n),
                                                 np.zeros((n, 3))]).astype(float),
                                ("A", "B", "C", "D"), HAND_ATTRS)
    want = ast_matches(pattern, s)
    prog = compile_pattern(pattern, s.schema)
    assert len(want) > 5
    assert _compiled(pattern, s) == want
    for what, bad in _broken_programs(prog):
        res = run_oracle(bad, s)
        got = dict(zip(res.matches.keys(), (int(d) for d in res.matches.detect)))
        assert got != want, f"planted bug '{what}' went unnoticed"


def test_alternatives_cover_or_and_interleavings():
    """OR(AND(a, b), SEQ(c, d)): AND gives both orders, OR the union, on a hand stream."""
    s = _mk(("B", 0, 0, 0), ("A", 1, 0, 0), ("C", 2, 0, 0), ("D", 3, 0, 0), ("B", 4, 0, 0))
    pat = parse_pattern("PATTERN OR(AND(A a, B b), SEQ(C c, D d)) WITHIN 10 s")
    assert isinstance(pat.structure, Or) and isinstance(pat.structure.children[0], And)
    assert set(ast_matches(pat, s)) == {(("a", 1), ("b", 0)), (("a", 1), ("b", 4)),
                                        (("c", 2), ("d", 3))}


# ----------------------------------------------------------------------------- added after the
# mutation run on engines/oracle_ast.py (docs/TESTING.md)
def test_nested_seq_is_spliced_so_its_not_sits_between_events():
    """SEQ(A a, SEQ(NOT(C n), D d)) means SEQ(A a, NOT(C n), D d): the NOT is between a and d
    once the inner SEQ is spliced (not at a nested edge); both oracles agree."""
    s = _mk(("A", 0, 0, 0), ("B", 1, 0, 0), ("D", 2, 0, 0), ("C", 3, 0, 0), ("D", 4, 0, 0))
    flat = parse_pattern("PATTERN SEQ(A a, NOT(C n), D d) WITHIN 10 s")
    nested = parse_pattern("PATTERN SEQ(A a, SEQ(NOT(C n), D d)) WITHIN 10 s")
    want = {(("a", 0), ("d", 2)): 2}                  # the C at 3 kills a0 d4
    assert ast_matches(flat, s) == want
    assert ast_matches(nested, s) == want
    assert _compiled(nested, s) == want


def test_refuses_not_at_the_edge_of_a_nested_seq_like_the_compiler():
    """After OR expansion a NOT at the edge of an inner SEQ has no outer neighbour: the AST
    oracle refuses it (it does not guess a meaning), as the parser/compiler does."""
    s = _mk(("A", 0, 0, 0), ("C", 1, 0, 0), ("D", 2, 0, 0))
    for text in ("PATTERN SEQ(A a, OR(B b, SEQ(NOT(C n), D d))) WITHIN 10 s",
                 "PATTERN SEQ(A a, OR(B b, SEQ(D d, NOT(C n)))) WITHIN 10 s"):
        pat = parse_pattern(text)
        with pytest.raises(AstOracleError, match="NOT at the edge of a nested"):
            ast_matches(pat, s)
        with pytest.raises(Exception, match="NOT at the start or end of a nested"):
            compile_pattern(pat, s.schema)


def test_run_oracle_ast_orders_by_detection_then_key():
    """Three OR branches finishing on the same C events: the MatchSet lists matches by detect,
    then by key (not in the order the branches were searched)."""
    s = _mk(("A", 0, 0, 0), ("B", 1, 0, 0), ("C", 2, 0, 0), ("B", 3, 0, 0), ("C", 4, 0, 0))
    pat = parse_pattern("PATTERN OR(SEQ(B b, C c), SEQ(A a, C c2), SEQ(A a2, B+ k, C c3)) "
                        "WITHIN 10 s")
    res = run_oracle_ast(pat, s)
    assert list(res.detect) == [2, 2, 2, 4, 4, 4, 4, 4, 4]
    assert list(res.keys())[:3] == [(("a", 0), ("c2", 2)), (("a2", 0), ("c3", 2), ("k", (1,))),
                                    (("b", 1), ("c", 2))]
    assert list(res.keys())[-2:] == [(("b", 1), ("c", 4)), (("b", 3), ("c", 4))]

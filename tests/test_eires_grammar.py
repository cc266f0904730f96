"""EIRES grammar and oracle: REMOTE[...] forms, AT clauses, the remote function, filter rule."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import PK_REMOTE, compile_pattern
from engines.errors import PatternError, PatternSyntaxError
from engines.oracle import run_oracle
from engines.pattern import Attr, Compare, Remote, RemoteConst, parse_pattern
from engines.stream import EventStream


def _stream(rows):
    """rows: (type, x)."""
    types = [t for t, _ in rows]
    x = np.array([[v, 0.0] for _, v in rows], dtype=float).reshape(len(rows), 2)
    return EventStream.from_arrays(types, np.arange(len(rows), dtype=float), x, ("A", "B", "C"),
                                   ("x", "id"))


def test_remote_const_and_at_roundtrip():
    p = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.x] <= 5000 AT c")
    assert p.where == (RemoteConst(Attr("a", "x"), "<=", 5000.0, "c"),)
    assert parse_pattern(str(p)) == p
    q = parse_pattern("PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.x] < c.x at c")
    assert q.where == (Compare(Attr("c", "x"), ">", Remote(Attr("a", "x")), at="c"),)
    assert parse_pattern(str(q)) == q
    r = parse_pattern("PATTERN SEQ(A a, B b) WHERE b.x = REMOTE[a.x] * 2 + 1 AT b")
    assert r.where[0].at == "b" and parse_pattern(str(r)) == r
    # AT stays an ordinary name outside a remote predicate
    assert parse_pattern("PATTERN SEQ(AT at, B b) WHERE at.x < b.x").variables() == ["at", "b"]


@pytest.mark.parametrize("text, msg", [
    ("PATTERN SEQ(A a, C c) WHERE REMOTE[a.x] = c.x * 2", "arithmetic is only allowed"),
    ("PATTERN SEQ(A a, C c) WHERE REMOTE[a.x] <= 5 AT", "variable name after AT"),
    ("PATTERN SEQ(A a, C c) WHERE REMOTE[a.x] <=", "a number or a reference"),
    ("PATTERN SEQ(A a, C c) WHERE REMOTE[a.x] = REMOTE[c.x]", "both sides of a comparison"),
])
def test_remote_syntax_errors(text, msg):
    with pytest.raises(PatternSyntaxError, match=msg):
        parse_pattern(text)


def test_remote_semantic_errors():
    with pytest.raises(PatternError, match="unknown variable 'z'"):
        parse_pattern("PATTERN SEQ(A a, C c) WHERE REMOTE[a.x] <= 5 AT z")
    s = _stream([("A", 1)])
    with pytest.raises(PatternError, match="AT a names a variable bound before"):
        compile_pattern(parse_pattern("PATTERN SEQ(A a, C c) WHERE c.x = REMOTE[a.x] AT a"),
                        s.schema)
    with pytest.raises(PatternError, match="negated"):
        parse_pattern("PATTERN SEQ(A a, NOT(B b), C c) WHERE REMOTE[b.x] <= 5")


def test_compile_remote_rows():
    s = _stream([("A", 1)])
    prog = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.x] <= 7 AT c AND b.x = REMOTE[a.id]"), s.schema)
    assert list(prog.pred_i[0]) == [PK_REMOTE, 1, 0, -1, 0, 0, 1] and prog.pred_f[0, 1] == 7.0
    assert list(prog.remote_at) == [2, -1]
    assert prog.pred_i[1, 2] == 1 and prog.pred_i[1, 4] == 0


def test_oracle_remote_is_a_filter_under_next_match():
    # A(5) B(3) B(5): the next B after A is B(3); the remote check fails and kills the run
    s = _stream([("A", 5), ("B", 3), ("B", 5)])
    text = "PATTERN SEQ(A a, B b) WHERE b.x = REMOTE[a.x] POLICY {}"
    nxt = compile_pattern(parse_pattern(text.format("skip-till-next-match")), s.schema)
    anym = compile_pattern(parse_pattern(text.format("skip-till-any-match")), s.schema)
    assert len(run_oracle(nxt, s).matches) == 0
    assert [m["b"] for m in run_oracle(anym, s).matches.records()] == [2]
    # a table turns the remote value of key 5 into 3: now the next B is the match
    table = np.arange(10.0)
    table[5] = 3.0
    assert [m["b"] for m in run_oracle(nxt, s, remote=table).matches.records()] == [1]
    # a local predicate still decides which B is next
    loc = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE b.x > 4 AND "
                                        "REMOTE[a.x] <= 5 AT b POLICY skip-till-next-match"),
                          s.schema)
    assert [m["b"] for m in run_oracle(loc, s).matches.records()] == [2]

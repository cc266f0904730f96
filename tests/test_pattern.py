"""Pattern language: parser, AST text round trip, builder API and the compiler to a Program."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.compile import (KIND_KLEENE, KIND_NEG, KIND_PLAIN, MAX_BRANCHES, OP_CODES, OP_EQ,
                             OP_LT, PK_ABS, PK_CMP, PK_CORR, PK_REMOTE, POLICY_ANY, POLICY_NEXT,
                             WIN_COUNT, WIN_TIME, compile_pattern)
from engines.errors import CepsimInputError, PatternError, PatternSyntaxError
from engines.pattern import (AbsDiff, And, Attr, Compare, Corr, Event, Not, Or, Pattern, Remote,
                             Same, Seq, Window, and_, build_pattern, event, kleene, not_, or_,
                             parse_pattern, parse_predicate, pred, seq)
from engines.pattern.ast import COUNT_UNITS, KEYWORDS, OPS, POLICIES, TIME_UNITS
from engines.stream import EventStream, Schema
from strategies import ATTR_NAMES, GENERATED_PATTERN_WARNINGS, patterns

SCHEMA = Schema(("A", "B", "C", "D", "E"), ATTR_NAMES)


# ----------------------------------------------------------------------------- random ASTs
_idents = st.sampled_from(["x", "price", "_p2", "Hist", "v1", "within", "corr", "Same", "z9_"])
_type_names = st.one_of(_idents, st.sampled_from(sorted(KEYWORDS) + ["and", "Not", "12", "0"]),
                        st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)),
                                max_size=6))
_finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
_nice = st.one_of(st.integers(-1000, 1000).map(float), _finite,
                  st.sampled_from([0.1, 1e-7, 2.5e20, -0.0, 5e-324]))


@st.composite
def wild_patterns(draw):
    """Arbitrary parseable ASTs (not necessarily compilable): odd type names, nesting, NOT
    anywhere, every predicate form, every unit, both policies."""
    counter = [0]
    negated: list[str] = []
    positive: list[str] = []

    def new_var():
        counter[0] += 1
        return draw(st.sampled_from(["a", "b", "Ev", "_x", "seq_"])) + str(counter[0])

    def node(depth):
        kind = draw(st.sampled_from(["event", "event", "not", "seq", "and", "or"]
                                    if depth < 3 else ["event", "not"]))
        if kind == "event":
            v = new_var()
            positive.append(v)
            return Event(draw(_type_names), v, draw(st.booleans()))
        if kind == "not":
            v = new_var()
            negated.append(v)
            return Not(Event(draw(_type_names), v, False))
        kids = tuple(node(depth + 1) for _ in range(draw(st.integers(1, 3))))
        return {"seq": Seq, "and": And, "or": Or}[kind](kids)

    structure = node(0)
    if not positive:
        v = new_var()
        positive.append(v)
        structure = Seq((structure, Event("A", v)))
    allv = positive + negated
    where = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["cmp", "const", "abs", "corr", "same", "remote"]))
        op = draw(st.sampled_from(OPS))
        v1 = draw(st.sampled_from(allv))
        others = [v for v in allv if not (v1 in negated and v in negated and v != v1)]
        v2 = draw(st.sampled_from(others))
        a1, a2 = draw(_idents), draw(_idents)
        if kind == "cmp":
            where.append(Compare(Attr(v1, a1), op, Attr(v2, a2), draw(_nice), draw(_nice)))
        elif kind == "const":
            where.append(Compare(Attr(v1, a1), op, None, 1.0, draw(_nice)))
        elif kind == "abs":
            where.append(AbsDiff(Attr(v1, a1), Attr(v2, a2), op, draw(_nice)))
        elif kind == "corr":
            where.append(Corr(Attr(v1, a1), Attr(v2, a2), op, draw(_nice)))
        elif kind == "same":
            where.append(Same(a1))
        else:
            left = draw(st.sampled_from(positive))
            where.append(Compare(Attr(left, a1), op, Remote(Attr(draw(st.sampled_from(positive)),
                                                                 a2)), draw(_nice), draw(_nice)))
    window = None
    if draw(st.booleans()):
        unit = draw(st.sampled_from(sorted(TIME_UNITS) + list(COUNT_UNITS)))
        if unit in COUNT_UNITS:
            value = float(draw(st.integers(1, 10 ** 6)))
        else:
            value = draw(st.floats(min_value=1e-9, max_value=1e12, allow_nan=False))
        window = Window(value, unit)
    return Pattern(structure, tuple(where), window, draw(st.sampled_from(POLICIES)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wild_patterns())
def test_round_trip_wild_asts(p):
    text = str(p)
    assert parse_pattern(text) == p, text
    assert str(parse_pattern(text)) == text


@pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)
@settings(max_examples=300, deadline=None)
@given(patterns(remote=True, windows=("time", "count", "none")))
def test_round_trip_engine_patterns(p):
    text = str(p)
    assert parse_pattern(text) == p
    # free whitespace, newlines and comments do not change the AST
    spaced = "# a comment\n" + text.replace(", ", " ,\n\t ").replace("(", " ( ") + "  # end\n"
    assert parse_pattern(spaced) == p
    # and every such pattern compiles against the strategies' schema
    compile_pattern(p, SCHEMA)


def _to_builder(node):
    """Rebuild an AST with the builder API (used to check builder == parser)."""
    if isinstance(node, Event):
        return kleene(node.type_name, node.var) if node.kleene else event(node.type_name, node.var)
    if isinstance(node, Not):
        return not_(_to_builder(node.child))
    f = {Seq: seq, And: and_, Or: or_}[type(node)]
    return f(*[_to_builder(c) for c in node.children])


@settings(max_examples=200, deadline=None)
@given(patterns(remote=True, windows=("time", "count", "none")))
def test_builder_equals_parsed(p):
    built = build_pattern(_to_builder(p.structure), where=[str(w) for w in p.where],
                          within=None if p.window is None else (p.window.value, p.window.unit),
                          policy=p.policy)
    assert built == p == parse_pattern(str(built))


def test_builder_docstring_example():
    b = build_pattern(seq(event("A", "a"), kleene("B", "b"), not_(event("C", "c")), event("D", "d")),
                      where=["a.x < b.x * 1.5 + 2", pred("|a.y - d.y| <= 10")],
                      within=(10, "minutes"), policy="skip-till-next-match")
    t = parse_pattern("PATTERN SEQ(A a, B+ b, NOT(C c), D d)\n"
                      "WHERE a.x < b.x * 1.5 + 2 AND |a.y - d.y| <= 10\n"
                      "WITHIN 10 minutes POLICY skip-till-next-match")
    assert b == t
    assert b.window.seconds == 600.0
    assert build_pattern(or_(event("A", "a"), and_(event("B", "b"), event("C", "c")))) == \
        parse_pattern("PATTERN OR(A a, AND(B b, C c))")
    assert build_pattern(seq(event("A", "a"), event("B", "b")), within=Window(3, "events")) == \
        parse_pattern("PATTERN SEQ(A a, B b) WITHIN 3 events")
    with pytest.raises(PatternError, match="bound twice"):
        build_pattern(seq(event("A", "a"), event("B", "a")))
    with pytest.raises(PatternError, match="reserved word"):
        build_pattern(seq(event("A", "and"), event("B", "b")))


# ----------------------------------------------------------------------------- parsing details
def test_parse_full_example_ast():
    p = parse_pattern("""
        PATTERN SEQ(A a, B+ b, NOT(C c), AND(D d, E e), OR(SEQ(F f, G g), H h))
        WHERE a.x < b.x * 1.5 + 2 AND |a.y - d.y| <= 10 AND a.id = d.id AND e.v > 100
              AND corr(a.hist, d.hist) > 0.8 AND d.v1 = REMOTE[a.v1] AND SAME[id] AND [k]
        WITHIN 10 minutes
        POLICY skip-till-next-match""")
    assert p.structure == Seq((Event("A", "a"), Event("B", "b", True), Not(Event("C", "c")),
                               And((Event("D", "d"), Event("E", "e"))),
                               Or((Seq((Event("F", "f"), Event("G", "g"))), Event("H", "h")))))
    assert p.where == (Compare(Attr("a", "x"), "<", Attr("b", "x"), 1.5, 2.0),
                       AbsDiff(Attr("a", "y"), Attr("d", "y"), "<=", 10.0),
                       Compare(Attr("a", "id"), "=", Attr("d", "id")),
                       Compare(Attr("e", "v"), ">", None, 1.0, 100.0),
                       Corr(Attr("a", "hist"), Attr("d", "hist"), ">", 0.8),
                       Compare(Attr("d", "v1"), "=", Remote(Attr("a", "v1"))),
                       Same("id"), Same("k"))
    assert p.window == Window(10, "minutes") and p.policy == "skip-till-next-match"
    assert p.variables() == ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert [n for e, n in p.events()] == [False, False, True] + [False] * 5


def test_parse_operator_spellings_signs_and_case():
    p = parse_pattern("pattern seq(A a,B b) where a.x<>b.x and a.x==b.y and a.x<b.x*-2--3 "
                      "and a.y >= +4 and a.y < b.y - 0.5 within 5 Events policy "
                      "Skip-Till-Next-Match")
    assert [w.op for w in p.where] == ["!=", "=", "<", ">=", "<"]
    assert p.where[2] == Compare(Attr("a", "x"), "<", Attr("b", "x"), -2.0, 3.0)
    assert p.where[3] == Compare(Attr("a", "y"), ">=", None, 1.0, 4.0)
    assert p.where[4].offset == -0.5
    assert p.window == Window(5, "events") and p.window.is_count
    assert p.policy == "skip-till-next-match"
    assert parse_pattern("PATTERN SEQ(A a, B b)").policy == "skip-till-any-match"
    assert parse_pattern("PATTERN SEQ(A a, B b)").window is None


def test_type_names_quoted_numeric_and_reserved():
    p = parse_pattern('PATTERN SEQ("my type" a, 17 b, "AND" c, "q\\"x" d)')
    assert [e.type_name for e, _ in p.events()] == ["my type", "17", "AND", 'q"x']
    for name in ("AND", "seq", "Not", "1x", "a b", 'x"y', "back\\slash", ""):
        q = Pattern(Seq((Event(name, "a"), Event("B", "b"))))
        assert parse_pattern(str(q)) == q, str(q)


def test_reserved_words_are_fine_as_attribute_names():
    p = parse_pattern("PATTERN SEQ(A a, B b) WHERE a.within < b.corr AND SAME[and]")
    assert p.where == (Compare(Attr("a", "within"), "<", Attr("b", "corr")), Same("and"))


@pytest.mark.parametrize("unit", sorted(TIME_UNITS))
def test_every_time_unit(unit):
    for spelled in (unit, unit.upper()):
        p = parse_pattern(f"PATTERN SEQ(A a, B b) WITHIN 3 {spelled}")
        assert p.window == Window(3.0, unit) and not p.window.is_count
        assert p.window.seconds == 3 * TIME_UNITS[unit]
        prog = compile_pattern(p, SCHEMA)
        assert prog.window_kind == WIN_TIME and prog.window == 3 * TIME_UNITS[unit]
        assert parse_pattern(str(p)) == p


def test_unit_table_values():
    assert TIME_UNITS["ms"] == 1e-3 and TIME_UNITS["minutes"] == 60 and TIME_UNITS["h"] == 3600
    assert TIME_UNITS["days"] == 86400 and TIME_UNITS["us"] == 1e-6 and TIME_UNITS["ps"] == 1e-12


@pytest.mark.parametrize("unit", COUNT_UNITS)
def test_count_units(unit):
    p = parse_pattern(f"PATTERN SEQ(A a, B b) WITHIN 7 {unit}")
    assert p.window.is_count and p.window.value == 7
    with pytest.raises(ValueError):
        p.window.seconds
    prog = compile_pattern(p, SCHEMA)
    assert prog.window_kind == WIN_COUNT and prog.window == 7.0


@pytest.mark.parametrize("policy", POLICIES)
def test_both_policies(policy):
    p = parse_pattern(f"PATTERN SEQ(A a, B b) POLICY {policy}")
    assert p.policy == policy
    assert compile_pattern(p, SCHEMA).policy == (POLICY_ANY if policy.endswith("any-match")
                                                 else POLICY_NEXT)


# (text, line, column, fragment of the message)
SYNTAX_ERRORS = [
    ("", 1, 1, "expected keyword PATTERN"),
    ("SEQ(A a, B b)", 1, 1, "expected keyword PATTERN, found 'SEQ'"),
    ("PATTERN SEQ(A a, B b", 1, 21, "expected ')', found end of text"),
    ("PATTERN SEQ(A a B b)", 1, 17, "expected ')', found 'B'"),
    ("PATTERN SEQ(A, B b)", 1, 14, "expected a variable name after event type 'A'"),
    ("PATTERN SEQ(A a, B b)\nWHERE a.x <\nWITHIN 5 s", 3, 1,
     "expected a variable reference such as 'a.price', found 'WITHIN'"),
    ("PATTERN SEQ(A a, B b)\n  WHERE a.x ~ 3", 2, 13, "unexpected character '~'"),
    ("PATTERN SEQ(A a, B b)\nWITHIN 5 fortnights", 2, 10, "unknown window unit 'fortnights'"),
    ("PATTERN SEQ(A a, B b) WITHIN 2.5 events", 1, 30, "whole number of events"),
    ("PATTERN SEQ(A a, B b) WITHIN 0 s", 1, 30, "must be positive"),
    ("PATTERN SEQ(A a, B b) WITHIN 10", 1, 32, "expected a window unit"),
    ("PATTERN SEQ(A a, B b) POLICY skip-till-last-match", 1, 30, "unknown policy"),
    ("PATTERN SEQ(A a, NOT(B+ b), C c)", 1, 18, "cannot be a Kleene closure"),
    ("PATTERN SEQ(A a, NOT(SEQ(B b, C c)), D d)", 1, 18, "NOT takes a single event"),
    ("PATTERN SEQ(A a, B b) WHERE |a.x - b.x < 3", 1, 40, "expected '|', found '<'"),
    ("PATTERN SEQ(A a, B b) WHERE corr(a.h b.h) > 0.5", 1, 38, "expected ','"),
    ("PATTERN SEQ(A a, B b) WHERE SAME[id", 1, 36, "expected ']'"),
    ("PATTERN SEQ(A a, B b) WHERE a.x < b.x * c", 1, 41, "expected a number after '*'"),
    ("PATTERN SEQ(A a, B b) WHERE a.x < 1e999", 1, 35, "too large"),
    ("PATTERN SEQ(A a, B b) junk", 1, 23, "expected WHERE, WITHIN, POLICY or the end"),
    ("PATTERN SEQ(A a, B b) WHERE a.x < 1 junk", 1, 37, "expected WITHIN, POLICY or the end"),
    ("PATTERN SEQ(A a, B b) WHERE a. < 1", 1, 32, "expected an attribute name after 'a.'"),
    ("PATTERN SEQ()", 1, 13, "expected an event such as 'A a'"),
]


@pytest.mark.parametrize("text,line,col,fragment", SYNTAX_ERRORS)
def test_syntax_errors_name_line_and_column(text, line, col, fragment):
    with pytest.raises(PatternSyntaxError) as info:
        parse_pattern(text, source="q.cep")
    err = info.value
    assert (err.line, err.column) == (line, col), str(err)
    assert fragment in str(err)
    assert str(err).startswith(f"q.cep:line {line}, column {col}: ")
    assert isinstance(err, CepsimInputError)


@pytest.mark.parametrize("text,fragment", [
    ("PATTERN SEQ(A a, A a)", "bound twice"),
    ("PATTERN SEQ(A a, B b) WHERE c.x < 1", "unknown variable 'c'"),
    ("PATTERN SEQ(A a, NOT(B b), NOT(C c), D d) WHERE b.x < c.x", "two negated events"),
    ("PATTERN SEQ(A a, NOT(B b), C c) WHERE b.x < REMOTE[a.id]", "REMOTE data on a negated"),
])
def test_semantic_pattern_errors(text, fragment):
    with pytest.raises(PatternError, match=fragment):
        parse_pattern(text)


def test_parse_predicate_alone():
    assert parse_predicate("corr(a.h, b.h) >= -0.5") == Corr(Attr("a", "h"), Attr("b", "h"), ">=",
                                                               -0.5)
    with pytest.raises(PatternSyntaxError, match="end of the predicate"):
        parse_predicate("a.x < 1 2")


# ----------------------------------------------------------------------------- compiler
def _prog(text, schema=SCHEMA):
    return compile_pattern(parse_pattern(text), schema)


def _names(prog, arr):
    return [prog.var_names[v] for v in arr]


def test_compile_variables_and_predicate_rows():
    prog = _prog("PATTERN SEQ(A a, B+ b, NOT(C c), D d) WHERE a.x < b.y * 2 + 1 AND d.id != 2 "
                 "AND |a.x - d.y| > 0.5 AND corr(a.h, d.h) <= 0.3 WITHIN 4 s "
                 "POLICY skip-till-next-match")
    assert prog.var_names == ("a", "b", "c", "d")
    assert list(prog.var_type) == [0, 1, 2, 3]
    assert list(prog.var_kind) == [KIND_PLAIN, KIND_KLEENE, KIND_NEG, KIND_PLAIN]
    assert prog.positive_vars == [0, 1, 3]
    x, y, i, h = (ATTR_NAMES.index(n) for n in ("x", "y", "id", "h[0]"))
    assert prog.pred_i.tolist() == [
        [PK_CMP, OP_LT, 0, x, 1, y, 1],
        [PK_CMP, OP_CODES["!="], 3, i, -1, -1, 1],
        [PK_ABS, OP_CODES[">"], 0, x, 3, y, 1],
        [PK_CORR, OP_CODES["<="], 0, h, 3, h, 4]]
    assert prog.pred_f.tolist() == [[2.0, 1.0], [1.0, 2.0], [1.0, 0.5], [1.0, 0.3]]
    assert prog.pred_vars(0) == (0, 1) and prog.pred_vars(1) == (3,)
    assert prog.window_kind == WIN_TIME and prog.window == 4.0 and prog.policy == POLICY_NEXT
    assert prog.used_columns == tuple(sorted({x, y, i, h, h + 1, h + 2, h + 3}))
    assert not prog.has_remote and not prog.is_simple_sequence
    (br,) = prog.branches
    assert _names(prog, br.pos_vars) == ["a", "b", "d"]
    assert _names(prog, br.neg_vars) == ["c"] and list(br.neg_left) == [1]
    assert list(br.neg_right) == [2]
    assert list(br.pred_ids) == [0, 1, 2, 3]


def test_compile_no_window_remote_and_simple_sequence():
    prog = _prog("PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.id] * 2")
    assert prog.window_kind == WIN_TIME and math.isinf(prog.window)
    assert prog.has_remote and prog.pred_i[0, 0] == PK_REMOTE
    assert prog.is_simple_sequence
    assert not _prog("PATTERN SEQ(A a, B+ b)").is_simple_sequence
    assert not _prog("PATTERN OR(A a, B b)").is_simple_sequence


def test_compile_and_expands_to_interleavings():
    prog = _prog("PATTERN AND(A a, B b, C c)")
    orders = sorted(tuple(_names(prog, b.pos_vars)) for b in prog.branches)
    assert orders == sorted([("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"), ("b", "c", "a"),
                             ("c", "a", "b"), ("c", "b", "a")])
    prog = _prog("PATTERN AND(SEQ(A a, B b), C c)")
    orders = sorted(tuple(_names(prog, b.pos_vars)) for b in prog.branches)
    assert orders == [("a", "b", "c"), ("a", "c", "b"), ("c", "a", "b")]
    prog = _prog("PATTERN AND(A+ a, B b)")       # a Kleene operand is a single element
    assert sorted(tuple(_names(prog, b.pos_vars)) for b in prog.branches) == [("a", "b"),
                                                                             ("b", "a")]


def test_compile_or_and_predicates_per_branch():
    prog = _prog("PATTERN SEQ(A a, OR(B b, SEQ(C c, D d))) WHERE a.x < b.x AND c.x < d.x "
                 "AND a.y = 1")
    assert [tuple(_names(prog, b.pos_vars)) for b in prog.branches] == [("a", "b"),
                                                                      ("a", "c", "d")]
    assert [list(b.pred_ids) for b in prog.branches] == [[0, 2], [1, 2]]


def test_compile_negation_slots():
    prog = _prog("PATTERN SEQ(NOT(E e), A a, AND(B b, C c), NOT(D d))")
    for br in prog.branches:
        order = _names(prog, br.pos_vars)
        negs = dict(zip(_names(prog, br.neg_vars), zip(br.neg_left, br.neg_right)))
        assert negs == {"e": (-1, 0), "d": (2, 3)}, order
    prog = _prog("PATTERN AND(SEQ(A a, NOT(C c), B b), D d)")
    assert len(prog.branches) == 3
    for br in prog.branches:
        order = _names(prog, br.pos_vars)
        assert list(br.neg_left) == [order.index("a")]
        assert list(br.neg_right) == [order.index("b")]
    prog = _prog("PATTERN SEQ(A a, NOT(C c), OR(B b, D d))")
    assert [list(b.neg_right) for b in prog.branches] == [[1], [1]]
    # nested SEQs are inlined, so a NOT at the start of a nested leading SEQ is a leading NOT
    prog = _prog("PATTERN SEQ(SEQ(NOT(C c), A a), B b)")
    assert list(prog.branches[0].neg_left) == [-1]


def test_compile_same_expands_per_branch_including_negated():
    prog = _prog("PATTERN AND(A a, SEQ(B b, NOT(C c), D d)) WHERE SAME[id]")
    idc = ATTR_NAMES.index("id")
    for br in prog.branches:
        anchor = int(br.pos_vars[0])
        eqs = {(int(prog.pred_i[p, 2]), int(prog.pred_i[p, 4])) for p in br.pred_ids}
        others = {prog.var_id(v) for v in "abcd"} - {anchor}
        assert eqs == {(anchor, v) for v in others}
        for p in br.pred_ids:
            assert prog.pred_i[p, 0] == PK_CMP and prog.pred_i[p, 1] == OP_EQ
            assert prog.pred_i[p, 3] == idc == prog.pred_i[p, 5]
            assert prog.pred_text[p].startswith("SAME[id]")


@pytest.mark.parametrize("text,fragment", [
    ("PATTERN SEQ(A a, Z z)", "event type 'Z'"),
    ("PATTERN SEQ(A a, B b) WHERE a.price < 3", "no attribute 'price'"),
    ("PATTERN SEQ(A a, B b) WHERE a.h < 3", "is a vector attribute; compare it with corr"),
    ("PATTERN SEQ(A a, B b) WHERE corr(a.x, b.x) > 0", "no vector attribute 'x'"),
    ("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.g) > 0", "different lengths (4 and 3)"),
    ("PATTERN SEQ(A a, B b) WHERE corr(a.k, b.k) > 0", "length >= 2"),
    ("PATTERN SEQ(A a, B b) WHERE SAME[zone]", "no attribute 'zone'"),
    ("PATTERN NOT(A a)", "negation alone"),
    ("PATTERN SEQ(NOT(A a), NOT(B b))", "no positive event"),
    ("PATTERN AND(A a, NOT(B b))", "must be an element of a SEQ"),
    ("PATTERN SEQ(A a, AND(SEQ(B b, NOT(C c)), D d))", "nested"),
    ("PATTERN OR(SEQ(NOT(C c), A a), B b)", "nested"),
    ("PATTERN OR(AND(A a1, A a2), AND(B b1, B b2), AND(C c1, C c2), D d)", "more than 3 flat"),
])
def test_compile_errors(text, fragment):
    schema = Schema(("A", "B", "C", "D"),
                    ATTR_NAMES + ("g[0]", "g[1]", "g[2]", "k[0]"))
    with pytest.raises(PatternError, match=fragment.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[")) as info:
        compile_pattern(parse_pattern(text), schema, source="q.cep",
                        max_branches=3 if "more than" in fragment else 5000)
    if "NOT" not in text and "more than" not in fragment:
        assert str(info.value).startswith("q.cep: ")


def test_too_many_branches_compiles_for_grouped_engines_only():
    """AND of 8 (8! flat branches) compiles with ``branch_error`` set; engines that need the
    flat branches (the tree NFA, the chain's ``and_groups="expanded"`` variant) refuse it with
    that message; ``ztree``, ``eager`` and the chain (one order-free chain) run it."""
    from engines.errors import CepsimInputError
    from engines.evaluators.lazy_nfa import run_chain
    from engines.registry import run_engine

    s = EventStream.from_arrays(["A", "B"], [0.0, 1.0], np.zeros((2, len(ATTR_NAMES))),
                                ["A", "B"], ATTR_NAMES)
    prog = compile_pattern(parse_pattern("PATTERN AND(A a1, A a2, A a3, A a4, A a5, A a6, A a7, "
                                         "A a8)"), s.schema, source="q.cep")
    assert "more than" in prog.branch_error
    with pytest.raises(CepsimInputError, match="more than"):
        run_engine("tree", prog, s)           # the tree NFA needs every order of the AND
    with pytest.raises(CepsimInputError, match="more than"):
        run_chain(prog, s, and_groups="expanded")
    assert len(run_engine("chain", prog, s).matches) == 0   # one order-free chain
    assert len(run_engine("ztree", prog, s).matches) == 0   # native AND
    assert len(run_engine("eager", prog, s).matches) == 0   # native AND


def test_max_branches_constant():
    assert MAX_BRANCHES >= 120      # 5-event AND (the strategies' largest) fits


def test_and_of_plain_events_is_one_unordered_group():
    """AND of plain events compiles into one grouped branch (no n! expansion); the ordered
    branches are only built when asked for, and then bounded by the max_branches option."""
    schema = Schema(("A", "B", "C", "D"), ATTR_NAMES)
    text = "PATTERN AND(A a1, A a2, A a3, A a4, A a5, A a6, A a7, A a8)"
    prog = compile_pattern(parse_pattern(text), schema)
    (br,) = prog.grouped
    assert not br.is_ordered and list(br.groups) == [0] * 8
    with pytest.raises(PatternError, match="more than 5000 flat alternatives.*--max-branches"):
        prog.branches
    big = compile_pattern(parse_pattern(text), schema, max_branches=50000)
    assert len(big.branches) == 40320
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, AND(B b, C c), NOT(D d), A e)"),
                           schema)
    (br,) = prog.grouped
    assert list(br.groups) == [0, 1, 1, 2]
    assert sorted(tuple(_names(prog, b.pos_vars)) for b in prog.branches) == [
        ("a", "b", "c", "e"), ("a", "c", "b", "e")]
    # the negation sits after the last of the group's order in each ordered branch
    for b in prog.branches:
        assert list(b.neg_left) == [2] and list(b.neg_right) == [3]
    # AND with a Kleene or a nested SEQ operand is still expanded into orders
    prog = compile_pattern(parse_pattern("PATTERN AND(A+ a, SEQ(B b, C c))"), schema)
    assert all(b.is_ordered for b in prog.grouped) and len(prog.grouped) == 3


def test_compile_against_real_stream_schema():
    s = EventStream.from_arrays(["A", "B"], [0.0, 1.0], np.zeros((2, len(ATTR_NAMES))),
                                ["A", "B"], ATTR_NAMES)
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0"),
                           s.schema)
    assert prog.pred_i[0, 6] == 4


# ----------------------------------------------------------------------------- added after the
# mutation run on engines/compile.py (docs/TESTING.md): branch capacity limits taken exactly,
# the capacity error's text, next-match expansion of nested ANDs, branch array dtypes
_FIX = ("raise the limit with --max-branches / compile_pattern(max_branches=...), use the eager "
        "or ztree engine (they evaluate an AND of plain events without expanding it), or "
        "simplify the pattern")
NEXT = " POLICY skip-till-next-match"


def _branches(text, limit):
    return compile_pattern(parse_pattern(text), SCHEMA, max_branches=limit).branches


@pytest.mark.parametrize("text, n", [
    ("PATTERN AND(A a, B b, C c) WITHIN 10 s", 6),                       # one group: 3!
    ("PATTERN SEQ(AND(A a, B b, C c), AND(D d, E e)) WITHIN 10 s", 12),  # two groups: 3! 2!
    ("PATTERN OR(AND(A a, B b, C c), AND(C c2, D d, E e)) WITHIN 10 s", 12),  # 6 + 6
    ("PATTERN OR(A a, B b, C c) WITHIN 10 s", 3),
    ("PATTERN SEQ(OR(A a, B b), OR(C c, D d)) WITHIN 10 s", 4),
    ("PATTERN AND(A a, B b, C c) WITHIN 10 s" + NEXT, 6),                # interleavings
    ("PATTERN AND(SEQ(A a, B b), C c) WITHIN 10 s", 3),                  # 3 interleavings
])
def test_branch_limit_is_exact_and_the_error_names_it_and_the_fix(text, n):
    """Exactly ``n`` flat branches: max_branches = n compiles them all, n - 1 is refused with
    the limit and the ways out in the message."""
    assert len(_branches(text, n)) == n
    with pytest.raises(PatternError) as err:   # at compile time, or (grouped ANDs) when the
        _branches(text, n - 1)                  # branches are expanded on first use
    assert str(err.value) == (f"pattern expands into more than {n - 1} flat alternatives "
                              f"(AND/OR); {_FIX}")


def test_next_match_expands_a_nested_and_into_ordered_branches():
    """Under skip-till-next-match an AND nested in a SEQ is compiled into its orders (every
    grouped branch ordered); under skip-till-any-match it stays one unordered group."""
    text = "PATTERN SEQ(A a, AND(B b, C c), D d) WITHIN 10 s"
    nxt = _prog(text + NEXT)
    assert len(nxt.grouped) == 2 and all(br.is_ordered for br in nxt.grouped)
    assert sorted(_names(nxt, br.pos_vars) for br in nxt.grouped) == [
        ["a", "b", "c", "d"], ["a", "c", "b", "d"]]
    anym = _prog(text)
    assert len(anym.grouped) == 1 and not anym.grouped[0].is_ordered
    nested = _prog("PATTERN OR(SEQ(A a, AND(B b, C c)), D d) WITHIN 10 s" + NEXT)
    assert len(nested.grouped) == 3 and all(br.is_ordered for br in nested.grouped)


def test_branch_arrays_are_int32():
    """The kernels are compiled for int32 index arrays (another dtype would add a Numba
    specialisation per engine)."""
    prog = _prog("PATTERN SEQ(A a, NOT(B n), AND(C c, D d), NOT(E m)) WHERE a.x < c.x "
                 "WITHIN 10 s")
    for br in prog.grouped + prog.branches:
        for name in ("pos_vars", "neg_vars", "neg_left", "neg_right", "pred_ids"):
            assert getattr(br, name).dtype == np.int32, (name, getattr(br, name).dtype)
    assert prog.grouped[0].group.dtype == np.int32 and list(prog.grouped[0].group) == [0, 1, 1]
    assert (prog.var_type.dtype, prog.var_kind.dtype, prog.pred_i.dtype, prog.pred_f.dtype,
            prog.remote_at.dtype) == (np.int32, np.int8, np.int32, np.float64, np.int32)
    assert prog.pred_i.shape == (1, 7) and prog.pred_f.shape == (1, 2)
    assert list(prog.remote_at) == [-1]                    # no REMOTE predicate
    empty = _prog("PATTERN SEQ(A a, B b) WITHIN 10 s")      # no predicate: (0, 7) and (0, 2)
    assert empty.pred_i.shape == (0, 7) and empty.pred_f.shape == (0, 2)


def test_structure_error_messages_name_the_fix():
    with pytest.raises(PatternError, match=r"is not supported; move it to the outermost SEQ or "
                                           r"between two events$"):
        _prog("PATTERN SEQ(A a, OR(B b, SEQ(NOT(C n), D d))) WITHIN 10 s")
    no_vec = Schema(("A", "B"), ("x", "id"))
    with pytest.raises(PatternError, match=r"has no vector attribute 'h' \(vector attributes: "
                                           r"none\)$"):
        compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0.5"),
                        no_vec)
    with pytest.raises(PatternError, match=r"has no vector attribute 'g' \(vector attributes: "
                                           r"\['h'\]\)$"):
        _prog("PATTERN SEQ(A a, B b) WHERE corr(a.g, b.g) > 0.5")


def test_used_columns_cover_every_read_column_and_vector_width():
    """used_columns: the scalar columns and every column of a vector read by corr(...)
    (schema x, y, id, h[0..3] = columns 0..6)."""
    assert _prog("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0.5 AND a.x < b.y "
                 "WITHIN 10 s").used_columns == (0, 1, 3, 4, 5, 6)
    assert _prog("PATTERN SEQ(A a, B b) WHERE a.id = 3 WITHIN 10 s").used_columns == (2,)


@pytest.mark.parametrize("where, fragment", [
    ("a.zz < b.x", "the stream has no attribute 'zz'"),
    ("a.x < b.zz", "the stream has no attribute 'zz'"),
    ("a.h < b.x", "'a.h' is a vector attribute; compare it with corr(...)"),
    ("corr(a.h, b.g) > 0.5", "has no vector attribute 'g'"),
    ("corr(a.g, b.h) > 0.5", "has no vector attribute 'g'"),
])
def test_compile_errors_start_with_the_source(where, fragment):
    with pytest.raises(PatternError) as err:
        compile_pattern(parse_pattern(f"PATTERN SEQ(A a, B b) WHERE {where} WITHIN 10 s"),
                        SCHEMA, source="q.cep")
    assert str(err.value).startswith("q.cep: ") and fragment in str(err.value), str(err.value)


def test_max_branches_one_is_valid_and_zero_is_not():
    assert len(_branches("PATTERN SEQ(A a, B b) WITHIN 10 s", 1)) == 1
    with pytest.raises(CepsimInputError, match=r"max_branches must be >= 1 \(got 0\)"):
        _branches("PATTERN SEQ(A a, B b) WITHIN 10 s", 0)


def test_not_outside_a_seq_and_the_never_evaluated_predicate_warning():
    with pytest.raises(PatternError, match=r"^'NOT\(B n\)' must be an element of a SEQ with a "
                                           r"positive event before or after it$"):
        _prog("PATTERN OR(A a, NOT(B n)) WITHIN 10 s")
    from engines.compile import PatternWarning
    pat = parse_pattern("PATTERN OR(SEQ(A a, B b), SEQ(C c, D d)) WHERE a.x < c.x WITHIN 10 s")
    with pytest.warns(PatternWarning) as rec:
        prog = compile_pattern(pat, SCHEMA)
    assert str(rec[0].message) == (
        "predicate 'a.x < c.x' mentions variables that no alternative of the pattern binds "
        "together (different OR branches), so it is never evaluated; move it into the "
        "alternative it belongs to")
    assert prog.pattern is pat

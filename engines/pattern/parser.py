"""Recursive-descent parser for cepsim's pattern text (docs/SEMANTICS.md).

Grammar (keywords are case-insensitive, whitespace and newlines are free, ``#`` starts a comment)::

    pattern   := 'PATTERN' node ['WHERE' pred ('AND' pred)*] ['WITHIN' number unit]
                 ['POLICY' policy]
    node      := ('SEQ' | 'AND' | 'OR') '(' node (',' node)* ')' | 'NOT' '(' event ')' | event
    event     := type ['+'] var            type: identifier, integer or "quoted"
    pred      := 'SAME' '[' attr ']' | '[' attr ']'
               | '|' ref '-' ref '|' op number
               | 'corr' '(' ref ',' ref ')' op number
               | ref op (number | operand ['*' number] [('+' | '-') number]) [at]
               | 'REMOTE' '[' ref ']' op (number | ref) [at]
    operand   := ref | 'REMOTE' '[' ref ']'
    at        := 'AT' var     (only after a predicate with REMOTE; AT is not reserved elsewhere)
    ref       := var '.' attr
    op        := '<' | '<=' | '>' | '>=' | '=' | '==' | '!=' | '<>'

Errors are ``PatternSyntaxError`` (line, column and what was expected) or ``PatternError``
(well-formed text that does not make sense: a duplicate or unknown variable, a bad window).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engines.errors import PatternError, PatternMisuseError, PatternSyntaxError
from engines.pattern.ast import (COUNT_UNITS, KEYWORDS, OPS, POLICIES, TIME_UNITS, AbsDiff, And,
                                 Attr, Compare, Corr, Event, Node, Not, Or, Pattern, Predicate,
                                 Remote, RemoteConst, Same, Seq, Window)

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+|\#[^\n]*)
  | (?P<nl>\n)
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|!=|<>|==|<|>|=)
  | (?P<sym>[(),.+\-*|\[\]])
""", re.VERBOSE)

_KEYWORDS = KEYWORDS
_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Token:
    kind: str       # num, str, ident, op, sym, end
    text: str
    line: int
    col: int

    def describe(self) -> str:
        return "end of text" if self.kind == "end" else repr(self.text)


def tokenize(text: str, source: str | None = None) -> list[Token]:
    tokens: list[Token] = []
    pos, line, line_start = 0, 1, 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise PatternSyntaxError(f"unexpected character {text[pos]!r}", line,
                                     pos - line_start + 1, source)
        kind = m.lastgroup
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind != "ws":
            tokens.append(Token(kind, m.group(), line, m.start() - line_start + 1))
        pos = m.end()
    tokens.append(Token("end", "", line, pos - line_start + 1))
    return tokens


class _Parser:
    def __init__(self, text: str, source: str | None):
        self.source = source
        self.toks = tokenize(text, source)
        self.i = 0

    # -- token helpers ------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def error(self, expected: str, tok: Token | None = None) -> PatternSyntaxError:
        tok = tok or self.tok
        return PatternSyntaxError(f"expected {expected}, found {tok.describe()}", tok.line, tok.col,
                                  self.source)

    def is_kw(self, word: str, offset: int = 0) -> bool:
        t = self.toks[self.i + offset]
        return t.kind == "ident" and t.text.upper() == word

    def is_sym(self, sym: str) -> bool:
        return self.tok.kind == "sym" and self.tok.text == sym

    def expect_kw(self, word: str) -> Token:
        if not self.is_kw(word):
            raise self.error(f"keyword {word}")
        return self.advance()

    def expect_sym(self, sym: str) -> Token:
        if not self.is_sym(sym):
            raise self.error(repr(sym))
        return self.advance()

    def advance(self) -> Token:
        t = self.tok
        self.i += 1
        return t

    def ident(self, what: str, keywords_ok: bool = False) -> str:
        if self.tok.kind != "ident" or (not keywords_ok and self.tok.text.upper() in _KEYWORDS):
            raise self.error(what)
        return self.advance().text

    def number(self, what: str = "a number") -> float:
        sign = 1.0
        if self.is_sym("-"):
            self.advance()
            sign = -1.0
        elif self.is_sym("+"):
            self.advance()
        if self.tok.kind != "num":
            raise self.error(what)
        tok = self.advance()
        value = sign * float(tok.text)
        if not math.isfinite(value):
            raise PatternSyntaxError(f"number {tok.text} is too large", tok.line, tok.col,
                                     self.source)
        return value

    def op(self) -> str:
        if self.tok.kind != "op":
            raise self.error("a comparison operator (<, <=, >, >=, =, !=)")
        text = self.advance().text
        return {"==": "=", "<>": "!="}.get(text, text)

    def remote_misuse(self, where: str) -> PatternMisuseError:
        """REMOTE[...] where it has no meaning: it is a value fetched from a remote source and
        may only be one side of a comparison (``docs/SEMANTICS.md``, remote data)."""
        t = self.tok
        return PatternMisuseError(
            f"REMOTE[...] {where}; REMOTE[var.attr] is a remote value and may only be one side "
            f"of a comparison in WHERE, e.g. 'REMOTE[a.key] > 5' or "
            f"'b.price < REMOTE[a.key] * 2 + 1' (optionally followed by 'AT var')",
            t.line, t.col, self.source)

    # -- grammar ------------------------------------------------------------------------
    def pattern(self) -> Pattern:
        self.expect_kw("PATTERN")
        structure = self.node()
        where: list[Predicate] = []
        window = None
        policy = "skip-till-any-match"
        if self.is_kw("WHERE"):
            self.advance()
            where.append(self.predicate())
            while self.is_kw("AND"):
                self.advance()
                where.append(self.predicate())
        if self.is_kw("WITHIN"):
            self.advance()
            window = self.window()
        if self.is_kw("POLICY"):
            self.advance()
            policy = self.policy()
        if self.tok.kind != "end":
            expected = "WITHIN, POLICY or the end of the pattern"
            if not where:
                expected = "WHERE, " + expected
            raise self.error(expected)
        return Pattern(structure, tuple(where), window, policy)

    def node(self) -> Node:
        for word, cls in (("SEQ", Seq), ("AND", And), ("OR", Or)):
            if self.is_kw(word) and self.toks[self.i + 1].text == "(":
                self.advance()
                self.expect_sym("(")
                children = [self.node()]
                while self.is_sym(","):
                    self.advance()
                    children.append(self.node())
                self.expect_sym(")")
                return cls(tuple(children))
        if self.is_kw("NOT") and self.toks[self.i + 1].text == "(":
            start = self.advance()
            self.expect_sym("(")
            if self.toks[self.i].kind == "ident" and self.tok.text.upper() in ("SEQ", "AND", "OR",
                                                                               "NOT"):
                raise PatternSyntaxError("NOT takes a single event such as NOT(C c)", start.line,
                                         start.col, self.source)
            child = self.event()
            if child.kleene:
                raise PatternSyntaxError("a negated event cannot be a Kleene closure", start.line,
                                         start.col, self.source)
            self.expect_sym(")")
            return Not(child)
        return self.event()

    def event(self) -> Event:
        t = self.tok
        if self.is_kw("REMOTE"):
            raise self.remote_misuse("cannot be an event of the pattern structure (events are "
                                     "written 'TYPE var')")
        if t.kind == "ident" and t.text.upper() not in _KEYWORDS:
            type_name = self.advance().text
        elif t.kind == "num" and re.fullmatch(r"\d+", t.text):
            type_name = self.advance().text
        elif t.kind == "str":
            type_name = re.sub(r"\\(.)", r"\1", self.advance().text[1:-1])
        else:
            raise self.error("an event such as 'A a' or an operator SEQ/AND/OR/NOT")
        kleene = False
        if self.is_sym("+"):
            self.advance()
            kleene = True
        if not kleene and self.is_sym("(") and t.kind == "ident":
            raise PatternSyntaxError(f"unknown operator {type_name!r}; the operators are SEQ, AND, "
                                     f"OR and NOT (an event is written 'TYPE var', e.g. 'A a')",
                                     t.line, t.col, self.source)
        if self.tok.kind == "ident" and self.tok.text.upper() in _KEYWORDS:
            raise self.error(f"a variable name after event type {type_name!r} ("
                             f"{self.tok.text!r} is a keyword and cannot name a variable; "
                             f"choose another name)")
        var = self.ident(f"a variable name after event type {type_name!r}")
        return Event(type_name, var, kleene)

    def ref(self) -> Attr:
        if self.is_kw("REMOTE"):
            raise self.remote_misuse("cannot be used here (inside |x - y| or corr(...), or as "
                                     "the key of another REMOTE)")
        var = self.ident("a variable reference such as 'a.price'")
        self.expect_sym(".")
        # after '.' a reserved word is unambiguous: attributes may be called e.g. 'within'
        name = self.ident(f"an attribute name after '{var}.'", keywords_ok=True)
        return Attr(var, name)

    def predicate(self) -> Predicate:
        if self.is_kw("SAME") or self.is_sym("["):
            if self.is_kw("SAME"):
                self.advance()
            self.expect_sym("[")
            attr = self.ident("an attribute name inside SAME[...]", keywords_ok=True)
            self.expect_sym("]")
            return Same(attr)
        if self.is_sym("|"):
            self.advance()
            left = self.ref()
            self.expect_sym("-")
            right = self.ref()
            self.expect_sym("|")
            op = self.op()
            return AbsDiff(left, right, op, self.number())
        if self.is_kw("CORR"):
            self.advance()
            self.expect_sym("(")
            left = self.ref()
            self.expect_sym(",")
            right = self.ref()
            self.expect_sym(")")
            op = self.op()
            return Corr(left, right, op, self.number())
        if self.is_kw("REMOTE"):
            return self.remote_first()
        left = self.ref()
        if (self.is_sym("+") or self.is_sym("-") or self.is_sym("*")) and \
                self.toks[self.i + 1].kind == "ident" and \
                self.toks[self.i + 1].text.upper() == "REMOTE":
            self.advance()
            raise self.remote_misuse("cannot be added to or multiplied with an attribute on the "
                                     "same side ('a.x + REMOTE[...]'): put the attribute alone on "
                                     "one side")
        op = self.op()
        if self.tok.kind == "num" or (self.is_sym("-") or self.is_sym("+")) and \
                self.toks[self.i + 1].kind == "num":
            return Compare(left, op, None, 1.0, self.number())
        if self.is_kw("REMOTE"):
            self.advance()
            self.expect_sym("[")
            right: Attr | Remote = Remote(self.ref())
            self.expect_sym("]")
        elif self.tok.kind == "ident":
            right = self.ref()
        else:
            raise self.error("a number, a reference such as 'b.price' or REMOTE[...]")
        scale, offset = 1.0, 0.0
        if self.is_sym("*"):
            self.advance()
            scale = self.number("a number after '*'")
        if self.is_sym("+") or self.is_sym("-"):
            sign = 1.0 if self.advance().text == "+" else -1.0
            offset = sign * self.number("a number after '+' or '-'")
        at = self.at_clause() if isinstance(right, Remote) else None
        return Compare(left, op, right, scale, offset, at)

    def at_clause(self) -> str | None:
        """Optional ``AT var`` after a remote predicate: where the engines check it."""
        if not self.is_kw("AT"):
            return None
        self.advance()
        return self.ident("a variable name after AT (the variable at whose binding the REMOTE "
                          "predicate is checked), e.g. 'AT d'")

    def remote_first(self) -> Predicate:
        """``REMOTE[key] OP number [AT v]`` or ``REMOTE[key] OP ref [AT v]`` (stored flipped)."""
        self.advance()
        self.expect_sym("[")
        key = self.ref()
        self.expect_sym("]")
        if self.is_sym("*") or self.is_sym("+") or self.is_sym("-"):
            raise self.remote_misuse("is in arithmetic on the left of a comparison (write the "
                                     "comparison with REMOTE on the right: 'c.v1 < REMOTE[...] "
                                     "* k + c')")
        if self.tok.kind != "op":
            raise self.remote_misuse("is not compared with anything")
        op = self.op()
        if self.tok.kind == "num" or (self.is_sym("-") or self.is_sym("+")) and \
                self.toks[self.i + 1].kind == "num":
            value = self.number()
            return RemoteConst(key, op, value, self.at_clause())
        if self.is_kw("REMOTE"):
            raise self.remote_misuse("cannot be on both sides of a comparison (compare a remote "
                                     "value with an attribute or a number)")
        if self.tok.kind != "ident":
            raise self.error("a number or a reference such as 'c.v1' after 'REMOTE[...] " + op + "'")
        right = self.ref()
        if self.is_sym("*") or self.is_sym("+") or self.is_sym("-"):
            raise self.error("AND, AT or the end of the predicate (arithmetic is only allowed on "
                             "the REMOTE side: write 'c.v1 " + op + " REMOTE[...] * k + c')")
        flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        return Compare(right, flipped, Remote(key), 1.0, 0.0, self.at_clause())

    def window(self) -> Window:
        t = self.tok
        value = self.number("the window length (a number)")
        if self.tok.kind != "ident":
            raise self.error("a window unit (ps, ns, us, ms, s, seconds, minutes, hours, days or "
                             "events)")
        unit_tok = self.advance()
        unit = unit_tok.text.lower()
        if unit not in TIME_UNITS and unit not in COUNT_UNITS:
            raise PatternSyntaxError(f"unknown window unit {unit_tok.text!r}; use one of ps, ns, us, "
                                     "ms, s, seconds, minutes, hours, days or events", unit_tok.line,
                                     unit_tok.col, self.source)
        if value <= 0:
            raise PatternSyntaxError("the window length must be positive", t.line, t.col, self.source)
        if unit in COUNT_UNITS and not float(value).is_integer():
            raise PatternSyntaxError("a count window needs a whole number of events", t.line, t.col,
                                     self.source)
        return Window(value, unit)

    def policy(self) -> str:
        t = self.tok
        parts = [self.ident("a policy: skip-till-any-match or skip-till-next-match")]
        while self.is_sym("-") and self.toks[self.i + 1].kind == "ident":
            self.advance()
            parts.append(self.advance().text)
        name = "-".join(parts).lower()
        if name not in POLICIES:
            raise PatternSyntaxError(f"unknown policy {name!r}; use skip-till-any-match or "
                                     "skip-till-next-match", t.line, t.col, self.source)
        return name


def check_pattern(pattern: Pattern, source: str | None = None) -> Pattern:
    """Semantic checks that need no schema: unique variables, predicates on known variables."""
    where = f"{source}: " if source else ""
    seen: dict[str, bool] = {}
    for event, negated in pattern.events():
        if not _VAR.match(event.var) or event.var.upper() in _KEYWORDS:
            raise PatternError(f"{where}variable name {event.var!r} is not an identifier or is a "
                               "reserved word; use a name such as 'a1'")
        if event.var in seen:
            raise PatternError(f"{where}variable {event.var!r} is bound twice; give every event its "
                               "own variable name")
        seen[event.var] = negated
    for pred in pattern.where:
        for var in pred.variables():
            if var not in seen:
                raise PatternError(f"{where}predicate '{pred}' uses unknown variable {var!r}; "
                                   f"variables are {list(seen)}")
        negs = [v for v in pred.variables() if seen[v]]
        if len(negs) > 1:
            raise PatternError(f"{where}predicate '{pred}' relates two negated events; a predicate "
                               "may mention at most one negated variable")
        if isinstance(pred, Compare) and isinstance(pred.right, Remote) and seen[pred.left.var]:
            raise PatternError(f"{where}predicate '{pred}': REMOTE data on a negated event is not "
                               "supported")
        if negs and isinstance(pred, (Compare, RemoteConst)) and \
                (isinstance(pred, RemoteConst) or isinstance(pred.right, Remote)):
            raise PatternError(f"{where}predicate '{pred}': REMOTE data on a negated event is not "
                               "supported")
    if pattern.policy not in POLICIES:
        raise PatternError(f"{where}unknown policy {pattern.policy!r}; use one of {POLICIES}")
    for pred in pattern.where:
        op = getattr(pred, "op", "=")
        if op not in OPS:
            raise PatternError(f"{where}unknown operator {op!r} in '{pred}'")
    return pattern


def parse_pattern(text: str, source: str | None = None) -> Pattern:
    """Parse pattern text into a checked ``Pattern`` AST.  ``source`` names the file in errors."""
    if not isinstance(text, str) or not text.strip():
        raise PatternSyntaxError("expected keyword PATTERN, found an empty pattern", 1, 1, source)
    try:
        return check_pattern(_Parser(text, source).pattern(), source)
    except RecursionError:
        raise PatternError(f"{source + ': ' if source else ''}pattern nesting too deep (operators "
                           "nested hundreds of levels); flatten the nested SEQ/AND/OR") from None


def parse_predicate(text: str) -> Predicate:
    """Parse one WHERE conjunct (used by the builder API)."""
    p = _Parser(text, None)
    pred = p.predicate()
    if p.tok.kind != "end":
        raise p.error("the end of the predicate")
    return pred

"""A second brute-force oracle that works on the pattern AST and plain Python values.

``engines.oracle`` enumerates matches of the *compiled* ``Program`` (flat branches, the packed
predicate table).  A bug in ``engines.compile`` (a wrong branch, a wrong column, a lost
predicate, a wrong negation neighbour) would therefore reach the oracle and every engine alike,
and every property test would still pass.  This module shares nothing with the compiler or the
predicate kernel: it reads the ``Pattern`` AST, reads the stream into lists of Python floats
keyed by attribute *name*, and checks the rules of ``docs/SEMANTICS.md`` in a different shape:

* **Structure without branches.**  OR is resolved by choosing one child (an *alternative*: the
  AST with every OR replaced by one of its children).  A binding of the alternative's positive
  variables is a match when (a) the variables' event ranges are pairwise disjoint (each
  variable is one element of a flat sequence, a Kleene variable's events stay together) and
  (b) every SEQ orders its positive children: every event under child ``i`` precedes every
  event under child ``i + 1``.  AND imposes no order.  This is the same set as "every
  interleaving of AND's operands" of the compiled branches, derived independently.
* **Negation** ``NOT(C c)`` inside a SEQ: no event of type C strictly between the last event
  under its nearest positive left sibling and the first event under its nearest positive right
  sibling (at the start of the outermost SEQ: before the match's first event and in the window
  of its last one; at the end: after the last event, in the window of the first one) for which
  every predicate mentioning ``c`` holds.
* **SAME[attr]** is the anchor rule of SEMANTICS.md: the match's earliest variable is the anchor,
  and every event of every other variable (negated ones included) equals every event of the
  anchor in ``attr``.
* **skip-till-next-match** is checked on each finished candidate: walking its events in stream
  order, no event between two consecutive bound events qualifies for the element the later
  one is bound to (type, window of the first event, predicates fully bound by the prefix).
* Arithmetic is float64 as written in the grammar: ``x OP y * scale + offset``,
  ``|x - y| OP c``, Pearson in two passes (NaN when a variance is zero; NaN compares false except
  for ``!=``).

It is slow (backtracking over variables in text order with window / order / predicate pruning,
Kleene subsets built event by event) and meant for tests on streams of tens of events.
"""
from __future__ import annotations

import itertools
import math
import operator
import re
from dataclasses import dataclass

from engines.matches import MatchSet
from engines.pattern.ast import (AbsDiff, And, Attr, Compare, Corr, Event, Node, Not, Or, Pattern,
                                 Remote, Same, Seq)
from engines.stream import EventStream

_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "=": operator.eq, "!=": operator.ne}
_VECTOR = re.compile(r"^(.+)\[(\d+)\]$")


class AstOracleError(ValueError):
    """The pattern uses something this oracle does not evaluate (REMOTE, NOT-NOT predicates)."""


# ----------------------------------------------------------------------------- the stream
@dataclass
class _Events:
    types: list[str]
    ts: list[float]
    values: list[dict]          # per event: scalar attr name -> float, vector name -> [floats]

    @classmethod
    def of(cls, stream: EventStream) -> "_Events":
        names = list(stream.schema.attr_names)
        type_names = list(stream.schema.type_names)
        vectors: dict[str, list[tuple[int, int]]] = {}
        for col, name in enumerate(names):
            m = _VECTOR.match(name)
            if m:
                vectors.setdefault(m.group(1), []).append((int(m.group(2)), col))
        values = []
        for row in stream.attrs.tolist():
            d = {name: float(row[col]) for col, name in enumerate(names)}
            for vname, parts in vectors.items():
                d[vname] = [float(row[col]) for _, col in sorted(parts)]
            values.append(d)
        return cls([type_names[int(t)] for t in stream.types], [float(t) for t in stream.ts],
                   values)


# ----------------------------------------------------------------------------- predicates
def _pearson(u: list[float], v: list[float]) -> float:
    n = len(u)
    mu = sum(u) / n
    mv = sum(v) / n
    sxy = sxx = syy = 0.0
    for a, b in zip(u, v):
        sxy += (a - mu) * (b - mv)
        sxx += (a - mu) * (a - mu)
        syy += (b - mv) * (b - mv)
    if sxx == 0.0 or syy == 0.0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


@dataclass(frozen=True)
class _Pred:
    """A WHERE conjunct, or one equality of SAME (``same_attr`` set), over one or two variables."""

    node: object
    vars: frozenset
    same_attr: str | None = None
    anchor: str | None = None
    other: str | None = None

    def test(self, ev: _Events, e1: int, e2: int) -> bool:
        """Evaluate with event ``e1`` bound to the first-mentioned variable and ``e2`` to the
        other one (the same event when the predicate mentions one variable)."""
        if self.same_attr is not None:
            return ev.values[e1][self.same_attr] == ev.values[e2][self.same_attr]
        p = self.node
        a = ev.values[e1]
        b = ev.values[e2]
        if isinstance(p, Compare):
            if p.right is None:
                return _OPS[p.op](a[p.left.name], p.offset)
            return _OPS[p.op](a[p.left.name], b[p.right.name] * p.scale + p.offset)
        if isinstance(p, AbsDiff):
            return _OPS[p.op](abs(a[p.left.name] - b[p.right.name]), p.value)
        if isinstance(p, Corr):
            return _OPS[p.op](_pearson(a[p.left.name], b[p.right.name]), p.value)
        raise AstOracleError(f"cannot evaluate {p}")

    def first_var(self) -> str:
        if self.same_attr is not None:
            return self.anchor
        return self.node.left.var

    def second_var(self) -> str | None:
        if self.same_attr is not None:
            return self.other
        p = self.node
        if isinstance(p, Compare):
            return p.right.var if isinstance(p.right, Attr) else None
        return p.right.var

    def holds(self, ev: _Events, bind: dict[str, list[int]]) -> bool:
        """True when it holds for every event (pair) bound to its variables."""
        v1, v2 = self.first_var(), self.second_var()
        if v2 is None or v2 == v1:
            return all(self.test(ev, e, e) for e in bind[v1])
        return all(self.test(ev, e1, e2) for e1 in bind[v1] for e2 in bind[v2])


def _where(pattern: Pattern) -> tuple[list[_Pred], list[str]]:
    preds, same = [], []
    for p in pattern.where:
        if isinstance(p, Same):
            same.append(p.attr)
            continue
        if isinstance(p, Compare) and isinstance(p.right, Remote):
            raise AstOracleError(f"REMOTE predicate '{p}' is not evaluated by the AST oracle")
        vs = {p.left.var}
        if isinstance(p, Compare):
            if isinstance(p.right, Attr):
                vs.add(p.right.var)
        else:
            vs.add(p.right.var)
        preds.append(_Pred(p, frozenset(vs)))
    return preds, same


# ----------------------------------------------------------------------------- structure
def _inline(node: Node) -> Node:
    """Nested SEQ-in-SEQ (AND-in-AND, OR-in-OR) spliced into the parent; one-child operators
    unwrapped.  Meaning-preserving; it decides which NOT sits at the outermost SEQ's edges."""
    if isinstance(node, (Event, Not)):
        return node
    kids: list[Node] = []
    for c in node.children:
        c = _inline(c)
        if type(c) is type(node):
            kids.extend(c.children)
        else:
            kids.append(c)
    if len(kids) == 1 and not isinstance(kids[0], Not):
        return kids[0]
    return type(node)(tuple(kids))


def _alternatives(node: Node) -> list[Node]:
    """The node with every OR replaced by one of its children, in every combination."""
    if isinstance(node, (Event, Not)):
        return [node]
    if isinstance(node, Or):
        return [a for c in node.children for a in _alternatives(c)]
    options = [_alternatives(c) for c in node.children]
    return [type(node)(tuple(combo)) for combo in itertools.product(*options)]


def _positive_events(node: Node) -> list[Event]:
    if isinstance(node, Event):
        return [node]
    if isinstance(node, Not):
        return []
    return [e for c in node.children for e in _positive_events(c)]


def _nots(node: Node, top: bool):
    """Yield ``(not_node, left_sibling, right_sibling)`` with None at the outermost SEQ's edges."""
    if isinstance(node, (Event, Not)):
        return
    kids = node.children
    if isinstance(node, Seq):
        for i, k in enumerate(kids):
            if not isinstance(k, Not):
                continue
            left = next((kids[j] for j in range(i - 1, -1, -1) if not isinstance(kids[j], Not)),
                        None)
            right = next((kids[j] for j in range(i + 1, len(kids))
                          if not isinstance(kids[j], Not)), None)
            if (left is None or right is None) and not top:
                raise AstOracleError(f"NOT at the edge of a nested '{node}'")
            yield k, left, right
    for k in kids:
        yield from _nots(k, False)


class _Alt:
    """One alternative: its positive variables, negations, predicates and structure."""

    def __init__(self, tree: Node, preds: list[_Pred], same: list[str], pattern: Pattern):
        self.tree = tree
        events = _positive_events(tree)
        self.pos = [e.var for e in events]
        self.type = {e.var: e.type_name for e in events}
        self.kleene = {e.var: e.kleene for e in events}
        self.negs = list(_nots(tree, True))
        neg_vars = {n.child.var for n, _, _ in self.negs}
        for n, _, _ in self.negs:
            self.type[n.child.var] = n.child.type_name
        bound = set(self.pos) | neg_vars
        self.preds = [p for p in preds if p.vars <= bound]
        for p in self.preds:
            if len(p.vars & neg_vars) > 1:
                raise AstOracleError(f"predicate '{p.node}' mentions two negated variables")
        self.pos_preds = [p for p in self.preds if not (p.vars & neg_vars)]
        self.neg_vars = neg_vars
        self.same = same
        self.trailing = isinstance(tree, Seq) and isinstance(tree.children[-1], Not)

    def same_preds(self, anchor: str) -> list[_Pred]:
        out = []
        for attr in self.same:
            for v in self.pos + sorted(self.neg_vars):
                if v != anchor:
                    out.append(_Pred(None, frozenset((anchor, v)), attr, anchor, v))
        return out


# ----------------------------------------------------------------------------- the search
class _Search:
    def __init__(self, alt: _Alt, ev: _Events, pattern: Pattern):
        self.alt = alt
        self.ev = ev
        self.n = len(ev.types)
        w = pattern.window
        self.count = w is not None and w.is_count
        self.W = math.inf if w is None else (float(w.value) if self.count else w.seconds)
        self.next = pattern.policy == "skip-till-next-match"

    def fits(self, i: int, j: int) -> bool:
        """Positions i <= j lie in one window."""
        if self.count:
            return j - i < self.W
        return self.ev.ts[j] - self.ev.ts[i] <= self.W

    # -- candidate bindings ------------------------------------------------------------
    def _ok_partial(self, bind: dict[str, list[int]]) -> bool:
        evs = sorted(e for es in bind.values() for e in es)
        if len(set(evs)) != len(evs) or (evs and not self.fits(evs[0], evs[-1])):
            return False
        ranges = sorted((es[0], es[-1]) for es in bind.values())
        if any(a[1] >= b[0] for a, b in zip(ranges, ranges[1:])):
            return False
        for p in self.alt.pos_preds:
            if p.vars <= bind.keys() and not p.holds(self.ev, bind):
                return False
        if self.alt.same and len(self.alt.pos) >= 2:
            for attr in self.alt.same:
                if len({self.ev.values[e][attr] for e in evs}) > 1:
                    return False
        return True

    def bindings(self):
        pos = self.alt.pos
        bind: dict[str, list[int]] = {}

        def kleene_sets(v: str, cands: list[int], start: int):
            # grow the Kleene list event by event; each prefix-valid list is yielded
            for k in range(start, len(cands)):
                bind[v].append(cands[k])
                if self._ok_partial(bind):
                    yield
                    yield from kleene_sets(v, cands, k + 1)
                bind[v].pop()

        def rec(i: int):
            if i == len(pos):
                yield {v: list(es) for v, es in bind.items()}
                return
            v = pos[i]
            cands = [e for e in range(self.n) if self.ev.types[e] == self.alt.type[v]]
            if self.alt.kleene[v]:
                bind[v] = []
                for _ in kleene_sets(v, cands, 0):
                    yield from rec(i + 1)
                del bind[v]
            else:
                for e in cands:
                    bind[v] = [e]
                    if self._ok_partial(bind):
                        yield from rec(i + 1)
                bind.pop(v, None)

        yield from rec(0)

    # -- the rules on a finished candidate ---------------------------------------------
    def _span(self, node: Node, bind) -> tuple[int, int]:
        evs = [e for x in _positive_events(node) for e in bind[x.var]]
        return min(evs), max(evs)

    def _ordered(self, node: Node, bind) -> bool:
        if isinstance(node, (Event, Not)):
            return True
        if isinstance(node, Seq):
            spans = [self._span(k, bind) for k in node.children if not isinstance(k, Not)]
            if any(a[1] >= b[0] for a, b in zip(spans, spans[1:])):
                return False
        return all(self._ordered(k, bind) for k in node.children)

    def _killed(self, bind, preds: list[_Pred]) -> bool:
        evs = sorted(e for v in self.alt.pos for e in bind[v])
        first, last = evs[0], evs[-1]
        for neg, left, right in self.alt.negs:
            var, typ = neg.child.var, neg.child.type_name
            if left is None:
                cands = [c for c in range(first) if self.fits(c, last)]
            elif right is None:
                cands = [c for c in range(last + 1, self.n) if self.fits(first, c)]
            else:
                cands = range(self._span(left, bind)[1] + 1, self._span(right, bind)[0])
            mention = [p for p in preds if var in p.vars]
            for c in cands:
                if self.ev.types[c] != typ:
                    continue
                trial = dict(bind)
                trial[var] = [c]
                if all(p.holds(self.ev, trial) for p in mention):
                    return True
        return False

    def _next_ok(self, bind, preds: list[_Pred]) -> bool:
        steps = sorted((e, v) for v in self.alt.pos for e in bind[v])
        first = steps[0][0]
        positive = [p for p in preds if not (p.vars & self.alt.neg_vars)]
        for j in range(1, len(steps)):
            e, v = steps[j]
            prefix: dict[str, list[int]] = {}
            for pe, pv in steps[:j]:
                prefix.setdefault(pv, []).append(pe)
            scope = set(prefix) | {v}
            relevant = [p for p in positive if v in p.vars and p.vars <= scope]
            for f in range(steps[j - 1][0] + 1, e):
                if self.ev.types[f] != self.alt.type[v] or not self.fits(first, f):
                    continue
                trial = {k: list(x) for k, x in prefix.items()}
                trial.setdefault(v, []).append(f)
                if all(p.holds(self.ev, trial) for p in relevant):
                    return False              # f is the next qualifying event, not e
        return True

    def matches(self):
        for bind in self.bindings():
            if not self._ordered(self.alt.tree, bind):
                continue
            evs = sorted(e for es in bind.values() for e in es)
            anchor = min(self.alt.pos, key=lambda v: bind[v][0])
            preds = self.alt.preds + self.alt.same_preds(anchor)
            positive = [p for p in preds if not (p.vars & self.alt.neg_vars)]
            if not all(p.holds(self.ev, bind) for p in positive):
                continue
            if self._killed(bind, preds):
                continue
            if self.next and not self._next_ok(bind, preds):
                continue
            detect = evs[-1]
            if self.alt.trailing:
                detect = next((e for e in range(evs[-1] + 1, self.n)
                               if not self.fits(evs[0], e)), self.n)
            yield bind, detect


# ----------------------------------------------------------------------------- entry points
def ast_matches(pattern: Pattern, stream: EventStream) -> dict[tuple, int]:
    """Every match as ``{key: detect}``; keys in the form of ``MatchSet.keys()``."""
    ev = _Events.of(stream)
    preds, same = _where(pattern)
    kleene = {e.var: e.kleene for e, neg in pattern.events() if not neg}
    out: dict[tuple, int] = {}
    for tree in _alternatives(_inline(pattern.structure)):
        alt = _Alt(tree, preds, same, pattern)
        for bind, detect in _Search(alt, ev, pattern).matches():
            key = tuple(sorted((v, tuple(es) if kleene[v] else es[0]) for v, es in bind.items()))
            if key in out:
                raise AssertionError(f"AST oracle found {key} twice (two alternatives coincide)")
            out[key] = detect
    return out


def run_oracle_ast(pattern: Pattern, stream: EventStream) -> MatchSet:
    """The matches of ``ast_matches`` as a ``MatchSet`` (columns: positive variables in text
    order), sorted by detection then key, for ``assert_same_matches``."""
    found = ast_matches(pattern, stream)
    names = tuple(e.var for e, neg in pattern.events() if not neg)
    kleene = tuple(e.kleene for e, neg in pattern.events() if not neg)
    items = sorted(found.items(), key=lambda kv: (kv[1], kv[0]))
    records = [{v: (list(x) if isinstance(x, tuple) else x) for v, x in key} for key, _ in items]
    return MatchSet.from_records(names, kleene, records, [d for _, d in items])

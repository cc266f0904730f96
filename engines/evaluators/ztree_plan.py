"""Tree plans for the ``ztree`` evaluator: parsing, validation and the per-node tables.

A *plan* is a binary tree whose leaves are the pattern's positive variables, each exactly once
(ZStream's tree plans, Mei & Madden SIGMOD'09; the PVLDB'18 adaptive-invariants paper section 4).
It is written as text, ``"((a,b),(c,d))"`` (bushy) or ``"(((a,b),c),d)"`` (left-deep), or given
as a nested tuple of variable names, ``(("a", "b"), ("c", "d"))``.  A group of more than two
members, ``"(a,b,c)"``, is read left-deep, ``((a,b),c)``; outer parentheses are optional
(``"a,b,c"``).  ``make_plan(spec, program)`` validates a plan and returns a ``Plan``;
``left_deep(names)`` builds the default, the left-deep tree in query order.

The pattern side (``alternatives``) reads the *unexpanded* pattern: OR is split into
alternatives (one tree per alternative), while AND stays native.  An alternative is its
positive variables, a strict partial order on them (``prec``: every event of ``x`` precedes
every event of ``y``; from SEQ), the pairs that are merely disjoint (AND operands: their
elements may interleave in any order but never overlap, so a Kleene operand's events stay
together) and its negations with the variables of their left / right neighbours.  This is the
same match set as the flat branches of ``engines.compile`` (docs/SEMANTICS.md): a binding
matches one interleaving of an AND exactly when its elements are pairwise disjoint and respect
the SEQ order, so AND of 8 needs no 8! expansion.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Union

from engines.compile import Program, normalise
from engines.errors import CepsimInputError, PatternError
from engines.program_memo import program_memo
from engines.pattern.ast import And, Event, Not, Or, Seq

PlanSpec = Union[str, tuple, list]
_TOKEN = re.compile(r"\s*(?:(\()|(\))|(,)|([A-Za-z_][A-Za-z0-9_]*))")


@dataclass(frozen=True)
class Plan:
    """A validated plan: ``tree`` is a nested tuple of variable names (binary)."""

    tree: Union[str, tuple]

    def __str__(self) -> str:
        return format_plan(self.tree)

    def leaves(self) -> list[str]:
        return _leaves(self.tree)


def _leaves(tree) -> list[str]:
    if isinstance(tree, str):
        return [tree]
    return _leaves(tree[0]) + _leaves(tree[1])


def format_plan(tree) -> str:
    """Plan text of a nested tuple, e.g. ``((a,b),(c,d))``."""
    if isinstance(tree, str):
        return tree
    return f"({format_plan(tree[0])},{format_plan(tree[1])})"


def _binary(items: list) -> Union[str, tuple]:
    out = items[0]
    for it in items[1:]:
        out = (out, it)
    return out


def parse_plan_text(text: str, where: str = "--plan") -> Union[str, tuple]:
    """Parse plan text into a nested tuple (groups of more than two are left-deep)."""
    pos = 0
    toks: list[tuple[str, int]] = []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise CepsimInputError(f"{where}: cannot read plan {text!r} at character {pos + 1} "
                                   "(write variables and parentheses, e.g. \"((a,b),(c,d))\")")
        kind = "(" if m.group(1) else ")" if m.group(2) else "," if m.group(3) else "name"
        toks.append((kind if kind != "name" else m.group(4), pos))
        pos = m.end()
    k = 0

    def err(msg: str):
        at = toks[k][1] + 1 if k < len(toks) else len(text)
        raise CepsimInputError(f"{where}: plan {text!r}, character {at}: {msg} "
                               "(e.g. \"((a,b),(c,d))\")")

    def group():
        nonlocal k
        items = [item()]
        while k < len(toks) and toks[k][0] == ",":
            k += 1
            items.append(item())
        return _binary(items)

    def item():
        nonlocal k
        if k >= len(toks):
            err("unexpected end")
        t = toks[k][0]
        if t == "(":
            k += 1
            g = group()
            if k >= len(toks) or toks[k][0] != ")":
                err("missing ')'")
            k += 1
            return g
        if t in (")", ","):
            err(f"unexpected {t!r}")
        k += 1
        return t

    if not toks:
        raise CepsimInputError(f"{where}: empty plan; give e.g. \"((a,b),(c,d))\"")
    tree = group()
    if k != len(toks):
        err(f"unexpected {toks[k][0]!r}")
    return tree


def _from_tuple(spec, where: str):
    if isinstance(spec, str):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", spec):
            return parse_plan_text(spec, where)
        return spec
    if isinstance(spec, (tuple, list)):
        if not spec:
            raise CepsimInputError(f"{where}: empty group in plan")
        return _binary([_from_tuple(s, where) for s in spec])
    raise CepsimInputError(f"{where}: a plan is text or a nested tuple of variable names, "
                           f"got {type(spec).__name__}")


def make_plan(spec: PlanSpec | Plan | None, program: Program, where: str = "plan") -> Plan:
    """Validate ``spec`` (text, nested tuple, ``Plan`` or None = left-deep in query order)
    against ``program``: every positive variable exactly once, nothing else."""
    names = [program.var_names[v] for v in program.positive_vars]
    if spec is None:
        return Plan(left_deep(names))
    tree = spec.tree if isinstance(spec, Plan) else _from_tuple(spec, where)
    leaves = _leaves(tree)
    unknown = [v for v in leaves if v not in names]
    if unknown:
        neg = [v for v in unknown if v in program.var_names]
        hint = (f" ({', '.join(neg)} negated: negations are not plan leaves)" if neg else "")
        raise CepsimInputError(f"{where}: plan {format_plan(tree)} names {', '.join(unknown)}, "
                               f"not positive variables of the pattern{hint}; "
                               f"its variables are {', '.join(names)}")
    dup = sorted({v for v in leaves if leaves.count(v) > 1})
    if dup:
        raise CepsimInputError(f"{where}: plan {format_plan(tree)} names {', '.join(dup)} more "
                               "than once; each variable is one leaf")
    missing = [v for v in names if v not in leaves]
    if missing:
        raise CepsimInputError(f"{where}: plan {format_plan(tree)} lacks {', '.join(missing)}; "
                               "every positive variable must be a leaf")
    return Plan(tree)


def left_deep(names: list[str]) -> Union[str, tuple]:
    """The left-deep tree over ``names`` in the given order: ``(((a,b),c),d)``."""
    return _binary(list(names))


def restrict(tree, keep: set[str]):
    """The plan restricted to ``keep`` (leaves dropped, one-child nodes collapsed)."""
    if isinstance(tree, str):
        return tree if tree in keep else None
    a, b = restrict(tree[0], keep), restrict(tree[1], keep)
    if a is None:
        return b
    if b is None:
        return a
    return (a, b)


# ----------------------------------------------------------------------------- alternatives
@dataclass(frozen=True)
class Alternative:
    """One OR alternative with AND kept native (see module docstring)."""

    vars: tuple[str, ...]                        # positive variables (text order)
    prec: frozenset[tuple[str, str]]             # (x, y): every event of x before every of y
    negs: tuple[tuple[str, tuple[str, ...] | None, tuple[str, ...] | None], ...]
    # (negated var, left neighbour vars or None = start, right neighbour vars or None = end)


_Alt = tuple[tuple[str, ...], frozenset, tuple]
MAX_ALTERNATIVES = 5000


def _alts(node, top: bool) -> list[_Alt]:
    if isinstance(node, Event):
        return [((node.var,), frozenset(), ())]
    if isinstance(node, Not):
        raise PatternError(f"'{node}' must be an element of a SEQ with a positive event before "
                           "or after it")
    if isinstance(node, Or):
        out: list[_Alt] = []
        for c in node.children:
            out.extend(_alts(c, False))
        return out
    if isinstance(node, And):
        out = []
        for combo in itertools.product(*[_alts(c, False) for c in node.children]):
            out.append((tuple(v for vs, _, _ in combo for v in vs),
                        frozenset().union(*[p for _, p, _ in combo]),
                        tuple(n for _, _, ns in combo for n in ns)))
            if len(out) > MAX_ALTERNATIVES:
                raise PatternError(f"pattern has more than {MAX_ALTERNATIVES} OR alternatives")
        return out
    assert isinstance(node, Seq)
    kids = list(node.children)
    if all(isinstance(k, Not) for k in kids):
        raise PatternError(f"'{node}' has no positive event")
    if not top and (isinstance(kids[0], Not) or isinstance(kids[-1], Not)):
        raise PatternError(f"NOT at the start or end of a nested '{node}' is not supported; move "
                           "it to the outermost SEQ or between two events")
    alts: list[tuple[tuple, frozenset, tuple, tuple | None]] = [((), frozenset(), (), None)]
    pending: list[str] = []
    for k in kids:
        if isinstance(k, Not):
            pending.append(k.child.var)
            continue
        new = []
        for vs, prec, negs, prev in alts:
            for cvs, cprec, cnegs in _alts(k, False):
                cross = frozenset((x, y) for x in vs for y in cvs)
                add = tuple((n, prev, cvs) for n in pending)
                new.append((vs + cvs, prec | cprec | cross, negs + add + cnegs, cvs))
                if len(new) > MAX_ALTERNATIVES:
                    raise PatternError(f"pattern has more than {MAX_ALTERNATIVES} OR alternatives")
        alts = new
        pending = []
    return [(vs, prec, negs + tuple((n, prev, None) for n in pending))
            for vs, prec, negs, prev in alts]


def alternatives(program: Program) -> list[Alternative]:
    """The pattern's OR alternatives with native AND (positive variables in text order).
    Computed once per program (``build_tables`` asks for them at every plan it builds)."""
    memo = program_memo(program)
    if "ztree_alternatives" not in memo:
        memo["ztree_alternatives"] = _alternatives(program)
    return list(memo["ztree_alternatives"])


def _alternatives(program: Program) -> list[Alternative]:
    structure = normalise(program.pattern.structure)
    if isinstance(structure, Not):
        raise PatternError("a pattern cannot consist of a negation alone")
    order = {v: i for i, v in enumerate(program.var_names)}
    out = []
    for vs, prec, negs in _alts(structure, True):
        # transitive closure (SEQ already adds every cross pair; closure keeps this robust)
        closed = set(prec)
        changed = True
        while changed:
            changed = False
            for (a, b) in list(closed):
                for (c, d) in list(closed):
                    if b == c and (a, d) not in closed:
                        closed.add((a, d))
                        changed = True
        out.append(Alternative(tuple(sorted(vs, key=order.__getitem__)), frozenset(closed), negs))
    return out

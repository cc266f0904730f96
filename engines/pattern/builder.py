"""A small Python builder API producing the same AST as the parser.

    build_pattern(seq(event("A", "a"), kleene("B", "b"), not_(event("C", "c")), event("D", "d")),
                  where=["a.x < b.x * 1.5 + 2", pred("|a.y - d.y| <= 10")],
                  within=(10, "minutes"), policy="skip-till-next-match")
"""
from __future__ import annotations

from engines.pattern.ast import And, Event, Node, Not, Or, Pattern, Predicate, Seq, Window
from engines.pattern.parser import check_pattern, parse_predicate


def event(type_name: str, var: str) -> Event:
    return Event(str(type_name), var, False)


def kleene(type_name: str, var: str) -> Event:
    return Event(str(type_name), var, True)


def seq(*children: Node) -> Seq:
    return Seq(tuple(children))


def and_(*children: Node) -> And:
    return And(tuple(children))


def or_(*children: Node) -> Or:
    return Or(tuple(children))


def not_(child: Event) -> Not:
    return Not(child)


def pred(text: str) -> Predicate:
    """One WHERE conjunct from text, e.g. ``pred("corr(a.hist, b.hist) > 0.8")``."""
    return parse_predicate(text)


def build_pattern(structure: Node, where=(), within: tuple[float, str] | Window | None = None,
                  policy: str = "skip-till-any-match") -> Pattern:
    """Assemble and check a Pattern; ``where`` items may be predicate objects or text."""
    preds = tuple(parse_predicate(p) if isinstance(p, str) else p for p in where)
    window = within if isinstance(within, Window) or within is None else Window(float(within[0]),
                                                                                 within[1])
    return check_pattern(Pattern(structure, preds, window, policy))

"""The pattern AST (DESIGN section 3).

Nodes are frozen dataclasses, so two ASTs compare equal when they mean the same text, and
``str(node)`` prints pattern text that the parser reads back into an equal AST.

Structure nodes: ``Event`` (``A a`` or Kleene ``B+ b``), ``Seq``, ``And``, ``Or``, ``Not``.
Predicates (conjuncts of WHERE): ``Compare`` (``x.a OP y.b [* k] [+ c]``, ``x.a OP c``,
``x.a OP REMOTE[y.b] [* k] [+ c] [AT z]``), ``RemoteConst`` (``REMOTE[y.b] OP c [AT z]``), ``AbsDiff`` (``|x.a - y.b| OP c``), ``Corr``
(``corr(x.v, y.v) OP c``) and ``Same`` (``SAME[attr]``: every event of a match, negated ones
included, carries the same value of ``attr``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

OPS = ("<", "<=", ">", ">=", "=", "!=")
POLICIES = ("skip-till-any-match", "skip-till-next-match")
# unit -> seconds; "events" marks a count window
TIME_UNITS = {
    "ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3,
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "min": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
    "day": 86400.0, "days": 86400.0,
}
COUNT_UNITS = ("event", "events")

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# reserved words of the pattern language (case-insensitive): a type with such a name is quoted
KEYWORDS = frozenset({"PATTERN", "WHERE", "AND", "WITHIN", "POLICY", "SEQ", "OR", "NOT", "SAME",
                      "REMOTE", "CORR"})


def fmt_number(x: float) -> str:
    """Shortest text for ``x`` that parses back to the same float."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _fmt_type(name: str) -> str:
    if _IDENT.match(name) and name.upper() not in KEYWORDS:
        return name
    return '"' + name.replace('\\', '\\\\').replace('"', '\\"') + '"'


# ----------------------------------------------------------------------------- structure
@dataclass(frozen=True)
class Event:
    """One pattern element: an event of type ``type_name`` bound to variable ``var``."""

    type_name: str
    var: str
    kleene: bool = False

    def __str__(self) -> str:
        return f"{_fmt_type(self.type_name)}{'+' if self.kleene else ''} {self.var}"


@dataclass(frozen=True)
class Seq:
    children: tuple["Node", ...]

    def __str__(self) -> str:
        return "SEQ(" + ", ".join(str(c) for c in self.children) + ")"


@dataclass(frozen=True)
class And:
    children: tuple["Node", ...]

    def __str__(self) -> str:
        return "AND(" + ", ".join(str(c) for c in self.children) + ")"


@dataclass(frozen=True)
class Or:
    children: tuple["Node", ...]

    def __str__(self) -> str:
        return "OR(" + ", ".join(str(c) for c in self.children) + ")"


@dataclass(frozen=True)
class Not:
    child: Event

    def __str__(self) -> str:
        return f"NOT({self.child})"


Node = Union[Event, Seq, And, Or, Not]


# ----------------------------------------------------------------------------- predicates
@dataclass(frozen=True)
class Attr:
    var: str
    name: str

    def __str__(self) -> str:
        return f"{self.var}.{self.name}"


@dataclass(frozen=True)
class Remote:
    """A value fetched from remote storage, keyed by an event attribute (EIRES)."""

    key: Attr

    def __str__(self) -> str:
        return f"REMOTE[{self.key}]"


def _affine(scale: float, offset: float) -> str:
    text = ""
    if scale != 1.0:
        text += f" * {fmt_number(scale)}"
    if offset != 0.0:
        text += f" - {fmt_number(-offset)}" if offset < 0 else f" + {fmt_number(offset)}"
    return text


@dataclass(frozen=True)
class Compare:
    """``left OP right * scale + offset``; ``right is None`` compares with the constant ``offset``.

    ``at`` (only with a ``Remote`` right side, from ``... AT z``) names the variable at whose
    binding the remote-data engines check the predicate (default: the latest-bound variable the
    predicate mentions).  It never changes the match set (docs/SEMANTICS.md rule 8)."""

    left: Attr
    op: str
    right: Union[Attr, Remote, None] = None
    scale: float = 1.0
    offset: float = 0.0
    at: str | None = None

    def variables(self) -> tuple[str, ...]:
        vs = [self.left.var]
        if isinstance(self.right, Attr):
            vs.append(self.right.var)
        elif isinstance(self.right, Remote):
            vs.append(self.right.key.var)
        if self.at is not None:
            vs.append(self.at)
        return tuple(dict.fromkeys(vs))

    def __str__(self) -> str:
        if self.right is None:
            return f"{self.left} {self.op} {fmt_number(self.offset)}"
        at = f" AT {self.at}" if self.at is not None else ""
        return f"{self.left} {self.op} {self.right}{_affine(self.scale, self.offset)}{at}"


@dataclass(frozen=True)
class RemoteConst:
    """``REMOTE[key] OP value [AT at]``: a remote value compared with a constant (EIRES)."""

    key: Attr
    op: str
    value: float
    at: str | None = None

    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([self.key.var] + ([self.at] if self.at is not None else [])))

    def __str__(self) -> str:
        at = f" AT {self.at}" if self.at is not None else ""
        return f"REMOTE[{self.key}] {self.op} {fmt_number(self.value)}{at}"


@dataclass(frozen=True)
class AbsDiff:
    """``|left - right| OP value``."""

    left: Attr
    right: Attr
    op: str
    value: float

    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([self.left.var, self.right.var]))

    def __str__(self) -> str:
        return f"|{self.left} - {self.right}| {self.op} {fmt_number(self.value)}"


@dataclass(frozen=True)
class Corr:
    """Pearson correlation of two vector attributes: ``corr(left, right) OP value``."""

    left: Attr
    right: Attr
    op: str
    value: float

    def variables(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([self.left.var, self.right.var]))

    def __str__(self) -> str:
        return f"corr({self.left}, {self.right}) {self.op} {fmt_number(self.value)}"


@dataclass(frozen=True)
class Same:
    """Partition: all events of a match share the value of ``attr``."""

    attr: str

    def variables(self) -> tuple[str, ...]:
        return ()

    def __str__(self) -> str:
        return f"SAME[{self.attr}]"


Predicate = Union[Compare, RemoteConst, AbsDiff, Corr, Same]


@dataclass(frozen=True)
class Window:
    """``WITHIN value unit``: a time window (``unit`` in TIME_UNITS) or a count window (events)."""

    value: float
    unit: str = "s"

    @property
    def is_count(self) -> bool:
        return self.unit in COUNT_UNITS

    @property
    def seconds(self) -> float:
        if self.is_count:
            raise ValueError("a count window has no length in seconds")
        return self.value * TIME_UNITS[self.unit]

    def __str__(self) -> str:
        return f"WITHIN {fmt_number(self.value)} {self.unit}"


@dataclass(frozen=True)
class Pattern:
    structure: Node
    where: tuple[Predicate, ...] = ()
    window: Window | None = None
    policy: str = "skip-till-any-match"

    def __str__(self) -> str:
        lines = [f"PATTERN {self.structure}"]
        if self.where:
            lines.append("WHERE " + "\n  AND ".join(str(p) for p in self.where))
        if self.window is not None:
            lines.append(str(self.window))
        lines.append(f"POLICY {self.policy}")
        return "\n".join(lines)

    def events(self) -> list[tuple[Event, bool]]:
        """Every Event node in text order with a flag telling whether it is negated."""
        out: list[tuple[Event, bool]] = []

        def walk(node: Node, negated: bool) -> None:
            if isinstance(node, Event):
                out.append((node, negated))
            elif isinstance(node, Not):
                walk(node.child, True)
            else:
                for c in node.children:
                    walk(c, negated)

        walk(self.structure, False)
        return out

    def variables(self) -> list[str]:
        return [e.var for e, _ in self.events()]

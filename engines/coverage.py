"""Which engine evaluates which operator: measured, not declared.

``coverage()`` runs every registered engine on one small probe pattern per operator (SEQ, AND,
OR, NOT at the start / middle / end, several NOTs, Kleene closure, nesting, skip-till-next-match,
REMOTE predicates, a count window) over a seeded stream, and compares each engine's matches with the brute-force
oracle's (``engines.oracle``, the semantics).  A cell is

* ``yes`` -- the engine accepted the pattern and gave exactly the oracle's matches;
* ``no`` -- the engine refused it with a ``CepsimInputError`` (the message is kept: it says what
  to run instead);
* ``MISMATCH`` -- the engine accepted the pattern but its matches differ from the oracle's (a
  bug: ``tests/test_coverage.py`` fails on any such cell).

``cepsim list engines`` prints the table; ``docs/OPERATORS.md`` holds a copy that
``tests/test_coverage.py`` keeps equal to what the engines do.  Probing compiles every engine's
kernels (about 4 minutes from a cold Numba cache, seconds when warm).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.errors import CepsimInputError

#: operator -> probe pattern text over types A..D with one attribute ``x``; time windows (one
#: event per second on the probe stream), but for the count-window probe
PROBES: dict[str, str] = {
    "SEQ": "PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 10 s",
    "AND": "PATTERN AND(A a, B b, C c) WHERE a.x < c.x WITHIN 8 s",
    "OR": "PATTERN OR(SEQ(A a, B b), SEQ(C c, D d)) WHERE a.x < b.x WITHIN 8 s",
    "NOT start": "PATTERN SEQ(NOT(D d), A a, B b) WHERE d.x > a.x WITHIN 8 s",
    "NOT middle": "PATTERN SEQ(A a, NOT(D d), B b) WHERE d.x > a.x WITHIN 8 s",
    "NOT end": "PATTERN SEQ(A a, B b, NOT(D d)) WHERE d.x > a.x WITHIN 8 s",
    "NOT several": "PATTERN SEQ(A a, NOT(D d), B b, NOT(C c)) WITHIN 8 s",
    "Kleene": "PATTERN SEQ(A a, B+ b, C c) WHERE a.x < c.x WITHIN 6 s",
    "nesting": "PATTERN SEQ(A a, AND(B b, C c), D d) WITHIN 8 s",
    "next-match": "PATTERN SEQ(A a, B b, C c) WITHIN 10 s POLICY skip-till-next-match",
    "REMOTE": "PATTERN SEQ(A a, B b) WHERE a.x < REMOTE[b.x] AT b WITHIN 8 s",
    "count window": "PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 10 events",
}

#: engines probed, in table order (the oracle defines the matches; ``adaptive`` is the PVLDB'18
#: re-planning driver over ``chain`` / ``ztree`` and has its own scenario, not a bare pattern run)
ENGINES: tuple[str, ...] = ("eager", "chain", "tree", "ztree", "hybrid", "sase", "stepper", "remote")


@dataclass(frozen=True)
class Cell:
    """One engine x operator outcome: ``status`` is "yes", "no" or "MISMATCH"; ``note`` is the
    refusal message (for "no") or what differed (for "MISMATCH")."""
    status: str
    note: str = ""


def probe_stream(n: int = 40, seed: int = 7):
    """The seeded probe stream: ``n`` events of types A..D, integer attribute ``x`` in 0..4, one
    event per time unit."""
    from engines.stream import EventStream

    rng = np.random.default_rng(seed)
    return EventStream.from_arrays(rng.integers(0, 4, n).astype(np.int32),
                                   np.arange(n, dtype=np.float64),
                                   rng.integers(0, 5, (n, 1)).astype(np.float64),
                                   ("A", "B", "C", "D"), ("x",))


def probe(engine: str, operator: str, stream=None) -> Cell:
    """Run ``engine`` on the probe of ``operator`` and compare it with the oracle."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine

    stream = probe_stream() if stream is None else stream
    program = compile_pattern(parse_pattern(PROBES[operator]), stream.schema)
    want = run_engine("oracle", program, stream).matches.key_set()
    try:
        got = run_engine(engine, program, stream).matches.key_set()
    except CepsimInputError as exc:
        return Cell("no", " ".join(str(exc).split()))
    if got == want:
        return Cell("yes")
    return Cell("MISMATCH", f"{len(got - want)} extra, {len(want - got)} missing of {len(want)}")


def coverage(engines: tuple[str, ...] = ENGINES) -> dict[str, dict[str, Cell]]:
    """engine -> operator -> ``Cell`` for every probe (one shared stream)."""
    stream = probe_stream()
    return {e: {op: probe(e, op, stream) for op in PROBES} for e in engines}


def markdown_table(cov: dict[str, dict[str, Cell]]) -> str:
    """The coverage as a Markdown table (engines as rows, operators as columns)."""
    ops = list(PROBES)
    lines = ["| engine | " + " | ".join(ops) + " |", "|---|" + "---|" * len(ops)]
    for engine, cells in cov.items():
        lines.append(f"| `{engine}` | " + " | ".join(cells[op].status for op in ops) + " |")
    return "\n".join(lines)


def refusals(cov: dict[str, dict[str, Cell]]) -> list[str]:
    """One line per distinct refusal message: the engine, the operators it refuses, the message."""
    out = []
    for engine, cells in cov.items():
        by_note: dict[str, list[str]] = {}
        for op, cell in cells.items():
            if cell.status == "no":
                by_note.setdefault(cell.note, []).append(op)
        for note, ops in by_note.items():
            out.append(f"- `{engine}` refuses {', '.join(ops)}: \"{note}\"")
    return out

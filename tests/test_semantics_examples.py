"""The worked examples of docs/SEMANTICS.md: each ``text`` block (events, pattern, matches)
run through the oracle and the eager engine on exactly those events must give exactly the
matches the block lists; the expected matches are also written here by hand (rules 4-6 applied
on paper), so a wrong block cannot pass by agreeing with a wrong engine."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.matches import MatchSet
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream

DOC = Path(__file__).resolve().parents[1] / "docs" / "SEMANTICS.md"
TYPES = ("A", "B", "C")
_EVENT = re.compile(r"([A-Z])\(x=(-?\d+(?:\.\d+)?)\)")
_MATCH = re.compile(r"\{([^}]*)\}(?:\s+detected at (\d+))?")

# hand-derived (docs/SEMANTICS.md rules 4-6): pattern -> [(match, detect or None)]
BY_HAND = {
    "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 events POLICY skip-till-any-match":
        [({"a": 0, "b": 3}, None), ({"a": 0, "b": 4}, None), ({"a": 1, "b": 4}, None)],
    "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 events POLICY skip-till-next-match":
        [({"a": 0, "b": 3}, None), ({"a": 1, "b": 4}, None)],
    "PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events POLICY skip-till-any-match":
        [({"a": 0, "b": [1], "c": 3}, None), ({"a": 0, "b": [2], "c": 3}, None),
         ({"a": 0, "b": [1, 2], "c": 3}, None)],
    "PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events POLICY skip-till-next-match":
        [({"a": 0, "b": [1], "c": 3}, None), ({"a": 0, "b": [1, 2], "c": 3}, None)],
    "PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 events":
        [({"a": 3, "b": 4}, 6)],
}


def doc_examples() -> list[tuple[str, str, str]]:
    """(events, pattern, matches) lines of every ``text`` block of the doc's worked examples."""
    text = DOC.read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        lines = dict(ln.split(":", 1) for ln in block.strip().splitlines() if ":" in ln)
        if {"events", "pattern", "matches"} <= set(lines):
            out.append((lines["events"].strip(), lines["pattern"].strip(),
                        lines["matches"].strip()))
    return out


def stream_of(events: str) -> EventStream:
    """``A(x=1) B(x=0) ...`` -> a stream whose timestamps are the positions."""
    evs = _EVENT.findall(events)
    assert evs and len(evs) == len(events.split()), events
    types = np.array([TYPES.index(t) for t, _ in evs], dtype=np.int32)
    ts = np.arange(len(evs), dtype=np.float64)
    attrs = np.array([[float(x)] for _, x in evs], dtype=np.float64)
    return EventStream.from_arrays(types, ts, attrs, list(TYPES), ["x"], source="<doc>")


def parse_matches(text: str) -> list[tuple[dict, int | None]]:
    out = []
    for body, det in _MATCH.findall(text):
        rec = {}
        for var, val in re.findall(r"(\w+):\s*(\[[^\]]*\]|\d+)", body):
            rec[var] = [int(v) for v in val.strip("[]").split(",")] if val.startswith("[") \
                else int(val)
        out.append((rec, int(det) if det else None))
    return out


def found(ms: MatchSet, n: int, trailing_not: bool) -> list[tuple[dict, int | None]]:
    recs = ms.records()
    det = np.asarray(ms.detect)
    return sorted(((r, int(d) if trailing_not else None) for r, d in zip(recs, det)),
                  key=repr)


def test_the_doc_has_the_three_examples():
    pats = [p for _, p, _ in doc_examples()]
    assert sorted(pats) == sorted(BY_HAND), pats


@pytest.mark.parametrize("events, pattern, matches", doc_examples(),
                         ids=[f"ex{i}" for i in range(len(doc_examples()))])
@pytest.mark.parametrize("engine", ["oracle", "eager"])
def test_example_matches(events, pattern, matches, engine):
    stream = stream_of(events)
    program = compile_pattern(parse_pattern(pattern), stream.schema)
    res = run_oracle(program, stream) if engine == "oracle" else \
        run_engine(engine, program, stream)
    listed = sorted(parse_matches(matches), key=repr)
    trailing = any(d is not None for _, d in listed)      # the trailing-NOT example
    assert listed == sorted(BY_HAND[pattern], key=repr)          # the doc says what was derived
    got = found(res.matches, len(stream), trailing)
    assert got == listed, (engine, pattern, got)
    if not trailing:       # rule 7: detected at the last event
        for rec, d in zip(res.matches.records(), np.asarray(res.matches.detect)):
            last = max(v if isinstance(v, int) else max(v) for v in rec.values())
            assert int(d) == last

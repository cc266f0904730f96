"""docs/PATTERNS.md: every ``pattern`` block parses, prints back to text that parses to the
same pattern, and the page has one section per construct of the grammar."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engines.pattern import parse_pattern

DOC = Path(__file__).resolve().parents[1] / "docs" / "PATTERNS.md"


def blocks() -> list[str]:
    return re.findall(r"```pattern\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_one_example_per_construct():
    text = DOC.read_text(encoding="utf-8")
    heads = re.findall(r"^## (.+)$", text, re.M)
    for construct in ("Pattern", "Event", "SEQ", "AND", "OR", "Kleene closure", "Negation",
                      "Comparison with a constant", "Comparison of two attributes",
                      "Absolute difference", "Correlation", "Same value", "Remote data",
                      "Window", "Selection policy"):
        assert construct in heads, construct
    assert len(blocks()) >= len(heads)


@pytest.mark.parametrize("text", blocks(), ids=lambda t: " ".join(t.split())[:40])
def test_every_example_parses(text):
    pat = parse_pattern(text, source="docs/PATTERNS.md")
    assert parse_pattern(str(pat)) == pat          # the printed form parses back

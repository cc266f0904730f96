"""The DARLING configs run the authors' queries (koralchapnik/vldb_submission,
darling/patterns_examples.txt): the pattern each config compiles parses to the AST written out
here from the artifact's line."""
from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli, the package tomllib was taken from (pyproject.toml)
    import tomli as tomllib  # type: ignore[no-redef]
from pathlib import Path

import pytest

from engines.pattern import parse_pattern
from engines.pattern.ast import AbsDiff, Attr, Compare, Event, Not, Pattern, Seq, Window
from sim.studies.darling.scenario import QUERY_SOURCES, query_text

ROOT = Path(__file__).resolve().parents[1]
POLICY = "skip-till-any-match"


def _cfg(name: str) -> dict:
    return tomllib.loads((ROOT / "experiments" / "darling" / f"{name}.toml").read_text())


def _parsed(cfg: dict, **over) -> Pattern:
    p = dict(cfg["params"])
    p.update(over)
    thr = p.get("b_threshold")
    return parse_pattern(query_text(p["query"], float(p["window_ms"]),
                                    None if thr is None else float(thr)))


def _seq3(t1, t2, t3, neg_mid=False):
    mid = Event(t2, "b", False)
    return Seq((Event(t1, "a", False), Not(mid) if neg_mid else mid, Event(t3, "c", False)))


@pytest.mark.parametrize("w", [1, 7, 15, 50, 100, 300])
def test_window_panel_is_the_artifacts_q1(w):
    # patterns_examples.txt 228-233: SEQ(61 a, 8 b, 13 c) WHERE |a.x - b.x| <= 50000 and
    # a.v > b.v * 1.5 WITHIN {1,7,15,50,100,300}e9 picoseconds
    cfg = _cfg("fig678_window")
    assert cfg["params"]["query"] == "q1"
    assert w in cfg["grid"]["window_ms"]
    want = Pattern(_seq3("61", "8", "13"),
                   (AbsDiff(Attr("a", "x"), Attr("b", "x"), "<=", 50000.0),
                    Compare(Attr("a", "v"), ">", Attr("b", "v"), 1.5, 0.0, None)),
                   Window(float(w), "ms"), POLICY)
    assert _parsed(cfg, window_ms=w) == want


def test_q1_readme_variant_kept():
    got = parse_pattern(query_text("q1_readme", 15.0))
    assert got.where[1] == Compare(Attr("c", "v"), ">", Attr("a", "v"), 1.2, 0.0, None)
    assert got != parse_pattern(query_text("q1", 15.0))


@pytest.mark.parametrize("x", [0.0, 53705.0, 71560.0, 86259.0, 100000.0])
def test_pms_panel_is_the_artifacts_query(x):
    # 240-244: SEQ(61 a, 8 b, 13 c) WHERE |a.x - c.x| <= 100000 and b.v > c.v and
    # c.v > 100000 and b.v > X WITHIN 50000000000 picoseconds
    cfg = _cfg("fig678_pms")
    assert cfg["params"]["query"] == "q1pm" and cfg["params"]["window_ms"] == 50
    assert x in cfg["grid"]["b_threshold"]
    want = Pattern(_seq3("61", "8", "13"),
                   (AbsDiff(Attr("a", "x"), Attr("c", "x"), "<=", 100000.0),
                    Compare(Attr("b", "v"), ">", Attr("c", "v"), 1.0, 0.0, None),
                    Compare(Attr("c", "v"), ">", None, 1.0, 100000.0, None),
                    Compare(Attr("b", "v"), ">", None, 1.0, x, None)),
                   Window(50.0, "ms"), POLICY)
    assert _parsed(cfg, b_threshold=x) == want


@pytest.mark.parametrize("w", [5, 15, 30])
def test_q4_is_the_artifacts_negation_query(w):
    # 234-239: SEQ(61 a, 13! b, 8 c) WHERE |a.x - c.x| <= 50000 and b.v < 120000 WITHIN W
    cfg = _cfg("q4_negation")
    assert cfg["params"]["query"] == "q4"
    want = Pattern(_seq3("61", "13", "8", neg_mid=True),
                   (AbsDiff(Attr("a", "x"), Attr("c", "x"), "<=", 50000.0),
                    Compare(Attr("b", "v"), "<", None, 1.0, 120000.0, None)),
                   Window(float(w), "ms"), POLICY)
    assert _parsed(cfg, window_ms=w) == want


def test_every_config_query_has_a_source_and_cites_it():
    for f in sorted((ROOT / "experiments" / "darling").glob("*.toml")):
        text = f.read_text()
        cfg = tomllib.loads(text)
        qs = {cfg["params"].get("query")} | set(cfg.get("zip", {}).get("query", []))
        qs.discard(None)
        assert qs, f.name
        for q in qs:
            assert q in QUERY_SOURCES, f.name
            path, lines = QUERY_SOURCES[q].split(" ")[0].split(":")
            assert path in text and lines in text, f"{f.name} must cite {QUERY_SOURCES[q]}"

"""``cepsim match --emit events`` and ``--limit`` on a hand-built stream, expected outputs
worked out by hand from the semantics (docs/SEMANTICS.md: skip-till-any-match).

Stream (row: type ts price vol): 0: A 1 5 10 | 1: B 2 7 (vol missing) | 2: A 3 9 30 |
3: C 4 1 40 | 4: B 5 8 50.  ``SEQ(A a, B b) WHERE a.price < b.price``: the pairs (a, b) with a
before b are (0,1) 5<7 yes, (0,4) 5<8 yes, (2,4) 9<8 no: two matches, detected at rows 1 and 4.
``SEQ(A a, B+ b, C c)``: C is row 3; its a must precede b's events, which precede row 3: a=0,
b=[1] (row 4 is after c; a=2 leaves no B before row 3): one match."""
from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from sim.cli import app

PAIR = "PATTERN SEQ(A a, B b) WHERE a.price < b.price WITHIN 10 events"
KLEENE = "PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events"


def _ev(var, row, typ, ts, price, vol):
    return {"var": var, "row": row, "type": typ, "timestamp": ts,
            "attrs": {"price": price, "vol": vol}}


A0 = _ev("a", 0, "A", 1.0, 5.0, 10.0)
B1 = _ev("b", 1, "B", 2.0, 7.0, None)
B4 = _ev("b", 4, "B", 5.0, 8.0, 50.0)


@pytest.fixture()
def data(tmp_path):
    (tmp_path / "e.csv").write_text("type,ts,price,vol\nA,1,5,10\nB,2,7,\nA,3,9,30\nC,4,1,40\n"
                                    "B,5,8,50\n")
    (tmp_path / "s.toml").write_text('type_column = "type"\nts_column = "ts"\n'
                                     'attributes = ["price", "vol"]\nallow_missing = true\n')
    return tmp_path


def _match(d, pattern, out, *extra):
    r = CliRunner().invoke(app, ["match", pattern, str(d / "e.csv"), "--schema",
                                 str(d / "s.toml"), "--out", str(out), *map(str, extra)])
    assert r.exit_code == 0, r.output
    return r


def _lines(path):
    return [json.loads(ln) for ln in path.read_text().splitlines()]


def test_events_as_json_lines(data):
    out = data / "m.jsonl"
    _match(data, PAIR, out, "--emit", "events")
    assert _lines(out) == [{"match": 0, "events": [A0, B1]}, {"match": 1, "events": [A0, B4]}]


def test_kleene_events_in_pattern_order(data):
    out = data / "k.jsonl"
    _match(data, KLEENE, out, "--emit", "events")
    c3 = _ev("c", 3, "C", 4.0, 1.0, 40.0)
    assert _lines(out) == [{"match": 0, "events": [A0, B1, c3]}]


def test_events_as_csv_one_row_per_event(data):
    out = data / "m.csv"
    _match(data, PAIR, out, "--emit", "events")
    rows = list(csv.reader(out.open()))
    assert rows == [["match", "var", "row", "type", "timestamp", "price", "vol"],
                    ["0", "a", "0", "A", "1.0", "5.0", "10.0"],
                    ["0", "b", "1", "B", "2.0", "7.0", ""],
                    ["1", "a", "0", "A", "1.0", "5.0", "10.0"],
                    ["1", "b", "4", "B", "5.0", "8.0", "50.0"]]


@pytest.mark.parametrize("engine", ["eager", "chain", "ztree"])
def test_limit_keeps_the_first_matches_for_every_engine(data, engine):
    out = data / f"l_{engine}.jsonl"
    r = _match(data, PAIR, out, "--limit", 1, "--engine", engine)
    assert _lines(out) == [{"a": 0, "b": 1}]               # detected first (row 1)
    assert r.stdout.startswith("2 matches, the first 1 -> ")
    _match(data, PAIR, out, "--limit", 5, "--engine", engine, "--emit", "events")
    assert [m["events"] for m in _lines(out)] == [[A0, B1], [A0, B4]]


def test_max_matches_is_a_cap_and_limit_is_not(data):
    r = CliRunner().invoke(app, ["match", PAIR, str(data / "e.csv"), "--schema",
                                 str(data / "s.toml"), "--out", str(data / "x.jsonl"),
                                 "--max-matches", "1"])
    assert r.exit_code == 2 and "--max-matches" in r.stderr, r.output
    _match(data, PAIR, data / "x.jsonl", "--limit", 0)
    assert (data / "x.jsonl").read_text() == ""


@pytest.mark.parametrize("extra,needle", [(["--emit", "pairs"], "--emit"),
                                           (["--limit", "-1"], "--limit"),
                                           (["--out", "rows.csv"], "--out")])
def test_bad_emit_options_exit_2(data, extra, needle):
    args = ["match", PAIR, str(data / "e.csv"), "--schema", str(data / "s.toml")]
    if "--out" not in extra:
        args += ["--out", str(data / "o.jsonl")]
    else:
        extra = ["--out", str(data / extra[1])]
    r = CliRunner().invoke(app, args + extra)
    assert r.exit_code == 2 and r.stderr.startswith(f"error: {needle}"), r.output

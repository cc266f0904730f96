"""The README's quick start prints what the README shows.

The quick start's ``cepsim match`` and ``cepsim compare`` are run (in-process, the match's
``--out`` under the test's temporary directory) and their output is compared with the ``text``
block under each command in ``README.md``: the match's lines exactly (the output path aside);
the compare's pattern line exactly and its table's rows by the columns that depend only on the
engines and the cost profile (engine, plan/order, matches, mean service time), so a change of
wording elsewhere in the table does not break this test but a changed count or price does.
Both run in seconds on warm kernels (the test session compiles them first,
``tests/warm_kernels.py``)."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app

REPO = Path(__file__).resolve().parents[1]


def quickstart_pairs(text: str) -> dict[str, tuple[list[str], list[str]]]:
    """{command name: (arguments, the lines of the ``text`` block right after its ``bash``
    block)} for the ``cepsim`` commands of ``text`` that are followed by a ``text`` block."""
    out = {}
    for m in re.finditer(r"```bash\n((?:(?!```).)*)```\s*```text\n((?:(?!```).)*)```", text, re.S):
        words = shlex.split(m.group(1).strip())
        if words and words[0] == "cepsim":
            out[words[1]] = (words[1:], m.group(2).rstrip("\n").split("\n"))
    return out


def table_rows(lines: list[str]) -> list[tuple[str, ...]]:
    """(engine, plan/order, matches, svc mean us) of every row of a ``cepsim compare`` table;
    the columns are cut where the dashed line under the header has its gaps."""
    dash = next(i for i, ln in enumerate(lines) if re.fullmatch(r"-+( +-+)+", ln.strip()))
    header = lines[dash - 1]
    spans = [m.span() for m in re.finditer(r"-+", lines[dash])]
    names = [header[a:b].strip() for a, b in spans]
    want = [names.index(c) for c in ("engine", "plan/order", "matches", "svc mean us")]
    rows = []
    for ln in lines[dash + 1:]:
        if not ln.strip():
            break
        cells = [ln[a:b].strip() for a, b in spans]
        rows.append(tuple(cells[i] for i in want))
    return rows


PAIRS = quickstart_pairs((REPO / "README.md").read_text(encoding="utf-8"))


def test_readme_quick_start_shows_a_match_and_a_compare_with_output():
    assert {"match", "compare"} <= set(PAIRS), sorted(PAIRS)
    assert len(table_rows(PAIRS["compare"][1])) >= 5


def test_table_rows_cuts_columns_at_the_dashes():
    lines = ["engine  plan/order  matches  svc mean us  x",
             "------  ----------  -------  -----------  -",
             "eager                    10         72.1  a b",
             "chain   a,b              10          103  c",
             "",
             "not run: ..."]
    assert table_rows(lines) == [("eager", "", "10", "72.1"), ("chain", "a,b", "10", "103")]


def test_readme_match_prints_what_the_readme_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    args, shown = PAIRS["match"]
    args = list(args)
    out = tmp_path / "matches.jsonl"
    given = args[args.index("--out") + 1]
    args[args.index("--out") + 1] = str(out)
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    got = r.stdout.rstrip("\n").replace(str(out), given).split("\n")
    assert got == shown
    n = int(shown[0].split()[0])
    assert sum(1 for _ in out.open()) == n


@pytest.mark.slow
def test_readme_compare_prints_what_the_readme_shows(monkeypatch):
    monkeypatch.chdir(REPO)
    args, shown = PAIRS["compare"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    got = r.stdout.rstrip("\n").split("\n")
    assert got[0] == shown[0]                      # the pattern as evaluated
    assert table_rows(got) == table_rows(shown)

"""The engine x operator coverage (``engines/coverage.py``): what docs/OPERATORS.md and ``cepsim
list engines --coverage`` show is what the engines do, and no engine that accepts a probe differs
from the oracle."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from engines import coverage as C
from sim.cli import app


def _doc_table(repo_root) -> str:
    """The first table of docs/OPERATORS.md (the coverage; the probe patterns come after it)."""
    lines = (repo_root / "docs" / "OPERATORS.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.slow
def test_docs_table_is_what_the_engines_do(repo_root):
    cov = C.coverage()
    bad = [(e, op, c.note) for e, cells in cov.items() for op, c in cells.items()
           if c.status == "MISMATCH"]
    assert not bad, f"engines that accept a probe but differ from the oracle: {bad}"
    assert _doc_table(repo_root) == C.markdown_table(cov), (
        "docs/OPERATORS.md is stale: paste the table of `cepsim list engines --coverage`")
    doc = (repo_root / "docs" / "OPERATORS.md").read_text()
    for line in C.refusals(cov):
        assert line in doc, f"docs/OPERATORS.md lacks the refusal {line}"


def test_docs_probe_patterns_are_the_probes(repo_root):
    """Every probe pattern is listed in the docs, so a reader sees what each column ran."""
    doc = (repo_root / "docs" / "OPERATORS.md").read_text()
    for op, text in C.PROBES.items():
        assert re.search(rf"\| {re.escape(op)} \| `{re.escape(text)}` \|", doc), op


def test_a_refusal_is_a_no_cell_with_its_message():
    cell = C.probe("sase", "AND")
    assert cell.status == "no" and "sase" in cell.note


@pytest.mark.parametrize("args", [["list", "experiments", "--coverage"], ["list", "bogus"]])
def test_bad_list_arguments_are_clear_errors(args):
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2
    assert "cepsim list" in res.output

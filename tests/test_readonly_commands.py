"""Read-only commands never write tracked files, on a fresh clone of this repository.

A clone (``git clone --shared``: the committed tree, its committed full-scale results and figures,
no results of one's own) is the project the commands work in (they use the working directory
when it holds ``experiments/``).  ``list``, ``check`` (a subset and everything, at both scales),
``figures``, ``report`` and the ``--dry-run`` of ``reproduce`` and ``sweep`` run there; after
all of them ``git status`` shows nothing changed and nothing new outside git-ignored paths.
Along the way: missing results exit 2 with the exact command that makes them (with
``--scale``); ``check`` writes no claims file without ``--write``; ``figures`` refuses to
overwrite committed figures without ``--write``; ``report`` with no results of one's own
reports the committed full-scale reproduction; the dry run answers from stored timings without
running (or compiling) a sample."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                                reason="needs git and a git checkout to clone")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("clone") / "cepsim"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(REPO), str(dest)], check=True)
    if not list((dest / "results" / "full").glob("*/*/points.parquet")):
        pytest.skip("the checkout has no committed full-scale results")
    return dest


def _run(*args) -> object:
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.mark.slow
def test_read_only_commands_leave_a_clone_unchanged(clone, tmp_path, monkeypatch):
    monkeypatch.chdir(clone)
    claims = (clone / "results" / "full" / "claims.md").read_bytes()

    assert _run("list").exit_code == 0
    assert _run("list", "engines").exit_code == 0

    # check: a subset and everything at full scale print (claims fail: exit 1), write nothing
    r = _run("check", "--scale", "full", "lazy_nfa/fig9")
    assert r.exit_code in (0, 1) and "lazy_nfa/fig9" in r.stdout, r.output
    r = _run("check", "--scale", "full")
    assert r.exit_code in (0, 1) and "wrote" not in r.stdout, r.output
    assert (clone / "results" / "full" / "claims.md").read_bytes() == claims
    # no quick results of one's own: exit 2 with the command that makes them
    r = _run("check")
    assert r.exit_code == 2 and "`cepsim reproduce --scale quick`" in r.stderr, r.output
    assert "--scale full" in r.stderr                      # ... and where the committed ones are
    r = _run("check", "lazy_nfa/fig7")
    assert r.exit_code == 2, r.output
    assert "`cepsim run experiments/lazy_nfa/fig7.toml --scale quick`" in r.stderr, r.stderr

    # figures: committed figures are not overwritten without --write; elsewhere they are drawn
    r = _run("figures", "--scale", "full", "lazy_nfa/fig9")
    assert r.exit_code == 2 and "--write" in r.stderr and "git tracks" in r.stderr, r.output
    r = _run("figures", "--scale", "full", "lazy_nfa/fig9", "--figures-dir", tmp_path / "figs")
    assert r.exit_code == 0, r.output
    assert list((tmp_path / "figs" / "lazy_nfa").glob("fig9*.png"))

    # report with no results of one's own: the committed full-scale reproduction
    r = _run("report")
    assert r.exit_code == 0 and "committed full-scale reproduction" in r.stderr, r.output
    assert (clone / "results" / "full" / "report" / "index.html").is_file()

    # dry runs: from the committed timings, no sample run, nothing written
    r = _run("reproduce", "--scale", "quick", "--dry-run")
    assert r.exit_code == 0 and "samples of 0 experiment(s) run here" in r.stdout, r.output
    assert "estimated wall:" in r.stdout
    r = _run("sweep", "experiments/demo/basic.toml", "--dry-run", "--workers", "1")
    assert r.exit_code == 0 and "samples of 0 experiment(s) run here" in r.stdout, r.output

    assert _git(clone, "status", "--porcelain") == ""      # nothing changed, nothing new


def test_options_a_backend_ignores_are_refused(tmp_path):
    cases = [(["run", "demo/basic", "--workers", "2"], "--workers"),
             (["run", "demo/basic", "--master", "local[2]"], "--master"),
             (["run", "demo/basic", "--backend", "local", "--master", "local[2]"], "--master"),
             (["sweep", "demo/basic", "--master", "local[2]"], "--master"),
             (["reproduce", "--backend", "serial", "--workers", "2"], "--workers"),
             (["reproduce", "--backend", "spark", "--memory-budget-mb", "100"],
              "--memory-budget-mb"),
             (["reproduce", "--sample"], "--sample")]
    for args, flag in cases:
        r = _run(*args, "--out", tmp_path / "res")
        assert r.exit_code == 2, (args, r.output)
        assert r.stderr.startswith(f"error: {flag}"), (args, r.stderr)
    assert not (tmp_path / "res").exists()

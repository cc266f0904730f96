"""The ``cepsim`` command line: exit codes (0 ok, 1 claim failed, 2 bad input) and messages."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()

GOOD = textwrap.dedent("""\
    name = "cli"
    paper = "demo"
    title = "cli test"
    scenario = "demo:point"
    seed = 1
    [params]
    n = 20
    [grid]
    mu = [0.0, 1.0]
    [[claims]]
    name = "mean close"
    kind = "extension"
    fn = "demo:claim_mean_close"
    args = { tol = 2.0 }
    [[figures]]
    name = "cli_fig"
    fn = "common:line_plot"
    args = { x = "mu", y = "sample_mean" }
    """)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def write(tmp_path, text):
    p = tmp_path / "c.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("text, extra, needles", [
    ('colour = "red"\n' + GOOD, [], ["key 'colour'", "unknown key"]),
    (GOOD.replace("seed = 1", 'seed = "one"'), [], ["key 'seed'", "expected an integer"]),
    (GOOD.replace("seed = 1", "seed = = 1"), [], ["TOML syntax error", "line 5"]),
    (GOOD.replace('"demo:point"', '"nosuch:point"'), [], ["key 'scenario'", "sim.studies.nosuch"]),
    (GOOD, ["--set", "grid.mu=[]"], ["grid.mu", "empty array"]),
    (GOOD, ["--set", "seeds=two"], ["key 'seeds'", "expected an integer"]),
    (GOOD, ["--set", "nosuch=1"], ["--set 'nosuch=1'", "cannot be set"]),
    (GOOD, ["--scale", "huge"], ["unknown scale 'huge'"]),
    (GOOD, ["--backend", "cluster"], ["unknown backend 'cluster'"]),
], ids=["unknown-key", "wrong-type", "bad-toml", "unknown-scenario", "empty-grid-override",
        "bad-override-type", "bad-override-key", "unknown-scale", "unknown-backend"])
def test_bad_input_exits_2_with_message(tmp_path, text, extra, needles):
    p = write(tmp_path, text)
    r = cli("run", p, "--out", tmp_path / "res", "--figures-dir", tmp_path / "figs", *extra)
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ")
    for n in needles:
        assert n in r.stderr
    assert not (tmp_path / "res" / "demo" / "cli" / "points.parquet").exists()


def test_missing_config_file_exits_2_subprocess(tmp_path, repo_root):
    res = subprocess.run([sys.executable, "-m", "sim.cli", "run", str(tmp_path / "nope.toml")],
                         cwd=repo_root, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert res.stderr.startswith(f"error: {tmp_path / 'nope.toml'}: config file not found")
    assert "Traceback" not in res.stderr


def test_usage_error_exits_2():
    r = cli("run")
    assert r.exit_code == 2


def test_run_ok_draws_figures_and_prints_claims(tmp_path):
    p = write(tmp_path, GOOD)
    r = cli("run", p, "--out", tmp_path / "res", "--figures-dir", tmp_path / "figs")
    assert r.exit_code == 0, r.output + r.stderr
    assert "PASS" in r.stdout and "mean close" in r.stdout
    df = pd.read_parquet(tmp_path / "res/demo/cli/points.parquet")
    assert len(df) == 2
    png, pdf = tmp_path / "figs/demo/cli_fig.png", tmp_path / "figs/demo/cli_fig.pdf"
    assert png.stat().st_size > 0 and pdf.stat().st_size > 0


def test_failed_claim_exits_1(tmp_path):
    p = write(tmp_path, GOOD.replace("tol = 2.0", "tol = 1e-9"))
    r = cli("run", p, "--out", tmp_path / "res", "--figures-dir", tmp_path / "figs")
    assert r.exit_code == 1
    assert "FAIL" in r.stdout and "max |mean - mu|" in r.stdout


def test_failed_point_exits_1_with_summary(tmp_path):
    r = cli("sweep", "demo/failing", "--backend", "local", "--workers", "2",
            "--out", tmp_path / "res")
    assert r.exit_code == 1
    assert "1 failed" in r.stdout
    assert "FAILED 1 point(s)" in r.stderr and "demo failure requested at mu=1.0" in r.stderr


def test_sweep_rejects_serial(tmp_path):
    r = cli("sweep", "demo/basic", "--backend", "serial", "--out", tmp_path)
    assert r.exit_code == 2 and "local" in r.stderr


def test_list_figures_check(tmp_path):
    r = cli("list")
    assert r.exit_code == 0 and "demo/basic" in r.stdout and "Demo: sample mean" in r.stdout
    res, figs = tmp_path / "res", tmp_path / "figs"
    assert cli("run", "demo/basic", "--scale", "quick", "--out", res,
               "--figures-dir", figs).exit_code == 0
    png = figs / "demo/basic_mean.png"
    first = png.read_bytes()
    png.unlink()
    r = cli("figures", "basic", "--out", res, "--figures-dir", figs)
    assert r.exit_code == 0 and png.read_bytes() == first  # redrawn from results, same bytes
    r = cli("check", "--out", res)
    assert r.exit_code == 0 and "2 passed, 0 failed" in r.stdout
    assert not (res / "claims.md").exists()          # read-only without --write
    assert cli("check", "--out", res, "--write").exit_code == 0
    assert "| demo/basic |" in (res / "claims.md").read_text()
    assert cli("run", "demo/strict", "--out", res).exit_code == 1
    r = cli("check", "--out", res, "--write")
    assert r.exit_code == 1 and "FAIL" in r.stdout
    assert "FAIL" in (res / "claims.md").read_text()
    r = cli("check", "basic", "--out", res, "--write")   # a subset never rewrites the file
    assert r.exit_code == 2 and "drop the config names" in r.stderr
    r = cli("figures", "nosuch", "--out", res, "--figures-dir", figs)
    assert r.exit_code == 2


def test_match_bad_input_exits_2(tmp_path):
    r = cli("match", "PATTERN SEQ(A a, B b)", tmp_path / "missing.csv")
    assert r.exit_code == 2 and "data file not found" in r.stderr
    data = tmp_path / "d.csv"
    data.write_text("type,ts,price\nA,0,1\nB,1,2\n")
    r = cli("match", "PATTERN SEQ(A a, B b)", data, "--engine", "nosuch")
    assert r.exit_code == 2 and "unknown engine 'nosuch'" in r.stderr


def test_match_writes_jsonl_and_stats(tmp_path):
    pytest.importorskip("engines.oracle", reason="oracle engine not built yet")
    data = tmp_path / "d.csv"
    data.write_text("type,ts,price\nA,0,1\nX,1,5\nB,2,2\nC,3,0\nC,4,3\n")
    schema = tmp_path / "schema.toml"
    schema.write_text('type_column = "type"\nts_column = "ts"\nattributes = ["price"]\n')
    pat = tmp_path / "p.txt"
    pat.write_text("PATTERN SEQ(A a, B b) WHERE b.price > a.price WITHIN 10 s\n")
    out, stats = tmp_path / "m.jsonl", tmp_path / "s.json"
    r = cli("match", pat, data, "--format", "csv", "--schema", schema, "--engine", "oracle",
            "--out", out, "--stats-json", stats)
    assert r.exit_code == 0, r.output + r.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines == [{"a": 0, "b": 2}]
    s = json.loads(stats.read_text())
    assert s["matches"] == 1 and set(s["seconds"]) == {"load_jit", "load", "compile", "jit",
                                                            "evaluate", "write"}
    assert "1 matches" in r.stdout

"""Listings, stale-result refusal, ``--set`` variants, results and figures under ``--out``, and
the all-failed / overloaded messages of the CLI."""
from __future__ import annotations

import textwrap

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()

CFG = textwrap.dedent("""\
    name = "fp"
    paper = "demo"
    scenario = "demo:point"
    seed = 1
    [params]
    n = 20
    [grid]
    mu = {mu}
    [[claims]]
    name = "mean close"
    kind = "extension"
    fn = "demo:claim_mean_close"
    args = {{ tol = 3.0 }}
    [[figures]]
    name = "fp_fig"
    fn = "common:line_plot"
    args = {{ x = "mu", y = "sample_mean" }}
    """)


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


@pytest.mark.parametrize("kind,expect", [("engines", "eager"), ("scenarios", "generic:point"),
                                         ("claims", "generic:claim_ratio"),
                                         ("figures", "generic:line"),
                                         ("profiles", "sim/core/profiles/default.toml"),
                                         ("generators", "uniform")])
def test_list_kinds(kind, expect):
    r = cli("list", kind)
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith(expect))
    assert len(line.split(None, 1)) == 2  # a description follows the name


def test_list_unknown_kind_is_bad_input():
    r = cli("list", "nope")
    assert r.exit_code == 2 and "choose one of" in r.stderr


def test_check_refuses_results_of_a_changed_config(tmp_path):
    cfg = tmp_path / "fp.toml"
    cfg.write_text(CFG.format(mu="[0.0, 1.0, 2.0, 3.0, 4.0]"))
    out = tmp_path / "res"
    assert cli("run", cfg, "--out", out).exit_code == 0
    assert (out / "figures" / "demo" / "fp_fig.png").is_file()   # figures under --out too
    r = cli("check", cfg, "--out", out)
    assert r.exit_code == 0 and "demo/fp" in r.stdout
    cfg.write_text(CFG.format(mu="[0.0, 1.0]"))
    r = cli("check", cfg, "--out", out)
    assert r.exit_code == 1
    assert "REFUSED" in r.stderr and "grid.mu" in r.stderr and "Rerun: cepsim run" in r.stderr
    assert "mean close" not in r.stdout                           # no claim on stale rows
    r = cli("figures", cfg, "--out", out)
    assert r.exit_code == 1 and "REFUSED" in r.stderr
    # claims / figures / title edits alone do not make results stale
    cfg.write_text(CFG.format(mu="[0.0, 1.0, 2.0, 3.0, 4.0]").replace("tol = 3.0", "tol = 2.5"))
    assert cli("check", cfg, "--out", out).exit_code == 0


def test_check_limited_to_named_config_and_missing_results(tmp_path):
    cfg = tmp_path / "fp.toml"
    cfg.write_text(CFG.format(mu="[0.0]"))
    r = cli("check", cfg, "--out", tmp_path / "empty")
    assert r.exit_code == 2 and "no results under" in r.stderr
    # the exact command that makes them: the config, the scale and the root
    assert f"cepsim run {cfg} --scale quick --out {tmp_path / 'empty'}" in r.stderr, r.stderr
    r = cli("check", cfg, "--out", tmp_path / "empty", "--scale", "full")
    assert r.exit_code == 2 and "--scale full --out" in r.stderr, r.stderr
    r = cli("check", "--out", tmp_path / "empty")          # nothing stored at all
    assert r.exit_code == 2 and "cepsim reproduce --scale quick --out" in r.stderr, r.stderr
    assert not (tmp_path / "empty").exists()              # and nothing written


def test_set_runs_write_a_variant_directory(tmp_path):
    cfg = tmp_path / "fp.toml"
    cfg.write_text(CFG.format(mu="[0.0, 1.0]"))
    out = tmp_path / "res"
    assert cli("run", cfg, "--out", out).exit_code == 0
    canon = pd.read_parquet(out / "demo" / "fp" / "points.parquet")
    assert cli("run", cfg, "--out", out, "--set", "params.n=40").exit_code == 0
    var = out / "demo" / "fp@params.n=40"
    assert (var / "points.parquet").is_file()
    assert (out / "figures" / "demo" / "fp_fig@params.n=40.png").is_file()
    assert pd.read_parquet(out / "demo" / "fp" / "points.parquet").equals(canon)
    r = cli("check", cfg, "--out", out)
    assert r.exit_code == 0 and "demo/fp@params.n=40" in r.stdout


def test_all_failed_experiment_skips_figures_and_claims(tmp_path):
    cfg = tmp_path / "fp.toml"
    cfg.write_text(CFG.format(mu="[1.0]").replace("n = 20", "n = 20\nfail_mu = 1.0"))
    r = cli("run", cfg, "--out", tmp_path / "res")
    assert r.exit_code == 1
    assert "all 1 points failed; figures and claims skipped" in r.stderr
    assert "KeyError" not in r.output and not (tmp_path / "res" / "figures").exists()


def test_overload_warning(capsys):
    from sim.cli.commands.results import warn_overloaded as _warn_overloaded
    from sim.experiments.config import config_from_dict

    cfg = config_from_dict({"name": "o", "paper": "t", "scenario": "demo:point", "seed": 1})
    df = pd.DataFrame({"offered_load": [0.5, 1.7], "stable": [True, False], "error": [None, None]})
    assert _warn_overloaded(cfg, df)
    assert "1 of 2 points are overloaded" in capsys.readouterr().err
    assert not _warn_overloaded(cfg, df.iloc[:1])


def test_match_reports_engine_facts_and_jit_time(tmp_path):
    import json

    data = tmp_path / "d.csv"
    data.write_text("type,ts,x\nA,0,1\nB,1,2\nC,2,3\nA,3,0\nB,4,5\nC,5,6\n")
    schema = tmp_path / "schema.toml"
    schema.write_text('type_column = "type"\nts_column = "ts"\nattributes = ["x"]\n')
    stats = tmp_path / "s.json"
    r = cli("match", "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 10 s", data,
            "--format", "csv", "--schema", schema, "--engine", "chain", "--order", "c,b,a",
            "--out", tmp_path / "m.jsonl", "--stats-json", stats)
    assert r.exit_code == 0, r.output
    s = json.loads(stats.read_text())
    assert s["engine_info"]["order"] == "c,b,a" and "peak_transient_instances" in s["engine_info"]
    assert s["seconds"]["jit"] >= 0 and s["seconds"]["evaluate"] >= 0
    assert "engine: order=c,b,a" in r.stdout


def test_figures_cross_out_overloaded_points(tmp_path):
    import matplotlib.pyplot as plt

    from sim.experiments.figures import line_plot, mark_overloaded

    df = pd.DataFrame({"rate": [1, 2, 1, 2], "engine": ["a", "a", "b", "b"],
                       "latency_mean": [1.0, 2.0, 1.5, 9.0], "stable": [True, True, True, False],
                       "error": [None] * 4})
    fig, ax = plt.subplots()
    assert mark_overloaded(ax, df, "rate", "latency_mean", "engine") == 1
    assert [t.get_label() for t in ax.get_lines()] == ["overloaded (offered load >= 1)"]
    plt.close(fig)
    paths = line_plot(df, tmp_path / "f@x.y=1", x="rate", y="latency_mean", hue="engine")
    assert [p.name for p in paths] == ["f@x.y=1.png", "f@x.y=1.pdf"] and all(p.is_file() for p in paths)

"""``cepsim`` end to end: ``match`` with the default engine and with chain ``--order`` /
hybrid ``--plan`` / tree (matches equal the oracle's), input errors exit 2 with a message,
``reproduce`` on a tiny experiment registry (exit 0 with failing claims, 1 with ``--strict`` and
a failing paper claim), ``calibrate`` on a tiny workload, and the Spark
backend running an engine scenario (the eager NFA inside ``basic:mg1_engine``)."""
from __future__ import annotations

import functools
import json
import textwrap

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from sim.cli import app
from workloads.loaders import load_stream

runner = CliRunner()
PATTERN = "PATTERN SEQ(A a, B b, C c) WHERE a.price < b.price AND c.price >= 1 WITHIN 12 events"


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(4)
    n = 80
    df = pd.DataFrame({"type": rng.choice(list("ABCD"), n), "ts": np.arange(n) * 0.5,
                       "price": rng.integers(0, 5, n)})
    df.to_csv(d / "events.csv", index=False)
    (d / "schema.toml").write_text('type_column = "type"\nts_column = "ts"\n'
                                   'attributes = ["price"]\n')
    stream = load_stream(d / "events.csv", "csv", d / "schema.toml")
    want = run_oracle(compile_pattern(parse_pattern(PATTERN), stream.schema), stream)
    assert len(want.matches) >= 5
    return d, [dict(sorted(r.items())) for r in want.matches.records()]


def _match(d, *extra):
    out = d / f"m{abs(hash(extra))}.jsonl"
    r = cli("match", PATTERN, d / "events.csv", "--schema", d / "schema.toml", "--out", out,
            *extra)
    return r, out


def _records(out):
    return sorted((dict(sorted(json.loads(x).items())) for x in out.read_text().splitlines()),
                  key=json.dumps)


@pytest.mark.parametrize("extra", [
    (), ("--engine", "eager"), ("--engine", "chain", "--order", "c,b,a"),
    ("--engine", "chain", "--order", "b,a,c"), ("--engine", "tree"),
    ("--engine", "hybrid", "--plan", "a,b/c"), ("--engine", "hybrid", "--plan", "/c,b,a"),
], ids=["default", "eager", "chain-cba", "chain-bac", "tree", "hybrid-ab-c", "hybrid-lazy"])
def test_match_engines_equal_the_oracle(data, extra):
    d, want = data
    r, out = _match(d, *extra)
    assert r.exit_code == 0, r.output + r.stderr
    assert _records(out) == sorted(want, key=json.dumps)
    assert f"{len(want)} matches -> {out}" in r.stdout


@pytest.mark.parametrize("extra, text, needle", [
    (("--engine", "chain", "--order", "a,b"), PATTERN, "every variable"),
    (("--engine", "chain", "--order", "a,b,z"), PATTERN, "unknown"),
    (("--engine", "hybrid", "--plan", "a,b,c"), PATTERN, "plan"),
    ((), "PATTERN SEQ(A a, B b WITHIN 3 events", "error:"),
    ((), "PATTERN SEQ(A a, Z b) WITHIN 3 events", "'Z'"),
    ((), "PATTERN SEQ(A a, B b) WHERE a.volume > 1 WITHIN 3 events", "'volume'"),
    (("--format", "nosuch"), PATTERN, "unknown format"),
    (("--engine", "chain"),
     "PATTERN SEQ(A a, B b, C c) WITHIN 5 events POLICY skip-till-next-match", "eager"),
], ids=["order-missing-var", "order-unknown-var", "bad-plan", "syntax", "unknown-type",
        "unknown-attribute", "bad-format", "unsupported-next-match"])
def test_match_input_errors_exit_2(data, extra, text, needle):
    d, _ = data
    r = cli("match", text, d / "events.csv", "--schema", d / "schema.toml", "--out",
            d / "err.jsonl", *extra)
    assert r.exit_code == 2, (r.exit_code, r.output, r.stderr)
    assert r.stderr.startswith("error: ") and needle in r.stderr, r.stderr
    assert "Traceback" not in r.output + r.stderr


def test_match_nan_in_a_used_attribute_exits_2(tmp_path):
    (tmp_path / "e.csv").write_text("type,ts,price\nA,0,1\nB,1,\n")
    (tmp_path / "s.toml").write_text('type_column = "type"\nts_column = "ts"\n'
                                     'attributes = ["price"]\n')
    r = cli("match", "PATTERN SEQ(A a, B b) WHERE a.price < b.price WITHIN 3 events",
            tmp_path / "e.csv", "--schema", tmp_path / "s.toml", "--out", tmp_path / "o.jsonl")
    assert r.exit_code == 2 and "price" in r.stderr, r.stderr


TINY = textwrap.dedent("""\
    name = "one"
    paper = "tiny"
    title = "tiny registry"
    scenario = "demo:point"
    seed = 3
    [params]
    n = 30
    [grid]
    mu = [0.0, 2.0]
    [scale.quick]
    grid = { mu = [0.0, 1.0] }
    [[claims]]
    name = "mean close"
    kind = "extension"
    fn = "demo:claim_mean_close"
    args = { tol = 1.5 }
    [[figures]]
    name = "tiny_fig"
    fn = "common:line_plot"
    args = { x = "mu", y = "sample_mean", xlabel = "mu", ylabel = "mean" }
    """)


@pytest.mark.slow
def test_reproduce_on_a_tiny_registry(tmp_path, monkeypatch):
    (tmp_path / "experiments" / "tiny").mkdir(parents=True)
    (tmp_path / "experiments" / "tiny" / "one.toml").write_text(TINY)
    (tmp_path / "experiments" / "demo").mkdir()
    (tmp_path / "experiments" / "demo" / "skipped.toml").write_text(
        TINY.replace('paper = "tiny"', 'paper = "demo"').replace('"one"', '"skipped"'))
    monkeypatch.chdir(tmp_path)
    r = cli("reproduce", "--scale", "quick", "--out", "res", "--figures-dir", "figs")
    assert r.exit_code == 0, r.output + r.stderr
    pts = pd.read_parquet(tmp_path / "res/tiny/one/points.parquet")
    assert sorted(pts["mu"]) == [0.0, 1.0]                    # the quick grid was used
    assert (tmp_path / "figs/tiny/tiny_fig.png").is_file()
    assert not (tmp_path / "res/demo").exists()               # demo configs are not reproduced
    md = (tmp_path / "res/claims.md").read_text()
    assert "| tiny/one | extension | mean close | PASS |" in md and "1 passed, 0 failed" in md
    assert "reproduce: " in r.stdout and "every point ran" in r.stdout
    # a failing claim is a result: reproduce exits 0 (every point ran) and prints it; --strict
    # exits 1 only for a failing *paper* claim
    (tmp_path / "experiments/tiny/one.toml").write_text(TINY.replace("tol = 1.5", "tol = 1e-9"))
    r = cli("reproduce", "--scale", "quick", "--out", "res2", "--figures-dir", "figs")
    assert r.exit_code == 0 and "FAIL" in r.stdout, r.output
    assert "0 paper claim(s) and 1 other claim(s) failed" in r.stdout
    r = cli("reproduce", "--scale", "quick", "--out", "res2", "--figures-dir", "figs", "--strict")
    assert r.exit_code == 0, r.output                      # an extension claim: not --strict's
    paper = TINY.replace(
        'kind = "extension"', 'kind = "paper"\n    quote = "The mean is close."\n'
                              '    section = "1"').replace("tol = 1.5", "tol = 1e-9")
    (tmp_path / "experiments/tiny/one.toml").write_text(paper)
    r = cli("reproduce", "--scale", "quick", "--out", "res3", "--figures-dir", "figs")
    assert r.exit_code == 0 and "1 paper claim(s) and 0 other claim(s) failed" in r.stdout
    r = cli("reproduce", "--scale", "quick", "--out", "res3", "--figures-dir", "figs", "--strict")
    assert r.exit_code == 1 and "FAIL" in r.stdout, r.output


def test_calibrate_on_a_tiny_workload(tmp_path, monkeypatch):
    import sim.tools.calibrate as cal
    from sim.core.costmodel import load_profile

    monkeypatch.setattr(cal, "calibrate", functools.partial(
        cal.calibrate, seeds=(1,), repeats=1, workloads=cal.WORKLOADS[:3]))
    out = tmp_path / "prof.toml"
    r = cli("calibrate", "--quick", "--out", out)
    assert r.exit_code == 0, r.output + r.stderr
    report = json.loads(r.stdout)
    assert report["out_path"] == str(out) and report["quick"] is True
    assert report["n_runs"] >= 3 and len(report["workloads"]) == 3
    prof = load_profile(out)
    assert all(v >= 0 for v in prof.unit_cost.values())


@pytest.mark.spark
def test_spark_backend_runs_an_engine_scenario(tmp_path, repo_root, spark, monkeypatch):
    """``cepsim run basic/mg1_engine --backend spark``: the eager NFA runs inside Spark tasks
    and the rows equal a serial run's (wall time aside)."""
    monkeypatch.chdir(repo_root)
    sets = ["--set", "params.n_events=3000", "--set", "grid.rho=[0.3, 0.6]",
            "--set", "grid.profile=[\"default\"]"]
    r = cli("run", "basic/mg1_engine", "--backend", "spark", "--out", tmp_path / "k",
            "--figures-dir", tmp_path / "f", *sets)
    assert r.exit_code == 0, r.output + r.stderr
    s = cli("run", "basic/mg1_engine", "--out", tmp_path / "s", "--figures-dir", tmp_path / "f",
            *sets)
    assert s.exit_code == 0, s.output + s.stderr
    # --set runs write their variant directory and suffixed figures (sim.experiments.staleness)
    from sim.experiments.staleness import variant_slug
    v = "mg1_engine@" + variant_slug([x for x in sets if x != "--set"])
    k = pd.read_parquet(tmp_path / "k/basic" / v / "points.parquet").drop(columns="wall_s")
    ser = pd.read_parquet(tmp_path / "s/basic" / v / "points.parquet").drop(columns="wall_s")
    assert len(k) == 2 and k["error"].isna().all()
    assert (k["pred_eval"] > 0).all()                       # the engine did work
    pd.testing.assert_frame_equal(k.reset_index(drop=True), ser.reset_index(drop=True))
    assert (tmp_path / "f/basic" / f"{v}.png").is_file()

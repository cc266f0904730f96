"""``cepsim compare`` / ``api.compare`` (sim/tools/compare/core.py): every row reproduces a direct engine run
+ simulation, ineligible strategies are listed with reasons, engines that disagree are named,
every data format loads, REMOTE patterns compare the EIRES strategies, bad input exits 2."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from csv_streams import write_abc_csv

from sim import api
from sim.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()
SEQ3 = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 12 events"
NASDAQ_SHORT = REPO / "workloads/data/opencep_nasdaq/NASDAQ_SHORT.txt"


@pytest.fixture(scope="module")
def stream():
    return api.generate_stream("uniform", n_events=500, seed=3, types="A,B,C", attrs="x",
                               domain=20)


def cli(*args):
    return runner.invoke(app, ["compare", *[str(a) for a in args]])


def test_every_row_equals_a_direct_run_and_simulation(stream):
    """Each eligible row (engine spec, rate) = run_engine(spec) + simulate at that rate with the
    same seed and profile: matches, offered load and latency percentiles identical."""
    prof = api.load_profile()
    cmp = api.compare(SEQ3, stream, rates=[2000.0, 20000.0], profile=prof, seed=5)
    rows = cmp.rows[cmp.rows["eligible"]]
    specs = set(rows["engine_spec"])
    # eager, 6 chain orders, tree, ztree x2, apam, sase, adaptive x2: the acceptance's ">= 6"
    assert len(specs) >= 12, specs
    assert {"eager", "tree", "sase", "adaptive planner=greedy",
            "adaptive planner=zstream"} <= specs
    assert rows["matches"].nunique() == 1 and rows["matches"].iloc[0] > 0
    program = api.compile_pattern(SEQ3, stream)
    for _, row in rows.iterrows():
        sim = api.simulate(stream, program, row["engine_spec"], rate=row["rate"], seed=5,
                           profile=prof)
        m = sim.metrics
        assert m["matches"] == row["matches"], row["engine_spec"]
        for k in ("latency_mean", "latency_p50", "latency_p99", "offered_load"):
            assert m[k] == pytest.approx(row[k], rel=1e-12, abs=0), (row["engine_spec"], k)
        assert bool(m["stable"]) == bool(row["stable"])
        assert row["lsr"] == pytest.approx(1.0 / float(
            prof.service_times(sim.engine_result.counters[:len(stream)]).mean()), rel=1e-12)
    # exactly one best run per rate, and it is the stable run with the lowest mean latency
    for rate, g in rows.groupby("rate"):
        stable = g[g["stable"]]
        assert int(g["best"].sum()) == (1 if len(stable) else 0)
        if len(stable):
            assert g[g["best"]]["latency_mean"].iloc[0] == stable["latency_mean"].min()


def test_rows_are_deterministic(stream):
    a = api.compare(SEQ3, stream, rates=[5000.0], seed=2).rows
    b = api.compare(SEQ3, stream, rates=[5000.0], seed=2).rows
    pd.testing.assert_frame_equal(a, b)


def test_pattern_only_some_engines_support_lists_the_others(stream):
    """A Kleene pattern: the lazy NFAs, APAM, SASE and greedy re-planning are listed with the
    reason; eager and the ZStream trees run."""
    text = "PATTERN SEQ(A a, B+ b, C c) WHERE a.x < c.x WITHIN 8 events"
    cmp = api.compare(text, stream, rates=[3000.0])
    why = dict(cmp.ineligible)
    for key in ("chain", "tree", "apam", "apam-x", "sase", "adaptive-greedy"):
        assert "Kleene closure" in why[key], (key, why.get(key))
    for key in ("eires-BL1", "eires-Hybrid"):
        assert "no REMOTE" in why[key]
    ran = set(cmp.rows[cmp.rows["eligible"]]["strategy"])
    assert ran == {"eager", "ztree", "ztree-zstream", "adaptive-zstream"}
    table = cmp.table()
    assert "not run:" in table and "chain, tree, apam, apam-x, sase, adaptive-greedy: cannot evaluate " \
        "Kleene closure (+)" in table
    listed = cmp.rows[~cmp.rows["eligible"]]
    assert set(listed["label"]) == set(why) and listed["reason"].str.len().min() > 0


def test_apam_plan_is_chosen_per_rate(stream):
    """APAM's optimizer picks a plan for each rate (its M/G/1 model depends on the rate); each
    APAM row is the optimizer's choice at that rate."""
    from engines.planners.apam import choose_plan
    from sim.tools.compare.core import apam_unit_costs
    prof = api.load_profile()
    rates = [100.0, 30000.0]
    cmp = api.compare(SEQ3, stream, rates=rates, engines=["apam"], profile=prof)
    program = api.compile_pattern(SEQ3, stream)
    rows = cmp.rows.set_index("rate")
    for r in rates:
        want = choose_plan(program, stream, arrival_rate=r, unit_costs=apam_unit_costs(prof))
        assert rows.loc[r, "engine_spec"] == f"hybrid plan={want['plan']}"


def test_apam_alone_without_rates(stream):
    """Only a rate-dependent strategy: the rates come from its plan at the stream's own rate."""
    cmp = api.compare(SEQ3, stream, engines=["apam"])
    rows = cmp.rows[cmp.rows["eligible"]]
    assert len(cmp.rates) >= 3 and set(rows["rate"]) == set(cmp.rates)
    assert rows["engine_spec"].str.startswith("hybrid plan=").all()


def test_disagreeing_engines_are_named(stream, monkeypatch):
    from sim.tools.compare import core as C
    real = C.match_digest
    calls = []

    def fake(ms):
        calls.append(1)
        return real(ms) + ("x" if len(calls) == 2 else "")
    monkeypatch.setattr(C, "match_digest", fake)
    with pytest.raises(C.MatchMismatch, match=r"engines disagree.*eager.*chain order=a,b,c|"
                                              r"engines disagree.*chain order=a,b,c.*eager"):
        api.compare(SEQ3, stream, rates=[1000.0], engines=["eager", "chain"])


def test_remote_pattern_compares_eires_strategies():
    s = api.generate_stream("uniform", n_events=800, seed=1, types="A,B,C", attrs="v1,id",
                            domain=30)
    text = "PATTERN SEQ(A a, B b, C c) WHERE SAME[id] AND a.v1 < REMOTE[c.v1] WITHIN 40 events"
    cmp = api.compare(text, s, rates=[20000.0, 60000.0])
    rows = cmp.rows[cmp.rows["eligible"]]
    assert set(rows["strategy"]) == {f"eires-{x}" for x in
                                     ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid")}
    assert rows["matches"].nunique() == 1 and rows["matches"].iloc[0] > 0
    assert "REMOTE" in dict(cmp.ineligible)["eager"]
    assert cmp.simpy.startswith("SimPy check: eires-BL1")
    # BL1 fetches on every check (no cache): never faster than BL2 (cache) at the same rate
    lat = rows.set_index(["strategy", "rate"])["latency_mean"]
    for r in (20000.0, 60000.0):
        assert lat[("eires-BL1", r)] >= lat[("eires-BL2", r)]


def test_cli_table_out_and_formats(tmp_path):
    """Metastock, soccer and CSV with a schema all run; --out writes Parquet, two figures and
    compare.md; the table marks a best run and ends with the recommendation."""
    out = tmp_path / "cmp"
    r = cli("PATTERN SEQ(AAPL a, GOOG g) WHERE a.close < g.close WITHIN 5 minutes", NASDAQ_SHORT,
            "--format", "metastock", "--rates", "1000,5000", "--out", out, "--no-progress")
    assert r.exit_code == 0, r.output
    assert "recommendation:" in r.stdout and " *" in r.stdout and "SimPy check" in r.stdout
    for f in ("rows.parquet", "latency_vs_rate.png", "work_per_engine.png", "compare.md"):
        assert (out / f).is_file(), f
    rows = pd.read_parquet(out / "rows.parquet")
    assert set(rows["rate"].dropna()) == {1000.0, 5000.0}
    assert "Recommendation" in (out / "compare.md").read_text()
    soccer = REPO / "tests/data/soccer_head.txt"
    r = cli("PATTERN SEQ(61 a, 8 b) WHERE |a.x - b.x| <= 50000 WITHIN 5 ms", soccer,
            "--format", "soccer", "--rates", "1000", "--engines", "eager,ztree")
    assert r.exit_code == 0, r.output
    data, schema = write_abc_csv(tmp_path, n=300, seed=5)
    r = cli(SEQ3, data, "--format", "csv", "--schema", schema, "--rates", "2e4",
            "--engines", "eager,sase")
    assert r.exit_code == 0, r.output
    assert "eager" in r.stdout and "sase" in r.stdout
    pq = tmp_path / "d.parquet"
    pd.read_csv(data).to_parquet(pq, index=False)
    r2 = cli(SEQ3, pq, "--schema", schema, "--rates", "2e4", "--engines", "eager,sase")
    assert r2.exit_code == 0, r2.output
    assert r2.stdout.split("\n", 2)[2] == r.stdout.split("\n", 2)[2]   # same table as the CSV


@pytest.mark.parametrize("args, needle", [
    (["--engines", "eager,warp"], "unknown strategy 'warp'"),
    (["--rates", "1000,-5"], "positive"),
    (["--rates", "0"], "positive"),
    (["--rates", "fast"], "'fast' is not a number"),
    (["--profile", "/nonexistent/p.toml"], "cost profile not found"),
    (["--n-events", "0"], "--n-events"),
], ids=["unknown-engine", "negative-rate", "zero-rate", "bad-rate", "profile", "n-events"])
def test_cli_bad_options_exit_2(tmp_path, args, needle):
    data, schema = write_abc_csv(tmp_path, n=100, seed=1)
    r = cli(SEQ3, data, "--format", "csv", "--schema", schema, *args)
    assert r.exit_code == 2 and needle in r.stderr, (r.exit_code, r.output)
    assert "Traceback" not in r.output


def test_cli_bad_inputs_exit_2(tmp_path):
    data, schema = write_abc_csv(tmp_path, n=100, seed=1)
    r = cli(SEQ3, tmp_path / "missing.csv", "--format", "csv", "--schema", schema)
    assert r.exit_code == 2 and "not found" in r.stderr
    r = cli(SEQ3, data, "--format", "metastock")           # wrong format for the file
    assert r.exit_code == 2 and "Traceback" not in r.output
    r = cli("PATTERN SEQ(A a, B b WITHIN", data, "--format", "csv", "--schema", schema)
    assert r.exit_code == 2 and "Traceback" not in r.output
    # no selected strategy supports the pattern
    r = cli("PATTERN SEQ(A a, B+ b) WITHIN 5 events", data, "--format", "csv", "--schema",
            schema, "--engines", "sase,chain")
    assert r.exit_code == 2 and "no selected strategy can evaluate" in r.stderr \
        and "Kleene" in r.stderr
    # REMOTE with Kleene: the EIRES strategies refuse Kleene, the others REMOTE
    r = cli("PATTERN SEQ(A a, B+ b) WHERE a.x < REMOTE[b.x] WITHIN 5 events", data, "--format",
            "csv", "--schema", schema)
    assert r.exit_code == 2 and "no selected strategy" in r.stderr
    f = tmp_path / "file"
    f.write_text("x")
    r = cli(SEQ3, data, "--format", "csv", "--schema", schema, "--out", f)
    assert r.exit_code == 2 and "--out" in r.stderr


def test_help_says_which_strategies_apply_to_which_features():
    r = runner.invoke(app, ["compare", "--help"])
    assert r.exit_code == 0
    text = " ".join(r.output.split())
    assert "eires-PFetch" in text and "only with REMOTE[...] data" in text
    assert "sase:" in text and "not with REMOTE[...] data, Kleene closure (+)" in text


def test_example_script_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               CEPSIM_COUNTER_CACHE="")
    r = subprocess.run([sys.executable, str(REPO / "examples" / "compare_strategies.py"),
                        str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "recommendation:" in r.stdout and "171555 matches each" in r.stdout
    assert (tmp_path / "compare.md").is_file()


def test_auto_rates_span_the_engines():
    from sim.tools.compare.core import auto_rates
    rs = auto_rates([1000.0, 50000.0])
    assert rs[0] == pytest.approx(500, rel=0.02) and rs[-1] == pytest.approx(47500, rel=0.02)
    rs = auto_rates([1000.0, 1100.0])    # narrow: a factor 4 before two-digit rounding
    assert rs[-1] / rs[0] >= 3.5 and all(math.isfinite(r) for r in rs)

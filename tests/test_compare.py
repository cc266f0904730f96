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
    """A Kleene pattern: APAM and SASE are listed with the reason; eager, the lazy NFAs, the
    ZStream trees and both re-planning drivers run."""
    text = "PATTERN SEQ(A a, B+ b, C c) WHERE a.x < c.x WITHIN 8 events"
    cmp = api.compare(text, stream, rates=[3000.0])
    why = dict(cmp.ineligible)
    for key in ("apam", "apam-x", "sase"):
        assert "Kleene closure" in why[key], (key, why.get(key))
    for key in ("eires-BL1", "eires-Hybrid"):
        assert "no REMOTE" in why[key]
    ran = set(cmp.rows[cmp.rows["eligible"]]["strategy"])
    assert ran == {"eager", "chain", "tree", "ztree", "ztree-zstream", "adaptive-greedy",
                   "adaptive-zstream"}
    table = cmp.table()
    from sim.tools.compare.strategies import STRATEGIES
    kleene = [s.key for s in STRATEGIES if "kleene" in s.refuses and "remote" not in s.needs]
    assert kleene[:2] == ["apam", "apam-x"]
    assert "not run:" in table and f"{', '.join(kleene)}: cannot evaluate Kleene closure (+)" \
        in table
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
            schema, "--engines", "sase,apam")
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


@pytest.mark.slow
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


# ----------------------------------------------------------------------------- how sure
def _run(label, batches, rate=1000.0, service=None, stable=True, latency=None):
    """A hand-built queued run: its per-segment figures at ``rate`` (seconds)."""
    import numpy as np
    from sim.tools.compare.model import Run
    r = Run(label, label, "eager", {})
    b = np.asarray(batches, dtype=float)
    r.batches[rate] = b
    r.per_rate[rate] = {"latency_mean": float(np.nanmean(b)) if latency is None else latency,
                        "matches": 1, "stable": stable}
    r.service = np.asarray(service if service is not None else np.full(200, 1e-5))
    return r


def test_paired_spread_by_hand():
    from sim.tools.compare.model import paired_spread
    # differences 1, 3, 5 (nan segment skipped): mean 3, sd 2, se 2 / sqrt(3)
    m, se = paired_spread([2, 4, 6, float("nan")], [1, 1, 1, 1])
    assert m == 3.0 and se == pytest.approx(2 / math.sqrt(3), rel=1e-12)
    m, se = paired_spread([2.0], [1.0])                    # one segment: no spread
    assert m == 1.0 and math.isnan(se)


def test_ties_within_the_spread_and_not_beyond():
    """The best at a rate is the lowest mean; a run whose per-segment difference to it is within
    2 standard errors is tied, a run worse by a constant amount in every segment is not, an
    overloaded run is never listed, and the profile's stated error widens the band."""
    from sim.tools.compare.model import best_per_rate, ties_per_rate
    base = [10.0, 12.0, 11.0, 13.0, 10.0, 12.0, 11.0, 13.0, 10.0, 12.0]
    noisy = [b + d for b, d in zip(base, [3, -2, 2, -1, 3, -2, 2, -1, 1, -1])]  # mean +0.4
    const = [b + 0.5 for b in base]                    # +0.5 in every segment: se 0
    over = _run("over", [1.0] * 10, stable=False)
    runs = [_run("a", base), _run("noisy", noisy), _run("const", const), over]
    best = best_per_rate(runs, [1000.0], n_events=200)
    assert best == {1000.0: "a"}
    ties = ties_per_rate(runs, [1000.0], best)[1000.0]
    assert set(ties) == {"noisy"}
    assert ties["noisy"][0] == pytest.approx(0.4)
    # a profile error of 5 % of the best's 11.4 covers the constant +0.5
    assert set(ties_per_rate(runs, [1000.0], best, tol_rel=0.05)[1000.0]) == {"noisy", "const"}


def test_recommendation_names_the_ties_and_none_for_a_short_stream():
    from sim.tools.compare.model import min_events, recommendation
    a, b = _run("a", [1.0] * 10), _run("b", [1.0] * 10)
    text = recommendation([a, b], [1000.0], {1000.0: "a"}, {1000.0: {"b": (0.0, 0.0)}},
                          n_events=500)
    assert text.startswith("a (tied within the measured spread: b) at 1000 ev/s")
    short = recommendation([a, b], [1000.0], {1000.0: None}, n_events=min_events() - 1)
    assert short.startswith("none:") and "a" not in short.split(":")[0]


def test_n_events_1_does_not_recommend(tmp_path):
    """--n-events 1: the table is printed with a warning, no run is marked best and the
    recommendation is 'none'."""
    data, schema = write_abc_csv(tmp_path, n=300, seed=5)
    r = cli(SEQ3, data, "--format", "csv", "--schema", schema, "--rates", "1000",
            "--engines", "eager,sase", "--n-events", "1", "--no-progress")
    assert r.exit_code == 0, r.output
    assert "warning: the stream is too short for a stable figure: 1 events" in r.stdout
    body = [ln for ln in r.stdout.splitlines() if ln.startswith(("eager ", "sase "))]
    assert len(body) == 2 and not any(ln.endswith((" *", " ~")) for ln in body)
    assert "recommendation: none:" in r.stdout


def test_identical_runs_tie():
    """Two runs with the same figure in every segment (the same plan reached by two strategies)
    are tied: a zero difference is never a ranking."""
    from sim.tools.compare.model import ties_per_rate
    same = [3.0, 5.0, 4.0, 6.0, 3.0, 5.0, 4.0, 6.0, 3.0, 5.0]
    runs = [_run("ztree", same), _run("apam", same)]
    assert ties_per_rate(runs, [1000.0], {1000.0: "ztree"})[1000.0] == {"apam": (0.0, 0.0)}


def test_profile_provenance_lists_fitted_and_default_prices(stream, tmp_path):
    """A calibrated profile: the prices its meta says were fitted, those copied from the default
    profile, and the share of a run's cost the copied prices carry; the default profile says
    none of its prices is measured."""
    import tomli_w
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    d = tomllib.loads((REPO / "sim/core/profiles/default.toml").read_text())
    d["name"] = "calibrated"
    d["unit_cost"]["pred_eval"] = 2.0e-8
    d["meta"] = {"calibrated": "2026-01-01T00:00:00+00:00", "engine": "eager", "machine": "M",
                 "r2": 0.99, "chunk_rel_rms": 0.1, "unmeasured": ["join_probe", "plan_gen"],
                 "remote_priced": ["remote_fetch"]}
    p = tmp_path / "cal.toml"
    p.write_bytes(tomli_w.dumps(d).encode())
    cmp = api.compare(SEQ3, stream, rates=[2000.0], engines=["eager", "ztree"], profile=p)
    text = "\n".join(cmp.provenance)
    assert "fitted by `cepsim calibrate` to the eager engine on M" in text
    assert "default round numbers (not fitted): join_probe, plan_gen" in text
    assert "fitted on the remote-data kernel's runs: remote_fetch" in text
    fitted = [ln for ln in cmp.provenance if ln.strip().startswith("fitted:")][0]
    assert "join_probe" not in fitted and "pred_eval" in fitted and "remote_fetch" not in fitted
    # ztree probes joins (join_probe, a copied default price): its share is reported
    assert "unfitted default prices carry" in text and "(ztree" in text
    assert "within 10.0 %" in cmp.table()        # the profile's error is the tie band
    dflt = api.compare(SEQ3, stream, rates=[2000.0], engines=["eager"])
    assert "documented round numbers for every price, none measured" in dflt.provenance[0]

"""The generic scenario: counters computed once per (stream, pattern, engine, options) and
reused across arrival rates; the cache key covers every input, so it never serves stale counters;
rows identical with and without the cache; the worked examples run at quick scale."""
from __future__ import annotations

from pathlib import Path

import pytest

import engines.registry as registry
from engines.errors import CepsimInputError
from sim.studies.generic import scenario as generic

BASE = {"pattern": "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 events",
        "generator": "uniform", "gen_types": "A,B,C", "gen_domain": 50, "n_events": 400,
        "stream_seed": 3, "engine": "eager", "rate": 1000.0}
EXAMPLES = Path(__file__).resolve().parents[1] / "experiments" / "examples"


@pytest.fixture
def calls(monkeypatch, tmp_path):
    """Count real engine runs; fresh memory cache and a private disk cache per test."""
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path / "cc"))
    generic.clear_memory_cache()
    n = {"runs": 0}
    real = registry.run_engine

    def counting(*a, **k):
        n["runs"] += 1
        return real(*a, **k)
    monkeypatch.setattr(registry, "run_engine", counting)
    yield n
    generic.clear_memory_cache()


def test_counters_reused_across_rates_and_profiles(calls):
    rows = [generic.point(dict(BASE, rate=r), seed=11) for r in (500.0, 1000.0, 4000.0)]
    assert calls["runs"] == 1
    assert len({r["pred_eval"] for r in rows}) == 1          # same work ...
    assert rows[0]["latency_mean"] < rows[2]["latency_mean"]  # ... queued at different rates
    assert rows[0]["offered_load"] < rows[2]["offered_load"]
    assert "sim_n_events" in rows[0] and "n_events" not in rows[0]  # collision prefixed


@pytest.mark.parametrize("change", [{"stream_seed": 4}, {"gen_domain": 51}, {"n_events": 401},
                                    {"engine": "eager max_partial_matches=100000"},
                                    {"pattern": BASE["pattern"].replace("10 events", "11 events")}])
def test_every_input_is_part_of_the_key(calls, change):
    generic.point(dict(BASE), seed=1)
    generic.point(dict(BASE, **change), seed=1)
    assert calls["runs"] == 2


def test_disk_cache_gives_identical_rows(calls):
    a = generic.point(dict(BASE), seed=5)
    generic.clear_memory_cache()
    b = generic.point(dict(BASE), seed=5)
    assert calls["runs"] == 1 and a == b


def test_edited_data_file_is_not_served_stale(calls, tmp_path):
    data = tmp_path / "ev.csv"
    schema = tmp_path / "schema.toml"
    schema.write_text('type_column = "type"\nts_column = "ts"\nattributes = ["x"]\n')
    data.write_text("type,ts,x\nA,0,1\nB,1,2\nA,2,5\nB,3,1\n")
    p = {"pattern": "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 events", "data": str(data),
         "format": "csv", "schema": str(schema), "engine": "eager", "rate": 10.0}
    m1 = generic.point(dict(p), seed=1)["matches"]
    data.write_text("type,ts,x\nA,0,1\nB,1,2\nA,2,0\nB,3,1\n")   # same size, new content
    m2 = generic.point(dict(p), seed=1)["matches"]
    assert (m1, m2) == (1, 2) and calls["runs"] == 2


def test_engine_facts_and_spec_errors(calls):
    row = generic.point(dict(BASE, engine="chain order=b,a"), seed=1)
    assert row["engine_order"] == "b,a" and "engine_peak_transient_instances" in row
    with pytest.raises(CepsimInputError, match="unknown engine 'nope'"):
        generic.point(dict(BASE, engine="nope"), seed=1)
    with pytest.raises(CepsimInputError, match="exactly one stream source"):
        generic.point({k: v for k, v in BASE.items() if k != "generator"}, seed=1)


def test_pattern_placeholders_fill_from_parameters(calls):
    """``{window}`` in the pattern takes the point's ``window``: a grid over it varies the pattern
    (and the counter-cache key, via the filled text)."""
    tpl = dict(BASE, pattern="PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN {window} events")
    r10 = generic.point(dict(tpl, window=10), seed=1)
    r3 = generic.point(dict(tpl, window=3), seed=1)
    assert r10["matches"] == generic.point(dict(BASE), seed=1)["matches"] and calls["runs"] == 2
    assert r3["matches"] < r10["matches"]
    with pytest.raises(CepsimInputError, match=r"placeholder\(s\) \{window\} name no parameter"):
        generic.point(dict(tpl), seed=1)


def test_same_matches_claim_groups_by_placeholder_parameters():
    import pandas as pd

    from sim.studies.generic import claims as generic_claims

    tpl = "PATTERN SEQ(A a, B b) WITHIN {window} events"
    df = pd.DataFrame({"pattern": [tpl] * 4, "window": [3, 3, 10, 10],
                       "engine": ["eager", "tree"] * 2, "matches": [5, 5, 9, 9]})
    assert generic_claims.claim_same_matches(df).passed        # different windows, different counts
    df.loc[3, "matches"] = 8
    assert not generic_claims.claim_same_matches(df).passed


@pytest.mark.parametrize("name", ["engines_vs_rate", "nasdaq_replay", "apam_plans",
                                  "nasdaq_window"])
def test_worked_examples_run_at_quick_scale(tmp_path, name, monkeypatch):
    from sim.experiments.claims import check_experiment
    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment

    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", "")
    cfg = load_config(EXAMPLES / f"{name}.toml")
    s = run_experiment(cfg, scale="quick", out_dir=tmp_path, progress=False)
    assert s.n_failed == 0, s.failures
    assert s.df["offered_load"].notna().all() and "stable" in s.df
    results = check_experiment(s.cfg, s.df)
    assert results and all(not r.measured.startswith("error") for _, r in results)

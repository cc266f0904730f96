"""Claims of the strategy matrix (sim/studies/cross/claims.py) on hand-made rows: they pass and fail
where they should and name the strategy that beats a paper's own one, with the factor."""
from __future__ import annotations

import math

import pandas as pd

from sim.studies.cross import claims as C
from sim.studies.cross import scenario as cross


def _row(workload, own, metric, values, same=1, error=None, **extra):
    r = {"workload": workload, "own": own, "own_metric": metric, "same_matches": same,
         "mismatch": "", "matches": 10, "n_runs": 5, "error": error}
    for k in cross.strategy_columns():
        c = cross.col(k)
        r[f"lsr_{c}"] = r[f"lat_{c}"] = math.nan
    for k, v in values.items():
        r[f"{metric}_{cross.col(k)}"] = v
    r.update(extra)
    return r


def test_own_winner_within_factor_passes_and_ranks():
    df = pd.DataFrame([_row("debs15_fc1", "tree", "lsr", {"tree": 1000.0, "eager": 1050.0}),
                       _row("apam_exp1", "apam", "lat", {"apam": 1e-4, "ztree": 1e-4})])
    res = C.claim_own_winner_near_best(df, factor=1.1)
    assert res.passed, res.measured
    assert "tree rank 2/2" in res.measured and "best eager 1.05e+03 (1.05x)" in res.measured
    assert "apam rank 1/2" in res.measured          # a tie is rank 1


def test_own_winner_beaten_fails_naming_the_winner():
    df = pd.DataFrame([_row("debs15_fc1", "tree", "lsr", {"tree": 1000.0, "sase": 1800.0}),
                       _row("apam_exp3", "apam", "lat", {"apam": 2e-4, "eager": 1e-4})])
    res = C.claim_own_winner_near_best(df, factor=1.1)
    assert not res.passed
    assert "best sase 1.8e+03 (1.80x) FAIL" in res.measured
    assert "best eager 0.0001 (2.00x) FAIL" in res.measured


def test_either_adaptive_version_counts_as_the_own_strategy():
    own = "adaptive-greedy|adaptive-zstream"
    df = pd.DataFrame([_row("pvldb18_stocks", own, "lsr", {"adaptive-greedy": 500.0,
                                                           "adaptive-zstream": 990.0,
                                                           "ztree": 1000.0})])
    res = C.claim_own_winner_near_best(df)
    assert res.passed and "adaptive-zstream rank 2/3" in res.measured


def test_workloads_without_own_winner_alone_fail():
    df = pd.DataFrame([_row("nasdaq", "", "", {})])
    assert not C.claim_own_winner_near_best(df).passed


def test_same_matches_fails_on_mismatch_or_failed_point():
    ok = _row("nasdaq", "", "lsr", {"eager": 1.0})
    assert C.claim_same_matches(pd.DataFrame([ok])).passed
    bad = _row("debs15_fc1", "tree", "lsr", {}, same=0, mismatch="engines disagree: a vs b")
    res = C.claim_same_matches(pd.DataFrame([ok, bad]))
    assert not res.passed and "engines disagree: a vs b" in res.measured
    failed = _row("apam_exp1", "apam", "lat", {}, error="boom")
    res = C.claim_same_matches(pd.DataFrame([ok, failed]))
    assert not res.passed and "point failed (boom)" in res.measured


def test_point_on_a_small_workload():
    """One real point: every strategy's columns, the same match set, a common rate at which
    every run is stable (load 0.5 of the slowest run's largest stable rate)."""
    row = cross.point({"workload": "nasdaq", "n_events": 400}, seed=1)
    assert row["same_matches"] == 1 and row["matches"] > 0
    lsrs = [row[f"lsr_{cross.col(k)}"] for k in cross.strategy_columns()]
    assert all(math.isfinite(v) for v in lsrs)
    # half the slowest run (the chain column shows the best order, slower orders exist)
    assert 0 < row["common_rate"] <= 0.5 * min(lsrs) * (1 + 1e-12)
    assert all(row[f"why_{cross.col(k)}"] == "" for k in cross.strategy_columns())

"""DEBS'15 stock generator sectors (GOOG in the hi-tech factor, the "own" variant), the paper's
named best chain (cab) in the tree claims and the calibration search, and Figure 10's rate spread
axis.  Expected numbers come from the generator's factor model and from hand-built tables."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from sim.studies.lazy_nfa import claims as C
from workloads.stocks import (GOOG_FACTORS, price_paths, return_correlations, stock_stream)


def _same_minute_return_corr(stream, ticker_x: float, ticker_y: float) -> tuple[float, int]:
    """Correlation of the last one-minute log returns (hist[-1] / hist[-2]) of two tickers over
    the minutes at which both report: the returns of the same minute."""
    tick = stream.attrs[:, 1]
    h0, hl = stream.schema.vector("hist")
    last = np.log(stream.attrs[:, h0 + hl - 1] / stream.attrs[:, h0 + hl - 2])
    rx = {t: r for t, r in zip(stream.ts[tick == ticker_x], last[tick == ticker_x])}
    ry = {t: r for t, r in zip(stream.ts[tick == ticker_y], last[tick == ticker_y])}
    common = sorted(set(rx) & set(ry))
    a = np.array([rx[t] for t in common])
    b = np.array([ry[t] for t in common])
    return float(np.corrcoef(a, b)[0, 1]), len(common)


def test_factor_model_correlations_by_definition():
    # w_m = w_s = 0.5: distinct tickers correlate w_m^2 = 0.25 across sector factors and
    # w_m^2 + w_s^2 = 0.5 within one
    hi = return_correlations(0.5, 0.5, "hitech")
    own = return_correlations(0.5, 0.5, "own")
    assert hi == {"finance_hitech": 0.25, "hitech_goog": 0.5, "finance_goog": 0.25,
                  "within_sector": 0.5}
    assert own["hitech_goog"] == 0.25 and own["finance_hitech"] == 0.25
    assert return_correlations(0.6, 0.0)["hitech_goog"] == pytest.approx(0.36)
    with pytest.raises(ValueError, match="goog_factor"):
        return_correlations(goog_factor="pharma")
    assert set(GOOG_FACTORS) == {"hitech", "own"}


def test_goog_in_hitech_factor_on_a_seeded_stream():
    # f_c = 1 makes GOOG report (with copies) every minute; HiTech ticker 1000 and Finance
    # ticker 0 report at about half the minutes: ~2,500 common minutes each
    s = stock_stream(60_000, 7, h=4, f_c=1.0)
    r_bc, n_bc = _same_minute_return_corr(s, 1000.0, 2000.0)
    r_ab, n_ab = _same_minute_return_corr(s, 0.0, 1000.0)
    assert n_bc > 1500 and n_ab > 700
    # sampling s.e. ~ (1 - rho^2) / sqrt(n) < 0.035: 0.1 is three s.e. and more
    assert abs(r_bc - 0.5) < 0.1 and abs(r_ab - 0.25) < 0.1
    assert r_bc > r_ab
    own = stock_stream(60_000, 7, h=4, f_c=1.0, goog_factor="own")
    r_bc_own, _ = _same_minute_return_corr(own, 1000.0, 2000.0)
    assert abs(r_bc_own - 0.25) < 0.1
    # both readings draw the same random numbers: Finance and HiTech prices are identical
    fin_hi = s.types < 2
    assert np.array_equal(s.attrs[fin_hi], own.attrs[own.types < 2])
    with pytest.raises(ValueError, match="goog_factor"):
        stock_stream(100, 1, goog_factor="pharma")


def test_price_paths_refuses_weights_beyond_unit_variance():
    with pytest.raises(ValueError, match="market_weight"):
        price_paths(10, 1, 1, np.random.default_rng(0), 0.9, 0.9, 0.002)


def test_scenario_passes_goog_factor():
    from sim.studies.lazy_nfa.scenario import condition_evaluations
    base = {"n_events": 800, "f_c": 0.5, "h": 5, "regime": "selective", "nfas": "cab"}
    a = condition_evaluations(dict(base), 3)
    b = condition_evaluations(dict(base, goog_factor="hitech"), 3)
    c = condition_evaluations(dict(base, goog_factor="own"), 3)
    assert a["evals_cab"] == b["evals_cab"]            # "hitech" is the default
    assert a["sel_ab"] == c["sel_ab"]                   # Finance/HiTech unchanged
    assert a["sel_bc"] != c["sel_bc"]                   # GOOG's prices differ


def _tvb_row(cab: float, cba: float, tree: float) -> dict:
    r = {"regime": "paper_regime", "data": "synthetic", "sequence": "a,b,c", "f_c": 0.1,
         "swing_amp": 0.15, "swing_kind": "sine", "routing_tree": 3}
    for k in ("abc", "acb", "bac", "bca"):
        r[f"evals_{k}"] = 10_000
    r.update(evals_cab=cab, evals_cba=cba, evals_tree=tree)
    return r


def test_tree_below_named_chain_cab():
    # simulated best chain cba (90); the paper names cab (100): tree 95 is below cab, not cba
    df = pd.DataFrame([_tvb_row(100, 90, 95)])
    named = C.claim_tree_vs_best_chain(df, metric="evals", regime="paper_regime", below=True,
                                       ref="cab")
    best = C.claim_tree_vs_best_chain(df, metric="evals", regime="paper_regime", below=True)
    assert named.passed and not best.passed
    assert "tree/cab=0.95 (simulated best chain: tree/cba=1.056" in named.measured
    assert "tree/cba=1.056" in best.measured
    # tree above cab fails against cab
    assert not C.claim_tree_vs_best_chain(pd.DataFrame([_tvb_row(100, 90, 101)]), below=True,
                                          regime="paper_regime", ref="cab").passed
    with pytest.raises(ValueError, match="ref"):
        C.claim_tree_vs_best_chain(df, ref="xyz")


def test_calibration_search_counts_the_named_best_chain():
    # T = 0.5: cba best at both f_c (c-first best, cab/cba = 1.1 in range);
    # T = 0.0: cab best at both f_c.  Without the cab check both meet 4/4, ties go to the larger
    # T (0.5); with it T = 0.0 meets 6/6 and T = 0.5 4/6.
    rows = []
    for thr, cab, cba in ((0.5, 110, 100), (0.0, 100, 110)):
        for fc in (0.001, 1.0):
            r = {"threshold": thr, "f_c": fc, "sel_bc": 0.9, "evals_cab": cab, "evals_cba": cba}
            r.update({f"evals_{k}": 10_000 for k in ("abc", "acb", "bac", "bca")})
            rows.append(r)
    tab, n = C.regime_search_table(pd.DataFrame(rows), far=None, near=None)
    assert n == 4 and {r["T"]: r["held"] for r in tab} == {0.5: 4, 0.0: 4}
    tab, n = C.regime_search_table(pd.DataFrame(rows), far=None, near=None, named="cab")
    assert n == 6 and {r["T"]: r["held"] for r in tab} == {0.5: 4, 0.0: 6}
    assert {r["T"]: r["txt"]["named"] for r in tab} == {0.5: "cab best 0/2", 0.0: "cab best 2/2"}


def _phase_rows(spread: float, tree: list[int], cab: list[int], abc: list[int]) -> dict:
    r = {"regime": "paper_regime", "rate_spread": spread, "n_stream_events": 200,
         "period_events": 100, "phases": json.dumps(["cab", "abc"])}
    for k, v in (("tree", tree), ("cab", cab), ("abc", abc)):
        r[f"evals_phase_{k}"] = json.dumps(v)
        r[f"evals_{k}"] = sum(v)
    return r


def test_phase_claims_per_rate_spread():
    # spread 20: tree = best chain per phase, chains 2x apart; spread 1000: 50x apart
    df = pd.DataFrame([_phase_rows(20.0, [10, 10], [10, 20], [20, 10]),
                       _phase_rows(1000.0, [10, 10], [10, 500], [500, 10])])
    g20 = C.claim_phase_gap(df, regime="paper_regime", rare_factor=0.05, within=True)
    g1k = C.claim_phase_gap(df, regime="paper_regime", rare_factor=0.001, within=True)
    assert not g20.passed and "is 2x the tree" in g20.measured
    assert g1k.passed and "is 50x the tree" in g1k.measured
    assert "best chain over another chain in that phase 50x" in g1k.measured
    assert g1k.measured.startswith("rare factor 0.001: paper_regime")
    assert C.claim_phase_tree_best(df, regime="paper_regime", rare_factor=0.05).passed
    missing = C.claim_phase_tree_best(df, regime="paper_regime", rare_factor=0.01)
    assert not missing.passed and "no rows" in missing.measured
    tot = C.claim_dynamic_tree_best(df, regime="paper_regime", rare_factor=0.001)
    assert tot.passed and "tree 20, best chain" in tot.measured


def test_phased_scenario_rare_factor_axis():
    from engines.errors import CepsimInputError
    from sim.studies.lazy_nfa.scenario import phased_evaluations
    base = {"n_events": 1200, "period": 200, "bucket": 200, "h": 4, "regime": "paper_regime",
            "nfas": "cab,tree"}
    r = phased_evaluations(dict(base, rare_factor=0.01), 2)
    assert r["rate_spread"] == pytest.approx(100.0) and r["matches_agree"]
    assert phased_evaluations(dict(base), 2)["rate_spread"] == pytest.approx(20.0)
    with pytest.raises(CepsimInputError, match="not both"):
        phased_evaluations(dict(base, rare_factor=0.01, factors=[0.05, 0.3, 1.0]), 2)

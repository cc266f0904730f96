"""EIRES claim functions (``sim/studies/eires/claims.py``) on small synthetic result tables built to
PASS and built to FAIL, both directions asserted, the numbers the verdict rests on checked in the
``measured`` text; every claim leaves its input untouched and FAILs (without raising) on an empty
table and on a table whose every row is an error.

Tables carry only the columns the claims read (the panel keys dataset / query / policy / cache,
``strategy``, the swept parameter, ``lat_p50`` / ``lat_p95`` -- the claims' latency
metric, ``METRIC = "lat"`` (the artifact's metric) -- and ``error``).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import sim.studies.eires.claims as CL
from claim_cases import check_claim_case, verdicts_by_claim
from sim.experiments.claims import ClaimResult


def _rows(spec, dataset="DS1", query="Q1", policy="greedy", cache="cost", **extra):
    """``spec``: strategy -> (p50, p95) or p50; one row per strategy of one panel."""
    out = []
    for st, v in spec.items():
        p50, p95 = v if isinstance(v, tuple) else (v, 2 * v)
        out.append({"dataset": dataset, "query": query, "policy": policy, "cache": cache,
                    "strategy": st, "lat_p50": p50, "lat_p95": p95, "error": None,
                    **extra})
    return pd.DataFrame(out)


def _cat(*dfs):
    return pd.concat(dfs, ignore_index=True)


def _sweep(x, xs, by_strategy):
    """``by_strategy``: strategy -> lat_p50 per value of ``xs``."""
    return pd.DataFrame([{"dataset": "DS1", "query": "Q1", "policy": "greedy", "cache": "cost",
                          "strategy": st, x: xv, "lat_p50": v, "error": None}
                         for st, vals in by_strategy.items() for xv, v in zip(xs, vals)])


def _with_error_row(df, **bad):
    row = df.iloc[[0]].copy()
    row["error"] = "boom"
    for k, v in bad.items():
        row[k] = v
    return _cat(df, row)


# ----------------------------------------------------------------------------- tables
def _overall(pfetch=(9.5, 30.0), lz=30.0, bl2=50.0, hybrid=(10.0, 20.0)):
    spec = {"BL1": (40.0, 80.0), "BL2": bl2, "BL3": 100.0, "PFetch": pfetch, "LzEval": lz,
            "Hybrid": hybrid}
    return _cat(_rows(spec), _rows({**spec, "PFetch": (20.0, 40.0)}, cache="lru"))


P_Q1 = {"dataset": "DS1", "policy": "greedy", "cache": "cost"}
PAPER_Q1 = {"BL1": 111.0, "BL2": 6.0, "BL3": 283.0}


def _ratios(bl1=100.0, bl2=5.0, bl3=300.0):
    return _cat(_rows({"BL1": bl1, "BL2": bl2, "BL3": bl3, "Hybrid": 1.0}),
                # another cache and another policy: must not enter the panel's ratios
                _rows({"BL1": 1.0, "BL2": 1.0, "BL3": 1.0, "Hybrid": 1.0}, cache="lru"),
                _rows({"BL1": 1.0, "BL2": 1.0, "BL3": 1.0, "Hybrid": 1.0}, policy="nongreedy"))


P_NG = {"dataset": "DS1", "policy": "nongreedy", "cache": "cost"}


def _minratio(bl2=20.0, strategies=("BL1", "BL2", "BL3", "Hybrid")):
    spec = {"BL1": 40.0, "BL2": bl2, "BL3": 60.0, "Hybrid": 2.0}
    return _cat(_rows({k: v for k, v in spec.items() if k in strategies}, policy="nongreedy"),
                _rows({"BL1": 2.0, "BL2": 2.0, "BL3": 2.0, "Hybrid": 2.0}))


P_Q2 = {"dataset": "DS1", "policy": "greedy"}


def _maxratio(bl1=(1000.0, 3000.0)):
    return _cat(_rows({"BL1": bl1, "BL2": (10.0, 20.0), "BL3": (50.0, 600.0),
                       "Hybrid": (1.0, 2.0)}, query="Q2"),
                _rows({"BL1": (1e6, 1e6), "Hybrid": (1.0, 1.0)}, query="Q2", dataset="DS2"))


def _lru(ds1_lz_cost=20.0, ds2=True):
    parts = [_rows({"PFetch": 10.0, "LzEval": ds1_lz_cost}),
             _rows({"PFetch": 12.0, "LzEval": 20.0}, cache="lru"),
             # DS2 non-greedy: not part of the claim, reversed on purpose
             _rows({"PFetch": 100.0}, dataset="DS2", policy="nongreedy"),
             _rows({"PFetch": 1.0}, dataset="DS2", policy="nongreedy", cache="lru")]
    if ds2:
        parts += [_rows({"PFetch": 6.0, "LzEval": 9.0}, dataset="DS2"),
                  _rows({"PFetch": 5.0, "LzEval": 7.0}, dataset="DS2", cache="lru")]
    return _cat(*parts)


def _thr(spec, dataset="DS1", policy="nongreedy", cache="cost", query="Q1"):
    """``spec``: strategy -> (lat_p50, throughput in events/s); one row per strategy."""
    return pd.DataFrame([{"dataset": dataset, "query": query, "policy": policy, "cache": cache,
                          "strategy": st, "lat_p50": p50, "throughput": thr, "error": None}
                         for st, (p50, thr) in spec.items()])


def _psweep(x, xs, by_strategy):
    """``by_strategy``: strategy -> {percentile: values per ``xs``} (columns ``lat_<p>``)."""
    rows = []
    for st, stats in by_strategy.items():
        for j, xv in enumerate(xs):
            rows.append({"dataset": "DS1", "query": "Q1", "policy": "greedy", "cache": "cost",
                         "strategy": st, x: xv, "error": None,
                         **{f"lat_{k}": v[j] for k, v in stats.items()}})
    return pd.DataFrame(rows)


THR_NG = {"BL1": (300.0, 30000.0), "BL2": (250.0, 35000.0), "Hybrid": (100.0, 50000.0)}
DATS_THR = {"DS1/nongreedy/cost": ["result_latency_cost_non_greedy.dat",
                                   "result_throughput_cost_non_greedy.dat"]}
DATS_THR_EQ = {"cost": ["result_latency_cost_non_greedy.dat",
                        "result_throughput_cost_non_greedy.dat"],
               "lru": ["result_latency_LRU_non_greedy.dat",
                       "result_throughput_LRU_non_greedy.dat"]}
NOISE_DATS = {s: f"result_latency_estimation_noise_{s}.dat" for s in ("PFetch", "LzEval",
                                                                       "Hybrid")}
NOISE_X = {"1000": 0.1, "2000": 0.3, "3000": 0.5, "4000": 0.7, "5000": 0.9}
NOISE3 = (0.1, 0.5, 0.9)


def _above(hyb95=80.0):
    return _psweep("noise", NOISE3, {"PFetch": {"p50": [10.0, 50.0, 90.0]},
                                     "LzEval": {"p75": [20.0, 40.0, 60.0]},
                                     "Hybrid": {"p95": [30.0, 45.0, hyb95]}})


OMEGA = (0.1, 0.3, 0.5, 0.7, 0.9)


# ----------------------------------------------------------------------------- cases
# (id, call, table, expected verdict, regexes that must occur in `measured`)
CASES = [
    # --- claim_hybrid_best
    ("hybrid-best-pass", lambda df: CL.claim_hybrid_best(df, factor=1.1), _overall(), True,
     [r"^4/4 panel-percentiles pass \(paper: Hybrid best everywhere\)$"]),
    ("hybrid-best-pass-error-row-ignored", lambda df: CL.claim_hybrid_best(df),
     _with_error_row(_overall(), strategy="BL1", lat_p50=0.001, lat_p95=0.001), True,
     [r"^4/4 panel-percentiles pass"]),
    ("hybrid-best-fail", lambda df: CL.claim_hybrid_best(df, factor=1.1),
     _overall(pfetch=(9.0, 30.0)), False,
     [r"^3/4 panel-percentiles pass; fails: DS1/Q1/greedy/cost lat_p50: Hybrid 10\.0 vs "
      r"best PFetch 9\.0 \(paper"]),
    ("hybrid-best-fail-no-hybrid", lambda df: CL.claim_hybrid_best(df),
     _overall().query("strategy != 'Hybrid'"), False, [r"^0/0 panel-percentiles pass"]),

    # --- claim_pf_lz_below_baselines
    ("pf-lz-pass", lambda df: CL.claim_pf_lz_below_baselines(df), _overall(), True,
     [r"^4/4 pass$"]),
    ("pf-lz-fail", lambda df: CL.claim_pf_lz_below_baselines(df), _overall(lz=45.0), False,
     [r"^2/4 pass; fails: DS1/Q1/greedy/cost LzEval 45\.0 >= 40\.0; "
      r"DS1/Q1/greedy/lru LzEval 45\.0 >= 40\.0$"]),
    # a baseline without latency (no match) is skipped wherever it sits in BL1..BL3
    ("pf-lz-pass-bl1-without-latency", lambda df: CL.claim_pf_lz_below_baselines(df),
     _overall().assign(lat_p50=lambda d: d.lat_p50.where(d.strategy != "BL1")), True,
     [r"^4/4 pass$"]),
    ("pf-lz-fail-bl1-without-latency", lambda df: CL.claim_pf_lz_below_baselines(df),
     _overall(lz=55.0).assign(lat_p50=lambda d: d.lat_p50.where(d.strategy != "BL1")),
     False, [r"LzEval 55\.0 >= 50\.0"]),
    ("pf-lz-fail-bl2-without-latency", lambda df: CL.claim_pf_lz_below_baselines(df),
     _overall(lz=45.0, bl2=(np.nan, np.nan)), False, [r"LzEval 45\.0 >= 40\.0"]),
    ("pf-lz-fail-no-baseline-latency", lambda df: CL.claim_pf_lz_below_baselines(df),
     _overall().assign(lat_p50=lambda d: d.lat_p50.where(~d.strategy.str.startswith("BL"))),
     False, [r"PFetch 9\.5 >= nan"]),

    # a panel without any match (every latency NaN) is not judged; nothing else judged: FAIL
    ("pf-lz-pass-matchless-panel-skipped", lambda df: CL.claim_pf_lz_below_baselines(df),
     _cat(_overall(), _rows({s: (np.nan, np.nan) for s in ("BL1", "BL2", "BL3", "PFetch",
                                                             "LzEval")}, dataset="DS2")),
     True, [r"^4/4 pass$"]),
    ("pf-lz-fail-only-matchless-panels", lambda df: CL.claim_pf_lz_below_baselines(df),
     _rows({s: (np.nan, np.nan) for s in ("BL1", "BL2", "BL3", "PFetch", "LzEval")}), False,
     [r"^0/0 pass$"]),

    # --- claim_bl3_below (section 7.2: BL3 below BL1 and BL2 for Q1; a panel per bl3_fetch)
    ("bl3-below-pass", lambda df: CL.claim_bl3_below(df, policies=["nongreedy"]),
     _cat(_rows({"BL1": 50.0, "BL2": 40.0, "BL3": 30.0}, policy="nongreedy",
                bl3_fetch="parallel"),
          # greedy: outside ``policies``, reversed on purpose
          _rows({"BL1": 5.0, "BL2": 4.0, "BL3": 300.0}, bl3_fetch="parallel")), True,
     [r"^1/1 panels hold \(lat_p50\); holds: DS1/Q1/nongreedy/cost/parallel BL3 30\.0 vs "
      r"BL1 50\.0, BL2 40\.0$"]),
    ("bl3-below-fail-one-reading", lambda df: CL.claim_bl3_below(df, policies=["nongreedy"]),
     _cat(_rows({"BL1": 50.0, "BL2": 40.0, "BL3": 30.0}, policy="nongreedy",
                bl3_fetch="parallel"),
          _rows({"BL1": 50.0, "BL2": 40.0, "BL3": 45.0}, policy="nongreedy",
                bl3_fetch="serial")), False,
     [r"^1/2 panels hold \(lat_p50\); fails: DS1/Q1/nongreedy/cost/serial BL3 45\.0 vs "
      r"BL1 50\.0, BL2 40\.0; holds: "]),
    ("bl3-below-fail-no-match", lambda df: CL.claim_bl3_below(df),
     _rows({"BL1": (np.nan, np.nan), "BL2": (np.nan, np.nan), "BL3": (np.nan, np.nan)}),
     False, [r"^0/0 panels hold \(lat_p50\); no match \(not judged\): DS1/Q1/greedy/cost$"]),

    # --- claim_ratios
    ("ratios-pass", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1,
                                              order=["BL3", "BL1", "BL2"]), _ratios(), True,
     [r"BL1/Hybrid 100\.00x \(paper 111\.0x\); BL2/Hybrid 5\.00x \(paper 6\.0x\); "
      r"BL3/Hybrid 300\.00x \(paper 283\.0x\); order BL3 > BL1 > BL2 holds$"]),
    ("ratios-fail-decades", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1),
     _ratios(bl2=40.0), False, [r"BL2/Hybrid 40\.00x \(paper 6\.0x\) X"]),
    ("ratios-fail-order", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1,
                                                    order=["BL3", "BL1", "BL2"]),
     _ratios(bl1=250.0, bl3=200.0), False,
     [r"BL1/Hybrid 250\.00x \(paper 111\.0x\);", r"order BL3 > BL1 > BL2 fails$"]),

    # --- claim_min_ratio
    ("min-ratio-pass", lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0),
     _minratio(), True,
     [r"min baseline/Hybrid lat_p50 10\.00x \(BL1 20\.00x, BL2 10\.00x, BL3 30\.00x\); "
      r"required >= 10\.0x \(paper 26\.0x\)$"]),
    ("min-ratio-fail", lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0),
     _minratio(bl2=18.0), False, [r"min baseline/Hybrid lat_p50 9\.00x"]),
    ("min-ratio-pass-baseline-missing-skipped",
     lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0),
     _minratio(strategies=("BL1", "BL3", "Hybrid")), True,
     [r"min baseline/Hybrid lat_p50 20\.00x \(BL1 20\.00x, BL2 nanx, BL3 30\.00x\)"]),
    ("min-ratio-fail-first-baseline-missing",
     lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0),
     _minratio(bl2=18.0, strategies=("BL2", "BL3", "Hybrid")), False,
     [r"lat_p50 9\.00x \(BL1 nanx, BL2 9\.00x, BL3 30\.00x\)"]),
    ("min-ratio-fail-no-baseline",
     lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0),
     _minratio(strategies=("Hybrid",)), False, [r"lat_p50 nanx"]),

    # --- claim_max_ratio
    ("max-ratio-pass",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=2726.0, paper_p95=3752.0),
     _maxratio(), True,
     [r"max baseline/Hybrid p50 1000\.0x \(paper 2726\.0x\), p95 1500\.0x \(paper 3752\.0x\)$"]),
    ("max-ratio-fail",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=2726.0, paper_p95=3752.0),
     _maxratio(bl1=(100.0, 3000.0)), False, [r"p50 100\.0x \(paper 2726\.0x\), p95 1500\.0x"]),
    ("max-ratio-pass-bl1-missing-skipped",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=2726.0, paper_p95=3752.0),
     _maxratio(bl1=(np.nan, np.nan)).assign(
         lat_p50=lambda d: d.lat_p50.where(d.strategy != "BL3", 1000.0),
         lat_p95=lambda d: d.lat_p95.where(d.strategy != "BL3", 3000.0)), True,
     [r"p50 1000\.0x \(paper 2726\.0x\), p95 1500\.0x"]),
    ("max-ratio-fail-no-baseline",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=2726.0, paper_p95=3752.0),
     _maxratio().query("strategy == 'Hybrid'"), False, [r"p50 nanx \(paper 2726\.0x\), p95 nanx"]),
    ("max-ratio-fail-tolerance",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=2726.0, paper_p95=3752.0,
                                  tolerance_decades=0.3),
     _maxratio(), False, [r"p95 1500\.0x"]),

    # --- claim_cost_vs_lru
    ("cost-lru-pass", lambda df: CL.claim_cost_vs_lru(df), _lru(), True,
     [r"^DS1/Q1/greedy PFetch cost 10\.0 vs lru 12\.0; DS1/Q1/greedy LzEval cost 20\.0 vs lru "
      r"20\.0; DS2/Q1/greedy PFetch lru 5\.0 vs cost 6\.0; DS2/Q1/greedy LzEval lru 7\.0 vs "
      r"cost 9\.0$"]),
    ("cost-lru-fail-ds1", lambda df: CL.claim_cost_vs_lru(df), _lru(ds1_lz_cost=25.0), False,
     [r"DS1/Q1/greedy LzEval cost 25\.0 vs lru 20\.0 X"]),
    ("cost-lru-fail-ds2", lambda df: CL.claim_cost_vs_lru(df),
     _cat(_rows({"PFetch": 6.0}, dataset="DS2"), _rows({"PFetch": 8.0}, dataset="DS2",
                                                       cache="lru")), False,
     [r"^DS2/Q1/greedy PFetch lru 8\.0 vs cost 6\.0 X$"]),
    ("cost-lru-fail-nothing-comparable", lambda df: CL.claim_cost_vs_lru(df),
     _lru().query("policy == 'nongreedy'"), False, [r"^$"]),

    # --- claim_grows_with
    ("grows-pass", lambda df: CL.claim_grows_with(df, x="noise", strategy="PFetch", factor=2.0),
     _sweep("noise", (0.1, 0.5, 0.9), {"PFetch": [10.0, 15.0, 20.0], "Hybrid": [9.0, 1.0, 1.0]}),
     True, [r"^PFetch lat_p50 noise=0\.1: 10\.0, noise=0\.9: 20\.0 -> 2\.00x "
            r"\(required >= 2\.0x\)$"]),
    ("grows-fail", lambda df: CL.claim_grows_with(df, x="noise", strategy="PFetch", factor=2.0),
     _sweep("noise", (0.1, 0.5, 0.9), {"PFetch": [10.0, 15.0, 19.0]}), False,
     [r"-> 1\.90x"]),
    ("grows-fail-one-point",
     lambda df: CL.claim_grows_with(df, x="noise", strategy="PFetch", factor=2.0),
     _sweep("noise", (0.1,), {"PFetch": [10.0], "Hybrid": [5.0]}), False,
     [r"^not enough points$"]),

    # --- claim_monotone
    ("monotone-down-pass",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down", most="PFetch"),
     _sweep("cache_size", (500, 1000, 2000), {"PFetch": [100.0, 50.0, 20.0],
                                              "Hybrid": [50.0, 45.0, 40.0]}), True,
     [r"^lat_p50 vs cache_size: Hybrid 50\.0->40\.0; PFetch 100\.0->20\.0; "
      r"most sensitive: PFetch \(paper: PFetch\)$"]),
    ("monotone-down-fail",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down"),
     _sweep("cache_size", (500, 2000), {"PFetch": [100.0, 20.0], "Hybrid": [50.0, 60.0]}),
     False, [r"Hybrid 50\.0->60\.0 X"]),
    ("monotone-down-fail-most",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down", most="PFetch"),
     _sweep("cache_size", (500, 2000), {"PFetch": [100.0, 20.0], "Hybrid": [50.0, 5.0]}),
     False, [r"most sensitive: Hybrid \(paper: PFetch\)"]),
    ("monotone-up-pass",
     lambda df: CL.claim_monotone(df, x="latency_unit_us", direction="up", most="PFetch"),
     _sweep("latency_unit_us", (1.0, 10.0), {"PFetch": [10.0, 100.0], "BL1": [10.0, 20.0]}),
     True, [r"BL1 10\.0->20\.0; PFetch 10\.0->100\.0; most sensitive: PFetch"]),
    ("monotone-up-fail",
     lambda df: CL.claim_monotone(df, x="latency_unit_us", direction="up"),
     _sweep("latency_unit_us", (1.0, 10.0), {"PFetch": [10.0, 100.0], "BL1": [20.0, 20.0]}),
     False, [r"BL1 20\.0->20\.0 X"]),

    # --- claim_best_at
    ("best-at-pass", lambda df: CL.claim_best_at(df, x="omega_fetch", strategy="Hybrid",
                                                accept=[0.5, 0.7, 0.9], paper=0.7),
     _sweep("omega_fetch", OMEGA, {"Hybrid": [30.0, 20.0, 12.0, 10.0, 11.0],
                                   "PFetch": [1.0, 1.0, 1.0, 1.0, 1.0]}), True,
     [r"^Hybrid lat_p50 by omega_fetch: 0\.1:30\.0, 0\.3:20\.0, 0\.5:12\.0, 0\.7:10\.0, "
      r"0\.9:11\.0; best \[0\.7\], max/min 3\.000 \(paper 0\.7, accept \[0\.5, 0\.7, 0\.9\]; "
      r"a curve flatter than 1\.05x max/min shows no optimum: FAIL\)$"]),
    ("best-at-fail-flat", lambda df: CL.claim_best_at(df, x="omega_cache", strategy="Hybrid",
                                                     accept=[0.3, 0.5, 0.7], paper=0.5),
     _sweep("omega_cache", OMEGA, {"Hybrid": [10.4, 10.2, 10.0, 10.3, 10.1]}), False,
     [r"best \[0\.5\], max/min 1\.040 \(paper 0\.5"]),
    ("best-at-pass-spread-threshold",
     lambda df: CL.claim_best_at(df, x="omega_cache", strategy="Hybrid", accept=[0.3, 0.5, 0.7],
                                paper=0.5, min_spread=1.04),
     _sweep("omega_cache", OMEGA, {"Hybrid": [10.4, 10.2, 10.0, 10.3, 10.1]}), True,
     [r"best \[0\.5\], max/min 1\.040", r"flatter than 1\.04x"]),
    ("best-at-fail", lambda df: CL.claim_best_at(df, x="omega_fetch", strategy="Hybrid",
                                                accept=[0.5, 0.7, 0.9], paper=0.7),
     _sweep("omega_fetch", OMEGA, {"Hybrid": [5.0, 20.0, 12.0, 10.0, 11.0]}), False,
     [r"best \[0\.1\]"]),
    ("best-at-pass-tie", lambda df: CL.claim_best_at(df, x="lookahead", strategy="PFetch",
                                                    accept=[2, 3, 4], paper=3, tie=0.1),
     _sweep("lookahead", (0, 1, 2, 3), {"PFetch": [30.0, 10.0, 10.5, 12.0]}), True,
     [r"0:30\.0, 1:10\.0, 2:10\.5, 3:12\.0; best \[1, 2\], max/min 3\.000 \(paper 3, "
      r"accept \[2, 3, 4\];"]),
    ("best-at-fail-no-tie", lambda df: CL.claim_best_at(df, x="lookahead", strategy="PFetch",
                                                       accept=[2, 3, 4], paper=3),
     _sweep("lookahead", (0, 1, 2, 3), {"PFetch": [30.0, 10.0, 10.5, 12.0]}), False,
     [r"best \[1\]"]),
    ("best-at-fail-no-rows", lambda df: CL.claim_best_at(df, x="lz_span", strategy="LzEval",
                                                        accept=[4], paper=4),
     _sweep("lz_span", (2, 4), {"PFetch": [1.0, 2.0]}), False, [r"^no rows$"]),

    # --- cases added after the mutation run on this module (docs/TESTING.md): defaults,
    # exact boundaries, panels told apart by v1_max only, one comparable panel-percentile,
    # three-point sweeps, a missing strategy before a present one
    ("hybrid-best-pass-no-error-column", lambda df: CL.claim_hybrid_best(df),
     _overall().drop(columns="error"), True, [r"^4/4 panel-percentiles pass"]),
    ("hybrid-best-fail-default-factor", lambda df: CL.claim_hybrid_best(df),
     _overall(hybrid=(15.0, 20.0)), False,
     [r"^3/4 panel-percentiles pass; fails: DS1/Q1/greedy/cost lat_p50: Hybrid 15\.0 vs "
      r"best PFetch 9\.5 \(paper"]),
    ("hybrid-best-pass-factor-one-hybrid-best", lambda df: CL.claim_hybrid_best(df, factor=1.0),
     _overall(pfetch=(10.0, 30.0)), True, [r"^4/4 panel-percentiles pass"]),
    ("hybrid-best-fail-v1max-panels", lambda df: CL.claim_hybrid_best(df),
     _cat(_rows({"PFetch": 20.0, "Hybrid": 10.0}, v1_max=10),
          _rows({"PFetch": 20.0, "Hybrid": 30.0}, v1_max=20)), False,
     [r"^2/4 panel-percentiles pass; fails: DS1/Q1/greedy/cost/20 lat_p50: Hybrid 30\.0 "
      r"vs best PFetch 20\.0; DS1/Q1/greedy/cost/20 lat_p95: Hybrid 60\.0 vs best PFetch "
      r"40\.0 \(paper"]),
    ("hybrid-best-fail-panels-sorted", lambda df: CL.claim_hybrid_best(df),
     _cat(_rows({"PFetch": 20.0, "Hybrid": 30.0}, cache="lru"),
          _rows({"PFetch": 20.0, "Hybrid": 31.0}, cache="cost")), False,
     [r"fails: DS1/Q1/greedy/cost lat_p50: Hybrid 31\.0 .*; DS1/Q1/greedy/lru lat_p50"]),
    ("hybrid-best-fail-p95-only", lambda df: CL.claim_hybrid_best(df),
     _cat(_rows({"PFetch": 20.0, "Hybrid": 10.0}),
          _rows({"PFetch": (20.0, 40.0), "Hybrid": (np.nan, 100.0)}, cache="lru")), False,
     [r"^2/3 panel-percentiles pass; fails: DS1/Q1/greedy/lru lat_p95: Hybrid 100\.0"]),
    ("hybrid-best-pass-one-percentile", lambda df: CL.claim_hybrid_best(df),
     _rows({"PFetch": (20.0, np.nan), "Hybrid": (10.0, np.nan)}), True,
     [r"^1/1 panel-percentiles pass"]),
    ("hybrid-best-fail-six-listed", lambda df: CL.claim_hybrid_best(df),
     _cat(*[_rows({"PFetch": 1.0, "Hybrid": 9.0}, cache=c, policy=p)
            for c in ("cost", "lru") for p in ("greedy", "nongreedy")]), False,
     [r"^0/8 panel-percentiles pass; fails: (?:[^;]+; ){5}[^;]+ \(paper: Hybrid best"]),
    ("pf-lz-fail-six-listed", lambda df: CL.claim_pf_lz_below_baselines(df),
     _cat(*[_rows({"BL1": 1.0, "PFetch": 9.0, "LzEval": 9.0}, cache=c, policy=p)
            for c in ("cost", "lru") for p in ("greedy", "nongreedy")]), False,
     [r"^0/8 pass; fails: (?:[^;]+; ){5}[^;]+$"]),
    ("pf-lz-pass-one-comparable", lambda df: CL.claim_pf_lz_below_baselines(df),
     _rows({"BL1": 40.0, "PFetch": 10.0}), True, [r"^1/1 pass$"]),
    ("pf-lz-fail-no-baseline-rows", lambda df: CL.claim_pf_lz_below_baselines(df),
     _rows({"PFetch": 10.0, "LzEval": 10.0, "Hybrid": 5.0}), False, [r"^0/0 pass$"]),
    ("pf-lz-fail-lz-without-pfetch", lambda df: CL.claim_pf_lz_below_baselines(df),
     _cat(_rows({"BL1": 40.0, "LzEval": 50.0}), _rows({"BL1": 40.0, "PFetch": 10.0},
                                                     cache="lru")), False,
     [r"^1/2 pass; fails: DS1/Q1/greedy/cost LzEval 50\.0 >= 40\.0$"]),
    ("pf-lz-fail-tie", lambda df: CL.claim_pf_lz_below_baselines(df),
     _rows({"BL1": 40.0, "PFetch": 40.0}), False, [r"PFetch 40\.0 >= 40\.0$"]),
    ("ratios-pass-p95-column", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1,
                                                         col="lat_p95"),
     _ratios(), True, [r"BL1/Hybrid 100\.00x \(paper 111\.0x\)"]),
    ("ratios-fail-p95", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1, col="lat_p95"),
     _ratios().assign(lat_p95=lambda d: d.lat_p95.where(
         ~((d.strategy == "BL2") & (d.cache == "cost") & (d.policy == "greedy")), 200.0)),
     False, [r"BL2/Hybrid 100\.00x \(paper 6\.0x\) X"]),
    ("ratios-pass-below-one", lambda df: CL.claim_ratios(df, panel=P_Q1, paper={"BL2": 0.5}),
     _ratios(bl2=0.5), True, [r"BL2/Hybrid 0\.50x \(paper 0\.5x\)$"]),
    ("ratios-pass-exact-tolerance",
     lambda df: CL.claim_ratios(df, panel=P_Q1, paper={"BL1": 10.0}, tolerance_decades=1.0),
     _ratios(bl1=100.0), True, [r"BL1/Hybrid 100\.00x \(paper 10\.0x\)$"]),
    ("ratios-fail-order-tie", lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1,
                                                        order=["BL3", "BL1", "BL2"],
                                                        tolerance_decades=1.0),
     _ratios(bl1=200.0, bl3=200.0), False, [r"order BL3 > BL1 > BL2 fails$"]),
    ("ratios-fail-decades-order-holds",
     lambda df: CL.claim_ratios(df, panel=P_Q1, paper=PAPER_Q1, order=["BL3", "BL1", "BL2"]),
     _ratios(bl2=40.0), False, [r"BL2/Hybrid 40\.00x \(paper 6\.0x\) X", r"holds$"]),
    ("min-ratio-fail-p95-column",
     lambda df: CL.claim_min_ratio(df, panel=P_NG, minimum=10.0, paper=26.0, col="lat_p95"),
     _minratio().assign(lat_p95=lambda d: d.lat_p95.where(
         ~((d.strategy == "BL1") & (d.policy == "nongreedy")), 8.0)), False,
     [r"min baseline/Hybrid lat_p95 2\.00x \(BL1 2\.00x"]),
    ("max-ratio-pass-exact-tolerance",
     lambda df: CL.claim_max_ratio(df, panel=P_Q2, paper_p50=100.0, paper_p95=150.0),
     _maxratio(), True, [r"p50 1000\.0x \(paper 100\.0x\), p95 1500\.0x \(paper 150\.0x\)$"]),
    ("cost-lru-pass-cost-only-group-skipped", lambda df: CL.claim_cost_vs_lru(df),
     _cat(_lru(), _rows({"PFetch": 99.0}, query="Q2")), True, [r"^DS1/Q1/greedy PFetch cost"]),
    ("cost-lru-fail-lz-after-missing-pfetch", lambda df: CL.claim_cost_vs_lru(df),
     _cat(_rows({"PFetch": 10.0, "LzEval": 30.0}), _rows({"LzEval": 20.0}, cache="lru"),
          _rows({"PFetch": 6.0}, dataset="DS2"), _rows({"PFetch": 5.0}, dataset="DS2",
                                                       cache="lru")), False,
     [r"^DS1/Q1/greedy LzEval cost 30\.0 vs lru 20\.0 X; DS2/Q1/greedy PFetch lru 5\.0"]),
    ("cost-lru-fail-ds1-pfetch-first", lambda df: CL.claim_cost_vs_lru(df),
     _cat(_rows({"PFetch": 30.0, "LzEval": 10.0}), _rows({"PFetch": 20.0, "LzEval": 20.0},
                                                        cache="lru")), False,
     [r"^DS1/Q1/greedy PFetch cost 30\.0 vs lru 20\.0 X; DS1/Q1/greedy LzEval cost 10\.0 vs "
      r"lru 20\.0$"]),
    ("cost-lru-pass-ds2-tie", lambda df: CL.claim_cost_vs_lru(df),
     _cat(_rows({"PFetch": 6.0}, dataset="DS2"), _rows({"PFetch": 6.0}, dataset="DS2",
                                                       cache="lru")), True,
     [r"^DS2/Q1/greedy PFetch lru 6\.0 vs cost 6\.0$"]),
    ("grows-pass-two-points-paper",
     lambda df: CL.claim_grows_with(df, x="noise", strategy="PFetch", factor=2.0,
                                   paper="(paper: 3x)"),
     _sweep("noise", (0.1, 0.9), {"PFetch": [10.0, 30.0]}), True,
     [r"-> 3\.00x \(required >= 2\.0x\) \(paper: 3x\)$"]),
    ("monotone-fail-three-points-middle",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down"),
     _sweep("cache_size", (500, 1000, 2000), {"Hybrid": [50.0, 40.0, 60.0]}), False,
     [r"Hybrid 50\.0->60\.0 X"]),
    ("monotone-pass-three-points-middle",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down"),
     _sweep("cache_size", (500, 1000, 2000), {"Hybrid": [50.0, 60.0, 40.0]}), True,
     [r"^lat_p50 vs cache_size: Hybrid 50\.0->40\.0$"]),
    ("monotone-fail-flat-down",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down"),
     _sweep("cache_size", (500, 2000), {"Hybrid": [50.0, 50.0]}), False,
     [r"Hybrid 50\.0->50\.0 X"]),
    ("monotone-fail-direction-most-right",
     lambda df: CL.claim_monotone(df, x="cache_size", direction="down", most="PFetch"),
     _sweep("cache_size", (500, 2000), {"PFetch": [100.0, 20.0], "Hybrid": [50.0, 60.0]}),
     False, [r"Hybrid 50\.0->60\.0 X", r"most sensitive: PFetch \(paper: PFetch\)"]),
    ("best-at-fail-flat-below-one",
     lambda df: CL.claim_best_at(df, x="omega_cache", strategy="Hybrid", accept=[0.5], paper=0.5),
     _sweep("omega_cache", (0.3, 0.5, 0.7), {"Hybrid": [0.51, 0.5, 0.52]}), False,
     [r"best \[0\.5\], max/min 1\.040"]),
    ("best-at-pass-zero-minimum",
     lambda df: CL.claim_best_at(df, x="omega_cache", strategy="Hybrid", accept=[0.5], paper=0.5),
     _sweep("omega_cache", (0.3, 0.5, 0.7), {"Hybrid": [2.0, 0.0, 3.0]}), True,
     [r"best \[0\.5\], max/min inf"]),
    # --- claim_ranking (against the authors' result_latency_cost_greedy.dat: p50 LzEval 1200 <
    # Hybrid 1673 < PFetch 16907.5 < BL2 17451 < BL1 25846 < BL3 27202)
    ("ranking-pass", lambda df: CL.claim_ranking(df, panel=P_Q1,
                                                dat="result_latency_cost_greedy.dat"),
     _rows({"BL1": 260.0, "BL2": 170.0, "BL3": 300.0, "PFetch": 160.0, "LzEval": 12.0,
            "Hybrid": 17.0}), True, [r"100% of pairs agree", r"LzEval < Hybrid"]),
    ("ranking-fail", lambda df: CL.claim_ranking(df, panel=P_Q1,
                                                dat="result_latency_cost_greedy.dat"),
     _rows({"BL1": 1.0, "BL2": 2.0, "BL3": 3.0, "PFetch": 4.0, "LzEval": 50.0,
            "Hybrid": 60.0}), False, [r"disagree: ", r"BL1<BL2"]),
    # --- claim_ratios_two_refs (dat: BL1/BL2/BL3 over Hybrid 15.45/10.43/16.26x; text 111/6/283)
    ("two-refs-pass", lambda df: CL.claim_ratios_two_refs(
        df, panel=P_Q1, dat="result_latency_cost_greedy.dat", text=PAPER_Q1),
     _rows({"BL1": 150.0, "BL2": 100.0, "BL3": 170.0, "Hybrid": 10.0}), True,
     [r"BL1/Hybrid 15.00x \(dat 15.45x, text 111.0x\)", r"dat contradicts the text: BL1"]),
    ("two-refs-fail", lambda df: CL.claim_ratios_two_refs(
        df, panel=P_Q1, dat="result_latency_cost_greedy.dat", text=PAPER_Q1),
     _rows({"BL1": 1110.0, "BL2": 60.0, "BL3": 2830.0, "Hybrid": 10.0}), False,
     [r"BL1/Hybrid 111.00x \(dat 15.45x, text 111.0x\) X"]),
    # --- claim_throughput_in_line (Fig. 9): greedy and DS2 panels reversed on purpose, left out
    ("thr-in-line-pass", lambda df: CL.claim_throughput_in_line(df, datasets=["DS1"]),
     _cat(_thr(THR_NG), _thr({"BL1": (300.0, 90000.0), "Hybrid": (100.0, 1000.0)},
                            policy="greedy"),
          _thr({"BL1": (300.0, 90000.0), "Hybrid": (100.0, 1000.0)}, dataset="DS2")), True,
     [r"^1 panels; DS1/Q1/nongreedy/cost: throughput \(events/s\) Hybrid 50,000, BL2 35,000, "
      r"BL1 30,000; 100% of pairs ranked as by lat_p50 \(required >= 80% of pairs\)$"]),
    ("thr-in-line-fail", lambda df: CL.claim_throughput_in_line(df, datasets=["DS1"]),
     _thr({**THR_NG, "BL2": (250.0, 60000.0)}), False,
     [r"67% of pairs ranked as by lat_p50 X \(disagree: BL2>Hybrid\)"]),
    # a pair within 5 % in throughput counts as agreeing (refs.pair_agreement)
    ("thr-in-line-pass-tie", lambda df: CL.claim_throughput_in_line(df),
     _thr({**THR_NG, "BL2": (250.0, 51000.0)}), True, [r"100% of pairs"]),
    ("thr-in-line-fail-one-strategy", lambda df: CL.claim_throughput_in_line(df),
     _thr({"Hybrid": (100.0, 50000.0)}), False, [r"^0 panels; "]),
    # the authors' dat beside (mean throughput of result_throughput_cost_non_greedy.dat)
    ("thr-in-line-pass-dat", lambda df: CL.claim_throughput_in_line(df, dats=DATS_THR),
     _thr(THR_NG), True,
     [r"authors' dat \(not judged\): DS1/nongreedy/cost 100% of pairs \(mean throughput "
      r"Hybrid 35,590, LzEval 33,862, PFetch 28,077, BL2 26,122, BL3 25,489, BL1 23,793\)$"]),

    # --- claim_throughput_equal (Fig. 9: LzEval cost vs LRU "virtually equivalent")
    ("thr-equal-pass", lambda df: CL.claim_throughput_equal(df, datasets=["DS1"]),
     _cat(_thr({"LzEval": (100.0, 50000.0), "BL1": (1.0, 1.0)}),
          _thr({"LzEval": (120.0, 51000.0), "BL1": (1.0, 99999.0)}, cache="lru"),
          # greedy: another policy, left out
          _thr({"LzEval": (100.0, 1000.0)}, policy="greedy")), True,
     [r"^DS1/Q1 LzEval throughput cost 50,000 vs lru 51,000 events/s = 0\.980x "
      r"\(lat_p50 cost 100\.0 vs lru 120\.0\) \(required within 5%\)$"]),
    ("thr-equal-fail", lambda df: CL.claim_throughput_equal(df),
     _cat(_thr({"LzEval": (100.0, 50000.0)}), _thr({"LzEval": (120.0, 60000.0)}, cache="lru")),
     False, [r"= 0\.833x X"]),
    ("thr-equal-fail-no-lru", lambda df: CL.claim_throughput_equal(df),
     _thr({"LzEval": (100.0, 50000.0)}), False, [r"^ \(required within 5%\)$"]),
    ("thr-equal-pass-dat", lambda df: CL.claim_throughput_equal(df, dats=DATS_THR_EQ),
     _cat(_thr({"LzEval": (100.0, 50000.0)}), _thr({"LzEval": (120.0, 50000.0)}, cache="lru")),
     True, [r"= 1\.000x", r"authors' dat \(not judged\): LzEval mean throughput cost 33,862 "
            r"vs lru 33,838 = 1\.001x, p50 cost 111 vs lru 120$"]),

    # --- claim_pct_above (Fig. 10a: PFetch's p50 above LzEval's p75 and Hybrid's p95)
    ("pct-above-pass", lambda df: CL.claim_pct_above(
        df, x="noise", at=[0.9], above=["PFetch", "p50"],
        below=[["LzEval", "p75"], ["Hybrid", "p95"]]), _above(), True,
     [r"^noise: at 0\.9: PFetch p50 90 vs LzEval p75 60; at 0\.9: PFetch p50 90 vs Hybrid p95 "
      r"80$"]),
    ("pct-above-fail", lambda df: CL.claim_pct_above(
        df, x="noise", at=[0.5, 0.9], above=["PFetch", "p50"],
        below=[["LzEval", "p75"], ["Hybrid", "p95"]]), _above(hyb95=95.0), False,
     [r"at 0\.5: PFetch p50 50 vs LzEval p75 40; at 0\.5: PFetch p50 50 vs Hybrid p95 45; "
      r"at 0\.9: PFetch p50 90 vs LzEval p75 60; at 0\.9: PFetch p50 90 vs Hybrid p95 95 X$"]),
    ("pct-above-fail-tie", lambda df: CL.claim_pct_above(
        df, x="noise", at=[0.9], above=["PFetch", "p50"], below=[["Hybrid", "p95"]]),
     _above(hyb95=90.0), False, [r"Hybrid p95 90 X$"]),
    ("pct-above-fail-x-absent", lambda df: CL.claim_pct_above(
        df, x="noise", at=[0.7], above=["PFetch", "p50"], below=[["LzEval", "p75"]]),
     _above(), False, [r"at 0\.7: PFetch p50 nan vs LzEval p75 nan X"]),
    # the authors' sweep beside: labels 5000 = 90 % noise, Hybrid p75 3898.75, LzEval 823.5
    ("pct-above-pass-dat", lambda df: CL.claim_pct_above(
        df, x="noise", at=[0.9], above=["Hybrid", "p75"], below=[["LzEval", "p75"]],
        dats=NOISE_DATS, dat_x=NOISE_X),
     _psweep("noise", NOISE3, {"Hybrid": {"p75": [1.0, 1.0, 9.0]},
                               "LzEval": {"p75": [5.0, 5.0, 5.0]}}), True,
     [r"authors' dat \(not judged\): holds: at 0\.9: Hybrid p75 3899 vs LzEval p75 824$"]),

    # --- claim_pct_stable (Fig. 10a: LzEval's p5 / p25 / p50 stable; Fig. 11a-b)
    ("pct-stable-pass", lambda df: CL.claim_pct_stable(df, x="noise", strategy="LzEval",
                                                      stats=["p5", "p50"]),
     _psweep("noise", NOISE3, {"LzEval": {"p5": [10.0, 11.0, 12.0],
                                          "p50": [100.0, 110.0, 105.0]},
                               "PFetch": {"p5": [1.0, 50.0, 99.0], "p50": [1.0, 9.0, 99.0]}}),
     True, [r"^LzEval by noise: p5 10, 11, 12 \(max/min 1\.20\); p50 100, 110, 105 "
            r"\(max/min 1\.10\) \(stable: max/min <= 1\.2\)$"]),
    ("pct-stable-fail", lambda df: CL.claim_pct_stable(df, x="noise", strategy="LzEval",
                                                      stats=["p5", "p50"]),
     _psweep("noise", NOISE3, {"LzEval": {"p5": [10.0, 13.0, 12.0],
                                          "p50": [100.0, 110.0, 105.0]}}), False,
     [r"p5 10, 13, 12 \(max/min 1\.30 X\)"]),
    ("pct-stable-pass-within", lambda df: CL.claim_pct_stable(
        df, x="noise", strategy="LzEval", stats=["p50"], within=[0.5, 0.9]),
     _psweep("noise", NOISE3, {"LzEval": {"p50": [500.0, 100.0, 110.0]}}), True,
     [r"^LzEval by noise in \[0\.5, 0\.9\]: p50 100, 110 \(max/min 1\.10\)"]),
    ("pct-stable-fail-one-point", lambda df: CL.claim_pct_stable(
        df, x="noise", strategy="LzEval", stats=["p50"], within=[0.5]),
     _psweep("noise", NOISE3, {"LzEval": {"p50": [500.0, 100.0, 110.0]}}), False,
     [r"p50: 1 points X"]),
    # the authors' LzEval noise sweep (labels 2000-5000: p50 624, 254.5, 305, 588.5) beside
    ("pct-stable-pass-dat", lambda df: CL.claim_pct_stable(
        df, x="noise", strategy="LzEval", stats=["p50"], dats=NOISE_DATS, dat_x=NOISE_X),
     _psweep("noise", NOISE3, {"LzEval": {"p50": [100.0, 100.0, 100.0]}}), True,
     [r"authors' dat \(not judged\): fails: p50 624, 254, 305, 588 \(max/min 2\.45 X\)$"]),

    # --- claim_pct_rises (Fig. 10a: LzEval's p95 grows with noise)
    ("pct-rises-pass", lambda df: CL.claim_pct_rises(df, x="noise", strategy="LzEval",
                                                    stat="p95"),
     _psweep("noise", (0.1, 0.3, 0.5, 0.7), {"LzEval": {"p95": [10.0, 30.0, 20.0, 40.0]}}), True,
     [r"^LzEval p95 by noise: 0\.1: 10, 0\.3: 30, 0\.5: 20, 0\.7: 40; last/first 4\.00x, "
      r"Spearman \+0\.80 \(required: last > first and Spearman > 0\)$"]),
    ("pct-rises-fail-spearman", lambda df: CL.claim_pct_rises(df, x="noise", strategy="LzEval",
                                                             stat="p95"),
     _psweep("noise", (0.1, 0.3, 0.5, 0.7, 0.9),
             {"LzEval": {"p95": [30.0, 50.0, 10.0, 5.0, 31.0]}}), False,
     [r"last/first 1\.03x, Spearman -0\.20"]),
    ("pct-rises-fail-last", lambda df: CL.claim_pct_rises(df, x="noise", strategy="LzEval",
                                                         stat="p95"),
     _psweep("noise", (0.1, 0.3, 0.5, 0.7), {"LzEval": {"p95": [10.0, 20.0, 30.0, 9.0]}}),
     False, [r"last/first 0\.90x, Spearman -0\.20"]),
    ("pct-rises-fail-one-point", lambda df: CL.claim_pct_rises(df, x="noise", strategy="LzEval",
                                                              stat="p95"),
     _psweep("noise", (0.1,), {"LzEval": {"p95": [10.0]}}), False, [r"1 points"]),

    # --- claim_pct_lower_at (Fig. 11a: p75 / p95 lower at the optimum than at the first run)
    ("pct-lower-pass", lambda df: CL.claim_pct_lower_at(
        df, x="lz_block_prob", strategy="Hybrid", stats=["p75", "p95"], at=0.45, than=0.30),
     _psweep("lz_block_prob", (0.30, 0.35, 0.45),
             {"Hybrid": {"p75": [100.0, 90.0, 80.0], "p95": [200.0, 190.0, 150.0]}}), True,
     [r"^Hybrid by lz_block_prob: p75 80 at 0\.45 vs 100 at 0\.3; p95 150 at 0\.45 vs 200 at "
      r"0\.3$"]),
    ("pct-lower-fail-equal", lambda df: CL.claim_pct_lower_at(
        df, x="lz_block_prob", strategy="Hybrid", stats=["p75", "p95"], at=0.45, than=0.30),
     _psweep("lz_block_prob", (0.30, 0.35, 0.45),
             {"Hybrid": {"p75": [100.0, 90.0, 80.0], "p95": [200.0, 190.0, 200.0]}}), False,
     [r"p95 200 at 0\.45 vs 200 at 0\.3 X$"]),
    # the authors' run 4 (p75 587) against run 1 (p75 642.25) beside
    ("pct-lower-pass-dat", lambda df: CL.claim_pct_lower_at(
        df, x="lz_block_prob", strategy="Hybrid", stats=["p75"], at=0.45, than=0.30,
        dats={"Hybrid": "result_latency_weight_fetch.dat"},
        dat_x={"1": 0.30, "2": 0.35, "3": 0.40, "4": 0.45, "5": 0.50}),
     _psweep("lz_block_prob", (0.30, 0.45), {"Hybrid": {"p75": [100.0, 80.0]}}), True,
     [r"authors' dat \(not judged\): holds: p75 587 at 0\.45 vs 642 at 0\.3$"]),
]


# the Fig 13 case studies' claims, built in their own file (same tuple layout)
from eires_case_claim_cases import CASES as FIG13_CASES  # noqa: E402

CASES = CASES + FIG13_CASES


@pytest.mark.parametrize("call, df, want, patterns",
                         [pytest.param(c, d, w, p, id=i) for i, c, d, w, p in CASES])
def test_eires_claim_case(call, df, want, patterns):
    check_claim_case(call, df, want, patterns)


def test_every_eires_claim_has_both_directions():
    verdicts = verdicts_by_claim(CASES)
    claims = {n for n in dir(CL) if n.startswith("claim_")}
    assert set(verdicts) == claims
    assert all(v == {True, False} for v in verdicts.values()), verdicts


@pytest.mark.parametrize("call, df", [pytest.param(c, d, id=i) for i, c, d, w, _ in CASES if w])
def test_eires_claim_fails_on_empty_and_all_error_tables(call, df):
    """Every PASS table, emptied or with every row an error, FAILs without raising."""
    res = call(df.iloc[0:0].copy())
    assert isinstance(res, ClaimResult) and not res.passed, res.measured
    assert isinstance(res.passed, (bool, np.bool_)), res.passed
    errs = df.copy()
    errs["error"] = "boom"
    before = errs.copy()
    res = call(errs)
    assert isinstance(res, ClaimResult) and not res.passed, res.measured
    pd.testing.assert_frame_equal(errs, before)

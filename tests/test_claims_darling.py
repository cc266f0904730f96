"""DARLING claim functions (``sim/studies/darling/claims.py``) on small synthetic result tables built
to PASS and built to FAIL, both directions asserted, the numbers the verdict rests on checked in
the ``measured`` text; every claim leaves its input untouched and FAILs (without raising) on an
empty table and on a table whose every row is an error.

Tables carry only the columns the claim reads (plus ``error``): one row per (x, method[, seed]).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import sim.studies.darling.claims as S
from claim_cases import check_claim_case, verdicts_by_claim
from sim.experiments.claims import ClaimResult

BASE = ("random_pm", "espice", "hspice", "icde20")


def _dar(x: str, xs, by_method: dict, seeds=(1,)) -> pd.DataFrame:
    """``by_method``: method -> {column: scalar or list over ``xs`` (or over ``xs`` x ``seeds``
    when the list is that long)}; a row per (x, method, seed)."""
    rows = []
    for m, cols in by_method.items():
        for i, xv in enumerate(xs):
            for j, sd in enumerate(seeds):
                r = {x: xv, "method": m, "seed": sd, "error": None}
                for c, v in cols.items():
                    if isinstance(v, (list, tuple)):
                        v = v[i * len(seeds) + j] if len(v) == len(xs) * len(seeds) > len(xs) \
                            else v[i]
                    r[c] = v
                rows.append(r)
    return pd.DataFrame(rows)


def _with_error_row(df: pd.DataFrame, **bad) -> pd.DataFrame:
    """Append a copy of the first row marked as an error, with absurd values the claim must
    ignore."""
    row = df.iloc[[0]].copy()
    row["error"] = "boom"
    for k, v in bad.items():
        row[k] = v
    return pd.concat([df, row], ignore_index=True)


# ----------------------------------------------------------------------------- tables
def _lmax(lat=(0.5, 0.9), matches=(5, 5), x="window_ms", xs=(10, 100)):
    return _dar(x, xs, {"darling": {"latency_mean": list(lat), "lmax_s": 1.0,
                                    "matches_measured": list(matches)},
                        "random_pm": {"latency_mean": 50.0, "lmax_s": 1.0,
                                      "matches_measured": 5}})


def _kept(darling=(50.0, 40.0), ri=(45.0, 30.0), metric="kept_pct", xs=(10, 100),
          base=None, x="window_ms"):
    base = base or {"random_pm": (48.0, 10.0), "espice": (30.0, 20.0), "hspice": (20.0, 5.0),
                    "icde20": (10.0, 15.0)}
    by = {"darling": {metric: list(darling)}}
    by.update({b: {metric: list(v)} for b, v in base.items()})
    if ri is not None:
        by["random_input"] = {metric: list(ri)}
    return _dar(x, xs, by)


def _lowest(darling=(1.0, 2.0), rpm=(3.0, 10.0), rpm_matches=(5, 5), x="window_ms"):
    return _dar(x, (10, 100), {
        "darling": {"latency_mean": list(darling), "matches_measured": 5},
        "random_pm": {"latency_mean": list(rpm), "matches_measured": list(rpm_matches)},
        "espice": {"latency_mean": [5.0, 20.0], "matches_measured": 5},
        "hspice": {"latency_mean": [4.0, 30.0], "matches_measured": 5},
        "icde20": {"latency_mean": [2.0, 15.0], "matches_measured": 5}})


def _aux(aux=5, peak=10_000):
    return _dar("window_ms", (10, 100), {
        "darling": {"aux_memory_bytes": aux, "peak_memory_bytes": peak},
        "icde20": {"aux_memory_bytes": 9_000, "peak_memory_bytes": 10_000}})


def _overload(kept=(60.0, 55.0, 52.0), espice=(1.0, 2.0, 4.0), base_kept=(60.0, 40.0, 20.0)):
    xs = (0.1, 0.5, 0.9)
    by = {"darling": {"kept_pct": list(kept), "latency_mean": 0.5, "matches_measured": 5}}
    for b, lat in zip(BASE, ([1.0, 1.5, 3.0], list(espice), [2.0, 2.0, 2.2], [1.0, 9.0, 10.0])):
        by[b] = {"kept_pct": list(base_kept), "latency_mean": lat, "matches_measured": 5}
    return _dar("overload", xs, by)


def _nodrop(darling=(1.02, 2.0), shed=0, espice_top=30.0, skip=0, pm=0, kept=5):
    common = {"matches_measured": 5, "m0": 5, "matches_over_cap": 0}
    return _dar("window_ms", (10, 100), {
        "none": dict(common, latency_mean=[1.0, 2.0], shed_events=0, kept=5),
        "darling": dict(common, latency_mean=list(darling), shed_events=shed, kept=5),
        "espice": dict(common, latency_mean=[5.0, espice_top], shed_events=0,
                       shedder_shedding_events=skip, kept=kept),
        "hspice": dict(common, latency_mean=[6.0, 25.0], shed_events=0,
                       pm_removed_by_shedder=pm, kept=5)})


def _seeds(kept=(50.0, 54.0, 50.0, 54.0), lat=(1.0, 1.1, 1.0, 1.1), seeds=(1, 2)):
    return _dar("window_ms", (10, 100), {
        "darling": {"kept_pct": list(kept), "latency_mean": list(lat)},
        "random_pm": {"kept_pct": [0.0, 100.0, 0.0, 100.0], "latency_mean": [1.0, 9.0, 1.0, 9.0]}},
        seeds=seeds)


def _peaks(kept=(50.0, 54.0), lat=(1.0, 1.1)):
    return _dar("n_peaks", (1, 4), {
        "darling": {"kept_pct": list(kept), "latency_mean": list(lat)},
        "random_pm": {"kept_pct": [0.0, 100.0], "latency_mean": [1.0, 9.0]}}).assign(
            window_ms=50)


def _vs_ri(darling=(50.0, 40.0), ri=(50.0, 41.0)):
    return _dar("window_ms", (10, 100), {"darling": {"kept_pct": list(darling)},
                                         "random_input": {"kept_pct": list(ri)}})


def _mem(darling=(900, 5000)):
    return _dar("window_ms", (10, 100), {
        "darling": {"peak_memory_bytes": list(darling)},
        "random_input": {"peak_memory_bytes": [10_000, 10_000]},   # not a baseline: ignored
        "random_pm": {"peak_memory_bytes": [500, 4000]},
        "espice": {"peak_memory_bytes": [800, 1000]},
        "hspice": {"peak_memory_bytes": [100, 200]},
        "icde20": {"peak_memory_bytes": [600, 4500]}})


# ----------------------------------------------------------------------------- cases
# (id, call, table, expected verdict, regexes that must occur in `measured`)
CASES = [
    # --- claim_latency_le_lmax
    ("lmax-pass", lambda df: S.claim_latency_le_lmax(df, x="window_ms"), _lmax(), True,
     [r"^DARLING latency / Lmax per window_ms: 10: 0\.5, 100: 0\.9 \(paper: <= 1 everywhere\)$"]),
    ("lmax-pass-error-row-ignored", lambda df: S.claim_latency_le_lmax(df),
     _with_error_row(_lmax(), latency_mean=99.0), True, [r"10: 0\.5, 100: 0\.9"]),
    ("lmax-pass-length", lambda df: S.claim_latency_le_lmax(df, x="length"),
     _lmax(lat=(1.0, 0.2), x="length", xs=(2, 8)), True, [r"per length: 2: 1, 8: 0\.2"]),
    ("lmax-fail", lambda df: S.claim_latency_le_lmax(df, x="window_ms"), _lmax(lat=(0.5, 1.2)),
     False, [r"100: 1\.2 "]),
    ("lmax-fail-no-matches-is-nan", lambda df: S.claim_latency_le_lmax(df),
     _lmax(lat=(0.0, 0.5), matches=(0, 5)), False, [r"10: nan, 100: 0\.5"]),

    # --- claim_kept_ge_baselines
    ("kept-pass", lambda df: S.claim_kept_ge_baselines(df, x="window_ms", paper="up to 10x"),
     _kept(), True,
     [r"^kept_pct DARLING vs best baseline per window_ms: 10: 50\.0% vs 48\.0% \(random_pm\), "
      r"100: 40\.0% vs 20\.0% \(espice\); ratio at largest window_ms 2\.00 \(need >= 2\.0; "
      r"paper up to 10x\); random input: 45\.0%, 30\.0%$"]),
    ("kept-pass-error-row-ignored", lambda df: S.claim_kept_ge_baselines(df),
     _with_error_row(_kept(), method="espice", kept_pct=99.0), True, [r"10: 50\.0% vs 48\.0%"]),
    ("kept-fail-every", lambda df: S.claim_kept_ge_baselines(df, tol=0.05),
     _kept(darling=(45.0, 40.0)), False, [r"10: 45\.0% vs 48\.0% \(random_pm\)",
                                          r"ratio at largest window_ms 2\.00"]),
    ("kept-fail-top", lambda df: S.claim_kept_ge_baselines(df, factor_at_max=2.0),
     _kept(darling=(50.0, 39.0)), False, [r"ratio at largest window_ms 1\.95 \(need >= 2\.0"]),
    ("kept-pass-baselines-zero-at-top", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 5.0), base={"random_pm": (48.0, 0.0), "espice": (1.0, 0.0)}), True,
     [r"100: 5\.0% vs 0\.0%", r"ratio at largest window_ms nan"]),
    ("kept-fail-darling-nan-at-top", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, np.nan)), False, [r"100: nan% vs 20\.0%"]),
    ("kept-within-lmax-pass",
     lambda df: S.claim_kept_ge_baselines(df, x="overload", factor_at_max=1.0,
                                          metric="kept_within_lmax_pct", paper="n/a"),
     _kept(darling=(50.0, 20.0), ri=None, metric="kept_within_lmax_pct", xs=(0.1, 0.9),
           x="overload"), True,
     [r"^kept_within_lmax_pct DARLING vs best baseline per overload: 0\.1: 50\.0%",
      r"ratio at largest overload 1\.00 \(need >= 1\.0; paper n/a\)$"]),
    ("kept-within-lmax-fail",
     lambda df: S.claim_kept_ge_baselines(df, factor_at_max=1.0, metric="kept_within_lmax_pct"),
     _kept(darling=(50.0, 18.0), ri=None, metric="kept_within_lmax_pct"), False,
     [r"100: 18\.0% vs 20\.0% \(espice\)", r"ratio at largest window_ms 0\.90"]),

    # --- claim_latency_lowest
    ("lowest-pass", lambda df: S.claim_latency_lowest(df, x="window_ms", paper="87x"),
     _lowest(), True,
     [r"^lowest baseline latency / DARLING per window_ms: 10: 2\.00x \(icde20\), 100: 5\.00x "
      r"\(random_pm\) \(need all >= 1 and >= 5\.0 at the largest; paper 87x\)$"]),
    ("lowest-pass-no-match-baseline-ignored", lambda df: S.claim_latency_lowest(df),
     _lowest(rpm=(0.0, 10.0), rpm_matches=(0, 5)), True, [r"10: 2\.00x \(icde20\)"]),
    ("lowest-fail-every", lambda df: S.claim_latency_lowest(df), _lowest(darling=(2.5, 2.0)),
     False, [r"10: 0\.80x \(icde20\)", r"100: 5\.00x"]),
    ("lowest-fail-top", lambda df: S.claim_latency_lowest(df, factor_at_max=5.0),
     _lowest(darling=(1.0, 2.5)), False, [r"100: 4\.00x \(random_pm\)"]),

    # --- claim_aux_memory
    ("aux-pass", lambda df: S.claim_aux_memory(df, x="length"), _aux(), True,
     [r"^aux / peak memory \(lazy expiry, the artifact's storage\): mean 0\.050 % over 2 "
      r"settings, max 0\.050 % \(limit 0\.1 % on the mean; paper 0\.03 % on average over three "
      r"data sets\); per setting: one setting$"]),
    ("aux-pass-on-average-names-the-point-above", lambda df: S.claim_aux_memory(df),
     _aux(aux=[5, 15]), True,
     [r"mean 0\.100 % over 2 settings, max 0\.150 %",
      r"per setting: window_ms=10: 0\.050 %, window_ms=100: 0\.150 %$"]),
    ("aux-pass-error-row-ignored", lambda df: S.claim_aux_memory(df),
     _with_error_row(_aux(), aux_memory_bytes=10_000), True, [r"max 0\.050 %"]),
    ("aux-fail", lambda df: S.claim_aux_memory(df, limit_pct=0.1), _aux(aux=20), False,
     [r"mean 0\.200 % over 2 settings, max 0\.200 %"]),

    # --- claim_memory_higher (hand ratios: 900 / 800 = 1.125 (eSPICE), 5000 / 4500 = 1.11)
    ("mem-pass", lambda df: S.claim_memory_higher(df, x="window_ms"), _mem(), True,
     [r"^peak_memory_bytes DARLING / highest baseline per window_ms: 10: 1\.12x \(espice\), "
      r"100: 1\.11x \(icde20\); DARLING above 8 of 8 "]),
    ("mem-pass-error-row-ignored", lambda df: S.claim_memory_higher(df),
     _with_error_row(_mem(), method="espice", peak_memory_bytes=10**9), True,
     [r"10: 1\.12x \(espice\)"]),
    ("mem-fail-equal-is-not-higher", lambda df: S.claim_memory_higher(df), _mem(darling=(800, 5000)),
     False, [r"10: 1\.00x \(espice\)", r"above 7 of 8"]),
    ("mem-fail-one-point", lambda df: S.claim_memory_higher(df), _mem(darling=(900, 4400)),
     False, [r"100: 0\.98x \(icde20\)", r"above 7 of 8"]),

    # --- claim_overload_flat
    ("flat-pass", lambda df: S.claim_overload_flat(df, x="overload"), _overload(), True,
     # hand least squares over x = 0.1 / 0.5 / 0.9: (60, 55, 52) -> -10.0, (60, 40, 20) -> -50.0
     [r"^slope of % kept per unit overload \(least squares\): DARLING -10\.0 \(60\.0 -> 52\.0 %\); "
      r"espice -50\.0, hspice -50\.0, icde20 -50\.0, random_pm -50\.0"]),
    ("flat-fail-steeper", lambda df: S.claim_overload_flat(df),
     _overload(kept=(60.0, 40.0, 10.0)), False, [r"DARLING -62\.5"]),
    ("flat-fail-baseline-flatter", lambda df: S.claim_overload_flat(df),
     _overload(base_kept=(30.0, 30.0, 30.0)), False, [r"random_pm 0\.0"]),

    # --- claim_nodrop_overhead
    ("nodrop-pass",
     lambda df: S.claim_nodrop_overhead(df, x="window_ms", factor=1.05, spice_factor=10.0),
     _nodrop(), True,
     [r"^DARLING / no-shedder latency: 10: 1\.020, 100: 1\.000; min\(eSPICE, hSPICE\) / DARLING "
      r"at the largest window_ms: 12\.5x \(need >= 10\.0",
      r"must all be 0\): darling 0, espice 0, hspice 0, none 0$"]),
    ("nodrop-fail-overhead", lambda df: S.claim_nodrop_overhead(df), _nodrop(darling=(1.1, 2.0)),
     False, [r"10: 1\.100"]),
    ("nodrop-fail-shed", lambda df: S.claim_nodrop_overhead(df), _nodrop(shed=3), False,
     [r"darling 6, espice 0"]),
    ("nodrop-fail-spice-skips", lambda df: S.claim_nodrop_overhead(df), _nodrop(skip=4), False,
     [r"espice 8, hspice 0"]),
    ("nodrop-fail-pm-removed", lambda df: S.claim_nodrop_overhead(df), _nodrop(pm=1), False,
     [r"hspice 2, none 0"]),
    # eSPICE missed 2 matches per row (m0 5, kept 3, none over the cap): 2 rows -> 4
    ("nodrop-fail-missed-matches", lambda df: S.claim_nodrop_overhead(df), _nodrop(kept=3),
     False, [r"espice 4, hspice 0"]),
    ("nodrop-fail-spice", lambda df: S.claim_nodrop_overhead(df, spice_factor=10.0),
     _nodrop(espice_top=18.0), False, [r"largest window_ms: 9\.0x"]),

    # --- claim_seed_spread
    ("seeds-pass", lambda df: S.claim_seed_spread(df, x="window_ms", kept_pct=6.0, lat_pct=12.0),
     _seeds(), True, [r"^std of kept \(points\): max 2\.83 \(limit 6\.0\); relative std of "
                      r"latency: max 6\.7 % \(limit 12\.0\); 2 seeds$"]),
    ("seeds-fail-kept", lambda df: S.claim_seed_spread(df), _seeds(kept=(50, 54, 50, 60)), False,
     [r"max 7\.07 \(limit 6\.0\)"]),
    ("seeds-fail-latency", lambda df: S.claim_seed_spread(df),
     _seeds(lat=(1.0, 1.1, 1.0, 1.5)), False, [r"latency: max 28\.3 %"]),
    ("seeds-fail-one-seed", lambda df: S.claim_seed_spread(df),
     _seeds(kept=(50, 50), lat=(1, 1), seeds=(1,)), False, [r"^needs >= 2 seeds per point$"]),

    # --- claim_peaks_effect: across n_peaks 1 and 4 at W = 50, DARLING kept 50 / 54 (std 2.83),
    # latency 1.0 / 1.1 (rel. std 6.7 %); random PM's spread is printed, never judged
    ("peaks-pass", lambda df: S.claim_peaks_effect(df), _peaks(), True,
     [r"^DARLING across n_peaks: window_ms=50: kept std 2\.83 points, latency rel\. std 6\.7 % "
      r"\(kept 1: 50\.0, 4: 54\.0\) \(limits: 6 points, 12 %\); others: random_pm window_ms=50: "
      r"kept std 70\.71 points"]),
    ("peaks-fail-kept", lambda df: S.claim_peaks_effect(df), _peaks(kept=(50.0, 60.0)), False,
     [r"kept std 7\.07 points"]),
    ("peaks-fail-latency", lambda df: S.claim_peaks_effect(df), _peaks(lat=(1.0, 1.5)), False,
     [r"latency rel\. std 28\.3 %"]),
    ("peaks-fail-one-count", lambda df: S.claim_peaks_effect(df),
     _peaks().query("n_peaks == 4"), False, [r"^needs rows at >= 2 values of n_peaks$"]),

    # --- claim_darling_vs_random_input
    ("vs-ri-pass", lambda df: S.claim_darling_vs_random_input(df, x="window_ms", tol=0.05),
     _vs_ri(), True,
     [r"^DARLING / random input kept ratio per window_ms: 10: 1\.00, 100: 0\.98 "
      r"\(need >= 0\.95\)$"]),
    ("vs-ri-pass-random-input-zero", lambda df: S.claim_darling_vs_random_input(df),
     _vs_ri(darling=(50.0, 3.0), ri=(50.0, 0.0)), True, [r"100: nan"]),
    ("vs-ri-fail", lambda df: S.claim_darling_vs_random_input(df), _vs_ri(ri=(50.0, 44.0)), False,
     [r"100: 0\.91"]),
    ("vs-ri-fail-not-run", lambda df: S.claim_darling_vs_random_input(df),
     _kept(ri=None), False, [r"^random_input not run$"]),

    # --- cases added after the mutation run on this module (docs/TESTING.md): defaults, exact
    # boundaries, three-point tables (the last point is not the second), no `error` column
    ("lmax-pass-no-error-column", lambda df: S.claim_latency_le_lmax(df),
     _lmax().drop(columns="error"), True, [r"10: 0\.5, 100: 0\.9"]),
    ("lmax-pass-lmax-2", lambda df: S.claim_latency_le_lmax(df),
     _lmax(lat=(1.0, 1.8)).assign(lmax_s=2.0), True, [r"10: 0\.5, 100: 0\.9 "]),
    ("lmax-fail-lmax-half", lambda df: S.claim_latency_le_lmax(df),
     _lmax(lat=(0.4, 0.6)).assign(lmax_s=0.5), False, [r"10: 0\.8, 100: 1\.2 "]),
    ("kept-fail-default-tol", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(40.0, 40.0)), False, [r"10: 40\.0% vs 48\.0% \(random_pm\)",
                                          r"\(need >= 2\.0; paper \)"]),
    ("kept-pass-exact-tolerance", lambda df: S.claim_kept_ge_baselines(df, tol=0.5),
     _kept(darling=(24.0, 40.0)), True, [r"10: 24\.0% vs 48\.0%"]),
    ("kept-fail-unmatched-baseline-still-counts", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(45.0, 40.0)).assign(matches_measured=0), False,
     [r"10: 45\.0% vs 48\.0% \(random_pm\)"]),
    ("kept-fail-three-points-top", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 40.0, 30.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 10.0, 20.0), "espice": (1.0, 1.0, 1.0)}), False,
     [r"ratio at largest window_ms 1\.50"]),
    ("kept-pass-three-points-top", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 20.0, 40.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 19.0, 20.0), "espice": (1.0, 1.0, 1.0)}), True,
     [r"ratio at largest window_ms 2\.00"]),
    ("kept-pass-baselines-zero-at-top-only", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 40.0, 0.5), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 30.0, 0.0), "espice": (1.0, 1.0, 0.0)}), True,
     [r"100: 0\.5% vs 0\.0%"]),
    ("kept-pass-zero-in-the-middle", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 0.0, 5.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 0.0, 0.0), "espice": (1.0, 0.0, 0.0)}), True,
     [r"50: 0\.0% vs 0\.0%", r"100: 5\.0% vs 0\.0%"]),
    ("kept-fail-all-zero-at-top", lambda df: S.claim_kept_ge_baselines(df),
     _kept(darling=(50.0, 0.0), ri=None, base={"random_pm": (48.0, 0.0), "espice": (1.0, 0.0)}),
     False, [r"100: 0\.0% vs 0\.0%", r"ratio at largest window_ms nan"]),
    ("lowest-pass-tie-default-paper", lambda df: S.claim_latency_lowest(df),
     _lowest(darling=(2.0, 2.0)), True,
     [r"10: 1\.00x \(icde20\)", r"at the largest; paper \)$"]),
    ("lowest-fail-three-points-top", lambda df: S.claim_latency_lowest(df),
     _dar("window_ms", (10, 50, 100), {
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "matches_measured": 5},
         "random_pm": {"latency_mean": [3.0, 6.0, 4.0], "matches_measured": 5}}), False,
     [r"50: 6\.00x \(random_pm\), 100: 2\.00x"]),
    ("aux-pass-one-row-at-limit", lambda df: S.claim_aux_memory(df, limit_pct=0.1),
     _aux(aux=10).iloc[[0, 2, 3]], True, [r"mean 0\.100 % over 1 settings, max 0\.100 %"]),
    # a tie in |slope| passes: (60, 40, 20) -> -50.0 for DARLING and every baseline
    ("flat-pass-tie", lambda df: S.claim_overload_flat(df),
     _overload(kept=(60.0, 40.0, 20.0)), True, [r"DARLING -50\.0 \(60\.0 -> 20\.0 %\)"]),
    # a rising share counts by its magnitude: (52, 55, 60) -> +10.0, still the smallest
    ("flat-pass-rising", lambda df: S.claim_overload_flat(df),
     _overload(kept=(52.0, 55.0, 60.0)), True, [r"DARLING 10\.0 "]),
    ("flat-fail-one-point", lambda df: S.claim_overload_flat(df),
     _overload().query("overload == 0.1"), False, [r"needs >= 2 values of overload"]),
    ("nodrop-pass-exact-limits", lambda df: S.claim_nodrop_overhead(df),
     _nodrop(darling=(1.05, 2.0), espice_top=20.0), True,
     [r"10: 1\.050", r"largest window_ms: 10\.0x \(need >= 10\.0"]),
    ("nodrop-pass-default-factor", lambda df: S.claim_nodrop_overhead(df),
     _nodrop(espice_top=21.0), True, [r"largest window_ms: 10\.5x"]),
    ("nodrop-fail-three-points-top", lambda df: S.claim_nodrop_overhead(df),
     _dar("window_ms", (10, 50, 100), {
         "none": {"latency_mean": [1.0, 1.0, 2.0], "shed_events": 0},
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "shed_events": 0},
         "espice": {"latency_mean": [5.0, 50.0, 10.0], "shed_events": 0},
         "hspice": {"latency_mean": [5.0, 60.0, 12.0], "shed_events": 0}}), False,
     [r"largest window_ms: 5\.0x"]),
    ("nodrop-pass-three-points-top", lambda df: S.claim_nodrop_overhead(df),
     _dar("window_ms", (10, 50, 100), {
         "none": {"latency_mean": [1.0, 10.0, 2.0], "shed_events": 0},
         "darling": {"latency_mean": [1.0, 10.0, 2.0], "shed_events": 0},
         "espice": {"latency_mean": [5.0, 5.0, 40.0], "shed_events": 0},
         "hspice": {"latency_mean": [5.0, 5.0, 50.0], "shed_events": 0}}), True,
     [r"largest window_ms: 20\.0x"]),
    ("seeds-pass-exact-limits", lambda df: S.claim_seed_spread(df, kept_pct=2.0, lat_pct=10.0),
     _seeds(kept=(50, 52, 54, 50, 52, 54), lat=(9, 10, 11, 9, 10, 11), seeds=(1, 2, 3)).query(
         "method == 'darling'"), True, [r"max 2\.00 \(limit 2\.0\)", r"max 10\.0 % \(limit 10"]),
    ("seeds-fail-default-latency", lambda df: S.claim_seed_spread(df),
     _seeds(kept=(50, 52, 54, 50, 52, 54), lat=(7, 8, 9, 7, 8, 9), seeds=(1, 2, 3)).query(
         "method == 'darling'"), False, [r"latency: max 12\.5 % \(limit 12\.0\); 3 seeds"]),
    ("vs-ri-pass-exact-tolerance", lambda df: S.claim_darling_vs_random_input(df, tol=0.5),
     _vs_ri(darling=(20.0, 40.0), ri=(40.0, 40.0)), True, [r"10: 0\.50, 100: 1\.00"]),

    # --- the stock panels: "by up to a factor of" (at="max"), "for patterns of length 7"
    # (at_value); hand ratios over x = 10 / 50 / 100: DARLING (50, 45, 30) vs best baseline
    # (48, 20, 25) -> 1.04, 2.25, 1.20
    ("kept-pass-at-max", lambda df: S.claim_kept_ge_baselines(df, at="max"),
     _kept(darling=(50.0, 45.0, 30.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 20.0, 25.0), "espice": (1.0, 1.0, 1.0)}), True,
     [r"ratio at the largest ratio \(window_ms = 50\) 2\.25 \(need >= 2\.0"]),
    ("kept-fail-at-max", lambda df: S.claim_kept_ge_baselines(df, at="max", factor_at_max=2.5),
     _kept(darling=(50.0, 45.0, 30.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 20.0, 25.0), "espice": (1.0, 1.0, 1.0)}), False,
     [r"ratio at the largest ratio \(window_ms = 50\) 2\.25 \(need >= 2\.5"]),
    ("kept-pass-at-value", lambda df: S.claim_kept_ge_baselines(df, at_value=50),
     _kept(darling=(50.0, 45.0, 30.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 20.0, 25.0), "espice": (1.0, 1.0, 1.0)}), True,
     [r"ratio at window_ms = 50 2\.25"]),
    ("kept-fail-at-value", lambda df: S.claim_kept_ge_baselines(df, at_value=100),
     _kept(darling=(50.0, 45.0, 30.0), ri=None, xs=(10, 50, 100),
           base={"random_pm": (48.0, 20.0, 25.0), "espice": (1.0, 1.0, 1.0)}), False,
     [r"ratio at window_ms = 100 1\.20"]),
    # latency ratios (lowest baseline / DARLING): 3 / 1, 6 / 1, 4 / 2 -> 3, 6, 2
    ("lowest-pass-at-max", lambda df: S.claim_latency_lowest(df, at="max", factor_at_max=5.0),
     _dar("window_ms", (10, 50, 100), {
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "matches_measured": 5},
         "random_pm": {"latency_mean": [3.0, 6.0, 4.0], "matches_measured": 5}}), True,
     [r"50: 6\.00x \(random_pm\)", r"at the largest ratio \(window_ms = 50\); paper \)$"]),
    ("lowest-fail-at-max", lambda df: S.claim_latency_lowest(df, at="max", factor_at_max=7.0),
     _dar("window_ms", (10, 50, 100), {
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "matches_measured": 5},
         "random_pm": {"latency_mean": [3.0, 6.0, 4.0], "matches_measured": 5}}), False,
     [r"need all >= 1 and >= 7\.0 at the largest ratio \(window_ms = 50\)"]),
    ("lowest-pass-at-value", lambda df: S.claim_latency_lowest(df, at_value=10, factor_at_max=3.0),
     _dar("window_ms", (10, 50, 100), {
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "matches_measured": 5},
         "random_pm": {"latency_mean": [3.0, 6.0, 4.0], "matches_measured": 5}}), True,
     [r"at the window_ms = 10;"]),
    ("lowest-fail-at-value", lambda df: S.claim_latency_lowest(df, at_value=100, factor_at_max=3.0),
     _dar("window_ms", (10, 50, 100), {
         "darling": {"latency_mean": [1.0, 1.0, 2.0], "matches_measured": 5},
         "random_pm": {"latency_mean": [3.0, 6.0, 4.0], "matches_measured": 5}}), False,
     [r"100: 2\.00x", r"at the window_ms = 100;"]),

    # --- claim_memory_lower_most (lowest baseline: hSPICE, 100 at x = 10 and 200 at x = 100)
    ("mem-lower-pass", lambda df: S.claim_memory_lower_most(df, x="window_ms"),
     _mem(darling=(50, 150)), True,
     [r"^peak_memory_bytes DARLING / lowest baseline per window_ms: 10: 0\.50x \(hspice\), "
      r"100: 0\.75x \(hspice\); DARLING below every baseline at 2 of 2 points \(100 %, need "
      r"> 50 %\), below 8 of 8 \(point, baseline\) pairs$"]),
    ("mem-lower-fail-half-is-not-most", lambda df: S.claim_memory_lower_most(df),
     _mem(darling=(50, 300)), False,
     [r"100: 1\.50x \(hspice\)", r"at 1 of 2 points \(50 %", r"below 7 of 8"]),
    ("mem-lower-fail-equal-is-not-lower", lambda df: S.claim_memory_lower_most(df),
     _mem(darling=(100, 200)), False, [r"at 0 of 2 points", r"below 6 of 8"]),

    # --- claim_kept_rises_after (the bus length panel): DARLING at lengths 6, 7 vs length 5
    ("rises-pass", lambda df: S.claim_kept_rises_after(df),
     _dar("length", (4, 5, 6, 7), {"darling": {"kept_pct": [30.0, 10.0, 12.0, 40.0]},
                                   "random_pm": {"kept_pct": 1.0}}), True,
     [r"^DARLING kept_pct per length: 4: 30\.0, 5: 10\.0, 6: 12\.0, 7: 40\.0; need every "
      r"length > 5 above 10\.0 \(at length = 5\)$"]),
    ("rises-fail-one-later-length-equal", lambda df: S.claim_kept_rises_after(df),
     _dar("length", (4, 5, 6, 7), {"darling": {"kept_pct": [30.0, 10.0, 10.0, 40.0]},
                                   "random_pm": {"kept_pct": 1.0}}), False,
     [r"6: 10\.0, 7: 40\.0; need every length > 5 above 10\.0"]),
    ("rises-fail-no-length-after", lambda df: S.claim_kept_rises_after(df),
     _dar("length", (4, 5), {"darling": {"kept_pct": [30.0, 10.0]},
                             "random_pm": {"kept_pct": 1.0}}), False,
     [r"needs length = 5 and a larger length$"]),
]


@pytest.mark.parametrize("call, df, want, patterns",
                         [pytest.param(c, d, w, p, id=i) for i, c, d, w, p in CASES])
def test_darling_claim_case(call, df, want, patterns):
    check_claim_case(call, df, want, patterns)


def test_every_darling_claim_has_both_directions():
    verdicts = verdicts_by_claim(CASES)
    claims = {n for n in dir(S) if n.startswith("claim_")}
    assert set(verdicts) == claims
    assert all(v == {True, False} for v in verdicts.values()), verdicts


@pytest.mark.parametrize("call, df", [pytest.param(c, d, id=i) for i, c, d, w, _ in CASES if w])
def test_darling_claim_fails_on_empty_and_all_error_tables(call, df):
    """Every PASS table, emptied or with every row an error, FAILs without raising."""
    empty = df.iloc[0:0].copy()
    res = call(empty)
    assert isinstance(res, ClaimResult) and res.passed is False, res.measured
    name = next(n for n in call.__code__.co_names if n.startswith("claim_"))
    if name not in ("claim_aux_memory", "claim_seed_spread"):    # the ones without _no_darling
        assert res.measured == "no valid DARLING rows", res.measured
    errs = df.copy()
    errs["error"] = "boom"
    before = errs.copy()
    res = call(errs)
    assert isinstance(res, ClaimResult) and not res.passed, res.measured
    pd.testing.assert_frame_equal(errs, before)


def test_claims_are_reported_per_peak_factor():
    """With several peak loads in the table a claim is evaluated per factor, prints each verdict
    and passes only where it holds at every factor (no factor is chosen)."""
    import pandas as pd
    good = _kept()
    bad = _kept(darling=(10.0, 11.0))
    df = pd.concat([good.assign(peak_factor=3.0), bad.assign(peak_factor=500.0)],
                   ignore_index=True)
    r = S.claim_kept_ge_baselines(df)
    assert not r.passed
    assert r.measured.startswith("holds at 1/2 peak factors (lambda_peak/mu); [peak 3: PASS] ")
    assert "[peak 500: FAIL] " in r.measured
    r2 = S.claim_kept_ge_baselines(pd.concat([good.assign(peak_factor=3.0),
                                              good.assign(peak_factor=500.0)],
                                             ignore_index=True))
    assert r2.passed and r2.measured.startswith("holds at 2/2 peak factors")


def test_kept_claim_says_when_the_stream_is_too_short_for_the_cap():
    df = _kept().assign(latency_cap_s=100.0, latency_cap_lmax=1200.0, latency_max=2.0,
                        matches_over_cap=0, events_total=10000)
    r = S.claim_kept_ge_baselines(df)
    assert r.measured.endswith("; cap: no baseline match reached the cap of 1200 x Lmax "
                               "(slowest kept match 0.02 x cap): on 10000 events the stream is "
                               "too short for the cap to cut")
    cut = df.assign(matches_over_cap=3, latency_max=99.0)     # 8 baseline rows x 3
    assert S.claim_kept_ge_baselines(cut).measured.endswith(
        "; cap: 24 baseline matches over the cap cut (slowest kept 0.99 x cap)")

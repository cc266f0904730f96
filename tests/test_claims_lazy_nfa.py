"""Every claim function of the DEBS'15 lazy-NFA configs (experiments/lazy_nfa/*.toml) on small
synthetic result tables built to PASS and built to FAIL: both verdicts asserted, the numbers of
the ``measured`` text checked, the input table left unchanged, and an empty table or a table
whose every row carries ``error`` FAILs with "no successful rows"
(``sim/studies/lazy_nfa/claims.py _successful``).

Each table holds exactly the columns the claim reads (plus ``error``, which every result table
has).  ``CASES`` rows: (id, call, table, expected verdict, regexes that must occur in
``measured``); the calls name the claim functions, which ``test_every_configured_claim_has_cases``
in test_claims.py looks for.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import sim.studies.lazy_nfa.claims as C
from claim_cases import check_claim_case
from sim.experiments.claims import ClaimResult
from workloads.debs15 import REGIME_T

CHAINS = ("abc", "acb", "bac", "bca", "cab", "cba")


def _t(rows):
    """A result table of ``rows`` (dicts) with the ``error`` column of a successful run."""
    return pd.DataFrame([{**r, "error": r.get("error")} for r in rows])


def _nfa(m="evals", other=1000, **vals):
    """``{m}_k`` for eager, the six chains and the tree (``other`` where not given)."""
    return {f"{m}_{k}": vals.get(k, other) for k in ("eager",) + CHAINS + ("tree",)}


def _tvb(fc, tree, routing, regime="paper_regime", data="synthetic", seq="a,b,c", **vals):
    """claim_tree_vs_best_chain row: evals of every NFA, routing checks, and the pass rates /
    buffer counter its failure explanation reads."""
    return {"regime": regime, "data": data, "sequence": seq, "f_c": fc, "routing_tree": routing,
            "evals_route_tree": tree + routing,
            "sel_ab": 0.5, "sel_bc": 0.25, "w_b": 10.0, **_nfa(tree=tree, **vals)}


def _phase_row(m, series, regime="paper_regime", n_stream=250, period=100):
    r = {"regime": regime, "n_stream_events": n_stream, "period_events": period,
         "phases": json.dumps(["cab", "abc", "bca", "acb", "bac", "cba"])}
    for k in ("eager",) + CHAINS + ("tree",):
        r[f"{m}_phase_{k}"] = json.dumps(series.get(k, [5000, 5000, 5000]))
    return r


# ----------------------------------------------------------------------------- tables
AGREE_OK = _t([{"matches_agree": True, "matches": 4}, {"matches_agree": True, "matches": 2}])
AGREE_BAD = _t([{"matches_agree": True, "matches": 4}, {"matches_agree": False, "matches": 2}])
AGREE_ERR_ROW = _t([{"matches_agree": True, "matches": 4},
                    {"matches_agree": np.nan, "matches": np.nan, "error": "boom"}])

TVB_OK = _t([_tvb(0.1, 105, 5, cab=100),
             _tvb(0.1, 500, 5, regime="selective", cab=100),          # other regime: ignored
             _tvb(0.1, 500, 5, data="nasdaq", cab=100)])             # other data: ignored
TVB_BAD = _t([_tvb(0.1, 105, 5, cab=100), _tvb(1.0, 120, 20, bac=100, cab=200, cba=400)])
TVB_OPS = _t([{**_tvb(0.1, 105, 5, cab=100),
               **_nfa("ops", tree=300, cab=200)}])
TVB_SEQS = _t([_tvb(0.1, 105, 5, cab=100), _tvb(0.1, 300, 5, seq="c,b,a", cba=200)])

CFE_OK = _t([{"regime": "paper_regime", "data": "synthetic", "sequence": "a,b,c", "f_c": 0.01,
              "n_c_events": 50, "evals_eager": 20000, "evals_cab": 100, "evals_cba": 200},
             {"regime": "paper_regime", "data": "synthetic", "sequence": "a,b,c", "f_c": 1.0,
              "n_c_events": 5000, "evals_eager": 10000, "evals_cab": 5000, "evals_cba": 4000}])
CFE_BAD = CFE_OK.assign(evals_cab=[1000, 5000], evals_cba=[2000, 4000])

CONV_OK = _t([_tvb(0.01, 50, 0, eager=10000, cab=100, cba=200),
              _tvb(1.0, 50, 0, eager=110, cab=100, cba=200)])
CONV_BAD = _t([_tvb(1.0, 50, 0, eager=200, cab=100, cba=200)])
CONV_OPS_LOW = _t([{**_tvb(1.0, 50, 0, eager=110, cab=100, cba=200),
                    **_nfa("ops", eager=70, cab=100)}])

OBS = dict(eager=1000, abc=1000, bac=800, acb=2000, bca=500, cab=50, cba=100)
OBS_OK = _t([{"regime": "selective", "data": "synthetic", "sequence": "a,b,c", "f_c": 0.01,
              **_nfa("ops", **OBS)},
             {"regime": "selective", "data": "synthetic", "sequence": "a,b,c", "f_c": 1.0,
              **_nfa("ops", other=1)}])                         # only the smallest f_c counts
OBS_BAD_FAR = _t([{"f_c": 0.01, **_nfa("ops", **{**OBS, "cba": 200})}])
OBS_BAD_NEAR = _t([{"f_c": 0.01, **_nfa("ops", **{**OBS, "abc": 4000})}])

CLOSE_OK = _t([{"sequence": "c,b,a", "f_c": 0.1, **_nfa(eager=150, cba=100)},
               {"sequence": "c,b,a", "f_c": 1.0, **_nfa(eager=100, cab=100)},
               {"sequence": "a,b,c", "f_c": 0.1, **_nfa(eager=900, cba=100)}])
CLOSE_BAD = _t([{"sequence": "c,b,a", "f_c": 0.1, **_nfa(eager=250, cba=100)}])


def _peak(n, eager, cab, cba, tree, g=0):
    return {"n_events": n, "peak_inst_eager": eager,
            **{f"peak_inst_{k}": g for k in ("cab", "cba", "tree")},
            "peak_inst_transient_cab": cab, "peak_inst_transient_cba": cba,
            "peak_inst_transient_tree": tree}


PEAK_OK = _t([_peak(10, 9, 9, 9, 9), _peak(100, 1000, 50, 100, 7, g=2)])
PEAK_BAD = _t([_peak(100, 1000, 50, 101, 7)])

PHASE_OK = _t([_phase_row("evals", {"tree": [105, 50, 10 ** 6], "cab": [100, 1000, 1],
                                    "abc": [1000, 60, 1]}),
               _phase_row("evals", {"tree": [10 ** 6, 10 ** 6, 1]}, regime="selective")])
PHASE_BAD = _t([_phase_row("evals", {"tree": [105, 70, 1], "cab": [100, 1000, 1],
                                     "abc": [1000, 60, 1]})])
PHASE_OPS_SEEDS = _t([_phase_row("ops", {"tree": [100, 50, 1], "cab": [100, 1000, 1],
                                         "abc": [1000, 60, 1]}),
                      _phase_row("ops", {"tree": [10, 20, 1], "cab": [0, 0, 1],
                                         "abc": [0, 0, 1]})])
GAP_BAD = _t([_phase_row("evals", {"tree": [105, 50, 1], "cab": [100, 400, 1],
                                   "abc": [1000, 60, 1]})])

DYN_OK = _t([{"regime": "paper_regime", **_nfa(tree=60, abc=100, eager=500)},
             {"regime": "paper_regime", **_nfa(tree=40, abc=50, eager=400)},
             {"regime": "selective", **_nfa(tree=10 ** 6, abc=1)}])
DYN_BAD = _t([{"regime": "paper_regime", **_nfa(tree=100, abc=90, eager=900)}])
DYN_OPS = _t([{**_nfa(tree=100, abc=90), **_nfa("ops", tree=100, abc=150, eager=900)}])

WANT_T = REGIME_T["paper_regime"]


def _calib(cab_of):
    rows = []
    for thr in (0.8, WANT_T + 0.1, WANT_T, WANT_T - 0.05):
        for fc in (0.001, 1.0):
            rows.append({"threshold": thr, "f_c": fc, "sel_bc": 0.5, "evals_cab": cab_of(thr),
                         "evals_cba": 100, **{f"evals_{k}": 10_000 for k in CHAINS[:4]}})
    return _t(rows)


def _sw(fc, tree, amp, kind="sine", **vals):
    """A Fig 7 row on a stream whose a/b rates swing with amplitude ``amp`` (0 = no swing)."""
    return {**_tvb(fc, tree, 5, **vals), "swing_kind": kind if amp else "none", "swing_amp": amp,
            "w_a": 50.0, "w_b": 40.0, "w_absdiff": 10.0, "frac_b_rarer": 0.6}


SW_OK = _t([_sw(0.1, 95, 0.15, cab=100), _sw(0.1, 200, 0.0, cab=100)])   # no-swing row ignored
SW_TIE = _t([_sw(0.1, 100, 0.15, cab=100)])
SW_NONE = _t([_sw(0.1, 95, 0.0, cab=100)])
SW_TWO = _t([_sw(0.1, 95, 0.15, cab=100), _sw(0.1, 99, 0.3, kind="random", cab=100),
             _sw(0.1, 300, 0.0, cab=100)])

CAL_OK = _calib(lambda thr: 300 if thr > WANT_T else 100)
CAL_BAD = _calib(lambda thr: 300 if thr > WANT_T - 0.01 else 100)     # WANT_T itself fails
CAL_NONE = _calib(lambda thr: 300)


def _calib_obs():
    """Observations 2 and 3 scored: at T=0.8 cab/cba = 3 but c-later chains ~ eager under
    operations; at WANT_T cab = cba but eager's operations 20-25x the c-later chains'."""
    rows = []
    for thr in (0.8, WANT_T):
        for fc in (0.001, 1.0):
            r = {"threshold": thr, "f_c": fc, "sel_bc": 0.5, "evals_cab": 300 if thr > WANT_T
                 else 100, "evals_cba": 100, **{f"evals_{k}": 10_000 for k in CHAINS[:4]}}
            near = thr > WANT_T
            r.update({"ops_eager": 1000 if near else 25_000,
                      **{f"ops_{k}": v for k, v in zip(CHAINS[:4], (1000, 900, 950, 1000) if near
                                                        else (1000, 1000, 1250, 1100))}})
            rows.append(r)
    return _t(rows)


CAL_OBS = _calib_obs()


def _nasdaq(fc, tree, routing, cba, data="nasdaq", regime="paper_regime"):
    """``tree``: the tree's condition evaluations with its ``routing`` decisions counted as
    conditions (the ``evals_route`` variant); ``evals_tree`` = tree - routing (take edges)."""
    return {"regime": regime, "data": data, "f_c": fc, "routing_tree": routing,
            "frac_b_rarer": 0.9, **{f"evals_{k}": 1000 for k in CHAINS},
            "evals_tree": tree - routing, "evals_route_tree": tree, "evals_cba": cba}


NAS_OK = _t([_nasdaq(0.1, 110, 10, 95), _nasdaq(1.0, 1100, 100, 1000),
             _nasdaq(0.1, 10 ** 5, 10, 95, data="synthetic")])              # not NASDAQ: ignored
NAS_BAD = _t([_nasdaq(0.1, 130, 10, 95)])
NAS_NONE = _t([_nasdaq(0.1, 110, 10, 95, data="synthetic")])


def _sens(rows):
    out = []
    for fc, t, sel, tree, best in rows:
        r = {"f_c": fc, "threshold": t, "sel_min": sel, "evals_tree": tree, "evals_eager": 5 * best}
        for k in CHAINS:
            r[f"evals_{k}"] = best if k == "cab" else 10 * best
        out.append(r)
    return _t(out)


SENS_OK = _sens([(0.1, 0.2, 0.95, 105, 100), (0.1, 0.5, 0.3, 200, 100),
                 (0.1, 0.9, 0.01, 400, 100)])
SENS_BAD = _sens([(0.1, 0.2, 0.95, 150, 100), (0.1, 0.9, 0.01, 400, 100)])
SENS_NO_UNSEL = _sens([(0.1, 0.9, 0.01, 100, 100)])

# ----------------------------------------------------------------------------- the cases
# (id, call, table, expected verdict, regexes that must occur in `measured`)
CASES = [
    ("matches_agree-pass", lambda d: C.claim_matches_agree(d), AGREE_OK, True,
     [r"^2/2 points agree; matches per point \[2, 4\]$"]),
    ("matches_agree-fail", lambda d: C.claim_matches_agree(d), AGREE_BAD, False,
     [r"^1/2 points agree"]),
    ("matches_agree-error-row-ignored", lambda d: C.claim_matches_agree(d), AGREE_ERR_ROW, True,
     [r"^1/1 points agree; matches per point \[4\]$"]),
    ("tree_vs_best_chain-pass",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1, metric="evals", regime="paper_regime"),
     TVB_OK, True,
     [r"^paper_regime condition evaluations: a,b,c f_c=0\.1: tree/cab=1\.05 \(routing decisions "
      r"5, tree/cab with routing as conditions 1\.1\)$"]),
    ("tree_vs_best_chain-fail",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1, metric="evals", regime="paper_regime"),
     TVB_BAD, False,
     [r"f_c=0\.1: tree/cab=1\.05 \(routing", r"f_c=1: tree/bac=1\.2 \(routing decisions 20, "
      r"tree/bac with routing as conditions 1\.4\) "
      r"\[s_ab=0\.5 s_bc=0\.25; cab/cba=0\.5 \(predicted 1/s_bc=4\), eager/cab=5 "
      r"\(predicted near f_c=1: s_ab\+2/W_b=0\.7\)\]$"]),
    ("tree_vs_best_chain-other-regime-fails",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1, metric="evals", regime="selective"),
     TVB_OK, False, [r"^selective condition evaluations: a,b,c f_c=0\.1: tree/cab=5 "]),
    ("tree_vs_best_chain-ops-fail",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1, metric="ops", regime="paper_regime"),
     TVB_OPS, False, [r"^paper_regime operations \(conditions \+ instance work\): a,b,c "
                      r"f_c=0\.1: tree/cab=1\.5 "]),
    ("tree_vs_best_chain-per-sequence",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1), TVB_SEQS, False,
     [r"a,b,c f_c=0\.1: tree/cab=1\.05 .*; c,b,a f_c=0\.1: tree/cba=1\.5 "]),
    ("tree_vs_best_chain-below-swinging-rows-only-pass",
     lambda d: C.claim_tree_vs_best_chain(d, metric="evals", regime="paper_regime", below=True),
     SW_OK, True,
     [r"^paper_regime condition evaluations: a,b,c f_c=0\.1: tree/cab=0\.95 \(routing decisions 5, "
      r"tree/cab with routing as conditions 1\)$"]),
    ("tree_vs_best_chain-below-tie-fails-with-the-swing-bound",
     lambda d: C.claim_tree_vs_best_chain(d, metric="evals", regime="paper_regime", below=True),
     SW_TIE, False,
     [r"tree/cab=1 \(routing decisions 5, .*\) \[W_a=50 W_b=40 E\|W_a-W_b\|=10: count routing "
      r"saves at most ~1%; b rarer at 60% of c arrivals, routing to a costs up to "
      r"1-s_bc=0\.75\]$"]),
    ("tree_vs_best_chain-below-no-swinging-row",
     lambda d: C.claim_tree_vs_best_chain(d, metric="evals", below=True), SW_NONE, False,
     [r"^no row whose a/b rates swing$"]),
    ("tree_vs_best_chain-streams-per-swing-never-averaged",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1), SW_TWO, False,
     [r"a,b,c swing none amp 0 f_c=0\.1: tree/cab=3 .*; a,b,c swing random amp 0\.3 f_c=0\.1: "
      r"tree/cab=0\.99 .*; a,b,c swing sine amp 0\.15 f_c=0\.1: tree/cab=0\.95 "]),
    ("peak_instances-other-regime-has-no-rows",
     lambda d: C.claim_peak_instances(d, factor=0.1, regime="selective"),
     PEAK_OK.assign(regime="paper_regime"), False, [r"^no rows of regime selective$"]),
    ("peak_instances-regime-named",
     lambda d: C.claim_peak_instances(d, factor=0.1, regime="paper_regime"),
     PEAK_OK.assign(regime="paper_regime"), True, [r"^paper_regime n_events=100: eager peak "]),
    ("nasdaq_tree_is_cba-operations",
     lambda d: C.claim_nasdaq_tree_is_cba(d, factor=1.1, regime="paper_regime", metric="ops"),
     NAS_OK.assign(**{**{f"ops_{k}": 2000 for k in CHAINS}, "ops_tree": 2300}), False,
     [r"^paper_regime operations \(conditions \+ instance work\): f_c=0\.1: b rarer at 90% of c "
      r"arrivals, tree/cba=1\.15, tree/abc=1\.15; f_c=1: "]),
    ("tree_vs_best_chain-failure-prints-routing-mix-and-work",
     lambda d: C.claim_tree_vs_best_chain(d, factor=1.1, regime="paper_regime"),
     _t([{**_tvb(0.1, 115, 5, cab=120, cba=100), "frac_b_rarer": 0.5,
          **{f"work_{k}": 1000 for k in CHAINS}, "work_cba": 500, "work_tree": 1000}]), False,
     [r"; tree routes c->b at 50% of c arrivals: predicted tree/cba ~1\.1, measured 1\.15 "
      r"\(condition evaluations\); instance work tree/cba=2 \(instances waiting in the tree's "
      r"non-c-first states\)\]$"]),
    ("c_first_vs_eager-pass",
     lambda d: C.claim_c_first_vs_eager(d, factor=100.0, metric="evals", regime="paper_regime"),
     CFE_OK, True,
     [r"^paper_regime condition evaluations: eager/cab at smallest f_c=0\.01 = 200 \(c events "
      r"50\); eager/best c-first per f_c: f_c=0\.01: 200, f_c=1: 2\.5$"]),
    ("c_first_vs_eager-fail",
     lambda d: C.claim_c_first_vs_eager(d, factor=100.0, metric="evals", regime="paper_regime"),
     CFE_BAD, False, [r"eager/cab at smallest f_c=0\.01 = 20 \(c events 50\)"]),
    ("convergence-pass",
     lambda d: C.claim_convergence(d, factor=1.25, metric="evals", regime="paper_regime"),
     CONV_OK, True,
     [r"^paper_regime condition evaluations at f_c=1: eager/cab=1\.1 \[s_ab=0\.5 s_bc=0\.25; "
      r"cab/cba=0\.5 \(predicted 1/s_bc=4\), eager/cab=1\.1 \(predicted near f_c=1: "
      r"s_ab\+2/W_b=0\.7\)\]$"]),
    ("convergence-fail-above",
     lambda d: C.claim_convergence(d, factor=1.25, metric="evals", regime="paper_regime"),
     CONV_BAD, False, [r"at f_c=1: eager/cab=2 "]),
    ("convergence-fail-below",
     lambda d: C.claim_convergence(d, factor=1.25, metric="ops"), CONV_OPS_LOW, False,
     [r"^ operations \(conditions \+ instance work\) at f_c=1: eager/cab=0\.7 "]),
    ("observation2-pass",
     lambda d: C.claim_observation2(d, near=3.0, far=10.0, metric="ops", regime="selective"),
     OBS_OK, True,
     [r"^selective operations \(conditions \+ instance work\) at f_c=0\.01, chain/eager: abc=1, "
      r"bac=0\.8, acb=2, bca=0\.5, cab=0\.05, cba=0\.1$"]),
    ("observation2-fail-far", lambda d: C.claim_observation2(d, near=3.0, far=10.0),
     OBS_BAD_FAR, False, [r"cab=0\.05, cba=0\.2$"]),
    ("observation2-fail-near", lambda d: C.claim_observation2(d, near=3.0, far=10.0),
     OBS_BAD_NEAR, False, [r"chain/eager: abc=4, "]),
    ("eager_close-pass",
     lambda d: C.claim_eager_close(d, factor=2.0, sequence="c,b,a", metric="evals"), CLOSE_OK,
     True, [r"^ condition evaluations: f_c=0\.1: eager/best=1\.5; f_c=1: eager/best=1$"]),
    ("eager_close-fail",
     lambda d: C.claim_eager_close(d, factor=2.0, sequence="c,b,a", metric="evals",
                                   regime="paper_regime"), CLOSE_BAD, False,
     [r"^paper_regime condition evaluations: f_c=0\.1: eager/best=2\.5$"]),
    ("eager_close-no-such-sequence",
     lambda d: C.claim_eager_close(d, factor=2.0, sequence="x,y,z"), CLOSE_OK, False,
     [r"^ condition evaluations: $"]),
    ("peak_instances-pass", lambda d: C.claim_peak_instances(d, factor=0.1), PEAK_OK, True,
     [r"^n_events=100: eager peak 1e\+03; transient \(after-event\) peaks: cab 50 \(2\), "
      r"cba 100 \(2\), tree 7 \(2\)$"]),
    ("peak_instances-fail", lambda d: C.claim_peak_instances(d, factor=0.1), PEAK_BAD, False,
     [r"cba 101 \(0\)"]),
    ("phase_tree_best-pass",
     lambda d: C.claim_phase_tree_best(d, factor=1.1, metric="evals", regime="paper_regime"),
     PHASE_OK, True,
     [r"^paper_regime condition evaluations: phase 1 \(rare->frequent c,a,b\): tree/cab=1\.05; "
      r"phase 2 \(rare->frequent a,b,c\): tree/abc=0\.833$"]),
    ("phase_tree_best-fail",
     lambda d: C.claim_phase_tree_best(d, factor=1.1, metric="evals", regime="paper_regime"),
     PHASE_BAD, False, [r"phase 2 \(rare->frequent a,b,c\): tree/abc=1\.17$"]),
    ("phase_tree_best-seeds-summed-ops",
     lambda d: C.claim_phase_tree_best(d, factor=1.1, metric="ops"), PHASE_OPS_SEEDS, False,
     [r"^ operations \(conditions \+ instance work\): phase 1 .*tree/cab=1\.1; phase 2 .*"
      r"tree/abc=1\.17$"]),
    ("phase_gap-pass",
     lambda d: C.claim_phase_gap(d, factor=10.0, metric="evals", regime="paper_regime"),
     PHASE_OK, True,
     [r"^paper_regime condition evaluations: largest gap: chain cab \(best in phase 1\) is 20x "
      r"the tree in phase 2$"]),
    ("phase_gap-fail",
     lambda d: C.claim_phase_gap(d, factor=10.0, metric="evals", regime="paper_regime"),
     GAP_BAD, False,
     [r"largest gap: chain abc \(best in phase 2\) is 9\.52x the tree in phase 1$"]),
    ("dynamic_tree_best-pass",
     lambda d: C.claim_dynamic_tree_best(d, metric="evals", regime="paper_regime"), DYN_OK, True,
     [r"^paper_regime condition evaluations: tree 100, best chain abc 150 \(tree/best=0\.667\), "
      r"eager 900; all: abc=150, acb=2e\+03, .*tree=100, eager=900$"]),
    ("dynamic_tree_best-fail",
     lambda d: C.claim_dynamic_tree_best(d, metric="evals", regime="paper_regime"), DYN_BAD,
     False, [r"tree 100, best chain abc 90 \(tree/best=1\.11\), eager 900"]),
    ("dynamic_tree_best-ops", lambda d: C.claim_dynamic_tree_best(d, metric="ops"), DYN_OPS,
     True, [r"^ operations \(conditions \+ instance work\): tree 100, best chain abc 150 "]),
    ("calibrated_regime-pass", lambda d: C.claim_calibrated_regime(d, lo=0.8, hi=1.25, tie=1.05),
     CAL_OK, True,
     [re.escape(f"search picks T={WANT_T:g} (4/4 checks held; every check at some T: yes), "
                f"configured paper_regime T={WANT_T:g} | T=0.8: 2/4 [c-first best 2/2; cab/cba in "
                f"[0.8, 1.25] 0/2 (worst cab/cba or inverse 3, s_bc=0.5)] | T={WANT_T + 0.1:g}: "
                f"2/4 ["), "^search picks",
      re.escape(f"| T={WANT_T - 0.05:g}: 4/4 [c-first best 2/2; cab/cba in [0.8, 1.25] 2/2 "
                f"(worst cab/cba or inverse 1, s_bc=0.5)]") + "$"]),
    ("calibrated_regime-fail-other-T",
     lambda d: C.claim_calibrated_regime(d, lo=0.8, hi=1.25, tie=1.05), CAL_BAD, False,
     [re.escape(f"search picks T={WANT_T - 0.05:g} (4/4 checks held; every check at some T: "
                f"yes), configured paper_regime T={WANT_T:g} | ")]),
    ("calibrated_regime-none-meets-all-picks-the-largest-best",
     lambda d: C.claim_calibrated_regime(d, lo=0.8, hi=1.25, tie=1.05), CAL_NONE, False,
     [r"^search picks T=0\.8 \(2/4 checks held; every check at some T: no\)"]),
    ("calibrated_regime-observations-2-3-scored",
     lambda d: C.claim_calibrated_regime(d, far=10.0, near=3.0), CAL_OBS, True,
     [re.escape(f"search picks T={WANT_T:g} (5/6 checks held; every check at some T: no)"),
      re.escape("| T=0.8: 4/6 [c-first best 2/2; cab/cba in [0.8, 1.25] 0/2 (worst cab/cba or "
                "inverse 3, s_bc=0.5); obs3 yes (c-later/c-first 33.3); obs2 yes (c-later/eager "
                "ops 0.9-1)] | "),
      re.escape(f"| T={WANT_T:g}: 5/6 [c-first best 2/2; cab/cba in [0.8, 1.25] 2/2 (worst "
                f"cab/cba or inverse 1, s_bc=0.5); obs3 yes (c-later/c-first 100); obs2 no "
                f"(c-later/eager ops 0.04-0.05)]") + "$"]),
    ("nasdaq_tree_is_cba-pass",
     lambda d: C.claim_nasdaq_tree_is_cba(d, factor=1.1, regime="paper_regime"), NAS_OK, True,
     [r"^paper_regime: f_c=0\.1: b rarer at 90% of c arrivals, tree/cba=1\.05, tree/cba=1\.05, "
      r"with routing as conditions 1\.16; f_c=1: .*tree/cba=1, tree/abc=1, "
      r"with routing as conditions 1\.1$"]),
    ("nasdaq_tree_is_cba-fail",
     lambda d: C.claim_nasdaq_tree_is_cba(d, factor=1.1, regime="paper_regime"), NAS_BAD, False,
     [r"tree/cba=1\.26"]),
    ("nasdaq_tree_is_cba-no-nasdaq-rows",
     lambda d: C.claim_nasdaq_tree_is_cba(d, factor=1.1), NAS_NONE, False, [r"^: $"]),
    ("tree_near_best_when_unselective-pass",
     lambda d: C.claim_tree_near_best_when_unselective(d, factor=1.1, min_selectivity=0.9),
     SENS_OK, True,
     [r"^f_c=0\.1: crossover selectivity 0\.95 \(measured point\), ~0\.874 \(interpolated\); "
      r"worst where sel>=0\.9: 1\.05 \[T=0\.9: sel=0\.01 tree/cab=4, T=0\.5: sel=0\.3 "
      r"tree/cab=2, T=0\.2: sel=0\.95 tree/cab=1\.05\]$"]),
    ("tree_near_best_when_unselective-fail",
     lambda d: C.claim_tree_near_best_when_unselective(d, factor=1.1, min_selectivity=0.9),
     SENS_BAD, False, [r"crossover selectivity none", r"worst where sel>=0\.9: 1\.5 "]),
    ("tree_near_best_when_unselective-no-unselective-point",
     lambda d: C.claim_tree_near_best_when_unselective(d, factor=1.1, min_selectivity=0.9),
     SENS_NO_UNSEL, False, [r"crossover selectivity <= 0\.01 \(all points within\)",
                            r"worst where sel>=0\.9: no such point"]),
]


# ----------------------------------------------------------------------------- edge cases
# Written against the survivors of a mutation run (tools/mutation.sh claims
# sim/studies/lazy_nfa/scenario.py, docs/TESTING.md): default arguments, ratios exactly at the limit,
# rows of another regime / data / sequence that must be ignored, counts of 0 or 1 (the
# ``max(x, 1)`` floors), a failing point before a passing one, ties.
def _cfe(fc, eager, cab, cba, regime="paper_regime", data="synthetic", seq="a,b,c"):
    return {"regime": regime, "data": data, "sequence": seq, "f_c": fc, "evals_eager": eager,
            "evals_cab": cab, "evals_cba": cba}


CFE_EDGE = _t([_cfe(0.01, 150, 5, 1), _cfe(1.0, 10, 0, 4),
               _cfe(0.001, 1, 1, 1, regime="selective"), _cfe(0.001, 1, 1, 1, data="nasdaq"),
               _cfe(0.001, 1, 1, 1, seq="c,b,a")])             # smaller f_c, other slices
CFE_AT_LIMIT = _t([{**_cfe(0.01, 10000, 100, 200), "n_c_events": 50}])

CONV_SLICES = _t([_tvb(1.0, 50, 0, eager=130, cab=100),
                  _tvb(2.0, 50, 0, regime="selective", eager=100, cab=100),
                  _tvb(2.0, 50, 0, data="nasdaq", eager=100, cab=100),
                  _tvb(2.0, 50, 0, seq="c,b,a", eager=100, cab=100)])

OBS_AT_LIMITS = _t([{"f_c": 0.01, **_nfa("ops", eager=3000, abc=9000, bac=1000, acb=3000,
                                         bca=3000, cab=300, cba=300)},
                    {"f_c": 0.001, "regime": "selective", **_nfa("ops", other=1)},
                    {"f_c": 0.001, "data": "nasdaq", **_nfa("ops", other=1)},
                    {"f_c": 0.001, "sequence": "c,b,a", **_nfa("ops", other=1)}]
                   ).fillna({"regime": "paper_regime", "data": "synthetic",
                             "sequence": "a,b,c"})
OBS_NEAR_3_5 = _t([{"f_c": 0.01, **_nfa("ops", eager=1000, abc=3500, cab=50, cba=50)}])
OBS_FAR_11 = _t([{"f_c": 0.01, **_nfa("ops", eager=1100, cab=100, cba=100)}])
OBS_EAGER_0 = _t([{"f_c": 0.01, **_nfa("ops", eager=0, abc=1, bac=1, acb=1, bca=1, cab=0,
                                      cba=0)}])

CLOSE_AT_LIMIT = _t([{"sequence": "c,b,a", "f_c": 0.1, **_nfa(eager=200, cba=100)}])
CLOSE_FAIL_THEN_PASS = _t([{"sequence": "c,b,a", "f_c": 0.1, **_nfa(eager=250, cba=100)},
                           {"sequence": "c,b,a", "f_c": 1.0, **_nfa(eager=100, cab=100)}])
CLOSE_REGIMES = _t([{"regime": "paper_regime", "sequence": "c,b,a", "f_c": 0.1,
                     **_nfa(eager=150, cba=100)},
                    {"regime": "selective", "sequence": "c,b,a", "f_c": 1.0,
                     **_nfa(eager=900, cba=100)}])
CLOSE_MIN_1 = _t([{"sequence": "c,b,a", "f_c": 0.1, **_nfa(eager=3, cab=1)}])

PHASE_AT_LIMIT = _t([_phase_row("evals", {"tree": [110, 1.1], "cab": [100, 1000],
                                          "abc": [1000, 1]})])
PHASE_FAIL_THEN_PASS = _t([_phase_row("evals", {"tree": [130, 1.1], "cab": [100, 1000],
                                                "abc": [1000, 1]})])

GAP_TIE_AT_10 = _t([_phase_row("evals", {"tree": [100, 100], "cab": [100, 1000],
                                         "abc": [1000, 100]})])
GAP_TREE_1 = _t([_phase_row("evals", {"tree": [100, 1], "cab": [100, 1000],
                                      "abc": [1000, 5]})])
GAP_ALL_ZERO = _t([_phase_row("evals", {"tree": [5, 5], **{k: [0, 0] for k in CHAINS}})])


def _dyn(tree, **chains):
    return {"evals_tree": tree, **{f"evals_{k}": chains.get(k, 1000) for k in CHAINS}}


DYN_TIE_NO_EAGER = _t([_dyn(50, cba=50)])
DYN_BEST_1 = _t([_dyn(0.5, cab=1)])

NAS_AT_LIMIT = _t([_nasdaq(0.1, 1.1, 0, 1)])
NAS_FAIL_THEN_PASS = _t([_nasdaq(0.1, 130, 10, 95), _nasdaq(1.0, 1100, 100, 1000),
                         _nasdaq(0.01, 10 ** 5, 0, 1, regime="selective")])

CASES += [
    ("c_first_vs_eager-slices-and-floors",
     lambda d: C.claim_c_first_vs_eager(d, regime="paper_regime"), CFE_EDGE, True,
     [r"^paper_regime condition evaluations: eager/cba at smallest f_c=0\.01 = 150 \(c events "
      r"-1\); eager/best c-first per f_c: f_c=0\.01: 150, f_c=1: 10$"]),
    ("c_first_vs_eager-defaults-at-limit", lambda d: C.claim_c_first_vs_eager(d), CFE_AT_LIMIT,
     True, [r"^ condition evaluations: eager/cab at smallest f_c=0\.01 = 100 \(c events 50\)"]),
    ("c_first_vs_eager-defaults-below-limit",
     lambda d: C.claim_c_first_vs_eager(d), CFE_AT_LIMIT.assign(evals_eager=9900), False,
     [r"= 99 \(c events 50\)"]),
    ("convergence-slices-and-default-factor",
     lambda d: C.claim_convergence(d, regime="paper_regime"), CONV_SLICES, False,
     [r"^paper_regime condition evaluations at f_c=1: eager/cab=1\.3 "]),
    ("convergence-defaults-at-limit", lambda d: C.claim_convergence(d),
     _t([_tvb(1.0, 50, 0, eager=125, cab=100)]), True, [r"^ condition evaluations at f_c=1: "
                                                        r"eager/cab=1\.25 "]),
    ("convergence-defaults-at-lower-limit", lambda d: C.claim_convergence(d),
     _t([_tvb(1.0, 50, 0, eager=80, cab=100)]), True, [r"at f_c=1: eager/cab=0\.8 "]),
    ("convergence-cab-1", lambda d: C.claim_convergence(d),
     _t([_tvb(1.0, 50, 0, eager=1, cab=1)]), True, [r"at f_c=1: eager/cab=1 "]),
    ("observation2-defaults-at-limits", lambda d: C.claim_observation2(d, regime="paper_regime"),
     OBS_AT_LIMITS, True,       # abc = 3 x eager, bac = 1/3 x, cab = cba = 1/10 x: all at a limit
     [r"^paper_regime operations \(conditions \+ instance work\) at f_c=0\.01, chain/eager: "
      r"abc=3, bac=0\.333, acb=1, bca=1, cab=0\.1, cba=0\.1$"]),
    ("observation2-near-3.5-fails", lambda d: C.claim_observation2(d), OBS_NEAR_3_5, False,
     [r"chain/eager: abc=3\.5, "]),
    ("observation2-far-11-passes", lambda d: C.claim_observation2(d), OBS_FAR_11, True,
     [r"^ operations .*chain/eager: abc=0\.909, .*cab=0\.0909, cba=0\.0909$"]),
    ("observation2-eager-0", lambda d: C.claim_observation2(d), OBS_EAGER_0, True,
     [r"chain/eager: abc=1, bac=1, acb=1, bca=1, cab=0, cba=0$"]),
    ("eager_close-defaults-at-limit", lambda d: C.claim_eager_close(d), CLOSE_AT_LIMIT, True,
     [r"^ condition evaluations: f_c=0\.1: eager/best=2$"]),
    ("eager_close-defaults-fail", lambda d: C.claim_eager_close(d), CLOSE_BAD, False,
     [r"eager/best=2\.5$"]),
    ("eager_close-fail-then-pass", lambda d: C.claim_eager_close(d), CLOSE_FAIL_THEN_PASS, False,
     [r"f_c=0\.1: eager/best=2\.5; f_c=1: eager/best=1$"]),
    ("eager_close-regime", lambda d: C.claim_eager_close(d, regime="paper_regime"),
     CLOSE_REGIMES, True, [r"^paper_regime condition evaluations: f_c=0\.1: eager/best=1\.5$"]),
    ("eager_close-best-1", lambda d: C.claim_eager_close(d), CLOSE_MIN_1, False,
     [r"f_c=0\.1: eager/best=3$"]),
    ("peak_instances-default-factor", lambda d: C.claim_peak_instances(d), PEAK_BAD, False,
     [r"cba 101 \(0\)"]),
    ("phase_tree_best-defaults-fail", lambda d: C.claim_phase_tree_best(d), PHASE_BAD, False,
     [r"^ condition evaluations: .*tree/abc=1\.17$"]),
    ("phase_tree_best-at-limit", lambda d: C.claim_phase_tree_best(d), PHASE_AT_LIMIT, True,
     [r"phase 1 \(rare->frequent c,a,b\): tree/cab=1\.1; phase 2 \(rare->frequent a,b,c\): "
      r"tree/abc=1\.1$"]),
    ("phase_tree_best-fail-then-pass", lambda d: C.claim_phase_tree_best(d), PHASE_FAIL_THEN_PASS,
     False, [r"tree/cab=1\.3; .*tree/abc=1\.1$"]),
    ("phase_gap-defaults-tie-at-10", lambda d: C.claim_phase_gap(d), GAP_TIE_AT_10, True,
     [r"^ condition evaluations: largest gap: chain cab \(best in phase 1\) is 10x the tree in "
      r"phase 2$"]),
    ("phase_gap-tree-1", lambda d: C.claim_phase_gap(d), GAP_TREE_1, True,
     [r"largest gap: chain cab \(best in phase 1\) is 1e\+03x the tree in phase 2$"]),
    ("phase_gap-all-zero", lambda d: C.claim_phase_gap(d), GAP_ALL_ZERO, False,
     [r": largest gap: chain  \(best in phase 1\) is 0x the tree in phase 1$"]),
    ("dynamic_tree_best-defaults-fail", lambda d: C.claim_dynamic_tree_best(d), DYN_BAD, False,
     [r"^ condition evaluations: tree 100, best chain abc 90 "]),
    ("dynamic_tree_best-tie-no-eager", lambda d: C.claim_dynamic_tree_best(d), DYN_TIE_NO_EAGER,
     False, [r"tree 50, best chain cba 50 \(tree/best=1\), eager nan; all: abc=1e\+03, "]),
    ("dynamic_tree_best-best-1", lambda d: C.claim_dynamic_tree_best(d), DYN_BEST_1, True,
     [r"tree 0\.5, best chain cab 1 \(tree/best=0\.5\)"]),
    ("nasdaq_tree_is_cba-defaults-fail", lambda d: C.claim_nasdaq_tree_is_cba(d), NAS_BAD, False,
     [r"tree/cba=1\.26"]),
    ("nasdaq_tree_is_cba-at-limit", lambda d: C.claim_nasdaq_tree_is_cba(d), NAS_AT_LIMIT, True,
     [r"^: f_c=0\.1: .*tree/cba=1\.1, tree/cba=1\.1, with routing as conditions "
      r"1\.1$"]),
    ("nasdaq_tree_is_cba-fail-then-pass",
     lambda d: C.claim_nasdaq_tree_is_cba(d, regime="paper_regime"), NAS_FAIL_THEN_PASS, False,
     [r"^paper_regime: f_c=0\.1: .*tree/cba=1\.26, .*; f_c=1: .*tree/cba=1, "]),
]

# tree vs best chain without a sequence column, defaults; floors (best chain 1, tree 1)
TVB_NO_SEQ = _t([{"f_c": 0.1, "routing_tree": 0.5, **_nfa(tree=1, cab=1)},
                 {"f_c": 1.0, "routing_tree": 11, **_nfa(tree=110, cab=100)}])
# failing points whose explanation (_why) reads: s_bc = 0, cba = 1, f_c < 0.5 (no eager part),
# f_c = 0.5 (eager part), W_b = 0, cab = 1
TVB_WHY = _t([{**_tvb(0.1, 200, 0, cba=1), "sel_bc": 0.0},
              {**_tvb(0.5, 200, 0, eager=3, cab=1), "w_b": 0.0}])
TVB_WHY_NO_SEL_NO_WB = _t([{"f_c": 1.0, "routing_tree": 0, **_nfa(tree=200, cab=100)}])
TVB_SEQ_FAIL_THEN_PASS = _t([_tvb(0.1, 300, 0, seq="a,b,c", cab=100),
                             _tvb(0.1, 100, 0, seq="c,b,a", cab=100)])


def _calib_edge():
    """Per threshold T (two or three f_c): T=0.8 fails only by the tie rule (c-first 2 x the best
    chain), WANT_T+0.1 fails at its first f_c only (cab/cba = 2), WANT_T sits on every limit
    (cab/cba = 1.25 and 0.8, c-first = 1.05 x best), WANT_T-0.05 has cab/cba = 0.8 and a point
    with cab = cba = 1."""
    rows = []

    def add(thr, fc, cab, cba, others=10_000, abc=None):
        ch = {f"evals_{k}": others for k in CHAINS[:4]}
        if abc is not None:
            ch["evals_abc"] = abc
        rows.append({"threshold": thr, "f_c": fc, "sel_bc": 0.5, "evals_cab": cab,
                     "evals_cba": cba, **ch})

    add(0.8, 0.001, 200, 200, others=100)
    add(0.8, 1.0, 200, 200, others=100)
    add(WANT_T + 0.1, 0.001, 200, 100)
    add(WANT_T + 0.1, 1.0, 100, 100)
    add(WANT_T, 0.001, 125, 100)
    add(WANT_T, 0.01, 80, 100)
    add(WANT_T, 1.0, 21, 21, abc=20)          # 21 = 1.05 x 20 exactly in floating point
    add(WANT_T - 0.05, 0.001, 80, 100)
    add(WANT_T - 0.05, 1.0, 1, 1)
    return _t(rows)


CAL_EDGE = _calib_edge()

# sensitivity: the documented log interpolation of the crossover, checked to 3 digits:
# t = (ln r0 - ln f) / (ln r0 - ln r1), s = exp(ln s0 + t (ln s1 - ln s0)); linear when s0 = 0
SENS_TWO_FC = _sens([(0.1, 0.2, 0.95, 105, 100), (0.1, 0.5, 0.3, 200, 100),
                     (0.1, 0.9, 0.01, 400, 100),
                     (1.0, 0.2, 0.9, 105, 100), (1.0, 0.9, 0.0, 200, 100)]
                    ).assign(data="synthetic")                 # a text column, as in results
SENS_FAIL_THEN_PASS = _sens([(0.1, 0.2, 0.95, 150, 100), (1.0, 0.2, 0.95, 100, 100)])
SENS_BEST_HALF = _sens([(0.1, 0.2, 0.95, 1, 0.5)])
SENS_AT_LIMIT_BAD_BELOW = _sens([(0.1, 0.5, 0.3, 200, 100), (0.1, 0.2, 0.95, 110, 100)])

CASES += [
    ("tree_vs_best_chain-no-sequence-column-defaults-floors",
     lambda d: C.claim_tree_vs_best_chain(d), TVB_NO_SEQ, True,
     [r"^ condition evaluations: f_c=0\.1: tree/cab=1 \(routing decisions 0\); f_c=1: "
      r"tree/cab=1\.1 \(routing decisions 11\)$"]),
    ("tree_vs_best_chain-defaults-fail", lambda d: C.claim_tree_vs_best_chain(d), TVB_OPS.assign(
        evals_tree=150), False, [r"tree/cab=1\.5 "]),
    ("tree_vs_best_chain-no-rows-of-regime",
     lambda d: C.claim_tree_vs_best_chain(d, regime="nope"), TVB_OK, False,
     [r"^nope condition evaluations: $"]),
    ("tree_vs_best_chain-sequence-filter-and-fail-then-pass",
     lambda d: C.claim_tree_vs_best_chain(d, sequence="c,b,a"), TVB_SEQ_FAIL_THEN_PASS, True,
     [r"^ condition evaluations: c,b,a f_c=0\.1: tree/cab=1 "]),
    ("tree_vs_best_chain-fail-then-pass", lambda d: C.claim_tree_vs_best_chain(d),
     TVB_SEQ_FAIL_THEN_PASS, False, [r"a,b,c f_c=0\.1: tree/cab=3 .*; c,b,a f_c=0\.1: tree/cab=1 "]),
    ("tree_vs_best_chain-explanations", lambda d: C.claim_tree_vs_best_chain(d), TVB_WHY, False,
     [r"f_c=0\.1: tree/cba=200 .*\[s_ab=0\.5 s_bc=0; cab/cba=1e\+03 \(predicted 1/s_bc=inf\)\];",
      r"f_c=0\.5: tree/cab=200 .*\[s_ab=0\.5 s_bc=0\.25; cab/cba=0\.001 \(predicted 1/s_bc=4\), "
      r"eager/cab=3 \(predicted near f_c=1: s_ab\+2/W_b=2e\+09\)\]$"]),
    ("tree_vs_best_chain-explanation-without-pass-rates",
     lambda d: C.claim_tree_vs_best_chain(d), TVB_WHY_NO_SEL_NO_WB, False,
     [r"^ condition evaluations: f_c=1: tree/cab=2 .*\[s_ab=nan s_bc=nan; cab/cba=0\.1 "
      r"\(predicted 1/s_bc=inf\)\]$"]),      # unknown s_bc: "inf" (not > 0)
    ("calibrated_regime-defaults-at-every-limit", lambda d: C.claim_calibrated_regime(d),
     CAL_EDGE, True,
     [re.escape(f"search picks T={WANT_T:g} (6/6 checks held; every check at some T: yes), "
                f"configured paper_regime T={WANT_T:g} | "
                "T=0.8: 2/4 [c-first best 0/2; cab/cba in [0.8, 1.25] 2/2 (worst cab/cba or "
                "inverse 1, s_bc=0.5)] | "
                f"T={WANT_T + 0.1:g}: 3/4 [c-first best 2/2; cab/cba in [0.8, 1.25] 1/2 (worst "
                "cab/cba or inverse 2, s_bc=0.5)] | "
                f"T={WANT_T:g}: 6/6 [c-first best 3/3; cab/cba in [0.8, 1.25] 3/3 (worst cab/cba "
                "or inverse 1.25, s_bc=0.5)] | "
                f"T={WANT_T - 0.05:g}: 4/4 [c-first best 2/2; cab/cba in [0.8, 1.25] 2/2 (worst "
                "cab/cba or inverse 1.25, s_bc=0.5)]") + "$"]),
    ("tree_near_best_when_unselective-defaults-interpolation", 
     lambda d: C.claim_tree_near_best_when_unselective(d), SENS_TWO_FC, True,
     [r"^f_c=0\.1: crossover selectivity 0\.95 \(measured point\), ~0\.874 \(interpolated\); "
      r"worst where sel>=0\.9: 1\.05 \[.*\] \| f_c=1: crossover selectivity 0\.9 \(measured "
      r"point\), ~0\.835 \(interpolated\); worst where sel>=0\.9: 1\.05 \[T=0\.9: sel=0 "
      r"tree/cab=2, T=0\.2: sel=0\.9 tree/cab=1\.05\]$"]),
    ("tree_near_best_when_unselective-defaults-fail",
     lambda d: C.claim_tree_near_best_when_unselective(d), SENS_BAD, False,
     [r"worst where sel>=0\.9: 1\.5 "]),
    ("tree_near_best_when_unselective-fail-then-pass",
     lambda d: C.claim_tree_near_best_when_unselective(d), SENS_FAIL_THEN_PASS, False,
     [r"^f_c=0\.1: crossover selectivity none .* \| f_c=1: crossover selectivity <= 0\.95 "]),
    ("tree_near_best_when_unselective-best-below-1",
     lambda d: C.claim_tree_near_best_when_unselective(d), SENS_BEST_HALF, True,
     [r"tree/cab=1\]$"]),
    ("tree_near_best_when_unselective-at-limit",
     lambda d: C.claim_tree_near_best_when_unselective(d), SENS_AT_LIMIT_BAD_BELOW, True,
     [r"^f_c=0\.1: crossover selectivity 0\.95 \(measured point\), ~0\.95 \(interpolated\); "
      r"worst where sel>=0\.9: 1\.1 "]),
]



# ----------------------------------------------------------------------------- section 7 observations
def _ef(fc, n, eager, cab=10, cba=10, regime="paper_regime"):
    """claim_eager_flat row: stream length and every NFA's condition evaluations."""
    return {"regime": regime, "data": "synthetic", "sequence": "a,b,c", "f_c": fc,
            "n_stream_events": n, **_nfa(eager=eager, cab=cab, cba=cba)}


# eager per event: 40000 / 20000 = 2 and 30000 / 10000 = 3 (max/min 1.5); the selective row
# (eager 1 per event) is another regime and ignored
EF_OK = _t([_ef(0.001, 20000, 40000), _ef(1.0, 10000, 30000, cab=40000, cba=40000),
            _ef(0.01, 10000, 10000, regime="selective")])
EF_SPREAD = _t([_ef(0.001, 20000, 20000), _ef(1.0, 10000, 30000)])       # 1 vs 3 per event
EF_GOOD = _t([_ef(0.001, 20000, 40000, cab=50000), _ef(1.0, 10000, 30000)])  # eager < cab


def _oi(seq, fc, regime="paper_regime", **vals):
    return {"regime": regime, "sequence": seq, "f_c": fc, **_nfa(**vals)}


OI_OK = _t([_oi("c,b,a", 0.01, eager=100, cab=150), _oi("a,c,b", 0.01, eager=5000, cab=100),
            _oi("c,b,a", 0.01, regime="selective", tree=9000)])
OI_BAD = _t([_oi("c,b,a", 0.01, tree=3000), _oi("a,c,b", 0.01)])
OI_ONE_SEQ = _t([_oi("c,b,a", 0.01)])


def _pk(n, regime="paper_regime", **peaks):
    """Figure 9 row: after-event and transient peak instances (equal here), 100 unless given."""
    r = {"regime": regime, "n_events": n}
    for k in ("eager",) + CHAINS + ("tree",):
        r[f"peak_inst_{k}"] = peaks.get(k, 100)
        if k != "eager":
            r[f"peak_inst_transient_{k}"] = peaks.get(k, 100)
    return r


# the largest input (1000) decides; the smaller one would fail both claims
PK_OK = _t([_pk(100, eager=5000, abc=10),
            _pk(1000, eager=1000, abc=800, acb=1500, bac=300, bca=200, cab=50, cba=60)])
PK_BAD = _t([_pk(1000, eager=1000, abc=800, acb=100)])


def _bf(n, regime="paper_regime", **b):
    return {"regime": regime, "n_events": n,
            **{f"peak_buf_{k}": b.get(k, 100) for k in ("eager",) + CHAINS + ("tree",)}}


BUF_OK = _t([_bf(100, eager=110), _bf(200, abc=120, tree=96),
             _bf(200, regime="selective", eager=0)])                  # other regime: ignored
BUF_BAD = _t([_bf(100, eager=110), _bf(200, eager=0)])               # eager counts nothing

CASES += [
    ("eager_flat-pass", lambda d: C.claim_eager_flat(d, regime="paper_regime"), EF_OK, True,
     [r"^paper_regime condition evaluations per event, eager: f_c=0\.001: 2, f_c=1: 3 "
      r"\(max/min 1\.5, check <= 2\); f_c=0\.001: eager/worse c-first chain 4e\+03 "]),
    ("eager_flat-fail-spread", lambda d: C.claim_eager_flat(d, regime="paper_regime"),
     EF_SPREAD, False, [r"f_c=0\.001: 1, f_c=1: 3 \(max/min 3, check <= 2\)"]),
    ("eager_flat-fail-not-poor", lambda d: C.claim_eager_flat(d, regime="paper_regime"),
     EF_GOOD, False, [r"eager/worse c-first chain 0\.8 "]),
    ("order_independent-pass", lambda d: C.claim_order_independent(d, regime="paper_regime"),
     OI_OK, True, [r"cab 1\.5, cba 1, tree 1 \(check in \[1/2, 2\]\)",
                   r"eager, the paper's exception: f_c=0\.01: 0\.02$"]),
    ("order_independent-fail", lambda d: C.claim_order_independent(d, regime="paper_regime"),
     OI_BAD, False, [r"tree 3 \(check"]),
    ("order_independent-fail-one-sequence", lambda d: C.claim_order_independent(d),
     OI_ONE_SEQ, False, [r"^no f_c with both sequences"]),
    ("a_first_like_eager-pass", lambda d: C.claim_a_first_like_eager(d, regime="paper_regime"),
     PK_OK, True, [r"n_events=1000: eager peak 1e\+03; abc/eager 0\.8, acb/eager 1\.5 "]),
    ("a_first_like_eager-fail", lambda d: C.claim_a_first_like_eager(d, regime="paper_regime"),
     PK_BAD, False, [r"acb/eager 0\.1 "]),
    ("b_first_between-pass", lambda d: C.claim_b_first_between(d, regime="paper_regime"), PK_OK,
     True, [r"abc 800, acb 1\.5e\+03, bac 300, bca 200, cab 50, cba 60 "]),
    ("b_first_between-fail", lambda d: C.claim_b_first_between(d, regime="paper_regime"), PK_BAD,
     False, [r"bac 100, bca 100, cab 100"]),
    ("buffered_identical-pass", lambda d: C.claim_buffered_identical(d, regime="paper_regime"),
     BUF_OK, True, [r"NFAs 1\.25 at \{'n_events': 200\}: eager 100, abc 120, .* tree 96 "]),
    ("buffered_identical-fail", lambda d: C.claim_buffered_identical(d, regime="paper_regime"),
     BUF_BAD, False, [r"NFAs 100 at \{'n_events': 200\}: eager 0, "]),
]

def test_unknown_metric_is_named():
    with pytest.raises(ValueError, match=r"^metric must be one of \['evals', 'ops', 'evals_route'\], got 'bogus'$"):
        C.claim_convergence(CONV_OK, metric="bogus")

@pytest.mark.parametrize("call, df, want, patterns",
                         [pytest.param(c, d, w, p, id=i) for i, c, d, w, p in CASES])
def test_claim_case(call, df, want, patterns):
    check_claim_case(call, df, want, patterns)


def test_every_claim_has_both_directions():
    by = {}
    for i, _, _, want, _ in CASES:
        by.setdefault(i.split("-")[0], set()).add(want)
    assert all(v == {True, False} for v in by.values()), by
    names = {n[len("claim_"):] for n in dir(C) if n.startswith("claim_")}
    assert set(by) == names and len(names) == 18, (sorted(by), sorted(names))


def _pass_cases():
    seen = set()
    for i, call, df, want, _ in CASES:
        name = i.split("-")[0]
        if want and name not in seen:
            seen.add(name)
            yield pytest.param(call, df, id=name)


@pytest.mark.parametrize("call, df", list(_pass_cases()))
def test_claim_fails_on_empty_and_all_error_tables(call, df):
    """A table with no rows, or whose every row failed (``error`` set, metrics NaN), has nothing
    to check: FAIL with "no successful rows" (no exception), input unchanged."""
    res = call(df.iloc[0:0].copy())
    assert res.passed is False and res.measured == "no successful rows", res
    failed = df.assign(error="boom")
    num = failed.select_dtypes("number").columns
    failed[num] = np.nan                      # a crashed point has no metrics
    before = failed.copy()
    res = call(failed)
    assert res.passed is False and res.measured == "no successful rows", res
    pd.testing.assert_frame_equal(failed, before)

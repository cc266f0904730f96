"""Cases for the EIRES Fig 13 claim functions (``sim/studies/eires/claims.py``, the
``claim_case_*`` group): small synthetic result tables built to PASS and built to FAIL, with the
numbers the verdict rests on as patterns of the ``measured`` text.  ``CASES`` has the tuple
layout of ``tests/test_claims_eires.py``, which runs them with its own cases (both directions,
and every PASS table emptied or all errors FAILs without raising)."""
from __future__ import annotations

import pandas as pd

import sim.studies.eires.claims as CL


def _rows(spec, query="cluster", flags="paper"):
    """``spec``: strategy -> {stat: value} (stats p5 .. p95) of one panel."""
    return pd.DataFrame([{"dataset": "cluster", "query": query, "strategy_flags": flags,
                          "policy": "greedy", "cache": "cost", "strategy": st, "error": None,
                          **{f"lat_{k}": float(v) for k, v in stats.items()}}
                         for st, stats in spec.items()])


def _p(p50, p95, **more):
    return {"p50": p50, "p95": p95, **more}


P = [{"query": "cluster", "strategy_flags": "paper"}]
GOOD = _rows({"BL1": _p(730, 130), "BL2": _p(470, 70), "BL3": _p(118790, 13360),
              "PFetch": _p(12, 30), "LzEval": _p(20, 40), "Hybrid": _p(10, 10)})
# Hybrid p95 above PFetch's by more than 1.1x; BL3's factor 1.2x
BAD = _rows({"BL1": _p(730, 130), "BL2": _p(470, 70), "BL3": _p(12, 13360),
             "PFetch": _p(12, 30), "LzEval": _p(20, 40), "Hybrid": _p(10, 40)})
CLOSE = _rows({"BL1": _p(100, 200, p5=50, p25=60, p75=150), "Hybrid": _p(10, 20, p5=2, p25=4,
                                                                          p75=15),
               "PFetch": _p(12, 60, p5=2.5, p25=5, p75=16)})
NOT_CLOSE = _rows({"BL1": _p(100, 200, p5=50, p25=60, p75=150),
                   "Hybrid": _p(10, 20, p5=2, p25=4, p75=15),
                   "PFetch": _p(40, 21, p5=2.5, p25=5, p75=16)})

CASES = [
    ("case-ratios-pass", lambda df: CL.claim_case_ratios(
        df, P, {"BL1": 73.0, "BL2": 47.0, "BL3": 11879.0}, stat="p50"), GOOD, True,
     [r"cluster/paper BL1/Hybrid 73\.00x \(paper 73\.0x\)", r"BL3/Hybrid 11879\.00x"]),
    ("case-ratios-fail", lambda df: CL.claim_case_ratios(
        df, P, {"BL1": 73.0, "BL2": 47.0, "BL3": 11879.0}, stat="p50"), BAD, False,
     [r"BL3/Hybrid 1\.20x \(paper 11879\.0x\) X"]),
    ("case-ratios-pass-dat", lambda df: CL.claim_case_ratios(
        df, P, {"BL1": 13.0, "BL2": 7.0, "BL3": 1336.0}, stat="p95",
        dat="result_latency_google_cluster.dat"), GOOD, True,
     [r"authors' dat \(not judged\): BL1/Hybrid 28\.98x"]),
    ("case-ratios-fail-missing-panel", lambda df: CL.claim_case_ratios(
        df, [{"query": "cluster_l4", "strategy_flags": "paper"}], {"BL1": 73.0}), GOOD, False,
     [r"cluster_l4/paper BL1/Hybrid nanx"]),
    ("case-best-pass", lambda df: CL.claim_case_best(df, P, factor=1.1), GOOD, True,
     [r"^2/2 panel-percentiles with Hybrid within 1\.1x of the best$"]),
    ("case-best-fail", lambda df: CL.claim_case_best(df, P, factor=1.1), BAD, False,
     [r"cluster/paper p95: Hybrid 40 vs PFetch 30"]),
    ("case-below-pass", lambda df: CL.claim_case_below(df, P), GOOD, True,
     [r"^3/3 below every baseline at p50$"]),
    ("case-below-fail", lambda df: CL.claim_case_below(df, P), BAD, False,
     [r"PFetch 12 >= BL3 12", r"LzEval 20 >= BL3 12"]),
    ("case-below-best-pass", lambda df: CL.claim_case_below_and_best(df, P), GOOD, True,
     [r"below baselines: 3/3", r"best: 2/2"]),
    ("case-below-best-fail", lambda df: CL.claim_case_below_and_best(df, P), BAD, False,
     [r"best: 1/2"]),
    ("case-close-pass", lambda df: CL.claim_case_close_except(df, P), CLOSE, True,
     [r"p50 PFetch/Hybrid 1\.20x;", r"p95 PFetch/Hybrid 3\.00x \(required"]),
    ("case-close-fail", lambda df: CL.claim_case_close_except(df, P), NOT_CLOSE, False,
     [r"p50 PFetch/Hybrid 4\.00x X", r"p95 PFetch/Hybrid 1\.05x X"]),
]


"""``claim_subtree_reading_report`` (the two readings of a ZStream invariant side by side) on
hand-built rows: each reading tuned on its own tuning rows and reported per n."""
from __future__ import annotations

import pandas as pd

from sim.studies.adaptive.claims import claim_subtree_reading_report


def _row(reading, role, n, inv_thr, thr_thr=100.0, static_thr=100.0, repl=2):
    return {"dataset": "stocks", "planner": "zstream", "pset": "seq", "zs_subtree": reading,
            "role": role, "n": n, "stream_seed": 1 if role == "tune" else 2, "supported": 1,
            "error": None, "static_thr": static_thr, "static_repl": 0, "static_ovh": 0.0,
            "static_matches": 5, "thr0.1_thr": thr_thr, "thr0.1_repl": 9, "thr0.1_ovh": 0.1,
            "inv0.1_thr": inv_thr, "inv0.1_repl": repl, "inv0.1_ovh": 0.1, "inv0.1_fn": 0.25}


def test_report_lists_both_readings_per_n():
    df = pd.DataFrame([_row(r, role, n, 120.0 if r == "recompute" else 100.0)
                       for r in ("recompute", "constant") for role in ("tune", "eval")
                       for n in (4, 5)])
    res = claim_subtree_reading_report(df)
    assert res.passed
    assert "stocks/constant (inv0.1, thr0.1): inv / static n=4 1.00, n=5 1.00" in res.measured
    assert "stocks/recompute (inv0.1, thr0.1): inv / static n=4 1.20, n=5 1.20" in res.measured
    assert "inv false-negative share 0.25" in res.measured


def test_report_fails_without_both_readings():
    df = pd.DataFrame([_row("recompute", role, 4, 120.0) for role in ("tune", "eval")])
    assert not claim_subtree_reading_report(df).passed
    assert not claim_subtree_reading_report(df.iloc[0:0]).passed
    assert not claim_subtree_reading_report(df.drop(columns="zs_subtree")).passed

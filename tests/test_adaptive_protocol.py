"""PVLDB'18 section 5.2's protocol: Figs. 6-7 run the invariant method with d_opt of the Fig. 5 scan.

``analysis.tuned(..., d_from="fig5")`` reads that scan from the SEQ rows of stream seeds
``FIG5_SCAN_SEEDS`` inside a Fig. 6 / Fig. 7 run.  That is Fig. 5's scan only while
experiments/adaptive/fig5.toml runs the same points: these tests hold the three configs (at both
scales) and the committed full-scale rows to it, and check the choice itself on hand-built rows.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sim.experiments.config import apply_scale, expand_points, load_config
from sim.studies.adaptive.analysis import FIG5_SCAN_PSET, FIG5_SCAN_SEEDS, fig5_d_opt, tuned

ROOT = Path(__file__).resolve().parents[1]
#: parameters that choose which methods a point reports (or label its rows), not how the
#: invariant method runs: fig5 leaves out the unconditional and threshold methods
METHOD_KEYS = {"uncond", "davg", "t_values", "tune_seeds"}


def _points(name: str, scale: str) -> dict:
    cfg = apply_scale(load_config(ROOT / "experiments" / "adaptive" / f"{name}.toml"), scale)
    return {(p.params["dataset"], p.params["planner"], p.params["pset"], p.params["n"],
             p.params["stream_seed"]): p.params for p in expand_points(cfg)}


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("fig, dataset", [("fig6", "traffic"), ("fig7", "stocks")])
def test_fig5_points_are_inside_fig6_and_fig7(scale, fig, dataset):
    f5, f67 = _points("fig5", scale), _points(fig, scale)
    scan = {k: v for k, v in f5.items() if k[0] == dataset}
    assert scan, f"fig5 has no {dataset} points"
    for key, p5 in scan.items():
        assert key[2] == FIG5_SCAN_PSET and key[4] in FIG5_SCAN_SEEDS
        assert key in f67, f"fig5 point {key} is missing from {fig}"
        p = f67[key]
        diff = {k for k in set(p5) | set(p)
                if k not in METHOD_KEYS | {"d_values"} and p5.get(k) != p.get(k)}
        assert not diff, f"fig5 and {fig} differ in {sorted(diff)} at {key}"
        # the d grid: the same at full scale; quick scale scans a subset of fig5's (d_opt is
        # then the best of that subset)
        d5, d = p5.get("d_values"), p.get("d_values")
        if scale == "full":
            assert d5 == d
        else:
            assert d is None or d5 is None or set(d) <= set(d5)


def test_fig5_seeds_are_the_scan_seeds():
    seeds = {k[4] for k in _points("fig5", "full")}
    assert seeds == set(FIG5_SCAN_SEEDS)


@pytest.mark.parametrize("fig, dataset", [("fig6", "traffic"), ("fig7", "stocks")])
def test_committed_rows_agree(fig, dataset):
    """The committed Fig. 5 rows equal the Fig. 6 / Fig. 7 SEQ rows they stand for."""
    base = ROOT / "results" / "full" / "adaptive"
    f5 = pd.read_parquet(base / "fig5" / "points.parquet")
    f67 = pd.read_parquet(base / fig / "points.parquet")
    key = ["planner", "n", "stream_seed"]
    cols = [c for c in f5.columns if c.startswith("inv") and c.endswith(("_thr", "_repl"))
            and not c.startswith("invdavg")]
    a = f5[f5["dataset"] == dataset].set_index(key)[cols]
    b = f67[f67["pset"] == FIG5_SCAN_PSET].set_index(key)[cols]
    j = a.join(b, rsuffix="_67", how="inner")
    assert len(j) == len(a) > 0
    for c in cols:
        pd.testing.assert_series_equal(j[c].astype(float), j[c + "_67"].astype(float),
                                       check_names=False)


def _rows():
    """Two methods on hand-made rows: inv0 wins the SEQ scan seeds 1-3, inv1 wins the tuning
    seeds overall (the AND rows of seeds 1-2), so the two readings pick different d."""
    rows = []
    for pset in ("seq", "and"):
        for seed in (1, 2, 3, 4, 5):
            for n in (3, 4):
                good_inv0 = pset == "seq"
                rows.append({"dataset": "stocks", "planner": "greedy", "pset": pset, "n": n,
                             "stream_seed": seed, "role": "tune" if seed <= 2 else "eval",
                             "supported": 1, "static_matches": 5,
                             "static_thr": 10.0, "uncond_thr": 9.0, "thr1_thr": 11.0,
                             "inv0_thr": 20.0 if good_inv0 else 1.0,
                             "inv1_thr": 15.0 if good_inv0 else 40.0,
                             **{f"{m}_{x}": 0.0 for m in ("static", "uncond", "thr1", "inv0",
                                                          "inv1") for x in ("repl", "ovh")}})
    return pd.DataFrame(rows)


def test_fig5_reading_takes_the_scan_d():
    df = _rows()
    assert tuned(df, "stocks", "greedy", d_from="fig5")["best_inv"] == "inv0"
    assert tuned(df, "stocks", "greedy", d_from="fig5")["d_source"] == "Fig. 5 scan"
    assert tuned(df, "stocks", "greedy", d_from="tune")["best_inv"] == "inv1"
    scan = df[(df["pset"] == "seq") & df["stream_seed"].isin(FIG5_SCAN_SEEDS)]
    assert fig5_d_opt(scan, ["inv0", "inv1"]) == "inv0"


def test_fig5_reading_needs_scan_rows():
    df = _rows()
    with pytest.raises(ValueError, match="no Fig. 5 scan rows"):
        tuned(df[df["pset"] == "and"], "stocks", "greedy", d_from="fig5")
    with pytest.raises(ValueError, match="d_from"):
        tuned(df, "stocks", "greedy", d_from="best")


def test_k_of_per_planner():
    """K_zstream applies to ZStream points only; "calibrated" reads the per-data-set choice."""
    from sim.studies.adaptive.invariant_k import ZSTREAM_K, k_of
    base = {"K": 1, "dataset": "stocks"}
    assert k_of({**base, "planner": "greedy", "K_zstream": "calibrated"}) == 1
    assert k_of({**base, "planner": "zstream"}) == 1
    assert k_of({**base, "planner": "zstream", "K_zstream": 3}) == 3
    assert k_of({**base, "planner": "zstream", "K_zstream": "calibrated"}) == ZSTREAM_K["stocks"]


@pytest.mark.parametrize("bad", ["two", 0, "calibrated-ish"])
def test_bad_k_zstream_is_refused(bad):
    from engines.errors import CepsimInputError
    from sim.studies.adaptive.scenario import _check_point
    with pytest.raises(CepsimInputError, match="K_zstream"):
        _check_point({"dataset": "stocks", "planner": "zstream", "pset": "seq", "n": 3,
                      "K_zstream": bad})

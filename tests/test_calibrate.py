"""``cepsim calibrate`` end to end on a small real measurement of the eager engine.

The fit itself is checked against known costs in ``tests/test_costmodel.py``
(``test_calibration_fit_recovers_known_costs``); here the measurement scheme runs for real
(few workloads, short chunks) and must produce a loadable profile and a consistent report.
Timing quality is machine dependent and not asserted beyond sanity.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sim.tools.calibrate import (REMOTE_WORKLOADS, WORKLOADS, calibrate, calibration_stream,
                           measure)
from sim.core.costmodel import COUNT_NAMES, load_profile


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory):
    out = tmp_path_factory.mktemp("cal") / "prof.toml"
    wl = WORKLOADS[:5]
    profile, report = calibrate(out, quick=True, seeds=(1,), repeats=1, workloads=wl,
                                remote_workloads=())
    return out, profile, report, wl


def test_profile_written_and_loadable(calibrated):
    out, profile, report, _ = calibrated
    assert report["out_path"] == str(out)
    back = load_profile(out)
    assert back.unit_cost == pytest.approx(profile.unit_cost)
    assert back.base_cost == pytest.approx(profile.base_cost)
    assert back.meta["engine"] == "eager" and math.isfinite(back.meta["r2"])
    # counters the eager engine never produces are copied from the default, and listed
    default = load_profile(None)
    for k in ("join_probe", "plan_gen", "decision_check", "remote_fetch"):
        assert k in report["unmeasured"]
        assert profile.unit_cost[k] == default.unit_cost[k]
    assert set(profile.unit_cost) == set(COUNT_NAMES)
    # side metrics are priced 0, never fitted (their work is in another column)
    assert report["side_metrics_zero"] == ["routing_check"]
    assert profile.unit_cost["routing_check"] == 0.0 and "routing_check" not in report["unmeasured"]


def test_report_is_consistent(calibrated):
    _, profile, report, wl = calibrated
    assert report["n_runs"] == len(wl) * 3
    assert len(report["workloads"]) == len(wl)
    assert report["call_overhead"] >= 0 and report["base_cost"] >= 0
    # r2 <= 1 holds by construction; a fit that explains the runs must be well above 0
    assert report["r2"] > 0.5, report["r2"]
    for w in report["workloads"]:
        assert w["measured_s"] > 0 and w["predicted_s"] > 0
        assert w["rel_error"] == pytest.approx(w["predicted_s"] / w["measured_s"] - 1)
        assert math.isfinite(w["cv_rel_error"])
        # a fitted linear model is not off by an order of magnitude on its own data
        assert abs(w["rel_error"]) < 1.0
    assert report["workload_rel_error_max"] == pytest.approx(
        max(abs(w["rel_error"]) for w in report["workloads"]))


def test_measure_pairs_time_with_the_same_runs_counters():
    runs = measure(seeds=(3,), quick=True, repeats=1, workloads=WORKLOADS[2:3])
    assert [r["n_events"] for r in runs] == [1000, 3000, 8000]
    assert all(r["time"] > 0 for r in runs)
    # the chunk's counters: a pattern without predicates evaluates none, checks edges
    tot = np.array([r["totals"] for r in runs])
    assert np.all(tot[:, COUNT_NAMES.index("pred_eval")] == 0)
    assert np.all(tot[:, COUNT_NAMES.index("edge_eval")] > 0)


def test_calibration_streams_follow_the_type_weights():
    s = calibration_stream(20000, 5, (30, 1, 69))
    freq = np.bincount(s.types, minlength=3) / len(s)
    np.testing.assert_allclose(freq, [0.30, 0.01, 0.69], atol=0.01)
    assert calibration_stream(100, 5, (1, 1)).types.tolist() == \
        calibration_stream(100, 5, (1, 1)).types.tolist()


def test_remote_stage_prices_the_remote_counters(tmp_path):
    """The second stage fits the remote-data kernel's runs and prices what the eager engine
    never produces (cache operations, utility updates, fetches, decision checks)."""
    profile, report = calibrate(tmp_path / "p.toml", quick=True, seeds=(1,), repeats=1,
                                workloads=WORKLOADS[2:5], remote_workloads=REMOTE_WORKLOADS)
    priced = report["remote_priced"]
    for k in ("cache_op", "utility_update", "remote_fetch", "decision_check"):
        assert k in priced and k not in report["unmeasured"]
        assert math.isfinite(priced[k]) and priced[k] >= 0
        assert profile.unit_cost[k] == priced[k]
    assert report["remote_r2"] > 0.5, report["remote_r2"]
    assert sorted(priced) == load_profile(tmp_path / "p.toml").meta["remote_priced"]

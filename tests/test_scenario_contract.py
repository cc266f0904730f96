"""The scenario contract: metric-name collisions reported at once, input files checked once,
offered load and the ``stable`` flag in queue metrics."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engines.errors import CepsimInputError
from sim.experiments.config import config_from_dict, expand_points
from sim.core.metrics import offered_load, queue_metrics
from sim.experiments.runner import ScenarioContractError, clean_metrics, run_experiment, run_point


def _cfg(**over):
    d = {"name": "c", "paper": "demo", "scenario": "demo:point", "seed": 1,
         "params": {"n": 10}, "grid": {"mu": [0.0, 1.0]}}
    d.update(over)
    return config_from_dict(d)


def test_collisions_are_reported_all_at_once_with_the_fix():
    with pytest.raises(ScenarioContractError) as ei:
        clean_metrics("x:y", {"engine": "e", "n_events": 3, "seed": 1, "ok": 2.0},
                      {"engine": "eager", "n_events": 3})
    msg = str(ei.value)
    assert "'engine'" in msg and "'n_events'" in msg and "'seed'" in msg
    assert "Fix:" in msg and "metrics_row" in msg


def test_run_point_records_every_collision_in_one_error():
    cfg = _cfg(params={"n": 10, "sample_mean": 0, "n_above_mu": 1})
    row = run_point(cfg, expand_points(cfg)[0])
    assert "'sample_mean'" in row["error"] and "'n_above_mu'" in row["error"]


def test_clean_metrics_converts_numpy_scalars():
    out = clean_metrics("x:y", {"a": np.float64(1.5), "b": np.int64(2), "c": np.bool_(True)}, {})
    assert out == {"a": 1.5, "b": 2, "c": True} and type(out["b"]) is int


def test_missing_input_files_stop_the_run_before_any_point(tmp_path):
    cfg = _cfg(params={"n": 10, "profile": "no/such/profile.toml"},
               grid={"mu": [0.0], "data": ["nope.csv", "synthetic"]})
    with pytest.raises(CepsimInputError) as ei:
        run_experiment(cfg, out_dir=tmp_path, progress=False)
    msg = str(ei.value)
    assert "params.profile" in msg and "grid.data" in msg and "'nope.csv'" in msg
    assert "synthetic" not in msg  # symbolic values are the scenario's business
    assert not (tmp_path / "demo").exists()


def test_invalid_profile_is_reported_once(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("base_cost = 1.0\n")
    cfg = _cfg(params={"n": 10, "profile": str(bad)})
    with pytest.raises(CepsimInputError, match="invalid cost profile"):
        run_experiment(cfg, out_dir=tmp_path / "r", progress=False)


def test_offered_load_and_stable_flag():
    a = np.arange(5, dtype=float)             # λ̂ = 1 per second
    s = np.full(5, 2.0)                       # E[S] = 2 -> overloaded
    from sim.core.fastpath import lindley
    st, d = lindley(a, s)
    m = queue_metrics(a, st, d, s)
    assert m["offered_load"] == pytest.approx(2.0) and m["stable"] is False
    assert m["utilisation"] <= 1.0            # utilisation cannot show the overload
    m2 = queue_metrics(a, st, d, s * 0.25, rate=1.0)
    assert m2["offered_load"] == pytest.approx(0.5) and m2["stable"] is True
    assert math.isnan(offered_load(np.zeros(1), np.ones(1)))

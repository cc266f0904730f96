"""Cost profiles: default contents, service times, strict validation, round trip."""
from pathlib import Path

import numpy as np
import pytest

from engines.counters import COUNTER_NAMES, N_COUNTERS, LIVE_PM, PRED_EVAL, PM_CREATED
from engines.errors import CepsimInputError
from sim.core.costmodel import COUNT_NAMES, SIDE_NAMES, CostProfile, load_profile, save_profile


def test_default_profile_covers_all_counts():
    p = load_profile(None)
    assert set(p.unit_cost) == set(COUNT_NAMES)
    assert "live_pm" not in p.unit_cost and "buffered" not in p.unit_cost
    assert p.unit_cost["pred_eval"] == 5.0e-8 and p.base_cost > 0


def test_service_times_vectorised_matches_loop():
    p = load_profile(None)
    rng = np.random.default_rng(3)
    m = rng.integers(0, 50, size=(200, N_COUNTERS)).astype(np.int64)
    got = p.service_times(m)
    for i in range(0, 200, 17):
        want = p.base_cost + sum(m[i, k] * p.unit_cost[name]
                                 for k, name in enumerate(COUNTER_NAMES) if name in p.unit_cost)
        assert got[i] == pytest.approx(want, rel=1e-12)


def test_gauges_cost_nothing():
    p = load_profile(None)
    m = np.zeros((2, N_COUNTERS), dtype=np.int64)
    m[1, LIVE_PM] = 10**6
    st = p.service_times(m)
    assert st[0] == st[1] == p.base_cost
    m[1, PRED_EVAL] = 10
    m[1, PM_CREATED] = 2
    assert p.service_times(m)[1] == pytest.approx(p.base_cost + 10 * 5e-8 + 2 * 2e-7)


def test_service_times_rejects_bad_shapes():
    p = load_profile(None)
    with pytest.raises(CepsimInputError):
        p.service_times(np.zeros((3, 5), dtype=np.int64))
    with pytest.raises(CepsimInputError):
        p.service_times(np.zeros((3, N_COUNTERS)))


def test_round_trip(tmp_path):
    p = load_profile(None)
    q = CostProfile(unit_cost={**p.unit_cost, "pred_eval": 1e-7}, base_cost=2e-6, name="mine",
                    meta={"r2": 0.99})
    out = save_profile(q, tmp_path / "sub" / "mine.toml")
    r = load_profile(out)
    assert r == q and r.meta == {"r2": 0.99}
    assert [f.name for f in out.parent.iterdir()] == ["mine.toml"]  # no temp file left


def _write(tmp_path, text):
    f = tmp_path / "p.toml"
    f.write_text(text)
    return f


BASE = "\n".join(f"{k} = {'0.0' if k in SIDE_NAMES else '1e-8'}" for k in COUNT_NAMES)


@pytest.mark.parametrize("text, needle", [
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE + "\nfoo = 1e-8\n", "foo"),
    ("base_cost = -1e-6\n[unit_cost]\n" + BASE, "base_cost"),
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE.replace("pred_eval = 1e-8", 'pred_eval = "x"'),
     "pred_eval"),
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE.replace("pm_created = 1e-8", "pm_created = -2.0"),
     "pm_created"),
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE.replace("join_probe = 1e-8\n", ""), "join_probe"),
    ("base_cost = 1e-6\nbogus = 1\n[unit_cost]\n" + BASE, "bogus"),
    ("[unit_cost]\n" + BASE, "base_cost"),
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE + "\nlive_pm = 1e-8\n", "live_pm"),
    ("base_cost = = 1", "TOML"),
    # a side metric (the tree NFA's routing decisions, charged in instance_work) must cost 0
    ("base_cost = 1e-6\n[unit_cost]\n" + BASE.replace("routing_check = 0.0", "routing_check = 1e-8"),
     "routing_check"),
])
def test_strict_validation_names_file_and_key(tmp_path, text, needle):
    f = _write(tmp_path, text)
    with pytest.raises(CepsimInputError) as ei:
        load_profile(f)
    assert str(f) in str(ei.value) and needle in str(ei.value)


def test_missing_file(tmp_path):
    with pytest.raises(CepsimInputError, match="calibrate"):
        load_profile(tmp_path / "nope.toml")


def test_calibration_fit_recovers_known_costs():
    """fit_profile on synthetic timings generated from known costs recovers them."""
    from sim.tools.calibrate import fit_profile

    rng = np.random.default_rng(0)
    m = 60
    n_ev = rng.integers(1000, 40000, m).astype(float)
    totals = np.zeros((m, len(COUNT_NAMES)))
    totals[:, 0] = n_ev * rng.uniform(2, 30, m)       # pred_eval
    totals[:, 2] = n_ev * rng.uniform(0.1, 3, m)      # pm_created
    totals[:, 5] = n_ev * rng.uniform(0.0, 0.5, m)    # match_emit
    true = {"pred_eval": 4e-8, "pm_created": 3e-7, "match_emit": 1e-6}
    times = (2e-4 + n_ev * 2e-6 + totals[:, 0] * 4e-8 + totals[:, 2] * 3e-7
             + totals[:, 5] * 1e-6) * rng.normal(1, 0.01, m)
    fit = fit_profile(totals, n_ev, times)
    assert fit["r2"] > 0.99
    for k, v in true.items():
        assert fit["unit_cost"][k] == pytest.approx(v, rel=0.15)
    assert fit["base_cost"] == pytest.approx(2e-6, rel=0.2)
    assert fit["unit_cost"]["plan_gen"] is None   # never observed -> not measured
    assert all(v is None or v >= 0 for v in fit["unit_cost"].values())


SHIPPED_PROFILES = sorted((Path(__file__).resolve().parents[1] / "sim" / "core" /
                           "profiles").glob("*.toml"))


def test_the_shipped_profiles_are_found():
    assert len(SHIPPED_PROFILES) >= 3, "no cost profiles under sim/core/profiles"


@pytest.mark.parametrize("path", SHIPPED_PROFILES, ids=lambda p: p.name)
def test_every_shipped_profile_loads(path):
    """A counter added later must be priced by every shipped profile (docs/COST_MODEL.md), or each
    experiment naming that profile fails at its first point."""
    prof = load_profile(path)
    assert set(prof.unit_cost) == set(COUNT_NAMES)

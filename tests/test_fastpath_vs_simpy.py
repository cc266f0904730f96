"""The Lindley fast path agrees with the SimPy server per event (docs/ARCHITECTURE.md, "The simulator")."""
import numpy as np
import pytest

from engines.counters import N_COUNTERS
from engines.errors import CepsimInputError
from sim.core.arrivals import piecewise_poisson_arrivals, poisson_arrivals
from sim.core.costmodel import CostProfile, COUNT_NAMES, SIDE_NAMES, load_profile
from sim.core.fastpath import lindley
from sim.core.queue import simulate_simpy
from sim.core.simulate import simulate_counters

N = 20_000


def _counters(seed, n=N):
    rng = np.random.default_rng(seed)
    lam = np.zeros(N_COUNTERS)
    lam[:12] = [40, 20, 3, 3, 1, 0.2, 5, 0.001, 0.5, 0, 10, 4]   # the original 12 columns
    lam[12:] = 0.5                                                 # appended columns
    m = rng.poisson(lam=lam, size=(n, N_COUNTERS)).astype(np.int64)
    return m


def _profiles():
    default = load_profile(None)
    heavy_pm = CostProfile(unit_cost={k: (2e-6 if k.startswith("pm") else 0.0 if k in SIDE_NAMES
                                          else 1e-8)
                                      for k in COUNT_NAMES}, base_cost=1e-6, name="heavy_pm")
    return [default, heavy_pm]


def _assert_close(x, y, rel=1e-9):
    # per event relative agreement of absolute times (SimPy's clock rounds a + (t - a))
    np.testing.assert_allclose(x, y, rtol=rel, atol=0)


@pytest.mark.parametrize("rho", [0.5, 0.95, 1.2])
@pytest.mark.parametrize("pidx", [0, 1])
def test_agreement_random_workloads(rho, pidx):
    profile = _profiles()[pidx]
    c = _counters(seed=int(rho * 100) + pidx)
    s = profile.service_times(c)
    rate = rho / s.mean()
    a = poisson_arrivals(N, rate, seed=11 + pidx)
    st_f, dp_f = lindley(a, s)
    svc = s.tolist()
    st_s, dp_s = simulate_simpy(a, lambda i, now: svc[i], N)
    _assert_close(st_s, st_f)
    _assert_close(dp_s, dp_f)
    # waits: absolute error bounded by clock rounding relative to the makespan
    np.testing.assert_allclose(st_s - a, st_f - a, rtol=0, atol=1e-9 * dp_f[-1])


def test_agreement_piecewise_overload_and_store_design():
    profile = load_profile(None)
    c = _counters(seed=99, n=5000)
    s = profile.service_times(c)
    mu = 1 / s.mean()
    a = piecewise_poisson_arrivals(5000, [(0.3, 0.5 * mu), (0.4, 2.0 * mu), (0.3, 0.5 * mu)], 3)
    st_f, dp_f = lindley(a, s)
    svc = s.tolist()
    for design in ("server", "store"):
        st_s, dp_s = simulate_simpy(a, lambda i, now: svc[i], 5000, design=design)
        _assert_close(st_s, st_f)
        _assert_close(dp_s, dp_f)


def test_service_fn_sees_start_time():
    a = np.array([0.0, 0.1, 5.0])
    seen = []

    def fn(i, now):
        seen.append((i, now))
        return 1.0
    st, dp = simulate_simpy(a, fn, 3)
    assert seen == [(0, 0.0), (1, 1.0), (2, 5.0)]
    assert dp.tolist() == [1.0, 2.0, 6.0]


def test_simulate_counters_paths_agree_and_record_path():
    profile = load_profile(None)
    c = _counters(seed=1, n=3000)
    s = profile.service_times(c)
    a = poisson_arrivals(3000, 0.9 / s.mean(), seed=2)
    last = np.sort(np.random.default_rng(0).integers(0, 3000, 400))
    det = np.minimum(last + np.random.default_rng(1).integers(0, 3, 400), 3000)
    fast = simulate_counters(c, a, profile, "auto", last, det)
    slow = simulate_counters(c, a, profile, "simpy", last, det)
    assert fast.metrics["sim_path"] == "fast" and slow.metrics["sim_path"] == "simpy"
    np.testing.assert_allclose(slow.match_latency, fast.match_latency, rtol=1e-9,
                               atol=1e-12 * a[-1])
    for k in ("latency_mean", "latency_p99", "wait_mean", "queue_peak", "final_latency_mean"):
        assert slow.metrics[k] == pytest.approx(fast.metrics[k], rel=1e-9)


def test_time_dependent_forces_simpy():
    profile = load_profile(None)
    c = _counters(seed=1, n=100)
    a = poisson_arrivals(100, 1e4, seed=2)
    r = simulate_counters(c, a, profile, "auto", time_dependent=True,
                          service_fn=lambda i, now: 1e-4 if now < 0.005 else 0.0)
    assert r.metrics["sim_path"] == "simpy"
    with pytest.raises(CepsimInputError, match="time-dependent"):
        simulate_counters(c, a, profile, "fast", time_dependent=True)

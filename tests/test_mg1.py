"""M/M/1 and M/D/1 theory vs the simulated queue (fast path), and fast vs SimPy latencies.

Tolerances are derived from the run's own batch-means 95% CI: the simulated mean must lie
within 2 CI half-widths of theory (a ~4-sigma band, so a correct queue fails with negligible
probability), and the CI itself must be tight enough (< 4% of theory) for the check to mean
something at this n.
"""
import numpy as np
import pytest

from engines.counters import N_COUNTERS
from sim.core.arrivals import poisson_arrivals
from sim.core.costmodel import load_profile
from sim.studies.basic.scenario import batch_means_ci, md1_wait, mg1_synthetic, mm1_wait, pk_wait
from sim.core.simulate import simulate_counters


@pytest.mark.parametrize("service", ["exp", "det"])
@pytest.mark.parametrize("rho", [0.3, 0.7])
def test_mg1_matches_theory(service, rho):
    row = mg1_synthetic({"rho": rho, "service": service, "n_events": 400_000}, seed=12345)
    # mean queue wait in units of the mean service time, written out (not via mm1_wait /
    # md1_wait, which the scenario itself uses): M/M/1 rho/(1-rho), M/D/1 rho/(2(1-rho))
    theory = rho / (1 - rho) if service == "exp" else rho / (2 * (1 - rho))
    assert row["theory_wait"] == pytest.approx(theory, rel=1e-12)
    assert row["ci_rel_half"] < 0.04
    assert abs(row["wait_mean"] - theory) <= 2 * row["wait_ci_half"]
    assert abs(row["rho_measured"] - rho) < 0.02


def test_mg1_detects_wrong_queue():
    """The check can fail: M/M/1 data against M/D/1 theory is far outside the CI."""
    row = mg1_synthetic({"rho": 0.7, "service": "exp", "n_events": 400_000}, seed=1)
    assert abs(row["wait_mean"] - md1_wait(0.7)) > 2 * row["wait_ci_half"]


def test_formulas():
    assert mm1_wait(0.5) == pytest.approx(1.0)
    assert md1_wait(0.5) == pytest.approx(0.5)
    # P-K reduces to both closed forms
    assert pk_wait(0.5, 1.0, 2.0) == pytest.approx(mm1_wait(0.5))
    assert pk_wait(0.5, 1.0, 1.0) == pytest.approx(md1_wait(0.5))


def test_batch_means_ci_iid():
    v = np.random.default_rng(0).normal(3.0, 1.0, 64_000)
    m, h = batch_means_ci(v, 32)
    assert m == pytest.approx(v.mean())
    assert h == pytest.approx(1.96 / np.sqrt(v.size), rel=0.35)


def test_simulate_counters_simpy_and_fast_same_latencies():
    rng = np.random.default_rng(4)
    n = 20_000
    lam = np.zeros(N_COUNTERS)
    lam[:12] = [30, 10, 2, 2, 1, 0.1, 3, 0, 0, 0, 5, 2]
    c = rng.poisson(lam, size=(n, N_COUNTERS)).astype(np.int64)
    profile = load_profile(None)
    s = profile.service_times(c)
    a = poisson_arrivals(n, 0.85 / s.mean(), seed=5)
    last = np.sort(rng.integers(0, n, 3000))
    det = np.minimum(last + rng.integers(0, 4, 3000), n)
    f = simulate_counters(c, a, profile, "fast", last, det, keep_events=True)
    p = simulate_counters(c, a, profile, "simpy", last, det, keep_events=True)
    np.testing.assert_allclose(p.match_latency, f.match_latency, rtol=1e-9, atol=1e-12 * a[-1])
    np.testing.assert_allclose(p.events["depart"], f.events["depart"], rtol=1e-9)
    assert p.metrics["latency_p95"] == pytest.approx(f.metrics["latency_p95"], rel=1e-9)


def test_autocorrelation_is_exactly_rounded_and_order_free():
    """The sums are exactly rounded: the value is the true ratio's nearest doubles' ratio, the
    same whatever order (or BLAS thread count) the products were added in."""
    import math
    from fractions import Fraction

    from sim.studies.basic.scenario import autocorrelation
    rng = np.random.default_rng(7)
    x = rng.exponential(1.0, 5000) * (1 + np.sin(np.arange(5000) / 50.0))
    c = x - x.mean()
    for lag in (1, 10, 100):
        num = float(sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(c[:-lag], c[lag:])))
        den = float(sum(Fraction(float(a)) ** 2 for a in c))
        assert autocorrelation(x, lag) == num / den
    assert autocorrelation(np.full(10, 3.0), 1) == 0.0
    alt = np.array([1.0, -1.0] * 50)
    assert math.isclose(autocorrelation(alt, 1), -0.99, rel_tol=1e-12)

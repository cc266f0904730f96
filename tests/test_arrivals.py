"""Arrival processes: determinism, rates, validation."""
import numpy as np
import pytest

from engines.errors import CepsimInputError
from sim.core.arrivals import piecewise_poisson_arrivals, poisson_arrivals, replay_arrivals


def test_poisson_deterministic_and_rate():
    a = poisson_arrivals(50_000, 200.0, seed=7)
    b = poisson_arrivals(50_000, 200.0, seed=7)
    assert a.dtype == np.float64 and a.shape == (50_000,)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, poisson_arrivals(50_000, 200.0, seed=8))
    assert np.all(np.diff(a) >= 0) and a[0] > 0
    gaps = np.diff(a)
    # mean gap 1/200 with standard error (1/200)/sqrt(n) ~ 2.2e-5; allow 5 SE
    assert abs(gaps.mean() - 1 / 200) < 5 * (1 / 200) / np.sqrt(gaps.size)
    # exponential: sd == mean
    assert abs(gaps.std() / gaps.mean() - 1) < 0.03


def test_piecewise_segments_rates():
    n = 60_000
    a = piecewise_poisson_arrivals(n, [(0.25, 100.0), (0.5, 1000.0), (0.25, 100.0)], seed=1)
    assert a.shape == (n,) and np.all(np.diff(a) >= 0)
    g = np.diff(np.concatenate(([0.0], a)))
    m1, m2, m3 = g[:15000].mean(), g[15000:45000].mean(), g[45000:].mean()
    assert abs(m1 / 0.01 - 1) < 0.05 and abs(m3 / 0.01 - 1) < 0.05
    assert abs(m2 / 0.001 - 1) < 0.03
    assert np.array_equal(a, piecewise_poisson_arrivals(
        n, [(0.25, 100.0), (0.5, 1000.0), (0.25, 100.0)], seed=1))


def test_piecewise_single_segment_counts_add_up():
    a = piecewise_poisson_arrivals(7, [(1 / 3, 5.0), (1 / 3, 6.0), (1 / 3, 7.0)], seed=0)
    assert a.shape == (7,)


@pytest.mark.parametrize("segments, msg", [
    ([], "empty"),
    ([(0.5, 10.0)], "sum to 1"),
    ([(0.5, 10.0), (0.5, -1.0)], "positive"),
    ([(0.0, 10.0), (1.0, 1.0)], "> 0"),
    ("abc", "pairs"),
])
def test_piecewise_validation(segments, msg):
    with pytest.raises(CepsimInputError, match=msg):
        piecewise_poisson_arrivals(10, segments, seed=0)


@pytest.mark.parametrize("n, rate", [(-1, 1.0), (1.5, 1.0), (10, 0.0), (10, float("inf")),
                                     (10, "x")])
def test_poisson_validation(n, rate):
    with pytest.raises(CepsimInputError):
        poisson_arrivals(n, rate, seed=0)


def test_replay():
    ts = np.array([10.0, 10.5, 10.5, 12.0])
    assert np.array_equal(replay_arrivals(ts), [0.0, 0.5, 0.5, 2.0])
    assert replay_arrivals(np.array([])).shape == (0,)
    with pytest.raises(CepsimInputError, match="non-decreasing"):
        replay_arrivals([1.0, 0.5])
    with pytest.raises(CepsimInputError, match="finite"):
        replay_arrivals([0.0, np.nan])

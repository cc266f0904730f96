"""The baselines shed until the queue is back under the bound (``stop = "bound"``) and the
``stop = "rate"`` variant stops once the arrival rate is below capacity; DARLING's per-type
budgets by hand.  Hand-built arrivals and queue lengths on stub contexts."""
from __future__ import annotations

from collections import deque
from types import SimpleNamespace

import numpy as np
import pytest

from engines import counters as C
from engines.shedding.darling import budgets
from engines.shedding.random_pm import RandomPM, drop_probability
from engines.shedding.spice import Spice

Z = 1e-3                       # mean service time: mu = 1000 events/s
# 1000 arrivals at 4 mu, then 1000 at mu / 4 (the rate over the last 512 arrivals)
ARR = np.concatenate([np.arange(1000) * Z / 4, 1000 * Z / 4 + np.arange(1, 1001) * 4 * Z])
FAST, SLOW = 1000, 2000        # queue.tail: rate 4 mu / mu / 4


class _Stepper:
    def __init__(self, n_pm=1000):
        self.n_pm = n_pm
        self.adm = []

    def pm_snapshot(self):
        return np.arange(self.n_pm), None, None

    def drop_pms(self, kill):
        r = np.zeros(C.N_COUNTERS, dtype=np.int64)
        r[C.PM_REMOVED] = len(kill)
        return r

    def set_admission(self, mode, util, thr, bins):
        self.adm.append((mode, thr))


def _ctx(q_len, tail):
    return SimpleNamespace(arrivals=ARR, queue=SimpleNamespace(length=q_len, tail=tail),
                           stepper=_Stepper())


def _random_pm(stop):
    sh = RandomPM(lmax=100 * Z, beta=0.8, stop=stop, seed=1)
    sh.ctx = _ctx(0, FAST)
    sh.z_bar, sh.n_in, sh.active = Z, 100.0, True       # bound beta N_in = 80
    return sh


def test_drop_probability_by_hand():
    # rate 4 mu: 1 - 1/4 = 0.75; queue 160 over a bound of 80: 1 - 80/160 = 0.5
    assert drop_probability(160, 80.0, 4000.0, Z, "rate") == pytest.approx(0.75)
    assert drop_probability(160, 80.0, 4000.0, Z, "bound") == pytest.approx(0.75)
    # rate mu / 4: the rate term is -3; only the bound term remains
    assert drop_probability(160, 80.0, 250.0, Z, "rate") == pytest.approx(-3.0)
    assert drop_probability(160, 80.0, 250.0, Z, "bound") == pytest.approx(0.5)
    assert drop_probability(320, 80.0, 250.0, Z, "bound") == pytest.approx(0.75)


@pytest.mark.parametrize("stop", ["bound", "rate"])
def test_random_pm_sheds_until_the_queue_is_under_the_bound(stop):
    sh = _random_pm(stop)
    # overloaded by the rate: both drop
    sh.ctx.queue.length, sh.ctx.queue.tail = 160, FAST
    assert sh.after_step(0, None, 0.0)[C.PM_REMOVED] > 0
    # the burst is over (rate mu / 4), the queue still twice the bound: only "bound" drops,
    # about half of the 1000 partial matches
    sh.ctx.queue.tail = SLOW
    out = sh.after_step(0, None, 0.0)
    if stop == "bound":
        assert 400 < out[C.PM_REMOVED] < 600
    else:
        assert out is None
    # back under the bound (79 < 80): nobody drops
    sh.ctx.queue.length = 79
    assert sh.after_step(0, None, 0.0) is None


def _spice(stop):
    sh = Spice(lmax=100 * Z, kind="hspice", beta=0.8, replicate=False, stop=stop)
    sh.ctx = _ctx(0, FAST)
    sh.z_bar, sh.n_in, sh.active = Z, 100.0, True
    sh.window = 1.0
    sh._ts_l = [0.0] * 10
    sh._types_l = [0] * 10
    sh.in_pattern = [False]
    sh.u_sorted = np.array([0.0, 0.5, 1.0])
    sh.cdf = np.array([0.5, 0.8, 1.0])
    return sh


def _serve(sh, n):
    for _ in range(n):
        sh.before_step(0, 0.0)


@pytest.mark.parametrize("stop", ["bound", "rate"])
def test_spice_keeps_its_threshold_until_the_queue_is_under_the_bound(stop):
    sh = _spice(stop)
    q = sh.ctx.queue
    q.length, q.tail = 160, FAST
    _serve(sh, 1)                      # the first check (every 64 served): rate 4 mu -> on
    assert sh.on
    q.tail = SLOW                      # rate mu / 4, queue still over the bound
    _serve(sh, 64)
    assert sh.on is (stop == "bound")
    q.length = 79                      # under the bound (80): off for both
    _serve(sh, 64)
    assert not sh.on


def test_budgets_by_hand():
    z = np.array([1.0, 2.0, 4.0])
    r = np.array([1.0, 3.0, 4.0])
    # rate (the authors' code): ceil(0.8 * 1000 * R / sum R) = 100, 300, 400
    np.testing.assert_array_equal(budgets("rate", z, r, 1000.0, 0.8), [100.0, 300.0, 400.0])
    # rounding up: 80 * (1/3, 2/3) = 26.7, 53.3 -> 27, 54
    np.testing.assert_array_equal(budgets("rate", z[:2], np.array([1.0, 2.0]), 100.0, 0.8),
                                  [27.0, 54.0])
    # cost (the paper's text): Z R = 1, 6, 16 of 23
    np.testing.assert_allclose(budgets("cost", z, r, 1000.0, 0.8),
                               [800 / 23, 4800 / 23, 12800 / 23])
    np.testing.assert_allclose(budgets("equal", z, r, 1000.0, 0.8), [800 / 3] * 3)
    assert np.isinf(budgets("rate", z, r, np.inf, 0.8)).all()


def test_testbed_shape_segments_by_hand():
    from sim.studies.darling.scenario import overload_segments
    # 100 events, warm-up 10 at lam0 = 1; peak 17 x lam0, regular 17 / 1.7 = 10; the 3 % peak
    # starts inside the warm-up and does not fire; 40-50 %, 60-80 %, 90-100 % do
    segs = overload_segments(100, 10, 1.0, "testbed", 17.0, 0.7, 1.7)
    want = [(0.1, 1.0), (0.3, 10.0), (0.1, 17.0), (0.1, 10.0), (0.2, 17.0), (0.1, 10.0),
            (0.1, 17.0)]
    assert len(segs) == len(want)
    for (f, r), (wf, wr) in zip(segs, want):
        assert f == pytest.approx(wf) and r == pytest.approx(wr)
    # a warm-up of 2 % (< 3 %): the first peak (3-33 %) fires too
    segs = overload_segments(100, 2, 1.0, "testbed", 17.0, 0.7, 1.7)
    want = [(0.02, 1.0), (0.01, 10.0), (0.3, 17.0), (0.07, 10.0), (0.1, 17.0), (0.1, 10.0),
            (0.2, 17.0), (0.1, 10.0), (0.1, 17.0)]
    assert [round(f, 6) for f, _ in segs] == [round(f, 6) for f, _ in want]
    assert [r for _, r in segs] == pytest.approx([r for _, r in want])


def test_testbed_arrivals_on_a_tiny_stream():
    """The scenario's testbed arrivals: the peaks' events arrive 1.7x as fast as the regular
    ones (means over the segments of a 2,000-event draw)."""
    from sim.core.arrivals import piecewise_poisson_arrivals
    from sim.studies.darling.scenario import overload_segments
    segs = overload_segments(2000, 200, 1.0, "testbed", 17.0, 0.7, 1.7)
    arr = piecewise_poisson_arrivals(2000, segs, seed=4)
    gaps = np.diff(arr)
    peak = np.r_[gaps[800:999], gaps[1200:1599], gaps[1800:]].mean()
    reg = np.r_[gaps[200:799], gaps[1000:1199], gaps[1600:1799]].mean()
    assert reg / peak == pytest.approx(1.7, rel=0.15)
    assert gaps[:199].mean() == pytest.approx(1.0, rel=0.2)

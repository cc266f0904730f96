"""Latency summaries and exact queue metrics."""
import math

import numpy as np
import pytest

from sim.core.fastpath import lindley
from sim.core.metrics import latency_summary, number_in_system_at_arrivals, queue_metrics


def test_latency_summary_values():
    s = latency_summary(np.arange(101, dtype=float))
    assert s["mean"] == 50 and s["p5"] == 5 and s["p50"] == 50 and s["p99"] == 99
    assert s["count"] == 101


def test_latency_summary_empty_and_nan():
    s = latency_summary([])
    assert s["count"] == 0 and all(math.isnan(s[k]) for k in s if k != "count")
    s = latency_summary([1.0, np.nan, 3.0])
    assert s["count"] == 2 and s["mean"] == 2.0


def _brute_number_in_system(a, d):
    out = []
    for i in range(len(a)):
        # events j <= i that have not departed strictly before/at a_i (j == i is present)
        out.append(sum(1 for j in range(i + 1) if j == i or d[j] > a[i]))
    return np.array(out)


def test_number_in_system_exact_vs_brute_force():
    rng = np.random.default_rng(5)
    for rho in (0.3, 0.9, 1.5):
        a = np.cumsum(rng.exponential(1.0, 300))
        a[50:55] = a[50]  # simultaneous arrivals
        s = rng.exponential(rho, 300)
        s[10:20] = 0.0    # zero services
        st, d = lindley(a, s)
        assert np.array_equal(number_in_system_at_arrivals(a, d), _brute_number_in_system(a, d))


def test_queue_metrics_hand_example():
    a = np.array([0.0, 1.0, 1.5, 10.0])
    s = np.array([2.0, 1.0, 1.0, 1.0])
    st, d = lindley(a, s)
    assert st.tolist() == [0.0, 2.0, 3.0, 10.0] and d.tolist() == [2.0, 3.0, 4.0, 11.0]
    m = queue_metrics(a, st, d, s)
    assert m["queue_peak"] == 3          # at t=1.5: events 0, 1, 2
    assert m["wait_mean"] == pytest.approx((0 + 1 + 1.5 + 0) / 4)
    assert m["busy_time"] == 5.0 and m["makespan"] == 11.0
    assert m["utilisation"] == pytest.approx(5 / 11)
    assert m["throughput"] == pytest.approx(4 / 5)


def test_queue_metrics_empty():
    e = np.zeros(0)
    m = queue_metrics(e, e, e, e)
    assert m["n_events"] == 0 and m["queue_peak"] == 0 and math.isnan(m["wait_mean"])


def test_simulate_counters_match_and_final_latency_hand_example():
    from engines.counters import N_COUNTERS
    from sim.core.costmodel import CostProfile, COUNT_NAMES
    from sim.core.simulate import simulate_counters

    prof = CostProfile(unit_cost={k: 0.0 for k in COUNT_NAMES}, base_cost=1.0)
    c = np.zeros((4, N_COUNTERS), dtype=np.int64)
    a = np.array([0.0, 0.5, 0.6, 10.0])          # departs: 1, 2, 3, 11
    last = np.array([1, 2, 2, 3])
    det = np.array([1, 2, 3, 4])                  # 4 == n: end-of-stream flush
    r = simulate_counters(c, a, prof, "fast", last, det, keep_events=True)
    assert r.match_latency.tolist() == [2.0 - 0.5, 3.0 - 0.6, 11.0 - 0.6, 11.0 - 10.0]
    assert r.metrics["matches"] == 4 and r.metrics["final_events"] == 3
    assert r.metrics["final_latency_mean"] == pytest.approx((1.5 + 2.4 + 1.0) / 3)
    assert r.events["depart"].tolist() == [1.0, 2.0, 3.0, 11.0]
    none = simulate_counters(c, a, prof, "fast")
    assert none.metrics["matches"] == 0 and math.isnan(none.metrics["latency_mean"])

"""``sim.core.simulate.simulate`` end to end with the real eager engine (docs/COST_MODEL.md and docs/ARCHITECTURE.md).

The engine runs through ``engines.registry``; its counters become service times through a cost
profile; the queue runs on the Lindley fast path and on SimPy, which must agree per event to
1e-9 relative.  The match-latency definition (detection time - arrival of the last event) is
checked on hand-worked streams, including a trailing NOT detected at a later event and at end of
stream.
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream
from sim.core.arrivals import poisson_arrivals
from sim.core.costmodel import COUNT_NAMES, CostProfile, load_profile
from sim.core.metrics import number_in_system_at_arrivals
from sim.studies.basic.scenario import engine_program, synthetic_stream
from sim.core.simulate import simulate

N = 3000


@pytest.fixture(scope="module")
def workload():
    stream = synthetic_stream(N, seed=7)
    program = engine_program(stream, window=20)
    profile = load_profile(None)
    res = run_engine("eager", program, stream)
    service = profile.service_times(np.asarray(res.counters)[:N])
    arrivals = poisson_arrivals(N, 0.9 / service.mean(), seed=8)   # rho = 0.9: real queueing
    return stream, program, profile, arrivals, res


@pytest.fixture(scope="module")
def both_paths(workload):
    stream, program, profile, arrivals, _ = workload
    fast = simulate(stream, program, "eager", arrivals, profile, path="auto", keep_events=True)
    slow = simulate(stream, program, "eager", arrivals, profile, path="simpy", keep_events=True)
    return fast, slow


def test_auto_picks_fast_and_records_it(both_paths):
    fast, slow = both_paths
    assert fast.metrics["sim_path"] == "fast"
    assert slow.metrics["sim_path"] == "simpy"
    assert fast.metrics["engine"] == "eager"


def test_service_times_are_the_engine_counters_priced(workload, both_paths):
    _, _, profile, _, res = workload
    fast, _ = both_paths
    counters = np.asarray(res.counters)[:N]
    expect = counters[:, list(C.COUNT_COLUMNS)].astype(float) @ np.array(
        [profile.unit_cost[k] for k in COUNT_NAMES]) + profile.base_cost
    np.testing.assert_allclose(fast.events["service"], expect, rtol=1e-12)
    # the engine did real, varying work: the service times are not all the same
    assert np.ptp(fast.events["service"]) > 0
    assert fast.metrics["matches"] == len(res.matches) > 0
    assert fast.metrics["pred_eval"] == int(counters[:, C.PRED_EVAL].sum()) > 0
    assert fast.metrics["peak_live_pm"] == int(counters[:, C.LIVE_PM].max()) > 0


def test_fast_and_simpy_agree_per_event(both_paths):
    fast, slow = both_paths
    makespan = fast.events["depart"][-1]
    for key in ("start", "depart"):
        np.testing.assert_allclose(slow.events[key], fast.events[key], rtol=1e-9, atol=0)
    np.testing.assert_array_equal(slow.events["service"], fast.events["service"])
    np.testing.assert_allclose(slow.match_detect_time, fast.match_detect_time, rtol=1e-9, atol=0)
    # latencies are differences of absolute clocks: bounded by the clock's rounding
    np.testing.assert_allclose(slow.match_latency, fast.match_latency, rtol=0,
                               atol=1e-9 * makespan)
    for k in ("latency_mean", "latency_p50", "latency_p99", "final_latency_mean",
              "utilisation", "throughput"):
        assert slow.metrics[k] == pytest.approx(fast.metrics[k], rel=1e-9), k
    assert slow.metrics["queue_peak"] == fast.metrics["queue_peak"]


def test_metrics_follow_their_definitions(workload, both_paths):
    _, _, _, arrivals, res = workload
    fast, _ = both_paths
    ev, m = fast.events, fast.metrics
    # Lindley by hand
    prev = -np.inf
    start = np.empty(N)
    depart = np.empty(N)
    for i in range(N):
        start[i] = max(arrivals[i], prev)
        prev = depart[i] = start[i] + ev["service"][i]
    np.testing.assert_array_equal(ev["start"], start)
    np.testing.assert_array_equal(ev["depart"], depart)
    det = res.matches.detect
    last = res.matches.last_event
    lat = depart[np.minimum(det, N - 1)] - arrivals[last]
    np.testing.assert_array_equal(fast.match_latency, lat)
    assert np.all(lat >= ev["service"][last] - 1e-15)  # at least the last event's own service
    assert m["latency_mean"] == pytest.approx(lat.mean(), rel=1e-12)
    for p in (5, 25, 50, 75, 95, 99):
        assert m[f"latency_p{p}"] == pytest.approx(np.percentile(lat, p), rel=1e-12)
    finals = np.unique(last)
    np.testing.assert_array_equal(fast.final_events, finals)
    np.testing.assert_array_equal(fast.final_latency, depart[finals] - arrivals[finals])
    assert m["final_events"] == finals.size
    busy = ev["service"].sum()
    assert m["throughput"] == pytest.approx(N / busy)
    assert m["utilisation"] == pytest.approx(busy / (depart[-1] - arrivals[0]))
    # queue peak: brute force number in system at every arrival
    brute = max(int(np.sum((arrivals[:i + 1] <= arrivals[i]) & (depart[:i + 1] > arrivals[i])))
                for i in range(N))
    assert m["queue_peak"] == brute == number_in_system_at_arrivals(arrivals, depart).max()


# --- hand-worked latency examples --------------------------------------------------------------
# events:   0 A   1 B   2 X   3 C   4 X   5 A   6 B
# arrivals: 0     0.5   0.6   0.7   10    10.2  10.3      service 1 each (base cost only)
# start:    0     1     2     3     10    11    12
# depart:   1     2     3     4     11    12    13
HAND_TYPES = [0, 1, 3, 2, 3, 0, 1]
HAND_ARR = np.array([0.0, 0.5, 0.6, 0.7, 10.0, 10.2, 10.3])
HAND_DEPART = np.array([1.0, 2.0, 3.0, 4.0, 11.0, 12.0, 13.0])


def _hand(pattern: str, path: str):
    stream = EventStream.from_arrays(np.array(HAND_TYPES, np.int32), np.arange(7.0),
                                     np.zeros((7, 1)), ["A", "B", "C", "X"], ["x"])
    program = compile_pattern(parse_pattern(pattern), stream.schema)
    unit = CostProfile(unit_cost={k: 0.0 for k in COUNT_NAMES}, base_cost=1.0, name="unit")
    return simulate(stream, program, "eager", HAND_ARR, unit, path=path, keep_events=True)


@pytest.mark.parametrize("path", ["fast", "simpy"])
def test_match_latency_detected_at_last_event(path):
    r = _hand("PATTERN SEQ(A a, B b) WITHIN 3 events", path)
    np.testing.assert_allclose(r.events["depart"], HAND_DEPART, rtol=1e-12)
    recs = r.engine_result.matches.records()
    order = np.argsort([rec["a"] for rec in recs])
    assert [recs[i] for i in order] == [{"a": 0, "b": 1}, {"a": 5, "b": 6}]
    np.testing.assert_array_equal(r.engine_result.matches.detect[order], [1, 6])
    # detection = departure of the last event: 2 - 0.5 and 13 - 10.3
    np.testing.assert_allclose(r.match_latency[order], [1.5, 2.7], rtol=1e-12)
    np.testing.assert_allclose(r.match_detect_time[order], [2.0, 13.0], rtol=1e-12)
    np.testing.assert_allclose(r.final_latency, [1.5, 2.7], rtol=1e-12)


@pytest.mark.parametrize("path", ["fast", "simpy"])
def test_match_latency_trailing_not_detected_later(path):
    # (0,1): no C at position 2 (< 0 + 3), detected when the window of event 0 closes, i.e. at
    # event 3 (3 - 0 >= 3): latency = depart[3] - arrival[1] = 4 - 0.5.  (5,6): the window of
    # event 5 never closes before the stream ends: detect = n = 7, emitted when the last event
    # departs: 13 - 10.3.
    r = _hand("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 events", path)
    ms = r.engine_result.matches
    order = np.argsort([rec["a"] for rec in ms.records()])
    assert [ms.records()[i] for i in order] == [{"a": 0, "b": 1}, {"a": 5, "b": 6}]
    np.testing.assert_array_equal(ms.detect[order], [3, 7])
    np.testing.assert_allclose(r.match_latency[order], [3.5, 2.7], rtol=1e-12)
    np.testing.assert_allclose(r.match_detect_time[order], [4.0, 13.0], rtol=1e-12)
    # the final-event latency is the last event's own sojourn, not the detection delay
    np.testing.assert_allclose(r.final_latency, [1.5, 2.7], rtol=1e-12)
    assert r.metrics["latency_mean"] == pytest.approx((3.5 + 2.7) / 2)


def test_trailing_not_killed_by_a_c_inside_the_window():
    # A B C X: the C at position 2 lies after b and within the window of a (2 - 0 < 3)
    stream = EventStream.from_arrays(np.array([0, 1, 2, 3], np.int32), np.arange(4.0),
                                     np.zeros((4, 1)), ["A", "B", "C", "X"], ["x"])
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b, NOT(C c)) WITHIN 3 events"),
                              stream.schema)
    unit = CostProfile(unit_cost={k: 0.0 for k in COUNT_NAMES}, base_cost=1.0, name="unit")
    r = simulate(stream, program, "eager", np.arange(4.0), unit)
    assert r.metrics["matches"] == 0 and r.match_latency.size == 0
    assert np.isnan(r.metrics["latency_mean"])

"""The shedding queue with the no-op shedder equals the Lindley fast path (to 1e-9)."""
from __future__ import annotations

import numpy as np

from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.pattern import parse_pattern
from engines.stream import EventStream
from sim.core.arrivals import piecewise_poisson_arrivals, poisson_arrivals
from sim.core.costmodel import load_profile
from sim.core.fastpath import lindley
from engines.shedding.base import Shedder, ShedQueue
from sim.core.shedding_queue import run_shedding


def _stream(n=600, seed=5):
    rng = np.random.default_rng(seed)
    types = rng.integers(0, 3, n).astype(np.int32)
    ts = np.cumsum(rng.exponential(1.0, n))
    attrs = rng.normal(size=(n, 2))
    return EventStream.from_arrays(types, ts, attrs, ("A", "B", "C"), ("x", "v"))


def _check(text, arrivals_fn):
    stream = _stream()
    program = compile_pattern(parse_pattern(text), stream.schema)
    prof = load_profile(None)
    eager = run_eager(program, stream)
    svc = prof.service_times(eager.counters)
    arr = arrivals_fn(len(stream))
    start, depart = lindley(arr, svc)
    res = run_shedding(stream, program, arr, prof, Shedder(), n_warm=100)
    assert res.served.all()
    np.testing.assert_allclose(res.start, start, rtol=1e-9, atol=0)
    np.testing.assert_allclose(res.depart, depart, rtol=1e-9, atol=0)
    # match latencies: detection at the departure of the detecting event
    det = eager.matches.detect
    last = eager.matches.last_event
    keep = det >= 100
    want = depart[np.minimum(det[keep], len(stream) - 1)] - arr[last[keep]]
    np.testing.assert_allclose(np.sort(res.match_latency), np.sort(want), rtol=1e-9, atol=1e-15)
    # the summary (percentiles taken in place on the returned latencies, after the mean)
    m = res.metrics
    assert m["matches_measured"] == len(want)
    np.testing.assert_allclose([m["latency_mean"], m["latency_p50"], m["latency_p95"],
                                m["latency_p99"], m["latency_max"]],
                               [want.mean(), *np.percentile(want, [50, 95, 99]), want.max()],
                               rtol=1e-9, atol=1e-15)
    assert res.metrics["shed_events"] == 0
    return len(want)


def test_noop_shedder_equals_lindley_low_and_high_load():
    q = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND c.v > a.v WITHIN 8 seconds"
    svc_mean = 1.2e-5
    n1 = _check(q, lambda n: poisson_arrivals(n, 0.3 / svc_mean, seed=1))
    n2 = _check(q, lambda n: piecewise_poisson_arrivals(
        n, [(0.3, 0.5 / svc_mean), (0.4, 50 / svc_mean), (0.3, 0.5 / svc_mean)], seed=2))
    assert n1 > 0 and n2 > 0


def test_noop_shedder_with_trailing_and_middle_negation():
    q = ("PATTERN SEQ(A a, NOT(C c), B b, NOT(C d)) WHERE a.x < b.x AND d.v > 0 "
         "WITHIN 5 seconds")
    assert _check(q, lambda n: poisson_arrivals(n, 2.0e4, seed=3)) > 0


def test_queue_drop_and_pop():
    q = ShedQueue(np.array([0, 1, 0, 2], dtype=np.int32), 3)
    for i in range(4):
        q.push(i)
    assert q.drop(1) and not q.drop(1)
    assert q.by_type.tolist() == [2, 0, 1] and q.length == 3
    assert q.pop() == 0 and q.pop() == 2
    q.drop(3)
    assert q.pop() == -1 and q.length == 0 and q.peak == 4


def test_latencies_stay_aligned_with_the_match_keys():
    """With ``keep_keys`` row i of ``match_latency`` is the latency of ``match_keys[i]`` (DARLING's
    negation query counts the matches within Lmax by that mask); only without keys may the
    percentiles reorder the latencies in place."""
    stream = _stream()
    q = "PATTERN SEQ(A a, NOT(C c), B b) WHERE a.x < b.x WITHIN 5 seconds"
    program = compile_pattern(parse_pattern(q), stream.schema)
    arr = piecewise_poisson_arrivals(len(stream), [(0.3, 2e4), (0.4, 2e6), (0.3, 2e4)], seed=4)
    res = run_shedding(stream, program, arr, load_profile(None), Shedder(), n_warm=100,
                       keep_keys=True)
    last = res.match_keys.max(axis=1)          # detected at its last event (no trailing NOT)
    assert len(last) > 20 and len(np.unique(res.match_latency)) > 20
    assert np.array_equal(res.match_latency, res.depart[last] - arr[last])

"""A DARLING shedding run's inputs for the queue tests: the scenario's stream, program and
reference statistics, and Poisson arrivals with overload peaks.

Import it from a test module as ``from shedding_setup import overload_setup`` (pytest puts
``tests/`` on ``sys.path``)."""
from __future__ import annotations

from sim.core.arrivals import piecewise_poisson_arrivals
from sim.core.costmodel import load_profile
from sim.studies.darling import scenario as D


def overload_setup(query: str = "q1", n_events: int = 3000, peak: float = 30.0,
                   window_ms: float = 50, seed: int = 3):
    """(params, profile, stream, program, arrivals, n_warm, reference) of a soccer query with
    ``n_events`` events, a 10 % warm-up at load 0.5 and peaks of ``peak`` x capacity over 70 %
    of the rest (``D.overload_segments``)."""
    params = {"query": query, "window_ms": window_ms, "n_events": n_events, "warm_frac": 0.1,
              "n_in_target": 100, "ref_window_ms": 50, "beta": 0.8}
    prof = load_profile(None)
    stream = D._stream_for(params)
    n = len(stream)
    n_warm = int(round(0.1 * n))
    prog = D._program(params, stream)
    ref = D.reference(params, n_warm, prof)
    lam0 = 0.5 / ref["z_pre"]
    segs = D.overload_segments(n, n_warm, lam0, "peaks", peak / 0.5, 0.7)
    arr = piecewise_poisson_arrivals(n, segs, seed=seed)
    return params, prof, stream, prog, arr, n_warm, ref


def assert_same_results(a, b) -> None:
    """Two ``ShedResult``s are equal bit for bit: every metric (NaN equal to NaN), the start,
    departure and served arrays, the latencies and the match keys."""
    import numpy as np
    assert a.metrics.keys() == b.metrics.keys()
    for k in a.metrics:
        va, vb = a.metrics[k], b.metrics[k]
        assert va == vb or (va != va and vb != vb), (k, va, vb)
    for f in ("start", "depart", "served", "match_latency"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    if a.match_keys is None:
        assert b.match_keys is None
    else:
        np.testing.assert_array_equal(a.match_keys, b.match_keys)

"""DARLING and the baselines on small streams (engines/shedding/)."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.stream import EventStream
from sim.core.arrivals import piecewise_poisson_arrivals
from sim.core.costmodel import load_profile
from engines.shedding.darling import Darling
from engines.shedding.icde20 import Icde20
from engines.shedding.base import Shedder
from sim.core.shedding_queue import run_shedding
from engines.shedding.random_pm import RandomPM
from engines.shedding.spice import Spice
from engines.shedding.utility import utilities


def test_utility_matches_the_papers_worked_example():
    """Section 4.3: SEQ(A, B) WHERE A.price < B.price, A ~ N(500, 300^2), B ~ N(400, 200^2):
    U_A(200) = 0.8413, U_A(700) = 0.066 (and U_B by the CDF of A)."""
    schema_stream = EventStream.from_arrays(np.array([0, 0, 1], np.int32), np.zeros(3),
                                            np.array([[200.0], [700.0], [500.0]]),
                                            ("A", "B"), ("price",))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.price < b.price "
                                         "WITHIN 1 s"), schema_stream.schema)
    mu = np.array([[500.0], [400.0]])
    sd = np.array([[300.0], [200.0]])
    u, terms = utilities(prog, schema_stream.attrs, schema_stream.types, mu, sd)
    assert u[0] == pytest.approx(0.8413, abs=1e-4)
    assert u[1] == pytest.approx(0.0668, abs=1e-4)
    assert u[2] == pytest.approx(0.5, abs=1e-9)      # P(A < 500) for A ~ N(500, .)
    assert terms.tolist() == [1, 1]


def _case(n=3000, seed=2):
    rng = np.random.default_rng(seed)
    types = rng.choice(3, n, p=[0.2, 0.6, 0.2]).astype(np.int32)
    ts = np.cumsum(rng.exponential(0.01, n))
    attrs = rng.normal(size=(n, 2))
    st = EventStream.from_arrays(types, ts, attrs, ("A", "B", "C"), ("x", "v"))
    prog = compile_pattern(parse_pattern(
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND c.v > a.v WITHIN 0.2 s"), st.schema)
    return st, prog


def _arrivals(n, n_warm, lam0, factor):
    rest = n - n_warm
    segs = [(n_warm / n, lam0), (0.3 * rest / n, lam0), (0.4 * rest / n, lam0 * factor),
            (0.3 * rest / n, lam0)]
    return piecewise_poisson_arrivals(n, segs, seed=4)


def test_darling_never_overloaded_equals_noop():
    st, prog = _case()
    prof = load_profile(None)
    arr = _arrivals(len(st), 300, 2.0e4, 1.0)
    a = run_shedding(st, prog, arr, prof, Shedder(), n_warm=300)
    b = run_shedding(st, prog, arr, prof, Darling(lmax=10.0), n_warm=300)
    assert b.metrics["shed_events"] == 0
    np.testing.assert_allclose(a.depart, b.depart, rtol=1e-12)
    np.testing.assert_allclose(np.sort(a.match_latency), np.sort(b.match_latency), rtol=1e-12)


@pytest.mark.parametrize("check", ["global", "local"])
def test_darling_bounds_the_queue_and_latency(check):
    st, prog = _case()
    prof = load_profile(None)
    arr = _arrivals(len(st), 300, 2.0e4, 200.0)
    noop = run_shedding(st, prog, arr, prof, Shedder(), n_warm=300)
    lmax = 2.0e-3
    sh = Darling(lmax=lmax, check=check)
    res = run_shedding(st, prog, arr, prof, sh, n_warm=300)
    n_in = sh.n_in
    assert 0 < res.metrics["shed_events"] < len(st)
    # the budgets cap the queue near N_in (types may overshoot their N_T before the global
    # check first holds, so beta * N_in + types is not a strict bound)
    assert res.metrics["peak_queue"] <= 1.2 * n_in < noop.metrics["peak_queue"]
    assert noop.metrics["latency_mean"] > lmax
    assert res.metrics["latency_mean"] <= lmax
    assert 0 < res.metrics["matches_measured"] < noop.metrics["matches_measured"]


@pytest.mark.parametrize("make", [lambda: RandomPM(2.0e-3), lambda: Spice(2.0e-3, "hspice"),
                                  lambda: Spice(2.0e-3, "espice", replicate=False),
                                  lambda: Icde20(2.0e-3)])
def test_baselines_run_and_lose_matches_only_by_shedding(make):
    st, prog = _case()
    prof = load_profile(None)
    arr = _arrivals(len(st), 300, 2.0e4, 200.0)
    noop = run_shedding(st, prog, arr, prof, Shedder(), n_warm=300)
    res = run_shedding(st, prog, arr, prof, make(), n_warm=300)
    # SEQ without negation: shedding can only remove matches
    assert res.metrics["matches_measured"] <= noop.metrics["matches_measured"]
    dropped = (res.metrics["shed_events"] + res.metrics["pm_removed_by_shedder"]
               + res.metrics["decision_checks"])
    assert dropped > 0

"""DARLING fidelity (issue 23): latency cap as a multiple of Lmax, ingest on the server,
memory as the paper accounts it, eSPICE/hSPICE per-event windows."""
from __future__ import annotations

import numpy as np
import pytest

from sim.scenarios import darling as D

SMALL = dict(query="q1", window_ms=15, n_events=3000, warm_frac=0.2, shape="peaks",
             peak_factor=50.0, ref_window_ms=15, beta=0.8, arrival_seed=1)


def _pt(**over):
    p = dict(SMALL)
    p.update(over)
    return D.point(p, seed=7)


@pytest.mark.parametrize("method", ["darling", "random_pm"])
def test_latency_cap_scales_with_lmax(method):
    a = _pt(method=method, n_in_target=100)
    b = _pt(method=method, n_in_target=400)
    for r in (a, b):
        assert r["latency_cap_lmax"] == 1200.0
        assert r["latency_cap_s"] == pytest.approx(1200.0 * r["lmax_s"], rel=1e-12)
    assert b["lmax_s"] == pytest.approx(4.0 * a["lmax_s"], rel=1e-12)
    assert b["latency_cap_s"] == pytest.approx(4.0 * a["latency_cap_s"], rel=1e-12)


def test_cap_of_one_lmax_counts_only_matches_within_lmax():
    """With the cap at 1 x Lmax, kept_pct is exactly the labelled lower bound."""
    r = _pt(method="random_pm", n_in_target=30, latency_cap_lmax=1.0)
    assert r["kept_within_lmax_pct"] == pytest.approx(r["kept_pct"], abs=1e-12)
    assert r["matches_over_cap"] > 0          # the cap really cut matches here
    wide = _pt(method="random_pm", n_in_target=30)
    assert wide["kept_pct"] > r["kept_pct"]
    assert wide["kept_within_lmax_pct"] == pytest.approx(r["kept_within_lmax_pct"], abs=1e-12)


def test_absolute_cap_variant():
    r = _pt(method="darling", n_in_target=100, latency_cap_s=1800.0)
    assert r["latency_cap_s"] == 1800.0
    assert r["latency_cap_lmax"] == pytest.approx(1800.0 / r["lmax_s"])


def test_ingest_on_the_server_by_default_free_ingest_is_an_option():
    srv = _pt(method="darling", n_in_target=100)
    free = _pt(method="darling", n_in_target=100, ingest="free")
    assert srv["ingest"] == "server" and free["ingest"] == "free"
    # on the server: no separate ingest resource, the per-arrival work is server time
    assert srv["ingest_busy_s"] == 0.0
    assert free["ingest_busy_s"] > 0.0
    assert srv["server_shed_s"] > free["server_shed_s"]
    with pytest.raises(D.CepsimInputError):
        _pt(method="darling", n_in_target=100, ingest="gpu")

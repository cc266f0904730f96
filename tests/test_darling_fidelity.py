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


def _tiny(types, ts, x, text):
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.stream import EventStream
    st = EventStream.from_arrays(np.array(types, np.int32), np.array(ts, float),
                                 np.array(x, float).reshape(-1, 1), ("A", "B", "C"), ("x",))
    return st, compile_pattern(parse_pattern(text), st.schema)


def test_peak_memory_on_a_hand_built_state():
    """SEQ(A a, B b, C c) WHERE b.x > 0 WITHIN 5 s over A@0 B@1 B@2(x<0) C@3 A@20 B@21, every
    event served alone.  Tree storage (slots) after each event: A@0: leaf a0 = 1; B@1: a0 +
    leaf b1 + (a0,b1) = 1+1+2 = 4; B@2 fails b.x > 0 (not stored) = 4; C@3: + leaf c3 (the
    match leaves the root) = 5; A@20: all expired, a4 = 1; B@21: a4 + b5 + (a4,b5) = 4.
    Peak 5 slots -> 5 x 648 bytes."""
    from sim.costmodel import load_profile
    from sim.shedding.memory import SLOT_BYTES_ARTIFACT, leaf_mask, peak_memory_bytes
    from sim.shedding.queue import run_shedding
    st, prog = _tiny([0, 1, 1, 2, 0, 1], [0, 1, 2, 3, 20, 21], [0, 1, -1, 0, 0, 1],
                     "PATTERN SEQ(A a, B b, C c) WHERE b.x > 0 WITHIN 5 s")
    mask = leaf_mask(prog, st)
    assert mask.tolist() == [False, True, False, True, False, True]
    arr = np.arange(6) * 100.0          # far apart: one event in the system at a time
    res = run_shedding(st, prog, arr, load_profile(None), n_warm=0, leaf_mask=mask)
    assert res.metrics["peak_pm_slots"] == 5
    assert res.metrics["matches_measured"] == 1
    assert res.metrics["peak_queue"] == 1      # the queue is reported on its own
    assert SLOT_BYTES_ARTIFACT == 648
    assert peak_memory_bytes(5) == 3240
    # from n_warm on only: after the warm-up of 4 events the peak is B@21's 4 slots
    res2 = run_shedding(st, prog, arr, load_profile(None), n_warm=4, leaf_mask=mask)
    assert res2.metrics["peak_pm_slots"] == 4


def test_aux_memory_is_the_papers_formula():
    """Section 4.4: sum over the pattern's types of (N_T + xi_T) x 8 bytes."""
    from sim.shedding.memory import aux_bytes, pattern_types
    assert aux_bytes([10.4, 3.0, 7.0, 99.0], 100, [0, 1, 2]) == (11 + 100 + 3 + 100 + 7 + 100) * 8
    _, prog = _tiny([0, 1, 2], [0, 1, 2], [0, 0, 0],
                    "PATTERN SEQ(A a, NOT(C c), B b) WITHIN 5 s")
    assert sorted(pattern_types(prog)) == [0, 1, 2]
    r = _pt(method="darling", n_in_target=100)
    n_t = sum(int(np.ceil(r[f"shedder_N_T_{t}"])) for t in ("61", "8", "13"))
    assert r["aux_memory_bytes"] == (n_t + 3 * 100) * 8
    assert r["peak_memory_bytes"] == r["peak_pm_slots"] * 648

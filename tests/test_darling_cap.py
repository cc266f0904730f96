"""DARLING's latency cap (1,200 x Lmax, Section 5.1) on a longer stream: the cap cuts matches
once the stream is long enough (hand-sized case), the continued soccer stream has the length the
config asks and starts with the sample, and the cap experiment's claims read the longest stream."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.studies.darling import scenario as D
from sim.studies.darling import cap as DC

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_N = 50000


def _ab_stream(n: int):
    """A B A B ... (n events, 1 s apart), SEQ(A a, B b) WITHIN 1 hour: the k-th B closes k
    matches (skip-till-any: every earlier A)."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.stream import EventStream
    st = EventStream.from_arrays(np.arange(n, dtype=np.int32) % 2, np.arange(n, dtype=float),
                                 np.zeros((n, 1)), ("A", "B"), ("x",))
    return st, compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 3600 s"), st.schema)


@pytest.mark.slow
def test_cap_cuts_matches_once_the_stream_is_long_enough():
    """All six events arrive at t = 0 (a burst), so the k-th B departs after the k-th longest
    backlog: its k matches have latency depart(B_k).  A cap between depart(B_2) and depart(B_3)
    keeps all 1 + 2 matches of the 4-event stream and cuts exactly B_3's 3 matches of the
    6-event stream."""
    from sim.core.costmodel import load_profile
    from sim.core.shedding_queue import run_shedding
    prof = load_profile(None)
    st6, prog6 = _ab_stream(6)
    free = run_shedding(st6, prog6, np.zeros(6), prof, n_warm=0)
    d = free.depart
    assert free.metrics["matches_measured"] == 6 and free.metrics["matches_over_cap"] == 0
    assert d[1] < d[3] < d[5]
    cap = 0.5 * (d[3] + d[5])
    st4, prog4 = _ab_stream(4)
    short = run_shedding(st4, prog4, np.zeros(4), prof, n_warm=0, latency_cap=cap)
    assert short.metrics["matches_over_cap"] == 0
    assert short.metrics["matches_measured"] == 3
    long = run_shedding(st6, prog6, np.zeros(6), prof, n_warm=0, latency_cap=cap)
    assert long.metrics["matches_over_cap"] == 3
    assert long.metrics["matches_measured"] == 3
    assert long.match_latency.max() <= cap < d[5]


def test_continued_stream_has_the_asked_length_and_starts_with_the_sample():
    from workloads.loaders import load_soccer
    from workloads.soccer_synth import continue_sample
    sample = load_soccer(D.SOCCER)
    assert len(sample) == SAMPLE_N
    assert len(continue_sample(12345)) == 12345
    assert continue_sample(SAMPLE_N) is not None and len(continue_sample(SAMPLE_N)) == SAMPLE_N
    n = SAMPLE_N + 23457
    st = continue_sample(n, seed=3)
    assert len(st) == n
    assert np.array_equal(st.types[:SAMPLE_N], sample.types)
    assert np.array_equal(st.ts[:SAMPLE_N], sample.ts)
    assert np.array_equal(st.attrs[:SAMPLE_N], sample.attrs)
    assert st.schema == sample.schema
    assert np.all(np.diff(st.ts) >= 0) and st.ts[SAMPLE_N] >= sample.ts[-1]
    # every sensor goes on at its own rate: the continuation's type shares are the sample's
    share = np.bincount(st.types[SAMPLE_N:], minlength=3) / (n - SAMPLE_N)
    assert np.allclose(share, np.bincount(sample.types, minlength=3) / SAMPLE_N, atol=0.01)
    again = continue_sample(n, seed=3)
    assert np.array_equal(again.attrs, st.attrs) and np.array_equal(again.ts, st.ts)
    other = continue_sample(n, seed=4)
    assert not np.array_equal(other.attrs[SAMPLE_N:], st.attrs[SAMPLE_N:])


@pytest.mark.parametrize("scale", ["quick", "full"])
def test_config_runs_the_continued_stream_at_the_lengths_it_asks(scale):
    from sim.experiments.config import apply_scale, expand_points, load_config
    cfg = apply_scale(load_config(ROOT / "experiments/darling/cap_binding.toml"), scale)
    pts = expand_points(cfg)
    assert all(p.params["stream"] == "continued" and p.params["query"] == "q1" for p in pts)
    by_w: dict = {}
    for p in pts:
        by_w.setdefault(p.params["window_ms"], set()).add(int(p.params["n_events"]))
    assert sorted(by_w) == [50, 300]
    for w, ns in by_w.items():      # per window: the sample (or its prefix) and a longer stream
        short, long = sorted(ns)
        assert len(ns) == 2 and short <= SAMPLE_N and long > short
        if scale == "full":
            assert short == SAMPLE_N and long > SAMPLE_N
        else:    # the long streams of full scale take seconds to build: built at quick only
            for n in (short, long):
                assert len(D._stream_for(pts[0].params | {"n_events": n})) == n


@pytest.mark.slow
def test_point_on_the_continued_stream():
    """A point past the sample: the row's stream is as long as asked; the slowest backlog
    bounds every counted match and, with the cap set below it, the cap cuts matches that the
    uncapped run counted (SEQ without negation: the cap does not change what is served)."""
    p = dict(query="q1", stream="continued", synth_seed=1, window_ms=15, n_events=SAMPLE_N + 4000,
             warm_frac=0.9, shape="peaks", peak_factor=50.0, ref_window_ms=15, beta=0.8,
             arrival_seed=1, n_in_target=30, method="random_pm", baseline_stop="rate")
    wide = DC.point(p, seed=7)      # random PM stopping on the rate: a backlog past Lmax
    assert wide["events_total"] == SAMPLE_N + 4000
    assert wide["latency_max"] <= wide["backlog_max_s"] + 1e-12
    assert wide["backlog_max_cap"] == pytest.approx(wide["backlog_max_s"] / wide["latency_cap_s"])
    assert wide["matches_over_cap"] == 0
    k = 0.5 * wide["backlog_max_s"] / wide["lmax_s"]
    cut = DC.point(p | {"latency_cap_lmax": k}, seed=7)
    assert cut["matches_over_cap"] > 0
    assert cut["kept"] + cut["matches_over_cap"] == wide["kept"]
    assert cut["backlog_max_s"] == wide["backlog_max_s"]


def _rows(n, kept, cut=None):
    """One row per method at window 50, factor 3 for stream length ``n``."""
    out = []
    for m, v in kept.items():
        out.append({"n_events": n, "peak_factor": 3.0, "window_ms": 50, "method": m,
                    "kept_pct": v, "kept_within_lmax_pct": v / 2, "latency_mean": 0.5,
                    "lmax_s": 1.0, "matches_measured": 10, "latency_max": 1.0,
                    "latency_cap_s": 1200.0, "latency_cap_lmax": 1200.0,
                    "backlog_max_cap": 2.0 if (cut or {}).get(m) else 0.01,
                    "matches_over_cap": (cut or {}).get(m, 0), "events_total": n,
                    "error": None})
    return out


def test_on_streams_verdict_is_the_longest_streams():
    short = {"darling": 40.0, "random_pm": 60.0, "espice": 1.0, "hspice": 1.0, "icde20": 5.0,
             "random_input": 30.0}
    long = dict(short, random_pm=20.0)       # the cap cut random PM's late matches
    df = pd.DataFrame(_rows(50000, short) + _rows(900000, long, cut={"random_pm": 77}))
    r = DC.on_streams(df, claim="claim_kept_ge_baselines", x="window_ms", factor_at_max=0.95)
    assert r.passed
    assert r.measured.startswith("900000 events:") and "50000 events (sample): [FAIL]" in r.measured
    # every window its own long length
    df3 = pd.concat([df, df.assign(window_ms=300, n_events=df["n_events"] // 3)])
    r3 = DC.on_streams(df3, claim="claim_kept_ge_baselines", x="window_ms", factor_at_max=0.95)
    assert r3.passed
    assert r3.measured.startswith("W=50ms: 900000 events, W=300ms: 300000 events:")
    assert "W=50ms: 50000 events, W=300ms: 16666 events (sample): [FAIL]" in r3.measured
    assert "77 baseline matches over the cap cut" in r.measured
    df2 = pd.DataFrame(_rows(50000, long) + _rows(900000, short))
    assert not DC.on_streams(df2, claim="claim_kept_ge_baselines", x="window_ms",
                             factor_at_max=0.95).passed
    assert not DC.on_streams(df, claim="no_such_claim").passed


def test_cap_report_names_the_shedders_the_cap_cut():
    kept = {"darling": 40.0, "random_pm": 20.0, "espice": 1.0}
    df = pd.DataFrame(_rows(50000, kept) + _rows(900000, kept, cut={"random_pm": 77, "espice": 5}))
    r = DC.claim_cap_report(df)
    assert r.passed and r.measured.startswith("REPORT")
    assert "n=900000: cap cut matches of espice, random_pm" in r.measured
    assert "n=50000: the cap cut no match" in r.measured
    assert "random_pm 2x/77/20.0%" in r.measured


def test_length_needed_extrapolates_the_backlog_line():
    assert DC.length_needed([100, 200, 300], [0.1, 0.2, 0.3]) == pytest.approx(1000.0)
    assert DC.length_needed([100, 200], [0.2, 0.2]) == float("inf")


def test_ar1_kernel_gives_the_bits_of_the_row_recursion():
    """``soccer_synth._ar1`` steps in a compiled loop; its rows are bit for bit those of the
    numpy row recursion it replaced (same operations, same order, no fused multiply-add)."""
    import numpy as np
    from workloads.soccer_synth import _ar1
    for seed, x0 in ((1, None), (2, np.array([0.3, -1.0, 250.0]))):
        mu, sd, rho = np.array([1.0, -2.5, 300.0]), np.array([0.5, 3.0, 40.0]), \
            np.array([0.9, 0.1, 0.999])
        got = _ar1(np.random.default_rng(seed), 500, mu, sd, rho, x0=x0)
        rng = np.random.default_rng(seed)
        want = np.empty((500, 3))
        if x0 is None:
            want[0] = mu + sd * rng.standard_normal(3)
        eps = rng.standard_normal((500, 3)) * (sd * np.sqrt(1.0 - rho ** 2))
        if x0 is not None:
            want[0] = mu + rho * (x0 - mu) + eps[0]
        for k in range(1, 500):
            want[k] = mu + rho * (want[k - 1] - mu) + eps[k]
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("query", ["q1", "q4"])
def test_reference_run_is_read_back_from_the_counter_cache(monkeypatch, tmp_path, query):
    """A worker that dropped a reference run (memory budget, another paper) reads it from the
    counter cache instead of re-running the stream; the entry equals the run (q4: with the
    negation's match keys)."""
    import numpy as np
    from sim.core.costmodel import load_profile
    from sim.studies.darling import scenario as D
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path))
    monkeypatch.setattr(D, "_REF", {})
    params = {"query": query, "window_ms": 50, "n_events": 4000}
    prof = load_profile(None)
    ran = D.reference(params, 400, prof)
    assert (ran["keys"] is not None) == (query == "q4")
    assert list((tmp_path / "darling_ref").glob("*.npz"))
    D._REF.clear()

    def no_run(*a, **k):
        raise AssertionError("the reference was recomputed")

    monkeypatch.setattr(D, "_run_reference", no_run)
    served = D.reference(params, 400, prof)
    assert served.keys() == ran.keys()
    for k, v in ran.items():
        if isinstance(v, np.ndarray):
            assert v.dtype == served[k].dtype and np.array_equal(v, served[k])
        else:
            assert type(v) is type(served[k]) and v == served[k]
    # another profile is another entry
    D._REF.clear()
    with pytest.raises(AssertionError, match="recomputed"):
        D.reference(params, 400, _dearer(prof))


def _dearer(prof):
    import dataclasses
    return dataclasses.replace(prof, base_cost=2 * prof.base_cost)

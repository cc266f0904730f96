"""The APAM scenario's shared work (``sim/studies/apam/scenario.py``): counters kept compact in memory
and on disk come back as the engine's exact matrix, and the per-stream warm-up statistics with
the point's rate set afterwards give the same optimizer output as estimating them per point."""
from __future__ import annotations

import dataclasses

import numpy as np

from engines import counters as C
from engines.evaluators.hybrid import run_hybrid
from engines.evaluators.sase import run_sase
from engines.planners.apam import estimate_statistics, evaluate_candidates
from sim.studies.apam import scenario as S
from workloads import apam_synthetic as W


def test_compact_roundtrip_is_exact():
    rng = np.random.default_rng(0)
    m = np.zeros((50, C.N_COUNTERS), np.int64)
    m[:, 0] = rng.integers(0, 100, 50)
    m[:, 3] = rng.integers(-2**40, 2**40, 50)        # needs int64
    m[:, 7] = rng.integers(-30_000, 30_000, 50)       # int16
    m[5, 12] = 1
    cols, data = S._compact(m)
    assert cols == (0, 3, 7, 12)
    assert [d.dtype for d in data] == [np.int8, np.int64, np.int16, np.int8]
    back = S._expand(50, cols, data)
    assert back.dtype == np.int64 and np.array_equal(back, m)


def test_cached_counters_equal_engine_counters(tmp_path):
    n, exp, seed = 3000, 3, 2
    st, prog = S._stream(exp, n, seed, "domain")
    for plan in ("a,b/c,d,e", "sase"):
        want = run_sase(prog, st) if plan == "sase" else run_hybrid(prog, st, plan=plan)
        S._counters_compact.cache_clear()
        got, finals = S._counters_mem(exp, n, seed, plan, str(tmp_path), "domain")   # computed
        S._counters_compact.cache_clear()
        disk, finals2 = S._counters_mem(exp, n, seed, plan, str(tmp_path), "domain")  # from disk
        for m in (got, disk):
            assert m.dtype == np.int64 and np.array_equal(m, want.counters)
        np.testing.assert_array_equal(finals, np.unique(want.matches.detect))
        np.testing.assert_array_equal(finals2, finals)
    S._counters_compact.cache_clear()


def test_stream_statistics_with_point_rate_equal_per_point_estimate():
    n, exp, seed = 4000, 1, 1
    st = W.generate(exp, n, seed)
    prog = W.program_for(st)
    costs = {"t_pe": 7e-7, "t_rc": 3.5e-6, "t_bi": 3.5e-7, "base": 2e-5, "t_seq": 7e-7}
    for rate in (123.4, 4400.0):
        direct = estimate_statistics(prog, st, warmup=n // 2, arrival_rate=rate, seed=seed)
        shared = dataclasses.replace(S._stats_mem(exp, n, seed, "shift", n // 2), rate=rate)
        for opt in ("apam", "apam-x", "apam-x-mean"):
            a = evaluate_candidates(direct, costs, "paper", opt, "final-first")
            b = evaluate_candidates(shared, costs, "paper", opt, "final-first")
            assert repr(a) == repr(b)


def test_shared_service_times_equal_pricing_the_counters(tmp_path):
    n, exp, seed = 3000, 1, 1
    costs = S.unit_costs({"t_pe": 7e-7, "t_rc": 3.5e-6, "t_bi": 3.5e-7, "base_cost": 2e-5,
                          "seq_factor": 0.25})
    for plan in ("/e,d,c,b,a", "sase"):
        counters, finals = S._counters_mem(exp, n, seed, plan, str(tmp_path), "shift")
        want = S.profile_for(costs).service_times(counters)
        got, f2 = S._service_mem(exp, n, seed, plan, str(tmp_path), "shift",
                                 tuple(sorted(costs.items())))
        assert np.array_equal(got, want) and not got.flags.writeable
        np.testing.assert_array_equal(f2, finals)
        m, nf = S._matches_per_final(exp, n, seed, plan, str(tmp_path), "shift")
        assert (m, nf) == (int(counters[:, C.MATCH_EMIT].sum()), finals.size)
    S._counters_compact.cache_clear()
    S._service_mem.cache_clear()
    S._matches_per_final.cache_clear()

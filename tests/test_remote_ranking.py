"""The remote kernel's cost-cache ranking and utility refresh (``utility="paper"``), and the
per-request charge ``request_cost_us``, against definitions and hand counts.

* The eviction ranking is a heap popped lazily (``engines/remote/kernel.py`` ``_rk_less``): its
  pops must come out in the order of numpy's stable sort of the utilities (ties by position,
  NaN last), which is the order the victims are defined by.
* ``_member_utils`` skips work (T1 members when no prefetch minimum is read, keys with no
  recorded transition): every utility it writes must equal the formula computed in full.
* ``request_cost_us`` charges the matching thread once per request handed to a fetch worker
  and never for a blocking sleep (FetchWorker.cpp 35-40).
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from engines.remote.kernel import _future_use, _member_utils, _rk_build, _rk_sift, run_remote
from engines.stream import EventStream


def _pop_all(keys: np.ndarray) -> list[int]:
    n = len(keys)
    cap = n
    rank = np.zeros(2 * cap, dtype=np.int64)
    rkey = keys.astype(np.float64).copy()
    _rk_build(rank, rkey, np.int64(n))
    out, h = [], n
    while h > 0:
        out.append(int(rank[0]))
        h -= 1
        rank[0] = rank[h]
        _rk_sift(rank, rkey, np.int64(h), np.int64(0))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_ranking_heap_pops_in_stable_sort_order(seed):
    """Random utilities with many ties (a few distinct values, 1e300 for T1), -0.0 beside 0.0
    and NaN: the heap's pops equal ``np.argsort(kind="stable")`` position by position."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    vals = np.array([0.0, -0.0, 1.5, 2.0, 1e300, np.nan, 3.25e-7])
    keys = vals[rng.integers(0, len(vals), n)]
    some = rng.random(n) < 0.3
    keys[some] = rng.random(int(some.sum()))            # distinct values among the ties
    assert _pop_all(keys) == list(np.argsort(keys, kind="stable"))


def test_ranking_heap_small_hand_case():
    """[2, 1, 2, nan, 1] -> positions 1, 4 (the 1s, by position), 0, 2 (the 2s), 3 (NaN)."""
    assert _pop_all(np.array([2.0, 1.0, 2.0, np.nan, 1.0])) == [1, 4, 0, 2, 3]


@pytest.mark.parametrize("pf_util", [False, True])
def test_member_utils_equal_the_formula(pf_util):
    """Each member's cache utility ``uc + (1e300 if T1)`` and the minimum prefetch utility equal
    the formula of Eqs. 3-6 computed in full for every member (keys with and without recorded
    transitions, T1 and T2), and the clocks gain one UTILITY_UPDATE price per member."""
    rng = np.random.default_rng(3)
    K, M, NR, cap = 50, 5, 2, 20
    r_kslot = np.array([0, 1], dtype=np.int64)
    r_chk = np.array([2, 4], dtype=np.int64)
    tcnt = np.zeros((NR * M + 1, K), dtype=np.int32)
    for r in range(NR):
        for s in range(r_kslot[r], r_chk[r]):
            tcnt[r * M + s, :25] = rng.integers(0, 4, 25)       # keys 25.. never recorded
    tcnt[-1] = tcnt[:-1].sum(axis=0)
    ttot = tcnt[:-1].sum(axis=1).astype(np.int64)
    avgP = rng.random(M) * 10
    need = rng.integers(0, 5, K).astype(np.float64)
    tier = rng.integers(1, 3, K).astype(np.int8)
    members = rng.choice(K, cap, replace=False).astype(np.int64)
    rank = np.zeros(2 * cap, dtype=np.int64)
    rkey = np.zeros(cap)
    clk = np.zeros(2)
    lbar, wc, wf, du = 1.2e-4, 0.5, 0.7, 3e-9
    mu = _member_utils(members, np.int64(cap), np.int64(cap), rank, rkey, tier, need, tcnt, ttot,
                       avgP, np.int64(NR), np.int64(M), r_kslot, r_chk, lbar, wc, wf, True,
                       pf_util, du, clk)
    want_mu = np.inf
    for q, k in enumerate(members):
        fu = _future_use(k, NR, M, r_kslot, r_chk, ttot, tcnt, avgP)
        uc = lbar * (wc * need[k] + (1.0 - wc) * fu)
        uf = lbar * (wf * need[k] + (1.0 - wf) * fu)
        assert rank[cap + q] == k
        assert rkey[q] == uc + (1e300 if tier[k] == 1 else 0.0)
        if pf_util or tier[k] != 1:
            want_mu = min(want_mu, uf)
    if pf_util:
        assert mu == want_mu
    c = 0.0
    for _ in range(cap):
        c += du
    assert clk[0] == c and clk[1] == c


UNIT = np.full(C.N_COUNTERS, 1e-9)
Q4 = ("PATTERN SEQ(A a, B b, C c, D d) WHERE SAME[id] AND REMOTE[a.v1] <= 5000 AT b "
      "WITHIN 100 events POLICY skip-till-next-match")


def _one_run(**kw):
    rows = [("A", 7, 1), ("B", 0, 1), ("C", 0, 1), ("D", 0, 1)]
    s = EventStream.from_arrays([t for t, _, _ in rows], np.arange(4, dtype=float),
                                np.array([[v, g] for _, v, g in rows], dtype=float),
                                ("A", "B", "C", "D"), ("v1", "id"))
    prog = compile_pattern(parse_pattern(Q4), s.schema)
    return run_remote(prog, s, unit_cost=UNIT, base_cost=1e-9, latency_unit_us=10.0,
                      cache="lru", cache_size=4, **kw)


def test_request_cost_charges_worker_requests_only():
    """LzEval on one run: requests at b and c (two misses before the accept state), a blocking
    sleep at d - with 5 us per request the match is emitted 2 x 5 us later, and nothing else
    changes; BL2 blocks at b (no request): its emission does not move."""
    r0 = _one_run(strategy="LzEval")
    r1 = _one_run(strategy="LzEval", request_cost_us=5.0)
    assert (r1.info["fetches"], r1.info["blocking_fetches"]) == (3, 1)
    assert (r0.info["fetches"], r0.info["blocking_fetches"]) == (3, 1)
    assert r1.info["emit_time"][0] - r0.info["emit_time"][0] == pytest.approx(10e-6, abs=1e-12)
    b0 = _one_run(strategy="BL2")
    b1 = _one_run(strategy="BL2", request_cost_us=5.0)
    assert (b1.info["fetches"], b1.info["blocking_fetches"]) == (1, 1)
    assert b1.info["emit_time"][0] == b0.info["emit_time"][0]


def test_request_cost_rejects_bad_values():
    for bad in (-1.0, float("inf"), True, "5"):
        with pytest.raises(CepsimInputError, match="request_cost_us"):
            _one_run(strategy="LzEval", request_cost_us=bad)

"""The artifact's utility and cost-cache admission (``utility="artifact"``).

zbjob/EIRES keeps one count per key, +1 per transition into a state that references it
(src/EIRES_cost_cache/PatternMatcher.cpp line 1127); its cost cache is an ordered set by that
count, and a full cache drops a fetched key whose count is not above the minimum
(Cache_ordered.cpp line 122).  Under greedy BL2 the blocking-fetched keys are new and their
counts low, so they are dropped and fetched again and again: far more blocking fetches than LRU,
which is why LRU beats cost for BL2 (§7.2 reports the outcome).  The ``paper`` utility (Alg. 2,
always admitting) is the named variant.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.remote.kernel import run_remote
from workloads.eires import generate, queries


def _q1_greedy(n=6000):
    s = generate("DS1", n, 1, v1_max=1000)
    return s, compile_pattern(parse_pattern(queries("Q1", True)[0]), s.schema)


def test_greedy_bl2_cost_blocks_far_more_than_lru():
    s, prog = _q1_greedy()
    unit = np.full(C.N_COUNTERS, 1e-8)
    kw = dict(strategy="BL2", cache_size=200, unit_cost=unit, base_cost=1.5e-6,
              latency_hist=True, record_matches=False)
    cost = run_remote(prog, s, cache="cost", utility="artifact", **kw)
    lru = run_remote(prog, s, cache="lru", utility="artifact", **kw)
    paper = run_remote(prog, s, cache="cost", utility="paper", **kw)
    assert len(cost.matches) == len(lru.matches) == len(paper.matches) > 0
    assert cost.info["blocking_fetches"] >= 5 * lru.info["blocking_fetches"] > 0
    # the paper's always-admitting cost cache does not show it
    assert paper.info["blocking_fetches"] < 2 * lru.info["blocking_fetches"]
    # the counts are executed work: one UTILITY_UPDATE per transition into the checking class,
    # charged with either cache (LRU BL2 computes no other utility)
    assert lru.counters[:, C.UTILITY_UPDATE].sum() > 0


def test_artifact_utility_keeps_the_match_set():
    """Dropped keys change when a match is found, never which (the oracle comparison over random
    patterns is in test_eires_kernel, which draws ``utility`` too; greedy Q1 on DS1 is beyond
    the oracle's step budget, so BL1 - no cache, no utility - is the reference here)."""
    s, prog = _q1_greedy(5000)
    unit = np.full(C.N_COUNTERS, 1e-8)
    expected = run_remote(prog, s, strategy="BL1", unit_cost=unit).matches.key_set()
    assert len(expected) > 0
    for strategy in ("BL2", "PFetch", "LzEval", "Hybrid"):
        for cache in ("cost", "lru"):
            got = run_remote(prog, s, strategy=strategy, cache=cache, cache_size=20,
                             utility="artifact", unit_cost=unit, base_cost=1e-6)
            assert got.matches.key_set() == expected, (strategy, cache)

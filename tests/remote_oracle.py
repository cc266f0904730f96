"""The remote engine against the oracle on one stream: every strategy with every cache.

Import it from a test module as ``from remote_oracle import ...`` (pytest puts ``tests/`` on
``sys.path``).  ``assert_every_strategy_equals_oracle(prog, stream, remote, latency_unit_us)``
runs the oracle with the remote lookups resolved from ``remote`` (a ``RemoteTable``, or None for
the identity lookup), then ``run_remote`` for each of ``STRATEGIES`` x ``CACHES`` on a tiny
cache, the artifact's utility and one prefetch per three transitions, and asserts each finds the
oracle's matches; returns the oracle's result.
"""
from __future__ import annotations

from engines.oracle import run_oracle
from engines.remote.config import CACHES, STRATEGIES
from engines.remote.kernel import run_remote
from strategies import assert_same_matches


def assert_every_strategy_equals_oracle(prog, stream, remote, latency_unit_us: float):
    expected = run_oracle(prog, stream, remote=remote)
    assert len(expected.matches) > 0
    for strategy in STRATEGIES:
        for cache in CACHES:
            got = run_remote(prog, stream, strategy=strategy, cache=cache, remote=remote,
                             cache_size=2, latency_unit_us=latency_unit_us, utility="artifact",
                             prefetch_period=3, base_cost=1e-6)
            assert_same_matches(expected, got, (prog, stream, f"{strategy}/{cache}"),
                                labels=("oracle", strategy))
    return expected

"""Options of the remote-data engine (EIRES) and their validation.

Strategies (names as the paper): BL1 block on every remote predicate, no cache; BL2 block on a
cache miss; BL3 ignore remote predicates until a candidate match is complete, then fetch its
missing keys in parallel and wait for the slowest; PFetch prefetch by lookahead class and
utility (Algs. 1-3); LzEval postpone a predicate on a miss (Alg. 4, Eq. 8); Hybrid both.
Caches: ``lru`` and ``cost`` (two tiers, utility per size).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engines.errors import CepsimInputError

STRATEGIES = ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid")
S_BL1, S_BL2, S_BL3, S_PFETCH, S_LZEVAL, S_HYBRID = range(6)
CACHES = ("lru", "cost")
C_LRU, C_COST = range(2)


@dataclass(frozen=True)
class RemoteOptions:
    """Everything the remote-data kernel needs besides the program and the stream.

    ``latency_unit_us`` L: a fetch takes L * U{1..10} microseconds, drawn per fetch by a
    counter-based RNG keyed by (``seed``, fetch number).  ``workers`` W FIFO fetch workers.
    ``omega_fetch`` / ``omega_cache``: the weight of urgent utility (Eq. 5) for prefetch selection
    and cache eviction.  ``lookahead``: PFetch lookahead distance in classes (0 = adaptive,
    Alg. 3).  ``lz_span``: LzEval postponement span in classes (0 = Eq. 8 decides).  ``noise``:
    fraction of prefetch predictions replaced by a random key (Fig. 10a).  ``utility_period``:
    events between utility refreshes.  ``stat_window``: transitions kept for Pr(j, d).
    """

    strategy: str = "Hybrid"
    cache: str = "cost"
    cache_size: int = 2000
    latency_unit_us: float = 10.0
    workers: int = 5
    seed: int = 0
    omega_fetch: float = 0.7
    omega_cache: float = 0.5
    lookahead: int = 0
    lz_span: int = 0
    noise: float = 0.0
    utility_period: int = 64
    stat_window: int = 4000
    miss_threshold: int = 3
    miss_reset: int = 2000
    remote_table: object = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise CepsimInputError(f"remote engine: strategy {self.strategy!r} is unknown; use one "
                                   f"of {', '.join(STRATEGIES)}")
        if self.cache not in CACHES:
            raise CepsimInputError(f"remote engine: cache {self.cache!r} is unknown; use 'lru' or "
                                   "'cost'")
        for name, lo in (("cache_size", 1), ("workers", 1), ("utility_period", 1),
                         ("stat_window", 1), ("miss_threshold", 1), ("miss_reset", 1),
                         ("lookahead", 0), ("lz_span", 0)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise CepsimInputError(f"remote engine: {name} must be an integer >= {lo}, got "
                                       f"{v!r}")
        for name in ("omega_fetch", "omega_cache", "noise"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise CepsimInputError(f"remote engine: {name} must be a number in [0, 1], got "
                                       f"{v!r}")
        if not isinstance(self.latency_unit_us, (int, float)) or not self.latency_unit_us > 0:
            raise CepsimInputError("remote engine: latency_unit_us must be a positive number of "
                                   f"microseconds, got {self.latency_unit_us!r}")

    @property
    def strategy_code(self) -> int:
        return STRATEGIES.index(self.strategy)

    @property
    def cache_code(self) -> int:
        return CACHES.index(self.cache)


OPTION_NAMES = tuple(f for f in RemoteOptions.__dataclass_fields__)


def options_from(kwargs: dict) -> RemoteOptions:
    """Build ``RemoteOptions`` from keyword options, naming unknown ones."""
    unknown = sorted(set(kwargs) - set(OPTION_NAMES))
    if unknown:
        raise CepsimInputError(f"remote engine: unknown option(s) {unknown}; valid are "
                               f"{list(OPTION_NAMES)}")
    return RemoteOptions(**kwargs)

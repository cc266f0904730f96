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
IN_EVENT_ORDERS = ("class", "arrival")
UTILITIES = ("paper", "artifact")
LZ_POSTPONES = ("accept", "eq8")
BL3_FETCHES = ("serial", "parallel")
CACHE_REFRESHES = ("pass", "hit")
KEY_COUNTS = ("live", "cumulative", "fifo")
PREFETCHES = ("artifact", "utility")


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
    ``utility``: ``paper`` (Alg. 2 / Eqs. 3-6, a ranking rebuilt every ``utility_period``
    events; the cost cache always admits) or ``artifact`` (the authors' system: a count per key,
    one per transition into a state referencing it, PatternMatcher.cpp line 1127; the cost cache
    an ordered set by count that drops a fetched key whose count is not above its minimum,
    Cache_ordered.cpp line 122).  ``fetch_overhead_us``: a fixed time added to every fetch (the artifact's fetches are
    ``sleep_for`` calls that overshoot L*U{1..10} us by the timer slack; see
    ``sim/core/profiles/eires_artifact.toml``).  ``in_event_order``: ``class`` (the authors' artifact: an event's transitions in query order,
    each over its source class) or ``arrival`` (oldest partial match first, the
    alternative reading).  ``merge_requests``: False (the artifact) - a blocking fetch sleeps on the
    matching thread's own clock and every LzEval miss sends a new request; True - a request for
    a key already in flight joins it and blocking fetches queue on the W workers.
    ``request_cost_us``: time the matching thread spends handing one request to a fetch worker
    (a prefetch or an LzEval request; the artifact's ``FetchWorker::fetch`` takes a mutex and
    wakes the worker through a condition variable, FetchWorker.cpp 35-40), on top of the
    ``remote_fetch`` unit cost every fetch pays; 0 = none (blocking sleeps never pay it).
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
    fetch_overhead_us: float = 0.0
    utility: str = "paper"
    in_event_order: str = "class"
    merge_requests: bool = False
    lz_postpone: str = "accept"
    lz_block_prob: float = 0.0
    bl3_fetch: str = "serial"
    cache_refresh: str = "pass"
    key_count: str = "fifo"
    prefetch: str = "artifact"
    prefetch_period: int = 2000
    artifact_weight: float = 1.0
    request_cost_us: float = 0.0
    remote_table: object = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise CepsimInputError(f"remote engine: strategy {self.strategy!r} is unknown; use one "
                                   f"of {', '.join(STRATEGIES)}")
        if self.cache not in CACHES:
            raise CepsimInputError(f"remote engine: cache {self.cache!r} is unknown; use 'lru' or "
                                   "'cost'")
        if self.utility not in UTILITIES:
            raise CepsimInputError(f"remote engine: utility {self.utility!r} is unknown; use one "
                                   f"of {', '.join(UTILITIES)}")
        if self.in_event_order not in IN_EVENT_ORDERS:
            raise CepsimInputError(f"remote engine: in_event_order {self.in_event_order!r} is "
                                   f"unknown; use one of {', '.join(IN_EVENT_ORDERS)}")
        for name, allowed in (("lz_postpone", LZ_POSTPONES), ("bl3_fetch", BL3_FETCHES),
                              ("cache_refresh", CACHE_REFRESHES), ("key_count", KEY_COUNTS),
                              ("prefetch", PREFETCHES)):
            if getattr(self, name) not in allowed:
                raise CepsimInputError(f"remote engine: {name} {getattr(self, name)!r} is "
                                       f"unknown; use one of {', '.join(allowed)}")
        if not isinstance(self.merge_requests, bool):
            raise CepsimInputError("remote engine: merge_requests must be true or false, got "
                                   f"{self.merge_requests!r}")
        for name, lo in (("cache_size", 1), ("workers", 1), ("utility_period", 1),
                         ("stat_window", 1), ("miss_threshold", 1), ("miss_reset", 1),
                         ("lookahead", 0), ("lz_span", 0), ("prefetch_period", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise CepsimInputError(f"remote engine: {name} must be an integer >= {lo}, got "
                                       f"{v!r}")
        for name in ("omega_fetch", "omega_cache", "noise", "lz_block_prob", "artifact_weight"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= float(v) <= 1.0:
                raise CepsimInputError(f"remote engine: {name} must be a number in [0, 1], got "
                                       f"{v!r}")
        if isinstance(self.request_cost_us, bool) or \
                not isinstance(self.request_cost_us, (int, float)) or \
                not 0.0 <= float(self.request_cost_us) < float("inf"):
            raise CepsimInputError("remote engine: request_cost_us must be a finite number of "
                                   f"microseconds >= 0, got {self.request_cost_us!r}")
        if isinstance(self.fetch_overhead_us, bool) or \
                not isinstance(self.fetch_overhead_us, (int, float)) or \
                not 0.0 <= float(self.fetch_overhead_us) < float("inf"):
            raise CepsimInputError("remote engine: fetch_overhead_us must be a finite number of "
                                   f"microseconds >= 0, got {self.fetch_overhead_us!r}")
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

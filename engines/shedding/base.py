"""The shedder interface: what a load shedder sees (``ShedContext``, ``ShedQueue``) and the
hooks it implements (``Shedder``, which is also the no-op shedder).

The shedding queue (``sim.core.shedding_queue``) calls the hooks; the shedders
(``darling``, ``random_pm``, ``spice``, ``icde20``) subclass ``Shedder`` and import only this
module, so the queue, the shedders and their compiled hooks (``kernel_hooks``) depend one way.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import numpy as np

from engines.errors import CepsimInputError
from engines.evaluators.stepper import Stepper


#: the steps with matches whose latencies ``ShedContext.recent_mean_latency`` averages
RECENT_STEPS = 32


def index_dtype(n: int):
    """The smaller of int32 / int64 that holds event indices ``0..n-1`` (and -1): compact rows of
    event positions (warm-up matches, the ICDE'20 samples and tree rows; memory)."""
    return np.int32 if n < 2 ** 31 else np.int64


class ShedQueue:
    """The FIFO input queue with per-type counts and O(1) drops (by event index)."""

    def __init__(self, types: np.ndarray, n_types: int) -> None:
        self.types = types
        self._tl = np.asarray(types).tolist()       # Python ints: cheaper to index per event
        self.n = len(types)
        # per-event updates go to a bytearray / array.array (cheap scalar access); ``state`` and
        # ``by_type`` are numpy views of the same memory for vectorised reads
        self._st = bytearray(self.n)
        # 0 not arrived, 1 queued, 2 served, 3 dropped
        self.state = np.frombuffer(self._st, dtype=np.int8)
        self.head = 0          # every event below head has left the queue (served or dropped)
        self.tail = 0          # events [0, tail) have arrived
        self.length = 0
        self._bt = array("q", bytes(8 * n_types))
        self.by_type = np.frombuffer(self._bt, dtype=np.int64)
        self.count_of_type = self._bt.__getitem__    # queued events of a type, as a Python int
        self.peak = 0
        self.dropped = 0

    def push(self, i: int) -> None:
        self._st[i] = 1
        self.tail = i + 1
        self.length += 1
        self._bt[self._tl[i]] += 1
        if self.length > self.peak:
            self.peak = self.length

    def drop(self, i: int) -> bool:
        """Drop queued event ``i``; False when it is not queued."""
        if self._st[i] != 1:
            return False
        self._st[i] = 3
        self.length -= 1
        self._bt[self._tl[i]] -= 1
        self.dropped += 1
        return True

    def is_queued(self, i: int) -> bool:
        return self._st[i] == 1

    def pop(self) -> int:
        """The next queued event (FIFO), removed from the queue; -1 when empty."""
        st = self._st
        h = self.head
        tail = self.tail
        while h < tail and st[h] != 1:
            h += 1
        self.head = h
        if h >= tail:
            return -1
        st[h] = 2
        self.head = h + 1
        self.length -= 1
        self._bt[self._tl[h]] -= 1
        return h


class Shedder:
    """The no-op shedder and the interface every shedder implements.

    Hooks return counter rows (``int64[N_COUNTERS]``) or None for "no work"."""

    name = "none"

    def attach(self, ctx: "ShedContext") -> None:
        self.ctx = ctx

    def on_arrival(self, i: int, now: float):
        return None

    def before_step(self, i: int, now: float):
        """(veto, row): veto=True drops event ``i`` instead of processing it."""
        return False, None

    def after_step(self, i: int, row: np.ndarray, now: float):
        return None

    def on_served(self, i: int, service: float, row: np.ndarray, depart: float) -> None:
        return None

    def end_warmup(self, now: float) -> None:
        return None

    def take_extra_seconds(self) -> float:
        """Server time the shedder's model charges outside the counters (e.g. eSPICE/hSPICE
        artifacts processing an event once per open window); read once per served event."""
        return 0.0

    def aux_memory_bytes(self) -> int:
        return 0

    def info(self) -> dict:
        return {}


@dataclass
class ShedContext:
    """What a shedder may look at: the stream, program, engine, queue, prices and warm-up."""

    stream: object
    program: object
    stepper: Stepper
    queue: ShedQueue
    unit: np.ndarray          # float64[N_COUNTERS] unit costs
    base_cost: float
    arrivals: np.ndarray
    n_warm: int
    warm_service: list = field(default_factory=list)     # (event, service seconds)
    # the warm-up matches' event rows (slot order), int32 while the stream's positions fit
    # (int64 otherwise; tens of millions of rows on DARLING's long streams: peak
    # memory); freed after the shedder's end_warmup, their only reader
    warm_matches: list = field(default_factory=list)
    in_warmup: bool = True
    recent: object = None     # deque of (latency sum, count) of the last steps with matches
    _prices: dict = field(default_factory=dict)          # price() memo

    def mean_warm_service(self, shedder: str) -> float:
        """Mean service time of the events served during the warm-up: the z-bar every shedder
        derives its queue bound N_in = Lmax / z-bar from.  No event served means no estimate (a
        mean of nothing, NaN, would make every bound comparison false), a configuration error."""
        if not self.warm_service:
            raise CepsimInputError(f"{shedder}: no event was served during the warm-up; give a "
                                   f"longer warm-up (n_warm)")
        return float(np.mean([s for _, s in self.warm_service]))

    def recent_mean_latency(self) -> float:
        """Mean latency of the matches of the last (up to ``RECENT_STEPS``) steps that emitted
        matches."""
        if not self.recent:
            return 0.0
        s = sum(a for a, _ in self.recent)
        c = sum(b for _, b in self.recent)
        return s / c if c else 0.0

    def price(self, row) -> float:
        """Seconds of a counter row (``np.dot(row, unit)``; memoised by the row's bytes:
        shedders return few distinct rows, and the dot product with its cast costs ~2 us)."""
        if row is None:
            return 0.0
        key = row.tobytes()
        c = self._prices.get(key)
        if c is None:
            c = float(np.dot(row, self.unit))
            if len(self._prices) >= 4096:
                self._prices.clear()
            self._prices[key] = c
        return c

"""Random baseline of the DARLING paper: drop random partial matches while overloaded.

Overload = the queue holds at least ``beta * N_in`` events (``N_in = Lmax / z_bar`` from the same
warm-up statistics as DARLING).  While overloaded, after each processed event every live
partial match is dropped with probability ``1 - mu / lambda`` (``mu = 1 / z_bar``, ``lambda`` the
arrival rate over the last 512 arrivals; nothing when ``lambda <= mu``).  Events are never
dropped.  Work: one SHED_OP per partial match examined (the snapshot walk) and the engine's
PM_REMOVED per drop.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.shedding.base import Shedder
from engines.shedding.rates import recent_rate


class RandomPM(Shedder):
    name = "random_pm"

    def __init__(self, lmax: float, beta: float = 0.8, seed: int = 0) -> None:
        self.lmax = float(lmax)
        self.beta = float(beta)
        self.rng = np.random.default_rng(seed)
        self.active = False
        self.dropped = 0

    def end_warmup(self, now: float) -> None:
        self.z_bar = self.ctx.mean_warm_service(self.name)
        self.n_in = self.lmax / self.z_bar
        self.active = True

    def after_step(self, i: int, row, now: float):
        if not self.active or self.ctx.queue.length < self.beta * self.n_in:
            return None
        lam = recent_rate(self.ctx.arrivals, self.ctx.queue.tail - 1)
        p = 1.0 - (1.0 / self.z_bar) / lam
        if p <= 0:
            return None
        rows, _, _ = self.ctx.stepper.pm_snapshot()
        out = np.zeros(C.N_COUNTERS, dtype=np.int64)
        out[C.SHED_OP] += len(rows)
        if len(rows):
            kill = rows[self.rng.random(len(rows)) < p]
            out += self.ctx.stepper.drop_pms(kill)
            out[C.LIVE_PM] = 0
            out[C.LIVE_BOUND] = 0
            self.dropped += len(kill)
        return out

    def info(self) -> dict:
        return {"n_in": self.n_in, "z_bar": self.z_bar, "pm_dropped": self.dropped} \
            if self.active else {}

"""Random baseline of the DARLING paper: drop random partial matches while overloaded.

The paper gives this baseline one sentence ("handles overload situations by randomly dropping
partial matches from the system", PVLDB'22 Section 5.1) and the authors' artifact ships no code
for it, so its trigger and amount are cepsim's reading, stated here.

Overload = the queue holds at least ``beta * N_in`` events (``N_in = Lmax / z_bar`` from the same
warm-up statistics as DARLING), the condition every shedder of the comparison uses.  While
overloaded, after each processed event every live partial match is dropped with probability
``p``:

* ``stop = "bound"`` (default): ``p = max(1 - mu / lambda, 1 - beta * N_in / q)`` with ``q`` the
  queue length, ``mu = 1 / z_bar`` and ``lambda`` the arrival rate over the last 512 arrivals.
  The first term is the share of the arrivals the server cannot keep up with; the second ties
  the amount to Lmax: ``beta * N_in / q = beta * Lmax / (q * z_bar)`` is the bound over the
  queue's expected wait, so the shedder goes on dropping after a burst, while the backlog is
  still over the bound, until the queue is back under it.  This follows the artifact's other
  baselines, which shed until the queue is back under the bound
  (koralchapnik/vldb_submission ``espice/load_shedders/overload_detector.py`` lines 69-85).
* ``stop = "rate"``: ``p = 1 - mu / lambda`` only, nothing when ``lambda <= mu`` (a named
  variant: it stops as soon as the recent arrival rate falls below capacity, with the queue
  possibly still far over the bound).

Events are never dropped.  Work: one SHED_OP per partial match examined (the snapshot walk) and
the engine's PM_REMOVED per drop.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError
from engines.shedding.base import Shedder
from engines.shedding.rates import recent_rate

STOPS = ("bound", "rate")


def drop_probability(q_len: float, bound: float, lam: float, z_bar: float, stop: str) -> float:
    """The per-step drop probability of a live partial match (module docstring): ``bound`` is
    ``beta * N_in``; ``stop`` is ``"bound"`` or ``"rate"``.  0 or less means no drop."""
    p = 1.0 - (1.0 / z_bar) / lam
    if stop == "bound" and q_len > 0:
        p = max(p, 1.0 - bound / q_len)
    return p


class RandomPM(Shedder):
    name = "random_pm"

    def __init__(self, lmax: float, beta: float = 0.8, stop: str = "bound",
                 seed: int = 0) -> None:
        if stop not in STOPS:
            raise CepsimInputError(f"random_pm: stop must be one of {STOPS}, got {stop!r}")
        self.lmax = float(lmax)
        self.beta = float(beta)
        self.stop = stop
        self.rng = np.random.default_rng(seed)
        self.active = False
        self.dropped = 0

    def end_warmup(self, now: float) -> None:
        self.z_bar = self.ctx.mean_warm_service(self.name)
        self.n_in = self.lmax / self.z_bar
        self.active = True

    def after_step(self, i: int, row, now: float):
        q_len = self.ctx.queue.length
        bound = self.beta * self.n_in if self.active else 0.0
        if not self.active or q_len < bound:
            return None
        lam = recent_rate(self.ctx.arrivals, self.ctx.queue.tail - 1)
        p = drop_probability(q_len, bound, lam, self.z_bar, self.stop)
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

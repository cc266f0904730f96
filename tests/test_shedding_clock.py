"""The shedding queue's plain clock equals its SimPy reference bit for bit, and the shedder work
it tallies by row value equals the plain sum of every row the shedder returned (the
exact speedups of ``sim.core.shedding_queue.run_shedding``)."""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from sim.studies.darling import scenario as D
from engines.shedding.memory import leaf_bits
from engines.shedding.base import Shedder
from sim.core.shedding_queue import run_shedding
from shedding_setup import assert_same_results, overload_setup

PARAMS = {"query": "q1", "window_ms": 50, "n_events": 3000, "warm_frac": 0.1,
          "n_in_target": 100, "ref_window_ms": 50, "beta": 0.8}


def _setup(peak: float):
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q1", 3000, peak)
    assert params == PARAMS
    return prof, stream, prog, arr, n_warm, ref


@pytest.mark.parametrize("method", D.METHODS)
def test_plain_clock_equals_simpy_clock(method):
    prof, stream, prog, arr, n_warm, ref = _setup(peak=30.0)
    lmax = 100 * ref["z_pre"]
    out = {}
    for clock in ("simpy", "plain"):
        sh = D.make_shedder(method, PARAMS, lmax, seed=11)
        out[clock] = run_shedding(stream, prog, arr, prof, sh, n_warm=n_warm,
                                  ingest_on_server=True, latency_cap=1200 * lmax,
                                  leaf_bits=leaf_bits(prog, stream), clock=clock)
    a, b = out["simpy"], out["plain"]
    assert_same_results(a, b)
    if method != "none":     # the peaks overload the server: the shedder's hooks did work
        assert a.metrics["server_shed_s"] > 0


class _RandomRows(Shedder):
    """Returns random counter rows from every hook (a few distinct values, some repeated) and
    keeps their plain numpy sum."""

    name = "random_rows"

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.sum = np.zeros(C.N_COUNTERS, dtype=np.int64)
        cols = [C.SHED_OP, C.UTILITY_UPDATE, C.PM_REMOVED, C.DECISION_CHECK]
        self.rows = []
        for _ in range(7):
            r = np.zeros(C.N_COUNTERS, dtype=np.int64)
            r[cols] = self.rng.integers(0, 50, len(cols))
            self.rows.append(r)

    def _row(self):
        k = int(self.rng.integers(0, len(self.rows) + 1))
        if k == len(self.rows):
            return None
        r = self.rows[k].copy() if k % 2 else self.rows[k]   # same values, other objects
        self.sum += r
        return r

    def on_arrival(self, i, now):
        return self._row()

    def before_step(self, i, now):
        return False, self._row()

    def after_step(self, i, row, now):
        return self._row()


@pytest.mark.parametrize("on_server", [True, False])
def test_tallied_shedder_work_equals_the_sum_of_its_rows(on_server):
    prof, stream, prog, arr, n_warm, _ = _setup(peak=3.0)
    sh = _RandomRows(seed=5)
    res = run_shedding(stream, prog, arr, prof, sh, n_warm=n_warm, ingest_on_server=on_server)
    m = res.metrics
    assert m["shed_ops"] == sh.sum[C.SHED_OP] > 0
    assert m["utility_ops"] == sh.sum[C.UTILITY_UPDATE]
    assert m["pm_removed_by_shedder"] == sh.sum[C.PM_REMOVED]
    assert m["decision_checks"] == m["engine_decision_check"] + sh.sum[C.DECISION_CHECK]

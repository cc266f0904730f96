"""Headroom oracle: how much better than the static plan any adaptive method could possibly be.

The throughput gain of an adaptive method over the static plan P0 is bounded by the gain of an
oracle that, knowing every epoch's events in advance, runs each epoch with the plan that does
the least engine work on that epoch and pays nothing for statistics, decisions, planning,
deployment or plan overlaps.  This module computes that oracle's work.

Definitions (used by ``sim.studies.adaptive.scenario`` and checked against a brute force in
``tests/test_adaptive_headroom.py``):

* **Epochs** are consecutive blocks of ``epoch_len`` events after the warm-up
  (``epoch_bounds``); the last block may be shorter.  The scenario's default block is one
  statistics window (``w_s * total_rate`` events): the granularity at which the monitored
  statistics describe the stream.
* **Work of plan p on epoch e** = the engine counters charged to the events of ``e`` by a run of
  ``p`` over the stream from its first event (``plan_epoch_sums``).  Both engines are causal on
  the patterns that allow prefix sharing (``epochs.prefix_sharing``), so this equals a run over
  the stream prefix that ends with the epoch.
* **Candidates**: P0 first, then the plans A returns on the statistics snapshots, every epoch's
  own plan (A on the snapshot at the epoch's end, i.e. on the epoch's measured statistics)
  before the others, the others by how often A returns them (``candidate_plans``), up to
  ``max_plans``; or every plan of the pattern when the caller passes them (the brute force).
* **Oracle** = sum over epochs of min over candidates of the priced work (``oracle_price``);
  **headroom** = static price / oracle price.  The per-event base cost is the same for every
  plan of an epoch, so it does not move the minimum; ``headroom`` includes it (the ceiling of a
  throughput ratio), ``headroom_engine`` leaves it out (engine work only).
"""
from __future__ import annotations

from collections import Counter

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import Program
from engines.stream import EventStream


def epoch_bounds(n_events: int, n_warmup: int, epoch_len: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` of every oracle epoch after the warm-up (module docstring)."""
    epoch_len = max(1, int(epoch_len))
    return [(lo, min(n_events, lo + epoch_len)) for lo in range(int(n_warmup), int(n_events),
                                                                  epoch_len)]


def plan_epoch_sums(program: Program, stream: EventStream, kind: str, plan,
                    bounds: list[tuple[int, int]], engine_options: dict | None = None,
                    counters: np.ndarray | None = None) -> np.ndarray:
    """``int64[n_epochs, N_COUNTERS]``: the counters of a run of ``plan`` over ``stream`` from its
    first event, summed over the events of every epoch (gauge columns are summed too; pricing
    gives them no cost).  ``counters`` = that run's counters when the caller already has them.
    A chain run (``kind == "order"``) returns its counters as prefix sums at the epoch bounds
    (``run_chain``'s ``counter_offsets``) instead of the per-event matrix: the same sums."""
    if counters is None:
        from engines.planners.adaptive.epochs import run_plan
        hi = max(h for _, h in bounds) if bounds else 0
        if kind == "order" and bounds:
            at = epoch_offsets(bounds)
            res = run_plan(program, stream.slice(0, hi), kind, plan,
                           {**(engine_options or {}), "counter_offsets": at})
            return epoch_sums_from_prefix(np.asarray(res.counters), at, bounds)
        res = run_plan(program, stream.slice(0, hi), kind, plan, engine_options or {})
        counters = np.asarray(res.counters)
    return counter_epoch_sums(counters, bounds)


def epoch_offsets(bounds: list[tuple[int, int]]) -> list[int]:
    """Every epoch bound of ``bounds`` once, ascending: the offsets at which prefix sums give
    every epoch's sum (``epoch_sums_from_prefix``)."""
    return sorted({int(x) for lh in bounds for x in lh})


def epoch_sums_from_prefix(cs: np.ndarray, at: list[int],
                           bounds: list[tuple[int, int]]) -> np.ndarray:
    """``int64[len(bounds), N_COUNTERS]``: row ``e`` = ``cs[i(hi)] - cs[i(lo)]`` for epoch
    ``(lo, hi)``, where ``cs[i]`` is the counters' prefix sum over the events ``[0, at[i])``
    (``at`` = ``epoch_offsets(bounds)``; ``run_chain``'s ``counter_offsets`` or
    ``prefix_sums_at``)."""
    if not bounds:
        return np.zeros((0, C.N_COUNTERS), np.int64)
    cs = np.asarray(cs, dtype=np.int64)
    if cs.shape[0] != len(at):
        raise ValueError(f"epoch_sums_from_prefix: {cs.shape[0]} prefix rows for "
                         f"{len(at)} offsets")
    idx = {x: i for i, x in enumerate(at)}
    return np.stack([cs[idx[hi]] - cs[idx[lo]] for lo, hi in bounds])


def counter_epoch_sums(counters: np.ndarray, bounds: list[tuple[int, int]]) -> np.ndarray:
    """``int64[len(bounds), N_COUNTERS]``: the rows of ``counters`` summed over every epoch
    (prefix sums at the epoch bounds only, not over every row: exact integer sums either way)."""
    if not bounds:
        return np.zeros((0, C.N_COUNTERS), np.int64)
    at = epoch_offsets(bounds)
    cs = prefix_sums_at(np.asarray(counters, dtype=np.int64), np.asarray(at, dtype=np.int64))
    return epoch_sums_from_prefix(cs, at, bounds)


@njit(cache=True)
def prefix_sums_at(cnt, offsets):
    """Row ``i``: the sum of rows ``[0, offsets[i])`` of ``cnt`` (``offsets`` ascending; rows
    past the end count as none), in one pass."""
    n, c = cnt.shape
    out = np.zeros((offsets.shape[0], c), np.int64)
    acc = np.zeros(c, np.int64)
    r = 0
    for i in range(offsets.shape[0]):
        o = min(offsets[i], n)
        while r < o:
            for j in range(c):
                acc[j] += cnt[r, j]
            r += 1
        for j in range(c):
            out[i, j] = acc[j]
    return out


def candidate_plans(static_plan, snapshot_plans: list, positions: np.ndarray,
                    bounds: list[tuple[int, int]], max_plans: int) -> tuple[list, bool]:
    """``(plans, capped)``: P0, then every epoch's own plan (A on the last snapshot taken inside
    the epoch), then the other plans A returned by frequency (ties: first seen); at most
    ``max_plans``.  ``snapshot_plans[s]`` = A's plan at snapshot ``s`` (None where not computed)."""
    out = [static_plan]
    seen = {static_plan}
    for lo, hi in bounds:
        idx = int(np.searchsorted(positions, hi, side="left")) - 1
        while idx >= 0 and snapshot_plans[idx] is None:
            idx -= 1
        if idx >= 0 and positions[idx] >= lo and snapshot_plans[idx] not in seen:
            seen.add(snapshot_plans[idx])
            out.append(snapshot_plans[idx])
    freq = Counter(p for p in snapshot_plans if p is not None and p not in seen)
    order = sorted(freq, key=lambda p: -freq[p])         # stable: first seen wins ties
    out += order
    capped = len(out) > max_plans
    return out[:max(1, int(max_plans))], capped


def oracle_price(sums: np.ndarray, sizes: np.ndarray, unit: np.ndarray,
                 base: float) -> dict:
    """Price the candidates' epoch sums ``sums[c, e, :]`` (candidate 0 = the static plan).
    Returns static and oracle costs with and without the per-event base cost, the headroom
    ratios and the best candidate of every epoch."""
    eng = sums.astype(np.float64) @ unit                 # [cands, epochs] engine work (s)
    best = np.argmin(eng, axis=0)
    e_static = float(eng[0].sum())
    e_oracle = float(eng[best, np.arange(eng.shape[1])].sum())
    b = float(base) * float(np.sum(sizes))
    return {"static": e_static + b, "oracle": e_oracle + b,
            "headroom": (e_static + b) / (e_oracle + b) if e_oracle + b > 0 else 1.0,
            "headroom_engine": (e_static / e_oracle if e_oracle > 0
                                else (1.0 if e_static == 0 else float("inf"))),
            "best": best, "switches": int(np.count_nonzero(np.diff(best))) if len(best) else 0}

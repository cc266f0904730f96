"""Arrival processes in virtual seconds (docs/ARCHITECTURE.md, "The simulator").

Three processes feed the single FIFO server:

* ``poisson_arrivals`` — homogeneous Poisson(λ), the M of M/G/1;
* ``piecewise_poisson_arrivals`` — piecewise-constant λ over consecutive fractions of the
  stream (overload peaks, as in DARLING's experiments);
* ``replay_arrivals`` — the stream's own timestamps, shifted to start at 0.

All return a contiguous, non-decreasing ``float64[n]``; seeded processes are
deterministic given ``seed`` (``np.random.default_rng``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from engines.errors import CepsimInputError


def _check_n(n, where: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise CepsimInputError(f"{where}: n must be a non-negative integer number of events, "
                               f"got {n!r}")
    return int(n)


def _check_rate(rate, where: str) -> float:
    try:
        r = float(rate)
    except (TypeError, ValueError):
        raise CepsimInputError(f"{where}: rate must be a positive number of events per virtual "
                               f"second, got {rate!r}") from None
    if not math.isfinite(r) or r <= 0.0:
        raise CepsimInputError(f"{where}: rate must be a positive finite number of events per "
                               f"virtual second, got {rate!r}; set e.g. rate = 1000.0")
    return r


def poisson_arrivals(n: int, rate: float, seed: int) -> np.ndarray:
    """Arrival times of a Poisson(``rate``) process: ``n`` cumulative exponential gaps.

    The first arrival is one exponential gap after 0 (so "near 0"), in virtual seconds.
    """
    n = _check_n(n, "poisson_arrivals")
    rate = _check_rate(rate, "poisson_arrivals")
    rng = np.random.default_rng(seed)
    gaps = rng.exponential(1.0 / rate, size=n)
    return np.ascontiguousarray(np.cumsum(gaps), dtype=np.float64)


def piecewise_poisson_arrivals(n: int, segments: Sequence[tuple[float, float]],
                               seed: int) -> np.ndarray:
    """Poisson arrivals whose rate is piecewise constant over fractions of the stream.

    ``segments`` is a list of ``(fraction_of_stream, rate)``: the first
    ``round(fraction_0 * n)`` events arrive at ``rate_0``, the next ones at ``rate_1`` and so
    on (the last segment takes the remainder so the counts add up to ``n``).  Fractions must be
    positive and sum to 1.  Example overload peak: ``[(0.4, 1e4), (0.2, 5e4), (0.4, 1e4)]``.
    """
    n = _check_n(n, "piecewise_poisson_arrivals")
    where = "piecewise_poisson_arrivals"
    try:
        segs = [(float(f), r) for f, r in segments]
    except (TypeError, ValueError):
        raise CepsimInputError(f"{where}: segments must be a list of (fraction, rate) pairs, "
                               f"got {segments!r}") from None
    if not segs:
        raise CepsimInputError(f"{where}: segments is empty; give at least one (1.0, rate) pair")
    fracs = np.array([f for f, _ in segs])
    if not np.all(np.isfinite(fracs)) or np.any(fracs <= 0):
        raise CepsimInputError(f"{where}: every segment fraction must be > 0, got "
                               f"{fracs.tolist()}")
    if abs(fracs.sum() - 1.0) > 1e-9:
        raise CepsimInputError(f"{where}: segment fractions must sum to 1, they sum to "
                               f"{fracs.sum():.12g}; rescale them")
    rates = [_check_rate(r, f"{where} segment {k}") for k, (_, r) in enumerate(segs)]
    bounds = np.rint(np.cumsum(fracs) * n).astype(np.int64)
    bounds[-1] = n
    counts = np.diff(np.concatenate(([0], bounds)))
    rng = np.random.default_rng(seed)
    gaps = np.empty(n, dtype=np.float64)
    pos = 0
    for c, r in zip(counts, rates):
        gaps[pos:pos + c] = rng.exponential(1.0 / r, size=int(c))
        pos += int(c)
    return np.ascontiguousarray(np.cumsum(gaps), dtype=np.float64)


def replay_arrivals(ts) -> np.ndarray:
    """The stream's own timestamps (seconds), shifted so the first arrival is at 0."""
    ts = np.asarray(ts, dtype=np.float64)
    if ts.ndim != 1:
        raise CepsimInputError(f"replay_arrivals: timestamps must be one-dimensional, got shape "
                               f"{ts.shape}")
    if ts.size == 0:
        return np.zeros(0, dtype=np.float64)
    if not np.all(np.isfinite(ts)):
        i = int(np.flatnonzero(~np.isfinite(ts))[0])
        raise CepsimInputError(f"replay_arrivals: timestamp {i} is not finite; clean the stream")
    if ts.size > 1 and np.any(np.diff(ts) < 0):
        i = int(np.flatnonzero(np.diff(ts) < 0)[0]) + 1
        raise CepsimInputError(f"replay_arrivals: timestamps must be non-decreasing (row {i} goes "
                               f"back in time); sort the stream by ts")
    return np.ascontiguousarray(ts - ts[0])

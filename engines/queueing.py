"""The FIFO single-server queue by the Lindley recursion: ``start_i = max(a_i, depart_{i-1})``,
``depart_i = start_i + s_i``.

One implementation for both of its users: the simulator's fast path (``sim.core.fastpath``,
the queue itself when service times cannot depend on timing) and the ``apam-r`` planner
(``engines.planners.apam_r``), which prices a candidate plan by queueing its measured service
times.  It lives in ``engines/`` because planners may not import ``sim/``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.errors import CepsimInputError


@njit(cache=True)
def _lindley_kernel(arrivals, service, start, depart):
    prev = -np.inf
    for i in range(arrivals.shape[0]):
        a = arrivals[i]
        s = a if a > prev else prev
        start[i] = s
        prev = s + service[i]
        depart[i] = prev


def lindley(arrivals: np.ndarray, service: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and departure times of a FIFO single server (virtual seconds).

    ``arrivals`` non-decreasing, ``service`` non-negative, both ``float64[n]``.
    """
    a = np.ascontiguousarray(arrivals, dtype=np.float64)
    s = np.ascontiguousarray(service, dtype=np.float64)
    if a.ndim != 1 or s.shape != a.shape:
        raise CepsimInputError(f"lindley: arrivals {a.shape} and service {s.shape} must be "
                               f"one-dimensional arrays of equal length")
    start = np.empty_like(a)
    depart = np.empty_like(a)
    _lindley_kernel(a, s, start, depart)
    return start, depart

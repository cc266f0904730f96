"""Arrival-rate estimate shared by the baselines: events over the last ``k`` arrivals.

Compiled (a leaf helper, ``engines.leaf_jit``) so that the Python shedders and the compiled
queue's hooks (``engines.shedding.kernel_hooks``) call the same function."""
from __future__ import annotations

import numpy as np

from engines.leaf_jit import leaf_njit


@leaf_njit
def recent_rate(arrivals, i, k=512):
    """Arrival rate (events/s) measured over the ``k`` arrivals up to ``i`` (inclusive)."""
    j = max(i - k, 0)
    dt = arrivals[i] - arrivals[j]
    return (i - j) / dt if dt > 0 else np.inf

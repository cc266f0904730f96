"""Arrival-rate estimate shared by the baselines: events over the last ``k`` arrivals."""
from __future__ import annotations

import numpy as np


def recent_rate(arrivals: np.ndarray, i: int, k: int = 512) -> float:
    """Arrival rate (events/s) measured over the ``k`` arrivals up to ``i`` (inclusive)."""
    j = max(i - k, 0)
    dt = float(arrivals[i] - arrivals[j])
    return (i - j) / dt if dt > 0 else float("inf")

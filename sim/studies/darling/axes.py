"""The x-axes of DARLING's Figs. 6-10 (PVLDB'22 §5.1): "average window size, the average number
of events from the pattern that appear in each window" and the "average number of partial
matches inside each window".

Definitions (both over the whole stream, no shedding; the window is the query's time window W):

* **pattern events per window** (``avg_pattern_events_per_window``): for every event ``e`` of a
  type that occurs in the pattern (positive or negated variable), the number of pattern-type
  events ``j`` with ``ts[e] - W <= ts[j] <= ts[e]`` (``e`` itself included: the window the
  pattern's time condition ``max ts - min ts <= W`` admits, ending at ``e``), averaged over
  those ``e``.  The authors' artifact gives this number per config as ``WS`` (eSPICE / hSPICE
  ``env``: ``WS=35.6`` beside ``WITHIN 15000000000 picoseconds`` = 15 ms on the soccer sample,
  ``espice/env`` lines 15-16 and 11; read per event in ``espice/processor.py`` lines 58-61 and
  ``espice/patterns/plans/tree/tree_evaluation_mechanism.py`` line 168); the sample's 50,000
  events over 21 s give 2.38 events per ms, 35.7 per 15 ms.
* **partial matches per window** (``avg_pms_per_window``): after the no-shedding engine has
  stepped each pattern-type event ``e``, the live partial matches it holds (``Stepper.live``:
  instances with at least one bound event whose first event is within W of ``ts[e]``; expired
  ones excluded), averaged over those ``e``.  The artifact prints no such count (its processor
  reports the storage size, ``darling/processor.py`` 179-181); this is the engine's own count.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.errors import CepsimInputError


def pattern_type_codes(program) -> np.ndarray:
    """Schema type codes of every variable of the compiled pattern (positive and negated)."""
    return np.unique(np.asarray(program.var_type, dtype=np.int64))


def pattern_event_mask(types: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Boolean mask of the events whose type is one of ``codes``."""
    return np.isin(np.asarray(types, dtype=np.int64), np.asarray(codes, dtype=np.int64))


@njit(cache=True)
def _window_counts(ts: np.ndarray, window: float) -> np.ndarray:
    n = ts.shape[0]
    out = np.empty(n, dtype=np.int64)
    lo = 0
    for e in range(n):
        while ts[lo] < ts[e] - window:
            lo += 1
        out[e] = e - lo + 1
    return out


def pattern_events_per_window(ts: np.ndarray, types: np.ndarray, codes: np.ndarray,
                              window_s: float) -> float:
    """Average number of pattern-type events in the window ``[ts[e] - W, ts[e]]`` over every
    pattern-type event ``e`` (module doc); NaN when the stream holds no pattern event.

    ``ts`` non-decreasing seconds, ``types`` the type code per event, ``codes`` the pattern's
    type codes, ``window_s`` = W in seconds (> 0)."""
    ts = np.asarray(ts, dtype=np.float64)
    types = np.asarray(types)
    if ts.shape != types.shape:
        raise CepsimInputError(f"darling axes: ts and types differ in length "
                               f"({ts.shape[0]} vs {types.shape[0]})")
    if not window_s > 0:
        raise CepsimInputError(f"darling axes: window must be > 0 s, got {window_s!r}")
    sel = ts[pattern_event_mask(types, codes)]
    if sel.size == 0:
        return float("nan")
    return float(_window_counts(np.ascontiguousarray(sel), float(window_s)).mean())


def pms_per_window(live_after: np.ndarray, is_pattern: np.ndarray) -> float:
    """Average of the live partial matches held after each pattern-type event (module doc):
    ``live_after[e]`` = ``Stepper.live`` after stepping event ``e`` with no shedding,
    ``is_pattern`` the mask of pattern-type events; NaN when there is none."""
    live_after = np.asarray(live_after)
    is_pattern = np.asarray(is_pattern, dtype=bool)
    if live_after.shape != is_pattern.shape:
        raise CepsimInputError("darling axes: live_after and is_pattern differ in length")
    if not is_pattern.any():
        return float("nan")
    return float(live_after[is_pattern].mean())

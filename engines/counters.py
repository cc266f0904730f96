"""Per-event operation counters shared by every evaluator (docs/COST_MODEL.md).

Every engine returns an ``int64`` matrix of shape ``(n_events, N_COUNTERS)``: row ``i``
holds the operations performed while processing event ``i`` (plus, for the last row, any
work done when the stream is closed).  The simulator turns a row into a service time with
``sum(count_k * unit_cost_k) + base_cost``; the papers' own metrics (condition evaluations,
peak instances, peak buffered events) are read off the same matrix.

Columns are either *counts* (operations done while handling the event) or *gauges*
(a level observed right after handling the event).  Only counts enter the cost model.
"""
from __future__ import annotations

import numpy as np

# --- counts: operations performed while processing the event -------------------------
PRED_EVAL = 0        # atomic predicate evaluations (one WHERE conjunct checked once)
EDGE_EVAL = 1        # edge-condition checks (DEBS'15 section 7 "condition evaluations")
PM_CREATED = 2       # partial matches (NFA instances / tree-node results) created
PM_REMOVED = 3       # partial matches removed (expired, killed, completed)
BUF_INSERT = 4       # events inserted into an input / lazy buffer
MATCH_EMIT = 5       # full matches constructed and emitted
JOIN_PROBE = 6       # candidate pairs probed by a join or merge step
PLAN_GEN = 7         # plan generations (re-optimisations)
DECISION_CHECK = 8   # adaptation decision checks (invariants, thresholds)
REMOTE_FETCH = 9     # remote data fetches issued
# --- gauges: levels right after processing the event ---------------------------------
LIVE_PM = 10         # live partial matches
BUFFERED = 11        # events held in input buffers
# --- counts added for the adaptive, remote-data, shedding and tree-plan engines -------
# (appended so that the columns above keep their numbers; kernels index columns by number)
INSTANCE_WORK = 12   # live instances / runs an arriving event is offered to (stored, ignored
                     # or extended): DEBS'15's per-instance work beside its condition checks
SEARCH_CMP = 13      # comparisons made by binary searches over position/time-sorted buffers
PLANNER_STEP = 14    # planner steps (one greedy score or one DP split evaluated)
STAT_UPDATE = 15     # statistics updates (rate / selectivity bookkeeping per event)
PLAN_DEPLOY = 16     # plan deployments (a new plan / epoch installed)
CACHE_OP = 17        # remote-data cache operations (lookup, insert, evict, tier move)
UTILITY_UPDATE = 18  # utility computations (prefetch / cache / shedding utilities)
SHED_OP = 19         # load-shedding bookkeeping (bucket insert, victim selection, drop)
# --- gauge ----------------------------------------------------------------------------
LIVE_BOUND = 20      # events bound by live partial matches (memory gauge, DARLING)
# --- side metric ----------------------------------------------------------------------
ROUTING_CHECK = 21   # DEBS'15 tree NFA routing decisions (p_ne / p_se, section 6): one per
                     # live tree state per event.  A *side metric*: the decision is part of the
                     # offer of the event, whose work INSTANCE_WORK already charges (as the
                     # chain's store decision), so it is priced 0 in every profile and is not an
                     # EDGE_EVAL (section 7 counts take-edge validations only)

N_COUNTERS = 22

COUNTER_NAMES: tuple[str, ...] = (
    "pred_eval",
    "edge_eval",
    "pm_created",
    "pm_removed",
    "buf_insert",
    "match_emit",
    "join_probe",
    "plan_gen",
    "decision_check",
    "remote_fetch",
    "live_pm",
    "buffered",
    "instance_work",
    "search_cmp",
    "planner_step",
    "stat_update",
    "plan_deploy",
    "cache_op",
    "utility_update",
    "shed_op",
    "live_bound",
    "routing_check",
)
GAUGES: frozenset[int] = frozenset({LIVE_PM, BUFFERED, LIVE_BOUND})
COUNT_COLUMNS: tuple[int, ...] = tuple(i for i in range(N_COUNTERS) if i not in GAUGES)
#: count columns that record a decision whose work another column already charges: priced 0 by
#: every profile (``sim.core.costmodel`` refuses a non-zero price) and never fitted by ``calibrate``
SIDE_METRICS: frozenset[int] = frozenset({ROUTING_CHECK})


_HUGE_PAGE = 2 << 20


def new_counters(n_events: int) -> np.ndarray:
    """A zeroed counter matrix for ``n_events`` events.

    A matrix of 4 MiB or more (numpy asks the kernel for transparent huge pages from there) is
    a view starting on a 2 MiB boundary of a slightly larger zeroed block: the pages before the
    first boundary and after the last one cannot be huge pages, and the unaligned matrix took
    ~400-1,400 more 4 KiB page faults on its first writes (the eager engine on 100k events:
    613-1,635 faults against 215; ~1.5 us each here).  Same shape, dtype, zeros and layout."""
    rows = max(n_events, 1)
    nbytes = rows * N_COUNTERS * 8
    if nbytes < 2 * _HUGE_PAGE:
        return np.zeros((rows, N_COUNTERS), dtype=np.int64)
    block = np.zeros(nbytes + _HUGE_PAGE, dtype=np.uint8)
    off = (-block.ctypes.data) % _HUGE_PAGE
    return block[off:off + nbytes].view(np.int64).reshape(rows, N_COUNTERS)


def new_counters_and_scratch(n_events: int, n_scratch: int) -> tuple[np.ndarray, np.ndarray]:
    """``new_counters(n_events)`` and a zeroed int64 array of ``n_scratch`` values (an engine's
    per-event scratch) from one block, the scratch right after the matrix: a large matrix
    starts on a 2 MiB boundary (see ``new_counters``) and the scratch then lies in huge pages
    too (the eager engine's ``cnt_first``, 800 KB for 100k events, took ~200 page faults as
    its own array)."""
    rows = max(n_events, 1)
    nbytes = rows * N_COUNTERS * 8
    if nbytes < 2 * _HUGE_PAGE:
        return new_counters(n_events), np.zeros(n_scratch, dtype=np.int64)
    block = np.zeros(nbytes + n_scratch * 8 + _HUGE_PAGE, dtype=np.uint8)
    off = (-block.ctypes.data) % _HUGE_PAGE
    counters = block[off:off + nbytes].view(np.int64).reshape(rows, N_COUNTERS)
    return counters, block[off + nbytes:off + nbytes + n_scratch * 8].view(np.int64)


def summarize(counters: np.ndarray) -> dict[str, int]:
    """Totals of the count columns and peaks of the gauge columns, keyed by name."""
    out: dict[str, int] = {}
    for i, name in enumerate(COUNTER_NAMES):
        col = counters[:, i]
        if i in GAUGES:
            out["peak_" + name] = int(col.max()) if len(col) else 0
        else:
            out[name] = int(col.sum())
    return out

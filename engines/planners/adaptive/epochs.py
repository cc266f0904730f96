"""Run a plan schedule in epochs without losing or duplicating a match.

Plan ``P_e`` is deployed at stream position ``p_e`` (``p_0 = 0``); a match belongs to the epoch of
its earliest (positive) event.  Epoch ``e`` evaluates the stream slice from ``p_e`` to the last
event that can still share a match with an event before ``p_{e+1}`` (time window: ``ts <=
ts[p_{e+1} - 1] + W``; count window: position ``< p_{e+1} - 1 + N``), plus one event so that a
trailing NOT's closing event is inside, and emits only the matches whose earliest event lies in
``[p_e, p_{e+1})``; the epoch is then retired.  With a negation the slice also starts up to one
window earlier (a negating event before ``p_e`` must be seen); those events are only read.

Plan replacement (PVLDB'18 section 2.2, the paragraph on replacing a plan on the fly): partial
matches holding an event accepted before the replacement point ``t0`` (= ``p_{e+1}``) are
processed by the old plan, those made entirely of new events by the new plan, "since p_old and
p_new operate on disjoint sets of matches, there is no duplicate processing"; the old plan
retires at ``t0 + W`` (the end ``hi`` of its slice).  The evaluation runs the unchanged engine on
the slice, so during the overlap ``[p_{e+1}, hi)`` the old plan's run also builds the partial
matches made entirely of new events, which the new plan processes too.  That duplicate work is
measured, not estimated: it is the old plan's own run started at ``p_{e+1}`` over
``[p_{e+1}, hi)`` (a run sees only new events, so all of its work is on new-event matches;
``info["dup_sums"]`` / ``info["dup_rows"]``).  Two readings price a schedule:

* ``"disjoint"`` (section 2.2, the default of the studies): engine work = the slices' counters
  minus the duplicate work, and one per-event base cost per event;
* ``"duplicate"`` (the authors' OpenCEP ``SimultaneouslyRunTwoTrees``,
  evaluation/AdaptiveTreeReplacementAlgorithm.py at f9b0fb3, hands every event to both trees'
  leaves until the window has passed): the slices' counters in full, and one base cost per live
  plan (``info["live"][i]`` = how many epochs' plans processed event ``i``).

Counters of a slice are added to the rows of the slice's events; matches' ``detect`` are shifted
back.  ``overlap_events`` reports the overlaps' size.

Engines: ``kind = "order"`` runs the lazy chain NFA (``engines.evaluators.lazy_nfa.run_chain``) with the
epoch's order; ``kind = "tree"`` runs the tree-plan evaluator (``engines.evaluators.ztree.run_ztree``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import KIND_NEG, WIN_COUNT, Program
from engines.errors import CepsimInputError
from engines.matches import MatchSet
from engines.leaf_jit import leaf_njit
from engines.program_memo import kept
from engines.stream import EventStream


def earliest_event(ms: MatchSet) -> np.ndarray:
    """Smallest bound event index of each match (int64 max for a match that binds none)."""
    return _earliest_all(np.asarray(ms.pos), np.asarray(ms.kl_start), np.asarray(ms.kl_len),
                         np.asarray(ms.kl_events), np.asarray(ms.kleene, np.bool_))


@leaf_njit
def row_earliest(pos, kl_start, kl_len, kl_events, kleene, i):
    """Match ``i``'s smallest bound event: its plain positions and the first event of each
    non-empty Kleene chain (int64 max when it binds none)."""
    f = np.iinfo(np.int64).max
    k_ev = kl_events.shape[0]
    for j in range(pos.shape[1]):
        x = pos[i, j]
        if 0 <= x < f:
            f = x
        if kleene[j] and k_ev > 0 and kl_len[i, j] > 0:
            e = kl_events[min(kl_start[i, j], k_ev - 1)]
            if e < f:
                f = e
    return f


@njit(cache=True)
def _earliest_all(pos, kl_start, kl_len, kl_events, kleene):
    out = np.empty(pos.shape[0], np.int64)
    for i in range(pos.shape[0]):
        out[i] = row_earliest(pos, kl_start, kl_len, kl_events, kleene, i)
    return out


def _shift(ms: MatchSet, off: int, keep: np.ndarray) -> MatchSet:
    pos = ms.pos[keep].copy()
    pos[pos >= 0] += off
    return MatchSet(ms.var_names, ms.kleene, pos, ms.kl_start[keep], ms.kl_len[keep],
                    ms.kl_events + off, ms.detect[keep] + off)


def epoch_slices(program: Program, stream: EventStream, starts: list[int]) -> list[tuple[int, int]]:
    """``(lo, hi)`` slice of every epoch (see module docstring)."""
    n = len(stream)
    W = float(program.window)
    has_neg = bool(np.any(program.var_kind == KIND_NEG))
    out = []
    for e, p in enumerate(starts):
        nxt = starts[e + 1] if e + 1 < len(starts) else n
        if nxt >= n:
            hi = n
        elif program.window_kind == WIN_COUNT:
            hi = min(n, nxt - 1 + int(W) + 1)
        elif np.isfinite(W):
            hi = min(n, int(np.searchsorted(stream.ts, stream.ts[nxt - 1] + W, side="right")) + 1)
        else:
            hi = n
        lo = p
        if has_neg and p > 0:
            if program.window_kind == WIN_COUNT:
                lo = max(0, p - int(W) + 1)
            elif np.isfinite(W):
                lo = int(np.searchsorted(stream.ts, stream.ts[p] - W, side="left"))
            else:
                lo = 0
        out.append((lo, hi))
    return out


def run_plan(program: Program, sub: EventStream, kind: str, plan, opts: dict):
    if kind == "order":
        from engines.evaluators.lazy_nfa import run_chain
        return run_chain(program, sub, order=[program.var_names[v] for v in plan], **opts)
    if kind == "tree":
        try:
            from engines.evaluators.ztree import run_ztree
        except ImportError:  # pragma: no cover - needs the tree-plan evaluator
            raise CepsimInputError("adaptive: ZStream tree plans need engines/evaluators/ztree.py (the "
                                   "tree-plan evaluator), which this checkout does not have")
        trees = kept(program, "ztree_plan_names", 8192)
        tree = trees.find(plan)
        if tree is None:
            tree = trees.keep(plan, plan_to_ztree(program, plan))
        return run_ztree(program, sub, plan=tree, **opts)
    raise CepsimInputError(f"adaptive: unknown plan kind {kind!r}")


def plan_to_ztree(program: Program, plan):
    """Group trees of variable ids -> the evaluator's plan: one binary tree of variable names
    (group trees joined left-deep; the evaluator restricts it to each OR alternative, which
    gives back each group's tree)."""
    def conv(s):
        return (conv(s[0]), conv(s[1])) if isinstance(s, tuple) else program.var_names[s]
    trees = [conv(s) for s in plan]
    out = trees[0]
    for t in trees[1:]:
        out = (out, t)
    return out


def prefix_sharing(program: Program) -> bool:
    """Whether an epoch may reuse a longer run of its plan from the same start (``run_schedule``).
    Not with a negation: a trailing NOT's match is confirmed at the end of the slice (the
    engine's end-of-stream flush), which a longer run does at a different event."""
    return not bool(np.any(program.var_kind == KIND_NEG))


def epoch_horizon(program: Program, stream: EventStream, schedules) -> dict:
    """``{(kind, plan, lo): largest hi}`` over the epochs of ``schedules`` (an iterable of
    ``(kind, starts, plans)``): the longest slice any epoch of that plan starting at ``lo`` needs.
    Passed to ``run_schedule`` so that epochs which differ only in their end share one run."""
    out: dict = {}
    if not prefix_sharing(program):
        return out
    for kind, starts, plans in schedules:
        for e, (lo, hi) in enumerate(epoch_slices(program, stream, starts)):
            key = (kind, plans[e], lo)
            out[key] = max(out.get(key, 0), hi)
    return out


def schedule_service(counters: np.ndarray, live: np.ndarray, unit: np.ndarray,
                     base: float) -> np.ndarray:
    """Service time of every event of a schedule: the engine work of every plan that processed
    it (``counters``, summed over the live plans by ``run_schedule``) plus one per-event base cost
    per live plan (``live``, ``info["live"]``).  The scenario prices the same quantity from sums."""
    return np.asarray(counters, np.float64) @ np.asarray(unit, np.float64) + \
        float(base) * np.asarray(live, np.float64)


def run_schedule(program: Program, stream: EventStream, kind: str, starts: list[int],
                 plans: list, cache: dict | None = None, engine_options: dict | None = None,
                 horizon: dict | None = None, n_warmup: int = 0
                 ) -> tuple[MatchSet, np.ndarray, dict]:
    """Evaluate the schedule; returns (matches, counters, info).  ``cache`` memoises engine runs
    by (kind, plan, slice start) across schedules of the same stream and program;
    ``engine_options`` go to the engine (e.g. the ztree capacity caps).

    Prefix sharing (patterns without negation, ``prefix_sharing``): an epoch needing the slice
    ``[lo, hi)`` reuses a cached run of the same plan over ``[lo, hi')`` with ``hi' >= hi``: its
    counters' first ``hi - lo`` rows and its matches detected before ``hi`` (with the earliest
    event in the epoch).  Both engines are causal on such patterns (the work charged to an event
    and the matches detected at it depend only on the events up to it), so this gives exactly
    the short run's result; ``tests/test_adaptive_epochs.py`` checks it against unshared runs.  ``horizon`` (``epoch_horizon``) says how far to run a plan the
    first time it is needed, so that later, longer epochs hit the cache too.

    Duplicate work (module docstring, "Plan replacement"): for every epoch that overlaps the
    next one, the old plan's own run from the replacement point ``nxt`` over ``[nxt, hi)``.
    ``info["dup_sums"]`` = the sum over epochs of that run's counters over ``[max(nxt,
    n_warmup), hi)``, each epoch's sum clamped at 0 column by column (what
    ``sim/studies/adaptive/runs.py`` computes); ``info["dup_rows"]`` = the same runs per event,
    each row clamped to ``[0, the old plan's row]`` (``disjoint_counters``)."""
    if not starts or starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])):
        raise CepsimInputError("adaptive: epoch starts must begin at 0 and increase")
    n = len(stream)
    counters = C.new_counters(n)[:n] if n else C.new_counters(0)[:0]
    parts = []
    overlap = 0
    live = np.zeros(n, np.int64)       # plans that processed each event (2 during an overlap)
    dup_sums = np.zeros(C.N_COUNTERS, np.int64)
    dup_rows = np.zeros_like(counters)
    share = prefix_sharing(program)
    for e, (lo, hi) in enumerate(epoch_slices(program, stream, starts)):
        p = starts[e]
        nxt = starts[e + 1] if e + 1 < len(starts) else n
        key = (kind, plans[e], lo) if share else (kind, plans[e], lo, hi)
        run = cache.get(key) if cache is not None else None
        if run is None or run[3] < hi:
            end = max(hi, (horizon or {}).get(key, hi)) if share else hi
            res = run_plan(program, stream.slice(lo, end), kind, plans[e], engine_options or {})
            run = (res.matches, earliest_event(res.matches) + lo, np.asarray(res.counters), end)
            if cache is not None:
                cache[key] = run
        rms, first, rcnt, end = run
        keep = (first >= p) & (first < nxt)
        if end > hi:                 # a longer run of the same plan: what the slice had seen
            keep &= rms.detect < hi - lo
        counters[lo:hi] += rcnt[:hi - lo]
        live[lo:hi] += 1
        overlap += max(0, hi - nxt)
        parts.append(_shift(rms, lo, keep))
        if nxt < hi:
            mkey = (kind, plans[e], nxt, "dup", hi)
            mcnt = cache.get(mkey) if cache is not None else None
            if mcnt is None:
                mcnt = np.asarray(run_plan(program, stream.slice(nxt, hi), kind, plans[e],
                                           engine_options or {}).counters)
                if cache is not None:
                    cache[mkey] = mcnt
            m_lo = max(nxt, int(n_warmup))
            if m_lo < hi:
                dup_sums += np.maximum(mcnt[m_lo - nxt:hi - nxt].sum(axis=0, dtype=np.int64), 0)
            dup_rows[nxt:hi] += np.clip(mcnt[:hi - nxt], 0, rcnt[nxt - lo:hi - lo])
    ms = MatchSet.concat(parts) if parts else None
    return ms, counters, {"overlap_events": overlap, "epochs": len(starts), "live": live,
                          "dup_sums": dup_sums, "dup_rows": dup_rows}


def disjoint_counters(counters: np.ndarray, info: dict) -> np.ndarray:
    """Per-event counters of a schedule under the section 2.2 reading (module docstring):
    ``run_schedule``'s counters minus the old plans' duplicate rows (``info["dup_rows"]``)."""
    return np.asarray(counters) - np.asarray(info["dup_rows"])

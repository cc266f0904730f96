"""A SASE-like eager engine (engine ``sase``): the run loop of SASE's skip-till-any-match NFA.

What is modelled, and why: APAM's section 6 measures its eager baseline on SASE (the open-source
Java engine of Agrawal et al., SIGMOD'08).  Its skip-till-any-match evaluation keeps *runs*
(partial matches) per NFA state and, **for every arriving event, visits every active run of
every state**: a run whose next state accepts the event's type has the next variable's
predicates evaluated against its bound events; when they pass, the window is checked against
the run's first event -- a run that fails it is deleted, otherwise it is cloned and extended by
the event (the original stays: skip-till-any-match).  A run is deleted *only* when an event
passes its predicates and then fails the window check, so runs whose window has closed but that
no qualifying event reaches stay and are visited again by every later event (stale runs pile
up).  This is the behaviour that separates SASE from the cleaner ``eager`` / ``hybrid``
all-eager plan of this project (which expires runs by the window at once and finds partners by
binary search); APAM's eager/APAM ratios are measured against it, so it is reported as its own
series ("SASE engine").

Supported: one flat SEQ of plain events (``Program.is_simple_sequence``), skip-till-any-match,
time and count windows or none; others are refused with ``CepsimInputError``.

Counters: ``INSTANCE_WORK`` runs visited (every active run of every state, per event; the
runs of a state whose next variable cannot take the event's type are charged as visited without
being walked, since each such visit ends at the type test -- same count, less simulation time),
``PRED_EVAL`` predicates evaluated, ``PM_CREATED`` runs created (a new first event or a clone),
``PM_REMOVED`` runs deleted (window failure), ``MATCH_EMIT`` matches, gauge ``LIVE_PM`` active
runs.  Runs are stored per state as structure-of-arrays rows (bound events + first position).

Computation: ``_sase_kernel`` below simulates the loop event by event and is the specification;
it is quadratic in the stream (stale runs are walked by every later event of their next type:
about 100 s for the 100k-event APAM exp 1 stream).  ``run_sase`` computes the same counters
and matches run by run (``engines.evaluators.sase_runs``: each run's life follows from the
ordered list of its passing events; 0.05 s for that stream) and keeps ``_sase_kernel`` for
``reference=True``; ``tests/test_sase_runs.py`` compares them column by column.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import PI_V1, PI_V2, POLICY_ANY, WIN_COUNT, Program
from engines.errors import CapacityError, CepsimInputError
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.evaluators.sase_runs import sase_runs
from engines.matches import MatchSet
from engines.predicates import eval_pred
from engines.registry import EngineResult

_IW, _PE, _PMC, _PMR, _ME, _LIVE = (C.INSTANCE_WORK, C.PRED_EVAL, C.PM_CREATED, C.PM_REMOVED,
                                    C.MATCH_EMIT, C.LIVE_PM)


@njit(cache=True)
def _runs_grow(runs, rn):
    """``runs`` (state, run, slot) with twice the runs per state; the first ``rn[j]`` runs of
    each state ``j`` are kept."""
    L = runs.shape[0]
    r2 = np.empty((L, 2 * runs.shape[1], runs.shape[2]), dtype=np.int64)
    for a in range(L):
        for b in range(rn[a]):
            for k in range(runs.shape[2]):
                r2[a, b, k] = runs[a, b, k]
    return r2


@njit(cache=True)
def _sase_kernel(types, ts, attrs, pred_i, pred_f, slot_type, st_ptr, st_ids, wkind, W,
                 max_runs, cnt):
    n = types.shape[0]
    L = slot_type.shape[0]
    cap = 64
    runs = np.empty((L, cap, L), dtype=np.int64)     # runs[j]: runs with slots 0..j bound
    rn = np.zeros(L, dtype=np.int64)
    out = np.empty((64, L), dtype=np.int64)
    det = np.empty(64, dtype=np.int64)
    mn = 0
    live = 0
    for e in range(n):
        t = types[e]
        iw = 0          # runs visited and predicates evaluated for e (written once)
        pe = 0
        # states from the deepest down, so a run extended by e is not visited again for e
        for j in range(L - 2, -1, -1):
            s = j + 1                        # the slot this state's runs wait for
            if slot_type[s] != t:
                # SASE visits each of these runs and finds the type does not fit: charged
                # per run, without walking them (the outcome of every visit is known)
                iw += rn[j]
                continue
            r = 0
            while r < rn[j]:
                iw += 1
                ok = True
                for q in range(st_ptr[s], st_ptr[s + 1]):
                    p = st_ids[q]
                    pe += 1
                    v1 = pred_i[p, 2]
                    v2 = pred_i[p, 4]
                    e1 = e if v1 == s else runs[j, r, v1]
                    e2 = e if (v2 < 0 or v2 == s) else runs[j, r, v2]
                    if v2 < 0:
                        e2 = e1
                    if not eval_pred(pred_i, pred_f, p, attrs, e1, e2):
                        ok = False
                        break
                if not ok:
                    r += 1
                    continue
                first = runs[j, r, 0]
                inside = (e - first < W) if wkind == WIN_COUNT else (ts[e] - ts[first] <= W)
                if not inside:
                    # delete the run (swap the last one in; it is visited next)
                    rn[j] -= 1
                    if r != rn[j]:
                        for k in range(L):
                            runs[j, r, k] = runs[j, rn[j], k]
                    cnt[e, _PMR] += 1
                    live -= 1
                    continue
                if s == L - 1:
                    if mn == det.shape[0]:
                        out, det = grow_rows(out, 2 * mn), grow_1d(det, 2 * mn)
                    for k in range(L - 1):
                        out[mn, k] = runs[j, r, k]
                    out[mn, L - 1] = e
                    det[mn] = e
                    mn += 1
                    cnt[e, _ME] += 1
                else:
                    if rn[s] == runs.shape[1]:
                        if 2 * runs.shape[1] > max_runs:
                            return -1, out[:0], det[:0]
                        runs = _runs_grow(runs, rn)
                    for k in range(L):
                        runs[s, rn[s], k] = runs[j, r, k]
                    runs[s, rn[s], s] = e
                    rn[s] += 1
                    cnt[e, _PMC] += 1
                    live += 1
                r += 1
        # a new run at the first state
        if slot_type[0] == t:
            ok = True
            for q in range(st_ptr[0], st_ptr[1]):
                pe += 1
                if not eval_pred(pred_i, pred_f, st_ids[q], attrs, e, e):
                    ok = False
                    break
            if ok:
                if L == 1:
                    if mn == det.shape[0]:
                        out, det = grow_rows(out, 2 * mn), grow_1d(det, 2 * mn)
                    out[mn, 0] = e
                    det[mn] = e
                    mn += 1
                    cnt[e, _ME] += 1
                else:
                    if rn[0] == runs.shape[1]:
                        if 2 * runs.shape[1] > max_runs:
                            return -1, out[:0], det[:0]
                        runs = _runs_grow(runs, rn)
                    runs[0, rn[0], 0] = e
                    rn[0] += 1
                    cnt[e, _PMC] += 1
                    live += 1
        cnt[e, _IW] += iw
        cnt[e, _PE] += pe
        cnt[e, _LIVE] = live
    return 0, out[:mn], det[:mn]


def run_sase(program: Program, stream, max_partial_matches: int = 20_000_000,
             reference: bool = False, **ignored) -> EngineResult:
    """Evaluate a simple sequence with SASE's run loop (see module docstring).

    The counters are computed run by run (``engines.evaluators.sase_runs``: same counts, no
    quadratic walk over stale runs); ``reference=True`` simulates the loop event by event with
    ``_sase_kernel`` (the specification, kept as the tests' reference)."""
    if not program.is_simple_sequence or program.policy != POLICY_ANY or program.has_remote:
        raise CepsimInputError("the sase engine evaluates a flat SEQ of plain events under "
                               "skip-till-any-match only; use the 'eager' or 'ztree' engine")
    branch = program.branches[0]
    pos = [int(v) for v in branch.pos_vars]
    slot = {v: i for i, v in enumerate(pos)}
    L = len(pos)
    # re-express predicates over slots; each is evaluated when its later slot is bound
    pred_i = program.pred_i.copy()
    groups: list[list[int]] = [[] for _ in range(L)]
    for p in branch.pred_ids:
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        pred_i[p, PI_V1] = slot[v1]
        pred_i[p, PI_V2] = slot[v2] if v2 >= 0 else -1
        s2 = slot[v2] if v2 >= 0 else slot[v1]
        groups[max(slot[v1], s2)].append(int(p))
    st_ptr = np.zeros(L + 1, dtype=np.int64)
    for i, g in enumerate(groups):
        st_ptr[i + 1] = st_ptr[i] + len(g)
    st_ids = np.array([p for g in groups for p in g], dtype=np.int64)
    slot_type = np.array([int(program.var_type[v]) for v in pos], dtype=np.int64)
    cnt = C.new_counters(len(stream))
    # the run-by-run kernel needs windows monotone in the event position (sorted timestamps,
    # which EventStream guarantees)
    kernel = _sase_kernel if reference or np.any(np.diff(stream.ts) < 0) else sase_runs
    status, out, det = kernel(stream.types.astype(np.int64), stream.ts, stream.attrs,
                              pred_i, program.pred_f, slot_type, st_ptr, st_ids,
                              int(program.window_kind), float(program.window),
                              int(max_partial_matches), cnt)
    if status != 0:
        raise CapacityError(f"sase: more than max_partial_matches={max_partial_matches} runs; "
                            "pass a larger max_partial_matches= (--max-partial-matches) or a "
                            "shorter window")
    cols = [slot[v] for v in program.positive_vars]
    p = np.ascontiguousarray(out[:, cols]) if len(out) else np.zeros((0, len(cols)), np.int64)
    z = np.zeros_like(p)
    ms = MatchSet(tuple(program.var_names[v] for v in program.positive_vars),
                  tuple(False for _ in cols), p, z, z.copy(), np.zeros(0, np.int64),
                  np.asarray(det, dtype=np.int64))
    return EngineResult(matches=ms, counters=cnt, info={"engine": "sase"})

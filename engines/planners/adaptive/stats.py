"""Plan-independent sliding-window statistics for adaptive re-planning.

The statistics never look at what the running plan evaluates (estimating selectivities from the
engine's own predicate checks would bias them toward the current plan).  One pass over the
stream keeps, for every positive variable ``v`` of the pattern:

* **rate** -- the exact number of events of ``type(v)`` with ``ts`` in ``(ts_now - W_s, ts_now]``
  (a per-type queue of positions: push on arrival, pop from the front on expiry).  The planners
  use ``r_v * W`` = count / W_s * W, the expected number of ``v`` events per pattern window;
* **sel[v, v]** -- the pass rate of ``v``'s single-variable predicates: each arriving event of
  ``type(v)`` evaluates them once;
* **sel[j, k]** (``j != k`` with at least one predicate mentioning exactly ``j`` and ``k``) --
  each arriving event of ``type(j)`` is bound to ``j`` and tested against the ``n_samples`` most
  recent in-window events of ``type(k)`` bound to ``k`` (all predicates on {j, k} must hold; a
  sample is never the arriving event itself).  Symmetric: tests made as ``j`` or as ``k`` are
  pooled into one estimate.

Tests and passes are kept in ``n_buckets`` sub-buckets of width ``W_s / n_buckets`` (bucket id
``floor(ts / width)``); a snapshot at stream position ``p`` sums the buckets with id in
``(b(p) - n_buckets, b(p)]``.  An estimate with no test is 1.0 (no evidence: "no predicate").
Pairs without predicates are exactly 1.0.

Snapshots are taken after processing the events at the given positions.  Work counted per event
(``STAT_UPDATE``): one per queue push and pop, one per predicate sample test (unary or pairwise)
and one per bucket reset.  The pass is deterministic and depends on the stream and pattern only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import PK_REMOTE, Program
from engines.errors import CepsimInputError
from engines.predicates import eval_pred
from engines.stream import EventStream

_STAT = C.STAT_UPDATE


@dataclass(frozen=True)
class StatsSnapshots:
    """Statistics snapshots of one pass.

    ``positions[s]`` -- stream position after which snapshot ``s`` was taken;
    ``count[s, v]``  -- events of ``type(v)`` in the last ``W_s`` seconds;
    ``sel[s, j, k]`` -- selectivity estimates (symmetric, 1.0 where no predicate / no test);
    ``rate_w[s, v]`` -- ``count / W_s * W``: expected events of ``v`` per pattern window;
    ``stat_work``    -- int64[n_events] statistics operations charged to each event;
    ``vars``         -- the positive variables the matrices index (all variables of the program:
                        rows of negated variables are filled too, they are plan inputs for NOT).
    """

    positions: np.ndarray
    count: np.ndarray
    sel: np.ndarray
    rate_w: np.ndarray
    stat_work: np.ndarray
    monitored: tuple[tuple[int, int], ...]   # (j, k) with j <= k whose estimate is monitored

    def __len__(self) -> int:
        return len(self.positions)


def predicate_structure(program: Program) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(unary[V, P], pair[V, V, P], has)``: boolean masks of the predicates mentioning exactly
    ``{v}`` / exactly ``{j, k}``, and ``has[j, k]`` = at least one such predicate (diagonal =
    unary)."""
    V = program.n_vars
    P = len(program.pred_i)
    unary = np.zeros((V, max(P, 1)), np.bool_)
    pair = np.zeros((V, V, max(P, 1)), np.bool_)
    has = np.zeros((V, V), np.bool_)
    for p in range(P):
        if int(program.pred_i[p, 0]) == PK_REMOTE:
            raise CepsimInputError("adaptive statistics: REMOTE[...] predicates have no local "
                                   "selectivity; remove them from the pattern")
        vs = program.pred_vars(p)
        if len(vs) == 1:
            unary[vs[0], p] = True
            has[vs[0], vs[0]] = True
        else:
            j, k = vs
            pair[j, k, p] = True
            pair[k, j, p] = True
            has[j, k] = has[k, j] = True
    return unary, pair, has


@leaf_njit
def _eval_pair(pred_i, pred_f, plist, npl, j, attrs, e, s):
    """All predicates on {j, k}: ``e`` bound to ``j``, ``s`` to the other variable."""
    for q in range(npl):
        p = plist[q]
        if pred_i[p, 2] == j:
            if not eval_pred(pred_i, pred_f, p, attrs, e, s):
                return False
        else:
            if not eval_pred(pred_i, pred_f, p, attrs, s, e):
                return False
    return True


@njit(cache=True)
def _stats_kernel(types, ts, attrs, pred_i, pred_f, var_type, un_list, un_n, pr_list, pr_n,
                  pr_has, w_s, n_buckets, n_samples, snap_pos, type_pos, type_off, code_u,
                  u_code, u_mult, tv_off, tv_list, vu, pk_off, pk_list, mon_a, mon_c):
    """The pass of the module docstring.  Variables of one type share one queue (``u`` = the
    type's index among the pattern's types: ``code_u[type]``, -1 for other types; ``u_code``,
    ``u_mult`` = its code and variable count; ``vu[v]`` = variable ``v``'s queue); a pop or
    push of a shared queue is charged once per variable of the type, as one queue per variable
    would.  ``tv_list[tv_off[u]:tv_off[u + 1]]`` = the variables of type ``u`` ascending,
    ``pk_list[pk_off[j]:pk_off[j + 1]]`` = the ``k != j`` with a predicate on ``{j, k}``
    ascending, ``(mon_a, mon_c)`` = the monitored pairs ``a <= c``.  Expiry is skipped while
    the oldest queued event of every queue is younger than ``W_s`` (``next_exp``: the smallest
    head timestamp over the non-empty queues), the same comparisons on the same doubles.
    ``engines.planners.adaptive.stats_ref.stats_kernel_ref`` is the frozen one-queue-per-variable
    kernel; ``tests/test_adaptive_pass_equal.py`` checks equal outputs."""
    n = types.shape[0]
    V = var_type.shape[0]
    U = u_code.shape[0]
    n_snap = snap_pos.shape[0]
    n_mon = mon_a.shape[0]
    work = np.zeros(max(n, 1), np.int64)
    count = np.zeros((n_snap, V), np.int64)
    sel = np.ones((n_snap, V, V), np.float64)
    # per-type queue = a window [qhead, qtail) over the positions of that type
    # (``type_pos[type_off[t]:type_off[t+1]]``, ascending)
    qhead = np.zeros(U, np.int64)
    qtail = np.zeros(U, np.int64)
    for u in range(U):
        qhead[u] = type_off[u_code[u]]
        qtail[u] = type_off[u_code[u]]
    width = w_s / n_buckets
    tests = np.zeros((V, V, n_buckets), np.int64)
    passes = np.zeros((V, V, n_buckets), np.int64)
    stamp = np.full((V, V, n_buckets), -(1 << 62), np.int64)
    next_exp = np.inf
    si = 0
    for e in range(n):
        t = ts[e]
        b = np.int64(np.floor(t / width))
        slot = b % n_buckets
        # expire
        if not next_exp > t - w_s:
            next_exp = np.inf
            for u in range(U):
                popped = 0
                while qhead[u] < qtail[u] and ts[type_pos[qhead[u]]] <= t - w_s:
                    qhead[u] += 1
                    popped += 1
                work[e] += popped * u_mult[u]
                if qhead[u] < qtail[u]:
                    h = ts[type_pos[qhead[u]]]
                    if h < next_exp:
                        next_exp = h
        ue = code_u[types[e]]
        if ue >= 0:
            for jj in range(tv_off[ue], tv_off[ue + 1]):
                j = tv_list[jj]
                # unary predicates of j
                if un_n[j] > 0:
                    if stamp[j, j, slot] != b:
                        stamp[j, j, slot] = b
                        tests[j, j, slot] = 0
                        passes[j, j, slot] = 0
                        work[e] += 1
                    ok = True
                    for q in range(un_n[j]):
                        if not eval_pred(pred_i, pred_f, un_list[j, q], attrs, e, e):
                            ok = False
                            break
                    tests[j, j, slot] += 1
                    if ok:
                        passes[j, j, slot] += 1
                    work[e] += 1
                # pairwise predicates: sample the most recent in-window events of k
                for kk in range(pk_off[j], pk_off[j + 1]):
                    k = pk_list[kk]
                    lo = qhead[vu[k]]
                    hi = qtail[vu[k]]
                    a, c = (j, k) if j < k else (k, j)
                    taken = 0
                    idx = hi - 1
                    while idx >= lo and taken < n_samples:
                        s = type_pos[idx]
                        idx -= 1
                        if s == e:
                            continue
                        if stamp[a, c, slot] != b:
                            stamp[a, c, slot] = b
                            tests[a, c, slot] = 0
                            passes[a, c, slot] = 0
                            work[e] += 1
                        tests[a, c, slot] += 1
                        if _eval_pair(pred_i, pred_f, pr_list[j, k], pr_n[j, k], j, attrs, e, s):
                            passes[a, c, slot] += 1
                        work[e] += 1
                        taken += 1
            # push after sampling (an event never samples itself)
            if qhead[ue] == qtail[ue] and t < next_exp:
                next_exp = t
            qtail[ue] += 1
            work[e] += u_mult[ue]
        while si < n_snap and snap_pos[si] == e:
            for v in range(V):
                count[si, v] = qtail[vu[v]] - qhead[vu[v]]
            for m in range(n_mon):
                a = mon_a[m]
                c = mon_c[m]
                tt = 0
                pp = 0
                for z in range(n_buckets):
                    if stamp[a, c, z] > b - n_buckets and stamp[a, c, z] <= b:
                        tt += tests[a, c, z]
                        pp += passes[a, c, z]
                if tt > 0:
                    sel[si, a, c] = pp / tt
                    sel[si, c, a] = pp / tt
            si += 1
    return work, count, sel


def _type_tables(program: Program, types: np.ndarray, has: np.ndarray) -> tuple:
    """The per-type queue and pair tables of ``_stats_kernel`` (its docstring)."""
    var_type = program.var_type.astype(np.int64)
    V = len(var_type)
    n_codes = int(max(types.max() if len(types) else 0, var_type.max())) + 1
    u_code = np.unique(var_type)
    code_u = np.full(n_codes, -1, np.int64)
    code_u[u_code] = np.arange(len(u_code))
    vu = code_u[var_type]
    u_mult = np.bincount(vu, minlength=len(u_code)).astype(np.int64)
    tv_list = np.argsort(vu, kind="stable").astype(np.int64)     # ascending v within a type
    tv_off = np.zeros(len(u_code) + 1, np.int64)
    np.cumsum(u_mult, out=tv_off[1:])
    pk = [[k for k in range(V) if k != j and has[j, k]] for j in range(V)]
    pk_off = np.zeros(V + 1, np.int64)
    np.cumsum([len(x) for x in pk], out=pk_off[1:])
    pk_list = np.asarray([k for x in pk for k in x], np.int64)
    mon = [(a, c) for a in range(V) for c in range(a, V) if has[a, c]]
    mon_a = np.asarray([a for a, _ in mon], np.int64)
    mon_c = np.asarray([c for _, c in mon], np.int64)
    return n_codes, (code_u, u_code.astype(np.int64), u_mult, tv_off, tv_list, vu.astype(np.int64),
                     pk_off, pk_list, mon_a, mon_c)


def check_positions(n_events: int, check_every: int, start: int = 0) -> np.ndarray:
    """Positions after which a check happens: ``start + check_every - 1``, every ``check_every``."""
    if check_every < 1:
        raise CepsimInputError(f"adaptive: check_every must be >= 1, got {check_every}")
    return np.arange(start + check_every - 1, n_events, check_every, dtype=np.int64)


def compute_stats(program: Program, stream: EventStream, positions: np.ndarray, w_s: float,
                  n_buckets: int = 8, n_samples: int = 4, window: float | None = None
                  ) -> StatsSnapshots:
    """One statistics pass (module docstring); snapshots after each of ``positions`` (sorted).

    ``window`` is the pattern window in seconds used for ``rate_w`` (default: the program's)."""
    if not w_s > 0:
        raise CepsimInputError(f"adaptive statistics: the statistics window W_s must be > 0 "
                               f"seconds, got {w_s}")
    if n_buckets < 1 or n_samples < 1:
        raise CepsimInputError("adaptive statistics: n_buckets and n_samples must be >= 1")
    V = program.n_vars
    unary, pair, has = predicate_structure(program)
    P = max(1, len(program.pred_i))
    un_list = np.zeros((V, P), np.int64)
    un_n = np.zeros(V, np.int64)
    pr_list = np.zeros((V, V, P), np.int64)
    pr_n = np.zeros((V, V), np.int64)
    for v in range(V):
        ids = np.flatnonzero(unary[v])
        un_list[v, :len(ids)] = ids
        un_n[v] = len(ids)
        for k in range(V):
            if k != v:
                ids = np.flatnonzero(pair[v, k])
                pr_list[v, k, :len(ids)] = ids
                pr_n[v, k] = len(ids)
    pos = np.ascontiguousarray(np.asarray(positions, np.int64))
    if len(pos) and (np.any(np.diff(pos) < 0) or pos[0] < 0 or pos[-1] >= len(stream)):
        raise CepsimInputError("adaptive statistics: snapshot positions must be sorted stream "
                               "positions")
    pred_i = program.pred_i.astype(np.int64) if len(program.pred_i) else np.zeros((1, 7), np.int64)
    pred_f = program.pred_f if len(program.pred_f) else np.zeros((1, 2))
    types = np.ascontiguousarray(stream.types.astype(np.int64))
    n_codes, tables = _type_tables(program, types, has)
    type_pos = np.argsort(types, kind="stable").astype(np.int64)
    type_off = np.zeros(n_codes + 1, np.int64)
    np.cumsum(np.bincount(types, minlength=n_codes), out=type_off[1:])
    work, count, sel = _stats_kernel(
        types, stream.ts, stream.attrs, pred_i, pred_f, program.var_type.astype(np.int64),
        un_list, un_n, pr_list, pr_n, has, float(w_s), int(n_buckets), int(n_samples), pos,
        type_pos, type_off, *tables)
    W = float(program.window if window is None else window)
    if not np.isfinite(W):
        raise CepsimInputError("adaptive statistics: the pattern needs a time window (WITHIN)")
    rate_w = count / float(w_s) * W
    monitored = tuple((a, c) for a in range(V) for c in range(a, V) if has[a, c])
    return StatsSnapshots(pos, count, sel, rate_w, work[:len(stream)], monitored)

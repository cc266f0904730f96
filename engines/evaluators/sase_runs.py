"""Exact per-event counters of SASE's run loop, computed run by run (engine ``sase``'s kernel).

Why: the run loop of ``engines.evaluators.sase`` (its module docstring is the specification)
visits every active run of every state for every event, and stale runs (window closed, never
reached by a qualifying event) pile up, so simulating it event by event is quadratic: about
100 s for the 100k-event APAM exp 1 stream.  The counters it produces do not need that
walk.  Every run's life is independent of every other run: a run of state ``j`` created while
processing event ``c`` is visited by every event after ``c``; an event of its next slot's type
evaluates the slot's predicates on it (short-circuit, in order); the *passing* events inside
the window each clone it (or emit a match), and the first passing event outside the window
deletes it (it is visited, then deleted).  So one run's whole contribution is known from the
ordered list of its passing events, and the counters are sums over runs:

* ``INSTANCE_WORK`` of event ``e`` = number of runs alive after ``c`` and up to their deletion
  (inclusive): a difference array over events;
* ``PRED_EVAL`` for a slot with a single comparison predicate = one per visit by an event of the
  slot's type: a difference array over that type's events; for any other slot the visits are
  walked and evaluated as the reference does;
* ``PM_CREATED`` / ``MATCH_EMIT`` / ``PM_REMOVED`` at the passing events; ``LIVE_PM`` a
  difference array of creations and deletions.

The passing events of a single-comparison slot (``x OP y`` with ``OP`` one of ``< <= > >=``, one
side the run's bound event, the other the arriving event) are found with a max segment tree over
the arriving side's values in the type's event order (first index >= l with value > v, or >= v),
so a run costs O((clones + 1) log n) instead of one step per later event.  The comparison is
rewritten exactly (``x < z`` as ``z > x``; ``x > z`` as ``-z > -x``; negation is exact in floating
point) and the arriving side is computed by the same expression as ``eval_pred``; slots whose
values contain NaN, or with another predicate kind or operator or several predicates, are walked.

Also exact: the reference's capacity failure (``max_runs``): the reference doubles one shared
per-state capacity from 64 while ``2 x capacity <= max_runs`` and fails when a state would exceed
it; a state's count peaks at the end of an event (its deletions come before its insertions), so
the failure condition is a peak end-of-event per-state count above the largest reachable
capacity.  Matches are returned sorted by (detecting event, positions), not in the reference's
visiting order.  ``tests/test_sase_runs.py`` compares every counter column and the matches with
the reference kernel ``engines.evaluators.sase._sase_kernel`` on random streams.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import (OP_GE, OP_GT, OP_LE, OP_LT, PI_C1, PI_C2, PI_KIND, PI_OP, PI_V1,
                             PI_V2, PK_CMP, WIN_COUNT)
from engines.evaluators.lazy_nfa import lower_bound
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.predicates import eval_pred

_IW, _PE, _PMC, _PMR, _ME, _LIVE = (C.INSTANCE_WORK, C.PRED_EVAL, C.PM_CREATED, C.PM_REMOVED,
                                    C.MATCH_EMIT, C.LIVE_PM)

# slot modes
_WALK, _NONE, _TREE = 0, 1, 2


@leaf_njit
def _first_at_least(tree, off, size, count, l, v, strict):
    """First index ``i >= l`` (< ``count``) of the leaves of the max tree at ``tree[off:]`` with
    leaf > ``v`` (``strict``) or >= ``v``; -1 when none."""
    if l >= count:
        return -1
    i = l + size
    while True:
        x = tree[off + i]
        if (x > v) if strict else (x >= v):
            break
        while i & 1:
            i >>= 1
        if i == 0:
            return -1
        i += 1
    while i < size:
        i2 = 2 * i
        x = tree[off + i2]
        if (x > v) if strict else (x >= v):
            i = i2
        else:
            i = i2 + 1
    r = i - size
    return r if r < count else -1


@leaf_njit
def _inside(ts, wkind, W, first, e):
    return (e - first < W) if wkind == WIN_COUNT else (ts[e] - ts[first] <= W)


@leaf_njit
def _next_walk(pred_i, pred_f, attrs, st_ptr, st_ids, s, b, tpos, lo, cT, i0, cnt):
    """First index ``i >= i0`` (of the slot's type events ``tpos[lo:lo + cT]``) whose event
    passes slot ``s``'s predicates with the run's bound events ``b``, evaluating them in order
    (short-circuit) and charging each evaluation to its event; -1 when none."""
    for i in range(i0, cT):
        e = tpos[lo + i]
        ok = True
        for q in range(st_ptr[s], st_ptr[s + 1]):
            p = st_ids[q]
            cnt[e, _PE] += 1
            v1 = pred_i[p, 2]
            v2 = pred_i[p, 4]
            e1 = e if v1 == s else b[v1]
            e2 = e if (v2 < 0 or v2 == s) else b[v2]
            if v2 < 0:
                e2 = e1
            if not eval_pred(pred_i, pred_f, p, attrs, e1, e2):
                ok = False
                break
        if ok:
            return i
    return -1


@njit(cache=True)
def _extend(b, s, L, e, cnt, out, det, mn, sj, sc, sb, top):
    """A run with slots ``b[:s]`` bound extended by ``e`` at slot ``s``: a match (last slot) or
    a new run of state ``s`` pushed on the stack; returns the grown arrays and counts."""
    if s == L - 1:
        if mn == det.shape[0]:
            out, det = grow_rows(out, 2 * mn), grow_1d(det, 2 * mn)
        for k in range(L - 1):
            out[mn, k] = b[k]
        out[mn, L - 1] = e
        det[mn] = e
        cnt[e, _ME] += 1
        return out, det, mn + 1, sj, sc, sb, top
    cnt[e, _PMC] += 1
    if top == sj.shape[0]:
        sj, sc = grow_1d(sj, 2 * top), grow_1d(sc, 2 * top)
        sb = grow_rows(sb, 2 * top)
    sj[top] = s
    sc[top] = e
    for k in range(s):
        sb[top, k] = b[k]
    sb[top, s] = e
    return out, det, mn, sj, sc, sb, top + 1


@njit(cache=True)
def _sase_runs_kernel(types, ts, attrs, pred_i, pred_f, slot_type, st_ptr, st_ids, wkind, W,
                      max_runs, cnt, tptr, tpos, mode, neg, strict, run_slot, run_col,
                      run_affine, tree, tree_off, tree_size):
    n = types.shape[0]
    L = slot_type.shape[0]
    div = np.zeros(n + 1, dtype=np.int64)              # instance visits
    dlive = np.zeros(n + 1, dtype=np.int64)            # live runs
    dstate = np.zeros((max(L - 1, 1), n + 1), dtype=np.int64)   # runs per state
    # predicate visits per slot over its type's events (slots in _TREE mode)
    pe_off = np.zeros(L + 1, dtype=np.int64)
    for s in range(L):
        T = slot_type[s]
        pe_off[s + 1] = pe_off[s] + (tptr[T + 1] - tptr[T]) + 1
    dpe = np.zeros(pe_off[L], dtype=np.int64)
    out = np.empty((64, L), dtype=np.int64)
    det = np.empty(64, dtype=np.int64)
    mn = 0
    # run stack: state, creating event, bound slots
    sj = np.empty(64, dtype=np.int64)
    sc = np.empty(64, dtype=np.int64)
    sb = np.empty((64, L), dtype=np.int64)
    top = 0
    b = np.empty(L, dtype=np.int64)
    T0 = slot_type[0]
    for q0 in range(tptr[T0], tptr[T0 + 1]):
        e0 = tpos[q0]
        ok = True
        for q in range(st_ptr[0], st_ptr[1]):
            cnt[e0, _PE] += 1
            if not eval_pred(pred_i, pred_f, st_ids[q], attrs, e0, e0):
                ok = False
                break
        if not ok:
            continue
        # a new run of the first state (or, for one variable, a match)
        top = np.int64(0)       # np scalars, not literals: one compile of _extend
        out, det, mn, sj, sc, sb, top = _extend(b, np.int64(0), L, e0, cnt, out, det, mn, sj,
                                                sc, sb, top)
        while top > 0:
            top -= 1
            j = sj[top]
            c = sc[top]
            for k in range(j + 1):
                b[k] = sb[top, k]
            s = j + 1
            T = slot_type[s]
            lo, hi = tptr[T], tptr[T + 1]
            cT = hi - lo
            l0 = lower_bound(tpos, lo, hi, c + 1) - lo
            f = b[0]
            d = -1
            last = cT - 1                    # last visiting index of type T (rank)
            md = mode[s]
            v = 0.0
            if md == _TREE:
                rs = run_slot[s]
                if rs < 0:
                    v = 0.5
                else:
                    p = st_ids[st_ptr[s]]
                    x = attrs[b[rs], run_col[s]]
                    if run_affine[s]:
                        x = x * pred_f[p, 0] + pred_f[p, 1]
                    v = -x if neg[s] else x
            # the run's passing events in order: clones inside the window, then the deletion
            i = l0
            while True:
                if md == _TREE:
                    i = _first_at_least(tree, tree_off[s], tree_size[s], cT, i, v, strict[s])
                elif md == _WALK:
                    i = _next_walk(pred_i, pred_f, attrs, st_ptr, st_ids, s, b, tpos, lo, cT, i,
                                   cnt)
                elif i >= cT:
                    i = -1
                if i < 0:
                    break
                e = tpos[lo + i]
                if not _inside(ts, wkind, W, f, e):
                    d = e
                    last = i
                    break
                out, det, mn, sj, sc, sb, top = _extend(b, s, L, e, cnt, out, det, mn, sj, sc,
                                                        sb, top)
                i += 1
            if md == _TREE and l0 <= last:      # one predicate per visit of type T
                dpe[pe_off[s] + l0] += 1
                dpe[pe_off[s] + last + 1] -= 1
            # the run's life: created at c (state j), visited by c+1 .. d (or the end)
            div[c + 1] += 1
            dlive[c] += 1
            dstate[j, c] += 1
            if d >= 0:
                cnt[d, _PMR] += 1
                div[d + 1] -= 1
                dlive[d] -= 1
                dstate[j, d] -= 1
    # capacity of the reference (one shared per-state capacity, doubled from 64)
    cap = 64
    while 2 * cap <= max_runs:
        cap *= 2
    for j in range(L - 1):
        acc = 0
        for e in range(n):
            acc += dstate[j, e]
            if acc > cap:
                return -1, out[:0], det[:0]
    iw = 0
    live = 0
    for e in range(n):
        iw += div[e]
        live += dlive[e]
        cnt[e, _IW] += iw
        cnt[e, _LIVE] = live
    for s in range(1, L):
        if mode[s] != _TREE:
            continue
        T = slot_type[s]
        acc = 0
        for i in range(tptr[T + 1] - tptr[T]):
            acc += dpe[pe_off[s] + i]
            cnt[tpos[tptr[T] + i], _PE] += acc
    return 0, out[:mn], det[:mn]


@njit(cache=True)
def _build_tree(vals, size):
    """Max tree (1-based heap layout, ``2 * size`` entries) over ``vals``; padding -inf."""
    t = np.full(2 * size, -np.inf)
    for i in range(vals.shape[0]):
        t[size + i] = vals[i]
    for i in range(size - 1, 0, -1):
        t[i] = max(t[2 * i], t[2 * i + 1])
    return t


@njit(cache=True)
def _keys(pred_i, pred_f, p, attrs, evs, e_is_v1, own, negate):
    """The arriving event's side of predicate ``p`` for each event of ``evs`` (as ``eval_pred``
    computes it), negated if ``negate``; ``own``: the predicate involves the arriving event
    only, keys are 1.0 (passes) / 0.0."""
    out = np.empty(evs.shape[0])
    for i in range(evs.shape[0]):
        e = evs[i]
        if own:
            out[i] = 1.0 if eval_pred(pred_i, pred_f, p, attrs, e, e) else 0.0
            continue
        if e_is_v1:
            z = attrs[e, pred_i[p, 3]]
        else:
            z = attrs[e, pred_i[p, 5]] * pred_f[p, 0] + pred_f[p, 1]
        out[i] = -z if negate else z
    return out


def plan_slots(pred_i: np.ndarray, pred_f: np.ndarray, attrs: np.ndarray, slot_type: np.ndarray,
               st_ptr: np.ndarray, st_ids: np.ndarray, tptr: np.ndarray, tpos: np.ndarray):
    """Per slot: how the run-centric kernel finds its passing events (walk, none, or a max tree
    over the arriving side with the run side's value rule).  ``pred_i`` is slot-indexed."""
    L = len(slot_type)
    mode = np.zeros(L, np.int64)
    neg = np.zeros(L, np.bool_)
    strict = np.zeros(L, np.bool_)
    run_slot = np.full(L, -1, np.int64)
    run_col = np.zeros(L, np.int64)
    run_affine = np.zeros(L, np.bool_)
    tree_off = np.zeros(L, np.int64)
    tree_size = np.ones(L, np.int64)
    trees = []
    off = 0
    for s in range(1, L):
        ids = st_ids[st_ptr[s]:st_ptr[s + 1]]
        if len(ids) == 0:
            mode[s] = _NONE
            continue
        if len(ids) != 1:
            continue
        p = int(ids[0])
        if pred_i[p, PI_KIND] != PK_CMP:
            continue
        op = int(pred_i[p, PI_OP])
        if op not in (OP_LT, OP_LE, OP_GT, OP_GE):
            continue
        v1, v2 = int(pred_i[p, PI_V1]), int(pred_i[p, PI_V2])
        own = v2 < 0 or v1 == v2          # the arriving event only (slot s)
        T = int(slot_type[s])
        evs = np.ascontiguousarray(tpos[tptr[T]:tptr[T + 1]])
        if own:
            keys = _keys(pred_i, pred_f, p, attrs, evs, False, True, False)
            strict[s] = True
        else:
            e_is_v1 = v1 == s
            # pred: compare(op, x, z) (arriving = v2) or compare(op, z, x) (arriving = v1)
            # rewritten as key > / >= value with key = +-z, value = +-x
            if e_is_v1:
                negate = op in (OP_LT, OP_LE)
                run_slot[s], run_col[s], run_affine[s] = v2, pred_i[p, PI_C2], True
            else:
                negate = op in (OP_GT, OP_GE)
                run_slot[s], run_col[s], run_affine[s] = v1, pred_i[p, PI_C1], False
            strict[s] = op in (OP_LT, OP_GT)
            neg[s] = negate
            keys = _keys(pred_i, pred_f, p, attrs, evs, e_is_v1, False, negate)
            if np.isnan(keys).any():
                run_slot[s] = -1
                continue
        size = 1
        while size < max(len(evs), 1):
            size *= 2
        trees.append(_build_tree(keys, size))
        tree_off[s], tree_size[s] = off, size
        off += 2 * size
        mode[s] = _TREE
    tree = np.concatenate(trees) if trees else np.zeros(1)
    return mode, neg, strict, run_slot, run_col, run_affine, tree, tree_off, tree_size


def type_index(types: np.ndarray, n_types: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR of event positions per type: ``tpos[tptr[t]:tptr[t + 1]]`` (ascending)."""
    t = types.astype(np.int64)
    order = np.argsort(t, kind="stable").astype(np.int64)
    tptr = np.zeros(n_types + 1, np.int64)
    np.cumsum(np.bincount(t, minlength=n_types)[:n_types], out=tptr[1:])
    return tptr, order


def sase_runs(types, ts, attrs, pred_i, pred_f, slot_type, st_ptr, st_ids, wkind, W, max_runs,
              cnt):
    """Same inputs and outputs as ``engines.evaluators.sase._sase_kernel`` (status, matches,
    detecting events; ``cnt`` filled), computed run by run (module docstring); matches sorted by
    (detecting event, positions)."""
    n_types = int(max(int(types.max()) if len(types) else 0, int(slot_type.max()))) + 1
    tptr, tpos = type_index(types, n_types)
    plan = plan_slots(pred_i, pred_f, attrs, slot_type, st_ptr, st_ids, tptr, tpos)
    status, out, det = _sase_runs_kernel(types, ts, attrs, pred_i, pred_f, slot_type, st_ptr,
                                         st_ids, wkind, W, max_runs, cnt, tptr, tpos, *plan)
    if status == 0 and len(det):
        keys = [out[:, k] for k in range(out.shape[1] - 1, -1, -1)] + [det]
        o = np.lexsort(keys)
        out, det = out[o], det[o]
    return status, out, det

"""ZStream-style tree-plan evaluator with materialized intermediate results (engine ``ztree``).

What it does
------------
A plan (``engines.evaluators.ztree_plan``) is a binary tree over the pattern's positive variables, left-deep
or bushy, e.g. ``"((a,b),(c,d))"``; the default is the left-deep tree in query (text) order.  OR
is evaluated as one tree per alternative; AND is native (no n! expansion: an AND of 8 is one
tree).  Every node keeps its results in structure-of-arrays buffers that persist across events:

* a **leaf** buffers the events of its variable that pass the variable's one-variable
  predicates (a Kleene leaf ``B+ b`` stores every non-empty ordered subset of them inside the
  window, as parent-pointer chains: the semantics' 2^k - 1 bindings);
* an **internal node** stores the joins of its children's results: one row per result with the
  bound event of every variable (``-1`` unbound; a Kleene variable holds its chain handle) and
  its first / last stream position.

An event enters the leaves of its type; its new leaf results are joined with the sibling's
stored results and new results propagate towards the root, so each combination is produced once
(``new left x old right`` and ``old left x new right``; both new sides contain the arriving event
and can never pair).  Every result created while the event ``e`` is processed has ``last = e``,
so each buffer is sorted by last position for free.  A node whose left subtree wholly precedes
its right one in the pattern (a *SEQ split*) finds its partners by binary search: for a new right
result with first position ``f`` the left candidates are the stored results with ``last < f``, a
prefix of the buffer (a new left result has no partner at all).  Other splits (AND operands,
interleaved variable sets of non-contiguous plans) scan the sibling and check per pair the
precedence / disjointness of the variables they relate.  At a pair the window is checked
against the first position of the combined result, then the cross predicates (a predicate is
evaluated at the lowest node that binds all its variables; with a Kleene variable for every
event).  Window expiry: results whose *last* event left the window are dropped from the head of
the buffer at each event (binary-search free: the buffer is sorted by last); results whose
first event left it are removed by compaction when a buffer has grown to twice its live size.

The probe loop (one stored result against one new result) does the cheap checks first and
merges nothing until they pass.  The window check is one integer comparison: the positions
inside the window of the current event are a suffix of the stream (timestamps do not
decrease), whose start moves forward once per event.  Order constraints and predicates read
their events straight from the two result rows, each variable from the child that binds it, as
resolved per node when the tables are built (``engines.evaluators.ztree_probe``); a comparison
of two plain variables is evaluated inline, its new-side operand read once per new result and
the stored side's operand of a node's first predicate kept per stored result beside its first
position; other predicates call ``eval_pred`` (Kleene variables: on the merged row, every event
pair).  The binding row is merged only for a probe that passed, to be negation-checked, stored
or emitted.  Same visits, same order, same counters as a probe that merges the row first and
interprets the constraint table and every predicate: ``engines.evaluators.ztree_ref`` keeps
that reading as the reference, and ``tests/test_ztree_fast_equal.py`` compares every output of
the two kernels exactly (``benchmarks/bench_kernel_floor.py`` times them).

Negation follows docs/SEMANTICS.md: ``NOT(C c)`` between neighbours L and R is checked at the
lowest node that binds L, R and every variable of c's predicates: a binary search in c's buffer
(the C events that passed c's one-variable predicates, in position order) finds the candidates
strictly between the last event of L and the first of R.  A NOT at the start is checked at the
root (candidates before the first event, inside the window of the last); a NOT at the end parks
the root result until the first event outside its first event's window arrives (or the stream
ends), then checks the candidates after its last event; the match is detected then.

Trigger modes: ``push`` joins on every arrival.  ``batch`` (ZStream's) only inserts arriving
events into the leaves; joins run when an event that can complete a match arrives (it passes a
leaf whose variable may be the last of a match).  The batch is then joined in stream order,
event by event, against the materialized results of earlier rounds, with the window measured to
the triggering event (results that can no longer complete a match are never built); results are
kept and reused by later rounds.  Both modes report the same matches with the same ``detect``.

Policy: skip-till-any-match only; skip-till-next-match raises ``CepsimInputError``.

Counters (executed work only, charged to the row of the event being processed; end-of-stream
work to the last row): ``JOIN_PROBE`` candidate pairs examined at a node (after the binary
search), Kleene extensions tried, and negation candidates examined; ``PRED_EVAL`` atomic
predicate evaluations (one per event pair for Kleene variables); ``SEARCH_CMP`` comparisons made
by the binary searches; ``PM_CREATED`` / ``PM_REMOVED`` internal-node results and Kleene subsets
created / dropped (expired, or a parked end-NOT match resolved); ``BUF_INSERT`` events inserted
into leaf and negation buffers; ``MATCH_EMIT`` matches; gauges ``LIVE_PM`` (stored results of
internal nodes and Kleene leaves plus parked matches) and ``BUFFERED`` (events held in plain leaf
and negation buffers).

Python API
----------
``run_ztree(program, stream, plan=None, trigger="push", eager_vars=(), max_partial_matches=...,
max_matches=..., max_kleene_nodes=...) -> EngineResult`` where ``plan`` is text, a nested tuple of
variable names, an ``engines.evaluators.ztree_plan.Plan`` or None; ``make_plan(spec, program)`` validates a
plan.  With ``trigger="batch"``, ``eager_vars`` names variables whose subtrees still join on
arrival (a node joins on arrival when all its variables are eager): APAM's eager group, used by
``engines.evaluators.hybrid`` (an eager subtree under a lazy parent hands its results to the batch replay).  Caps
raise ``CapacityError`` naming the option.  ``EngineResult.info`` holds the plan text, the
trigger and peak buffer sizes.  ``kernel_outputs(program, stream, ..., reference=False)`` runs the
kernel once and returns its raw outputs (tests and benchmarks compare the engine's kernel with
the reference kernel through it).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import KIND_KLEENE, POLICY_NEXT, Program
from engines.errors import CapacityError, CepsimInputError
from engines.matches import KLEENE, UNBOUND, MatchSet
from engines.predicates import compare, eval_pred
from engines.program_memo import kept, program_memo
from engines.registry import EngineResult
from engines.evaluators.ztree_plan import Plan, format_plan, make_plan
from engines.evaluators.ztree_probe import PQ_CMP, PQ_PLAIN, PV_RAW, PV_SCALED
from engines.evaluators.ztree_tables import SPLIT_GEN, TRIGGERS, build_tables
from engines.evaluators.ztree_helpers import (lower_count, neg_bounds, node_killed, pred_holds,
                                              span_ok, v_first, v_last)

__all__ = ["run_ztree", "make_plan", "Plan", "build_tables", "kernel_outputs"]

ST_OK, ST_PM, ST_MATCH, ST_KLEENE = 0, 1, 2, 3
# the kernel ran out of one of its preallocated arrays (result arena, Kleene chain nodes, parked
# matches, matches): ``run_ztree`` runs it again with that array four times larger
ST_SPACE_R, ST_SPACE_K, ST_SPACE_P, ST_SPACE_M = 4, 5, 6, 7

# counter columns (module constants frozen into the kernels; columns are never renumbered)
_PE, _PMC, _PMR, _BI, _ME = C.PRED_EVAL, C.PM_CREATED, C.PM_REMOVED, C.BUF_INSERT, C.MATCH_EMIT
_JP, _LIVE, _BUF, _SC = C.JOIN_PROBE, C.LIVE_PM, C.BUFFERED, C.SEARCH_CMP


# ============================================================================= kernel helpers


@leaf_njit
def _compact(k, R_bind, R_first, R_last, R_val, noff, nhead, nsize, nmark, nprop, ts, T,
             wkind, W):
    """Drop node ``k``'s dead head and the results whose first event left the window of ``T``;
    order is kept and the new/propagated marks are remapped.  Returns results removed."""
    off = noff[k]
    w = 0
    removed = 0
    mark = nmark[k]
    prop = nprop[k]
    new_mark = -1
    new_prop = -1
    V = R_bind.shape[1]
    for i in range(nhead[k], nsize[k]):
        if i == mark and new_mark < 0:
            new_mark = w
        if i == prop and new_prop < 0:
            new_prop = w
        if span_ok(ts, R_first[off + i], T, wkind, W):
            if w != i:
                for v in range(V):
                    R_bind[off + w, v] = R_bind[off + i, v]
                R_first[off + w] = R_first[off + i]
                R_last[off + w] = R_last[off + i]
                R_val[off + w] = R_val[off + i]
            w += 1
        else:
            removed += 1
    if new_mark < 0:
        new_mark = w if mark >= nhead[k] else 0
    if new_prop < 0:
        new_prop = w if prop >= nhead[k] else 0
    nmark[k] = new_mark
    nprop[k] = new_prop
    nsize[k] = w
    nhead[k] = 0
    return removed


@leaf_njit
def _grow(k, R_bind, R_first, R_last, R_val, noff, ncap, nsize):
    """Double node ``k``'s capacity inside the arena: the segments of the nodes after ``k`` move
    right by its old capacity (relative indices kept).  Returns False, changing nothing, when
    the arena has no room for it (the caller stops the run; ``run_ztree`` reruns it with a
    larger arena).  Capacities are *logical*: they decide when a buffer is compacted, exactly
    as when the arena was reallocated at every doubling; the arena's size only bounds them."""
    n_nodes = noff.shape[0]
    add = ncap[k]
    total = 0
    for j in range(n_nodes):
        total += ncap[j]
    if total + add > R_first.shape[0]:
        return False
    V = R_bind.shape[1]
    for j in range(n_nodes - 1, k, -1):   # rightmost first, each segment from its end
        src = noff[j]
        dst = src + add
        for i in range(nsize[j] - 1, -1, -1):
            for v in range(V):
                R_bind[dst + i, v] = R_bind[src + i, v]
            R_first[dst + i] = R_first[src + i]
            R_last[dst + i] = R_last[src + i]
            R_val[dst + i] = R_val[src + i]
        noff[j] = dst
    ncap[k] *= 2
    return True


# ============================================================================= kernel
@njit(cache=True)
def _ztree_kernel(types, ts, attrs, pred_i, pred_f, var_kind, wkind, W, trigger,
                  nd_left, nd_right, nd_var, nd_split, nd_trig, nd_alt,
                  np_ptr, np_ids, nn_ptr, nn_ids, nc_ptr, nc_i, nc_j, nc_k,
                  alt_root, ar_ptr, ar_ids, ae_ptr, ae_ids,
                  ng_var, ng_kind, gl_ptr, gl_vars, gr_ptr, gr_vars, gp_ptr, gp_ids,
                  gu_ptr, gu_ids, g_off, tl_ptr, tl_nodes, tn_ptr, tn_ids,
                  init_cap, max_pm, max_matches, max_kleene, cnt,
                  nd_lazy, nd_src1, side_skip, side_hb_ok, side_lb_ok, hb_ptr, hb_x, hb_w,
                  lb_ptr, lb_v, nd_transient, rows_phys, k_phys, p_phys, m_phys,
                  pq_mode, pq_s1, pq_v1, pq_v2, pq_c1, pq_c2, pq_op, pq_f0, pq_f1, pq_max,
                  nc_si, nc_sj, nd_pv, nd_pv_var, nd_pv_col, nd_pv_f0, nd_pv_f1):
    """The event loop.  Every growable array is allocated here once, at the size the caller
    passes (``*_phys``), and never reallocated: the loop rebinds no array (``docs/ENGINEERING.md``,
    "Numba hot loops").  A run that needs more stops with ``ST_SPACE_*``."""
    # np scalars, not literals: one compile of node_killed for every call site (a literal argument
    # makes Numba compile a specialised copy; docs/ENGINEERING.md, "Numba hot loops")
    _I0 = np.int64(0)
    _I1 = np.int64(1)
    _I2 = np.int64(2)
    n = types.shape[0]
    V = var_kind.shape[0]
    n_nodes = nd_left.shape[0]
    n_alts = alt_root.shape[0]
    n_negs = ng_var.shape[0]
    status = 0
    # ---- result arena (one segment per node)
    noff = np.empty(n_nodes, dtype=np.int64)
    ncap = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):
        noff[k] = k * init_cap
        ncap[k] = init_cap
    rows = max(rows_phys, n_nodes * init_cap)
    R_bind = np.empty((rows, V), dtype=np.int64)
    R_first = np.empty(rows, dtype=np.int64)
    R_last = np.empty(rows, dtype=np.int64)
    # per stored result, its operand of the first predicate of its parent node (``nd_pv``):
    # read by the parent's probes beside R_first instead of through the result's binding row
    R_val = np.zeros(rows, dtype=np.float64)
    nhead = np.zeros(n_nodes, dtype=np.int64)
    nsize = np.zeros(n_nodes, dtype=np.int64)
    nmark = np.zeros(n_nodes, dtype=np.int64)
    nprop = np.zeros(n_nodes, dtype=np.int64)
    nlive = np.zeros(n_nodes, dtype=np.int64)      # live size after the last compaction
    is_root = np.zeros(n_nodes, dtype=np.int64)
    for a in range(n_alts):
        is_root[alt_root[a]] = 1
    counted = np.zeros(n_nodes, dtype=np.int64)    # 1: results are partial matches (LIVE_PM)
    for k in range(n_nodes):
        if nd_var[k] < 0 or var_kind[nd_var[k]] == 1:
            counted[k] = 1
    # ---- Kleene chains
    kcap = 16   # logical: doubles as needed, checked against max_kleene
    K_ev = np.empty(max(k_phys, kcap), dtype=np.int64)
    K_prev = np.empty(max(k_phys, kcap), dtype=np.int64)
    K_first = np.empty(max(k_phys, kcap), dtype=np.int64)
    kn = 0
    # ---- negation buffers (capacity = events of the type: precomputed offsets)
    G_pos = np.empty(max(g_off[n_negs], 1), dtype=np.int64)
    g_head = np.zeros(n_negs, dtype=np.int64)
    g_size = np.zeros(n_negs, dtype=np.int64)
    # ---- parked matches (trailing NOT)
    P_bind = np.empty((max(p_phys, 1), V), dtype=np.int64)
    P_alt = np.empty(max(p_phys, 1), dtype=np.int64)
    P_first = np.empty(max(p_phys, 1), dtype=np.int64)
    P_last = np.empty(max(p_phys, 1), dtype=np.int64)
    pn = 0
    # ---- output
    M_bind = np.empty((max(m_phys, 1), V), dtype=np.int64)
    M_det = np.empty(max(m_phys, 1), dtype=np.int64)
    mn = 0
    row = np.empty(V, dtype=np.int64)
    hv = np.empty(max(pq_max, 1), dtype=np.float64)   # the new result's predicate operands
    live = 0
    buffered = 0
    peak_live = 0
    any_src1 = False
    for k in range(n_nodes):
        if nd_src1[k] == 1:
            any_src1 = True
    n_tr = 0
    tr_nodes = np.empty(n_nodes, dtype=np.int64)
    for k in range(n_nodes):
        if nd_transient[k] == 1:
            tr_nodes[n_tr] = k
            n_tr += 1

    wlo = 0     # the first position inside the window of the current event
    for e in range(n):
        te = types[e]
        # a stored result's first position f is inside the window of e exactly when f >= wlo:
        # ts[e] - ts[f] (rounded) does not increase with f, nor e - f, so the positions that
        # pass ``span_ok(ts, f, e)`` are the suffix from wlo, and wlo never moves back
        while wlo <= e and not span_ok(ts, wlo, e, wkind, W):
            wlo += 1
        # ---------------------------------------------------------------- expiry (heads)
        for k in range(n_nodes):
            off = noff[k]
            h = nhead[k]
            while h < nsize[k] and not span_ok(ts, R_last[off + h], e, wkind, W):
                h += 1
            d = h - nhead[k]
            if d > 0:
                nhead[k] = h
                if nprop[k] < h:
                    nprop[k] = h
                if nmark[k] < h:
                    nmark[k] = h
                if counted[k] == 1:
                    cnt[e, _PMR] += d
                    live -= d
                else:
                    buffered -= d
            if nsize[k] - nhead[k] > 2 * nlive[k] + 16:
                r = _compact(k, R_bind, R_first, R_last, R_val, noff, nhead, nsize, nmark, nprop,
                             ts, e, wkind, W)
                nlive[k] = nsize[k]
                if r > 0:
                    if counted[k] == 1:
                        cnt[e, _PMR] += r
                        live -= r
                    else:
                        buffered -= r
        for g in range(n_negs):
            if ng_kind[g] != 2:
                off = g_off[g]
                h = g_head[g]
                while h < g_size[g] and not span_ok(ts, G_pos[off + h], e, wkind, W):
                    h += 1
                buffered -= h - g_head[g]
                g_head[g] = h
        # ---------------------------------------------------------------- negation buffers
        for q in range(tn_ptr[te], tn_ptr[te + 1]):
            g = tn_ids[q]
            ok = True
            for u in range(gu_ptr[g], gu_ptr[g + 1]):
                cnt[e, _PE] += 1
                if not eval_pred(pred_i, pred_f, gu_ids[u], attrs, e, e):
                    ok = False
                    break
            if ok:
                G_pos[g_off[g] + g_size[g]] = e
                g_size[g] += 1
                cnt[e, _BI] += 1
                buffered += 1
        # ---------------------------------------------------------------- parked matches
        if pn > 0:
            w = 0
            for i in range(pn):
                if not span_ok(ts, P_first[i], e, wkind, W):
                    a = P_alt[i]
                    for v in range(V):
                        row[v] = P_bind[i, v]
                    dead = False
                    for q in range(ae_ptr[a], ae_ptr[a + 1]):
                        g = ae_ids[q]
                        if node_killed(g, row, _I0, _I0, P_first[i], P_last[i], e, _I2, G_pos,
                                       g_off, g_head, g_size, gp_ptr, gp_ids, var_kind, K_ev,
                                       K_prev, pred_i, pred_f, attrs, ts, ng_var, wkind, W, cnt, e):
                            dead = True
                            break
                    cnt[e, _PMR] += 1
                    live -= 1
                    if not dead:
                        if mn == M_det.shape[0]:
                            status = ST_SPACE_M
                            break
                        M_bind[mn] = row
                        M_det[mn] = e
                        mn += 1
                        cnt[e, _ME] += 1
                else:
                    if w != i:
                        P_bind[w] = P_bind[i]
                        P_alt[w] = P_alt[i]
                        P_first[w] = P_first[i]
                        P_last[w] = P_last[i]
                    w += 1
            pn = w
            if status != 0:
                break
        # end-NOT buffers: nothing before the oldest parked match's last event is needed
        for g in range(n_negs):
            if ng_kind[g] == 2:
                lim = e
                for i in range(pn):
                    if P_last[i] < lim:
                        lim = P_last[i]
                off = g_off[g]
                h = g_head[g]
                while h < g_size[g] and G_pos[off + h] <= lim and G_pos[off + h] < e:
                    h += 1
                buffered -= h - g_head[g]
                g_head[g] = h
        # ---------------------------------------------------------------- leaves
        fire = trigger == 0
        for q in range(tl_ptr[te], tl_ptr[te + 1]):
            k = tl_nodes[q]
            v = nd_var[k]
            ok = True
            for u in range(np_ptr[k], np_ptr[k + 1]):
                cnt[e, _PE] += 1
                if not eval_pred(pred_i, pred_f, np_ids[u], attrs, e, e):
                    ok = False
                    break
            if not ok:
                continue
            if nd_trig[k] == 1:
                fire = True
            kl = var_kind[v] == 1
            old_lo = nhead[k]
            old_hi = nsize[k]
            need = 1 + (old_hi - old_lo if kl else 0)
            if nsize[k] + need > ncap[k]:
                r = _compact(k, R_bind, R_first, R_last, R_val, noff, nhead, nsize, nmark, nprop,
                             ts, e, wkind, W)
                if r > 0:
                    if counted[k] == 1:
                        cnt[e, _PMR] += r
                        live -= r
                    else:
                        buffered -= r
                nlive[k] = nsize[k]
                while nsize[k] + need > ncap[k]:
                    if not _grow(k, R_bind, R_first, R_last, R_val, noff, ncap, nsize):
                        status = ST_SPACE_R
                        break
                if status != 0:
                    break
                old_lo = nhead[k]
                old_hi = nsize[k]
            off = noff[k]
            if not kl:
                s = nsize[k]
                for vv in range(V):
                    R_bind[off + s, vv] = -1
                R_bind[off + s, v] = e
                R_first[off + s] = e
                R_last[off + s] = e
                if nd_pv[k] == PV_RAW:
                    R_val[off + s] = attrs[e, nd_pv_col[k]]
                elif nd_pv[k] == PV_SCALED:
                    R_val[off + s] = attrs[e, nd_pv_col[k]] * nd_pv_f0[k] + nd_pv_f1[k]
                nsize[k] = s + 1
                cnt[e, _BI] += 1
                buffered += 1
                continue
            # Kleene leaf: extend every stored subset still inside the window, then [e]
            cnt[e, _BI] += 1
            if kn + old_hi - old_lo + 1 > kcap:
                while kn + old_hi - old_lo + 1 > kcap:
                    kcap *= 2
                if kcap > max_kleene:
                    status = 3
                    break
            if kn + old_hi - old_lo + 1 > K_ev.shape[0]:
                status = ST_SPACE_K
                break
            for i in range(old_lo, old_hi):
                cnt[e, _JP] += 1
                f = R_first[off + i]
                if not span_ok(ts, f, e, wkind, W):
                    continue
                hprev = R_bind[off + i, v]
                K_ev[kn] = e
                K_prev[kn] = hprev
                K_first[kn] = f
                s = nsize[k]
                for vv in range(V):
                    R_bind[off + s, vv] = -1
                R_bind[off + s, v] = kn
                R_first[off + s] = f
                R_last[off + s] = e
                nsize[k] = s + 1
                kn += 1
                cnt[e, _PMC] += 1
                live += 1
            K_ev[kn] = e
            K_prev[kn] = -1
            K_first[kn] = e
            s = nsize[k]
            for vv in range(V):
                R_bind[off + s, vv] = -1
            R_bind[off + s, v] = kn
            R_first[off + s] = e
            R_last[off + s] = e
            nsize[k] = s + 1
            kn += 1
            cnt[e, _PMC] += 1
            live += 1
        if status != 0:
            break
        if live > max_pm:
            status = 1
            break
        # ---------------------------------------------------------------- joins
        # phase 0: nodes joined on arrival (all of them under push); phase 1: the lazy nodes,
        # at a trigger, replaying the waiting results in stream order
        for phase in range(2):
            if phase == 1 and (not fire or not any_src1):
                break
            T = e
            first_step = True
            while True:
                if phase == 0:
                    if not first_step:
                        break
                    ep = e
                    for k in range(n_nodes):
                        if nd_lazy[k] != 0:
                            continue
                        if nd_var[k] >= 0:
                            nmark[k] = nprop[k]
                            nprop[k] = nsize[k]
                        else:
                            nmark[k] = nsize[k]
                else:
                    # the next event whose results wait for propagation
                    ep = -1
                    for k in range(n_nodes):
                        if nd_src1[k] == 1 and nprop[k] < nsize[k]:
                            x = R_last[noff[k] + nprop[k]]
                            if ep < 0 or x < ep:
                                ep = x
                    if ep < 0:
                        break
                    for k in range(n_nodes):
                        if nd_src1[k] == 1:
                            nmark[k] = nprop[k]
                            off = noff[k]
                            p = nprop[k]
                            while p < nsize[k] and R_last[off + p] == ep:
                                p += 1
                            nprop[k] = p
                        elif nd_var[k] < 0 and nd_lazy[k] == 1:
                            nmark[k] = nsize[k]
                first_step = False
                for k in range(n_nodes):
                    if nd_lazy[k] != phase:
                        continue
                    root = is_root[k] == 1
                    if nd_var[k] >= 0:
                        if not root:
                            continue
                        # a one-variable alternative: its new leaf results are matches
                        lo_k = nmark[k]
                        hi_k = nprop[k]
                        pairs_lo = lo_k
                        pairs_hi = hi_k
                    else:
                        pairs_lo = 0
                        pairs_hi = 0
                    a = nd_alt[k]
                    if nd_var[k] >= 0:
                        # emit leaf results of a single-variable alternative
                        for i in range(pairs_lo, pairs_hi):
                            off = noff[k]
                            if not span_ok(ts, R_first[off + i], T, wkind, W):
                                continue
                            for v in range(V):
                                row[v] = R_bind[off + i, v]
                            first = R_first[off + i]
                            last = R_last[off + i]
                            dead = False
                            for q in range(ar_ptr[a], ar_ptr[a + 1]):
                                g = ar_ids[q]
                                lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr, gr_vars,
                                                         var_kind, K_first, K_ev)
                                if node_killed(g, row, lo_p, hi_p, first, last, T, ng_kind[g],
                                               G_pos, g_off, g_head, g_size, gp_ptr, gp_ids,
                                               var_kind, K_ev, K_prev, pred_i, pred_f, attrs, ts,
                                               ng_var, wkind, W, cnt, e):
                                    dead = True
                                    break
                            if dead:
                                continue
                            if ae_ptr[a + 1] > ae_ptr[a]:
                                if pn == P_alt.shape[0]:
                                    status = ST_SPACE_P
                                    break
                                P_bind[pn] = row
                                P_alt[pn] = a
                                P_first[pn] = first
                                P_last[pn] = last
                                pn += 1
                                live += 1
                                cnt[e, _PMC] += 1
                            else:
                                if mn == M_det.shape[0]:
                                    status = ST_SPACE_M
                                    break
                                M_bind[mn] = row
                                M_det[mn] = ep
                                mn += 1
                                cnt[e, _ME] += 1
                        continue
                    # ---- internal node k: new-left x old-right and old-left x new-right
                    lk = nd_left[k]
                    rk = nd_right[k]
                    split = nd_split[k]
                    l_new_lo = nmark[lk]
                    l_new_hi = nprop[lk] if (nd_var[lk] >= 0 or nd_src1[lk] == 1) else nsize[lk]
                    r_new_lo = nmark[rk]
                    r_new_hi = nprop[rk] if (nd_var[rk] >= 0 or nd_src1[rk] == 1) else nsize[rk]
                    if l_new_hi == l_new_lo and r_new_hi == r_new_lo:
                        continue
                    for side in range(2):
                        # side 0: each new right result against the old left results
                        # side 1: each new left result against the old right results
                        ks = 2 * k + side
                        if side_skip[ks] == 1:
                            continue
                        if side == 0:
                            nk = rk
                            ok_ = lk
                            n_lo = r_new_lo
                            n_hi = r_new_hi
                        else:
                            nk = lk
                            ok_ = rk
                            n_lo = l_new_lo
                            n_hi = l_new_hi
                        o_lo = nhead[ok_]
                        o_hi = nmark[ok_]
                        if n_hi == n_lo or o_hi == o_lo:
                            continue
                        for ni in range(n_lo, n_hi):
                            noffk = noff[nk]
                            nfirst = R_first[noffk + ni]
                            if not span_ok(ts, nfirst, T, wkind, W):
                                continue
                            c_lo = o_lo
                            c_hi = o_hi
                            oo = noff[ok_]
                            if side_hb_ok[ks] == 1:
                                # stored.last < max over stored x of min over new w after x
                                # of first(w) (a SEQ split: stored.last < new.first)
                                hi = -1
                                curx = -1
                                curmin = 1 << 62
                                for q in range(hb_ptr[ks], hb_ptr[ks + 1]):
                                    xv = hb_x[q]
                                    if xv != curx:
                                        if curx >= 0 and curmin > hi:
                                            hi = curmin
                                        curx = xv
                                        curmin = 1 << 62
                                    wv = hb_w[q]
                                    fw = v_first(R_bind[noffk + ni, wv], var_kind[wv] == 1,
                                                 K_first)
                                    if fw < curmin:
                                        curmin = fw
                                if curx >= 0 and curmin > hi:
                                    hi = curmin
                                c_hi = lower_count(R_last, oo + o_lo, oo + o_hi, hi, cnt, e) - oo
                            if side_lb_ok[ks] == 1 and c_hi > c_lo:
                                # a stored plain leaf after every new v before it
                                lo = -1
                                for q in range(lb_ptr[ks], lb_ptr[ks + 1]):
                                    wv = lb_v[q]
                                    lw = v_last(R_bind[noffk + ni, wv], var_kind[wv] == 1, K_ev)
                                    if lw > lo:
                                        lo = lw
                                c_lo = lower_count(R_last, oo + c_lo, oo + c_hi, lo + 1, cnt,
                                                    e) - oo
                            # the new result's operands of the node's predicates do not change
                            # over the scan: read once (``ztree_probe``: per predicate, the side
                            # of each variable and, for a plain comparison, its operands)
                            nrow = noffk + ni
                            for q in range(np_ptr[k], np_ptr[k + 1]):
                                pm = pq_mode[q]
                                if pm == PQ_CMP:
                                    if pq_s1[q] != side:      # v1 on the new side
                                        hv[q - np_ptr[k]] = attrs[R_bind[nrow, pq_v1[q]],
                                                                  pq_c1[q]]
                                    else:
                                        hv[q - np_ptr[k]] = (attrs[R_bind[nrow, pq_v2[q]],
                                                                   pq_c2[q]]
                                                             * pq_f0[q] + pq_f1[q])
                            jp = 0
                            pe = 0
                            oo = noff[ok_]
                            for oi in range(c_lo, c_hi):
                                if status != 0:
                                    break
                                jp += 1
                                orow = oo + oi
                                ofirst = R_first[orow]
                                if ofirst < wlo:       # span_ok(ts, ofirst, T): T == e
                                    continue
                                good = True
                                if split == SPLIT_GEN:
                                    for q in range(nc_ptr[k], nc_ptr[k + 1]):
                                        vi = nc_i[q]
                                        vj = nc_j[q]
                                        hi_ = R_bind[nrow if nc_si[q] != side else orow, vi]
                                        hj_ = R_bind[nrow if nc_sj[q] != side else orow, vj]
                                        ki = var_kind[vi] == 1
                                        kj = var_kind[vj] == 1
                                        li = v_last(hi_, ki, K_ev)
                                        fj = v_first(hj_, kj, K_first)
                                        if nc_k[q] == 0:
                                            if not li < fj:
                                                good = False
                                                break
                                        else:
                                            lj = v_last(hj_, kj, K_ev)
                                            fi = v_first(hi_, ki, K_first)
                                            if not (li < fj or lj < fi):
                                                good = False
                                                break
                                if not good:
                                    continue
                                merged = False
                                for q in range(np_ptr[k], np_ptr[k + 1]):
                                    pm = pq_mode[q]
                                    if pm == PQ_CMP:
                                        pe += 1
                                        if pq_s1[q] != side:      # v1 new: compare to old v2
                                            xa = hv[q - np_ptr[k]]
                                            if q == np_ptr[k]:
                                                ya = R_val[orow]
                                            else:
                                                ya = (attrs[R_bind[orow, pq_v2[q]], pq_c2[q]]
                                                      * pq_f0[q] + pq_f1[q])
                                        else:
                                            if q == np_ptr[k]:
                                                xa = R_val[orow]
                                            else:
                                                xa = attrs[R_bind[orow, pq_v1[q]], pq_c1[q]]
                                            ya = hv[q - np_ptr[k]]
                                        if not compare(pq_op[q], xa, ya):
                                            good = False
                                            break
                                    elif pm == PQ_PLAIN:
                                        pe += 1
                                        pe1 = R_bind[nrow if pq_s1[q] != side else orow,
                                                     pq_v1[q]]
                                        pe2 = R_bind[orow if pq_s1[q] != side else nrow,
                                                     pq_v2[q]]
                                        if not eval_pred(pred_i, pred_f, np_ids[q], attrs, pe1,
                                                         pe2):
                                            good = False
                                            break
                                    else:
                                        # the reading of the general kernel: the merged row
                                        if not merged:
                                            for v in range(V):
                                                xb = R_bind[nrow, v]
                                                row[v] = xb if xb >= 0 else R_bind[orow, v]
                                            merged = True
                                        pq = np_ids[q]
                                        v1 = pred_i[pq, 2]
                                        v2 = pred_i[pq, 4]
                                        if var_kind[v1] != 1 and var_kind[v2] != 1:
                                            pe += 1
                                            if not eval_pred(pred_i, pred_f, pq, attrs, row[v1],
                                                             row[v2]):
                                                good = False
                                                break
                                        elif not pred_holds(pq, row, var_kind, K_ev, K_prev,
                                                             pred_i, pred_f, attrs, -1, -1, cnt,
                                                             e):
                                            good = False
                                            break
                                if not good:
                                    continue
                                if not merged:
                                    for v in range(V):
                                        xb = R_bind[nrow, v]
                                        row[v] = xb if xb >= 0 else R_bind[orow, v]
                                first = nfirst if nfirst < ofirst else ofirst
                                last = ep
                                for q in range(nn_ptr[k], nn_ptr[k + 1]):
                                    g = nn_ids[q]
                                    lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr,
                                                             gr_vars, var_kind, K_first, K_ev)
                                    if node_killed(g, row, lo_p, hi_p, first, last, T, _I1, G_pos,
                                                   g_off, g_head, g_size, gp_ptr, gp_ids, var_kind,
                                                   K_ev, K_prev, pred_i, pred_f, attrs, ts, ng_var,
                                                   wkind, W, cnt, e):
                                        good = False
                                        break
                                if not good:
                                    continue
                                if not root:
                                    if nsize[k] == ncap[k]:
                                        r = _compact(k, R_bind, R_first, R_last, R_val, noff,
                                                     nhead, nsize, nmark, nprop, ts, T, wkind, W)
                                        if r > 0:
                                            cnt[e, _PMR] += r
                                            live -= r
                                        nlive[k] = nsize[k]
                                        if 2 * nsize[k] > ncap[k]:
                                            if not _grow(k, R_bind, R_first, R_last, R_val, noff,
                                                         ncap, nsize):
                                                status = ST_SPACE_R
                                                break
                                    s = noff[k] + nsize[k]
                                    for v in range(V):
                                        R_bind[s, v] = row[v]
                                    R_first[s] = first
                                    R_last[s] = last
                                    if nd_pv[k] == PV_RAW:
                                        R_val[s] = attrs[row[nd_pv_var[k]], nd_pv_col[k]]
                                    elif nd_pv[k] == PV_SCALED:
                                        R_val[s] = (attrs[row[nd_pv_var[k]], nd_pv_col[k]]
                                                    * nd_pv_f0[k] + nd_pv_f1[k])
                                    nsize[k] += 1
                                    cnt[e, _PMC] += 1
                                    live += 1
                                    if live > max_pm:
                                        status = 1
                                    continue
                                # ---- root: start / root-level NOTs, then emit or park
                                dead = False
                                for q in range(ar_ptr[a], ar_ptr[a + 1]):
                                    g = ar_ids[q]
                                    lo_p, hi_p = neg_bounds(g, row, gl_ptr, gl_vars, gr_ptr,
                                                             gr_vars, var_kind, K_first, K_ev)
                                    if node_killed(g, row, lo_p, hi_p, first, last, T, ng_kind[g],
                                                   G_pos, g_off, g_head, g_size, gp_ptr, gp_ids,
                                                   var_kind, K_ev, K_prev, pred_i, pred_f, attrs,
                                                   ts, ng_var, wkind, W, cnt, e):
                                        dead = True
                                        break
                                if dead:
                                    continue
                                if ae_ptr[a + 1] > ae_ptr[a]:
                                    if pn == P_alt.shape[0]:
                                        status = ST_SPACE_P
                                        break
                                    P_bind[pn] = row
                                    P_alt[pn] = a
                                    P_first[pn] = first
                                    P_last[pn] = last
                                    pn += 1
                                    live += 1
                                    cnt[e, _PMC] += 1
                                    if live > max_pm:
                                        status = 1
                                else:
                                    if mn == M_det.shape[0]:
                                        status = ST_SPACE_M
                                        break
                                    M_bind[mn] = row
                                    M_det[mn] = ep
                                    mn += 1
                                    cnt[e, _ME] += 1
                                    if mn > max_matches:
                                        status = 2
                            cnt[e, _JP] += jp
                            cnt[e, _PE] += pe
                    if status != 0:
                        break
                if status != 0:
                    break
        if status != 0:
            break
        for kk in range(n_tr):
            k = tr_nodes[kk]
            if nhead[k] < nsize[k]:
                buffered -= nsize[k] - nhead[k]
                nhead[k] = nsize[k]
                nprop[k] = nsize[k]
                nmark[k] = nsize[k]
        cnt[e, _LIVE] = live
        cnt[e, _BUF] = buffered
        if live > peak_live:
            peak_live = live
    # ---------------------------------------------------------------- end of stream
    if status == 0 and pn > 0:
        crow = max(n - 1, 0)
        for i in range(pn):
            a = P_alt[i]
            for v in range(V):
                row[v] = P_bind[i, v]
            dead = False
            for q in range(ae_ptr[a], ae_ptr[a + 1]):
                g = ae_ids[q]
                if node_killed(g, row, _I0, _I0, P_first[i], P_last[i], n, _I2, G_pos, g_off,
                               g_head, g_size, gp_ptr, gp_ids, var_kind, K_ev, K_prev, pred_i,
                               pred_f, attrs, ts, ng_var, wkind, W, cnt, crow):
                    dead = True
                    break
            cnt[crow, _PMR] += 1
            if not dead:
                if mn == M_det.shape[0]:
                    status = ST_SPACE_M
                    break
                M_bind[mn] = row
                M_det[mn] = n
                mn += 1
                cnt[crow, _ME] += 1
    return status, cnt, M_bind[:mn], M_det[:mn], K_ev[:kn], K_prev[:kn], peak_live


@njit(cache=True)
def _collect(M_bind, var_kind, cols, K_ev, K_prev):
    """MatchSet arrays from kernel rows (Kleene chains written in stream order)."""
    m = M_bind.shape[0]
    nc = cols.shape[0]
    pos = np.full((m, nc), -1, dtype=np.int64)
    ks = np.zeros((m, nc), dtype=np.int64)
    kl = np.zeros((m, nc), dtype=np.int64)
    total = 0
    for i in range(m):
        for j in range(nc):
            v = cols[j]
            h = M_bind[i, v]
            if h >= 0 and var_kind[v] == 1:
                while h >= 0:
                    total += 1
                    h = K_prev[h]
    flat = np.empty(total, dtype=np.int64)
    w = 0
    for i in range(m):
        for j in range(nc):
            v = cols[j]
            h = M_bind[i, v]
            if h < 0:
                continue
            if var_kind[v] != 1:
                pos[i, j] = h
                continue
            ln = 0
            x = h
            while x >= 0:
                ln += 1
                x = K_prev[x]
            pos[i, j] = -2
            ks[i, j] = w
            kl[i, j] = ln
            x = h
            for t in range(ln - 1, -1, -1):
                flat[w + t] = K_ev[x]
                x = K_prev[x]
            w += ln
    return pos, ks, kl, flat


# ============================================================================= entry point
_SPACE = {ST_SPACE_R: "rows", ST_SPACE_K: "kleene", ST_SPACE_P: "parked", ST_SPACE_M: "matches"}
_TABLES_KEPT = 1024


def _program_facts(program: Program) -> dict:
    """What every run of ``program`` checks or builds from the program alone, and the array
    sizes its runs needed so far, kept in its memo (the adaptive scenario runs thousands of
    short epochs of one program).  Every run starts with the largest arrays any run of the
    program needed, and with a matches array sized by the densest match rate seen (every plan
    finds the same matches on the same events): a run that outgrows an array is redone from the
    start, and its matches accumulate to its end, so a small start wastes most of a run."""
    memo = program_memo(program)
    fixed = memo.get("ztree_program")
    if fixed is None:
        pos_vars = program.positive_vars
        fixed = memo["ztree_program"] = {
            "next_policy": program.policy == POLICY_NEXT, "has_remote": program.has_remote,
            "schema": None, "cols": np.array(pos_vars, dtype=np.int64),
            "names": tuple(program.var_names[v] for v in pos_vars),
            "kleene": tuple(bool(program.var_kind[v] == KIND_KLEENE) for v in pos_vars),
            "sizes": {"rows": 0, "kleene": 64, "parked": 16, "matches": 256},
            "match_density": 0.0}
    return fixed


def _resolved(program: Program, fixed: dict, plan, trigger: str, ev: frozenset):
    """``(Plan, tables, plan text)`` of a plan spec: validated (``make_plan``, the eager
    variables) and built once per spec, then kept for the program's last ``_TABLES_KEPT`` specs
    (the kernel only reads the tables)."""
    try:
        key = (plan.tree if isinstance(plan, Plan) else plan, isinstance(plan, Plan), trigger, ev)
        hash(key)
    except TypeError:          # a list spec: resolved every time
        key = None
    plans = kept(program, "ztree_plans", _TABLES_KEPT)
    hit = plans.find(key) if key is not None else None
    if hit is not None:
        return hit
    p = make_plan(plan, program)
    bad = ev - set(fixed["names"])
    if bad:
        raise CepsimInputError(f"eager_vars: {sorted(bad)} are not positive variables of the "
                               "pattern")
    hit = (p, build_tables(program, p, trigger, ev), format_plan(p.tree))
    return plans.keep(key, hit) if key is not None else hit


def _kernel_once(t, types, stream, wkind, W, trigger, g_off, init_cap,
                 max_partial_matches, max_matches, max_kleene_nodes, phys, reference=False,
                 trace=None):
    """One kernel run with arrays of the sizes in ``phys`` (fresh counters every time).
    ``reference``: the interpreting kernel of ``engines.evaluators.ztree_ref`` instead (tests
    and benchmarks; ``trace`` its probe trace, whose written length it returns last)."""
    args = (
        types, stream.ts, stream.attrs, t["pred_i"], t["pred_f"], t["var_kind"], wkind, W,
        TRIGGERS[trigger], t["nd_left"], t["nd_right"], t["nd_var"], t["nd_split"], t["nd_trig"],
        t["nd_alt"], t["np_ptr"], t["np_ids"], t["nn_ptr"], t["nn_ids"], t["nc_ptr"], t["nc_i"],
        t["nc_j"], t["nc_k"], t["alt_root"], t["ar_ptr"], t["ar_ids"], t["ae_ptr"], t["ae_ids"],
        t["ng_var"], t["ng_kind"], t["gl_ptr"], t["gl_vars"], t["gr_ptr"], t["gr_vars"],
        t["gp_ptr"], t["gp_ids"], t["gu_ptr"], t["gu_ids"], g_off, t["tl_ptr"], t["tl_nodes"],
        t["tn_ptr"], t["tn_ids"], init_cap, int(max_partial_matches), int(max_matches),
        int(max_kleene_nodes), C.new_counters(len(stream)), t["nd_lazy"], t["nd_src1"],
        t["side_skip"], t["side_hb_ok"], t["side_lb_ok"], t["hb_ptr"], t["hb_x"], t["hb_w"],
        t["lb_ptr"], t["lb_v"], t["nd_transient"], int(phys["rows"]), int(phys["kleene"]),
        int(phys["parked"]), int(phys["matches"]))
    if reference:
        from engines.evaluators.ztree_ref import ztree_kernel_ref
        tr = np.zeros((0, 2), np.int64) if trace is None else trace
        return ztree_kernel_ref(*args, tr)
    return _ztree_kernel(*args, t["pq_mode"], t["pq_s1"], t["pq_v1"], t["pq_v2"], t["pq_c1"],
                         t["pq_c2"], t["pq_op"], t["pq_f0"], t["pq_f1"], int(t["pq_max"]),
                         t["nc_si"], t["nc_sj"], t["nd_pv"], t["nd_pv_var"], t["nd_pv_col"],
                         t["nd_pv_f0"], t["nd_pv_f1"])


def _prepare(program: Program, stream, plan, trigger: str, eager_vars):
    """Checks and kernel inputs of a run: ``(fixed, tables, plan text, types, g_off, wkind,
    W)``."""
    fixed = _program_facts(program)
    if fixed["next_policy"]:
        raise CepsimInputError("the ztree engine evaluates skip-till-any-match only; this pattern "
                               "asks for skip-till-next-match (use the 'eager' engine, or write "
                               "POLICY skip-till-any-match)")
    if fixed["has_remote"]:
        raise CepsimInputError("the ztree engine cannot evaluate REMOTE[...] predicates")
    if trigger not in TRIGGERS:
        raise CepsimInputError(f"trigger={trigger!r}: choose 'push' or 'batch'")
    if fixed["schema"] is not stream.schema:
        if (tuple(stream.schema.type_names) != tuple(program.schema.type_names)
                or tuple(stream.schema.attr_names) != tuple(program.schema.attr_names)):
            raise CepsimInputError(f"{stream.source}: the stream's schema differs from the one "
                                   "the pattern was compiled for")
        fixed["schema"] = stream.schema        # checked: later streams of this schema skip it
    ev = frozenset(eager_vars or ())
    _p, t, plan_text = _resolved(program, fixed, plan, trigger, ev)
    types = np.ascontiguousarray(stream.types.astype(np.int64))
    n_types = len(program.schema.type_names)
    type_count = np.bincount(types, minlength=n_types) if len(types) else np.zeros(n_types, int)
    g_off = np.zeros(len(t["ng_var"]) + 1, dtype=np.int64)
    for g, ty in enumerate(t["ng_type"]):
        g_off[g + 1] = g_off[g] + int(type_count[ty])
    return fixed, t, plan_text, types, g_off, int(program.window_kind), float(program.window)


def kernel_outputs(program: Program, stream, plan=None, trigger: str = "push", eager_vars=(),
                   sizes: dict | None = None, reference: bool = False,
                   max_partial_matches: int = 20_000_000, max_matches: int = 20_000_000,
                   max_kleene_nodes: int = 50_000_000, init_cap: int = 64,
                   trace: np.ndarray | None = None) -> tuple:
    """One kernel call as ``run_ztree`` makes it, its raw outputs ``(status, counters, match
    rows, detect positions, Kleene events, Kleene links, peak live results)`` (plus the written
    trace length with ``reference``): the compiled probe loop (default) or the interpreting
    reference kernel (``engines.evaluators.ztree_ref``), for tests and benchmarks that compare
    the two.  ``sizes``: the arrays' starting sizes (default: ``run_ztree``'s first run's); a
    too small one gives an ``ST_SPACE_*`` status, not a rerun."""
    fixed, t, _text, types, g_off, wkind, W = _prepare(program, stream, plan, trigger,
                                                       eager_vars)
    phys = {"rows": 4 * len(t["nd_var"]) * max(init_cap, 1), "kleene": 64, "parked": 16,
            "matches": 256}
    phys.update(sizes or {})
    return _kernel_once(t, types, stream, wkind, W, trigger, g_off, max(int(init_cap), 1),
                        max_partial_matches, max_matches, max_kleene_nodes, phys,
                        reference=reference, trace=trace)


def run_ztree(program: Program, stream, plan=None, trigger: str = "push",
              eager_vars=(), max_partial_matches: int = 20_000_000, max_matches: int = 20_000_000,
              max_kleene_nodes: int = 50_000_000, _init_cap: int = 64,
              _sizes: dict | None = None, _reference: bool = False,
              **ignored) -> EngineResult:
    """Evaluate ``program`` on ``stream`` with a tree plan (see module docstring).
    ``_reference``: run the interpreting reference kernel (``engines.evaluators.ztree_ref``;
    tests and benchmarks, same outputs)."""
    fixed, t, plan_text, types, g_off, wkind, W = _prepare(program, stream, plan, trigger,
                                                           eager_vars)
    init_cap = max(int(_init_cap), 1)
    if _sizes is None:     # the program's largest sizes so far (``_program_facts``)
        phys = dict(fixed["sizes"])
        phys["rows"] = max(phys["rows"], 4 * len(t["nd_var"]) * init_cap)
        phys["matches"] = max(phys["matches"], min(int(1.25 * fixed["match_density"]
                                                       * len(types)) + 16, int(max_matches) + 1))
    else:   # tests: start from these array sizes (small ones make the kernel rerun)
        phys = dict(_sizes)
    while True:
        status, cnt, M_bind, M_det, K_ev, K_prev, peak = _kernel_once(
            t, types, stream, wkind, W, trigger, g_off, init_cap, max_partial_matches,
            max_matches, max_kleene_nodes, phys, _reference)[:7]
        if status not in _SPACE:
            break
        phys[_SPACE[status]] = 4 * max(phys[_SPACE[status]], 1)
    if _sizes is None:     # later runs start with arrays this large
        sizes = fixed["sizes"]
        for key in sizes:
            sizes[key] = max(sizes[key], phys[key])
        if len(types):
            fixed["match_density"] = max(fixed["match_density"], len(M_det) / len(types))
    if status == ST_PM:
        raise CapacityError(f"ztree: more than max_partial_matches={max_partial_matches} stored "
                            "intermediate results; pass a larger max_partial_matches= "
                            "(--max-partial-matches) or a shorter window")
    if status == ST_MATCH:
        raise CapacityError(f"ztree: more than max_matches={max_matches} matches; pass a larger "
                            "max_matches= (--max-matches) or a shorter window")
    if status == ST_KLEENE:
        raise CapacityError(f"ztree: more than max_kleene_nodes={max_kleene_nodes} Kleene chain "
                            "nodes; pass a larger max_kleene_nodes= or a shorter window")
    pos, ks, kl, flat = _collect(M_bind, t["var_kind"], fixed["cols"], K_ev, K_prev)
    ms = MatchSet(fixed["names"], fixed["kleene"], pos, ks, kl, flat, M_det.copy())
    return EngineResult(matches=ms, counters=cnt,
                        info={"engine": "ztree", "plan": plan_text, "trigger": trigger,
                              "alternatives": int(t["n_alts"]), "nodes": int(t["n_nodes"]),
                              "peak_live_results": int(peak)})


_ = (UNBOUND, KLEENE)


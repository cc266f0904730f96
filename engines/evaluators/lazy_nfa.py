"""Lazy chain NFA and tree NFA (Kolchinsky, Sharfman, Schuster, DEBS 2015).

Supported patterns
------------------
Flat sequences of plain variables (``SEQ(A a, B b, C c)``) with any predicates of
``engines.predicates`` (comparisons, ``|x-y|``, ``corr(..)``), a time window, a count window or
no window, under **skip-till-any-match** with the reuse consumption policy (the paper's setting).
Patterns with several flat branches (OR alternatives, AND interleavings, nested SEQ) are
supported too: every branch is its own chain / tree over shared input buffers, and matches of all
branches are reported.  An AND of plain events is one branch of the chain: one order-free chain
in the given order (``engines.evaluators.lazy_chain``, "AND groups": the scope of a member is
bounded by the neighbouring elements only, every combination is built once), not its n! orders
(``run_chain(and_groups="expanded")`` runs those; the tree and the NOT / Kleene kernel always
do).  Kleene closure of a variable (``B+ b``) and negation (``NOT(C c)`` at
the start, in the middle, at the end, several) run in ``engines.evaluators.lazy_negkleene``'s
kernel, which extends the one here (its docstring says where each NOT is checked and what
it charges); a pattern without either runs here (the extended kernel gives the same counters
on it, but takes 1.1 to 2.6 times as long: measured on the DEBS'15 stock workload, 60,000
events).  Refused with a ``CepsimInputError`` (use the ``eager`` engine instead):
skip-till-next-match, REMOTE predicates, more than 62 variables (negated ones included).

One mechanism
-------------
Both automata are the same machine: *instances* (partial matches) that hold the events taken so
far and, for every variable still missing, a **coverage frontier** ``cov[v]`` (the stream position
from which ``v`` candidates have not been handed to this instance yet).  Incoming events are first
*stored* in a per-type input buffer (structure-of-arrays, doubling when full, expired from the
front as the window slides).  An instance whose routing names variable ``u`` next runs its
``take(u)`` edge over the buffered ``u`` events inside the edge's **scope** and not yet covered:

* scope start ``s`` = the taken variable that is latest in *sequence order* among those preceding
  ``u`` in the sequence (``start`` if none): only events after it qualify;
* scope end ``f`` = the taken variable that is earliest in sequence order among those following
  ``u`` (``finish`` if none): only events before it qualify; with ``finish`` the instance also
  keeps waiting for future ``u`` events from the stream.

  (Section 5 writes ``Latest_sel``/``Earliest_sel``; reading them in selectivity order would give
  a scope looser than the sequence constraints whenever two taken predecessors were taken in the
  "wrong" order, so we use the tight bound, i.e. the sequence order, which is what Figure 4
  shows.)

Each candidate costs one **condition evaluation** (``EDGE_EVAL``, the paper's section-7 metric:
one check of an edge condition = window + every predicate whose variables are now bound and that
mentions ``u``, short-circuited; each atomic predicate checked adds ``PRED_EVAL``).  A candidate
that passes yields a child instance (or a match when nothing is missing).  A bounded scope
(``f`` a taken variable) is fully explored at once, so the instance is then complete and removed.

*Routing* is the only difference:

* **chain** (``ROUTE_FIXED``): ``u`` is the next variable of the given selectivity order; every
  instance evaluates immediately.  The root takes every event of the first variable; only events
  of the other variables are kept in the input buffer (the paper's store edges).
* **tree** (``ROUTE_ADAPTIVE``): an instance evaluates only when the input buffer holds at least
  one event of every missing variable (``p_ne``); it then routes to the missing variable with the
  smallest buffer counter (``p_se``; ties keep the state's current choice, otherwise query
  order).  The decision is the *state's* ("performed by each state on each matching attempt",
  section 6): it is made once per event for every state that has a live instance, and every
  instance of the state follows it.  A state is keyed by (branch, set of taken variables): states
  q_ab and q_ba compare the same counters, so they share one decision.  It re-decides at every
  event, so the root (which lives for the whole stream) follows the changing frequencies.  When an instance switches from ``u`` to ``u'`` its children inherit ``cov[u]``,
  so a match is reached through exactly one path (the first variable whose coverage passes the
  match's event); states are created lazily (an instance *is* its state's only storage) and
  vanish with their last instance.  All events of pattern types are buffered.

Every match is emitted while its last event is processed (``detect = last event``); with a
trailing NOT, when the window of its first event closes (``lazy_negkleene``).

Bookkeeping that keeps a long chain fast without changing any count: a chain instance waits for
one variable all its life, and once visited it is *caught up* (nothing before the current event
is left to hand it), so offering it an event of another type would only move its coverage
frontier.  Such instances sit in one list per input buffer and are visited only for events of
their type (their frontier is brought up to the current position then); instances expire through
a front over the stream (their earliest event leaves the window) instead of a pass over all of
them.  INSTANCE_WORK still charges every live instance for every event, in bulk.  The tree
re-routes instances at every event, so it still visits each one.

Two kernels run this machine: the chain (``run_chain``) runs ``engines.evaluators.lazy_chain``'s
kernel, which resolves the predicates and the scope per (branch, depth) when its tables are
built (same visit order and counters, bit-identical outputs: ``tests/test_lazy_chain_fast_equal``
compares it with the general kernel ``_lazy_kernel`` below, run on the chain's routing); the tree
runs ``_lazy_kernel``, which serves both routings.

Speed: no array is rebound inside the visit loop.  Numba turns an array variable that a loop
rebinds (``a = grow(a)``) into a loop-carried copy and pays an atomic reference-count increment
and decrement for it at every iteration, even when the growth never runs; with the eleven
instance arrays that was two thirds of the run time (``perf``: NRT_incref/NRT_decref).  So a
visit first checks that its candidates (each makes at most one instance, match or tree state) fit;
when they do not it leaves the visit loop, the growth loop around it enlarges the arrays, and the
visit runs again from its start (what it did before the check -- coverage catch-up, the state's
routing decision -- is idempotent).  ``docs/ENGINEERING.md`` ("Numba hot loops") has the rule.

Counters per event (``engines.counters``): PRED_EVAL, EDGE_EVAL, PM_CREATED (instances created,
completed matches included), PM_REMOVED (expired, completed, fully explored), BUF_INSERT,
MATCH_EMIT, INSTANCE_WORK (every live instance, roots included, the event is offered to --
whether it stores, ignores or takes it; children created while the event is processed are offered
it too), PLAN_GEN (tree routing switches), gauges LIVE_PM (non-empty live instances) and
BUFFERED (events in the input buffers), and the side metric ROUTING_CHECK.

How the tree's routing is charged.  Section 7's metric is "how many times a
condition on an edge is evaluated", and its worked example counts take-edge validations only;
store and ignore edges carry the condition ``true`` in the chain (section 5).  In the tree
(section 6) ``p_ne`` and ``p_se`` are parts of the conditions of the state's store and take
edges: an event offered to a tree state follows one store-or-take edge, exactly as in a chain,
and the routing is how that edge is chosen, not an extra edge.  So the routing decision (made
once per event by every state that has a live instance) is part of the *offer* of the event --
charged by INSTANCE_WORK for every live instance, as the chain's store decision -- and is not
an EDGE_EVAL.  ROUTING_CHECK (``engines.counters``, priced 0 by every profile) counts the
decisions, and ``info['routing_checks']`` gives their total.  The reading that counts each decision as
one EDGE_EVAL is the claim metric ``evals_route`` (EDGE_EVAL +
ROUTING_CHECK) in ``sim/studies/lazy_nfa/scenario.py``.
``EngineResult.info['peak_transient_instances']`` is the most non-empty instances alive at any
moment, including those created and finished while one event is processed (the LIVE_PM gauge is
read after each event, so a lazy chain that completes its work inside the event shows 0 there).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.compile import KIND_KLEENE, PK_REMOTE, POLICY_ANY, Program
from engines.errors import CapacityError, CepsimInputError
from engines.matches import KLEENE as MATCH_KLEENE, MatchSet
from engines.evaluators.lazy_negkleene import (NEGATION_AT, has_neg_or_kleene, lazy_nk_kernel,
                                               neg_tables)
from engines.evaluators.lazy_chain import chain_kernel, chain_tables
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.predicates import eval_pred
from engines.program_memo import kept
from engines.stream import EventStream

ROUTE_FIXED = 0
ROUTE_ADAPTIVE = 1
# "auto": the plain kernel here for patterns without NOT / Kleene; "negkleene": the extended
# kernel (engines.evaluators.lazy_negkleene) for every pattern (same counters, slower)
KERNELS = ("auto", "negkleene")
# how the chain runs an AND of plain events (``run_chain``): "grouped" one order-free chain,
# "expanded" one chain per order (``Program.branches``)
AND_GROUPS = ("grouped", "expanded")
MAX_VARS = 62
# capacity caps (the eager engine's defaults): live partial matches and matches found
DEFAULT_MAX_PARTIAL_MATCHES = 5_000_000
DEFAULT_MAX_MATCHES = 20_000_000
ST_OK, ST_MAX_PM, ST_MAX_MATCHES = 0, 1, 2

_PRED_EVAL = C.PRED_EVAL
_EDGE_EVAL = C.EDGE_EVAL
_PM_CREATED = C.PM_CREATED
_PM_REMOVED = C.PM_REMOVED
_BUF_INSERT = C.BUF_INSERT
_MATCH_EMIT = C.MATCH_EMIT
_PLAN_GEN = C.PLAN_GEN
_INSTANCE_WORK = C.INSTANCE_WORK
_LIVE_PM = C.LIVE_PM
_BUFFERED = C.BUFFERED
_ROUTING_CHECK = C.ROUTING_CHECK
_NC = C.N_COUNTERS


@leaf_njit
def lower_bound(arr, lo, hi, x):
    """First index i in [lo, hi) with arr[i] >= x."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@leaf_njit
def _lower_bound_row(arr, row, lo, hi, x):
    """``lower_bound`` of ``arr[row]``, taking the row index: a row view would cost its caller
    a reference-count increment and decrement per call."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[row, mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _lazy_kernel(types, ts, attrs, pred_i, pred_f, var_type, var_buf, buf_stored, n_buf,
                 br_vars, br_len, br_slot, br_preds, br_npred, br_order, route, win_kind,
                 window, max_pm, max_matches):
    """Returns (counters, match events, detection positions, peak transient instances, routing
    checks, status, event): status ST_MAX_PM / ST_MAX_MATCHES when a cap stopped the run at
    ``event`` (the outputs are then partial and must not be used)."""
    n = types.shape[0]
    V = var_type.shape[0]
    B = br_vars.shape[0]
    cnt = np.zeros((max(n, 1), _NC), dtype=np.int64)

    # ---- input buffers: one per pattern type, positions ascending
    bcap = 64
    buf = np.zeros((n_buf, bcap), dtype=np.int64)
    bhead = np.zeros(n_buf, dtype=np.int64)
    btail = np.zeros(n_buf, dtype=np.int64)
    type_to_buf = np.full(max(int(types.max()) + 1 if n > 0 else 1, int(var_type.max()) + 1), -1,
                          dtype=np.int64)
    for v in range(V):
        if var_buf[v] >= 0:
            type_to_buf[var_type[v]] = var_buf[v]

    # ---- instances (structure of arrays); the first B are the roots (empty partial matches)
    icap = max(64, 2 * B)
    i_ev = np.full((icap, V), -1, dtype=np.int64)
    i_cov = np.zeros((icap, V), dtype=np.int64)
    i_mask = np.zeros(icap, dtype=np.int64)
    i_br = np.zeros(icap, dtype=np.int64)
    i_depth = np.zeros(icap, dtype=np.int64)
    i_cur = np.full(icap, -1, dtype=np.int64)
    i_st = np.zeros(icap, dtype=np.int64)   # tree: index of the instance's state
    i_min = np.zeros(icap, dtype=np.int64)
    i_max = np.zeros(icap, dtype=np.int64)
    i_alive = np.zeros(icap, dtype=np.bool_)
    i_next = np.full(icap, -1, dtype=np.int64)  # chain: next instance waiting for the same type
    n_inst = B
    # Expiry without a pass over the instances: an instance expires with its earliest event, and
    # the expired events form a prefix of the stream (timestamps are non-decreasing), so it is
    # dead once i_min < front; min_cnt[e] = live non-root instances whose earliest event is e.
    min_cnt = np.zeros(max(n, 1), dtype=np.int64)
    front = 0
    # Chain routing: an instance waits for one variable (hence one type) for its whole life, and
    # after its first visit it is "caught up" (coverage = the current position) until an event of
    # that type arrives.  Offering it other events only moves its coverage frontier, so it sits in
    # a linked list per input buffer (ascending index = visiting order) and is visited only for
    # its type; its coverage is brought up to the current position when it is visited.
    l_head = np.full(max(n_buf, 1), -1, dtype=np.int64)
    l_tail = np.full(max(n_buf, 1), -1, dtype=np.int64)
    todo = np.zeros(icap, dtype=np.int64)
    # tree states (lazily instantiated, section 6.1), keyed by (branch, taken-variable set): the
    # routing decision is made once per state and event, all of the state's instances follow it
    scap = max(8, 2 * B)
    st_b = np.zeros(scap, dtype=np.int64)
    st_mask = np.zeros(scap, dtype=np.int64)
    st_cur = np.full(scap, -1, dtype=np.int64)    # the state's current choice (ties keep it)
    st_at = np.full(scap, -1, dtype=np.int64)     # event of the last decision
    st_best = np.full(scap, -1, dtype=np.int64)   # that decision (-1: p_ne failed)
    n_st = B
    for b in range(B):
        i_br[b] = b
        i_alive[b] = True
        i_min[b] = -1
        i_st[b] = b
        st_b[b] = b
    live = 0  # non-root live instances
    peak_transient = 0  # most live instances at any moment, also inside an event
    n_route = 0  # tree routing decisions (the ROUTING_CHECK column's total)

    # ---- matches
    mcap = 64
    m_ev = np.full((mcap, V), -1, dtype=np.int64)
    m_det = np.zeros(mcap, dtype=np.int64)
    n_m = 0

    for p in range(n):
        now = ts[p]
        t = types[p]
        # -- expire buffered events
        for q in range(n_buf):
            h = bhead[q]
            while h < btail[q]:
                e = buf[q, h]
                if win_kind == 1:
                    if p - e >= window:
                        h += 1
                        continue
                elif now - ts[e] > window:
                    h += 1
                    continue
                break
            bhead[q] = h
        # -- expire instances (those whose earliest event leaves the window)
        while front < p:
            dead = (p - front >= window) if win_kind == 1 else (now - ts[front] > window)
            if not dead:
                break
            c0 = min_cnt[front]
            if c0 > 0:
                live -= c0
                cnt[p, _PM_REMOVED] += c0
            front += 1
        # -- store the event (temporarily when its type is not a buffered one)
        qb = type_to_buf[t] if t < type_to_buf.shape[0] else -1
        if qb >= 0:
            if btail[qb] == buf.shape[1]:
                # compact every buffer to the front; double only when still over half full
                big = 0
                for q in range(n_buf):
                    if btail[q] - bhead[q] > big:
                        big = btail[q] - bhead[q]
                newcap = buf.shape[1] * 2 if big * 2 > buf.shape[1] else buf.shape[1]
                nb = np.zeros((n_buf, newcap), dtype=np.int64)
                for q in range(n_buf):
                    L = btail[q] - bhead[q]
                    nb[q, :L] = buf[q, bhead[q]:btail[q]]
                    btail[q] = L
                    bhead[q] = 0
                buf = nb
            buf[qb, btail[qb]] = p
            btail[qb] += 1
            if buf_stored[qb]:
                cnt[p, _BUF_INSERT] += 1
        # -- run the live instances: the roots, then (tree) every other instance or (chain) the
        # caught-up instances waiting for this event's type, then the children created while
        # this event is processed (they run at this event too).  Every live instance is offered
        # the event (INSTANCE_WORK, charged in bulk below); a chain instance that is not visited
        # would only have moved its coverage frontier.
        n_start = n_inst
        live_start = live
        n_todo = 0
        if route == 0 and qb >= 0:
            if todo.shape[0] < n_inst:  # a list holds at most every instance
                todo = np.empty(2 * n_inst, dtype=np.int64)
            prev = -1
            k = l_head[qb]
            while k >= 0:
                nx = i_next[k]
                if i_alive[k] and i_min[k] >= front:
                    todo[n_todo] = k
                    n_todo += 1
                    prev = k
                else:  # dead: unlink
                    if prev < 0:
                        l_head[qb] = nx
                    else:
                        i_next[prev] = nx
                    if l_tail[qb] == k:
                        l_tail[qb] = prev
                k = nx
        seq = 0  # position in the visiting order
        while True:  # growth loop: the only place where the instance, match and state arrays rebind
            grow = False
            need = 0
            while True:  # visit loop: rebinds no array (module docstring, "Speed")
                from_list = False
                if seq < B or route == 1:
                    k = seq
                elif seq < B + n_todo:
                    k = todo[seq - B]
                    from_list = True
                else:
                    k = n_start + (seq - B - n_todo)
                if k >= n_inst:
                    break
                seq += 1
                if not i_alive[k] or (k >= B and i_min[k] < front):
                    continue
                b = i_br[k]
                m = br_len[b]
                mask = i_mask[k]
                # routing: which missing variable does this instance take next?
                if route == 0:
                    u = br_order[b, i_depth[k]]
                    if from_list and i_cov[k, u] < p:
                        i_cov[k, u] = p  # caught up through the events it was not offered
                    if var_type[u] != t and i_cov[k, u] >= p:
                        # waiting for a u event and everything before this one is covered
                        if i_cov[k, u] < p + 1:
                            i_cov[k, u] = p + 1
                        continue
                else:
                    sk = i_st[k]
                    if st_at[sk] != p:
                        # the state's routing decision for this event (p_ne, p_se; section 6).
                        # It is part of offering the event, which INSTANCE_WORK charges for every
                        # instance as the chain's store decision, so it is no EDGE_EVAL (section 7
                        # counts take-edge validations); ROUTING_CHECK records it at cost 0
                        st_at[sk] = p
                        cnt[p, _ROUTING_CHECK] += 1
                        n_route += 1
                        ok = True
                        best = -1
                        bestc = 0
                        for j in range(m):
                            v = br_vars[b, j]
                            if (mask >> v) & 1:
                                continue
                            qv = var_buf[v]
                            c = btail[qv] - bhead[qv]
                            if c <= 0:
                                ok = False
                                break
                            if best < 0 or c < bestc:
                                best = v
                                bestc = c
                        if ok:
                            cur = st_cur[sk]
                            if cur >= 0:
                                qv = var_buf[cur]
                                if btail[qv] - bhead[qv] == bestc:
                                    best = cur
                            st_cur[sk] = best
                        else:
                            best = -1
                        st_best[sk] = best
                    best = st_best[sk]
                    if best < 0:
                        continue
                    cur = i_cur[k]
                    if cur != best:
                        if cur >= 0:
                            cnt[p, _PLAN_GEN] += 1
                        i_cur[k] = best
                    u = best
                # scope of take(u): positions (lo, hi]; hi = p means "finish" (stream too)
                su = br_slot[b, u]
                lo = -1
                hi = p
                bounded = False
                for j in range(m):
                    v = br_vars[b, j]
                    if (mask >> v) & 1:
                        if j < su:
                            if i_ev[k, v] > lo:
                                lo = i_ev[k, v]
                        elif j > su:
                            if i_ev[k, v] - 1 < hi:
                                hi = i_ev[k, v] - 1
                                bounded = True
                start = lo + 1
                if i_cov[k, u] > start:
                    start = i_cov[k, u]
                qu = var_buf[u]
                if start <= hi:
                    if start >= p:
                        # only the current event can be new: skip the search when its type differs
                        if t == var_type[u]:
                            a = btail[qu] - 1
                            z = btail[qu]
                        else:
                            a = 0
                            z = 0
                    else:
                        a = _lower_bound_row(buf, qu, bhead[qu], btail[qu], start)
                        z = _lower_bound_row(buf, qu, a, btail[qu], hi + 1)
                    need = z - a  # each candidate makes at most one child or match (or state)
                    if need > 0 and (n_inst + need > icap or n_m + need > mcap
                                     or (route == 1 and n_st + need > scap)):
                        seq -= 1  # visit k again after the growth: what ran so far is idempotent
                        grow = True
                        break
                    for bi in range(a, z):
                        x = buf[qu, bi]
                        cnt[p, _EDGE_EVAL] += 1
                        # window over the instance plus x
                        mn = x if (k < B or x < i_min[k]) else i_min[k]
                        mx = x if (k < B or x > i_max[k]) else i_max[k]
                        if win_kind == 1:
                            if mx - mn >= window:
                                continue
                        elif ts[mx] - ts[mn] > window:
                            continue
                        good = True
                        for jp in range(br_npred[b]):
                            pr = br_preds[b, jp]
                            v1 = pred_i[pr, 2]
                            v2 = pred_i[pr, 4]
                            if v2 < 0:
                                v2 = v1
                            if v1 != u and v2 != u:
                                continue
                            if v1 != u and not ((mask >> v1) & 1):
                                continue
                            if v2 != u and not ((mask >> v2) & 1):
                                continue
                            e1 = x if v1 == u else i_ev[k, v1]
                            e2 = x if v2 == u else i_ev[k, v2]
                            cnt[p, _PRED_EVAL] += 1
                            if not eval_pred(pred_i, pred_f, pr, attrs, e1, e2):
                                good = False
                                break
                        if not good:
                            continue
                        cnt[p, _PM_CREATED] += 1
                        if i_depth[k] + 1 == m:
                            if n_m >= max_matches:
                                return cnt, m_ev[:0].copy(), m_det[:0].copy(), peak_transient, \
                                    n_route, ST_MAX_MATCHES, p
                            for v in range(V):
                                m_ev[n_m, v] = -1
                            for j in range(m):
                                v = br_vars[b, j]
                                m_ev[n_m, v] = i_ev[k, v]
                            m_ev[n_m, u] = x
                            m_det[n_m] = p
                            n_m += 1
                            cnt[p, _MATCH_EMIT] += 1
                            cnt[p, _PM_REMOVED] += 1
                            continue
                        if live >= max_pm:
                            return cnt, m_ev[:0].copy(), m_det[:0].copy(), peak_transient, \
                                n_route, ST_MAX_PM, p
                        c = n_inst
                        n_inst += 1
                        # only the branch's columns are ever read (the others may be stale)
                        for j in range(m):
                            v = br_vars[b, j]
                            i_ev[c, v] = i_ev[k, v]
                            i_cov[c, v] = i_cov[k, v]
                        i_ev[c, u] = x
                        i_mask[c] = mask | (np.int64(1) << u)
                        i_br[c] = b
                        i_depth[c] = i_depth[k] + 1
                        i_cur[c] = -1
                        if route == 1:
                            # the child's state: (b, taken set), instantiated on first use
                            cm = i_mask[c]
                            sc = -1
                            for r in range(n_st):
                                if st_mask[r] == cm and st_b[r] == b:
                                    sc = r
                                    break
                            if sc < 0:
                                sc = n_st
                                n_st += 1
                                st_b[sc] = b
                                st_mask[sc] = cm
                                st_cur[sc] = -1
                                st_at[sc] = -1
                            i_st[c] = sc
                        i_min[c] = mn
                        i_max[c] = mx
                        i_alive[c] = True
                        min_cnt[mn] += 1
                        live += 1
                        if live > peak_transient:
                            peak_transient = live
                # coverage: everything up to the current event has been handed out
                if i_cov[k, u] < p + 1:
                    i_cov[k, u] = p + 1
                if bounded and k >= B:
                    i_alive[k] = False
                    min_cnt[i_min[k]] -= 1
                    live -= 1
                    cnt[p, _PM_REMOVED] += 1
            if not grow:
                break
            # room for ``need`` more instances, matches and tree states; every row written later
            if n_inst + need > icap:
                icap = max(2 * icap, n_inst + need)
                i_ev = grow_rows(i_ev, icap)
                i_cov = grow_rows(i_cov, icap)
                i_mask = grow_1d(i_mask, icap)
                i_br = grow_1d(i_br, icap)
                i_depth = grow_1d(i_depth, icap)
                i_cur = grow_1d(i_cur, icap)
                i_st = grow_1d(i_st, icap)
                i_min = grow_1d(i_min, icap)
                i_max = grow_1d(i_max, icap)
                i_alive = grow_1d(i_alive, icap)
                i_next = grow_1d(i_next, icap)
            if n_m + need > mcap:
                mcap = max(2 * mcap, n_m + need)
                m_ev = grow_rows(m_ev, mcap)
                m_det = grow_1d(m_det, mcap)
            if route == 1 and n_st + need > scap:
                scap = max(2 * scap, n_st + need)
                st_b = grow_1d(st_b, scap)
                st_mask = grow_1d(st_mask, scap)
                st_cur = grow_1d(st_cur, scap)
                st_at = grow_1d(st_at, scap)
                st_best = grow_1d(st_best, scap)
        cnt[p, _INSTANCE_WORK] += B + live_start + (n_inst - n_start)
        # -- unstored types leave the buffer again (chain: the first variable's events)
        if qb >= 0 and not buf_stored[qb]:
            btail[qb] -= 1
        # -- compaction of dead instances
        enlist_from = n_start  # chain: the surviving children join their type's list
        if n_inst - B - live > live:  # amortised O(1) per instance created
            w = B
            for r in range(B, n_inst):
                if i_alive[r] and i_min[r] >= front:
                    if w != r:
                        i_ev[w] = i_ev[r]
                        i_cov[w] = i_cov[r]
                        i_mask[w] = i_mask[r]
                        i_br[w] = i_br[r]
                        i_depth[w] = i_depth[r]
                        i_cur[w] = i_cur[r]
                        i_st[w] = i_st[r]
                        i_min[w] = i_min[r]
                        i_max[w] = i_max[r]
                        i_alive[w] = True
                    w += 1
            for r in range(w, n_inst):
                i_alive[r] = False
            n_inst = w
            if route == 0:  # rows moved: rebuild the lists in index order
                for q in range(l_head.shape[0]):
                    l_head[q] = -1
                    l_tail[q] = -1
                enlist_from = B
        if route == 0:
            for c in range(enlist_from, n_inst):
                if i_alive[c]:
                    q = var_buf[br_order[i_br[c], i_depth[c]]]
                    i_next[c] = -1
                    if l_tail[q] < 0:
                        l_head[q] = c
                    else:
                        i_next[l_tail[q]] = c
                    l_tail[q] = c
        cnt[p, _LIVE_PM] = live
        tot = 0
        for q in range(n_buf):
            if buf_stored[q]:
                tot += btail[q] - bhead[q]
        cnt[p, _BUFFERED] = tot
    return cnt, m_ev[:n_m].copy(), m_det[:n_m].copy(), peak_transient, n_route, ST_OK, -1


# ----------------------------------------------------------------------------- Python side
def _check_supported(program: Program, engine: str) -> None:
    why = None
    if program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif len(program.pred_i) and np.any(program.pred_i[:, 0] == PK_REMOTE):
        why = "REMOTE[...] predicates"
    elif program.n_vars > MAX_VARS:
        why = f"more than {MAX_VARS} variables"
    if why:
        raise CepsimInputError(
            f"the lazy {engine} NFA supports sequences of plain and Kleene variables with "
            f"negations (optionally several OR/AND branches) under skip-till-any-match; this "
            f"pattern uses {why}: run it with the 'eager' engine instead")


def _has_groups(program: Program) -> bool:
    """Whether a branch of ``program.grouped`` holds an unordered group (an AND of plain
    events kept whole)."""
    return not all(br.is_ordered for br in program.grouped)


def _parse_order(program: Program, order) -> list[int]:
    pos = program.positive_vars
    if order is None:
        return list(pos)
    names = [s.strip() for s in order.split(",")] if isinstance(order, str) else [str(s) for s in order]
    unknown = [s for s in names if s not in program.var_names]
    if unknown:
        raise CepsimInputError(f"chain order {order!r}: unknown variable(s) {unknown}; the pattern's "
                               f"variables are {[program.var_names[v] for v in pos]}")
    ids = [program.var_id(s) for s in names]
    if sorted(ids) != sorted(pos) or len(set(ids)) != len(ids):
        raise CepsimInputError(f"chain order {order!r} must list every variable of the pattern "
                               f"exactly once: {[program.var_names[v] for v in pos]}")
    return ids


def _run(program: Program, stream: EventStream, route: int, order_ids: list[int] | None,
         engine: str, max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
         max_matches: int = DEFAULT_MAX_MATCHES, negation_at: str = "bound",
         kernel: str = "auto", counter_offsets=None, grouped: bool = False):
    """(matches, counters, peak transient instances, routing checks); ``counter_offsets``
    (chain only, ``run_chain``): counters as prefix sums at those offsets; ``grouped`` (chain
    only): AND groups as one chain (``kernel_outputs``)."""
    _check_supported(program, engine)
    if int(max_partial_matches) < 1 or int(max_matches) < 1:
        raise CepsimInputError("max_partial_matches and max_matches must be >= 1")
    if negation_at not in NEGATION_AT:
        raise CepsimInputError(f"negation_at must be one of {NEGATION_AT}, got {negation_at!r}")
    if kernel not in KERNELS:
        raise CepsimInputError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    offsets = None if counter_offsets is None else _offsets(counter_offsets)
    if kernel == "negkleene" or has_neg_or_kleene(program):
        ms, cnt, peak_tr, n_route = _run_nk(program, stream, route, order_ids, engine,
                                            int(max_partial_matches), int(max_matches),
                                            negation_at)
        return ms, (cnt if offsets is None else prefix_sums(cnt, offsets)), peak_tr, n_route
    cnt, m_ev, m_det, peak_tr, n_route, status, at = kernel_outputs(
        program, stream, route, order_ids, int(max_partial_matches), int(max_matches),
        offsets=offsets, grouped=grouped and _has_groups(program))
    if status != ST_OK:
        raise _capacity_error(engine, status, at, max_partial_matches, max_matches)
    if (len(stream) == 0 and offsets is None) or (offsets is not None and len(offsets) == 0):
        cnt = cnt[:0]   # no events, or no offsets asked for: no rows
    pos_vars = program.positive_vars
    kle = tuple(False for _ in pos_vars)
    names = tuple(program.var_names[v] for v in pos_vars)
    # the kernel's outputs are int64 copies already: no further cast (millions of rows)
    ms = MatchSet(names, kle, m_ev[:, pos_vars], np.zeros((len(m_det), len(pos_vars)),
                  np.int64), np.zeros((len(m_det), len(pos_vars)), np.int64),
                  np.zeros(0, np.int64), m_det)
    return ms, cnt, int(peak_tr), int(n_route)


def kernel_outputs(program: Program, stream: EventStream, route: int,
                   order_ids: list[int] | None,
                   max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
                   max_matches: int = DEFAULT_MAX_MATCHES, reference: bool = False,
                   offsets: np.ndarray | None = None, grouped: bool = False) -> tuple:
    """The plain kernel's raw outputs for ``program`` (no NOT / Kleene) on ``stream``: (counter
    matrix, match events (one column per variable), detection positions, peak transient
    instances, routing checks, status, event at which a cap stopped the run or -1).  The chain
    (``ROUTE_FIXED``) runs ``engines.evaluators.lazy_chain.chain_kernel`` on its per-(branch,
    depth) tables, the tree ``_lazy_kernel``.  ``reference=True`` runs the frozen general kernel
    ``general_kernel`` (the general kernel the tree runs) instead (tests and
    ``benchmarks/bench_kernel_floor.py`` compare the two).  ``offsets`` (chain only, int64
    ascending): the counters as prefix sums at those offsets (``prefix_sums``) instead of the
    per-event matrix.  ``grouped`` (chain only, not with ``reference``): the branches of
    ``program.grouped``, each unordered AND group one order-free chain
    (``engines.evaluators.lazy_chain``, "AND groups"; ``run_chain``'s ``and_groups="grouped"``)
    instead of every order of it (``program.branches``); the same without groups."""
    if grouped and (reference or route != ROUTE_FIXED):
        raise CepsimInputError("AND groups as one chain (grouped=True) run in the chain kernel "
                               "only")
    br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type, var_buf, buf_stored, \
        n_buf, pred_i = _chain_tables(program, route, order_ids, grouped)
    types = np.ascontiguousarray(stream.types.astype(np.int64))
    window = float(program.window)
    wkind = int(program.window_kind)
    if offsets is not None and (reference or route != ROUTE_FIXED):
        raise CepsimInputError("counter offsets are supported by the chain kernel only")
    if reference:
        return _lazy_kernel(types, stream.ts, stream.attrs, pred_i, program.pred_f, var_type,
                               var_buf, buf_stored, n_buf, br_vars, br_len, br_slot, br_preds,
                               br_npred, br_order, np.int64(route), wkind, window,
                               int(max_partial_matches), int(max_matches))
    if route == ROUTE_FIXED:
        ct = _chain_fast_tables(program, order_ids, grouped)
        return chain_kernel(types, stream.ts, stream.attrs, pred_i, program.pred_f, var_type,
                            var_buf, buf_stored, n_buf, br_vars, br_len, br_order, *ct, wkind,
                            window, int(max_partial_matches), int(max_matches),
                            _NO_OFFSETS if offsets is None else offsets)
    return _lazy_kernel(types, stream.ts, stream.attrs, pred_i, program.pred_f, var_type,
                        var_buf, buf_stored, n_buf, br_vars, br_len, br_slot, br_preds, br_npred,
                        br_order, route, wkind, window, int(max_partial_matches),
                        int(max_matches))


_NO_OFFSETS = np.zeros(0, dtype=np.int64)
#: the general kernel (both routings), public for the equality tests and the kernel bench
general_kernel = _lazy_kernel


def _offsets(counter_offsets) -> np.ndarray:
    off = np.asarray(counter_offsets)
    if off.ndim != 1 or (off.size and off.dtype.kind not in "iu") \
            or np.any(np.diff(off) < 0) or np.any(off < 0):
        raise CepsimInputError(f"counter_offsets must be non-negative integers in ascending "
                               f"order, got {counter_offsets!r}")
    return np.ascontiguousarray(off, dtype=np.int64)


def prefix_sums(cnt: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Row ``i``: the sum of the rows ``[0, offsets[i])`` of the per-event counter matrix
    ``cnt`` (offsets past its end: every row), exact int64 sums."""
    cs = np.zeros((len(cnt) + 1, cnt.shape[1]), dtype=np.int64)
    np.cumsum(cnt, axis=0, out=cs[1:])
    return cs[np.minimum(offsets, len(cnt))]


def chain_general_tables(program: Program, route: int, order_ids: list[int] | None) -> tuple:
    """The general kernel's branch tables of one (route, order) (``_lazy_kernel``'s and
    ``general_kernel``'s arguments from ``br_vars`` on, in
    ``kernel_outputs``' order)."""
    return _chain_tables(program, route, order_ids)


def _chain_fast_tables(program: Program, order_ids: list[int] | None,
                       grouped: bool = False) -> tuple:
    """``engines.evaluators.lazy_chain.chain_tables`` of one chain order, kept in the program's
    memo beside ``_chain_tables``; ``grouped``: of ``program.grouped``'s branches, with their
    AND groups (``br_group``)."""
    key = None if order_ids is None else tuple(order_ids)
    tables = kept(program, "chain_group_tables" if grouped else "chain_fast_tables", 4096)
    hit = tables.find(key)
    if hit is not None:
        return hit
    br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type, _, _, _, pred_i = \
        _chain_tables(program, ROUTE_FIXED, order_ids, grouped)
    if not grouped:
        return tables.keep(key, chain_tables(pred_i, program.pred_f, br_vars, br_len, br_slot,
                                             br_preds, br_npred, br_order))
    br_group = np.zeros(br_vars.shape, dtype=np.int64)
    for b, br in enumerate(program.grouped):
        br_group[b, :len(br.pos_vars)] = br.groups
    return tables.keep(key, chain_tables(pred_i, program.pred_f, br_vars, br_len, br_slot,
                                         br_preds, br_npred, br_order, br_group, var_type))


def _capacity_error(engine: str, status: int, at: int, max_partial_matches: int,
                    max_matches: int) -> CapacityError:
    if status == ST_MAX_PM:
        return CapacityError(
            f"{engine} engine: more than {max_partial_matches} live partial matches at event "
            f"{at}; raise the cap with --max-partial-matches / max_partial_matches=, or narrow "
            f"the window")
    return CapacityError(
        f"{engine} engine: more than {max_matches} matches at event {at}; raise the cap with "
        f"--max-matches / max_matches=, or narrow the pattern")


def _run_nk(program: Program, stream: EventStream, route: int, order_ids: list[int] | None,
            engine: str, max_partial_matches: int, max_matches: int, negation_at: str = "bound"):
    """``_run`` for a pattern with NOT or Kleene: ``lazy_nk_kernel``
    (``engines.evaluators.lazy_negkleene``)."""
    br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type, var_buf, buf_stored, \
        n_buf, pred_i, var_kle, ng = _nk_tables(program, route, order_ids, negation_at)
    cnt, o_ev, o_ks, o_kn, o_kev, o_det, peak_tr, n_route, status, at = lazy_nk_kernel(
        np.ascontiguousarray(stream.types.astype(np.int64)), stream.ts, stream.attrs,
        pred_i, program.pred_f, var_type, var_buf, var_kle, buf_stored, n_buf, br_vars, br_len,
        br_slot, br_preds, br_npred, br_order, route, int(program.window_kind),
        float(program.window), max_partial_matches, max_matches, *ng)
    if status != ST_OK:
        raise _capacity_error(engine, status, at, max_partial_matches, max_matches)
    if len(stream) == 0:
        cnt = cnt[:0]
    pos_vars = program.positive_vars
    kle = tuple(bool(program.var_kind[v] == KIND_KLEENE) for v in pos_vars)
    names = tuple(program.var_names[v] for v in pos_vars)
    order = np.argsort(o_det, kind="stable")
    pos = o_ev[order][:, pos_vars]
    ks = o_ks[order][:, pos_vars]
    kn = o_kn[order][:, pos_vars]
    for j, k in enumerate(kle):
        if k:
            pos[:, j] = np.where(kn[:, j] > 0, MATCH_KLEENE, -1)
    ms = MatchSet(names, kle, pos, ks, kn, o_kev, o_det[order])
    return ms, cnt, int(peak_tr), int(n_route)


def _nk_tables(program: Program, route: int, order_ids: list[int] | None,
               negation_at: str = "bound") -> tuple:
    """``_chain_tables`` plus the Kleene flags and the negation tables of ``lazy_nk_kernel``
    (start / middle negated types get an input buffer, stored), kept in the program's memo."""
    key = (route, None if order_ids is None else tuple(order_ids), negation_at)
    tables = kept(program, "chain_nk_tables", 4096)
    hit = tables.find(key)
    if hit is not None:
        return hit
    br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type, var_buf, buf_stored, \
        n_buf, pred_i = _chain_tables(program, route, order_ids)
    var_buf = var_buf.copy()
    type_ids: dict[int, int] = {}
    for v in program.positive_vars:
        type_ids.setdefault(int(var_type[v]), int(var_buf[v]))
    ng = neg_tables(program, program.branches, var_buf, type_ids, negation_at)
    n_buf2 = max(1, len(type_ids))
    stored = np.zeros(n_buf2, dtype=np.bool_)
    stored[:len(buf_stored)] = buf_stored
    ng_buf = ng[6]
    for q in ng_buf[ng_buf >= 0]:
        stored[q] = True
    var_kle = (program.var_kind == KIND_KLEENE).astype(np.int64)
    return tables.keep(key, (br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type,
                             var_buf, stored, n_buf2, pred_i, var_kle, ng))


def _chain_tables(program: Program, route: int, order_ids: list[int] | None,
                  grouped: bool = False) -> tuple:
    """The kernel's per-branch tables for one (route, order) of ``program``, kept in the
    program's memo (the adaptive scenario runs thousands of epochs of one order; these tables
    were 150 us of Python per run).  The branches are ``program.branches`` (every order of an
    AND group), or ``program.grouped`` when ``grouped`` (the groups kept whole: their slots in
    text order, ``_chain_fast_tables`` adds the groups)."""
    key = (route, None if order_ids is None else tuple(order_ids), bool(grouped))
    tables = kept(program, "chain_tables", 4096)
    hit = tables.find(key)
    if hit is not None:
        return hit
    V = program.n_vars
    branches = program.grouped if grouped else program.branches
    B = len(branches)
    mlen = max(len(br.pos_vars) for br in branches)
    plen = max(1, max(len(br.pred_ids) for br in branches))
    br_vars = np.full((B, mlen), -1, dtype=np.int64)
    br_len = np.zeros(B, dtype=np.int64)
    br_slot = np.full((B, V), -1, dtype=np.int64)
    br_preds = np.zeros((B, plen), dtype=np.int64)
    br_npred = np.zeros(B, dtype=np.int64)
    br_order = np.full((B, mlen), -1, dtype=np.int64)
    for b, br in enumerate(branches):
        pv = [int(v) for v in br.pos_vars]
        br_vars[b, :len(pv)] = pv
        br_len[b] = len(pv)
        for j, v in enumerate(pv):
            br_slot[b, v] = j
        br_preds[b, :len(br.pred_ids)] = br.pred_ids
        br_npred[b] = len(br.pred_ids)
        if order_ids is None:
            br_order[b, :len(pv)] = pv
        else:
            br_order[b, :len(pv)] = [v for v in order_ids if v in pv]
    # one input buffer per event type used by a positive variable
    var_type = program.var_type.astype(np.int64)
    var_buf = np.full(V, -1, dtype=np.int64)
    type_ids: dict[int, int] = {}
    for v in program.positive_vars:
        var_buf[v] = type_ids.setdefault(int(var_type[v]), len(type_ids))
    buf_stored = np.zeros(max(1, len(type_ids)), dtype=np.bool_)
    for b in range(B):
        for j in range(br_len[b]):
            v = int(br_order[b, j])
            if route == ROUTE_ADAPTIVE or j > 0:
                buf_stored[var_buf[v]] = True
    return tables.keep(key, (br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type,
                             var_buf, buf_stored, max(1, len(type_ids)),
                             program.pred_i.astype(np.int64)))


def run_chain(program: Program, stream: EventStream, order=None,
              max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
              max_matches: int = DEFAULT_MAX_MATCHES, negation_at: str = "bound",
              kernel: str = "auto", counter_offsets=None, and_groups: str = "grouped", **opts):
    """Lazy chain NFA with selectivity order ``order`` (``"c,a,b"``, a list of the positive
    variables' names, or ``None`` = the query's sequence order).  ``and_groups``
    (``AND_GROUPS``): "grouped" runs each AND of plain events (an unordered group of
    ``program.grouped``) as one order-free chain in the order
    (``engines.evaluators.lazy_chain``, "AND groups": no n! expansion, never more work);
    "expanded" runs every order of it as a chain of its own (``program.branches``).  A pattern
    with NOT or Kleene runs the expansion either way (``lazy_negkleene``).  More than
    ``max_partial_matches`` live instances or ``max_matches`` matches raise ``CapacityError``.
    ``negation_at``: where a middle NOT is checked, "bound" (as soon as its neighbours and
    predicate variables are bound) or "match" (when the match completes: OpenCEP's default,
    ``engines.evaluators.lazy_negkleene``).  ``kernel``: "auto" or "negkleene" (``KERNELS``:
    the extended kernel for a pattern without NOT / Kleene too; for checks and timing).
    ``counter_offsets`` (non-negative integers, ascending): ``counters`` is then
    ``int64[len(counter_offsets), N_COUNTERS]``, row ``i`` the sum of the per-event rows
    ``[0, counter_offsets[i])`` (``prefix_sums``), and the kernel never allocates the per-event
    matrix (callers that only sum counters over stream ranges: the adaptive epochs).  Other
    options are ignored."""
    from engines.registry import EngineResult
    if and_groups not in AND_GROUPS:
        raise CepsimInputError(f"and_groups must be one of {AND_GROUPS}, got {and_groups!r}")
    ids = _parse_order(program, order)
    ms, cnt, peak, _ = _run(program, stream, ROUTE_FIXED, ids, "chain", max_partial_matches,
                            max_matches, negation_at, kernel, counter_offsets,
                            grouped=and_groups == "grouped")
    return EngineResult(ms, cnt, {"order": ",".join(program.var_names[v] for v in ids),
                                  "peak_transient_instances": peak})


def run_tree(program: Program, stream: EventStream,
             max_partial_matches: int = DEFAULT_MAX_PARTIAL_MATCHES,
             max_matches: int = DEFAULT_MAX_MATCHES, negation_at: str = "bound",
             kernel: str = "auto", **opts):
    """Tree NFA: adaptive selectivity order from the input buffer's per-variable counters.
    Caps, ``negation_at`` and ``kernel`` as in ``run_chain``."""
    from engines.registry import EngineResult
    ms, cnt, peak, n_route = _run(program, stream, ROUTE_ADAPTIVE, None, "tree",
                                  max_partial_matches, max_matches, negation_at, kernel)
    return EngineResult(ms, cnt, {"order": "adaptive", "peak_transient_instances": peak,
                                  "routing_checks": n_route})

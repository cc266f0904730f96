"""The lazy chain NFA's kernel (DEBS'15, sections 5 and 7), with its tables resolved per
(branch, depth) when they are built.

Same algorithm, visit order and counters as the general lazy kernel of
``engines.evaluators.lazy_nfa`` (its module docstring describes the machine: instances with
coverage frontiers, take edges over a scope of the input buffer, one condition evaluation per
candidate, caught-up instances listed per input buffer); every output is bit-identical
(``tests/test_lazy_chain_fast_equal.py`` holds it to the frozen copy
``engines.evaluators.lazy_nfa.general_kernel``).  Only the chain routing (``ROUTE_FIXED``) runs here; the
tree keeps the general kernel.  What a chain fixes, and this kernel uses:

* **Static tables per (branch, depth).**  A chain instance at depth ``d`` of branch ``b`` has
  taken exactly the first ``d`` variables of the branch's order and waits for the next one,
  ``u``.  So which predicates its take edge checks (those that mention ``u`` and whose other
  variable is taken, in the branch's predicate order: the order in which the general kernel
  checks them and stops at the first failure), and which taken variables bound its scope
  (before ``u`` in sequence order: the scope start; after it: the scope end, and then the
  instance is bounded), are known when the tables are built (``chain_tables``) instead of
  being looked up per candidate and per visit.
* **Predicates resolved into entries** (``E_*``).  Most are ``attrs[x, c] OP h`` (``E_XH``), x
  the candidate: a comparison with a constant (h = the constant), a comparison whose other side
  is a taken event (h = ``attrs[e, c'] * scale + offset``, as ``eval_pred`` computes it), or one
  where the candidate is the scaled side with scale 1 and offset 0 (``h OP x * 1 + 0`` is
  ``x FLIP(OP) h``: ``x * 1 + 0`` differs from ``x`` only by the sign of a zero, which no
  comparison sees, and a NaN fails both).  The others: ``|x - h|``, a scaled candidate side,
  and ``eval_pred`` for correlations and predicates within one variable.  ``h`` is computed once
  per visit and reused for every candidate; a (branch, depth) of at most two ``E_XH`` entries
  keeps them in locals.  The candidate side and the comparisons are the floating-point
  operations of ``eval_pred``, so every result is the same bit for bit.
* **Instance rows in depth order.**  An instance's row holds its bookkeeping and the events it
  took in the order's depth order (one or two cache lines per visit instead of one line in
  each of a dozen arrays), and one coverage frontier: the one of the variable it waits for.
  The general kernel keeps a frontier per variable, but in a chain each instance moves only the
  frontier of its own variable, so a child's frontier for its next variable is the root's
  initial 0 (the parent's copy of it was never moved).
* **Caught-up listed instances** (the instances visited because an event of their type arrived,
  the general kernel's ``from_list``): their coverage is the current position, so the only
  candidate is the current event, and it is inside the window (the instance is alive, so its
  first event is not before the expiry front, which is inside the window of the current
  event).  A bounded one (its scope ends before the current event: a child created at the
  first event of a slice can be listed with a bounded scope) has no candidate and is removed,
  as in the general kernel.
* **Window failures counted in bulk.**  The candidates of a scope are ascending positions and a
  live instance is itself inside the window, so the candidates that fail the window check form
  a prefix and a suffix of the scope (the earliest ones are too far before the instance's last
  event, the latest ones too far after its first).  The kernel finds the passing middle with the
  same comparisons and charges EDGE_EVAL for the whole scope.
* **Counters in locals**, added to the per-event matrix once per event (and before a cap's
  early return, so a stopped run's partial outputs are the general kernel's too).

AND groups: a conjunction is one order-free chain
-------------------------------------------------
A branch of ``Program.grouped`` may hold an unordered group: an AND of plain events, whose
members may occur in any order (``engines.compile``).  ``Program.branches`` expands such a
group into its n! orders, each a chain of its own (n! roots, n! tables, and every combination
built once per order its events fit); the chain runs the group instead as **one chain** in the
plan's order (``run_chain``'s default ``and_groups="grouped"``; ``"expanded"`` runs the n!
orders, the general kernel's form).  DEBS'15 section 5 builds a chain's take edge from the
sequence constraints and the predicates: its scope (``Latest_sel`` / ``Earliest_sel``) is the
timing predicate of the sequence, and the rest of the edge condition (the window and the
predicates that mention ``u``, short-circuited, section 7's condition evaluation) does not
depend on the order at all.  A conjunction drops exactly the timing predicate among its
members (PVLDB'18 section 4.1 runs AND as a pattern type of the lazy NFA of [35], DEBS'15), so
in the group chain (``chain_tables``' ``br_group``):

* the scope of ``u`` is bounded only by the taken variables of strictly earlier groups (its
  start) and strictly later groups (its end, and then the instance is bounded): a group-mate,
  taken or not, bounds nothing.  A pure AND has no bound at all: every instance waits for its
  next variable over the window, like the last variable of a sequence;
* the chain assigns each variable one event, in the plan's order, so every combination of the
  group's events (one event per member, distinct events) is built by exactly one path: the
  one that takes the events at the plan's depths.  Two members of one type must not take the
  same event: a taken event of a group-mate of ``u``'s type is skipped in ``u``'s scope
  (``sc_ex``) and is not a candidate (no condition is evaluated on it, nothing is charged: in
  a sequence the strict scope bounds exclude it the same way);
* the counters are the ones a sequence's chain charges per executed step (docs/COST_MODEL.md:
  counters count executed work): one EDGE_EVAL per candidate in scope, PRED_EVAL per atomic
  predicate checked, PM_CREATED per instance or match, INSTANCE_WORK per live instance offered
  each event.  An instance of the group chain stands for the instances of the expansion that
  took the same events (at least one: the order that lists its taken variables by position,
  then its next variable, which also lives as long), and each candidate in its scope is in the
  scope of one of them with the same predicates to check, so the group chain never does more
  of any of them (``tests/test_lazy_chain_and_groups.py`` counts both).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, OP_NE, PK_ABS, PK_CMP
from engines.evaluators.nfa_buffers import grow_1d, grow_rows
from engines.leaf_jit import leaf_njit
from engines.predicates import compare, eval_pred

ST_OK, ST_MAX_PM, ST_MAX_MATCHES = 0, 1, 2

# predicate entries of a (branch, depth): x = the candidate event, h = the entry's operand
# hoisted out of the candidate loop (computed once per visit from the taken event e)
E_XH = 0         # attrs[x, cx] OP h
E_CMP_EX = 1     # h OP (attrs[x, cx] * f0 + f1), h = attrs[e, c1]
E_ABS_XE = 2     # |attrs[x, cx] - h| OP f1, h = attrs[e, ce]
E_ABS_EX = 3     # |h - attrs[x, cx]| OP f1, h = attrs[e, c1]
E_GENERAL = 4    # eval_pred(pred, e1, e2); e1 / e2 = x where the side flag says so
# how h is computed
H_NONE = 0
H_CONST = 1      # f1 (a comparison with a constant)
H_SCALED = 2     # attrs[e, ce] * f0 + f1 (the right side of a comparison, as eval_pred)
H_ATTR = 3       # attrs[e, ce]
# OP with its operands swapped: a OP b == b FLIP[OP] a, NaN included (both are False)
_FLIP = {OP_LT: OP_GT, OP_LE: OP_GE, OP_GT: OP_LT, OP_GE: OP_LE, OP_EQ: OP_EQ, OP_NE: OP_NE}

_PRED_EVAL = C.PRED_EVAL
_EDGE_EVAL = C.EDGE_EVAL
_PM_CREATED = C.PM_CREATED
_PM_REMOVED = C.PM_REMOVED
_BUF_INSERT = C.BUF_INSERT
_MATCH_EMIT = C.MATCH_EMIT
_INSTANCE_WORK = C.INSTANCE_WORK
_LIVE_PM = C.LIVE_PM
_BUFFERED = C.BUFFERED
_NC = C.N_COUNTERS
# columns of the kernel's instance rows
_I_MIN, _I_MAX, _I_COV, _I_BR, _I_DEPTH, _I_NEXT, _I_ALIVE, _I_EV = 0, 1, 2, 3, 4, 5, 6, 7


def chain_tables(pred_i: np.ndarray, pred_f: np.ndarray, br_vars: np.ndarray,
                 br_len: np.ndarray, br_slot: np.ndarray, br_preds: np.ndarray,
                 br_npred: np.ndarray, br_order: np.ndarray, br_group: np.ndarray | None = None,
                 var_type: np.ndarray | None = None) -> tuple:
    """Per (branch, depth) tables of ``chain_kernel`` from the general kernel's branch tables
    (``engines.evaluators.lazy_nfa.chain_general_tables``): the scope (``sc_lo``/``sc_nlo``: the
    depths of the taken variables before ``u`` in sequence order; ``sc_hi``/``sc_nhi``: those
    after it) and the predicate entries in the branch's predicate order (``pe_code`` ``E_*``,
    ``pe_hk`` how h is computed ``H_*``, ``pe_op``, ``pe_pr`` the predicate id, ``pe_cx`` the
    candidate's column, ``pe_ce`` the taken event's column, ``pe_v`` the taken variable's depth
    (-1: none), ``pe_s1``/``pe_s2`` for ``E_GENERAL`` (1: that side is the candidate),
    ``pe_f0``/``pe_f1`` scale and offset, ``pe_n`` entries per (branch, depth), ``pe_fast``: at
    most two entries, all ``E_XH``).

    ``br_group`` (int ``[B, M]``, the group of each slot, non-decreasing; None: every slot its
    own group) makes a branch's unordered groups order-free chains (module docstring, "AND
    groups"): the scope of ``u`` is bounded only by the taken variables of strictly earlier
    (``sc_lo``) and strictly later (``sc_hi``) groups, and ``sc_ex``/``sc_nex`` list the depths
    of the taken variables of ``u``'s own group that have ``u``'s type (``var_type``, int
    ``[V]``, required with ``br_group``): their events are not candidates of ``u``.  Without
    groups ``sc_nex`` is 0 everywhere and every other table is unchanged.  The two are the
    last entries of the returned tuple."""
    B, M = br_order.shape
    if br_group is not None and var_type is None:
        raise ValueError("chain_tables: br_group needs var_type")
    sc_ex = np.full((B, M, M), -1, np.int64)
    sc_nex = np.zeros((B, M), np.int64)
    P = max(1, int(br_preds.shape[1]))
    sc_lo = np.full((B, M, M), -1, np.int64)
    sc_nlo = np.zeros((B, M), np.int64)
    sc_hi = np.full((B, M, M), -1, np.int64)
    sc_nhi = np.zeros((B, M), np.int64)
    shape = (B, M, P)
    pe_code = np.zeros(shape, np.int64)
    pe_op = np.zeros(shape, np.int64)
    pe_pr = np.zeros(shape, np.int64)
    pe_cx = np.zeros(shape, np.int64)
    pe_ce = np.zeros(shape, np.int64)
    pe_v = np.full(shape, -1, np.int64)
    pe_s1 = np.zeros(shape, np.int64)
    pe_s2 = np.zeros(shape, np.int64)
    pe_f0 = np.zeros(shape, np.float64)
    pe_f1 = np.zeros(shape, np.float64)
    pe_hk = np.zeros(shape, np.int64)
    pe_n = np.zeros((B, M), np.int64)
    pe_fast = np.zeros((B, M), np.bool_)
    for b in range(B):
        m = int(br_len[b])
        for d in range(m):
            u = int(br_order[b, d])
            taken = {int(v) for v in br_order[b, :d]}
            depth_of = {int(v): j for j, v in enumerate(br_order[b, :d])}
            su = int(br_slot[b, u])
            gu = su if br_group is None else int(br_group[b, su])
            for j in range(m):
                v = int(br_vars[b, j])
                if v in taken:
                    gj = j if br_group is None else int(br_group[b, j])
                    if gj < gu:
                        sc_lo[b, d, sc_nlo[b, d]] = depth_of[v]
                        sc_nlo[b, d] += 1
                    elif gj > gu:
                        sc_hi[b, d, sc_nhi[b, d]] = depth_of[v]
                        sc_nhi[b, d] += 1
                    elif int(var_type[v]) == int(var_type[u]):
                        # a group-mate of u's type: its event is taken, not a candidate of u
                        sc_ex[b, d, sc_nex[b, d]] = depth_of[v]
                        sc_nex[b, d] += 1
            k = 0
            for jp in range(int(br_npred[b])):
                pr = int(br_preds[b, jp])
                v1 = int(pred_i[pr, 2])
                v2 = int(pred_i[pr, 4])
                kind = int(pred_i[pr, 0])
                unary = v2 < 0
                if unary:
                    v2 = v1
                if v1 != u and v2 != u:
                    continue
                if v1 != u and v1 not in taken:
                    continue
                if v2 != u and v2 not in taken:
                    continue
                pe_pr[b, d, k] = pr
                op = int(pred_i[pr, 1])
                pe_op[b, d, k] = op
                f0, f1 = float(pred_f[pr, 0]), float(pred_f[pr, 1])
                pe_f0[b, d, k] = f0
                pe_f1[b, d, k] = f1
                c1, c2 = int(pred_i[pr, 3]), int(pred_i[pr, 5])
                code, hk, cx, ce, ve = E_GENERAL, H_NONE, 0, 0, -1
                if kind == PK_CMP and unary:
                    code, hk, cx = E_XH, H_CONST, c1
                elif kind == PK_CMP and v1 == u and v2 != u:
                    code, hk, cx, ce, ve = E_XH, H_SCALED, c1, c2, v2
                elif kind == PK_CMP and v2 == u and v1 != u:
                    if f0 == 1.0 and f1 == 0.0:
                        # h OP x * 1 + 0 is h OP x (x * 1 + 0 differs from x only by the sign of
                        # a zero, which no comparison sees): x FLIP[OP] h
                        code, hk, cx, ce, ve = E_XH, H_ATTR, c2, c1, v1
                        pe_op[b, d, k] = _FLIP[op]
                    else:
                        code, hk, cx, ce, ve = E_CMP_EX, H_ATTR, c2, c1, v1
                elif kind == PK_ABS and v1 == u and v2 != u:
                    code, hk, cx, ce, ve = E_ABS_XE, H_ATTR, c1, c2, v2
                elif kind == PK_ABS and v2 == u and v1 != u:
                    code, hk, cx, ce, ve = E_ABS_EX, H_ATTR, c2, c1, v1
                else:
                    pe_s1[b, d, k] = 1 if v1 == u else 0
                    pe_s2[b, d, k] = 1 if v2 == u else 0
                    ve = -1 if v1 == v2 else (v2 if v1 == u else v1)
                pe_code[b, d, k] = code
                pe_hk[b, d, k] = hk
                pe_cx[b, d, k] = cx
                pe_ce[b, d, k] = ce
                pe_v[b, d, k] = -1 if ve < 0 else depth_of[ve]
                k += 1
            pe_n[b, d] = k
            pe_fast[b, d] = k <= 2 and all(pe_code[b, d, j] == E_XH for j in range(k))
    return (sc_lo, sc_nlo, sc_hi, sc_nhi, pe_code, pe_hk, pe_op, pe_pr, pe_cx, pe_ce, pe_v,
            pe_s1, pe_s2, pe_f0, pe_f1, pe_n, pe_fast, sc_ex, sc_nex)


@leaf_njit
def _lower_bound_row(arr, row, lo, hi, x):
    """First index i in [lo, hi) with ``arr[row, i] >= x`` (the row index, not a row view: a
    view would cost a reference-count increment and decrement per call)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[row, mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def chain_kernel(types, ts, attrs, pred_i, pred_f, var_type, var_buf, buf_stored, n_buf,
                 br_vars, br_len, br_order, sc_lo, sc_nlo, sc_hi, sc_nhi, pe_code, pe_hk, pe_op,
                 pe_pr, pe_cx, pe_ce, pe_v, pe_s1, pe_s2, pe_f0, pe_f1, pe_n, pe_fast, sc_ex,
                 sc_nex, win_kind, window, max_pm, max_matches, offsets):
    """The chain routing of the general lazy kernel (``engines.evaluators.lazy_nfa``) on the
    per-(branch, depth) tables of ``chain_tables`` (with ``br_group``: unordered groups as
    order-free chains, module docstring).  Returns (counters, match events, detection
    positions, peak transient instances, routing checks (0), status, event), as the general
    kernel: status ST_MAX_PM / ST_MAX_MATCHES when a cap stopped the run at ``event``.

    ``offsets`` (int64, ascending; empty: the per-event matrix): the counters are returned as
    prefix sums instead, row ``i`` the sum of the per-event rows ``[0, offsets[i])`` (offsets
    past the end count the whole run), the integers ``prefix_sums_at`` of
    ``engines.planners.adaptive.headroom`` computes from the matrix; the matrix is then never
    allocated (one scratch row, added up after each event)."""
    n = types.shape[0]
    V = var_type.shape[0]
    B = br_vars.shape[0]
    n_off = offsets.shape[0]
    per_event = n_off == 0
    cnt = np.zeros((max(n, 1) if per_event else 1, _NC), dtype=np.int64)
    sums = np.zeros((n_off, _NC), dtype=np.int64)
    acc = np.zeros(_NC, dtype=np.int64)
    oi = 0
    while oi < n_off and offsets[oi] <= 0:
        oi += 1
    hv = np.zeros(max(1, pe_code.shape[2]), dtype=np.float64)

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

    # ---- instances; the first B are the roots
    icap = max(64, 2 * B)
    M = br_order.shape[1]
    # one row per instance: its bookkeeping (_I_* columns) and the events taken, in depth order
    # (columns _I_EV + depth), so that a visit reads one or two cache lines
    ins = np.zeros((icap, _I_EV + M), dtype=np.int64)
    n_inst = B
    min_cnt = np.zeros(max(n, 1), dtype=np.int64)
    front = 0
    l_head = np.full(max(n_buf, 1), -1, dtype=np.int64)
    l_tail = np.full(max(n_buf, 1), -1, dtype=np.int64)
    todo = np.zeros(icap, dtype=np.int64)
    for b in range(B):
        ins[b, _I_BR] = b
        ins[b, _I_ALIVE] = 1
        ins[b, _I_MIN] = -1
    live = 0
    peak_transient = 0

    # ---- matches
    mcap = 64
    m_ev = np.full((mcap, V), -1, dtype=np.int64)
    m_det = np.zeros(mcap, dtype=np.int64)
    n_m = 0

    for p in range(n):
        pr = p if per_event else 0  # the counters' row of this event
        now = ts[p]
        t = types[p]
        c_pred = 0
        c_edge = 0
        c_created = 0
        c_removed = 0
        c_emit = 0
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
                c_removed += c0
            front += 1
        # -- store the event
        qb = type_to_buf[t] if t < type_to_buf.shape[0] else -1
        if qb >= 0:
            if btail[qb] == buf.shape[1]:
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
                cnt[pr, _BUF_INSERT] += 1
        # -- the roots, the caught-up instances listed for this event's type, the children
        n_start = n_inst
        live_start = live
        n_todo = 0
        if qb >= 0:
            if todo.shape[0] < n_inst:
                todo = np.empty(2 * n_inst, dtype=np.int64)
            prev = -1
            k = l_head[qb]
            while k >= 0:
                nx = ins[k, _I_NEXT]
                if ins[k, _I_ALIVE] != 0 and ins[k, _I_MIN] >= front:
                    todo[n_todo] = k
                    n_todo += 1
                    prev = k
                else:
                    if prev < 0:
                        l_head[qb] = nx
                    else:
                        ins[prev, _I_NEXT] = nx
                    if l_tail[qb] == k:
                        l_tail[qb] = prev
                k = nx
        seq = 0
        while True:  # growth loop
            grow = False
            need = 0
            while True:  # visit loop: rebinds no array
                from_list = False
                if seq < B:
                    k = seq
                elif seq < B + n_todo:
                    k = todo[seq - B]
                    from_list = True
                else:
                    k = n_start + (seq - B - n_todo)
                if k >= n_inst:
                    break
                seq += 1
                if ins[k, _I_ALIVE] == 0 or (k >= B and ins[k, _I_MIN] < front):
                    continue
                b = ins[k, _I_BR]
                d = ins[k, _I_DEPTH]
                u = br_order[b, d]
                bounded = sc_nhi[b, d] > 0
                root = k < B
                if from_list:
                    # caught up: the current event (of u's type) is the only candidate
                    if ins[k, _I_COV] < p:
                        ins[k, _I_COV] = p
                    if bounded:
                        hi = p
                        for j in range(sc_nhi[b, d]):
                            e = ins[k, _I_EV + sc_hi[b, d, j]] - 1
                            if e < hi:
                                hi = e
                        a = 0
                        z = 1 if p <= hi else 0
                    else:
                        a = 0
                        z = 1
                else:
                    if var_type[u] != t and ins[k, _I_COV] >= p:
                        if ins[k, _I_COV] < p + 1:
                            ins[k, _I_COV] = p + 1
                        continue
                    lo = -1
                    for j in range(sc_nlo[b, d]):
                        e = ins[k, _I_EV + sc_lo[b, d, j]]
                        if e > lo:
                            lo = e
                    hi = p
                    for j in range(sc_nhi[b, d]):
                        e = ins[k, _I_EV + sc_hi[b, d, j]] - 1
                        if e < hi:
                            hi = e
                    start = lo + 1
                    if ins[k, _I_COV] > start:
                        start = ins[k, _I_COV]
                    qu = var_buf[u]
                    a = 0
                    z = 0
                    if start <= hi:
                        if start >= p:
                            if t == var_type[u]:
                                a = btail[qu] - 1
                                z = btail[qu]
                        else:
                            a = _lower_bound_row(buf, qu, bhead[qu], btail[qu], start)
                            z = _lower_bound_row(buf, qu, a, btail[qu], hi + 1)
                need = z - a
                if need > 0:
                    if n_inst + need > icap or n_m + need > mcap:
                        seq -= 1  # visit k again after the growth: what ran so far is idempotent
                        grow = True
                        break
                    qu = var_buf[u]
                    imin = ins[k, _I_MIN]
                    imax = ins[k, _I_MAX]
                    # window: the failures are a prefix and a suffix of the sorted scope
                    # (the general kernel's check: mn / mx of the instance plus the candidate).
                    # A listed instance's only candidate is the current event p, and it passes:
                    # the instance is alive, so its first event is at or after ``front``, which
                    # the expiry above leaves inside the window of p (time: ts[p] - ts[front]
                    # <= window; count: p - front < window), and ts is non-decreasing.
                    wa = a
                    wz = z
                    if not from_list:
                        while wa < wz:
                            x = buf[qu, wa]
                            mn = x if (root or x < imin) else imin
                            mx = x if (root or x > imax) else imax
                            if win_kind == 1:
                                if not (mx - mn >= window):
                                    break
                            elif not (ts[mx] - ts[mn] > window):
                                break
                            wa += 1
                        while wz > wa:
                            x = buf[qu, wz - 1]
                            mn = x if (root or x < imin) else imin
                            mx = x if (root or x > imax) else imax
                            if win_kind == 1:
                                if not (mx - mn >= window):
                                    break
                            elif not (ts[mx] - ts[mn] > window):
                                break
                            wz -= 1
                    n_e = pe_n[b, d]
                    fast = pe_fast[b, d]
                    op0 = op1 = 0
                    cx0 = cx1 = 0
                    h0 = h1 = 0.0
                    if wz > wa:
                        for j in range(n_e):  # the taken events' operands, once per visit
                            hk = pe_hk[b, d, j]
                            if hk == H_CONST:
                                hv[j] = pe_f1[b, d, j]
                            elif hk == H_SCALED:
                                hv[j] = attrs[ins[k, _I_EV + pe_v[b, d, j]], pe_ce[b, d, j]] \
                                    * pe_f0[b, d, j] + pe_f1[b, d, j]
                            elif hk == H_ATTR:
                                hv[j] = attrs[ins[k, _I_EV + pe_v[b, d, j]], pe_ce[b, d, j]]
                        if fast:
                            if n_e > 0:
                                op0 = pe_op[b, d, 0]
                                cx0 = pe_cx[b, d, 0]
                                h0 = hv[0]
                            if n_e > 1:
                                op1 = pe_op[b, d, 1]
                                cx1 = pe_cx[b, d, 1]
                                h1 = hv[1]
                    last = d + 1 == br_len[b]
                    n_ex = sc_nex[b, d]
                    c_ex = 0   # taken events of u's group in the scope: not candidates
                    for bi in range(wa, wz):
                        x = p if from_list else buf[qu, bi]
                        if n_ex > 0:
                            taken = False
                            for j in range(n_ex):
                                if ins[k, _I_EV + sc_ex[b, d, j]] == x:
                                    taken = True
                                    break
                            if taken:
                                c_ex += 1
                                continue
                        if fast:  # at most two entries, each attrs[x, cx] OP hoisted
                            if n_e > 0:
                                c_pred += 1
                                if not compare(op0, attrs[x, cx0], h0):
                                    continue
                                if n_e > 1:
                                    c_pred += 1
                                    if not compare(op1, attrs[x, cx1], h1):
                                        continue
                        else:
                            good = True
                            for j in range(n_e):  # the entries in order, up to the first failure
                                code = pe_code[b, d, j]
                                op = pe_op[b, d, j]
                                c_pred += 1
                                if code == E_GENERAL:
                                    jv = pe_v[b, d, j]
                                    ev = x if jv < 0 else ins[k, _I_EV + jv]
                                    e1 = x if pe_s1[b, d, j] == 1 else ev
                                    e2 = x if pe_s2[b, d, j] == 1 else ev
                                    good = eval_pred(pred_i, pred_f, pe_pr[b, d, j], attrs, e1,
                                                     e2)
                                else:  # the operands of the comparison, then one compare
                                    xv = attrs[x, pe_cx[b, d, j]]
                                    if code == E_XH:
                                        lhs = xv
                                        rhs = hv[j]
                                    elif code == E_CMP_EX:
                                        lhs = hv[j]
                                        rhs = xv * pe_f0[b, d, j] + pe_f1[b, d, j]
                                    elif code == E_ABS_XE:
                                        lhs = abs(xv - hv[j])
                                        rhs = pe_f1[b, d, j]
                                    else:
                                        lhs = abs(hv[j] - xv)
                                        rhs = pe_f1[b, d, j]
                                    good = compare(op, lhs, rhs)
                                if not good:
                                    break
                            if not good:
                                continue
                        c_created += 1
                        mn = x if (root or x < imin) else imin
                        mx = x if (root or x > imax) else imax
                        if last:
                            if n_m >= max_matches:
                                c_edge += bi - a + 1 - c_ex
                                _flush(cnt, pr, c_pred, c_edge, c_created, c_removed, c_emit)
                                return cnt, m_ev[:0].copy(), m_det[:0].copy(), \
                                    peak_transient, 0, ST_MAX_MATCHES, p
                            for v in range(V):
                                m_ev[n_m, v] = -1
                            for j in range(d):
                                m_ev[n_m, br_order[b, j]] = ins[k, _I_EV + j]
                            m_ev[n_m, u] = x
                            m_det[n_m] = p
                            n_m += 1
                            c_emit += 1
                            c_removed += 1
                            continue
                        if live >= max_pm:
                            c_edge += bi - a + 1 - c_ex
                            _flush(cnt, pr, c_pred, c_edge, c_created, c_removed, c_emit)
                            return cnt, m_ev[:0].copy(), m_det[:0].copy(), peak_transient, \
                                0, ST_MAX_PM, p
                        c = n_inst
                        n_inst += 1
                        for j in range(d):
                            ins[c, _I_EV + j] = ins[k, _I_EV + j]
                        ins[c, _I_EV + d] = x
                        # the coverage of the child's next variable: its parent's, which no
                        # instance of the chain moved (each moves only the one it waits for)
                        ins[c, _I_COV] = 0
                        ins[c, _I_BR] = b
                        ins[c, _I_DEPTH] = d + 1
                        ins[c, _I_MIN] = mn
                        ins[c, _I_MAX] = mx
                        ins[c, _I_ALIVE] = 1
                        min_cnt[mn] += 1
                        live += 1
                        if live > peak_transient:
                            peak_transient = live
                    c_edge += z - a - c_ex
                if ins[k, _I_COV] < p + 1:
                    ins[k, _I_COV] = p + 1
                if bounded and not root:
                    ins[k, _I_ALIVE] = 0
                    min_cnt[ins[k, _I_MIN]] -= 1
                    live -= 1
                    c_removed += 1
            if not grow:
                break
            if n_inst + need > icap:
                icap = max(2 * icap, n_inst + need)
                ins = grow_rows(ins, icap)
            if n_m + need > mcap:
                mcap = max(2 * mcap, n_m + need)
                m_ev = grow_rows(m_ev, mcap)
                m_det = grow_1d(m_det, mcap)
        _flush(cnt, pr, c_pred, c_edge, c_created, c_removed, c_emit)
        cnt[pr, _INSTANCE_WORK] += B + live_start + (n_inst - n_start)
        if qb >= 0 and not buf_stored[qb]:
            btail[qb] -= 1
        # -- compaction of dead instances
        enlist_from = n_start
        if n_inst - B - live > live:
            w = B
            for r in range(B, n_inst):
                if ins[r, _I_ALIVE] != 0 and ins[r, _I_MIN] >= front:
                    if w != r:
                        for j in range(_I_EV + M):
                            ins[w, j] = ins[r, j]
                    w += 1
            for r in range(w, n_inst):
                ins[r, _I_ALIVE] = 0
            n_inst = w
            for q in range(l_head.shape[0]):
                l_head[q] = -1
                l_tail[q] = -1
            enlist_from = B
        for c in range(enlist_from, n_inst):
            if ins[c, _I_ALIVE] != 0:
                q = var_buf[br_order[ins[c, _I_BR], ins[c, _I_DEPTH]]]
                ins[c, _I_NEXT] = -1
                if l_tail[q] < 0:
                    l_head[q] = c
                else:
                    ins[l_tail[q], _I_NEXT] = c
                l_tail[q] = c
        cnt[pr, _LIVE_PM] = live
        tot = 0
        for q in range(n_buf):
            if buf_stored[q]:
                tot += btail[q] - bhead[q]
        cnt[pr, _BUFFERED] = tot
        if not per_event:
            for j in range(_NC):
                acc[j] += cnt[0, j]
                cnt[0, j] = 0
            while oi < n_off and offsets[oi] <= p + 1:
                for j in range(_NC):
                    sums[oi, j] = acc[j]
                oi += 1
    if not per_event:
        while oi < n_off:
            for j in range(_NC):
                sums[oi, j] = acc[j]
            oi += 1
        return sums, m_ev[:n_m].copy(), m_det[:n_m].copy(), peak_transient, 0, ST_OK, -1
    return cnt, m_ev[:n_m].copy(), m_det[:n_m].copy(), peak_transient, 0, ST_OK, -1


@leaf_njit
def _flush(cnt, pr, c_pred, c_edge, c_created, c_removed, c_emit):
    """Adds an event's counters kept in locals to its row of the matrix."""
    cnt[pr, _PRED_EVAL] += c_pred
    cnt[pr, _EDGE_EVAL] += c_edge
    cnt[pr, _PM_CREATED] += c_created
    cnt[pr, _PM_REMOVED] += c_removed
    cnt[pr, _MATCH_EMIT] += c_emit

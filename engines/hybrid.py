"""APAM hybrid eager-lazy evaluator (Yi, Lee, Whang, CIKM'16, sections 3 and 5).

A *plan* splits the variables of a simple sequence ``SEQ(x_1, ..., x_l)`` into

* the **eager evaluation group** (EEG), evaluated on arrival **in query order**: an event of
  the EEG's j-th variable extends every stored partial instance of the EEG's first j-1
  variables that is still inside the window (the eager evaluator of APAM's Figure 1); the
  instances of the whole EEG form the *eager evaluation result buffer* (EERB);
* the **lazy evaluation group** (LEG), whose events are only appended to per-variable
  *deferred event buffers* (DEB).

At each *final event* (an event qualifying for ``x_l``) the **merger** first applies the
window relative to the final event (expired EERB entries and deferred events are dropped),
then joins, left-deep, ``EERB ⋈ DEB_{L1} ⋈ DEB_{L2} ⋈ ...`` in the plan's LEG order (the
predetermined join order; the planner puts the most selective first) with the join conditions
of the paper's Definition 4: the parameterized predicates of the LEG and the sequence
predicates between a LEG variable and the variables already bound.  Sequence predicates implied
by transitivity are not evaluated: a LEG event is checked only against its nearest bound
neighbours in query order (one or two comparisons).  The final variable's deferred buffer
contributes only the current final event (matches with earlier final events were reported at
their own merges), so a final event's merge constructs exactly the matches it completes.

Plan notation: ``"b,c/a,d"`` = EEG {b, c} (evaluated in query order whatever the order written)
/ LEG joined in the order a, d.  ``"/a,b,c"`` is all-lazy (ZStream-like), ``"a,b,c/"`` all-eager
(SASE-like).  Single-letter variable names may be written without commas (``"bc/ad"``).
With ``plan=None`` the plan optimizer (``engines.apam_planner``) chooses among the l+1
candidate plans from statistics of the first ``warmup`` events; the choice and the predicted
``E[QWT]``, ``E[ST_FE]``, ``E[L]`` of every candidate are returned in ``EngineResult.info``.

Supported: one flat SEQ of plain events, any predicates ``eval_pred`` handles, time and count
windows (or none), skip-till-any-match — what APAM supports.  Kleene closure, negation,
AND/OR and skip-till-next-match are refused with a ``CepsimInputError``: use the ``eager``
engine for those.

Counters (``engines.counters``), mapped to the paper's unit costs.  The two kinds of join
condition of Eq. (9) are counted apart so that a cost profile prices them separately:

* ``PRED_EVAL``  — *parameterized* predicate evaluations as the paper's cost model counts them
  (T_PE): unary filters; eager: the parameterized predicates towards the EEG prefix for every
  stored instance tried (Eq. 6's first term); merge: the parameterized predicates of the LEG
  variable towards the bound variables for every probed pair (Eq. 9's ``NP_{Ei,Ej}`` term);
* ``JOIN_PROBE`` — *sequence-predicate* checks of probed merge pairs (Eq. 9's ``NP_{Ei;Ej}``
  term): per probed pair, one per nearest bound neighbour in query order (1 or 2; the other
  sequence predicates are implied by transitivity).  Its unit cost is the cost of one sequence
  (timestamp/position order) check; pricing it at T_PE is Eq. (9) read literally.  Eager
  evaluation needs no sequence check (arrival order implies it), as in Eq. (6).  The window is
  checked per buffered entry before merging (expired entries dropped), not per pair, and is
  free, as in the paper's model;
* ``EDGE_EVAL`` — eager extension attempts (stored EEG instances tried by an arriving event);
  informational, not a paper cost term;
* ``PM_CREATED`` — partial results constructed (eager partial instances and intermediate join
  results) and ``MATCH_EMIT`` — full pattern instances constructed: together the paper's result
  constructions (T_RC); APAM's experiments price both at T_RC;
* ``BUF_INSERT`` — LEG events deferred (T_BI; a final event of a lazy final type counts one,
  as in Eq. 8);
* ``PM_REMOVED`` — eager partial instances dropped as expired;
* gauges ``LIVE_PM`` (stored eager partial instances) and ``BUFFERED`` (deferred events).

The kernel itself short-circuits: pairs that fail a sequence predicate are skipped by binary
search over the position-sorted deferred buffer, and a join step whose only condition is one
attribute comparison is evaluated inline.  The matches are the same; the charge is Eq. (6)/(9)'s
(every pair of the cross product within the window is charged its conditions).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines import counters as C
from engines.compile import (KIND_KLEENE, PI_V1, PI_V2,
                             PK_CMP, PK_REMOTE, POLICY_ANY, WIN_COUNT, Program)
from engines.errors import CapacityError, CepsimInputError
from engines.matches import MatchSet
from engines.predicates import compare, eval_pred

DEFAULT_MAX_ROWS = 50_000_000
_NC = C.N_COUNTERS
# the kernel indexes counter columns by number; keep them in step with engines.counters
assert (C.PRED_EVAL, C.EDGE_EVAL, C.PM_CREATED, C.PM_REMOVED, C.BUF_INSERT, C.MATCH_EMIT,
        C.JOIN_PROBE, C.LIVE_PM, C.BUFFERED) == (0, 1, 2, 3, 4, 5, 6, 10, 11)


# ----------------------------------------------------------------------------- plans
def _split_names(text: str, names: tuple[str, ...], where: str) -> list[str]:
    text = text.strip()
    if not text:
        return []
    if "," in text:
        parts = [p.strip() for p in text.split(",")]
    elif text in names:
        parts = [text]
    elif all(ch in names for ch in text):
        parts = list(text)
    else:
        parts = [text]
    for p in parts:
        if p not in names:
            raise CepsimInputError(f"{where}: unknown variable {p!r}; the pattern's variables are "
                                   f"{list(names)} (write e.g. 'b,c/a,d')")
    return parts


def parse_plan(plan: str, program: Program) -> tuple[list[int], list[int]]:
    """``"b,c/a,d"`` -> (EEG slots in query order, LEG slots in join order)."""
    where = f"hybrid plan {plan!r}"
    if not isinstance(plan, str) or plan.count("/") != 1:
        raise CepsimInputError(f"{where}: a plan is 'EEG/LEG' with exactly one '/', e.g. "
                               f"'b,c/a,d' (all-eager 'a,b/', all-lazy '/a,b')")
    branch = program.branches[0]
    slots = {program.var_names[v]: s for s, v in enumerate(branch.pos_vars)}
    names = tuple(slots)
    left, right = plan.split("/")
    eeg = _split_names(left, names, where)
    leg = _split_names(right, names, where)
    allv = eeg + leg
    if len(set(allv)) != len(allv) or set(allv) != set(names):
        raise CepsimInputError(f"{where}: the plan must name every variable {list(names)} exactly "
                               f"once across EEG and LEG")
    return sorted(slots[v] for v in eeg), [slots[v] for v in leg]


def format_plan(eeg_slots, leg_slots, program: Program) -> str:
    """Inverse of ``parse_plan`` (EEG in query order)."""
    branch = program.branches[0]
    nm = [program.var_names[v] for v in branch.pos_vars]
    return ",".join(nm[s] for s in sorted(eeg_slots)) + "/" + ",".join(nm[s] for s in leg_slots)


def check_supported(program: Program) -> None:
    """Refuse what APAM does not support, naming the eager engine as the alternative."""
    why = None
    if len(program.branches) != 1:
        why = "AND/OR (several flat alternatives)"
    elif len(program.branches[0].neg_vars):
        why = "negation"
    elif np.any(program.var_kind == KIND_KLEENE):
        why = "Kleene closure"
    elif program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif len(program.pred_i) and np.any(program.pred_i[:, 0] == PK_REMOTE):
        why = "REMOTE[...] predicates"
    if why:
        raise CepsimInputError(f"the hybrid (APAM) engine evaluates simple sequences with "
                               f"predicates and a window under skip-till-any-match only; this "
                               f"pattern uses {why}: run it with the 'eager' engine instead")


# ----------------------------------------------------------------------------- tables
def _tables(program: Program, eeg: list[int], leg: list[int]):
    """Numeric tables the kernel reads (slots are positions in the branch's sequence)."""
    branch = program.branches[0]
    L = len(branch.pos_vars)
    var_slot = np.full(program.n_vars, -1, dtype=np.int32)
    for s, v in enumerate(branch.pos_vars):
        var_slot[v] = s
    slot_type = np.array([program.var_type[v] for v in branch.pos_vars], dtype=np.int32)
    unary: list[list[int]] = [[] for _ in range(L)]
    binary: list[tuple[int, int, int]] = []
    for p in branch.pred_ids:
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        if v2 < 0 or v2 == v1:
            unary[var_slot[v1]].append(int(p))
        else:
            binary.append((int(p), int(var_slot[v1]), int(var_slot[v2])))

    def csr(groups):
        ptr = np.zeros(len(groups) + 1, dtype=np.int32)
        for i, g in enumerate(groups):
            ptr[i + 1] = ptr[i] + len(g)
        ids = np.array([x for g in groups for x in g], dtype=np.int32)
        return ptr, ids

    un_ptr, un_ids = csr(unary)
    # eager step j binds eeg[j]: predicates between eeg[j] and eeg[<j]
    eg = []
    for j, s in enumerate(eeg):
        before = set(eeg[:j])
        eg.append([p for p, a, b in binary if (a == s and b in before) or (b == s and a in before)])
    eg_ptr, eg_ids = csr(eg)
    # merge step t binds leg[t]: predicates with the bound set, nearest bound neighbours
    lj, prev, nxt = [], [], []
    bound = set(eeg)
    for s in leg:
        lj.append([p for p, a, b in binary if (a == s and b in bound) or (b == s and a in bound)])
        lower = [b for b in bound if b < s]
        upper = [b for b in bound if b > s]
        prev.append(max(lower) if lower else -1)
        nxt.append(min(upper) if upper else -1)
        bound.add(s)
    lj_ptr, lj_ids = csr(lj)
    pred_slots = np.zeros((max(len(program.pred_i), 1), 2), dtype=np.int32)
    for p in range(len(program.pred_i)):
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        pred_slots[p, 0] = var_slot[v1]
        pred_slots[p, 1] = var_slot[v2] if v2 >= 0 else var_slot[v1]
    return dict(slot_type=slot_type, un_ptr=un_ptr, un_ids=un_ids, eg_ptr=eg_ptr, eg_ids=eg_ids,
                lj_ptr=lj_ptr, lj_ids=lj_ids, lj_prev=np.array(prev, dtype=np.int32),
                lj_next=np.array(nxt, dtype=np.int32), pred_slots=pred_slots)


# ----------------------------------------------------------------------------- kernel
@njit(cache=True)
def _in_window(kind, window, ts, first, cur):
    if kind == WIN_COUNT:
        return cur - first < window
    return ts[cur] - ts[first] <= window


@njit(cache=True)
def _expire_level(lv, lv_n, src, first_slot, win_kind, window, ts, i, cnt):
    """Drop the eager results of level ``src`` whose first event left the window of event ``i``
    (compacting in place, order kept); counts them as removed and returns how many."""
    w = 0
    n = lv_n[src]
    for r in range(n):
        if not _in_window(win_kind, window, ts, lv[src, r, first_slot], i):
            continue
        if w != r:
            lv[src, w, :] = lv[src, r, :]
        w += 1
    lv_n[src] = w
    cnt[i, 3] += n - w
    return n - w


@njit(cache=True)
def _grow2(a, need):
    cap = a.shape[0]
    while cap < need:
        cap *= 2
    if cap == a.shape[0]:
        return a
    b = np.full((cap, a.shape[1]), -1, dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow3(a, need):
    cap = a.shape[1]
    while cap < need:
        cap *= 2
    if cap == a.shape[1]:
        return a
    b = np.full((a.shape[0], cap, a.shape[2]), -1, dtype=a.dtype)
    b[:, :a.shape[1]] = a
    return b


@njit(cache=True)
def _qualifies(slot, i, types, attrs, slot_type, un_ptr, un_ids, pred_i, pred_f, cnt):
    """Event i has the slot's type and passes its unary predicates (all evaluated)."""
    if types[i] != slot_type[slot]:
        return False
    ok = True
    for q in range(un_ptr[slot], un_ptr[slot + 1]):
        cnt[i, 0] += 1
        if not eval_pred(pred_i, pred_f, un_ids[q], attrs, i, i):
            ok = False
    return ok


@njit(cache=True)
def _hybrid_kernel(types, ts, attrs, pred_i, pred_f, pred_slots, slot_type, un_ptr, un_ids,
                   eeg, eg_ptr, eg_ids, leg, lj_ptr, lj_ids, lj_prev, lj_next,
                   win_kind, window, max_rows):
    n = types.shape[0]
    L = slot_type.shape[0]
    k = eeg.shape[0]
    m = leg.shape[0]
    final = L - 1
    final_eager = k > 0 and eeg[k - 1] == final
    cnt = np.zeros((max(n, 1), _NC), dtype=np.int64)
    # eager levels: lv[j] holds instances binding eeg[0..j]
    lv = np.full((max(k, 1), 64, L), -1, dtype=np.int64)
    lv_n = np.zeros(max(k, 1), dtype=np.int64)
    # deferred buffers per LEG step
    db = np.full((max(m, 1), 64), -1, dtype=np.int64)
    db_head = np.zeros(max(m, 1), dtype=np.int64)
    db_n = np.zeros(max(m, 1), dtype=np.int64)
    # merge scratch and output
    cur = np.full((64, L), -1, dtype=np.int64)
    nxt = np.full((64, L), -1, dtype=np.int64)
    newf = np.full((64, L), -1, dtype=np.int64)
    out = np.full((64, L), -1, dtype=np.int64)
    out_det = np.zeros(64, dtype=np.int64)
    gbuf = np.empty(64, dtype=np.float64)
    n_out = 0
    live = 0
    buffered = 0
    for i in range(n):
        t = types[i]
        # 1. expire deferred events (no later final event can use them)
        for b in range(m):
            while db_head[b] < db_n[b] and not _in_window(win_kind, window, ts, db[b, db_head[b]], i):
                db_head[b] += 1
                buffered -= 1
        # 2. eager evaluation, highest EEG step first (an event never extends itself)
        n_newf = 0
        for j in range(k - 1, -1, -1):
            s = eeg[j]
            if slot_type[s] != t:
                continue
            if not _qualifies(s, i, types, attrs, slot_type, un_ptr, un_ids, pred_i, pred_f, cnt):
                continue
            to_final = j == k - 1 and final_eager
            if j == 0:
                if to_final:
                    newf = _grow2(newf, n_newf + 1)
                    newf[n_newf, :] = -1
                    newf[n_newf, s] = i
                    n_newf += 1
                else:
                    lv = _grow3(lv, lv_n[0] + 1)
                    lv[0, lv_n[0], :] = -1
                    lv[0, lv_n[0], s] = i
                    lv_n[0] += 1
                    live += 1
                if to_final and m == 0:
                    cnt[i, 5] += 1
                else:
                    cnt[i, 2] += 1
                continue
            src = j - 1
            live -= _expire_level(lv, lv_n, src, eeg[0], win_kind, window, ts, i, cnt)
            for r in range(lv_n[src]):
                cnt[i, 1] += 1
                cnt[i, 0] += eg_ptr[j + 1] - eg_ptr[j]
                lv[src, r, s] = i
                passed = True
                for qq in range(eg_ptr[j], eg_ptr[j + 1]):
                    pp = eg_ids[qq]
                    if not eval_pred(pred_i, pred_f, pp, attrs, lv[src, r, pred_slots[pp, 0]],
                                     lv[src, r, pred_slots[pp, 1]]):
                        passed = False
                        break
                lv[src, r, s] = -1
                if not passed:
                    continue
                if to_final:
                    newf = _grow2(newf, n_newf + 1)
                    newf[n_newf, :] = lv[src, r, :]
                    newf[n_newf, s] = i
                    n_newf += 1
                    if m == 0:
                        cnt[i, 5] += 1
                    else:
                        cnt[i, 2] += 1
                else:
                    if lv_n[j] + 1 > lv.shape[1]:
                        if lv.shape[1] * 2 > max_rows:
                            return cnt, out[:0], out_det[:0], False
                        lv = _grow3(lv, lv_n[j] + 1)
                    lv[j, lv_n[j], :] = lv[src, r, :]
                    lv[j, lv_n[j], s] = i
                    lv_n[j] += 1
                    live += 1
                    cnt[i, 2] += 1
        # 3. is this a final event?
        is_final = False
        if final_eager:
            is_final = n_newf > 0
        else:
            # the final variable is the LEG step with slot == final
            for tt in range(m):
                if leg[tt] == final:
                    if _qualifies(final, i, types, attrs, slot_type, un_ptr, un_ids, pred_i,
                                  pred_f, cnt):
                        is_final = True
                        cnt[i, 4] += 1
        # 4. merge
        if is_final and m > 0:
            n_cur = 0
            t0 = 0
            if final_eager:
                cur = _grow2(cur, n_newf)
                for r in range(n_newf):
                    cur[r, :] = newf[r, :]
                n_cur = n_newf
            elif k > 0:
                src = k - 1
                live -= _expire_level(lv, lv_n, src, eeg[0], win_kind, window, ts, i, cnt)
                w = lv_n[src]
                cur = _grow2(cur, w)
                for r in range(w):
                    cur[r, :] = lv[src, r, :]
                n_cur = w
            else:
                s = leg[0]
                t0 = 1
                if s == final:
                    cur[0, :] = -1
                    cur[0, s] = i
                    n_cur = 1
                else:
                    cur = _grow2(cur, db_n[0] - db_head[0])
                    for q in range(db_head[0], db_n[0]):
                        cur[n_cur, :] = -1
                        cur[n_cur, s] = db[0, q]
                        n_cur += 1
                if m == 1:
                    for r in range(n_cur):
                        out = _grow2(out, n_out + 1)
                        if out_det.shape[0] < out.shape[0]:
                            od = np.zeros(out.shape[0], dtype=np.int64)
                            od[:n_out] = out_det[:n_out]
                            out_det = od
                        out[n_out, :] = cur[r, :]
                        out_det[n_out] = i
                        n_out += 1
                        cnt[i, 5] += 1
            for tt in range(t0, m):
                if n_cur == 0:
                    break
                s = leg[tt]
                lo = db_head[tt]
                hi = db_n[tt]
                if s == final:
                    lo = 0
                    hi = 1
                n_nxt = 0
                last_step = tt == m - 1
                pv = lj_prev[tt]
                nv = lj_next[tt]
                nseq = (1 if pv >= 0 else 0) + (1 if nv >= 0 else 0)
                npar = lj_ptr[tt + 1] - lj_ptr[tt]
                cnt[i, 6] += n_cur * (hi - lo) * nseq
                cnt[i, 0] += n_cur * (hi - lo) * npar
                # fast path: the step's only condition is one attribute comparison
                # ``attrs[e1, c1] OP attrs[e2, c2] * f0 + f1`` between s and one bound slot
                fast = False
                f_op = 0
                f_side = 0
                f_bound = -1
                f_cs = 0
                f_cb = 0
                f_mul = 1.0
                f_add = 0.0
                if npar == 1:
                    pp = lj_ids[lj_ptr[tt]]
                    if pred_i[pp, 0] == PK_CMP and pred_i[pp, 4] >= 0:
                        fast = True
                        f_op = pred_i[pp, 1]
                        f_mul = pred_f[pp, 0]
                        f_add = pred_f[pp, 1]
                        if pred_slots[pp, 0] == s:
                            f_side = 0          # s on the left: attrs[y, c1] OP rhs(bound)
                            f_bound = pred_slots[pp, 1]
                            f_cs = pred_i[pp, 3]
                            f_cb = pred_i[pp, 5]
                        else:
                            f_side = 1          # s on the right: lhs(bound) OP attrs[y, c2]...
                            f_bound = pred_slots[pp, 0]
                            f_cs = pred_i[pp, 5]
                            f_cb = pred_i[pp, 3]
                    if fast and s != final:
                        # gather the deferred events' compared values once per merge step
                        if gbuf.shape[0] < hi - lo:
                            gbuf = np.empty(2 * (hi - lo), dtype=np.float64)
                        for q in range(lo, hi):
                            v = attrs[db[tt, q], f_cs]
                            gbuf[q - lo] = v if f_side == 0 else v * f_mul + f_add
                for r in range(n_cur):
                    # every pair is charged all its join conditions (Eq. 9); the pairs that
                    # fail a sequence predicate are skipped by binary search (same result)
                    qa = lo
                    qb = hi
                    if s != final:
                        if pv >= 0:
                            qa = lo + np.searchsorted(db[tt, lo:hi], cur[r, pv], side="right")
                        if nv >= 0:
                            qb = lo + np.searchsorted(db[tt, lo:hi], cur[r, nv], side="left")
                    else:
                        if pv >= 0 and not cur[r, pv] < i:
                            qb = qa
                    fixed = 0.0
                    if fast:
                        fixed = attrs[cur[r, f_bound], f_cb]
                        if f_side == 0:
                            fixed = fixed * f_mul + f_add
                    for q in range(qa, qb):
                        y = i if s == final else db[tt, q]
                        if fast:
                            if s != final:
                                v = gbuf[q - lo]
                            else:
                                v = attrs[y, f_cs]
                                if f_side == 1:
                                    v = v * f_mul + f_add
                            if f_side == 0:
                                ok = compare(f_op, v, fixed)
                            else:
                                ok = compare(f_op, fixed, v)
                            if ok:
                                cur[r, s] = y
                        else:
                            cur[r, s] = y
                            ok = True
                            for qq in range(lj_ptr[tt], lj_ptr[tt + 1]):
                                pp = lj_ids[qq]
                                if not eval_pred(pred_i, pred_f, pp, attrs,
                                                 cur[r, pred_slots[pp, 0]],
                                                 cur[r, pred_slots[pp, 1]]):
                                    ok = False
                                    break
                        if ok:
                            if last_step:
                                out = _grow2(out, n_out + 1)
                                if out_det.shape[0] < out.shape[0]:
                                    od = np.zeros(out.shape[0], dtype=np.int64)
                                    od[:n_out] = out_det[:n_out]
                                    out_det = od
                                out[n_out, :] = cur[r, :]
                                out_det[n_out] = i
                                n_out += 1
                                cnt[i, 5] += 1
                            else:
                                if n_nxt + 1 > max_rows:
                                    return cnt, out[:0], out_det[:0], False
                                nxt = _grow2(nxt, n_nxt + 1)
                                nxt[n_nxt, :] = cur[r, :]
                                n_nxt += 1
                                cnt[i, 2] += 1
                    cur[r, s] = -1
                tmp = cur
                cur = nxt
                nxt = tmp
                n_cur = n_nxt
        elif is_final and m == 0:
            for r in range(n_newf):
                out = _grow2(out, n_out + 1)
                if out_det.shape[0] < out.shape[0]:
                    od = np.zeros(out.shape[0], dtype=np.int64)
                    od[:n_out] = out_det[:n_out]
                    out_det = od
                out[n_out, :] = newf[r, :]
                out_det[n_out] = i
                n_out += 1
        # 5. defer LEG events (after the merge: a buffer only holds earlier events)
        for tt in range(m):
            s = leg[tt]
            if s == final or slot_type[s] != t:
                continue
            if not _qualifies(s, i, types, attrs, slot_type, un_ptr, un_ids, pred_i, pred_f, cnt):
                continue
            if db_n[tt] + 1 > db.shape[1]:
                # compact every buffer, then grow if still needed
                for b in range(m):
                    h = db_head[b]
                    cntb = db_n[b] - h
                    for q in range(cntb):
                        db[b, q] = db[b, h + q]
                    db_head[b] = 0
                    db_n[b] = cntb
                if db_n[tt] + 1 > db.shape[1]:
                    nd = np.full((db.shape[0], db.shape[1] * 2), -1, dtype=np.int64)
                    nd[:, :db.shape[1]] = db
                    db = nd
            db[tt, db_n[tt]] = i
            db_n[tt] += 1
            buffered += 1
            cnt[i, 4] += 1
        cnt[i, 10] = live
        cnt[i, 11] = buffered
    return cnt, out[:n_out], out_det[:n_out], True


# ----------------------------------------------------------------------------- entry point
def run_hybrid(program: Program, stream, plan: str | None = None, warmup: int | None = None,
               arrival_rate: float | None = None, unit_costs: dict | None = None,
               max_partial_matches: int = DEFAULT_MAX_ROWS, **opts):
    """Run APAM with ``plan`` (``"eeg/leg"``) or, when ``plan`` is None, the optimizer's plan.

    ``warmup`` (events, default half the stream), ``arrival_rate`` (events/s used by the
    M/G/1 model; default estimated from the warm-up timestamps) and ``unit_costs`` (dict with
    ``t_pe``, ``t_rc``, ``t_bi``, ``base`` and optionally ``t_seq`` in seconds) feed the optimizer
    only.
    Returns ``EngineResult`` with ``info`` = plan, EEG/LEG and (optimizer) predictions.
    """
    from engines.registry import EngineResult

    unknown = set(opts) - {"remote_ok"}
    if unknown:
        raise CepsimInputError(f"hybrid engine: unknown option(s) {sorted(unknown)}; options are "
                               "plan, warmup, arrival_rate, unit_costs, max_partial_matches")
    check_supported(program)
    info: dict = {}
    if plan is None:
        from engines.apam_planner import choose_plan

        choice = choose_plan(program, stream, warmup=warmup, arrival_rate=arrival_rate,
                             unit_costs=unit_costs)
        plan = choice["plan"]
        info.update(choice)
    eeg, leg = parse_plan(plan, program)
    tb = _tables(program, eeg, leg)
    info["plan"] = format_plan(eeg, leg, program)
    info["eeg"] = [program.var_names[program.branches[0].pos_vars[s]] for s in eeg]
    info["leg"] = [program.var_names[program.branches[0].pos_vars[s]] for s in leg]
    n = len(stream)
    window = float(program.window)
    cnt, out, det, ok = _hybrid_kernel(
        stream.types, stream.ts, stream.attrs, program.pred_i, program.pred_f, tb["pred_slots"],
        tb["slot_type"], tb["un_ptr"], tb["un_ids"], np.array(eeg, dtype=np.int32),
        tb["eg_ptr"], tb["eg_ids"], np.array(leg, dtype=np.int32), tb["lj_ptr"], tb["lj_ids"],
        tb["lj_prev"], tb["lj_next"], int(program.window_kind), window, int(max_partial_matches))
    if not ok:
        raise CapacityError(f"hybrid engine: more than {max_partial_matches} partial results "
                            f"with plan {plan!r}; raise max_partial_matches or narrow the window")
    branch = program.branches[0]
    pos_vars = program.positive_vars
    slot_of = {int(v): s for s, v in enumerate(branch.pos_vars)}
    cols = [slot_of[v] for v in pos_vars]
    pos = np.ascontiguousarray(out[:, cols]) if len(out) else np.zeros((0, len(cols)), np.int64)
    z = np.zeros_like(pos)
    ms = MatchSet(tuple(program.var_names[v] for v in pos_vars), tuple(False for _ in pos_vars),
                  pos.astype(np.int64), z, z.copy(), np.zeros(0, np.int64),
                  np.asarray(det, dtype=np.int64))
    counters = cnt[:n] if n else C.new_counters(0)
    return EngineResult(matches=ms, counters=np.ascontiguousarray(counters), info=info)

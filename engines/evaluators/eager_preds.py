"""Predicate and negation checks on NFA instance rows, shared by the eager NFA
(``engines.evaluators.eager``) and the steppable one (``engines.evaluators.stepper``).

A *row* ``r`` of a binding table ``tab`` (the instance arena or the candidate buffer) holds, per
slot, an event index (plain slot), the tail node of an event list (Kleene slot, see
``engines.evaluators.nfa_buffers``) or -1 (unbound).  Predicate lists are CSR rows of
(predicate, role, other slot); see ``engines.evaluators.eager_tables``.  The stepper has no
Kleene slots: it passes an all-False ``el_kleene`` and empty node arrays.

Speed: a call from one compiled function to another that takes arrays pays an atomic
reference-count increment and decrement per array argument, so the per-predicate work here is
the scalar-only ``pred_holds`` on attribute values loaded by the caller (``eval_pred``'s
arithmetic for comparison and distance predicates; correlation predicates, rare and costly in
themselves, still call ``eval_pred``).  The results are ``eval_pred``'s bit for bit.
"""
from __future__ import annotations

import numpy as np

from engines.leaf_jit import leaf_njit
from engines.compile import PI_C1, PI_C2, PI_KIND, PI_OP, PI_V2, PK_ABS, PK_CMP, PK_CORR
from engines.evaluators.eager_tables import ROLE_SECOND, ROLE_SELF
from engines.evaluators.nfa_buffers import node_first, pool_remove_at
from engines.predicates import compare, eval_pred


@leaf_njit
def pred_holds(kind, op, has2, x1, x2, f0, f1):
    """``eval_pred`` for PK_CMP / PK_ABS on loaded values: ``x1`` = first variable's attribute,
    ``x2`` = second's (ignored when ``has2`` is False: comparison with a constant)."""
    if kind == PK_CMP:
        if not has2:
            return compare(op, x1, f1)
        return compare(op, x1, x2 * f0 + f1)
    if kind == PK_ABS:
        return compare(op, abs(x1 - x2), f1)
    return False


@leaf_njit
def preds_hold(lst_start, lst_pred, lst_role, lst_other, q, e, tab, r, el_kleene, nev, npar,
               pred_i, pred_f, attrs):
    """All predicates of list ``q`` (a CSR row) hold for event ``e`` in its role against row
    ``r`` of ``tab`` (against every event of a Kleene slot, newest first); (holds,
    n_evaluations), stopping at the first evaluation that fails."""
    n = 0
    for k in range(lst_start[q], lst_start[q + 1]):
        p = lst_pred[k]
        role = lst_role[k]
        o = lst_other[k]
        nd = -1                      # next node of a Kleene slot's event list (-1: none)
        if role == ROLE_SELF:
            x = np.int64(e)
        elif el_kleene[o]:
            nd = tab[r, o]
            if nd < 0:
                continue             # an empty list: nothing to evaluate
            x = np.int64(nev[nd])
            nd = npar[nd]
        else:
            x = np.int64(tab[r, o])
        kind = pred_i[p, PI_KIND]
        has2 = pred_i[p, PI_V2] >= 0
        while True:
            e1 = e
            e2 = x
            if role == ROLE_SECOND:
                e1 = x
                e2 = e
            n += 1
            if kind == PK_CORR:
                ok = eval_pred(pred_i, pred_f, p, attrs, e1, e2)
            else:
                x2 = attrs[e2, pred_i[p, PI_C2]] if has2 else 0.0
                ok = pred_holds(kind, pred_i[p, PI_OP], has2, attrs[e1, pred_i[p, PI_C1]], x2,
                                pred_f[p, 0], pred_f[p, 1])
            if not ok:
                return False, n
            if nd < 0:
                break
            x = np.int64(nev[nd])
            nd = npar[nd]
    return True, n


@leaf_njit
def neg_killed(q, lo_ex, hi_ex, tab, r, nbuf, nhead, ntail, types, ng_type, np_start, np_pred,
               np_role, np_other, el_kleene, nev, npar, pred_i, pred_f, attrs):
    """Does a buffered event of negation ``q`` strictly inside (lo_ex, hi_ex) satisfy all of the
    negation's predicates?  Returns (killed, n_edge_checks, n_pred_evals)."""
    a = nhead
    b = ntail
    while a < b:  # first buffered position > lo_ex
        mid = (a + b) // 2
        if nbuf[mid] <= lo_ex:
            a = mid + 1
        else:
            b = mid
    edges = 0
    preds = 0
    tq = ng_type[q]
    for k in range(a, ntail):
        c = nbuf[k]
        if c >= hi_ex:
            break
        if types[c] != tq:
            continue
        edges += 1
        ok, n = preds_hold(np_start, np_pred, np_role, np_other, q, c, tab, r, el_kleene, nev,
                           npar, pred_i, pred_f, attrs)
        preds += n
        if ok:
            return True, edges, preds
    return False, edges, preds


@leaf_njit
def trailing_kills(q, e, pidx, poff, pn, pend, free, nfree, tab, np_start, np_pred, np_role,
                   np_other, el_kleene, nev, npar, pred_i, pred_f, attrs):
    """Event ``e`` of trailing negation ``q``'s type kills the complete matches waiting in pool
    ``pend`` (rows of ``tab``) against which every predicate of ``q`` holds: they leave the
    pool and their rows go to the free stack.  Visits the pool downwards (swap-removal only
    moves visited members).  Returns (nfree, n_edge_checks, n_pred_evals)."""
    edges = 0
    preds = 0
    base = poff[pend]
    for k in range(pn[pend] - 1, -1, -1):
        i = pidx[base + k]
        edges += 1
        ok, ne = preds_hold(np_start, np_pred, np_role, np_other, q, e, tab, i, el_kleene, nev,
                            npar, pred_i, pred_f, attrs)
        preds += ne
        if ok:
            pool_remove_at(pidx, poff, pn, pend, k)
            free[nfree] = i
            nfree += 1
    return nfree, edges, preds


@leaf_njit
def neg_span(L, R, tab, r, el_group, g_lo, g_hi, el_kleene, nev, npar):
    """(last event of the group of slot ``L``, first bound event of the group of slot ``R``) in
    row ``r``: a middle negation must find no killer strictly between the two."""
    gl = el_group[L]
    lo_ex = np.int64(-1)
    for s in range(g_lo[gl], g_hi[gl]):
        x = np.int64(tab[r, s])
        v = np.int64(nev[x]) if el_kleene[s] else x
        if v > lo_ex:
            lo_ex = v
    gr = el_group[R]
    hi_ex = np.int64(1) << 62
    for s in range(g_lo[gr], g_hi[gr]):
        x = np.int64(tab[r, s])
        if x < 0:
            continue
        v = np.int64(node_first(nev, npar, x)) if el_kleene[s] else x
        if v < hi_ex:
            hi_ex = v
    return lo_ex, hi_ex

"""Predicate and negation checks of the eager NFA (``engines.evaluators.eager``), on instance rows.

A *row* ``r`` of a binding table ``tab`` (the instance arena or the candidate buffer) holds, per
slot, an event index (plain slot), the tail node of an event list (Kleene slot, see
``engines.evaluators.nfa_buffers``) or -1 (unbound).  Predicate lists are CSR rows of
(predicate, role, other slot); see ``engines.evaluators.eager_tables``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.evaluators.eager_tables import ROLE_FIRST, ROLE_SELF
from engines.evaluators.nfa_buffers import node_first
from engines.predicates import eval_pred


@njit(cache=True)
def eval_against(p, role, e, o, tab, r, el_kleene, nev, npar, pred_i, pred_f, attrs):
    """Evaluate predicate ``p`` with ``e`` in the role ``role`` and the event(s) of slot ``o`` of
    row ``r`` of ``tab`` in the other role (every event of a Kleene slot).
    Returns (holds, n_evaluations)."""
    if role == ROLE_SELF:
        return eval_pred(pred_i, pred_f, p, attrs, e, e), 1
    if el_kleene[o]:
        k = tab[r, o]
        n = 0
        while k >= 0:
            x = np.int64(nev[k])
            n += 1
            if role == ROLE_FIRST:
                ok = eval_pred(pred_i, pred_f, p, attrs, e, x)
            else:
                ok = eval_pred(pred_i, pred_f, p, attrs, x, e)
            if not ok:
                return False, n
            k = npar[k]
        return True, n
    x = np.int64(tab[r, o])
    if role == ROLE_FIRST:
        return eval_pred(pred_i, pred_f, p, attrs, e, x), 1
    return eval_pred(pred_i, pred_f, p, attrs, x, e), 1


@njit(cache=True)
def preds_hold(lst_start, lst_pred, lst_role, lst_other, q, e, tab, r, el_kleene, nev, npar,
                pred_i, pred_f, attrs):
    """All predicates of list ``q`` (a CSR row) hold for event ``e``; (holds, n_evaluations)."""
    n = 0
    for k in range(lst_start[q], lst_start[q + 1]):
        ok, c = eval_against(lst_pred[k], lst_role[k], e, lst_other[k], tab, r, el_kleene,
                              nev,
                              npar, pred_i, pred_f, attrs)
        n += c
        if not ok:
            return False, n
    return True, n


@njit(cache=True)
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
        ok, n = preds_hold(np_start, np_pred, np_role, np_other, q, c, tab, r, el_kleene,
                            nev,
                            npar, pred_i, pred_f, attrs)
        preds += n
        if ok:
            return True, edges, preds
    return False, edges, preds



@njit(cache=True)
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

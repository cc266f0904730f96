"""Which edges of the eager NFA's automaton take a fast path in ``eager_kernel``.

Decided once per branch, before the first event (``edge_paths``):

* ``ed_fast``: a plain ENTER edge whose predicates are at most ``FAST_MAX_PREDS`` comparisons
  with other plain slots (skip-till-any-match): the kernel evaluates it with the event's side of
  each predicate computed once per state (``fast_operand``) and no per-instance dispatch;
* ``ed_direct``: a fast edge whose candidates would all be emitted in phase 2 with nothing in
  between (destination complete with no outgoing edge, no Kleene output, no trailing or
  emission-time NOT, no negation decided on the edge): written straight to the output;
* ``ed_start``: an edge out of the initial state whose instance can be stored as soon as the
  event takes it (no predicate, no negation, a destination that neither completes the match nor
  takes the same event type): no candidate, no phase 2;
* ``ed_store``: a fast edge into a state that does not complete the match and takes no event of
  the edge's type, when every edge of that type into that state is stored that way (so the
  pool gets its new members in candidate order, as phase 2 would append them).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.compile import (OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, OP_NE, PI_C1, PI_C2, PI_KIND,
                             PI_OP, PI_V2, PK_CMP)
from engines.evaluators.eager_tables import EDGE_ENTER, ROLE_SECOND, ROLE_SELF

# the fast path takes edges with at most this many comparison predicates
FAST_MAX_PREDS = 2
# op with its operands swapped: x OP y == y FLIP[OP] x (NaN included)
_FLIP = np.array([OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ, OP_NE], dtype=np.int64)


@njit(cache=True, inline="always")
def fast_operand(kk, e, ep_pred, ep_role, ep_other, pred_i, pred_f, attrs, valid):
    """Predicate ``ep_pred[kk]`` of a fast edge for arriving event ``e`` as (op, other slot,
    column, scale, offset, event operand): it holds for an instance row ``i`` iff
    ``compare(op, attrs[a_bind[i, other], column] * scale + offset, event operand)`` -- exactly
    ``eval_pred``'s PK_CMP arithmetic, the event's side computed once (a predicate in which the
    event is the left operand is written with its operator flipped).  ``valid`` False: an edge
    without that predicate (a placeholder that is never evaluated)."""
    if not valid:
        return 0, 0, 0, 1.0, 0.0, 0.0
    p = ep_pred[kk]
    op = pred_i[p, PI_OP]
    if ep_role[kk] == ROLE_SECOND:   # instance.c1 OP e.c2 * k + c
        return (op, ep_other[kk], pred_i[p, PI_C1], 1.0, 0.0,
                attrs[e, pred_i[p, PI_C2]] * pred_f[p, 0] + pred_f[p, 1])
    return (_FLIP[op], ep_other[kk], pred_i[p, PI_C2], pred_f[p, 0], pred_f[p, 1],
            attrs[e, pred_i[p, PI_C1]])


@njit(cache=True)
def edge_paths(el_type, el_kleene, st_start, st_complete, ed_slot, ed_kind, ed_dst, ep_start,
               ep_pred, ep_role, ep_other, en_start, ty_start, pred_i, nextp, n_kl, has_trailing,
               has_emit_neg):
    """(ed_fast, ed_direct, ed_start, ed_store): per edge, the fast paths it takes (module
    docstring)."""
    S = st_complete.shape[0]
    n_ed = ed_slot.shape[0]
    ed_fast = np.zeros(n_ed, dtype=np.bool_)
    ed_direct = np.zeros(n_ed, dtype=np.bool_)
    for d in range(n_ed):
        s = ed_slot[d]
        npr = ep_start[d + 1] - ep_start[d]
        if nextp or ed_kind[d] != EDGE_ENTER or el_kleene[s] or npr > FAST_MAX_PREDS:
            continue
        fast = True
        for kk in range(ep_start[d], ep_start[d + 1]):
            p = ep_pred[kk]
            if (ep_role[kk] == ROLE_SELF or el_kleene[ep_other[kk]]
                    or pred_i[p, PI_KIND] != PK_CMP or pred_i[p, PI_V2] < 0):
                fast = False
        if not fast:
            continue
        ed_fast[d] = True
        dst = ed_dst[d]
        ed_direct[d] = (st_complete[dst] and st_start[dst + 1] == st_start[dst] and n_kl == 0
                        and not has_trailing and not has_emit_neg
                        and en_start[d + 1] == en_start[d])

    # start edges (from the initial state) whose instance can be stored as soon as the event
    # takes it (no candidate, no phase 2; skip-till-any-match, where phase 1 removes no live
    # instance, so the max_pm check sees the same count): a plain slot, no predicate, no negation decided on
    # the edge, a destination that neither completes the match nor takes the same event type
    # (so nothing else of this event reaches or visits that pool: same pool order as phase 2)
    ed_start = np.zeros(n_ed, dtype=np.bool_)
    for d in range(st_start[0], st_start[1]):
        s = ed_slot[d]
        dst = ed_dst[d]
        if (nextp or ed_kind[d] != EDGE_ENTER or el_kleene[s] or ep_start[d + 1] > ep_start[d]
                or en_start[d + 1] > en_start[d] or st_complete[dst]
                or st_start[dst + 1] == st_start[dst]):
            continue
        ok = True
        for d2 in range(st_start[dst], st_start[dst + 1]):
            if el_type[ed_slot[d2]] == el_type[s]:
                ok = False
        ed_start[d] = ok

    # fast edges into a state that does not complete the match and takes no event of the
    # edge's type: their instances are stored as the edge is evaluated (no candidate, no phase
    # 2), when every edge of that type into that state is stored that way (so the pool gets
    # its new members in candidate order, as phase 2 would append them)
    n_ty = ty_start.shape[0] - 1
    ed_store = np.zeros(n_ed, dtype=np.bool_)
    mixed = np.zeros((S, max(n_ty, 1)), dtype=np.bool_)
    for d in range(n_ed):
        s = ed_slot[d]
        dst = ed_dst[d]
        ok = (ed_fast[d] and not st_complete[dst] and en_start[d + 1] == en_start[d]
              and st_start[dst + 1] > st_start[dst])
        for d2 in range(st_start[dst], st_start[dst + 1]):
            if el_type[ed_slot[d2]] == el_type[s]:
                ok = False
        ed_store[d] = ok
    for d in range(n_ed):
        if not (ed_store[d] or ed_start[d]):
            mixed[ed_dst[d], el_type[ed_slot[d]]] = True
    for d in range(n_ed):
        if ed_store[d] and mixed[ed_dst[d], el_type[ed_slot[d]]]:
            ed_store[d] = False
    return ed_fast, ed_direct, ed_start, ed_store

"""The steppable eager NFA's automaton as flat arrays (``stepper_tables``) and the pattern
features it supports (``check_supported``); ``pack_tables`` packs them into the one int64 array
``step_kernel`` takes.

One flat branch, slot ``j`` = the ``j``-th positive variable: state ``A_j`` has slots ``0..j-1``
bound.  ``sp_*`` (CSR by slot): the predicates checked on the edge into slot ``j`` (those whose
later slot is ``j``; role of the arriving event as in ``engines.evaluators.eager_tables``).
``np_*`` (CSR by negation): each negation's predicates; ``ng_chk[q]`` the slot after whose
binding negation ``q`` is decidable (``m``: at emission, a start NOT; ``CHK_TRAILING``: a
trailing NOT, matches wait until the window closes).  ``el_kleene`` is all zero (no Kleene
slot), for the shared checks of ``engines.evaluators.eager_preds``.
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, POLICY_ANY, WIN_TIME, Program
from engines.errors import CepsimInputError
from engines.evaluators.eager_tables import ROLE_FIRST, ROLE_SECOND, ROLE_SELF, csr, split_preds

CHK_TRAILING = -1


def check_supported(program: Program, source: str = "pattern") -> None:
    """Refuse the pattern features the stepper does not implement (module docstring)."""
    why = None
    if len(program.branches) != 1:
        why = "AND/OR patterns (more than one flat branch)"
    elif np.any(program.var_kind == KIND_KLEENE):
        why = "Kleene closure (+)"
    elif program.window_kind != WIN_TIME:
        why = "count windows (WITHIN n events)"
    elif program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif program.has_remote:
        why = "REMOTE[...] predicates"
    if why:
        raise CepsimInputError(f"{source}: the steppable engine (load shedding) does not support "
                               f"{why}; use a SEQ of plain events with optional NOT, a time "
                               "window and skip-till-any-match")


def stepper_tables(program: Program) -> dict:
    """Arrays describing the single branch (slot predicate lists, negations) to the kernel."""
    br = program.branches[0]
    pos_vars = [int(v) for v in br.pos_vars]
    m = len(pos_vars)
    slot = {v: s for s, v in enumerate(pos_vars)}
    cols = {v: c for c, v in enumerate(program.positive_vars)}
    neg_vars = [int(v) for v in br.neg_vars]
    pos_preds, neg_lists, neg_mentions = split_preds(program, br, slot)
    # a positive predicate is checked on the edge into the later of its slots
    slot_lists: list[list[tuple[int, int, int]]] = [[] for _ in range(m)]
    for p, s1, s2 in pos_preds:
        if s2 < 0:
            slot_lists[s1].append((p, ROLE_SELF, -1))
        elif s1 > s2:
            slot_lists[s1].append((p, ROLE_FIRST, s2))
        else:
            slot_lists[s2].append((p, ROLE_SECOND, s1))
    chk = []
    for q in range(len(neg_vars)):
        L, R = int(br.neg_left[q]), int(br.neg_right[q])
        if R >= m:
            chk.append(CHK_TRAILING)
        elif L < 0:
            chk.append(m)
        else:
            chk.append(min(max([L, R] + list(neg_mentions[q])), m))
    sp = csr(slot_lists, 3)
    npl = csr(neg_lists, 3)
    return dict(
        el_type=np.array([program.var_type[v] for v in pos_vars], dtype=np.int64),
        col_of_slot=np.array([cols[v] for v in pos_vars], dtype=np.int64),
        sp_start=sp[0], sp_pred=sp[1], sp_role=sp[2], sp_other=sp[3],
        ng_type=np.array([program.var_type[v] for v in neg_vars], dtype=np.int64),
        ng_left=np.asarray(br.neg_left, dtype=np.int64),
        ng_right=np.asarray(br.neg_right, dtype=np.int64),
        ng_chk=np.array(chk, dtype=np.int64),
        np_start=npl[0], np_pred=npl[1], np_role=npl[2], np_other=npl[3],
        el_kleene=np.zeros(m, dtype=np.int64),
    )


TABLE_KEYS = ("el_type", "col_of_slot", "sp_start", "sp_pred", "sp_role", "sp_other", "ng_type",
              "ng_left", "ng_right", "ng_chk", "np_start", "np_pred", "np_role", "np_other",
              "el_kleene")


def pack_tables(tb: dict) -> np.ndarray:
    """``stepper_tables`` as one int64 array: ``len(TABLE_KEYS) + 1`` offsets, then the tables
    in ``TABLE_KEYS`` order (table ``k`` is ``tabs[tabs[k]:tabs[k + 1]]``)."""
    parts = [np.asarray(tb[k], dtype=np.int64) for k in TABLE_KEYS]
    off = len(parts) + 1 + np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    return np.ascontiguousarray(np.concatenate([off] + parts), dtype=np.int64)

"""The steppable eager NFA's automaton as flat arrays (``stepper_tables``) and the pattern
features it supports (``check_supported``); ``pack_tables`` packs them into the one int64 array
``step_kernel`` takes.

One alternative (``Program.grouped[0]``): a sequence of *groups* of slots -- a plain slot, a
Kleene slot, or an unordered group of plain slots (an AND kept whole, as the eager NFA evaluates
it, ``engines.evaluators.eager_tables``).  Pool ``j`` holds the instances with ``j`` slots
bound: every group before the group of slot ``j`` (``el_glo[j] .. el_ghi[j] - 1``) is bound,
and ``j - el_glo[j]`` slots of that group (for an AND group, which ones is read from the
instance's row).  Edges (``ed_src``, ``ed_slot``, in this order): from pool ``j`` one ENTER
edge per slot of the group of slot ``j`` (a plain SEQ: slot ``j`` alone), and after the Kleene
slot ``sk``'s ENTER edge its LOOP edge from pool ``sk + 1``.

``sp_*`` (CSR by slot): the predicates checked on the edge into slot ``j``: those whose other
slot lies in an earlier group (role of the arriving event as in
``engines.evaluators.eager_tables``); a predicate between two slots of one AND group is listed
at both with role ``ROLE_FIRST_DYN`` / ``ROLE_SECOND_DYN``, evaluated on the edge into the
second of them to be bound (the kernel skips it while the other slot is unbound): per edge the
eager NFA's list, in its order.  ``np_*`` (CSR by negation): each negation's predicates;
``ng_chk[q]`` = ``need - 1`` where ``need`` is the number of bound slots from which negation
``q`` is decidable on every path: its left group bound, a slot of its right group bound and
every slot its predicates mention bound (a slot of an AND group counts once its whole group is
bound; for a plain SEQ ``max(L, R, mentions)``, the eager NFA's first decidable edge);
``m`` = at emission (a start NOT, or one that needs the whole last group); ``CHK_TRAILING``: a
trailing NOT, matches wait until the window closes; ``CHK_DYN``: a middle NOT that mentions a
slot of an AND group at or after its right neighbour's group (bitmask ``ng_mmask``) is checked
on the candidate that first binds a slot of its right group and every slot it mentions (the
eager NFA's first decidable edge, whatever the order the group is bound in).  ``kl_slot`` is ``[sk]``, the slot of the
pattern's Kleene variable, or ``[-1]``: a Kleene slot's events are kept in the instance row
itself (``engines.evaluators.stepper_kernel``), not in the eager NFA's event-node chains, so
``el_kleene`` stays all zero for the shared checks of ``engines.evaluators.eager_preds`` (the
negation checks, which never read a Kleene slot here: ``check_supported``).

A negation whose left neighbour is the Kleene slot is decidable once the next slot is bound
(the Kleene slot is final then; its column holds its last event); one whose right neighbour is
the Kleene slot is checked when the first Kleene event is bound (``hi_ex`` = that event).
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, POLICY_ANY, WIN_TIME, Program
from engines.errors import CepsimInputError
from engines.evaluators.eager_tables import ROLE_FIRST, ROLE_SECOND, ROLE_SELF, csr, split_preds

CHK_TRAILING = -1
#: ``ng_chk`` of a negation decided per candidate (``ng_mmask``: the slots it mentions)
CHK_DYN = -2
#: a predicate between two slots of one AND group (``sp_role``): evaluated once both are bound
ROLE_FIRST_DYN, ROLE_SECOND_DYN = 3, 4


def _alt(program: Program):
    return program.grouped[0]


def kleene_slot(program: Program) -> int:
    """Slot of the alternative's Kleene variable, -1 when it has none."""
    br = _alt(program)
    ks = [s for s, v in enumerate(br.pos_vars) if program.var_kind[v] == KIND_KLEENE]
    return ks[0] if ks else -1


def check_supported(program: Program, source: str = "pattern") -> None:
    """Refuse the pattern features the stepper does not implement (module docstring)."""
    why = None
    has_kl = bool(np.any(program.var_kind == KIND_KLEENE))
    if program.policy != POLICY_ANY:
        why = "skip-till-next-match"
    elif program.window_kind != WIN_TIME:
        why = "count windows (WITHIN n events)"
    elif program.has_remote:
        why = "REMOTE[...] predicates"
    elif len(program.grouped) != 1:
        why = "OR patterns (more than one alternative)"
    elif has_kl and int(np.sum(program.var_kind[_alt(program).pos_vars] == KIND_KLEENE)) > 1:
        why = "more than one Kleene closure (+)"
    elif has_kl and _kleene_in_group(program):
        why = "a Kleene closure (+) inside an AND"
    elif has_kl and kleene_slot(program) == len(_alt(program).pos_vars) - 1:
        why = "a Kleene closure (+) as the last positive element"
    elif has_kl and _neg_mentions_kleene(program):
        why = "a NOT whose conditions mention the Kleene variable"
    if why:
        raise CepsimInputError(f"{source}: the steppable engine (load shedding) does not support "
                               f"{why}; use a SEQ / AND of plain events with at most one Kleene "
                               "closure (not last, not inside an AND) and optional NOT, a time "
                               "window and skip-till-any-match")


def _kleene_in_group(program: Program) -> bool:
    br = _alt(program)
    g = br.groups
    sk = kleene_slot(program)
    return int(np.sum(g == g[sk])) > 1


def _neg_mentions_kleene(program: Program) -> bool:
    br = _alt(program)
    slot = {int(v): s for s, v in enumerate(br.pos_vars)}
    _, _, mentions = split_preds(program, br, slot)
    sk = kleene_slot(program)
    return any(sk in mq for mq in mentions)


def stepper_tables(program: Program) -> dict:
    """Arrays describing the alternative (edges, slot predicate lists, negations) to the
    kernel."""
    br = _alt(program)
    pos_vars = [int(v) for v in br.pos_vars]
    m = len(pos_vars)
    slot = {v: s for s, v in enumerate(pos_vars)}
    cols = {v: c for c, v in enumerate(program.positive_vars)}
    neg_vars = [int(v) for v in br.neg_vars]
    gid = [int(g) for g in br.groups]
    glo = [gid.index(g) for g in gid]
    ghi = [m - gid[::-1].index(g) for g in gid]
    sk = kleene_slot(program) if m else -1
    pos_preds, neg_lists, neg_mentions = split_preds(program, br, slot)
    # a positive predicate is checked on the edge into the later of its slots (both, when they
    # share an AND group: on the second to be bound)
    slot_lists: list[list[tuple[int, int, int]]] = [[] for _ in range(m)]
    for p, s1, s2 in pos_preds:
        if s2 < 0:
            slot_lists[s1].append((p, ROLE_SELF, -1))
        elif gid[s1] == gid[s2]:
            slot_lists[s1].append((p, ROLE_FIRST_DYN, s2))
            slot_lists[s2].append((p, ROLE_SECOND_DYN, s1))
        elif s1 > s2:
            slot_lists[s1].append((p, ROLE_FIRST, s2))
        else:
            slot_lists[s2].append((p, ROLE_SECOND, s1))

    def need(u: int) -> int:
        """Bound slots from which slot ``u`` is bound (and final) on every path."""
        if u == sk:
            return u + 2            # a Kleene slot is final once the next slot is bound
        return ghi[u]

    chk, dyn, mmask = [], [], []
    for q in range(len(neg_vars)):
        L, R = int(br.neg_left[q]), int(br.neg_right[q])
        mmask.append(sum(1 << u for u in neg_mentions[q]))
        # a mention in an AND group at or after the right neighbour's: decidable once those
        # slots are bound, in whichever order (the kernel tests it per candidate)
        dyn.append(int(0 <= L and R < m and R != sk
                       and any(ghi[u] - glo[u] > 1 and gid[u] >= gid[R]
                               for u in neg_mentions[q])))
        if R >= m:
            chk.append(CHK_TRAILING)
        elif L < 0:
            chk.append(m)
        elif dyn[-1]:
            chk.append(CHK_DYN)
        else:
            n_need = max([need(L), glo[R] + 1] + [need(u) for u in neg_mentions[q]])
            chk.append(min(n_need - 1, m))
    ed_src, ed_slot = [], []
    for j in range(m):
        for s in range(glo[j], ghi[j]):
            ed_src.append(j)
            ed_slot.append(s)
        if j == sk:
            ed_src.append(sk + 1)
            ed_slot.append(sk)
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
        kl_slot=np.array([sk], dtype=np.int64),
        ed_src=np.array(ed_src, dtype=np.int64),
        ed_slot=np.array(ed_slot, dtype=np.int64),
        el_glo=np.array(glo, dtype=np.int64),
        el_ghi=np.array(ghi, dtype=np.int64),
        ng_mmask=np.array(mmask, dtype=np.int64),
    )


TABLE_KEYS = ("el_type", "col_of_slot", "sp_start", "sp_pred", "sp_role", "sp_other", "ng_type",
              "ng_left", "ng_right", "ng_chk", "np_start", "np_pred", "np_role", "np_other",
              "el_kleene", "kl_slot", "ed_src", "ed_slot", "el_glo", "el_ghi", "ng_mmask")


def pack_tables(tb: dict) -> np.ndarray:
    """``stepper_tables`` as one int64 array: ``len(TABLE_KEYS) + 1`` offsets, then the tables
    in ``TABLE_KEYS`` order (table ``k`` is ``tabs[tabs[k]:tabs[k + 1]]``)."""
    parts = [np.asarray(tb[k], dtype=np.int64) for k in TABLE_KEYS]
    off = len(parts) + 1 + np.concatenate([[0], np.cumsum([len(p) for p in parts])])
    return np.ascontiguousarray(np.concatenate([off] + parts), dtype=np.int64)

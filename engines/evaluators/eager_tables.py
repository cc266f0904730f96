"""The eager NFA's automaton for one branch, as flat arrays for the kernel (``engines.evaluators.eager``).

A branch (``Program.grouped``) is a sequence of *groups* of slots: a plain slot, a Kleene slot,
or an unordered set of plain slots (an AND of plain events, evaluated natively instead of as its
n! orders).  The automaton's states:

* ``W(g, mask)``: every group before ``g`` is bound, ``mask`` = the slots of group ``g`` bound so
  far (an ordinary slot: only ``mask = {}``).  ``W(0, {})`` is state 0, the initial state, whose
  pool holds only the sentinel instance (nothing bound).
* ``K(g)``: Kleene group ``g`` holds ``>= 1`` events; it may loop or proceed.
* a state in which every slot is bound is *complete*: entering it emits a match.

Edges (``ed_*``): from ``W(g, mask)`` one ENTER edge per unbound slot of group ``g``; from
``K(g)`` a LOOP edge and one ENTER edge per slot of group ``g + 1``.  The destination of an
ENTER edge into slot ``s``: ``K(g)`` for a Kleene slot, ``W(g, mask | s)`` while the group is
incomplete, else ``W(g + 1, {})``.  ``ed_bit`` numbers a state's edges (skip-till-next-match:
an instance keeps one flag per edge, consumed by the first event qualifying for it).

Per edge, the predicates to evaluate are those that mention the edge's slot and whose other
variable is bound in the source state (known statically), with the role of the arriving event:
``ROLE_SELF`` (one-variable predicate), ``ROLE_FIRST`` (the event is the left operand, the other
slot's event(s) the right), ``ROLE_SECOND``.  A middle negation is checked on the first edge
whose destination makes it decidable: its left group bound and final, a slot of its right group
bound, and every slot its predicates mention bound and final (a Kleene slot is final once the
next group has started).  Negations that never become decidable before completion (a start NOT,
or one that needs the last Kleene slot) are checked at each emission (``ng_emit``); a trailing
NOT keeps complete matches pending (``ng_trailing``).

``ty_*`` (CSR by event type code): the states with an edge for that type (and that edge when it
is the only one), so that an event only visits the pools that can use it.  ``max_states`` caps the automaton's size (an
unordered group of ``k`` slots has ``2**k`` states): a capacity option, ``CapacityError``.
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, KIND_NEG, PI_V1, PI_V2, Branch, Program
from engines.errors import CapacityError

DEFAULT_MAX_STATES = 1 << 16
ROLE_SELF, ROLE_FIRST, ROLE_SECOND = 0, 1, 2
EDGE_ENTER, EDGE_LOOP = 0, 1


def csr(lists: list[list[tuple[int, ...]]], width: int):
    """CSR of ``lists`` (each a list of ``width``-tuples): (start, column 0, column 1, ...)."""
    start = np.zeros(len(lists) + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(lst) for lst in lists])
    arr = np.array([x for lst in lists for x in lst], dtype=np.int64).reshape(-1, width)
    return (start,) + tuple(np.ascontiguousarray(arr[:, k]) for k in range(width))


def split_preds(program: Program, br: Branch, slot: dict[int, int]):
    """The predicates of branch ``br`` by what they constrain, in predicate order: positive
    ones as (pred, slot1, slot2 or -1 for a one-slot predicate), and per negation of
    ``br.neg_vars`` its list of (pred, role of the negated event, other slot or -1) with the
    set of positive slots that list mentions.  A predicate between two negated variables has no
    binding to be checked against and is left out.  ``slot`` maps positive variable -> slot."""
    neg_index = {int(v): q for q, v in enumerate(br.neg_vars)}
    pos_preds: list[tuple[int, int, int]] = []
    neg_lists: list[list[tuple[int, int, int]]] = [[] for _ in neg_index]
    neg_mentions: list[set[int]] = [set() for _ in neg_index]
    for p in (int(x) for x in br.pred_ids):
        v1 = int(program.pred_i[p, PI_V1])
        v2 = int(program.pred_i[p, PI_V2])
        negs = [v for v in (v1, v2) if v >= 0 and program.var_kind[v] == KIND_NEG]
        if negs:
            if len(set(negs)) == 2:
                continue
            q = neg_index[negs[0]]
            if v2 < 0 or v1 == v2:
                neg_lists[q].append((p, ROLE_SELF, -1))
            elif v1 == negs[0]:
                neg_lists[q].append((p, ROLE_FIRST, slot[v2]))
                neg_mentions[q].add(slot[v2])
            else:
                neg_lists[q].append((p, ROLE_SECOND, slot[v1]))
                neg_mentions[q].add(slot[v1])
            continue
        pos_preds.append((p, slot[v1], -1 if (v2 < 0 or v1 == v2) else slot[v2]))
    return pos_preds, neg_lists, neg_mentions


def branch_tables(program: Program, br: Branch, max_states: int = DEFAULT_MAX_STATES) -> dict:
    """The arrays describing branch ``br`` of ``program`` (an element of ``program.grouped`` or
    of ``program.branches``) to ``eager_kernel``."""
    pos_vars = [int(v) for v in br.pos_vars]
    m = len(pos_vars)
    slot = {v: s for s, v in enumerate(pos_vars)}
    kleene = [bool(program.var_kind[v] == KIND_KLEENE) for v in pos_vars]
    gid = [int(g) for g in br.groups]
    G = gid[-1] + 1
    members: list[list[int]] = [[] for _ in range(G)]
    for s, g in enumerate(gid):
        members[g].append(s)
    n_states_est = sum((1 << len(ms)) - 1 if len(ms) > 1 else (2 if kleene[ms[0]] else 1)
                       for ms in members) + 1
    if len(members) and max(len(ms) for ms in members) > 60 or n_states_est > max_states:
        raise CapacityError(
            f"eager engine: the pattern's automaton needs about {n_states_est} states (an AND of "
            f"k plain events has 2**k), more than max_states={max_states}; raise it with "
            "--max-states / max_states=, or split the AND")
    cols = {v: c for c, v in enumerate(program.positive_vars)}
    neg_vars = [int(v) for v in br.neg_vars]
    # predicates: positive ones by their slots, negation ones by negation
    pos_preds, neg_lists, neg_mentions = split_preds(program, br, slot)

    # states, discovered breadth-first from the initial one
    full = [frozenset(ms) for ms in members]
    key_of: dict[tuple[int, int, frozenset], int] = {}   # (kind 0=W/1=K, group, mask) -> id
    keys: list[tuple[int, int, frozenset]] = []

    def state(kind: int, g: int, mask: frozenset) -> int:
        k = (kind, g, mask)
        if k not in key_of:
            key_of[k] = len(keys)
            keys.append(k)
            if len(keys) > max_states:
                raise CapacityError(f"eager engine: more than max_states={max_states} automaton "
                                    "states; raise it with --max-states / max_states=")
        return key_of[k]

    def bound_final(k: tuple[int, int, frozenset]) -> tuple[set[int], set[int]]:
        kind, g, mask = k
        bound = {s for gg in range(min(g, G)) for s in members[gg]} | set(mask)
        final = set(bound)
        if kind == 1:
            final -= set(members[g])
        return bound, final

    def enter_dst(g: int, mask: frozenset, s: int) -> int:
        if kleene[s]:
            return state(1, g, full[g])
        nm = mask | {s}
        if nm == full[g]:
            return state(0, g + 1, frozenset())
        return state(0, g, nm)

    def decidable(q: int, bound: set[int], final: set[int]) -> bool:
        L, R = int(br.neg_left[q]), int(br.neg_right[q])
        if L < 0 or R >= m:
            return False
        return (set(members[gid[L]]) <= final and bool(set(members[gid[R]]) & bound)
                and neg_mentions[q] <= final)

    state(0, 0, frozenset())
    edges: list[tuple[int, int, int, int, int]] = []     # (src, slot, kind, dst, bit)
    st_edges: list[list[int]] = []
    i = 0
    while i < len(keys):
        kind, g, mask = keys[i]
        out: list[tuple[int, int, int]] = []             # (slot, kind, dst)
        if kind == 0 and g < G:
            for s in members[g]:
                if s not in mask:
                    out.append((s, EDGE_ENTER, enter_dst(g, mask, s)))
        elif kind == 1:
            s = members[g][0]
            out.append((s, EDGE_LOOP, i))
            if g + 1 < G:
                for s2 in members[g + 1]:
                    out.append((s2, EDGE_ENTER, enter_dst(g + 1, frozenset(), s2)))
        st_edges.append([])
        for bit, (s, ek, dst) in enumerate(out):
            st_edges[i].append(len(edges))
            edges.append((i, s, ek, dst, bit))
        i += 1
    S = len(keys)
    if max((len(e) for e in st_edges), default=0) > 62:
        raise CapacityError("eager engine: a state with more than 62 edges (an AND of more than "
                            "62 events); split the AND")

    # per edge: predicate list and the negations that become decidable on it
    ed_preds: list[list[tuple[int, int, int]]] = []
    ed_negs: list[list[tuple[int]]] = []
    for src, s, ek, dst, _ in edges:
        bsrc, fsrc = bound_final(keys[src])
        bdst, fdst = bound_final(keys[dst])
        lst = []
        for p, s1, s2 in pos_preds:
            if s2 < 0:
                if s1 == s:
                    lst.append((p, ROLE_SELF, -1))
            elif s1 == s and s2 in bsrc and s2 != s:
                lst.append((p, ROLE_FIRST, s2))
            elif s2 == s and s1 in bsrc and s1 != s:
                lst.append((p, ROLE_SECOND, s1))
        ed_preds.append(lst)
        ed_negs.append([(q,) for q in range(len(neg_vars))
                        if decidable(q, bdst, fdst) and not decidable(q, bsrc, fsrc)])
    # negations checked at emission: start NOTs and middle ones not decidable before completion
    complete = [len(bound_final(k)[0]) == m for k in keys]
    ng_emit = np.zeros(len(neg_vars), dtype=np.bool_)
    ng_trailing = np.zeros(len(neg_vars), dtype=np.bool_)
    for q in range(len(neg_vars)):
        L, R = int(br.neg_left[q]), int(br.neg_right[q])
        if R >= m:
            ng_trailing[q] = True
        elif L < 0:
            ng_emit[q] = True
        else:
            ng_emit[q] = not any(decidable(q, *bound_final(k)) for k, c in zip(keys, complete)
                                 if c)
    st_start = np.zeros(S + 1, dtype=np.int64)
    st_start[1:] = np.cumsum([len(e) for e in st_edges])
    ed = np.array(edges, dtype=np.int64).reshape(-1, 5)
    ep = csr(ed_preds, 3)
    en = csr(ed_negs, 1)
    npl = csr(neg_lists, 3)
    el_type = np.array([program.var_type[v] for v in pos_vars], dtype=np.int64)
    # states with an edge for each type (CSR over type codes) and that edge count
    n_types = max(len(program.schema.type_names), int(el_type.max()) + 1 if m else 1)
    by_type: list[list[tuple[int, int, int]]] = [[] for _ in range(n_types)]
    for st in range(S):
        cnt: dict[int, list[int]] = {}
        for e in st_edges[st]:
            cnt.setdefault(int(el_type[edges[e][1]]), []).append(e)
        for t, es in sorted(cnt.items()):
            by_type[t].append((st, len(es), es[0] if len(es) == 1 else -1))
    ty = csr(by_type, 3)
    g_lo = np.array([ms[0] for ms in members], dtype=np.int64)
    g_hi = np.array([ms[-1] + 1 for ms in members], dtype=np.int64)
    return dict(
        el_type=el_type,
        el_kleene=np.array(kleene, dtype=np.bool_),
        col_of_slot=np.array([cols[v] for v in pos_vars], dtype=np.int64),
        el_group=np.array(gid, dtype=np.int64), g_lo=g_lo, g_hi=g_hi,
        st_start=st_start, st_complete=np.array(complete, dtype=np.bool_),
        ed_slot=np.ascontiguousarray(ed[:, 1]), ed_kind=np.ascontiguousarray(ed[:, 2]),
        ed_dst=np.ascontiguousarray(ed[:, 3]), ed_bit=np.ascontiguousarray(ed[:, 4]),
        ep_start=ep[0], ep_pred=ep[1], ep_role=ep[2], ep_other=ep[3],
        en_start=en[0], en_q=en[1],
        ty_start=ty[0], ty_state=ty[1], ty_count=ty[2], ty_edge=ty[3],
        ng_type=np.array([program.var_type[v] for v in neg_vars], dtype=np.int64),
        ng_left=np.asarray(br.neg_left, dtype=np.int64),
        ng_right=np.asarray(br.neg_right, dtype=np.int64),
        ng_emit=ng_emit, ng_trailing=ng_trailing,
        np_start=npl[0], np_pred=npl[1], np_role=npl[2], np_other=npl[3],
    )

"""DARLING's analytic processing time per event type, Z(T) (PVLDB'22 section 4.2.3, Eqs. 5-10),
with the paper's rule for a type under Kleene closure.

The default DARLING budgets (``engines.shedding.darling``) *measure* Z(T) during the warm-up;
``budget="model"`` takes it from this module instead, as section 4.2.2 writes
``N_T = Z(T) R(T) / sum_T' Z(T') R(T') * N_in * beta`` with Z(T) from Eqs. (5)-(10).  The
authors' code computes neither (their budgets are by arrival rate,
koralchapnik/vldb_submission ``darling/load_shedders/overload_detector.py`` 45-52, 98-107: no
Eq. 5-10 and no Kleene rule in the repository), so this module follows the paper's text.

The evaluation mechanism is the left-deep tree of ``SEQ(v_0 .. v_{m-1})`` (the artifact's tree,
``engines.shedding.lazy_store``): leaves ``L_j``, internal nodes ``N_j = (N_{j-1}, L_j)``
(``N_0 = L_0``), root ``N_{m-1}``.  ``C_node(L_j)``: the one-variable conditions of ``v_j``;
``C_node(N_j)``: the conditions between ``v_j`` and an earlier variable (checked when ``v_j``
joins).  Then, with ``f_i`` the cost of evaluating condition ``i``, ``V_n`` / ``V_r`` the cost
of creating / removing a partial match, ``SEL`` a node's selectivity (product of its
conditions'), ``R(T)`` the arrival rate of ``T`` and ``w`` the window:

* Eq. (5)  ``L_cond(N) = sum_{c_i in C_node(N)} f_i``
* Eq. (6)  ``L_peer(N) = L_cond(parent(N)) * prod_{N' in peers(N)} PM(N')`` (0 at the root)
* Eq. (7)  ``Z(T) = sum_{N in PATH(T)} (L_peer(N) + V_n + V_r) * PM(N, T)``
* Eq. (8)  ``PM(L, T) = SEL(L) * 1[L = T]``
* Eq. (9)  ``PM(N, T) = SEL(N) * prod_{sons on PATH(T)} PM(N'', T) * prod_{other sons} PM(N')``
* Eq. (10) ``PM(L) = R(L) * SEL(L) * w``; ``PM(N) = SEL(N) * prod_{sons} PM(N')``

Kleene closure (section 4.2.3, last paragraph): "For an event type T under the Kleene closure
operator, we consider its arrival rate as 2^{R(T)} in Equation (10) and multiply by
2^{R(T)} x w Equation (8)".  ``kleene="paper"`` applies it literally: the Kleene leaf's
``PM(L) = 2^{R(T)} * SEL(L) * w`` and ``PM(L, T) = SEL(L) * 2^{R(T)} * w``, with ``R(T)`` in
events per unit of the stream's timestamps (the paper leaves the unit open: the value of
``2^{R(T)}`` depends on it).  ``kleene="subsets"`` (a named variant) reads the exponent as the
expected number of ``T`` events in a window, ``2^{R(T) w}`` (the number of subsets a Kleene
list ranges over), in both places: ``PM(L) = 2^{R(T) w} * SEL(L)`` and
``PM(L, T) = SEL(L) * 2^{R(T) w}``.  A type at several leaves sums their paths.
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, PI_V1, PI_V2, Program
from engines.errors import CepsimInputError
from engines.predicates import eval_pred

KLEENE_RULES = ("paper", "subsets")


def tree_conditions(program: Program) -> tuple[list[list[int]], list[list[int]]]:
    """(``C_node(L_j)``, ``C_node(N_j)``) per slot ``j`` of the left-deep tree (predicate ids;
    ``C_node(N_0)`` is empty: ``N_0`` is the leaf ``L_0``).  Negated variables' conditions are
    not part of the positive tree and are left out."""
    br = program.branches[0]
    slot = {int(v): s for s, v in enumerate(br.pos_vars)}
    m = len(slot)
    leaf: list[list[int]] = [[] for _ in range(m)]
    node: list[list[int]] = [[] for _ in range(m)]
    for p in (int(x) for x in br.pred_ids):
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        if v1 not in slot or (v2 >= 0 and v2 not in slot):
            continue
        if v2 < 0 or v2 == v1:
            leaf[slot[v1]].append(p)
        else:
            node[max(slot[v1], slot[v2])].append(p)
    return leaf, node


def selectivities(program: Program, attrs: np.ndarray, types: np.ndarray, n_pairs: int = 4096,
                  seed: int = 0) -> np.ndarray:
    """``SEL(c_i)`` per predicate (float64[n_preds]) estimated on the given (warm-up) events: a
    one-variable condition, the fraction of its type's events that pass; a two-variable one,
    the fraction of ``n_pairs`` random (event of ``v1``'s type, event of ``v2``'s type) pairs
    that pass.  A condition with no event of a type to test gets 1."""
    attrs = np.ascontiguousarray(attrs, dtype=np.float64)
    pred_i = np.ascontiguousarray(program.pred_i, dtype=np.int32)
    pred_f = np.ascontiguousarray(program.pred_f, dtype=np.float64)
    rng = np.random.default_rng(seed)
    sel = np.ones(len(pred_i))
    for p in range(len(pred_i)):
        v1, v2 = int(pred_i[p, PI_V1]), int(pred_i[p, PI_V2])
        i1 = np.flatnonzero(types == program.var_type[v1])
        if v2 < 0 or v2 == v1:
            if len(i1):
                sel[p] = np.mean([eval_pred(pred_i, pred_f, p, attrs, int(e), int(e))
                                  for e in i1])
            continue
        i2 = np.flatnonzero(types == program.var_type[v2])
        if not len(i1) or not len(i2):
            continue
        a = rng.choice(i1, n_pairs)
        b = rng.choice(i2, n_pairs)
        sel[p] = np.mean([eval_pred(pred_i, pred_f, p, attrs, int(x), int(y))
                          for x, y in zip(a, b)])
    return sel


def z_model(program: Program, rate: np.ndarray, window: float, sel: np.ndarray, f: float,
            v_n: float, v_r: float, kleene: str = "paper") -> np.ndarray:
    """Z(T) per event type (float64[n_types], 0 for a type not in the tree) by Eqs. (5)-(10)
    on the left-deep tree (module docstring); ``rate[T]`` = R(T), ``sel[p]`` = SEL(c_p),
    ``f`` the cost of one condition evaluation, ``v_n`` / ``v_r`` of creating / removing a
    partial match."""
    if kleene not in KLEENE_RULES:
        raise CepsimInputError(f"darling model: kleene must be one of {KLEENE_RULES}, "
                               f"got {kleene!r}")
    if not np.isfinite(window) or window <= 0:
        raise CepsimInputError("darling model: Eq. (10) needs a finite window w > 0")
    br = program.branches[0]
    pos = [int(v) for v in br.pos_vars]
    m = len(pos)
    ty = [int(program.var_type[v]) for v in pos]
    kl = [bool(program.var_kind[v] == KIND_KLEENE) for v in pos]
    leaf_c, node_c = tree_conditions(program)
    sel_leaf = [float(np.prod([sel[p] for p in cs])) for cs in leaf_c]
    sel_node = [float(np.prod([sel[p] for p in cs])) for cs in node_c]
    lcond_node = [f * len(cs) for cs in node_c]                       # Eq. (5)
    # Eq. (10): leaves, then N_j = (N_{j-1}, L_j)
    pm_leaf = []
    for j in range(m):
        r = float(rate[ty[j]])
        if kl[j]:
            pm_leaf.append((2.0 ** r * window if kleene == "paper" else 2.0 ** (r * window))
                           * sel_leaf[j])
        else:
            pm_leaf.append(r * sel_leaf[j] * window)
    pm_node = [pm_leaf[0]]
    for j in range(1, m):
        pm_node.append(sel_node[j] * pm_node[j - 1] * pm_leaf[j])
    nt = len(rate)
    z = np.zeros(nt)
    for k in range(m):                    # the leaf L_k of type ty[k] and its path to the root
        t = ty[k]
        r = float(rate[t])
        boost = (2.0 ** r * window if kleene == "paper" else 2.0 ** (r * window)) if kl[k] \
            else 1.0
        pm_t = sel_leaf[k] * boost                                     # Eq. (8)
        # the leaf: its parent is N_k (k >= 1) or N_1 (k = 0); its peer the other son
        parent = max(k, 1)
        if m == 1:
            z[t] += (v_n + v_r) * pm_t
            continue
        peer = pm_leaf[1] if k == 0 else pm_node[k - 1]
        z[t] += (lcond_node[parent] * peer + v_n + v_r) * pm_t        # Eqs. (6), (7)
        # internal nodes N_j (j >= max(k, 1)) on the path
        pm_path = pm_t
        for j in range(max(k, 1), m):
            if j == k:
                other = pm_node[j - 1]
            elif k == 0 and j == 1:
                other = pm_leaf[1]
            else:
                other = pm_leaf[j]
            pm_path = sel_node[j] * pm_path * other                    # Eq. (9)
            if j + 1 < m:
                peer_j = pm_leaf[j + 1]
                l_peer = lcond_node[j + 1] * peer_j                    # Eq. (6)
            else:
                l_peer = 0.0                                           # the root
            z[t] += (l_peer + v_n + v_r) * pm_path                     # Eq. (7)
    return z

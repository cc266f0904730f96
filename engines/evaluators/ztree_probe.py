"""The probe tables of the ``ztree`` kernel: each internal node's predicates and order
constraints resolved, when the tables are built, to the child that binds each variable.

A probe at internal node ``k`` pairs one new result of one child with one stored result of the
other; every variable of ``k`` is bound in exactly one of the two (the children's variable sets
partition ``k``'s).  The kernel therefore reads a predicate's or a constraint's events straight
from the two result rows instead of merging the whole binding row first, and merges the row
only for a probe that passed every check (it is then stored, emitted or checked against a
negation).  Per predicate position ``q`` of ``np_ids`` (``build_tables``' CSR of the node's
predicates, kept in its order so that ``PRED_EVAL`` counts the same evaluations):

* ``pq_mode``: ``PQ_CMP`` a comparison of two plain variables, ``attrs[e1, c1] op attrs[e2, c2]
  * f0 + f1`` (``engines.predicates.eval_pred``'s ``PK_CMP``), evaluated inline with the new
  result's operand read once per new result; ``PQ_PLAIN`` another kind over two plain variables
  (``eval_pred`` on the two events); ``PQ_GENERAL`` anything else (a Kleene variable: every
  event pair, ``pred_holds`` on the merged row), and every predicate at a leaf;
* ``pq_s1``: 0 when the predicate's first variable is bound by the left child, 1 by the right
  (its second variable by the other child); ``pq_v1``, ``pq_v2``, ``pq_c1``, ``pq_c2``,
  ``pq_op``, ``pq_f0``, ``pq_f1``: the predicate's variables, columns, operator and constants.

Per order constraint ``q`` (``nc_*``), ``nc_si`` / ``nc_sj``: 0 when ``nc_i[q]`` / ``nc_j[q]``
is bound by the left child, 1 by the right.  ``pq_max``: the most predicates at one node (the
kernel's scratch for the hoisted operands).

Per node ``c`` whose parent's first predicate is a ``PQ_CMP``, ``nd_pv``: the operand of that
predicate that ``c``'s results bind, kept per stored result beside its first position (the
parent's probes read it without touching the binding row): ``PV_RAW`` ``attrs[e, nd_pv_col]``
(``c`` binds the first variable ``nd_pv_var``), ``PV_SCALED`` ``attrs[e, nd_pv_col] * nd_pv_f0 +
nd_pv_f1`` (the second: the very operations ``eval_pred`` performs, so the value is the same);
``PV_NONE`` otherwise (a root, or a parent whose first predicate is not a ``PQ_CMP``).
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, PK_CMP

PQ_CMP, PQ_PLAIN, PQ_GENERAL = 0, 1, 2
PV_NONE, PV_RAW, PV_SCALED = 0, 1, 2

__all__ = ["PQ_CMP", "PQ_PLAIN", "PQ_GENERAL", "PV_NONE", "PV_RAW", "PV_SCALED",
           "probe_tables", "node_variables"]


def node_variables(nd_left: np.ndarray, nd_right: np.ndarray, nd_var: np.ndarray) -> list[set]:
    """The variables each node binds (children are numbered before their parents)."""
    out: list[set] = []
    for k in range(len(nd_var)):
        if nd_var[k] >= 0:
            out.append({int(nd_var[k])})
        else:
            out.append(out[int(nd_left[k])] | out[int(nd_right[k])])
    return out


def probe_tables(t: dict) -> dict:
    """The ``pq_*`` and ``nc_si`` / ``nc_sj`` arrays of the tables ``t`` (module docstring)."""
    nd_left, nd_right, nd_var = t["nd_left"], t["nd_right"], t["nd_var"]
    pred_i, pred_f, kinds = t["pred_i"], t["pred_f"], t["var_kind"]
    np_ptr, np_ids = t["np_ptr"], t["np_ids"]
    nvars = node_variables(nd_left, nd_right, nd_var)
    nq = len(np_ids)
    mode = np.full(nq, PQ_GENERAL, np.int64)
    s1 = np.zeros(nq, np.int64)
    v1s = np.zeros(nq, np.int64)
    v2s = np.zeros(nq, np.int64)
    c1s = np.zeros(nq, np.int64)
    c2s = np.zeros(nq, np.int64)
    ops = np.zeros(nq, np.int64)
    f0s = np.zeros(nq, np.float64)
    f1s = np.zeros(nq, np.float64)
    nc_si = np.zeros(len(t["nc_i"]), np.int64)
    nc_sj = np.zeros(len(t["nc_j"]), np.int64)
    pq_max = 1
    for k in range(len(nd_var)):
        pq_max = max(pq_max, int(np_ptr[k + 1] - np_ptr[k]))
        if nd_var[k] >= 0:
            continue
        left = nvars[int(nd_left[k])]
        right = nvars[int(nd_right[k])]
        for q in range(int(np_ptr[k]), int(np_ptr[k + 1])):
            p = int(np_ids[q])
            v1, v2 = int(pred_i[p, 2]), int(pred_i[p, 4])
            v1s[q], v2s[q] = v1, v2
            c1s[q], c2s[q] = int(pred_i[p, 3]), int(pred_i[p, 5])
            ops[q] = int(pred_i[p, 1])
            f0s[q], f1s[q] = float(pred_f[p, 0]), float(pred_f[p, 1])
            split = (v1 in left and v2 in right) or (v1 in right and v2 in left)
            if v2 >= 0 and split and kinds[v1] != KIND_KLEENE and kinds[v2] != KIND_KLEENE:
                mode[q] = PQ_CMP if int(pred_i[p, 0]) == PK_CMP else PQ_PLAIN
                s1[q] = 0 if v1 in left else 1
        for q in range(int(t["nc_ptr"][k]), int(t["nc_ptr"][k + 1])):
            nc_si[q] = 0 if int(t["nc_i"][q]) in left else 1
            nc_sj[q] = 0 if int(t["nc_j"][q]) in left else 1
    # per node: its results' operand of the parent's first predicate, when that is a PQ_CMP
    n_nodes = len(nd_var)
    pv = np.zeros(n_nodes, np.int64)
    pv_var = np.zeros(n_nodes, np.int64)
    pv_col = np.zeros(n_nodes, np.int64)
    pv_f0 = np.zeros(n_nodes, np.float64)
    pv_f1 = np.zeros(n_nodes, np.float64)
    for k in range(n_nodes):
        if nd_var[k] >= 0 or np_ptr[k + 1] == np_ptr[k] or mode[np_ptr[k]] != PQ_CMP:
            continue
        q = int(np_ptr[k])
        for c in (int(nd_left[k]), int(nd_right[k])):
            if int(v1s[q]) in nvars[c]:
                pv[c], pv_var[c], pv_col[c] = PV_RAW, v1s[q], c1s[q]
            else:
                pv[c], pv_var[c], pv_col[c] = PV_SCALED, v2s[q], c2s[q]
                pv_f0[c], pv_f1[c] = f0s[q], f1s[q]
    return {"nd_pv": pv, "nd_pv_var": pv_var, "nd_pv_col": pv_col, "nd_pv_f0": pv_f0,
            "nd_pv_f1": pv_f1, "pq_mode": mode, "pq_s1": s1, "pq_v1": v1s, "pq_v2": v2s,
            "pq_c1": c1s,
            "pq_c2": c2s, "pq_op": ops, "pq_f0": f0s, "pq_f1": f1s, "nc_si": nc_si,
            "nc_sj": nc_sj, "pq_max": pq_max}

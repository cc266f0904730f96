"""The tree plan of the ``ztree`` engine as flat arrays for its kernel (``build_tables``).

Nodes are numbered per OR alternative, children before parents; per node ``nd_left`` /
``nd_right`` (children, -1 at a leaf), ``nd_var`` (the leaf's variable, -1 inside), ``nd_split``
(``SPLIT_LB``: the left subtree wholly precedes the right one in the pattern, so partners are
found by binary search; ``SPLIT_RB`` the reverse; ``SPLIT_GEN`` any other split, checked per
pair through the ``nc_*`` precedence / disjointness constraints), ``nd_trig`` (a leaf whose
events can complete a match: the batch trigger) and ``nd_alt``.  Predicates sit at the lowest
node binding all their variables (``np_ptr``/``np_ids``, CSR), negations at the lowest node
binding their neighbours and predicate variables (``nn_*``; start / end NOTs at the root,
``ar_*`` / ``ae_*``), with their buffers and neighbour variables (``ng_*``, ``gl_*``, ``gr_*``,
``gp_*``, ``gu_*``).  ``tl_*`` / ``tn_*`` list, per event type, the leaves and negation buffers
it enters.  See ``engines.evaluators.ztree`` for how the kernel uses them.
"""
from __future__ import annotations

import numpy as np

from engines.compile import KIND_KLEENE, KIND_NEG, OP_EQ, PI_V1, PI_V2, PK_CMP, Program
from engines.errors import CepsimInputError
from engines.pattern.ast import Same
from engines.evaluators.ztree_plan import Plan, alternatives, restrict
from engines.evaluators.ztree_probe import probe_tables
from engines.program_memo import kept, program_memo

TRIGGERS = {"push": 0, "batch": 1}
SPLIT_LB, SPLIT_RB, SPLIT_GEN = 0, 1, 2      # left wholly before right / right before left / other
CON_BEFORE, CON_DISJOINT = 0, 1
NEG_START, NEG_MID, NEG_END = 0, 1, 2

# ============================================================================= tables
def _csr(groups: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    ptr = np.zeros(len(groups) + 1, dtype=np.int64)
    for i, g in enumerate(groups):
        ptr[i + 1] = ptr[i] + len(g)
    ids = np.array([x for g in groups for x in g], dtype=np.int64)
    return ptr, ids


def _pvars(row) -> set[int]:
    return {row[PI_V1]} | ({row[PI_V2]} if row[PI_V2] >= 0 else set())


def _context(program: Program) -> dict:
    """What ``build_tables`` derives from the program alone, kept in its memo: the predicate
    rows (the global ones, then each alternative's same-attribute equalities), and per OR
    alternative its variables, predicates, precedences and where its nodes and negation
    buffers start in the tables (a binary tree over m variables has 2m - 1 nodes whatever its
    shape, so these offsets do not depend on the plan)."""
    memo = program_memo(program)
    ctx = memo.get("ztree_table_context")
    if ctx is not None:
        return ctx
    names = program.var_names
    vid = {v: i for i, v in enumerate(names)}
    pattern = program.pattern
    n_global = len([p for p in pattern.where if not isinstance(p, Same)])
    pred_i = [list(map(int, r)) for r in program.pred_i[:n_global]]
    pred_f = [list(map(float, r)) for r in program.pred_f[:n_global]]
    same_cols = []
    for p in pattern.where:
        if isinstance(p, Same):
            same_cols.append(program.schema.attr_column(p.attr))
    kinds = [int(k) for k in program.var_kind]
    alts = []
    node_base = ng_base = 0
    for alt in alternatives(program):
        pos = [vid[v] for v in alt.vars]
        negs = [vid[n] for n, _, _ in alt.negs]
        bound = set(pos) | set(negs)
        pids = [p for p in range(n_global) if _pvars(pred_i[p]) <= bound]
        anchor = pos[0]
        for c in same_cols:
            for v in sorted(bound):
                if v != anchor:
                    pids.append(len(pred_i))
                    pred_i.append([PK_CMP, OP_EQ, anchor, c, v, c, 1])
                    pred_f.append([1.0, 0.0])
        prec = {(vid[x], vid[y]) for x, y in alt.prec}
        for p in pids:
            nv = [v for v in _pvars(pred_i[p]) if kinds[v] == KIND_NEG]
            if len(nv) > 1:
                raise CepsimInputError(f"predicate '{program.pred_text[p] if p < len(program.pred_text) else p}'"
                                       " relates two negated variables; the ztree engine "
                                       "cannot evaluate it")
        alts.append({"alt": alt, "pids": pids, "prec": prec, "node_base": node_base,
                     "ng_base": ng_base, "vars": set(alt.vars)})
        node_base += 2 * len(pos) - 1
        ng_base += len(alt.negs)
    ctx = memo["ztree_table_context"] = {"vid": vid, "pred_i": pred_i, "pred_f": pred_f,
                                         "kinds": kinds, "alts": alts}
    return ctx


#: list fields of one alternative's part of the tables, in the order the tables concatenate them
_FRAGMENT_LISTS = ("nd_left", "nd_right", "nd_var", "nd_alt", "nd_split", "nd_trig", "nd_preds",
                   "nd_cons", "nd_negs", "nd_lazy", "nd_parent", "side_skip", "side_hb",
                   "side_hb_ok", "side_lb", "side_lb_ok", "ng_var", "ng_type", "ng_kind", "ng_L",
                   "ng_R", "ng_preds", "ng_upreds")


def _fragment(program: Program, ctx: dict, a: int, tree, trigger: str, ev: frozenset) -> dict:
    """Alternative ``a``'s part of the tables for its tree ``tree`` (in the tables' global
    numbering: its nodes from ``node_base``, its negation buffers from ``ng_base``), kept in
    the program's memo: the plans an adaptive run tries share most of their alternatives'
    trees, and each part depends on nothing else."""
    key = (a, tree, trigger, ev)
    parts = kept(program, "ztree_table_parts", 4096)
    hit = parts.find(key)
    if hit is not None:
        return hit
    info = ctx["alts"][a]
    alt, pids, prec = info["alt"], info["pids"], info["prec"]
    base, ng_base = info["node_base"], info["ng_base"]
    vid, pred_i, kinds = ctx["vid"], ctx["pred_i"], ctx["kinds"]
    f = {k: [] for k in _FRAGMENT_LISTS}
    nd_left, nd_right, nd_var, nd_parent = f["nd_left"], f["nd_right"], f["nd_var"], f["nd_parent"]
    side_skip = f["side_skip"]
    node_vars: list[set[int]] = []    # post-order numbering: children before parents

    def build(t) -> int:
        if isinstance(t, str):
            k = base + len(nd_left)
            v = vid[t]
            nd_left.append(-1)
            nd_right.append(-1)
            nd_var.append(v)
            f["nd_alt"].append(a)
            f["nd_split"].append(-1)
            f["nd_trig"].append(int(not any(x == v for x, _ in prec)))
            f["nd_cons"].append([])
            nd_parent.append(-1)
            node_vars.append({v})
            for _ in range(2):
                side_skip.append(0)
                f["side_hb"].append([])
                f["side_hb_ok"].append(0)
                f["side_lb"].append([])
                f["side_lb_ok"].append(0)
            return k
        lk, rk = build(t[0]), build(t[1])
        k = base + len(nd_left)
        L, R = node_vars[lk - base], node_vars[rk - base]
        cons = []
        lb = rb = True
        for x in sorted(L):
            for y in sorted(R):
                if (x, y) in prec:
                    cons.append((x, y, CON_BEFORE))
                    rb = False
                elif (y, x) in prec:
                    cons.append((y, x, CON_BEFORE))
                    lb = False
                else:
                    cons.append((x, y, CON_DISJOINT))
                    lb = rb = False
        nd_left.append(lk)
        nd_right.append(rk)
        nd_var.append(-1)
        f["nd_alt"].append(a)
        f["nd_split"].append(SPLIT_LB if lb else SPLIT_RB if rb else SPLIT_GEN)
        f["nd_trig"].append(0)
        f["nd_cons"].append(cons)
        nd_parent.append(-1)
        nd_parent[lk - base] = k
        nd_parent[rk - base] = k
        node_vars.append(L | R)
        # per side (0: new right vs old left, 1: new left vs old right) the bounds that
        # restrict the stored side by binary search on its (sorted) last positions
        for old, new, oldk in ((L, R, lk), (R, L, rk)):
            # every new variable has a stored variable after it: the new result's newest
            # event would precede a stored event -- no partner at all
            side_skip.append(int(all(any((w, x) in prec for x in old) for w in new)))
            # stored.last < max over stored x of min over new w after x of first(w)
            hb = [(x, w) for x in sorted(old) for w in sorted(new) if (x, w) in prec]
            f["side_hb"].append(hb)
            f["side_hb_ok"].append(int(all(any(xx == x for xx, _ in hb) for x in old)))
            # a stored plain leaf u: its position > last(v) for every new v before u
            u = next(iter(old)) if len(old) == 1 else -1
            leaf_plain = u >= 0 and nd_var[oldk - base] == u and kinds[u] != KIND_KLEENE
            lbv = [v for v in sorted(new) if leaf_plain and (v, u) in prec]
            f["side_lb"].append(lbv)
            f["side_lb_ok"].append(int(bool(lbv)))
        return k

    root = build(tree)
    if root != base + 2 * len(alt.vars) - 2:     # pragma: no cover - restrict's contract
        raise AssertionError(f"alternative {a}: plan tree {tree} is not over its variables")
    nodes = range(base, root + 1)
    evid = {vid[x] for x in ev}
    nd_lazy = f["nd_lazy"]
    for k in nodes:
        if trigger == "push":
            nd_lazy.append(0)
        elif nd_var[k - base] >= 0:
            nd_lazy.append(-1)             # leaves: fixed below from their parent
        else:
            nd_lazy.append(int(not node_vars[k - base] <= evid))
    for k in nodes:
        if nd_var[k - base] >= 0 and nd_lazy[k - base] < 0:
            par = nd_parent[k - base]
            nd_lazy[k - base] = 1 if par < 0 else nd_lazy[par - base]

    def lowest(vs: set[int]) -> int:
        best = root
        for k in nodes:
            if vs <= node_vars[k - base] and len(node_vars[k - base]) < len(node_vars[best - base]):
                best = k
        return best

    preds_at: dict[int, list[int]] = {k: [] for k in nodes}
    negs_at: dict[int, list[int]] = {k: [] for k in nodes}
    for p in pids:
        vs = _pvars(pred_i[p])
        if any(kinds[v] == KIND_NEG for v in vs):
            continue
        preds_at[lowest(vs)].append(p)
    rootneg, endneg = [], []
    for (n, left, right) in alt.negs:
        g = ng_base + len(f["ng_var"])
        nv = vid[n]
        f["ng_var"].append(nv)
        f["ng_type"].append(int(program.var_type[nv]))
        mine = [p for p in pids if nv in _pvars(pred_i[p])]
        f["ng_upreds"].append([p for p in mine if _pvars(pred_i[p]) == {nv}])
        f["ng_preds"].append([p for p in mine if _pvars(pred_i[p]) != {nv}])
        Lv = [vid[x] for x in left] if left is not None else []
        Rv = [vid[x] for x in right] if right is not None else []
        f["ng_L"].append(Lv)
        f["ng_R"].append(Rv)
        if left is None:
            f["ng_kind"].append(NEG_START)
            rootneg.append(g)
        elif right is None:
            f["ng_kind"].append(NEG_END)
            endneg.append(g)
        else:
            f["ng_kind"].append(NEG_MID)
            others = {v for p in f["ng_preds"][-1] for v in _pvars(pred_i[p]) if v != nv}
            k = lowest(set(Lv) | set(Rv) | others)
            if k == root:
                rootneg.append(g)
            else:
                negs_at[k].append(g)
    for k in nodes:
        f["nd_preds"].append(preds_at[k])
        f["nd_negs"].append(negs_at[k])
    f["root"], f["rootneg"], f["endneg"] = root, rootneg, endneg
    return parts.keep(key, f)


def build_tables(program: Program, plan: Plan, trigger: str = "push",
                 eager_vars: frozenset[str] = frozenset()) -> dict:
    """Everything the kernel reads, as numpy arrays (one tree per OR alternative).

    ``trigger="push"``: every node joins on arrival.  ``"batch"``: a node joins on arrival when
    its variables all lie in ``eager_vars`` (APAM's eager group), otherwise at triggers.
    Assembled from each alternative's part (``_fragment``), kept per (alternative, its tree)."""
    ctx = _context(program)
    pred_i, pred_f, kinds = ctx["pred_i"], ctx["pred_f"], ctx["kinds"]
    V = len(program.var_names)
    lists = {k: [] for k in _FRAGMENT_LISTS}
    alt_root, alt_rootneg, alt_endneg = [], [], []
    for a, info in enumerate(ctx["alts"]):
        keep = info["vars"]
        frag = _fragment(program, ctx, a, restrict(plan.tree, keep), trigger,
                         frozenset(x for x in eager_vars if x in keep))
        for k in _FRAGMENT_LISTS:
            lists[k].extend(frag[k])
        alt_root.append(frag["root"])
        alt_rootneg.append(frag["rootneg"])
        alt_endneg.append(frag["endneg"])
    (nd_left, nd_right, nd_var, nd_alt, nd_split, nd_trig, nd_preds, nd_cons, nd_negs, nd_lazy,
     nd_parent, side_skip, side_hb, side_hb_ok, side_lb, side_lb_ok, ng_var, ng_type, ng_kind,
     ng_L, ng_R, ng_preds, ng_upreds) = (lists[k] for k in _FRAGMENT_LISTS)
    n_nodes = len(nd_left)
    n_types = len(program.schema.type_names)
    tl: list[list[int]] = [[] for _ in range(n_types)]   # per type, its leaves in node order
    for k in range(n_nodes):
        if nd_var[k] >= 0:
            tl[int(program.var_type[nd_var[k]])].append(k)
    tn: list[list[int]] = [[] for _ in range(n_types)]
    for g in range(len(ng_var)):
        tn[ng_type[g]].append(g)
    cons_flat = [c for cs in nd_cons for c in cs]
    # phase-1 sources: results consumed by a lazy parent (lazy leaves, eager nodes under lazy)
    nd_src1 = [int((nd_var[k] >= 0 and nd_lazy[k] == 1)
                   or (nd_var[k] < 0 and nd_lazy[k] == 0 and nd_parent[k] >= 0
                       and nd_lazy[nd_parent[k]] == 1)) for k in range(n_nodes)]
    # transient leaves: joined on arrival and never read back as stored results by their parent
    # (e.g. every leaf but the first of an eager left-deep SEQ tree): dropped after the event
    nd_transient = []
    for k in range(n_nodes):
        par = nd_parent[k]
        tr = 0
        if nd_var[k] >= 0 and kinds[nd_var[k]] != KIND_KLEENE and nd_lazy[k] == 0 and par >= 0:
            side_old = 0 if nd_left[par] == k else 1
            tr = int(side_skip[2 * par + side_old] == 1)
        nd_transient.append(tr)
    t = dict(
        V=V, n_nodes=n_nodes, n_alts=len(alt_root),
        var_kind=np.array(kinds, dtype=np.int64),
        pred_i=np.array(pred_i, dtype=np.int32).reshape(-1, 7),
        pred_f=np.array(pred_f, dtype=np.float64).reshape(-1, 2),
        nd_left=np.array(nd_left, np.int64), nd_right=np.array(nd_right, np.int64),
        nd_var=np.array(nd_var, np.int64), nd_alt=np.array(nd_alt, np.int64),
        nd_split=np.array(nd_split, np.int64), nd_trig=np.array(nd_trig, np.int64),
        alt_root=np.array(alt_root, np.int64),
        nd_lazy=np.array(nd_lazy, np.int64), nd_src1=np.array(nd_src1, np.int64),
        nd_transient=np.array(nd_transient, np.int64),
        side_skip=np.array(side_skip, np.int64), side_hb_ok=np.array(side_hb_ok, np.int64),
        side_lb_ok=np.array(side_lb_ok, np.int64),
        ng_var=np.array(ng_var, np.int64), ng_type=np.array(ng_type, np.int64),
        ng_kind=np.array(ng_kind, np.int64))
    t["np_ptr"], t["np_ids"] = _csr(nd_preds)
    t["nn_ptr"], t["nn_ids"] = _csr(nd_negs)
    t["nc_ptr"], _ = _csr(nd_cons)
    t["nc_i"] = np.array([c[0] for c in cons_flat], np.int64)
    t["nc_j"] = np.array([c[1] for c in cons_flat], np.int64)
    t["nc_k"] = np.array([c[2] for c in cons_flat], np.int64)
    t["hb_ptr"], _ = _csr(side_hb)
    t["hb_x"] = np.array([x for hb in side_hb for x, _ in hb], np.int64)
    t["hb_w"] = np.array([w for hb in side_hb for _, w in hb], np.int64)
    t["lb_ptr"], t["lb_v"] = _csr(side_lb)
    t["ar_ptr"], t["ar_ids"] = _csr(alt_rootneg)
    t["ae_ptr"], t["ae_ids"] = _csr(alt_endneg)
    t["gl_ptr"], t["gl_vars"] = _csr(ng_L)
    t["gr_ptr"], t["gr_vars"] = _csr(ng_R)
    t["gp_ptr"], t["gp_ids"] = _csr(ng_preds)
    t["gu_ptr"], t["gu_ids"] = _csr(ng_upreds)
    t["tl_ptr"], t["tl_nodes"] = _csr(tl)
    t["tn_ptr"], t["tn_ids"] = _csr(tn)
    t.update(probe_tables(t))
    return t

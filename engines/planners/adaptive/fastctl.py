"""Algorithm 1 per decision function as compiled passes over the snapshots.

``controller.run_controllers_python`` (the reference) advances every decision function snapshot
by snapshot in Python.  The decision functions never interact (A is a pure function of the
snapshot, ``fastplan``), so here each one runs on its own over all checks:

* ``StaticDecision`` never fires and ``UnconditionalDecision`` always does: their checks are
  known without a pass;
* ``ThresholdDecision``: one compiled pass over the monitored values of every snapshot (the
  reference value row is the last replan's);
* ``InvariantDecision``: a compiled pass that checks the current invariants until the first
  violated one, returns there, the invariants of A's plan at that snapshot are built
  (``fastplan.invariants_at``: what ``reset`` keeps of the reference planner's ``PlanResult``,
  only the kept conditions; the plan must be the batch planner's), and the pass resumes.  For
  greedy orders the tables are built compiled too (``fastplan.greedy_invariant_tables``), so the
  whole method is one compiled call (``_greedy_inv_run``).
  Greedy sides = the running products of ``greedy_score``; ZStream sides = ``shape_card_cost``
  over the stored shapes (a node table, children first) or, for ``K = all``, the split cost of
  the group's interval DP (``fastplan.zstream_dp``, ``IntervalDP.best``'s arithmetic).

Every check yields ``(work, replan)`` exactly as ``Decision.check``; ``assemble`` turns them into
the schedule and the charges ``_Controller`` would have recorded (DECISION_CHECK = work, PLAN_GEN
= 1 and PLANNER_STEP = A's steps per replan, PLAN_DEPLOY = 1 per replan that changed the plan),
and the shadow bookkeeping (a different plan available: ``better``; and D said no: ``false_neg``).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines import counters as C
from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision,
                                                ThresholdDecision, UnconditionalDecision,
                                                dp_split_work)
from engines.planners.adaptive.schedule import Schedule
from engines.planners.adaptive.fastplan import (greedy_invariant_tables, group_arrays,
                                                invariants_at, split_card_cost,
                                                zstream_dp)


class ControlRun:
    """What every decision function's pass reads: the checks (snapshot ``snaps[c]`` at stream
    position ``pos[c]``), A's plan id at ``s0`` and at every check, the distinct plans, P0 and
    the invariants of A's plan per snapshot (``invariants``, memoised)."""

    def __init__(self, stats, planner: str, groups, s0: int, s_end: int, ids0: int,
                 ids: np.ndarray, plans: list, p0):
        self.stats = stats
        self.planner = planner
        self.groups = groups
        self.s0 = s0
        self.snaps = np.arange(s0 + 1, s_end, dtype=np.int64)
        self.pos = np.asarray(stats.positions[s0 + 1:s_end], np.int64)
        self.id0 = ids0
        self.ids = ids
        self.plans = plans
        self.p0 = p0                     # A's PlanResult at s0 (the reference planner's)
        self.steps = p0.steps            # A's work does not depend on the statistics
        self._invs: dict = {}
        self.shared: dict = {}           # inputs several decision functions' passes read
        self.rate_w = np.ascontiguousarray(stats.rate_w, np.float64)
        self.sel = np.ascontiguousarray(stats.sel, np.float64)

    def invariants(self, s: int, D: InvariantDecision) -> tuple[tuple, list, tuple]:
        """``(plan, invariants, tables)`` of A at snapshot ``s`` for ``D``'s ``K``
        (``fastplan.invariants_at``; the arrays of ``greedy_tables`` / ``tree_tables``), memoised
        per ``(s, K)``: invariant methods that differ in ``d`` only replan at common snapshots."""
        key = (s, D.K)
        out = self._invs.get(key)
        if out is None:
            plan, inv = invariants_at(self.planner, self.groups, self.rate_w, self.sel, s,
                                      D.keep)
            tab = greedy_tables(inv) if self.planner == "greedy" else tree_tables(inv,
                                                                                   D.K is None)
            out = self._invs[key] = (plan, inv, tab)
        return out


# ----------------------------------------------------------------------------- threshold
@njit(cache=True)
def _threshold_pass(vals, t, work, replan):
    """Row 0 of ``vals`` = the values at the initial plan, row ``c + 1`` = check ``c``."""
    r = 0
    L = vals.shape[1]
    for c in range(vals.shape[0] - 1):
        row = c + 1
        w = 0
        fire = False
        for i in range(L):
            w += 1
            x = vals[row, i]
            x0 = vals[r, i]
            if (x0 == 0.0 and x > 0.0) or abs(x - x0) > t * x0:
                fire = True
                break
        work[c] = w
        replan[c] = fire
        if fire:
            r = row


def _threshold(D: ThresholdDecision, run: ControlRun):
    D.reset(None, run.stats.rate_w[run.s0], run.stats.sel[run.s0], run.groups)
    key = ("thr", tuple(D.vars), D.pairs)
    vals = run.shared.get(key)
    if vals is None:        # the monitored values at s0 and every check, shared by thresholds
        rows = np.concatenate([[run.s0], run.snaps]).astype(np.int64)
        pa = np.asarray([a for a, _ in D.pairs], np.int64)
        pb = np.asarray([b for _, b in D.pairs], np.int64)
        vals = np.concatenate([run.rate_w[rows][:, np.asarray(D.vars, np.int64)],
                               run.sel[rows[:, None], pa[None, :], pb[None, :]]], axis=1)
        vals = run.shared[key] = np.ascontiguousarray(vals, np.float64)
    n = len(run.snaps)
    work = np.zeros(n, np.int64)
    replan = np.zeros(n, np.bool_)
    _threshold_pass(vals, D.t, work, replan)
    if np.any(replan):        # the decision's state after the pass, as the reference leaves it
        last = int(run.snaps[np.flatnonzero(replan)[-1]])
        D.reset(None, run.stats.rate_w[last], run.stats.sel[last], run.groups)
    return work, replan


# ----------------------------------------------------------------------------- invariants
@njit(cache=True)
def _greedy_inv_pass(rate_w, sel, snaps, c_lo, win, lose, pref, plen, d, work):
    """Checks ``c_lo..``: ``InvariantDecision.check`` on greedy conditions; returns the first
    check that fires (or ``len(snaps)``)."""
    m = win.shape[0]
    for c in range(c_lo, snaps.shape[0]):
        s = snaps[c]
        w = 0
        for i in range(m):
            w += 2
            a = win[i]
            b = lose[i]
            f1 = greedy_side(rate_w, sel, s, a, pref, i, plen[i])
            f2 = greedy_side(rate_w, sel, s, b, pref, i, plen[i])
            if d == 0.0:
                bad = f1 > f2 or (f1 == f2 and a > b)
            else:
                bad = f1 > (1.0 + d) * f2
            if bad:
                work[c] = w
                return c
        work[c] = w
    return snaps.shape[0]


def greedy_tables(invariants):
    m = len(invariants)
    win = np.asarray([c.winner for c in invariants], np.int64)
    lose = np.asarray([c.loser for c in invariants], np.int64)
    plen = np.asarray([len(c.prefix) for c in invariants], np.int64)
    pref = np.zeros((m, max([1] + [len(c.prefix) for c in invariants])), np.int64)
    for i, c in enumerate(invariants):
        pref[i, :len(c.prefix)] = c.prefix
    return win, lose, pref, plen


@leaf_njit
def node_card_cost(rate_w, sel, s, nvar, nl, nr, nlo, nmid, nhi, leafseq, card, cost):
    """(Card, Cost) of every node of a node table (``tree_tables``) at snapshot ``s``:
    ``planners.shape_card_cost``'s arithmetic."""
    for u in range(nvar.shape[0]):
        v = nvar[u]
        if v >= 0:
            x = rate_w[s, v] * sel[s, v, v]
            card[u] = x
            cost[u] = x
        else:
            x = 1.0
            for i in range(nlo[u], nmid[u]):
                for j in range(nmid[u], nhi[u]):
                    x *= sel[s, leafseq[i], leafseq[j]]
            cd = card[nl[u]] * card[nr[u]] * x
            card[u] = cd
            cost[u] = cost[nl[u]] + cost[nr[u]] + cd


@leaf_njit
def greedy_side(rate_w, sel, s, v, pref, i, n):
    """``greedy_score(v, pref[i, :n])`` at snapshot ``s``, the same products in prefix order."""
    f = rate_w[s, v] * sel[s, v, v]
    for q in range(n):
        f *= sel[s, pref[i, q], v]
    return f


@njit(cache=True)
def _tree_inv_pass(rate_w, sel, snaps, c_lo, nvar, nl, nr, nlo, nmid, nhi, leafseq,
                   cw, cl, cg, ca, cb, ckw, ckl, cum, exact, gv, goff, d, work):
    """Checks ``c_lo..``: ``InvariantDecision.check`` on ZStream conditions.  Nodes (children
    before parents): ``nvar`` = leaf variable or -1; an inner node's left leaves are
    ``leafseq[nlo:nmid]``, right leaves ``leafseq[nmid:nhi]``.  Condition ``i``: winner node
    ``cw[i]``, loser node ``cl[i]`` (or, ``exact``, split ``ckl[i]`` of the interval
    ``[ca[i], cb[i]]`` of group ``cg[i]`` re-optimised); work after it = ``cum[i]``."""
    N = nvar.shape[0]
    m = cw.shape[0]
    G = goff.shape[0] - 1
    mm = 1
    for g in range(G):
        mm = max(mm, goff[g + 1] - goff[g])
    card = np.empty(N, np.float64)
    cost = np.empty(N, np.float64)
    dcard = np.empty((G, mm, mm), np.float64)
    dcost = np.empty((G, mm, mm), np.float64)
    dbest = np.empty((mm, mm), np.int64)
    have = np.zeros(G, np.bool_)
    for c in range(c_lo, snaps.shape[0]):
        s = snaps[c]
        node_card_cost(rate_w, sel, s, nvar, nl, nr, nlo, nmid, nhi, leafseq, card, cost)
        have[:] = False
        fired = False
        for i in range(m):
            f1 = cost[cw[i]]
            if exact:
                g = cg[i]
                a0 = goff[g]
                if not have[g]:
                    zstream_dp(gv, a0, goff[g + 1] - a0, rate_w, sel, s, dcard[g], dcost[g], dbest)
                    have[g] = True
                f2 = split_card_cost(gv, a0, ca[i], ckl[i], cb[i], sel, s, dcard[g], dcost[g])[1]
            else:
                f2 = cost[cl[i]]
            if d == 0.0:
                bad = f1 > f2 or (f1 == f2 and ckl[i] < ckw[i])
            else:
                bad = f1 > (1.0 + d) * f2
            if bad:
                work[c] = cum[i]
                fired = True
                break
        if fired:
            return c
        work[c] = cum[m - 1] if m else 0
    return snaps.shape[0]


class _Nodes:
    """The node table of ``tree_tables`` (methods, not closures: a closure that calls itself is a
    reference cycle, which ``controller._fast_controllers`` would keep until its end)."""

    def __init__(self):
        self.by_obj: dict = {}    # id(shape) -> node: the invariants keep every shape alive
        self.by_struct: dict = {}
        self.nvar, self.nl, self.nr = [], [], []
        self.nlo, self.nmid, self.nhi = [], [], []
        self.leafseq: list = []
        self.leaves: list = []
        self.seen: set = set()

    def node(self, s) -> int:
        u = self.by_obj.get(id(s))
        if u is not None:
            return u
        if isinstance(s, tuple):
            left, right = self.node(s[0]), self.node(s[1])
            key = (left, right)
        else:
            key = ("leaf", int(s))
        u = self.by_struct.get(key)
        if u is None:
            u = self.by_struct[key] = len(self.nvar)
            if isinstance(s, tuple):
                lo = len(self.leafseq)
                self.leafseq.extend(self.leaves[left])
                self.leafseq.extend(self.leaves[right])
                self.nvar.append(-1)
                self.nl.append(left)
                self.nr.append(right)
                self.nlo.append(lo)
                self.nmid.append(lo + len(self.leaves[left]))
                self.nhi.append(len(self.leafseq))
                self.leaves.append(self.leaves[left] + self.leaves[right])
            else:
                self.nvar.append(int(s))
                self.nl.append(-1)
                self.nr.append(-1)
                self.nlo.append(0)
                self.nmid.append(0)
                self.nhi.append(0)
                self.leaves.append([int(s)])
        self.by_obj[id(s)] = u
        return u

    def mark(self, u: int) -> None:
        """Add node ``u`` and its subtrees to ``seen``."""
        if u not in self.seen:
            self.seen.add(u)
            if self.nvar[u] < 0:
                self.mark(self.nl[u])
                self.mark(self.nr[u])


def tree_tables(invariants, exact: bool):
    """Node table and condition arrays of ``_tree_inv_pass`` for a plan's invariants, and the
    work after each condition: what ``InvariantDecision.check`` counts from empty memos
    (``tree_violated``), the distinct subtrees of the sides so far plus the DP splits of the
    distinct sub-intervals when ``exact``.  Nodes are
    hash-consed by structure (a leaf by its variable, an inner node by its children's ids), so
    equal subtrees are one node, as equal shapes are one subtree of that count."""
    t = _Nodes()
    cw, cl, cum = [], [], []
    intervals: dict = {}
    dp_work = 0
    for c in invariants:
        cw.append(t.node(c.winner))
        t.mark(cw[-1])
        if exact:
            cl.append(-1)
            dp_work += dp_split_work(intervals.setdefault(c.group, set()), c.a, c.b)
        else:
            cl.append(t.node(c.loser))
            t.mark(cl[-1])
        cum.append(len(t.seen) + dp_work)

    def i64(x):
        return np.asarray(x, np.int64).reshape(-1)

    return (i64(t.nvar), i64(t.nl), i64(t.nr), i64(t.nlo), i64(t.nmid), i64(t.nhi),
            i64(t.leafseq), i64(cw), i64(cl), i64([c.group for c in invariants]),
            i64([c.a for c in invariants]), i64([c.b for c in invariants]),
            i64([c.k_win for c in invariants]), i64([c.k_lose for c in invariants]), i64(cum))


@njit(cache=True)
def _tree_const_pass(sel, snaps, c_lo, k1, c1, k2, c2, poff1, pa1, pb1, poff2, pa2, pb2, ckw,
                     ckl, d, work):
    """Checks ``c_lo..``: ``InvariantDecision.check`` with ``subtree = "constant"``: side ``j``
    of condition ``i`` is ``kj[i] + cj[i] * prod(sel[s, pa, pb])`` over its pairs
    ``poffj[i]:poffj[i + 1]`` (``planners.subtree_constants``); 2 operations per condition."""
    m = k1.shape[0]
    for c in range(c_lo, snaps.shape[0]):
        s = snaps[c]
        w = 0
        for i in range(m):
            w += 2
            x1 = 1.0
            for q in range(poff1[i], poff1[i + 1]):
                x1 *= sel[s, pa1[q], pb1[q]]
            x2 = 1.0
            for q in range(poff2[i], poff2[i + 1]):
                x2 *= sel[s, pa2[q], pb2[q]]
            f1 = k1[i] + c1[i] * x1
            f2 = k2[i] + c2[i] * x2
            if d == 0.0:
                bad = f1 > f2 or (f1 == f2 and ckl[i] < ckw[i])
            else:
                bad = f1 > (1.0 + d) * f2
            if bad:
                work[c] = w
                return c
        work[c] = w
    return snaps.shape[0]


def const_tables(invariants, consts) -> tuple:
    """The arrays of ``_tree_const_pass`` for conditions and their ``subtree_constants``."""
    k1, c1, k2, c2 = ([float(k[j]) for k in consts] for j in (0, 1, 3, 4))
    tabs = []
    for j in (2, 5):
        off = np.zeros(len(consts) + 1, np.int64)
        np.cumsum([len(k[j]) for k in consts], out=off[1:])
        pa = np.asarray([a for k in consts for a, _ in k[j]], np.int64)
        pb = np.asarray([b for k in consts for _, b in k[j]], np.int64)
        tabs.append((off, pa, pb))
    f = lambda x: np.asarray(x, np.float64).reshape(-1)    # noqa: E731
    i = lambda x: np.asarray(x, np.int64).reshape(-1)      # noqa: E731
    return (f(k1), f(c1), f(k2), f(c2), *tabs[0], *tabs[1],
            i([c.k_win for c in invariants]), i([c.k_lose for c in invariants]))


@njit(cache=True)
def _greedy_inv_run(rate_w, sel, snaps, c, win, lose, pref, plen, d, gv, goff, K, work, replan,
                    orders):
    """Checks ``c..`` of a greedy invariant method in one compiled call: ``_greedy_inv_pass``
    to the first violated invariant, then the invariants of A's plan there
    (``greedy_invariant_tables``), and on.  ``orders[j]`` = A's order at the ``j``-th replan
    made here.  Returns ``(c_end, replans)``: ``c_end < len(snaps)`` when the tables at check
    ``c_end`` (already marked in ``replan``) need the Python path (``ok`` False)."""
    n = snaps.shape[0]
    j = 0
    while c < n:
        stop = _greedy_inv_pass(rate_w, sel, snaps, c, win, lose, pref, plen, d, work)
        if stop >= n:
            break
        replan[stop] = True
        order, win, lose, pref, plen, ok = greedy_invariant_tables(gv, goff, rate_w, sel,
                                                                   snaps[stop], K)
        if not ok:
            return stop, j
        orders[j, :] = order
        j += 1
        c = stop + 1
    return n, j


def _greedy_invariant(D: InvariantDecision, run: ControlRun, work, replan):
    """The greedy invariant method's checks: compiled runs (``_greedy_inv_run``); a replan whose
    margins sum to NaN takes the Python conditions (``ControlRun.invariants``).  A's order at
    every replan is checked against the batch planner's; D is left as the reference leaves it
    (the last replan's conditions installed)."""
    n = len(run.snaps)
    gv, goff = group_arrays(run.groups)
    K = -1 if D.K is None else int(D.K)
    tab = greedy_tables(D.invariants)
    orders = np.empty((n, len(gv)), np.int64)
    c = 0
    while c < n:
        j0 = int(np.count_nonzero(replan[:c]))
        c_end, j = _greedy_inv_run(run.rate_w, run.sel, run.snaps, c, *tab, D.d, gv, goff, K,
                                   work, replan, orders[j0:])
        if c_end >= n:
            break
        s = int(run.snaps[c_end])        # NaN margins: the Python conditions decide
        plan, _, tab = run.invariants(s, D)
        orders[j0 + j] = plan
        c = c_end + 1
    stops = np.flatnonzero(replan)
    for j, stop in enumerate(stops.tolist()):
        plan = tuple(orders[j].tolist())
        if plan != run.plans[run.ids[stop]]:
            raise RuntimeError(f"adaptive: the two compiled planners disagree at snapshot "
                               f"{int(run.snaps[stop])}: {run.plans[run.ids[stop]]} vs {plan}")
    if len(stops):
        last = int(run.snaps[stops[-1]])
        _, inv, _ = run.invariants(last, D)
        D.install(D.kind, inv, run.groups, run.stats.rate_w[last], run.stats.sel[last])
    return work, replan


def _invariant(D: InvariantDecision, run: ControlRun):
    n = len(run.snaps)
    work = np.zeros(n, np.int64)
    replan = np.zeros(n, np.bool_)
    D.reset(run.p0, run.stats.rate_w[run.s0], run.stats.sel[run.s0], run.groups)
    exact = D.K is None
    gv, goff = group_arrays(run.groups)
    constant = D.kind == "tree" and D.subtree == "constant"
    if D.kind == "order":
        return _greedy_invariant(D, run, work, replan)

    def tables(tab=None):
        """The pass's tables for D's installed invariants (``tab``: the memoised ones)."""
        if constant:
            return const_tables(D.invariants, D.consts)
        if tab is not None:
            return tab
        return tree_tables(D.invariants, exact)

    tab = tables()
    c = 0
    while c < n:
        if constant:
            stop = _tree_const_pass(run.sel, run.snaps, c, *tab, D.d, work)
        else:
            stop = _tree_inv_pass(run.rate_w, run.sel, run.snaps, c, *tab, exact, gv, goff, D.d,
                                  work)
        if stop >= n:
            break
        replan[stop] = True
        s = int(run.snaps[stop])
        plan, inv, memo_tab = run.invariants(s, D)
        if plan != run.plans[run.ids[stop]]:
            raise RuntimeError(f"adaptive: the two compiled planners disagree at snapshot {s}: "
                               f"{run.plans[run.ids[stop]]} vs {plan}")
        D.install(D.kind, inv, run.groups, run.stats.rate_w[s], run.stats.sel[s])
        tab = tables(memo_tab)
        c = stop + 1
    return work, replan


def decision_pass(D, run: ControlRun) -> tuple[np.ndarray, np.ndarray]:
    """``(work, replan)`` of every check of ``D`` (``int64`` / ``bool`` per check)."""
    n = len(run.snaps)
    if type(D) is StaticDecision:
        return np.zeros(n, np.int64), np.zeros(n, np.bool_)
    if type(D) is UnconditionalDecision:
        return np.zeros(n, np.int64), np.ones(n, np.bool_)
    if type(D) is ThresholdDecision:
        return _threshold(D, run)
    if type(D) is InvariantDecision:
        return _invariant(D, run)
    return None


def assemble(D, run: ControlRun, work: np.ndarray, replan: np.ndarray, shadow: bool,
             n_events: int, d0: float, dense: bool):
    """The ``Schedule`` of one decision function from its checks (module docstring)."""
    n_chk = len(work)
    ids = run.ids
    at = np.where(replan, np.arange(n_chk), -1)
    last = np.maximum.accumulate(at) if n_chk else at
    before = np.concatenate([[-1], last[:-1]]) if n_chk else at
    cur = np.where(before >= 0, ids[np.maximum(before, 0)], run.id0)
    differs = ids != cur
    deploy = replan & differs
    starts = [0] + (run.pos[deploy] + 1).tolist()
    plans = [run.plans[run.id0]] + [run.plans[i] for i in ids[deploy].tolist()]
    n_repl = int(np.count_nonzero(deploy))
    calls = int(np.count_nonzero(replan))
    better = int(np.count_nonzero(differs)) if shadow else 0
    fn = int(np.count_nonzero(~replan & differs)) if shadow else 0
    rows_mask = (work != 0) | replan
    rows = run.pos[rows_mask]
    vals = np.zeros((len(rows), C.N_COUNTERS), np.int64)
    vals[:, C.DECISION_CHECK] = work[rows_mask]
    rp = replan[rows_mask]
    vals[:, C.PLAN_GEN] = rp
    vals[:, C.PLANNER_STEP] = rp * np.int64(run.steps)
    vals[:, C.PLAN_DEPLOY] = deploy[rows_mask]
    n = max(n_events, 1)
    uses = D.uses_stats
    stat_work = run.stats.stat_work
    if dense:
        charges = C.new_counters(n_events)
        charges[rows] += vals
        if uses:
            charges[:, C.STAT_UPDATE] += stat_work[:n_events]
    else:
        charges = (n, rows, vals, bool(uses and np.any(stat_work[:n])))
    kind = "order" if run.planner == "greedy" else "tree"
    return Schedule(kind, starts, plans, charges, n_chk, calls, n_repl, calls - n_repl, fn,
                    better, d0)

"""The detection-adaptation loop (Algorithm 1) as a controller pass producing a plan schedule.

Statistics never depend on the running plan (``engines.planners.adaptive.stats``), so the loop can be run
before the evaluation: at every snapshot after the warm-up (one every ``check_every`` events) D
is evaluated; if it says so A is called; if A returns a plan different from the current one, the
new plan is deployed for the events *after* the snapshot position.  The initial plan P0 is A on
the warm-up snapshot (the same P0 for every method; not charged).  The evaluation of the schedule
(``engines.planners.adaptive.epochs``) is separate.

Charged work, added to the row of the event at which it happens: DECISION_CHECK (D's work),
PLAN_GEN (one per call of A), PLANNER_STEP (A's scores / splits), PLAN_DEPLOY (one per
replacement) and STAT_UPDATE (the statistics pass, every event, unless D is static).

Accuracy bookkeeping (``shadow=True``): at every check an *uncharged* shadow call of A tells
whether a different plan was available; ``false_neg`` counts checks where it was and D said no,
``false_pos`` counts calls of A triggered by D that returned the current plan.

Two implementations of the same loop: ``run_controller(s)`` compute it with compiled passes
(``fastplan``: A at every snapshot at once; ``fastctl``: each decision function's checks), and
``run_controllers_python`` is the plain loop (``_Controller.step``), kept as the reference the
tests compare every schedule, charge and count with.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.planners.adaptive.decision import Decision, d_avg
from engines.planners.adaptive.planners import make_planner, planning_groups
from engines.planners.adaptive.schedule import Schedule
from engines.planners.adaptive.stats import StatsSnapshots
from engines.compile import Program
from engines.errors import CepsimInputError


def warmup_snapshot(stats: StatsSnapshots, n_warmup: int) -> int:
    idx = int(np.searchsorted(stats.positions, n_warmup, side="left")) - 1
    if idx < 0:
        raise CepsimInputError(f"adaptive: the warm-up ({n_warmup} events) ends before the first "
                               f"statistics snapshot; raise n_warmup or lower check_every")
    return idx


class _Controller:
    """Algorithm 1's state for one decision function over one statistics pass: the loop body as
    ``step``, so that ``run_controllers_python`` (the reference) can advance several decision
    functions snapshot by snapshot.  Charges are kept per charged event (``rows``)."""

    def __init__(self, stats: StatsSnapshots, decision: Decision, s0: int, A, groups,
                 shadow: bool):
        self.decision = decision
        self.shadow = shadow
        self.pr = A(s0)
        decision.reset(self.pr, stats.rate_w[s0], stats.sel[s0], groups)
        self.d0 = d_avg(self.pr)
        self.starts, self.plans = [0], [self.pr.plan]
        self.ch_p: list[int] = []        # charges as (event, column, value), value != 0
        self.ch_c: list[int] = []
        self.ch_v: list[int] = []
        self.n_checks = self.calls = self.repl = self.fp = self.fn = self.better = 0

    def _charge(self, p: int, col: int, v: int) -> None:
        if v:
            self.ch_p.append(p)
            self.ch_c.append(col)
            self.ch_v.append(int(v))

    def step(self, s: int, p: int, rw, sel, A, groups) -> None:
        self.n_checks += 1
        replan, work = self.decision.check(rw, sel)
        self._charge(p, C.DECISION_CHECK, work)
        differs = None
        if self.shadow:
            differs = A(s).plan != self.pr.plan
            self.better += differs
        if replan:
            npr = A(s)
            self.calls += 1
            self._charge(p, C.PLAN_GEN, 1)
            self._charge(p, C.PLANNER_STEP, npr.steps)
            if npr.plan != self.pr.plan:
                self.repl += 1
                self._charge(p, C.PLAN_DEPLOY, 1)
                self.starts.append(p + 1)
                self.plans.append(npr.plan)
            else:
                self.fp += 1
            self.pr = npr
            self.decision.reset(npr, rw, sel, groups)
        elif differs:
            self.fn += 1

    def schedule(self, stats: StatsSnapshots, n_events: int, dense: bool = True) -> Schedule:
        """The schedule; ``charges`` dense (``int64[n, N_COUNTERS]``, as ``run_controller``
        returns it) or, with ``dense=False``, packed as ``(n, rows, vals, uses)``: the charged
        rows with work other than statistics updates (ascending), their values with STAT_UPDATE
        zeroed, and whether STAT_UPDATE is the statistics pass's work (``stat_work``)."""
        n = max(n_events, 1)
        uses = self.decision.uses_stats
        ps = np.asarray(self.ch_p, np.int64)
        cs = np.asarray(self.ch_c, np.int64)
        vs = np.asarray(self.ch_v, np.int64)
        if dense:
            charges = C.new_counters(n_events)
            np.add.at(charges, (ps, cs), vs)
            if uses:
                charges[:, C.STAT_UPDATE] += stats.stat_work[:n_events]
        else:
            rows = np.unique(ps)
            vals = np.zeros((len(rows), C.N_COUNTERS), np.int64)
            np.add.at(vals, (np.searchsorted(rows, ps), cs), vs)
            vals[:, C.STAT_UPDATE] = 0
            keep = vals.any(axis=1)
            charges = (n, rows[keep], vals[keep], bool(uses and np.any(stats.stat_work[:n])))
        return Schedule(self.pr.kind, self.starts, self.plans, charges, self.n_checks,
                        self.calls, self.repl, self.fp, self.fn, self.better, self.d0)


def _planner_memo(program: Program, stats: StatsSnapshots, planner: str,
                  plan_memo: dict | None):
    """A memoised per snapshot (``plan_memo``); a snapshot whose statistics are bit-identical to
    those of the snapshot A last ran on gets that result (A is a pure function of them: with a
    check at every event most snapshots repeat their predecessor's)."""
    groups = planning_groups(program)
    A0 = make_planner(planner)
    memo = {} if plan_memo is None else plan_memo
    last: list = [None, None, None]          # rate bytes, selectivity bytes, result

    def A(s):
        key = (planner, s)
        if key not in memo:
            rw, sel = stats.rate_w[s], stats.sel[s]
            rb, sb = rw.tobytes(), sel.tobytes()
            if last[2] is not None and rb == last[0] and sb == last[1]:
                memo[key] = last[2]
            else:
                memo[key] = A0(groups, rw, sel)
                last[:] = [rb, sb, memo[key]]
        return memo[key]

    return A, groups


def snapshot_plan_list(plan_memo: dict, planner: str, n_snap: int) -> list:
    """A's plan at every snapshot where a controller computed it (None elsewhere), from a
    ``plan_memo`` filled by ``run_controller(s)`` (the compact ``("snapshot_plans", planner)``
    entry) or by the Python path (``(planner, s)`` -> ``PlanResult``)."""
    out = list(plan_memo.get(("snapshot_plans", planner)) or [None] * n_snap)
    for k, v in plan_memo.items():
        if len(k) == 2 and k[0] == planner and isinstance(k[1], int):
            out[k[1]] = v.plan
    return out


def _fast_controllers(program: Program, stats: StatsSnapshots, planner: str,
                      decisions: list[Decision], n_events: int, n_warmup: int, shadow: bool,
                      plan_memo: dict | None, dense: bool) -> list[Schedule]:
    """``run_controllers_python``'s schedules from compiled passes (``fastplan``: A at every
    snapshot; ``fastctl``: each decision function's checks), identical in every field."""
    import gc
    # the invariant resets allocate many small acyclic objects while the memo of every replan
    # snapshot's invariants stays alive: the cyclic collector's passes over them cost more than
    # the work (0.85 s of 2.2 s on a fig6 ZStream OR n = 8 point); nothing here makes a cycle
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _fast_passes(program, stats, planner, decisions, n_events, n_warmup, shadow,
                            plan_memo, dense)
    finally:
        if enabled:
            gc.enable()


def _fast_passes(program, stats, planner, decisions, n_events, n_warmup, shadow, plan_memo,
                 dense):
    from engines.planners.adaptive import fastctl
    from engines.planners.adaptive.fastplan import snapshot_plans
    groups = planning_groups(program)
    ref = make_planner(planner)
    s0 = warmup_snapshot(stats, n_warmup)
    s_end = max(s0 + 1, int(np.searchsorted(stats.positions, n_events - 1, side="left")))
    ids, plans = snapshot_plans(planner, groups, stats.rate_w, stats.sel, s0, s_end)
    p0 = ref(groups, stats.rate_w[s0], stats.sel[s0])
    if p0.plan != plans[ids[0]]:
        raise RuntimeError(f"adaptive: the batch planner and the reference planner disagree at "
                           f"snapshot {s0}: {plans[ids[0]]} vs {p0.plan}")
    run = fastctl.ControlRun(stats, planner, groups, s0, s_end, int(ids[0]), ids[1:], plans, p0)
    d0 = d_avg(p0)
    computed = np.zeros(s_end - s0 - 1, np.bool_) if not shadow else \
        np.ones(s_end - s0 - 1, np.bool_)
    out = []
    for D in decisions:
        res = fastctl.decision_pass(D, run)
        if res is None:          # a decision function without a compiled pass
            out.append(run_controllers_python(program, stats, planner, [D], n_events, n_warmup,
                                              shadow, plan_memo, dense)[0])
            continue
        work, replan = res
        computed |= replan
        out.append(fastctl.assemble(D, run, work, replan, shadow, n_events, d0, dense))
    if plan_memo is not None:
        key = ("snapshot_plans", planner)
        lst = plan_memo.get(key) or [None] * len(stats)
        lst[s0] = plans[ids[0]]
        for c in np.flatnonzero(computed).tolist():
            lst[s0 + 1 + c] = plans[ids[1 + c]]
        plan_memo[key] = lst
    return out


def run_controller(program: Program, stats: StatsSnapshots, planner: str, decision: Decision,
                   n_events: int, n_warmup: int, shadow: bool = False,
                   plan_memo: dict | None = None) -> Schedule:
    """Run Algorithm 1 over the snapshots of ``stats`` (module docstring).  ``plan_memo`` (a
    dict, shared across decision functions on the same statistics) records A's plan per
    snapshot (``snapshot_plan_list``).  Computed by compiled passes (``fastctl``); the same
    schedule as ``run_controllers_python``."""
    return _fast_controllers(program, stats, planner, [decision], n_events, n_warmup, shadow,
                             plan_memo, True)[0]


def run_controllers(program: Program, stats: StatsSnapshots, planner: str,
                    decisions: list[Decision], n_events: int, n_warmup: int,
                    shadow: bool = False, plan_memo: dict | None = None) -> list[Schedule]:
    """``[run_controller(..., D, ...) for D in decisions]`` with packed charges
    (``_Controller.schedule(dense=False)``), A's plans computed once for all of them
    (``fastplan``).  ``tests/test_adaptive_controller.py`` checks equality with the Python
    reference (``run_controllers_python``) and with a plain per-decision loop."""
    return _fast_controllers(program, stats, planner, decisions, n_events, n_warmup, shadow,
                             plan_memo, False)


def run_controllers_python(program: Program, stats: StatsSnapshots, planner: str,
                           decisions: list[Decision], n_events: int, n_warmup: int,
                           shadow: bool = False, plan_memo: dict | None = None,
                           dense: bool = False) -> list[Schedule]:
    """The reference (Algorithm 1 as written, without the compiled passes of ``fastctl``):
    the controllers advance together snapshot by snapshot, each checking with its own
    ``Decision.check``; A memoised per snapshot in ``plan_memo`` as ``(planner, s)`` ->
    ``PlanResult``."""
    A, groups = _planner_memo(program, stats, planner, plan_memo)
    s0 = warmup_snapshot(stats, n_warmup)
    ctls = [_Controller(stats, D, s0, A, groups, shadow) for D in decisions]
    for s in range(s0 + 1, len(stats)):
        p = int(stats.positions[s])
        if p + 1 >= n_events:
            break
        rw, sel = stats.rate_w[s], stats.sel[s]
        for ctl in ctls:
            ctl.step(s, p, rw, sel, A, groups)
    return [ctl.schedule(stats, n_events, dense=dense) for ctl in ctls]

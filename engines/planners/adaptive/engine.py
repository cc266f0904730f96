"""Registry entry ``adaptive``: invariant-based adaptive re-planning (PVLDB'18) as one engine.

``run_adaptive(program, stream, planner="zstream"|"greedy", ...)`` chains the existing pieces of
``engines.planners.adaptive`` exactly as ``sim/studies/adaptive/scenario.py`` does for one decision
method: the plan-independent statistics pass (``stats.compute_stats``, a snapshot every
``check_every`` events over a statistics window ``w_s``), the controller (Algorithm 1,
``controller.run_controller``) with the invariant decision function (``decision.
InvariantDecision``; distance ``d``, default ``d_avg`` of the initial plan -- the paper's
section 3.4 rule, no tuning -- and the ``K`` tightest conditions per block), and the epoch
evaluation of the resulting plan schedule (``epochs.run_schedule``: greedy orders on the lazy
chain NFA, ZStream trees on the ``ztree`` evaluator).  The counters are the evaluator's plus the
adaptation charges (STAT_UPDATE, DECISION_CHECK, PLAN_GEN, PLANNER_STEP, PLAN_DEPLOY), so the
cost profile prices the re-planning too.  ``decision="static"`` keeps the initial plan P0 (no
statistics charged after the warm-up: the static baseline of the paper).

Defaults follow the adaptive experiments (``experiments/adaptive/fig5.toml``): a check every 10
events, ``w_s`` = 10 pattern windows, 8 sub-buckets, 4 samples per partner, the first 10 % of
the stream as warm-up (P0 = the planner on the warm-up statistics, not charged).

Count windows (``WITHIN n events``): the statistics pass measures rates per second; for such a
pattern it runs on the stream's positions as timestamps (event i at time i), so that a window of
n events is a window of n "seconds" and ``w_s`` counts events.  This reading is ours (the paper
uses time windows only); the evaluation itself always uses the real stream.

``initial_plan`` gives P0 alone, as an engine option (``chain order=...`` / ``ztree plan=...``):
the static plan each planner picks from the warm-up.
"""
from __future__ import annotations

import math

import numpy as np

from engines.compile import WIN_COUNT, Program
from engines.errors import CepsimInputError

PLANNERS = ("greedy", "zstream")
DECISIONS = ("invariant", "static")
SWITCHES = ("disjoint", "duplicate")


def _stats_stream(program: Program, stream):
    """The stream the statistics see: positions as timestamps for a count window."""
    if program.window_kind != WIN_COUNT:
        return stream
    from engines.stream import EventStream
    return EventStream(stream.types, np.arange(len(stream), dtype=np.float64), stream.attrs,
                       stream.schema, stream.source)


def _setup(program: Program, stream, planner: str, check_every: int, w_s, n_warmup,
           n_buckets: int, n_samples: int):
    if planner not in PLANNERS:
        raise CepsimInputError(f"adaptive engine: planner must be one of {PLANNERS}, got "
                               f"{planner!r}")
    if program.has_remote:
        raise CepsimInputError("the adaptive engine cannot evaluate REMOTE[...] predicates")
    W = float(program.window)
    if not math.isfinite(W) or W <= 0:
        raise CepsimInputError("the adaptive engine needs a window (WITHIN ...): its statistics "
                               "are rates per window")
    n = len(stream)
    check_every = int(check_every)
    warm = max(n // 10, check_every) if n_warmup is None else int(n_warmup)
    if n < 2 * check_every or warm >= n:
        raise CepsimInputError(f"the adaptive engine needs a stream longer than its warm-up "
                               f"({warm} events) and two checks ({check_every} events each); "
                               f"got {n} events")
    from engines.planners.adaptive.stats import check_positions, compute_stats
    ws = 10.0 * W if w_s is None else float(w_s)
    stats = compute_stats(program, _stats_stream(program, stream),
                          check_positions(n, check_every), ws, int(n_buckets), int(n_samples),
                          window=W)
    return stats, warm


def format_plan(program: Program, kind: str, plan) -> str:
    """A plan of the planners as the evaluator's option text: ``"c,a,b"`` (order) or the ztree
    plan text ``"((a,b),c)"`` (tree)."""
    if kind == "order":
        return ",".join(program.var_names[v] for v in plan)
    from engines.evaluators.ztree_plan import format_plan as fmt
    from engines.planners.adaptive.epochs import plan_to_ztree
    return fmt(plan_to_ztree(program, plan))


def initial_plan(program: Program, stream, planner: str = "zstream", check_every: int = 10,
                 w_s: float | None = None, n_warmup: int | None = None, n_buckets: int = 8,
                 n_samples: int = 4) -> str:
    """P0: the planner's plan on the warm-up statistics, as option text (``format_plan``)."""
    from engines.planners.adaptive.controller import warmup_snapshot
    from engines.planners.adaptive.planners import make_planner, planning_groups
    stats, warm = _setup(program, stream, planner, check_every, w_s, n_warmup, n_buckets,
                         n_samples)
    s0 = warmup_snapshot(stats, warm)
    pr = make_planner(planner)(planning_groups(program), stats.rate_w[s0], stats.sel[s0])
    return format_plan(program, pr.kind, pr.plan)


def run_adaptive(program: Program, stream, planner: str = "zstream",
                 decision: str = "invariant", d: float | None = None, K: int | None = 1,
                 check_every: int = 10, w_s: float | None = None, n_warmup: int | None = None,
                 n_buckets: int = 8, n_samples: int = 4, max_partial_matches: int | None = None,
                 max_matches: int | None = None, switch: str = "disjoint", **ignored):
    """Adaptive re-planning with invariants (module docstring) -> ``EngineResult``.

    ``switch``: how a plan replacement is charged (``epochs`` module docstring): "disjoint"
    (PVLDB'18 section 2.2: the old plan's duplicate work on matches made entirely of new events
    is not charged) or "duplicate" (OpenCEP: both plans process the overlap in full).

    ``info``: planner, decision, d, the initial and final plan, replacements, planner calls,
    epochs and overlap events."""
    from engines import counters as C
    from engines.planners.adaptive.controller import run_controller, warmup_snapshot
    from engines.planners.adaptive.decision import InvariantDecision, StaticDecision, d_avg
    from engines.planners.adaptive.epochs import disjoint_counters, epoch_horizon, run_schedule
    from engines.planners.adaptive.planners import make_planner, planning_groups
    from engines.registry import EngineResult

    if switch not in SWITCHES:
        raise CepsimInputError(f"adaptive engine: switch must be one of {SWITCHES}, got "
                               f"{switch!r}")
    if decision not in DECISIONS:
        raise CepsimInputError(f"adaptive engine: decision must be one of {DECISIONS}, got "
                               f"{decision!r}")
    stats, warm = _setup(program, stream, planner, check_every, w_s, n_warmup, n_buckets,
                         n_samples)
    n = len(stream)
    s0 = warmup_snapshot(stats, warm)
    p0 = make_planner(planner)(planning_groups(program), stats.rate_w[s0], stats.sel[s0])
    dist = d_avg(p0) if d is None else float(d)
    D = StaticDecision() if decision == "static" else InvariantDecision(
        dist, None if K in (None, "all") else int(K))
    sch = run_controller(program, stats, planner, D, n, warm)
    kind = "order" if planner == "greedy" else "tree"
    eopts = {k: v for k, v in (("max_partial_matches", max_partial_matches),
                               ("max_matches", max_matches)) if v is not None}
    horizon = epoch_horizon(program, stream, [(kind, sch.starts, sch.plans)])
    ms, cnt, info = run_schedule(program, stream, kind, sch.starts, sch.plans, {}, eopts,
                                 horizon)
    if switch == "disjoint":
        cnt = disjoint_counters(cnt, info)
    counters = np.asarray(cnt) + np.asarray(sch.charges)[:n]
    if n == 0:
        counters = C.new_counters(0)[:0]
    return EngineResult(matches=ms, counters=counters, info={
        "engine": "adaptive", "planner": planner, "decision": decision, "d": dist,
        "plan": format_plan(program, kind, sch.plans[0]),
        "final_plan": format_plan(program, kind, sch.plans[-1]),
        "replacements": int(sch.n_replacements), "planner_calls": int(sch.n_planner_calls),
        "epochs": int(info["epochs"]), "overlap_events": int(info["overlap_events"]),
        "switch": switch})

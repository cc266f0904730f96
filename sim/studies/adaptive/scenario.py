"""PVLDB'18 adaptive CEP (Kolchinsky & Schuster): one point of Figures 5-7 and of our studies.

One point = (dataset, planner, pattern set, n, stream_seed).  The scenario generates the
stream (``workloads.adaptive``), runs the plan-independent statistics pass once (snapshot every
``check_every`` events), and then, for every decision method on the *same* statistics, the
controller pass (Algorithm 1, ``engines.planners.adaptive.controller``) and the epoch evaluation of the
resulting plan schedule (``engines.planners.adaptive.epochs``; epoch runs are shared between methods
whose schedules share an epoch).  Service time of an event = the prices of ``prices.py`` applied
to the engine's counters plus the adaptation charges (statistics, decisions, planner steps,
deployments); a plan replacement is charged per ``switch`` (default "disjoint": PVLDB'18
section 2.2, the old plan's duplicate work on matches made only of new events left out, one
base cost per event; "duplicate": the authors' OpenCEP, both plans in full, one base cost per
live plan).  Throughput = 1 / mean service time over the events after the warm-up; overhead =
cost of D and A (DECISION_CHECK, PLAN_GEN, PLANNER_STEP) / total cost after the warm-up, in %.

Methods (column prefixes): ``static`` (P0 forever, no statistics), ``uncond`` (A at every check,
replace if different), ``thr{t}`` (ZStream's threshold t), ``inv{d}`` (invariants, K = ``K``,
distance d), ``invdavg`` (d = d_avg of P0).  Per method: ``_thr`` (events/s), ``_repl`` (plan
replacements), ``_calls`` (calls of A), ``_ovh`` (%), ``_fn`` (false-negative rate: checks where
the uncharged shadow A had a different plan but D said no / checks where a different plan
existed), ``_fp`` (calls of A that returned the current plan), ``_matches``, ``_overlap``
(events two plans saw), ``_dup`` (the duplicate work's share, %, of the duplicate reading's
service time).  Per point: the headroom oracle (``_headroom_row``), the planners' rank agreement
(``_rank_row``) and the statistics upkeep next to the static plan's engine work
(``_upkeep_row``).  ``supported`` = 0
when the planner's evaluator cannot run the pattern set (then the metrics are NaN and ``why``
says why): greedy orders run on the lazy chain NFA, every set at every n (an AND of plain
events is one order-free chain in the greedy order, not its n! orders:
``engines.evaluators.lazy_chain``, "AND groups", charged per executed step as a sequence's
chain); ZStream trees need ``engines/evaluators/ztree.py`` (it runs every set natively, AND of
8 included).  A greedy order lists the positive variables, a Kleene
variable as a leaf where the greedy scores put it (OpenCEP plan/TreePlanBuilder.py lines 144-167:
a Kleene closure is a unary node over its leaf), and the negation is checked when the positive
order is complete (``negation_at="match"``: OpenCEP's default negation algorithm adds it above
the positive plan, plan/negation/NaiveNegationAlgorithm.py lines 14-42, misc/DefaultConfig.py
line 65; PVLDB'18 section 4 "post-processing steps on the generated plan (e.g., to augment it
with negated events)").

The claims on these rows are in ``claims.py``, the helpers that read them in ``analysis.py``.
"""
from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache

import numpy as np

from engines import counters as C
from engines.errors import CapacityError, CepsimInputError

# The paper scans d in 0..0.5 (section 5.2, Fig 5; claims.PAPER_D_MAX); the grid goes on to 5
# so that a tuned d is inside it (at full scale a grid ending at 0.5 puts the tuned d at its
# largest entry).
D_VALUES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0)

# Unit prices: ``prices.py`` (the one place they are set; kept out of this file, whose source is
# part of every point's work key).
from sim.studies.adaptive.prices import ADAPT_LOG2, ADAPT_UNITS, ENGINE_BASE_COST  # noqa: E402
from sim.studies.adaptive.invariant_k import ZSTREAM_K, k_of  # noqa: E402


def cost_profile(params: dict):
    """The cost profile of a point: the prices of ``prices.py`` (the adaptation units of the
    reading ``params['adapt_units']``, default "ops"), scaled by ``2 ** params['adapt_log2']``
    (default ADAPT_LOG2) times ``params['adapt_rel']`` (default 1; the cost-ratio sensitivity
    study); an explicit ``base_cost`` / unit-cost key in ``params`` overrides its value."""
    from sim.core.costmodel import load_profile, profile_from_dict
    ratio = 2.0 ** float(params.get("adapt_log2", ADAPT_LOG2)) * float(params.get("adapt_rel",
                                                                                    1.0))
    units = str(params.get("adapt_units", "ops"))
    if units not in ADAPT_UNITS:
        raise CepsimInputError(f"scenario adaptive: adapt_units = {units!r}; use one of "
                               f"{sorted(ADAPT_UNITS)}")
    d = load_profile(None).to_dict()
    d["base_cost"] = float(params.get("base_cost", ENGINE_BASE_COST))
    for k, v in ADAPT_UNITS[units].items():
        d["unit_cost"][k] = v * ratio
    for k in ("plan_gen", "planner_step", "decision_check", "stat_update", "plan_deploy"):
        if k in params:
            d["unit_cost"][k] = float(params[k])
    d["unit_cost"]["plan_deploy"] *= float(params.get("deploy_rel", 1.0))
    return profile_from_dict(d), ratio
# The paper does not give its threshold grid; ours goes up to t = 10 (a deviation of 10x the
# initial value) so that the tuned t is inside it.
T_VALUES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
#: stream-generator parameters: ``gen_<kwarg>`` is passed to ``workloads.adaptive`` as ``kwarg``
#: (drift size and frequency, attribute skew, model variant; ``GEN_KEYS`` lists them per data set;
#: the declarations are in ``sim/studies/adaptive/params.py``)
GEN_KEYS = {
    "traffic": {"rate_span": float, "noise": float, "noise_every": int, "n_changes": int,
                "change_types": int, "factor_lo": float, "factor_hi": float, "model": str,
                "count_span": float, "speed_span": float, "shift_lo": float, "shift_hi": float,
                "count_base": float, "class_jitter": float},
    "stocks": {"spread": float, "theta": float, "sigma": float, "noise_every": int,
               "vol": float},
}


def gen_kwargs(params: dict) -> tuple:
    """The generator keyword arguments of a point (sorted ``(name, value)`` pairs) from its
    ``gen_*`` parameters; a key the data set's generator does not take is an input error."""
    dataset = str(params.get("dataset", ""))
    allowed = GEN_KEYS.get(dataset, {})
    kw = {}
    for k, v in params.items():
        if not k.startswith("gen_"):
            continue
        name = k[4:]
        if name not in allowed:
            raise CepsimInputError(f"scenario adaptive: {k} is not a parameter of the {dataset!r} "
                                   f"generator; use one of "
                                   f"{sorted('gen_' + x for x in allowed)}")
        try:
            kw[name] = allowed[name](v)
        except (TypeError, ValueError):
            raise CepsimInputError(f"scenario adaptive: {k} = {v!r} is not a "
                                   f"{allowed[name].__name__}") from None
    for a, b, pair in (("factor_lo", "factor_hi", "factor_range"),
                       ("shift_lo", "shift_hi", "shift_range")):
        if a in kw or b in kw:
            defaults = {"factor_range": (10.0, 50.0), "shift_range": (2.0, 5.0)}[pair]
            lo, hi = kw.pop(a, defaults[0]), kw.pop(b, defaults[1])
            if not 0 < lo <= hi:
                raise CepsimInputError(f"scenario adaptive: gen_{a} = {lo} / gen_{b} = {hi}: "
                                       f"need 0 < lo <= hi")
            kw[pair] = (lo, hi)
    return tuple(sorted(kw.items()))


def _fmt(x: float) -> str:
    return f"{x:g}"


@lru_cache(maxsize=4)
def _stream(dataset: str, n_events: int, stream_seed: int, n_types: int, total_rate: float,
            gen: tuple = ()):
    from workloads.adaptive import make_stream
    return make_stream(dataset, n_events, stream_seed, n_types=n_types, total_rate=total_rate,
                       **dict(gen))


def _ztree_available() -> bool:
    try:
        import engines.evaluators.ztree  # noqa: F401
        return True
    except ImportError:
        return False


def support(planner: str, pset: str, n: int) -> str:
    """'' if the pair can run, else the reason.  Greedy runs every set at every n (the lazy
    chain runs an AND as one order-free chain, ``engines.evaluators.lazy_chain``)."""
    if planner == "greedy":
        return ""
    if planner == "zstream":
        return "" if _ztree_available() else "engines/evaluators/ztree.py (tree-plan evaluator) not merged yet"
    raise CepsimInputError(f"scenario adaptive: planner must be 'greedy' or 'zstream', got "
                           f"{planner!r}")


def methods(params: dict) -> list[tuple[str, str, float | None]]:
    """(label, kind, parameter) of every decision method of a point."""
    out = [("static", "static", None)]
    if params.get("uncond", True):
        out.append(("uncond", "uncond", None))
    out += [(f"thr{_fmt(t)}", "thr", float(t)) for t in params.get("t_values", T_VALUES)]
    out += [(f"inv{_fmt(d)}", "inv", float(d)) for d in params.get("d_values", D_VALUES)]
    if params.get("davg", True):
        out.append(("invdavg", "inv", None))
    return out


#: Parameters that only price the work (``cost_profile``): points that differ in these alone
#: share one evaluation (``work_key``, ``_point_work``).
COST_KEYS = ("adapt_log2", "adapt_rel", "adapt_units", "base_cost", "plan_gen", "planner_step",
             "decision_check", "stat_update", "plan_deploy", "deploy_rel", "overlap_base",
             "switch")
WORK_VERSION = 4
#: Parameters that only label the row (``point``: ``role`` = tune / eval), never the work: left out
#: of the work key too, so that e.g. cost_sensitivity's points read the evaluation of the same
#: stream that fig6 / fig7 computed under other tuning seeds.
ROW_KEYS = ("tune_seeds",)
#: How a plan replacement is charged (``switch``; ``engines.planners.adaptive.epochs`` module
#: docstring): "disjoint" (default: PVLDB'18 section 2.2, the old and the new plan work on
#: disjoint sets of matches, "there is no duplicate processing", one base cost per event) or
#: "duplicate" (the authors' OpenCEP: both plans process every event of the overlap in full, one
#: base cost per live plan), a named variant.
SWITCHES = ("disjoint", "duplicate")
#: How the per-event base cost is charged while plans overlap (``overlap_base``; default: as the
#: switch reading says): "per_plan" (every live plan pays its own per-event dispatch) or "once"
#: (one base cost per event however many plans are live).
OVERLAP_BASE = ("per_plan", "once")
_WORK_MEM: dict = {}
#: headroom candidates' epoch sums by cache key (``_plan_sums``), at most
#: ``_PLAN_SUMS_MAX`` entries (a few kB each)
_PLAN_SUMS_MEM: dict = {}
_PLAN_SUMS_MAX = 2048
#: memos a pool worker may drop between papers (sim/experiments/worker_memory.py): shared point evaluations
MEMO_DICTS = ("_WORK_MEM", "_PLAN_SUMS_MEM")


@lru_cache(maxsize=1)
def _scenario_fingerprint() -> str:
    """SHA-256 (16 hex) of this scenario's source and of its epoch evaluation
    (``runs.py``), read once per process."""
    from pathlib import Path
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update((Path(__file__).parent / "runs.py").read_bytes())
    return h.hexdigest()[:16]


def _work_cache_key(params: dict, stream_seed: int) -> str:
    """Everything that determines a point's evaluation: the parameters except ``COST_KEYS`` and
    ``ROW_KEYS``, the stream seed, and the source of the engines, workloads and this scenario (an
    edited engine or scenario never reads a stale entry)."""
    from sim.experiments.cache import code_fingerprint
    work = {k: v for k, v in params.items() if k not in COST_KEYS and k not in ROW_KEYS}
    blob = json.dumps({"v": WORK_VERSION, "code": code_fingerprint(),
                       "scenario": _scenario_fingerprint(),
                       "params": work, "stream_seed": int(stream_seed)},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def work_key(params: dict):
    """Shared-work key (``sim.experiments.warmup``, ``sim.experiments.reproduce_pool``): points that differ only in
    ``COST_KEYS`` (the calibration's ``adapt_log2``, the sensitivity study's ``adapt_rel``) share
    one evaluation, which the first of them computes and stores; None when the stream seed
    comes from the point seed (then no two points share it)."""
    if "stream_seed" not in params:
        return None
    return _work_cache_key(params, int(params["stream_seed"]))


def point(params: dict, seed: int) -> dict:
    """One (dataset, planner, pattern set, n, stream_seed) point: the evaluation of every
    decision method (``_point_work``, cost-free and shared between points that differ only in
    ``COST_KEYS``), priced with the point's cost profile."""
    window = float(params.get("window", 3.0))
    pset = str(params["pset"])
    window *= float(params.get(f"{pset}_window", 1.0)) if pset in ("and", "kleene") else 1.0
    K = k_of(params)
    stream_seed = int(params.get("stream_seed", seed))
    tune = [int(x) for x in params.get("tune_seeds", [])]
    row: dict = {"window_s": window, "stats_window_s": float(params.get("w_s", 10.0 * window)),
                 "K_used": "all" if K in ("all", None) else str(int(K)),
                 "role": "tune" if stream_seed in tune else "eval"}
    labels = methods(params)
    work = _point_work(params, stream_seed)
    if work["status"] == "unsupported":
        row.update(supported=0, why=work["why"])
        for lab, _, _ in labels:
            for m in ("thr", "repl", "calls", "ovh", "fn", "fp", "matches"):
                row[f"{lab}_{m}"] = math.nan
        return row
    prof, ratio = cost_profile(params)
    row["adapt_ratio"] = ratio
    if work["status"] == "capacity":
        row.update(supported=0, why=work["why"])
        for lab, _, _ in labels:
            for m in ("thr", "repl", "calls", "ovh", "fn", "fp", "matches", "overlap"):
                row[f"{lab}_{m}"] = math.nan
        return row
    unit = [float(x) for x in prof.unit_vector()]
    adapt_cols = (C.DECISION_CHECK, C.PLAN_GEN, C.PLANNER_STEP)
    base = float(prof.base_cost)
    switch = str(params.get("switch", "disjoint"))
    ob = params.get("overlap_base")
    per_plan = (switch == "duplicate") if ob is None else str(ob) == "per_plan"
    for lab, _, _ in labels:
        m = work["methods"][lab]
        # sums over the events after the warm-up of integer counters: exact, so the price is
        # the same whichever point computed the evaluation; the base cost once per (live plan,
        # event) pair (plan_events) or once per event (n_serv); the "disjoint" reading leaves
        # out the old plans' duplicate work (dup_sums)
        n_base = m["plan_events"] if per_plan else m["n_serv"]
        tot = m["total_sums"] if switch == "duplicate" else \
            [t - x for t, x in zip(m["total_sums"], m["dup_sums"])]
        serv_sum = sum(n * u for n, u in zip(tot, unit)) + n_base * base
        adapt_sum = sum(n * unit[c] for n, c in zip(m["adapt_sums"], adapt_cols))
        row[f"{lab}_thr"] = m["n_serv"] / serv_sum
        row[f"{lab}_repl"] = m["repl"]
        row[f"{lab}_calls"] = m["calls"]
        row[f"{lab}_ovh"] = 100.0 * adapt_sum / serv_sum
        row[f"{lab}_fn"] = m["fn"]
        row[f"{lab}_fp"] = m["fp"]
        row[f"{lab}_matches"] = m["matches"]
        row[f"{lab}_overlap"] = m["overlap"]
        row[f"{lab}_dup"] = 100.0 * sum(n * u for n, u in zip(m["dup_sums"], unit)) / \
            (serv_sum if switch == "duplicate" else serv_sum + sum(
                n * u for n, u in zip(m["dup_sums"], unit)))
    row.update(_upkeep_row(work["methods"], labels, unit))
    row.update(_headroom_row(work["headroom"], np.asarray(unit), base))
    row.update(supported=1, why="", d_avg=work["d_avg"],
               matches_consistent=work["matches_consistent"], n_checks=work["n_checks"],
               pattern=work["pattern"])
    return row


def _upkeep_row(methods_work: dict, labels, unit) -> dict:
    """Statistics upkeep next to the engine work (ns per event after the warm-up, base cost
    excluded): ``stat_ns`` (STAT_UPDATE of any method that keeps statistics: one pass serves
    them all), ``engine_ns_static`` (the static plan's engine work) and ``stat_ratio`` (their
    ratio; section 2.1 calls the estimators' cost "negligible")."""
    st = methods_work[labels[0][0]]
    n = float(st["n_serv"])
    eng = sum(x * u for x, u in zip(st["total_sums"], unit)) / n * 1e9
    stat = math.nan
    for lab, mk, _ in labels:
        if mk != "static":
            stat = methods_work[lab]["total_sums"][C.STAT_UPDATE] * unit[C.STAT_UPDATE] / n * 1e9
            break
    return {"stat_ns": stat, "engine_ns_static": eng,
            "stat_ratio": stat / eng if eng > 0 else math.nan}


def _rank_row(head: dict, sums: np.ndarray, unit) -> dict:
    """Rank agreement of the planner's cost model with executed work over the headroom
    oracle's candidates and epochs (``engines.planners.adaptive.ranking.rank_summary``; executed
    work = the engine counters priced by ``unit``, no base cost: it is the same for every plan):
    ``rank_tau`` / ``rank_regret`` with the estimated statistics the methods read,
    ``rank_tau_exact`` / ``rank_regret_exact`` with exact ones (every partner tested), and
    ``rank_gap_closed`` = the share of the regret above 1 that exact statistics remove (NaN when
    there is none): what remains is the cost model's mismatch with the engine."""
    from engines.planners.adaptive.ranking import rank_summary
    if "pred_est" not in head:
        return {}
    work = np.asarray(sums, np.float64) @ np.asarray(unit, np.float64)   # [cands, epochs]
    out = {}
    for name, suffix in (("est", ""), ("exact", "_exact")):
        pred = np.asarray(head[f"pred_{name}"], np.float64)
        ok = ~np.isnan(pred).any(axis=0)
        r = rank_summary(pred[:, ok], work[:, ok])
        out[f"rank_tau{suffix}"] = r["tau"]
        out[f"rank_regret{suffix}"] = r["regret"]
    e, x = out["rank_regret"], out["rank_regret_exact"]
    out["rank_gap_closed"] = (e - x) / (e - 1.0) if e > 1.0 + 1e-12 else math.nan
    return out


def _check_point(params: dict) -> None:
    """The point's prices (``cost_profile``: adapt_log2, adapt_rel, base_cost, unit costs), run by
    ``sim.experiments.runner`` for every point before any runs: an impossible value is one error naming the
    key (exit 2), not a failure of every point."""
    for key in ("adapt_log2", "adapt_rel"):
        if key in params:
            try:
                v = float(params[key])
            except (TypeError, ValueError):
                raise CepsimInputError(f"scenario adaptive: {key} must be a number, got "
                                       f"{params[key]!r}") from None
            if not math.isfinite(v) or (key == "adapt_rel" and v <= 0):
                raise CepsimInputError(f"scenario adaptive: {key} = {params[key]!r} is not "
                                       f"{'a positive' if key == 'adapt_rel' else 'a finite'} "
                                       f"number (it scales the adaptation unit costs)")
    if "deploy_rel" in params:
        try:
            v = float(params["deploy_rel"])
        except (TypeError, ValueError):
            v = math.nan
        if not (math.isfinite(v) and v >= 0):
            raise CepsimInputError(f"scenario adaptive: deploy_rel = {params['deploy_rel']!r} "
                                   f"must be a number >= 0 (it scales the plan deployment cost)")
    gen_kwargs(params)
    if params.get("overlap_base") is not None and \
            str(params["overlap_base"]) not in OVERLAP_BASE:
        raise CepsimInputError(f"scenario adaptive: overlap_base = {params['overlap_base']!r}; "
                               f"use one of {OVERLAP_BASE}")
    kz = params.get("K_zstream")
    if kz is not None and kz != "calibrated" and kz != "all" and \
            not (isinstance(kz, (int, str)) and str(kz).isdigit() and int(kz) >= 1):
        raise CepsimInputError(f"scenario adaptive: K_zstream = {kz!r}; use an integer >= 1, "
                               f"\"all\" or \"calibrated\" (sim/studies/adaptive/invariant_k.py)")
    if kz == "calibrated" and str(params.get("dataset")) not in ZSTREAM_K:
        raise CepsimInputError(f"scenario adaptive: K_zstream = \"calibrated\" has no K for "
                               f"dataset {params.get('dataset')!r}; calibrated: "
                               f"{sorted(ZSTREAM_K)}")
    if str(params.get("zs_subtree", "recompute")) == "constant" and \
            k_of(params) in ("all", None):
        raise CepsimInputError("scenario adaptive: zs_subtree = \"constant\" needs a finite K "
                               "(with K = \"all\" the losing sides are re-optimised at every "
                               "check); set K = 1 or another integer")
    if str(params.get("switch", "disjoint")) not in SWITCHES:
        raise CepsimInputError(f"scenario adaptive: switch = {params['switch']!r}; use one of "
                               f"{SWITCHES}")
    cost_profile(params)


point.check_params = _check_point   # sim.experiments.runner runs it for every point first


def _point_work(params: dict, stream_seed: int) -> dict:
    """The cost-free evaluation of a point (JSON-able), from memory, from the counter cache
    (``sim.experiments.cache.counter_cache_dir``, ``adaptive/<key>.json``, written atomically) or computed."""
    from sim.experiments.cache import counter_cache_dir
    key = _work_cache_key(params, stream_seed)
    if key in _WORK_MEM:
        return _WORK_MEM[key]
    d = counter_cache_dir()
    path = None if d is None else d / "adaptive" / f"{key}.json"
    work = None
    if path is not None and path.exists():
        try:
            work = json.loads(path.read_text())
        except (OSError, ValueError):  # unreadable entry (e.g. interrupted copy): recompute
            work = None
    if work is None:
        work = _compute_work(params, stream_seed)
        if path is not None:
            from sim.atomic import atomic_write_text
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(path, json.dumps(work))
            except OSError:   # a read-only cache only costs the sharing
                pass
    if len(_WORK_MEM) >= 8:
        _WORK_MEM.pop(next(iter(_WORK_MEM)))
    _WORK_MEM[key] = work
    return work


def _plan_sums_base(stream_args: tuple, text: str, kind: str, bounds: list, eopts: dict) -> str:
    """The part of a headroom candidate's cache key shared by all plans of one point: what its
    epoch sums depend on besides the plan -- the stream (``_stream``'s arguments), the pattern,
    the engine, the oracle epochs, the engine's caps and the engine and workload source
    (``sim.experiments.cache.code_fingerprint``).  Not the methods, the check interval, K or the prices:
    points that differ only in those (``fig5`` / ``fig6`` / ``fig7`` on one stream, the
    sensitivity study's K and check intervals) share the runs."""
    from sim.experiments.cache import code_fingerprint, entry_key
    return entry_key(v=1, code=code_fingerprint(), stream=list(stream_args), pattern=text,
                     kind=kind, bounds=[list(b) for b in bounds], eopts=eopts)


def _plan_sums(base: str, plan) -> np.ndarray | None:
    """A plan's stored epoch sums (memory, else ``<counter cache>/adaptive_plans``), or None."""
    from sim.experiments.cache import entry_key, load_arrays
    key = entry_key(base=base, plan=repr(plan))
    got = _PLAN_SUMS_MEM.get(key)
    if got is None:
        got = (load_arrays("adaptive_plans", key) or {}).get("sums")
        if got is None or got.dtype != np.int64 or got.ndim != 2 \
                or got.shape[1] != C.N_COUNTERS:
            return None
        _remember_plan_sums(key, got)
    return got


def _store_plan_sums(base: str, plan, sums: np.ndarray) -> None:
    from sim.experiments.cache import entry_key, store_arrays
    key = entry_key(base=base, plan=repr(plan))
    if key not in _PLAN_SUMS_MEM:
        sums = np.ascontiguousarray(sums, dtype=np.int64)
        _remember_plan_sums(key, sums)
        store_arrays("adaptive_plans", key, sums=sums)


def _remember_plan_sums(key: str, sums: np.ndarray) -> None:
    if len(_PLAN_SUMS_MEM) >= _PLAN_SUMS_MAX:
        _PLAN_SUMS_MEM.pop(next(iter(_PLAN_SUMS_MEM)))
    _PLAN_SUMS_MEM[key] = sums


def _compute_work(params: dict, stream_seed: int) -> dict:
    from engines.planners.adaptive.controller import warmup_snapshot
    from engines.planners.adaptive.decision import d_avg
    from engines.planners.adaptive.planners import make_planner, planning_groups
    from engines.planners.adaptive.stats import check_positions, compute_stats
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from workloads.adaptive import pattern_text

    dataset = str(params["dataset"])
    planner = str(params["planner"])
    pset = str(params["pset"])
    n = int(params["n"])
    n_events = int(params.get("n_events", 20000))
    n_warmup = int(params.get("n_warmup", n_events // 10))
    check_every = int(params.get("check_every", 10))
    window = float(params.get("window", 3.0))
    # AND and Kleene sets blow up combinatorially (all interleavings / all subsets inside a
    # window): their windows are scaled by and_window / kleene_window (documented in the TOMLs)
    window *= float(params.get(f"{pset}_window", 1.0)) if pset in ("and", "kleene") else 1.0
    w_s = float(params.get("w_s", 10.0 * window))
    K = k_of(params)
    K = None if K in ("all", None) else int(K)
    why = support(planner, pset, n)
    if why:
        return {"status": "unsupported", "why": why}
    labels = methods(params)
    stream_args = (dataset, n_events, stream_seed, int(params.get("n_types", 40)),
                   float(params.get("total_rate", 100.0)), gen_kwargs(params))
    stream = _stream(*stream_args)
    text = pattern_text(dataset, pset, n, stream.schema.type_names, window,
                        int(params.get("type_seed", 0)),
                        corridor=bool(params.get("corridor", False)))
    prog = compile_pattern(parse_pattern(text), stream.schema)
    stats = compute_stats(prog, stream, check_positions(n_events, check_every), w_s,
                          int(params.get("n_buckets", 8)), int(params.get("n_samples", 4)))
    s0 = warmup_snapshot(stats, n_warmup)
    p0 = make_planner(planner)(planning_groups(prog), stats.rate_w[s0], stats.sel[s0])
    davg = d_avg(p0)
    kind = "order" if planner == "greedy" else "tree"
    eopts = {}
    if kind == "order" and pset == "neg":
        eopts = {"negation_at": "match"}   # OpenCEP's placement (module docstring)
    if kind == "tree":
        cap = int(params.get("engine_cap", 2_000_000))
        eopts = {"max_partial_matches": cap, "max_matches": cap, "max_kleene_nodes": cap}
    from engines.planners.adaptive.headroom import epoch_bounds
    from engines.planners.adaptive.branch_runs import independent_alternatives
    memo: dict = {}
    try:
        epoch_len = int(params.get("headroom_epoch", 0)) or max(
            1, int(round(w_s * float(params.get("total_rate", 100.0)))))
        bounds = epoch_bounds(n_events, n_warmup, epoch_len)
        max_plans = int(params.get("headroom_plans", 16))
        sums_base = _plan_sums_base(stream_args, text, kind, bounds, eopts)

        def oracle_runs(memo_: dict) -> set:
            """The headroom candidates the oracle will run whole: those no earlier point ran,
            unless the oracle runs an OR's alternatives one by one instead (``branch_runs``:
            each distinct sub-plan once; forcing the candidates' sub-plans through the
            methods' per-alternative evaluation was measured slower).  The methods' evaluation
            runs those it uses over the whole stream (``evaluate_methods``'s ``full_plans``)."""
            if independent_alternatives(prog) is not None:
                return set()
            cands = _candidates(memo_, stats, planner, p0.plan, bounds, max_plans)[0]
            return {p for p in cands if _plan_sums(sums_base, p) is None}

        per_method, consistent, zero_sums = _run_methods(labels, prog, stream, stats, planner,
                                                         kind, n_events, n_warmup, K, davg,
                                                         eopts, memo, bounds, oracle_runs,
                                                         str(params.get("zs_subtree",
                                                                        "recompute")))
        head = _headroom_work(prog, stream, stats, planner, kind, p0.plan, memo, zero_sums,
                              eopts, n_events, n_warmup, epoch_len, max_plans, sums_base,
                              rank_stats=_rank_stats(prog, stream, stats, bounds, w_s,
                                                     int(params.get("n_buckets", 8))))
    except CapacityError as exc:
        return {"status": "capacity", "why": f"capacity: {exc}"[:200]}
    return {"status": "ok", "methods": per_method, "d_avg": davg, "headroom": head,
            "matches_consistent": int(consistent), "n_checks": int(len(stats) - s0 - 1),
            "pattern": text.replace("\n", " ")}


def _rank_stats(prog, stream, stats, bounds: list, w_s: float, n_buckets: int) -> dict:
    """Statistics at the last event of every headroom epoch, for the planners' rank agreement
    (``engines.planners.adaptive.ranking``): ``est`` = the snapshot the methods read (the last
    check at or before the epoch's end: sampled selectivities, ``n_samples`` per partner) and
    ``exact`` = the same window with every in-window partner tested (``n_samples`` = the stream
    length), so that the two differ only by the estimator's sampling.  With the default oracle
    epoch (``w_s`` x total rate events) the statistics window spans the epoch itself."""
    from engines.planners.adaptive.stats import compute_stats
    ends = np.asarray([hi - 1 for _, hi in bounds], np.int64)
    idx = np.searchsorted(stats.positions, ends, side="right") - 1
    ex = compute_stats(prog, stream, ends, w_s, n_buckets, max(1, len(stream))) \
        if len(ends) else None
    return {"est": [(stats.rate_w[i], stats.sel[i]) if i >= 0 else None for i in idx],
            "exact": [(ex.rate_w[e], ex.sel[e]) for e in range(len(ends))]}


def _headroom_work(prog, stream, stats, planner, kind, p0_plan, memo, zero_sums, eopts,
                   n_events, n_warmup, epoch_len, max_plans, sums_base: str | None = None,
                   rank_stats: dict | None = None) -> dict:
    """The cost-free part of the headroom oracle (``engines.planners.adaptive.headroom``): every
    candidate plan's counters summed per oracle epoch.  Candidates = P0 and the plans A returned
    on the snapshots (``memo``, filled by the controllers' shadow calls of A at every check).
    ``zero_sums``: the epoch sums of plans the methods already ran from event 0 over the whole
    stream (``_run_methods``); the others come from an earlier point on the same stream and
    pattern (``_plan_sums``, by ``sums_base`` = ``_plan_sums_base``) or are run here
    (``branch_runs``: an OR of independent alternatives runs each distinct sub-plan once).
    Integer sums of a deterministic run: the same whichever point computed them."""
    from engines.planners.adaptive.branch_runs import epoch_sums_by_alternatives
    from engines.planners.adaptive.headroom import epoch_bounds, plan_epoch_sums
    bounds = epoch_bounds(n_events, n_warmup, epoch_len)
    cands, capped, snap = _candidates(memo, stats, planner, p0_plan, bounds, max_plans)
    # P0 first (a cap error here is the point's: the static method cannot run), then the other
    # candidates the methods did not run from event 0: each distinct sub-plan of an OR of
    # independent alternatives once (``branch_runs``), else every plan whole
    known = dict(zero_sums)
    if sums_base is not None:
        for plan, z in zero_sums.items():
            _store_plan_sums(sums_base, plan, z)
        for plan in cands:
            if plan not in known:
                hit = _plan_sums(sums_base, plan)
                if hit is not None:
                    known[plan] = hit
    sums = [known[cands[0]] if cands[0] in known else
            plan_epoch_sums(prog, stream, kind, cands[0], bounds, eopts)]
    todo = [p for p in cands[1:] if p not in known]
    got = dict(zip(todo, epoch_sums_by_alternatives(
        prog, stream, kind, todo, bounds, eopts,
        lambda plan: plan_epoch_sums(prog, stream, kind, plan, bounds, eopts))))
    if sums_base is not None:
        if cands[0] not in known:
            _store_plan_sums(sums_base, cands[0], sums[0])
        for plan, z in got.items():
            if z is not None:
                _store_plan_sums(sums_base, plan, z)
    over_cap = 0
    kept = [cands[0]]
    for plan in cands[1:]:
        s = known[plan] if plan in known else got[plan]
        if s is None:
            over_cap += 1    # a candidate the engine cannot run is no option for the oracle
        else:
            sums.append(s)
            kept.append(plan)
    out = {"sums": np.stack(sums).tolist(), "sizes": [hi - lo for lo, hi in bounds],
           "capped": int(capped), "epoch_len": int(epoch_len), "over_cap": over_cap,
           "n_distinct": int(len({p for p in snap if p is not None} | {p0_plan}))}
    if rank_stats is not None:
        from engines.planners.adaptive.planners import planning_groups
        from engines.planners.adaptive.ranking import predicted_cost
        groups = planning_groups(prog)
        for name in ("est", "exact"):
            out[f"pred_{name}"] = [
                [math.nan if st is None else predicted_cost(kind, plan, groups, st[0], st[1])
                 for st in rank_stats[name]] for plan in kept]
    return out


def _candidates(memo: dict, stats, planner: str, p0_plan, bounds: list, max_plans: int):
    """``(candidates, capped, snapshot plans)`` of the headroom oracle
    (``headroom.candidate_plans`` on the plans A returned at the snapshots, ``memo``)."""
    from engines.planners.adaptive.controller import snapshot_plan_list
    from engines.planners.adaptive.headroom import candidate_plans
    snap = snapshot_plan_list(memo, planner, len(stats))
    cands, capped = candidate_plans(p0_plan, snap, stats.positions, bounds, max_plans)
    return cands, capped, snap


def _headroom_row(head: dict, unit: np.ndarray, base: float) -> dict:
    """Row columns of the headroom oracle priced with the point's unit costs: ``headroom``
    (static service time / oracle's, base cost included: the ceiling of any method's throughput
    gain over static), ``headroom_engine`` (engine work only), ``oracle_thr`` (events/s),
    ``headroom_switches`` (epochs whose best plan differs from the previous epoch's),
    ``headroom_cands`` / ``headroom_distinct`` / ``headroom_capped``, ``headroom_epoch``,
    ``headroom_over_cap`` (candidates left out because the engine exceeded ``engine_cap``),
    and the planner's rank agreement over the same candidates and epochs (``_rank_row``)."""
    from engines.planners.adaptive.headroom import oracle_price
    sums = np.asarray(head["sums"], np.int64)
    sizes = np.asarray(head["sizes"], np.int64)
    pr = oracle_price(sums, sizes, unit, base)
    out = _rank_row(head, sums, unit)
    return {**out, "headroom": pr["headroom"], "headroom_engine": pr["headroom_engine"],
            "oracle_thr": float(sizes.sum()) / pr["oracle"] if pr["oracle"] > 0 else math.nan,
            "headroom_switches": pr["switches"], "headroom_cands": int(sums.shape[0]),
            "headroom_distinct": head["n_distinct"], "headroom_capped": head["capped"],
            "headroom_over_cap": head.get("over_cap", 0),
            "headroom_epoch": head["epoch_len"]}


def _run_methods(labels, prog, stream, stats, planner, kind, n_events, n_warmup, K, davg,
                 eopts, memo: dict | None = None, zero_bounds: list | None = None,
                 oracle_runs=None, subtree: str = "recompute") -> tuple[dict, bool, dict]:
    """Every method's schedule and evaluation: ``({label: work}, matches consistent, zero_sums)``,
    where work holds the integer sums the cost profile prices (``total_sums``: every counter
    column, engine plus adaptation charges, over the events after the warm-up; ``adapt_sums``:
    DECISION_CHECK, PLAN_GEN, PLANNER_STEP over the same events) and the method's counts, and
    ``zero_sums`` the epoch sums (over ``zero_bounds``) of the runs from event 0 that the
    headroom oracle reuses (``adaptive_runs.evaluate_methods``: the epoch runs of all methods
    shared, each kept only as the sums and match rows later epochs read).  ``oracle_runs(memo)``
    (after the controllers have filled ``memo``) names the plans the headroom oracle will run
    over the whole stream: the evaluation runs those it uses so, once, for both."""
    from engines.planners.adaptive.controller import run_controllers
    from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision, ThresholdDecision,
                                           UnconditionalDecision)
    from sim.studies.adaptive.runs import evaluate_methods
    memo = {} if memo is None else memo
    # every controller first (they never read the evaluation), so that the epoch runs of all
    # methods know how far each (plan, start) is needed and share one engine run; the
    # controllers advance together, sharing each snapshot's recomputed values, and keep their
    # charges packed (``_pack``'s form: 17 dense matrices are too big)
    decisions = []
    for lab, mk, par in labels:
        if mk == "static":
            decisions.append(StaticDecision())
        elif mk == "uncond":
            decisions.append(UnconditionalDecision())
        elif mk == "thr":
            decisions.append(ThresholdDecision(par, stats.monitored))
        else:
            decisions.append(InvariantDecision(davg if par is None else par, K,
                                               subtree if kind == "tree" else "recompute"))
    schedules = run_controllers(prog, stats, planner, decisions, n_events, n_warmup,
                                shadow=True, plan_memo=memo)
    evals, consistent, zero_sums = evaluate_methods(
        prog, stream, kind, [(s.starts, s.plans) for s in schedules], n_warmup, eopts,
        zero_bounds, frozenset(oracle_runs(memo)) if oracle_runs is not None else frozenset())
    out: dict = {}
    for (lab, _, _), sch, ev in zip(labels, schedules, evals):
        charge_sums = _packed_sums(sch.charges, stats.stat_work, n_warmup, n_events)
        total = ev["eng_sums"] + charge_sums
        out[lab] = {
            "n_serv": int(n_events - n_warmup),
            "total_sums": [int(x) for x in total],
            "adapt_sums": [int(charge_sums[c])
                           for c in (C.DECISION_CHECK, C.PLAN_GEN, C.PLANNER_STEP)],
            "repl": int(sch.n_replacements), "calls": int(sch.n_planner_calls),
            "fn": (sch.false_neg / sch.n_better_available if sch.n_better_available else 0.0),
            "fp": int(sch.false_pos), "matches": ev["matches"],
            "overlap": ev["overlap"],
            "dup_sums": [int(x) for x in ev["dup_sums"]],
            "plan_events": ev["plan_events"]}
    return out, consistent, zero_sums


def _packed_sums(packed: tuple, stat_work: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Column sums over events ``[lo, hi)`` of the matrix ``_unpack`` rebuilds from ``packed``
    (exact integer sums, without building it)."""
    n, rows, vals, uses = packed
    hi = min(hi, n)
    sel = (rows >= lo) & (rows < hi)
    out = vals[sel].sum(axis=0, dtype=np.int64) if len(rows) else \
        np.zeros(C.N_COUNTERS, np.int64)
    if uses and hi > lo:
        out[C.STAT_UPDATE] += int(stat_work[lo:hi].sum())
    return out


def _pack(charges: np.ndarray, stat_work: np.ndarray) -> tuple:
    """(The form ``controller.run_controllers`` returns directly; kept with ``_unpack`` as the
    definition of that form, which the controller tests and ``tests/test_adaptive_runs.py``'s
    reference evaluation use.)  A controller's
    charges without the dense parts: the rows with work other than statistics
    updates, and whether the STAT_UPDATE column is the statistics pass's work (the only way the
    controller writes it).  ``_unpack`` rebuilds the identical matrix."""
    n = len(charges)
    stat = charges[:, C.STAT_UPDATE]
    uses = bool(stat.any())
    if uses and not np.array_equal(stat, stat_work[:n]):     # pragma: no cover - contract
        raise AssertionError("controller charges: STAT_UPDATE is not the statistics pass's work")
    rows = np.flatnonzero(np.delete(charges, C.STAT_UPDATE, axis=1).any(axis=1))
    vals = charges[rows].copy()
    vals[:, C.STAT_UPDATE] = 0
    return (n, rows, vals, uses)


def _unpack(packed: tuple, stat_work: np.ndarray) -> np.ndarray:
    n, rows, vals, uses = packed
    out = C.new_counters(n)[:n]
    out[rows] = vals
    if uses:
        out[:, C.STAT_UPDATE] = stat_work[:n]
    return out

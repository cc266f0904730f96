"""``cepsim compare``: every evaluation strategy on one pattern and one stream, priced and queued.

The question a CEP user has -- *for my pattern on my data, which evaluation strategy should I
run, and up to which input rate does it keep up?* -- answered with the project's engines, one
cost profile and one queue:

1. **Eligibility.**  ``STRATEGIES`` (data: one entry per strategy; a new optimizer is one line)
   says which pattern features (``FEATURES``) each strategy refuses or needs.  A strategy that
   refuses a feature of the pattern is listed with a one-line reason; so is one whose engine
   refuses the pattern at run time (its own message) or hits a capacity cap.
2. **Runs.**  Each eligible strategy expands into engine runs (``Run``: an engine spec such as
   ``"chain order=c,b,a"``): the lazy chain in every order for up to ``MAX_ORDER_VARS``
   variables (else the order the PVLDB'18 greedy planner picks on the warm-up statistics), the
   ZStream tree left-deep and as ZStream's planner picks it, APAM's hybrid with the plan its
   optimizer picks *at each rate* (its M/G/1 model depends on the rate), the adaptive
   re-planning engines, ...  Engine counters do not depend on arrival times, so each run
   happens once and is queued at every rate.
3. **Same matches.**  Every run must find the same match set (``match_digest``); a difference is
   a bug and raises ``MatchMismatch`` naming the engines.
4. **Pricing and queueing.**  The cost profile prices each event's counters (service time); the
   events are queued at each rate (Poisson arrivals from ``seed``, the same arrivals for every
   engine) with the exact Lindley fast path; one sample point is also run through SimPy as a
   check (``simpy_check``).  The largest stable rate of a run is ``1 / mean service``.
5. **Table.**  ``Comparison.table()``: engine, plan/order, matches, the counters that dominate
   the work, mean / p99 service, largest stable rate, latency p50 / p99 at each rate with the
   best engine marked (lowest mean match latency among the stable ones), and a one-line
   recommendation.

Patterns with ``REMOTE[...]`` data compare the EIRES strategies (``remote`` engine, BL1 ... Hybrid):
their service depends on time (blocking fetches), so each strategy runs once per rate inside
the remote kernel's own virtual-time queue, plus once saturated (every event at t = 0) for the
largest stable rate.

``compare(pattern, stream, rates=..., engines=..., profile=..., seed=...) -> Comparison``; its
``rows`` (one per run and rate, plus one per ineligible strategy) are what ``cepsim compare
--out`` writes.
"""
from __future__ import annotations

import itertools
import math
from typing import Callable

import numpy as np

from engines.errors import CapacityError, CepsimInputError
# lsr and plan_of are re-exported for callers of ``compare`` (sim/studies/cross/scenario.py)
from sim.tools.compare.model import (SIMPY_CHECK_EVENTS, SIMPY_TOLERANCE, Comparison,  # noqa: F401
                                     Kept, MatchMismatch, Run, auto_rates, batch_figures,
                                     check_same_matches, finish, fmt_rate, lsr, match_digest,
                                     plan_of, poisson, refusal, stage)
from sim.tools.compare.strategies import (FEATURES, MAX_ORDER_VARS, STRATEGIES, Strategy,  # noqa: F401
                                    eligibility, select_strategies, strategy_keys)


# ----------------------------------------------------------------------------- features
def pattern_features(program) -> set[str]:
    """The ``FEATURES`` a compiled program uses."""
    from engines.compile import KIND_KLEENE, KIND_NEG, POLICY_NEXT
    f = set()
    if program.has_remote:
        f.add("remote")
    if np.any(program.var_kind == KIND_KLEENE):
        f.add("kleene")
    if np.any(program.var_kind == KIND_NEG):
        f.add("negation")
    if len(program.grouped) != 1 or not program.grouped[0].is_ordered:
        f.add("and_or")
    if program.policy == POLICY_NEXT:
        f.add("next")
    if not (math.isfinite(float(program.window)) and float(program.window) > 0):
        f.add("no_window")
    return f


# ----------------------------------------------------------------------------- expansions


def chain_orders(program, stream, ctx: dict) -> list[tuple[str, dict]]:
    """Every order of the variables (up to ``MAX_ORDER_VARS``), else the order the PVLDB'18
    greedy planner picks on the warm-up statistics (the documented heuristic)."""
    names = [program.var_names[v] for v in program.positive_vars]
    if len(names) <= MAX_ORDER_VARS:
        orders = [",".join(p) for p in itertools.permutations(names)]
    else:
        from engines.planners.adaptive.engine import initial_plan
        orders = [initial_plan(program, stream, "greedy")]
    return [(f"chain {o}", {"order": o}) for o in orders]


def zstream_plan(program, stream, ctx: dict) -> list[tuple[str, dict]]:
    """The tree ZStream's planner (PVLDB'18 Algorithm 3) picks on the warm-up statistics."""
    from engines.planners.adaptive.engine import initial_plan
    return [("ztree-zstream", {"plan": initial_plan(program, stream, "zstream")})]


def apam_unit_costs(profile) -> dict:
    """The APAM optimizer's unit costs from a cost profile: T_PE = pred_eval, T_RC =
    pm_created, T_BI = buf_insert, T_SEQ = join_probe (``engines.planners.apam``: Eq. 9 prices
    sequence checks at the hybrid's join_probe counter), base = base_cost."""
    u = profile.unit_cost
    return {"t_pe": u["pred_eval"], "t_rc": u["pm_created"], "t_bi": u["buf_insert"],
            "t_seq": u["join_probe"], "base": float(profile.base_cost)}


def apam_plan(program, stream, ctx: dict, optimizer: str = "apam") -> list[tuple[str, dict]]:
    """The plan APAM's optimizer picks at the rate ``ctx['rate']`` (None: the rate of the
    warm-up's timestamps; warm-up: the first half of the stream, as the paper).
    ``optimizer``: ``"apam"`` (CIKM'16 Eqs. 2-9 as printed) or ``"apam-x"`` (the same queue
    model over the work the tree evaluator executes, ``engines.planners.apam_x``)."""
    from engines.planners.apam import choose_plan
    rate = ctx.get("rate")
    ch = choose_plan(program, stream, arrival_rate=None if rate is None else float(rate),
                     unit_costs=apam_unit_costs(ctx["profile"]), optimizer=optimizer)
    return [(optimizer, {"plan": ch["plan"]})]


def apam_x_plan(program, stream, ctx: dict) -> list[tuple[str, dict]]:
    """The plan the ``apam-x`` optimizer picks at the rate ``ctx['rate']`` (see ``apam_plan``)."""
    return apam_plan(program, stream, ctx, optimizer="apam-x")


def _resolve(target: str) -> Callable:
    import importlib
    mod, fn = target.split(":")
    return getattr(importlib.import_module(mod), fn)


# ----------------------------------------------------------------------------- runs


# ----------------------------------------------------------------------------- the comparison


def _rates_ok(rates) -> list[float] | None:
    if rates is None:
        return None
    out = []
    for r in rates:
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r) \
                or r <= 0:
            raise CepsimInputError(f"--rates: every rate must be a positive number of events "
                                   f"per second, got {r!r}")
        out.append(float(r))
    if not out:
        raise CepsimInputError("--rates: give at least one rate (events per second)")
    return sorted(set(out))


def _queue(run: Run, arrivals: np.ndarray, profile, rate: float) -> tuple[dict, np.ndarray]:
    """The run's metrics at ``rate`` and its ranked figure per stream segment (the spread)."""
    from sim.core.simulate import simulate_counters
    res = run.result
    sim = simulate_counters(np.asarray(res.counters)[:len(arrivals)], arrivals, profile,
                            match_last_event=res.matches.last_event,
                            match_detect=res.matches.detect, rate=rate, keep_events=True)
    ev = sim.events
    return sim.metrics, batch_figures(len(arrivals), res.matches.last_event, sim.match_latency,
                                      ev["depart"] - ev["arrival"])


def _run_engine(run: Run, program, stream, **extra):
    from engines.registry import run_engine
    return run_engine(run.engine, program, stream, **run.options, **extra)


def compare(pattern, stream, rates=None, engines: list[str] | None = None, profile=None,
            seed: int = 0, progress=None) -> Comparison:
    """Every eligible strategy on ``pattern`` (text or parsed) over ``stream`` (module
    docstring).  ``rates``: events/s, None (``auto_rates``) or a function of the runs' largest
    stable rates returning the rates (the strategy matrix's common load);
    ``profile``: a ``CostProfile``, a path, or None (the packaged default);
    ``progress``: a ``sim.experiments.progress.Progress``-like object (``stage``/``update``) or None."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from sim.core.costmodel import CostProfile, load_profile

    choose_rates = rates if callable(rates) else None
    rates = None if choose_rates else _rates_ok(rates)
    prof = profile if isinstance(profile, CostProfile) else load_profile(profile)
    pat = parse_pattern(pattern, source="<pattern>") if isinstance(pattern, str) else pattern
    program = compile_pattern(pat, stream.schema)
    if len(stream) == 0:
        raise CepsimInputError("the stream has no events; nothing to compare")
    feats = pattern_features(program)
    chosen = select_strategies(engines)
    ineligible: list[tuple[str, str]] = []
    eligible: list[Strategy] = []
    for s in chosen:
        why = eligibility(s, feats)
        (ineligible.append((s.key, why)) if why else eligible.append(s))
    if not eligible:
        raise CepsimInputError("no selected strategy can evaluate this pattern: " + "; ".join(
            f"{k}: {w}" for k, w in ineligible))
    bar = progress
    if "remote" in feats:
        from sim.tools.compare.remote import compare_remote
        return compare_remote(str(pat), program, stream, eligible, ineligible, rates, prof,
                              seed, bar)
    ctx = {"profile": prof}
    fixed: list[Run] = []
    for s in eligible:
        if s.per_rate:
            continue
        try:
            variants = _resolve(s.expand)(program, stream, ctx) if s.expand else \
                [(s.key, dict(s.options))]
        except (CepsimInputError, CapacityError) as exc:
            ineligible.append((s.key, refusal(exc)))
            continue
        fixed += [Run(s.key, lab, s.engine, {**dict(s.options), **opt}) for lab, opt in variants]
    done: list[Run] = []
    for r in fixed:
        stage(bar, f"compare: running {r.spec}")
        if not _execute(r, program, stream, prof, ineligible):
            continue
        done.append(r)
    executed: dict[str, Run] = {}
    if rates is None:
        probe = done
        if not done:   # only rate-dependent strategies: their choice at the stream's own rate
            probe = _provisional(eligible, program, stream, ctx, prof, ineligible, bar)
            executed = {r.spec: r for r in probe}
        if not probe:
            raise CepsimInputError("no strategy could run this pattern: " + "; ".join(
                f"{k}: {w}" for k, w in ineligible))
        lsrs = [1.0 / float(r.service.mean()) for r in probe]
        rates = _rates_ok(choose_rates(lsrs)) if choose_rates else auto_rates(lsrs)
    for s in eligible:
        if not s.per_rate:
            continue
        by_opts: dict[str, Run] = {}
        try:
            for rate in rates:
                for lab, opt in _resolve(s.expand)(program, stream, {**ctx, "rate": rate}):
                    r = Run(s.key, lab, s.engine, {**dict(s.options), **opt}, rates=[])
                    r = by_opts.setdefault(r.spec, r)
                    r.rates.append(rate)
        except (CepsimInputError, CapacityError) as exc:
            ineligible.append((s.key, refusal(exc)))
            continue
        for r in by_opts.values():
            if r.spec in executed:
                prev = executed[r.spec]
                r.result, r.service, r.digest = prev.result, prev.service, prev.digest
                done.append(r)
                continue
            stage(bar, f"compare: running {r.spec}")
            if _execute(r, program, stream, prof, ineligible):
                done.append(r)
    if not done:
        raise CepsimInputError("no strategy could run this pattern: " + "; ".join(
            f"{k}: {w}" for k, w in ineligible))
    check_same_matches(done)
    stage(bar, f"compare: queueing {len(done)} runs at {len(rates)} rates")
    n = len(stream)
    for rate in rates:
        arr = poisson(n, rate, seed)
        for r in done:
            if r.rates is None or rate in r.rates:
                r.per_rate[rate], r.batches[rate] = _queue(r, arr, prof, rate)
    stage(bar, "compare: SimPy check of one point")
    simpy = simpy_check(done[0], rates[len(rates) // 2], prof, seed)
    return finish(str(pat), n, prof, rates, done, ineligible, simpy)


def parse_rates(text: str | None) -> list[float] | None:
    """``"1e4,2e4"`` -> [10000.0, 20000.0]; None -> None; a bad or non-positive value is a
    ``CepsimInputError`` naming it."""
    if text is None:
        return None
    out = []
    for tok in [t.strip() for t in str(text).split(",") if t.strip()]:
        try:
            out.append(float(tok))
        except ValueError:
            raise CepsimInputError(f"--rates: {tok!r} is not a number; give events per second "
                                   f"separated by commas, e.g. --rates 1e4,2e4,5e4") from None
    return _rates_ok(out)


def command_line(text: str, data, fmt, schema, rates, engines, profile, seed: int,
                 n_events) -> str:
    """The ``cepsim compare`` command that reproduces a run (written into ``compare.md``)."""
    import shlex
    parts = ["cepsim", "compare", " ".join(text.split()), str(data)]
    for opt, v in (("--format", fmt), ("--schema", schema), ("--rates", rates),
                   ("--engines", engines), ("--profile", profile), ("--n-events", n_events)):
        if v is not None:
            parts += [opt, str(v)]
    if seed:
        parts += ["--seed", str(seed)]
    return " ".join(shlex.quote(p) for p in parts)


def run_command(text: str, source: str, data, fmt: str | None, schema, rates: str | None,
                engines: str | None, profile, out, seed: int, n_events: int | None,
                progress: bool | None) -> tuple[str, int]:
    """``cepsim compare``: load, compare, print the table, write ``--out``.  Returns (printed
    text, exit code): 1 when engines disagree on the matches (a bug), else 0.  Bad input raises
    ``CepsimInputError`` (exit 2) before any engine runs."""
    import sys
    from pathlib import Path

    from engines.pattern import parse_pattern
    from sim.core.costmodel import load_profile
    from sim.experiments.inputs import resolve_input
    from sim.experiments.progress import Progress, is_tty
    from workloads.loaders import load_stream

    rate_list = parse_rates(rates)
    names = [e.strip() for e in engines.split(",") if e.strip()] if engines else None
    select_strategies(names)
    if n_events is not None and n_events < 1:
        raise CepsimInputError(f"--n-events must be >= 1, got {n_events}")
    data = Path(data)
    if not data.is_file():
        raise CepsimInputError(f"{data}: data file not found; give the path of the events file")
    prof = load_profile(None if profile is None else resolve_input(str(profile)))
    if out is not None:
        out = Path(out)
        if out.exists() and not out.is_dir():
            raise CepsimInputError(f"--out {out}: is a file; give a directory for rows.parquet, "
                                   f"the figures and compare.md")
    pat = parse_pattern(text, source)
    stream = load_stream(data, fmt, schema) if schema is not None else load_stream(data, fmt)
    if n_events is not None and n_events < len(stream):
        stream = stream.slice(0, n_events)
    show = is_tty(sys.stderr) if progress is None else progress
    with Progress(1, desc="compare", unit="steps", enabled=None if show else False) as bar:
        try:
            cmp = compare(pat, stream, rate_list, names, prof, seed, bar)
        except MatchMismatch as exc:
            return f"error: {exc}", 1
        bar.stage("compare: done")
        bar.update(1)
    printed = cmp.table()
    if out is not None:
        from sim.tools.compare.report import write_out
        paths = write_out(cmp, out, command_line(text, data, fmt, schema, rates, engines,
                                                 profile, seed, n_events))
        printed += "\nwrote " + ", ".join(str(p) for p in paths)
    return printed, 0


def _provisional(eligible, program, stream, ctx: dict, prof, ineligible: list, bar) -> list:
    """Runs of the rate-dependent strategies at the stream's own rate (``rate`` None), to set
    the rates when no other strategy ran."""
    out = []
    for s in eligible:
        if not s.per_rate:
            continue
        try:
            variants = _resolve(s.expand)(program, stream, {**ctx, "rate": None})
        except (CepsimInputError, CapacityError) as exc:
            ineligible.append((s.key, refusal(exc)))
            continue
        for lab, opt in variants:
            r = Run(s.key, lab, s.engine, {**dict(s.options), **opt})
            stage(bar, f"compare: running {r.spec}")
            if _execute(r, program, stream, prof, []):
                out.append(r)
    return out


def _execute(r: Run, program, stream, prof, ineligible: list) -> bool:
    """Run the engine; a refusal or capacity error lists the run as ineligible."""
    try:
        r.result = _run_engine(r, program, stream)
    except (CepsimInputError, CapacityError) as exc:
        ineligible.append((r.label, refusal(exc)))
        return False
    cnt = np.asarray(r.result.counters)[:len(stream)]
    r.service = prof.service_times(np.ascontiguousarray(cnt, dtype=np.int64))
    r.digest = match_digest(r.result.matches)
    r.result = Kept.of(r.result)
    return True


def simpy_check(run: Run, rate: float, prof, seed: int) -> str:
    """Queue ``run`` at ``rate`` with SimPy and with the Lindley fast path (the stream's first
    ``SIMPY_CHECK_EVENTS`` events) and compare the departure times; a disagreement beyond
    ``SIMPY_TOLERANCE`` relative is a bug (``RuntimeError``)."""
    from sim.core.fastpath import lindley
    from sim.core.queue import simulate_simpy
    svc = run.service[:SIMPY_CHECK_EVENTS]
    m = len(svc)
    arr = poisson(len(run.service), rate, seed)[:m]
    _, d_fast = lindley(arr, svc)
    sv = svc.tolist()
    _, d_simpy = simulate_simpy(arr, lambda i, now: sv[i], m)
    rel = float(np.max(np.abs(d_simpy - d_fast) / np.maximum(np.abs(d_fast), 1e-300))) if m \
        else 0.0
    text = (f"SimPy check: {run.label} at {fmt_rate(rate)} ev/s, first {m} events: departures "
            f"agree with the fast path to {rel:.1e} relative")
    if not rel <= SIMPY_TOLERANCE:
        raise RuntimeError(text + f" (tolerance {SIMPY_TOLERANCE:g}: a bug in the queue)")
    return text


# ----------------------------------------------------------------------------- ranking


# ----------------------------------------------------------------------------- rows



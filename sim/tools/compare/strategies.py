"""The strategies ``cepsim compare`` knows, and which pattern features each can evaluate.

Data only (no numpy, no engine import), so ``cepsim --help`` can print it: one ``Strategy`` per
line of ``STRATEGIES``.  A new optimizer or evaluator is one more entry: its registry engine,
fixed options, the features it refuses (``FEATURES``) and, when it chooses a plan, the
``"module:function"`` that expands it into engine runs (``sim.tools.compare.core`` has the expansions of the
shipped planners).
"""
from __future__ import annotations

from dataclasses import dataclass

from engines.errors import CepsimInputError

MAX_ORDER_VARS = 4          # the chain runs every order up to this many variables (4! = 24)

FEATURES: dict[str, str] = {
    "remote": "REMOTE[...] data",
    "kleene": "Kleene closure (+)",
    "negation": "negation (NOT)",
    "and_or": "AND/OR (several alternatives or an unordered AND)",
    "next": "skip-till-next-match",
    "no_window": "no WITHIN window",
}


@dataclass(frozen=True)
class Strategy:
    """One evaluation strategy: ``engine`` (registry name) with fixed ``options``; ``refuses``
    / ``needs``: pattern features (``FEATURES``) it cannot evaluate / requires; ``expand``:
    ``"module:function"`` ``f(program, stream, ctx) -> [(label, options)]`` when the strategy
    is several runs or chooses its plan (``ctx``: ``rate`` for ``per_rate`` strategies,
    ``profile``); ``per_rate``: the choice depends on the arrival rate (called once per rate)."""

    key: str
    engine: str
    summary: str
    refuses: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    options: tuple[tuple[str, object], ...] = ()
    expand: str | None = None
    per_rate: bool = False


_LAZY = ("remote", "next")
_SIMPLE = ("remote", "kleene", "negation", "next", "and_or")
_EIRES_REFUSES = ("kleene", "negation", "and_or")

STRATEGIES: tuple[Strategy, ...] = (
    Strategy("eager", "eager", "eager NFA, native AND (every feature but REMOTE)", ("remote",)),
    Strategy("chain", "chain", f"lazy chain NFA (DEBS'15): every order up to {MAX_ORDER_VARS} "
             "variables, else the greedy planner's order", _LAZY,
             expand="sim.tools.compare.core:chain_orders"),
    Strategy("tree", "tree", "lazy tree NFA (DEBS'15): adaptive order from buffer counts",
             _LAZY),
    Strategy("ztree", "ztree", "ZStream tree, left-deep in query order", ("remote", "next")),
    Strategy("ztree-zstream", "ztree", "ZStream tree, the plan ZStream's planner picks on the "
             "warm-up statistics", ("remote", "next", "no_window"),
             expand="sim.tools.compare.core:zstream_plan"),
    Strategy("apam", "hybrid", "APAM hybrid eager/lazy (CIKM'16), the plan its optimizer picks "
             "at each rate", _SIMPLE, expand="sim.tools.compare.core:apam_plan", per_rate=True),
    Strategy("apam-x", "hybrid", "APAM hybrid, the plan the apam-x optimizer (executed work) "
             "picks at each rate", _SIMPLE, expand="sim.tools.compare.core:apam_x_plan", per_rate=True),
    Strategy("apam-r", "hybrid", "APAM hybrid, the plan the apam-r optimizer picks at each "
             "rate: every candidate's warm-up service times replayed through the Lindley "
             "recursion (beyond the paper)", _SIMPLE,
             expand="sim.tools.compare.strategies:apam_r_plan", per_rate=True),
    Strategy("sase", "sase", "SASE run loop (APAM's eager baseline)", _SIMPLE),
    Strategy("adaptive-greedy", "adaptive", "invariant-based re-planning (PVLDB'18), greedy "
             "orders on the lazy chain", _LAZY + ("no_window",), options=(("planner", "greedy"),)),
    Strategy("adaptive-zstream", "adaptive", "invariant-based re-planning (PVLDB'18), ZStream "
             "trees", ("remote", "next", "no_window"), options=(("planner", "zstream"),)),
) + tuple(
    Strategy(f"eires-{s}", "remote", f"EIRES {s} (remote data)", _EIRES_REFUSES, ("remote",),
             options=(("strategy", s),))
    for s in ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid"))


def apam_r_plan(program, stream, ctx: dict) -> list[tuple[str, dict]]:
    """The plan the ``apam-r`` optimizer (``engines.planners.apam_r``) picks at the rate
    ``ctx['rate']`` (None: the warm-up timestamps' rate; warm-up: the first half of the stream):
    every candidate runs on the warm-up and its counters are priced by ``ctx['profile']``, the
    profile the comparison simulates with.  Imports on call (this module is data at import)."""
    from engines.planners.apam import estimate_statistics
    from engines.planners.apam_r import choose_plan_r

    prof = ctx["profile"]
    rate = ctx.get("rate")
    st = estimate_statistics(program, stream, arrival_rate=None if rate is None else float(rate))
    ch = choose_plan_r(program, stream, st, {"unit_vector": prof.unit_vector(),
                                             "base": float(prof.base_cost)})
    return [("apam-r", {"plan": ch["plan"]})]


def strategy_keys() -> list[str]:
    return [s.key for s in STRATEGIES]


def help_text() -> str:
    """One line per strategy: what it is and the pattern features it cannot evaluate."""
    lines = []
    for s in STRATEGIES:
        cond = []
        if s.needs:
            cond.append("only with " + ", ".join(FEATURES[f] for f in s.needs))
        if s.refuses:
            cond.append("not with " + ", ".join(FEATURES[f] for f in s.refuses))
        lines.append(f"{s.key}: {s.summary}" + (f" [{'; '.join(cond)}]" if cond else ""))
    return "\n".join(lines)


def eligibility(strategy: Strategy, features: set[str]) -> str:
    """'' when ``strategy`` can evaluate a pattern with ``features``, else a one-line reason
    (worded without the strategy's name, so that strategies refused alike share one line)."""
    miss = [FEATURES[f] for f in strategy.needs if f not in features]
    if miss:
        return "the pattern has no " + ", ".join(miss) + " (these strategies differ only there)"
    bad = [FEATURES[f] for f in strategy.refuses if f in features]
    if bad:
        return "cannot evaluate " + ", ".join(bad)
    return ""


def select_strategies(engines: list[str] | None) -> list[Strategy]:
    """The strategies named by ``engines`` (strategy keys or registry engine names; None = all);
    an unknown name is a ``CepsimInputError`` listing the valid ones."""
    if not engines:
        return list(STRATEGIES)
    out = []
    for name in engines:
        hit = [s for s in STRATEGIES if name in (s.key, s.engine)]
        if not hit:
            raise CepsimInputError(f"--engines: unknown strategy {name!r}; choose from "
                                   f"{', '.join(strategy_keys())} (or an engine name: "
                                   f"{', '.join(dict.fromkeys(s.engine for s in STRATEGIES))})")
        out += [s for s in hit if s not in out]
    return out

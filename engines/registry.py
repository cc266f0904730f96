"""Engine registry: one switch (``cepsim match --engine``) over every evaluator.

``run_engine(name, program, stream, **options) -> EngineResult``.  Engines register a function
``f(program, stream, **options) -> EngineResult`` with ``register``; modules are imported lazily so
that importing the registry never compiles Numba code.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from engines.errors import CepsimInputError
from engines.matches import MatchSet

# name -> "module:function"
_ENGINES: dict[str, str] = {
    "oracle": "engines.oracle:run_oracle",
    "eager": "engines.evaluators.eager:run_eager",
    "hybrid": "engines.planners.apam_engine:run_hybrid",
    "chain": "engines.evaluators.lazy_nfa:run_chain",
    "tree": "engines.evaluators.lazy_nfa:run_tree",
    "stepper": "engines.evaluators.stepper:run_stepper",
    "remote": "engines.remote.kernel:run_remote",
    "ztree": "engines.evaluators.ztree:run_ztree",
    "sase": "engines.evaluators.sase:run_sase",
    "adaptive": "engines.planners.adaptive.engine:run_adaptive",
}
# Engines that need every order of an AND (``program.branches``: tree, hybrid, remote, stepper,
# and the chain for a pattern with NOT / Kleene or with ``and_groups="expanded"``) raise
# compile.TooManyBranches (a PatternError) naming the capacity option when that expansion
# exceeds ``max_branches``; eager, ztree and the oracle evaluate AND groups natively, the chain
# runs an AND of plain events as one order-free chain (``engines.evaluators.lazy_chain``).


@dataclass
class EngineResult:
    matches: MatchSet
    counters: np.ndarray     # int64[n_events, N_COUNTERS]
    info: dict | None = None  # engine specific extras (plan chosen, order, ...)


def register(name: str, target: str) -> None:
    """Register engine ``name`` implemented by ``"module:function"``."""
    _ENGINES[name] = target


def engine_names() -> list[str]:
    return list(_ENGINES)


def engine_targets() -> dict[str, str]:
    """Engine name -> ``"module:function"`` implementing it (a copy)."""
    return dict(_ENGINES)


def get_engine(name: str) -> Callable[..., EngineResult]:
    if name not in _ENGINES:
        raise CepsimInputError(f"unknown engine {name!r}; choose one of {', '.join(_ENGINES)}")
    module, func = _ENGINES[name].split(":")
    return getattr(importlib.import_module(module), func)


def engine_options(name: str) -> frozenset[str]:
    """The options engine ``name`` takes by name (its function's keyword parameters besides the
    program and the stream); other options reach it through ``**options`` and are ignored."""
    import inspect

    params = inspect.signature(get_engine(name)).parameters.values()
    return frozenset(p.name for p in list(params)[2:]
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
                     and not p.name.startswith("_"))


def engines_taking(option: str) -> list[str]:
    """Registered engines that take ``option`` by name (imports every engine module)."""
    return [n for n in _ENGINES if option in engine_options(n)]


def run_engine(name: str, program, stream, **options) -> EngineResult:
    """Run engine ``name`` on ``stream``; NaN in a used attribute is a user error."""
    stream.require_no_nan(program.used_columns)
    if program.has_remote and name not in ("oracle", "remote") and \
            not options.get("remote_ok", False):
        raise CepsimInputError("this pattern uses REMOTE[...] data, which the "
                               f"{name!r} engine cannot evaluate; use engine 'remote' (EIRES "
                               "strategies, option strategy=BL1|BL2|BL3|PFetch|LzEval|Hybrid) or "
                               "'oracle'")
    if name in _CORR_PREPARED:   # correlations read operands centred once per event
        from engines.corr_prep import prepare_corr
        program, stream = prepare_corr(program, stream)
    res = get_engine(name)(program, stream, **options)
    check_caps(name, res, options.get("max_partial_matches"), options.get("max_matches"))
    return res


# engines whose kernels read correlation predicates only through ``eval_pred``, which reads
# operands centred once per event when ``engines.corr_prep`` prepared them (bit-identical)
_CORR_PREPARED = frozenset({"eager", "chain", "tree", "hybrid", "ztree", "sase"})

# engines whose kernel enforces (max_partial_matches, max_matches) itself, in bounded memory
_CAPS_INSIDE: dict[str, tuple[bool, bool]] = {
    "eager": (True, True), "chain": (True, True), "tree": (True, True), "ztree": (True, True),
    "hybrid": (True, True), "stepper": (True, True),
    "oracle": (False, True)}


def check_caps(name: str, res: EngineResult, max_partial_matches: int | None,
               max_matches: int | None) -> None:
    """The capacity options hold for every engine: most engines stop inside their kernel when a
    cap is reached (bounded memory: eager, chain, tree, ztree, hybrid, sase, stepper); this
    check after the run makes the options binding for the rest too (the oracle keeps no partial
    matches -- its search is bounded by ``max_steps`` -- and the remote engine's kernel has no
    caps), so ``--max-partial-matches``/``--max-matches`` never pass silently."""
    from engines import counters as C
    from engines.errors import CapacityError
    pm_inside, m_inside = _CAPS_INSIDE.get(name, (False, False))
    if pm_inside:
        max_partial_matches = None   # the engine's own check is the binding one
    if m_inside:
        max_matches = None
    n_m = len(res.matches)
    if max_matches is not None and n_m > int(max_matches):
        raise CapacityError(f"{name} engine: {n_m} matches, more than max_matches={max_matches}; "
                            f"raise the cap with --max-matches / max_matches=, or narrow the "
                            f"pattern")
    cnt = res.counters
    if max_partial_matches is not None and cnt is not None and len(cnt):
        peak = int(cnt[:, C.LIVE_PM].max())
        peak = max(peak, int((res.info or {}).get("peak_transient_instances", 0) or 0))
        if peak > int(max_partial_matches):
            raise CapacityError(f"{name} engine: {peak} live partial matches, more than "
                                f"max_partial_matches={max_partial_matches}; raise the cap with "
                                f"--max-partial-matches / max_partial_matches=, or narrow the "
                                f"window")

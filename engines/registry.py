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
    "eager": "engines.eager:run_eager",
    "hybrid": "engines.hybrid:run_hybrid",
    "chain": "engines.lazy_nfa:run_chain",
    "tree": "engines.lazy_nfa:run_tree",
    "ztree": "engines.ztree:run_ztree",
}
# engines that evaluate ``program.pattern`` without its flat branches (native AND)
_NO_BRANCHES_OK = frozenset({"ztree"})


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


def get_engine(name: str) -> Callable[..., EngineResult]:
    if name not in _ENGINES:
        raise CepsimInputError(f"unknown engine {name!r}; choose one of {', '.join(_ENGINES)}")
    module, func = _ENGINES[name].split(":")
    return getattr(importlib.import_module(module), func)


def run_engine(name: str, program, stream, **options) -> EngineResult:
    """Run engine ``name`` on ``stream``; NaN in a used attribute is a user error."""
    stream.require_no_nan(program.used_columns)
    if program.has_remote and name not in ("oracle",) and not options.get("remote_ok", False):
        raise CepsimInputError("this pattern uses REMOTE[...] data, which the "
                               f"{name!r} engine cannot evaluate; remote data evaluation needs a "
                               "remote-data strategy (EIRES), not built yet")
    if getattr(program, "branch_error", "") and name not in _NO_BRANCHES_OK:
        raise CepsimInputError(f"{program.branch_error} (engine {name!r} needs the flat "
                               "branches)")
    return get_engine(name)(program, stream, **options)

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
    "stepper": "engines.stepper:run_stepper",
    "remote": "engines.remote.kernel:run_remote",
    "ztree": "engines.ztree:run_ztree",
    "sase": "engines.sase:run_sase",
}
# Engines that need every order of an AND (``program.branches``: chain, tree, hybrid, remote,
# stepper) raise compile.TooManyBranches (a PatternError) naming the capacity option when that
# expansion exceeds ``max_branches``; eager, ztree and the oracle evaluate AND groups natively.


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
    if program.has_remote and name not in ("oracle", "remote") and \
            not options.get("remote_ok", False):
        raise CepsimInputError("this pattern uses REMOTE[...] data, which the "
                               f"{name!r} engine cannot evaluate; use engine 'remote' (EIRES "
                               "strategies, option strategy=BL1|BL2|BL3|PFetch|LzEval|Hybrid) or "
                               "'oracle'")
    return get_engine(name)(program, stream, **options)

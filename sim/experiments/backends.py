"""Sweep backend registry: how ``sim.experiments.runner`` finds the code that runs pending points.

A backend is ``f(cfg, pending, on_row, workers=None, master=None) -> None``: it runs
``sim.experiments.runner.run_point`` for every pending point (serially, in a process pool, on Spark) and
calls ``on_row(point, row)`` in the calling process as rows arrive.  Backends are registered by
``"module:function"`` name and imported on first use, so the runner never imports a backend
module at load time: the backends depend on the runner, not the other way round (no import
cycle between ``sim.experiments.runner``, ``sim.experiments.sweep`` and ``sim.experiments.spark_backend``).  An optional *preflight*
check runs before any work (Spark: Java present and recent enough).
"""
from __future__ import annotations

import importlib
from typing import Callable

from engines.errors import CepsimInputError

_BACKENDS: dict[str, str] = {
    "serial": "sim.experiments.runner:run_serial",
    "local": "sim.experiments.sweep:run_local",
    "spark": "sim.experiments.spark_backend:run_spark",
}
_PREFLIGHT: dict[str, str] = {
    "spark": "sim.experiments.spark_backend:check_java",
}


def _load(target: str) -> Callable:
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


def register_backend(name: str, target: str, preflight: str | None = None) -> None:
    """Register backend ``name`` implemented by ``"module:function"`` (and its preflight)."""
    _BACKENDS[name] = target
    if preflight is not None:
        _PREFLIGHT[name] = preflight


def backend_names() -> tuple[str, ...]:
    return tuple(_BACKENDS)


def get_backend(name: str) -> Callable:
    """The backend function of ``name`` (``CepsimInputError`` naming the choices otherwise)."""
    if name not in _BACKENDS:
        raise CepsimInputError(f"--backend: unknown backend {name!r}; use one of "
                               f"{', '.join(_BACKENDS)}")
    return _load(_BACKENDS[name])


def preflight(name: str) -> None:
    """Run the backend's check before any work (a no-op for most backends)."""
    if name in _PREFLIGHT:
        _load(_PREFLIGHT[name])()

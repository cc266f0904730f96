"""Which points a parallel sweep runs in the parent first, so that no two workers compile a kernel.

Parallel first compiles of one Numba kernel can corrupt the on-disk cache, and every worker
compiling the same kernels wastes the parallelism (a first local sweep of 40 small points took
96 s vs 4.7 s serially when only the first engine of an ``engine`` grid was warmed).  So before
fanning out, the parent runs one pending point per *kernel key*: the set of points sharing a key
uses the same compiled kernels.  Those points are real grid points (their rows are kept), so
the warm-up costs no extra work, only parallelism.

The key of a point comes from the scenario module's optional ``warm_key(params) -> hashable``;
without one, it is the values of the varying parameters whose names contain ``engine``,
``strategy`` or ``shedder`` (engine variants live in different kernels; numeric knobs such as the
arrival rate and the pattern text do not change a kernel's types).  Scenario modules whose grid
selects kernels some other way should define ``warm_key``.
"""
from __future__ import annotations

from typing import Any, Callable

from sim.config import ExperimentConfig, Point

KERNEL_KEY_WORDS = ("engine", "strategy", "shedder")


def _scenario_hook(cfg: ExperimentConfig) -> Callable[[dict], Any] | None:
    import importlib

    mod_name = cfg.scenario.split(":")[0]
    try:
        mod = importlib.import_module(f"sim.scenarios.{mod_name}")
    except Exception:  # reported per point by run_point
        return None
    hook = getattr(mod, "warm_key", None)
    return hook if callable(hook) else None


def warm_key(cfg: ExperimentConfig, point: Point, hook=None) -> Any:
    """The kernel key of ``point`` (see module docstring)."""
    if hook is not None:
        try:
            return hook(dict(point.params))
        except Exception:  # a bad point: let run_point report it; warm it to be safe
            return ("<error>", point.point_id)
    varying = list(cfg.grid) + list(cfg.zip)
    return tuple((k, repr(point.params.get(k))) for k in varying
                 if any(w in k.lower() for w in KERNEL_KEY_WORDS))


def split_warmup(cfg: ExperimentConfig, pending: list[Point]) -> tuple[list[Point], list[Point]]:
    """(points the parent runs first, one per kernel key in pending order; the rest)."""
    hook = _scenario_hook(cfg)
    seen: set = set()
    warm, rest = [], []
    for p in pending:
        k = warm_key(cfg, p, hook)
        try:
            new = k not in seen
        except TypeError:  # unhashable key from a hook: fall back to its repr
            k = repr(k)
            new = k not in seen
        if new:
            seen.add(k)
            warm.append(p)
        else:
            rest.append(p)
    return warm, rest

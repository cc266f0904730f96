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

**Shared work.**  A scenario may also define ``work_key(params) -> hashable``: points with one
work key reuse one cached computation (the generic scenario: the engine counters of one stream,
pattern and engine spec, reused across arrival rates).  ``plan_sweep`` then orders the parallel
part so that the first point of each work key runs before the others with that key, which load
the cached result instead of repeating the computation in several workers at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from sim.experiments.config import ExperimentConfig, Point

KERNEL_KEY_WORDS = ("engine", "strategy", "shedder")


def scenario_hook(cfg: ExperimentConfig, name: str = "warm_key") -> Callable[[dict], Any] | None:
    import importlib

    from sim.experiments.functions import scenario_module

    try:
        mod = importlib.import_module(scenario_module(cfg.scenario))
    except Exception:  # reported per point by run_point
        return None
    hook = getattr(mod, name, None)
    return hook if callable(hook) else None


def hashable(k: Any) -> Any:
    try:
        hash(k)
        return k
    except TypeError:  # unhashable key from a hook: fall back to its repr
        return repr(k)


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
    hook = scenario_hook(cfg)
    seen: set = set()
    warm, rest = [], []
    for p in pending:
        k = hashable(warm_key(cfg, p, hook))
        if k not in seen:
            seen.add(k)
            warm.append(p)
        else:
            rest.append(p)
    return warm, rest


def work_key(point: Point, hook) -> Any:
    """The shared-work key of ``point`` (None: shares nothing, see module docstring)."""
    if hook is None:
        return None
    try:
        return hashable(hook(dict(point.params)))
    except Exception:  # a bad point: run_point reports it; it shares nothing
        return None


@dataclass
class SweepPlan:
    """How a parallel sweep runs ``pending``: ``warm`` in the parent first (one per kernel key),
    then ``first`` in parallel, and each point of ``after[i]`` once ``first[i]`` has finished
    (``after[i]`` shares ``first[i]``'s work key); ``free`` share nothing still to be computed
    and run in parallel from the start."""
    warm: list[Point]
    first: list[Point]
    after: list[list[Point]]
    free: list[Point]

    def parallel_count(self) -> int:
        return len(self.first) + sum(map(len, self.after)) + len(self.free)


def plan_sweep(cfg: ExperimentConfig, pending: list[Point]) -> SweepPlan:
    """Split ``pending`` into a warm-up and a dependency-ordered parallel part (see SweepPlan).

    Every point appears exactly once; within each part the pending order is kept."""
    warm, rest = split_warmup(cfg, pending)
    hook = scenario_hook(cfg, "work_key")
    done = {work_key(p, hook) for p in warm} - {None}
    first: list[Point] = []
    after: list[list[Point]] = []
    free: list[Point] = []
    index: dict = {}
    for p in rest:
        k = work_key(p, hook)
        if k is None or k in done:
            free.append(p)
        elif k in index:
            after[index[k]].append(p)
        else:
            index[k] = len(first)
            first.append(p)
            after.append([])
    return SweepPlan(warm, first, after, free)

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


# ------------------------------------------------------------------ first use of the kernels
# A Numba kernel is compiled on its first call in a checkout and loaded from the on-disk cache
# afterwards (engines/jitcache.py).  Measured on 2 cores (benchmarks/cold_compile.md): a cold
# first use costs 20-80 s per engine against well under 1 s for a warm cache load, so the first
# command of a fresh clone says what it is doing, and ``cepsim warmup`` compiles ahead.

NOTICE_AFTER_S = 1.5   # a warm cache load takes well under this; a compile takes far longer

# The pattern every engine is warmed on (README quick start), and a Kleene variant for the
# engines that evaluate Kleene closure (their Kleene kernels are separate functions).
WARM_DATA = ("workloads", "data", "opencep_nasdaq", "NASDAQ_SHORT.txt")
WARM_PATTERNS = ("PATTERN SEQ(AAPL a, GOOG b) WHERE a.close < b.close WITHIN 10 minutes",
                 "PATTERN SEQ(AAPL a, GOOG+ b, AMZN c) WHERE a.close < c.close "
                 "WITHIN 10 minutes")


class FirstUseNotice:
    """Context manager: when the block runs longer than ``after_s`` (a kernel compile, not a
    cache load), print ``"<prefix>compiling <what> (first use, cached after) ..."`` and, at the
    end, the elapsed seconds; silent when the block is quick (kernels already cached).

    ``echo(text)`` prints one line (stderr in the CLI).  ``seconds`` holds the block's wall
    time after exit."""

    def __init__(self, what: str, echo: Callable[[str], None], after_s: float = NOTICE_AFTER_S,
                 prefix: str = ""):
        self.what, self.echo, self.after_s, self.prefix = what, echo, after_s, prefix
        self.seconds = 0.0
        self.shown = False

    def __enter__(self) -> "FirstUseNotice":
        import threading
        import time

        self._t0 = time.perf_counter()
        self._lock = threading.Lock()

        def show() -> None:
            with self._lock:
                if not self._done:
                    self.shown = True
                    self.echo(f"{self.prefix}compiling {self.what} (first use, cached after) ...")

        self._done = False
        self._timer = threading.Timer(self.after_s, show)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc) -> None:
        import time

        self._timer.cancel()
        with self._lock:
            self._done = True
        self.seconds = time.perf_counter() - self._t0
        if self.shown:
            self.echo(f"{self.prefix}compiled {self.what} in {self.seconds:.1f} s")


def warm_targets() -> tuple[str, ...]:
    """What ``cepsim warmup`` can compile: every registered engine, ``reader`` (the Metastock
    reader's scan) and ``queue`` (the Lindley fast path of the simulator)."""
    from engines.registry import engine_names

    return ("reader", *engine_names(), "queue")


def warm(targets: list[str] | None = None,
         echo: Callable[[str], None] = print) -> dict[str, float]:
    """Compile (or load from the cache) the kernels of ``targets`` (default every target of
    ``warm_targets``) by running each engine on the bundled 117-event NASDAQ sample with
    ``WARM_PATTERNS``; returns wall seconds per target.  A pattern an engine does not evaluate
    (e.g. Kleene) is skipped for that engine."""
    import time
    from pathlib import Path

    import numpy as np

    from engines.errors import CepsimInputError

    choices = warm_targets()
    targets = list(choices) if not targets else list(targets)
    bad = [t for t in targets if t not in choices]
    if bad:
        raise CepsimInputError(f"--engines: unknown {', '.join(map(repr, bad))}; choose from "
                               f"{', '.join(choices)}")
    from engines.compile import compile_pattern
    from engines.jitcache import REPO_ROOT
    from engines.pattern import parse_pattern
    from engines.registry import run_engine
    from workloads.loaders import load_stream, warm_reader

    secs: dict[str, float] = {}
    data = Path(REPO_ROOT, *WARM_DATA)
    t0 = time.perf_counter()
    if "reader" in targets:
        with FirstUseNotice("the Metastock reader", echo):
            warm_reader("metastock")
    stream = load_stream(data, "metastock")
    if "reader" in targets:
        secs["reader"] = time.perf_counter() - t0
    progs = [compile_pattern(parse_pattern(p, "<warmup>"), stream.schema) for p in WARM_PATTERNS]
    for t in targets:
        if t in ("reader", "queue"):
            continue
        t0 = time.perf_counter()
        with FirstUseNotice(f"{t} kernels", echo):
            for prog in progs:
                try:
                    run_engine(t, prog, stream)
                except CepsimInputError:   # a construct this engine does not evaluate
                    pass
        secs[t] = time.perf_counter() - t0
    if "queue" in targets:
        from sim.core.fastpath import lindley

        t0 = time.perf_counter()
        with FirstUseNotice("the queue kernels", echo):
            lindley(np.arange(4, dtype=np.float64), np.ones(4, dtype=np.float64))
        secs["queue"] = time.perf_counter() - t0
    return secs

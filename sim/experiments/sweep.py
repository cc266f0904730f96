"""Local parallel backend: a process pool, one task per (point, rep); rows are written by the
parent only.

The first local sweep of a grid must cost no more than a serial run (which compiles every kernel
once and computes every shared result once).  ``sim.experiments.warmup.plan_sweep`` says how:

1. **Warm-up in the parent.**  One pending point per kernel key (one per engine of an ``engine``
   grid) runs in the parent first: it compiles every Numba kernel the grid uses once, into the
   one on-disk cache of ``engines.jitcache`` (``$NUMBA_CACHE_DIR`` or ``<repo>/.numba_cache``,
   the same as every other command).  No two processes ever compile a kernel concurrently
   (parallel first compiles can corrupt the cache).  Warm points are real grid points.
2. **Fork after the warm-up** (on Linux, when the parent runs no other Python thread):
   the workers are copies of the warmed parent, so they start with every module imported, every
   kernel compiled in memory and the parent's in-memory results (streams, engine counters); they
   neither import nor load the kernel cache.  Elsewhere (``spawn``) the pool is started *before*
   the warm-up and each worker imports the runner and the scenario while the parent warms up;
   the workers then load the kernels from the disk cache.
3. **Shared work first.**  Points that share a scenario's ``work_key`` (the generic scenario: the
   engine counters of one stream, pattern and engine spec) are submitted only after the first
   point of their key has finished, so they load its cached result instead of several workers
   computing it at once.

Every point is computed by the same ``run_point`` as in a serial run, from its own seed, so rows
are bit-identical to the serial run's (``tests/test_sweep_local.py``).
"""
from __future__ import annotations

import gc
import multiprocessing as mp
import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Callable

from sim.experiments.config import ExperimentConfig, Point
from engines.jitcache import ensure_numba_cache_dir, install_compile_lock  # noqa: F401
from sim.experiments.runner import default_workers, run_point
from sim.experiments.warmup import plan_sweep

REPO_ROOT = Path(__file__).resolve().parents[2]


def _watch_parent(parent_pid: int, period: float = 0.5) -> None:
    """Exit this worker as soon as its parent is gone (SIGKILL/SIGTERM of ``cepsim sweep`` would
    otherwise leave the pool's workers running as orphans): the parent pid changes when the
    process is re-parented."""
    import time
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(period)


def worker_init(repo_root: str, scenario: str | None = None,
                 parent_pid: int | None = None) -> None:
    """Pool initializer: a watchdog that ends the worker with its parent, a stable import path,
    then import the runner and the scenario module."""
    if parent_pid is not None:
        import threading
        if os.getppid() != parent_pid:
            os._exit(1)
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                         name="cepsim-parent-watch").start()
    if repo_root not in sys.path:
        sys.path.insert(0, repo_root)
    install_compile_lock()   # spawned workers (forked ones inherit it)
    if scenario:
        prime_imports(scenario)


def prime_imports(scenario: str) -> None:
    """Import ``sim.experiments.runner`` and the scenario's module (no kernel runs, so nothing compiles).

    A broken scenario module is not an error here: ``run_point`` reports it per point."""
    try:
        import sim.experiments.runner  # noqa: F401  (what every task unpickles first)
        from sim.experiments.functions import resolve
        resolve(scenario, "scenario")
    except Exception:  # pragma: no cover - reported by run_point instead
        pass


def _noop() -> int:
    return os.getpid()


def error_row(p: Point, exc: BaseException) -> dict:
    row = dict(p.params)
    row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
               error=f"worker failed: {type(exc).__name__}: {exc}", wall_s=None)
    return row


def pool_context(context: str | None = None) -> str:
    """The start method of the pool: ``context`` if given, else ``fork`` on Linux when this
    process runs no other Python thread (forking a threaded process can deadlock; macOS system
    libraries are not fork-safe, which is why Python spawns there by default), else ``spawn``.
    ``$CEPSIM_POOL_CONTEXT`` overrides the automatic choice."""
    context = context or os.environ.get("CEPSIM_POOL_CONTEXT") or None
    if context:
        return context
    if (sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods()
            and threading.active_count() == 1):
        return "fork"
    return "spawn"


def run_local(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              workers: int | None = None, context: str | None = None, **_ignored) -> None:
    """Run ``pending`` points in a process pool, calling ``on_row`` in the parent as rows arrive
    (see the module docstring for the order: warm-up, fork, shared work first)."""
    if not pending:
        return
    ensure_numba_cache_dir()
    install_compile_lock()   # a kernel the warm-up missed is still compiled by one worker only
    workers = workers or default_workers()
    plan = plan_sweep(cfg, pending)
    if not plan.parallel_count():
        for p in plan.warm:
            on_row(p, run_point(cfg, p))
        return
    ctx_name = pool_context(context)
    n_workers = min(workers, plan.parallel_count())
    if ctx_name == "fork":  # warm first: the forked workers inherit the warmed parent
        for p in plan.warm:
            on_row(p, run_point(cfg, p))
        gc.freeze()  # the workers' collector then leaves the inherited objects (and pages) alone
    try:
        _fan_out(cfg, plan, on_row, n_workers, ctx_name)
    finally:
        if ctx_name == "fork":
            gc.unfreeze()


def _fan_out(cfg: ExperimentConfig, plan, on_row: Callable[[Point, dict], None], n_workers: int,
             ctx_name: str) -> None:
    with ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context(ctx_name),
                             initializer=worker_init,
                             initargs=(str(REPO_ROOT), cfg.scenario, os.getpid())) as pool:
        if ctx_name != "fork":
            # one submit per worker spawns them all now: they start and import during the warm-up
            for _ in range(n_workers):
                pool.submit(_noop)
            for p in plan.warm:  # every kernel the grid needs, compiled once, in one process
                on_row(p, run_point(cfg, p))
        futs: dict = {}

        def submit(p: Point, then: list[Point]) -> None:
            futs[pool.submit(run_point, cfg, p)] = (p, then)

        for p, then in zip(plan.first, plan.after):
            submit(p, then)
        for p in plan.free:
            submit(p, [])
        try:
            while futs:
                done, _ = wait(list(futs), return_when=FIRST_COMPLETED)
                for fut in done:
                    p, then = futs.pop(fut)
                    try:
                        row = fut.result()
                    except Exception as exc:  # worker crashed (e.g. killed): record, keep going
                        row = error_row(p, exc)
                    for q in then:  # the shared result now exists (or failed: they report it)
                        submit(q, [])
                    on_row(p, row)
        except BaseException:
            for f in futs:
                f.cancel()
            raise

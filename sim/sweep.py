"""Local parallel backend: one process per worker (spawn context), one task per (point, rep).

Before fanning out, the parent runs one pending point per kernel key (``sim.warmup``: one per
engine of an ``engine`` grid): this compiles every Numba kernel the grid uses once and fills the
on-disk cache, so workers load instead of compiling in parallel (parallel first compiles can
corrupt the cache).  Parent and workers share the one cache of ``engines.jitcache``
(``$NUMBA_CACHE_DIR`` or ``<repo>/.numba_cache``, the same as every other command).  Rows are
written by the parent only.

The pool is started *before* the warm-up point, and each worker imports the runner and the
scenario module while the parent computes that point (imports never compile a kernel: cepsim
kernels are lazily compiled ``@njit(cache=True)`` functions without eager signatures).  So the
spawn + import cost of the workers overlaps the serial warm-up instead of following it, and after
the warm-up every worker is busy with the remaining points at once.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from sim.config import ExperimentConfig, Point
from engines.jitcache import ensure_numba_cache_dir  # noqa: F401  (one cache for every command)
from sim.runner import default_workers, run_point
from sim.warmup import split_warmup

REPO_ROOT = Path(__file__).resolve().parents[1]


def _watch_parent(parent_pid: int, period: float = 0.5) -> None:
    """Exit this worker as soon as its parent is gone (SIGKILL/SIGTERM of ``cepsim sweep`` would
    otherwise leave the pool's workers running as orphans): the parent pid changes when the
    process is re-parented."""
    import time
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)
        time.sleep(period)


def _worker_init(repo_root: str, scenario: str | None = None,
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
    if scenario:
        prime_imports(scenario)


def prime_imports(scenario: str) -> None:
    """Import ``sim.runner`` and the scenario's module (no kernel runs, so nothing compiles).

    A broken scenario module is not an error here: ``run_point`` reports it per point."""
    try:
        import sim.runner  # noqa: F401  (what every task unpickles first)
        from sim.config import resolve_function
        resolve_function(scenario, "sim.scenarios")
    except Exception:  # pragma: no cover - reported by run_point instead
        pass


def _noop() -> int:
    return os.getpid()


def _error_row(p: Point, exc: BaseException) -> dict:
    row = dict(p.params)
    row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
               error=f"worker failed: {type(exc).__name__}: {exc}", wall_s=None)
    return row


def run_local(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              workers: int | None = None, context: str = "spawn", **_ignored) -> None:
    """Run ``pending`` points in a process pool, calling ``on_row`` in the parent as rows arrive."""
    if not pending:
        return
    ensure_numba_cache_dir()
    workers = workers or default_workers()
    warm, rest = split_warmup(cfg, pending)
    if not rest:
        for p in warm:
            on_row(p, run_point(cfg, p))
        return
    ctx = mp.get_context(context)
    n_workers = min(workers, len(rest))
    with ProcessPoolExecutor(max_workers=n_workers, mp_context=ctx, initializer=_worker_init,
                             initargs=(str(REPO_ROOT), cfg.scenario, os.getpid())) as pool:
        # one submit per worker spawns them all now: they start and import during the warm-up
        for _ in range(n_workers):
            pool.submit(_noop)
        for p in warm:  # every kernel the grid needs, compiled once, in one process
            on_row(p, run_point(cfg, p))
        futs = {pool.submit(run_point, cfg, p): p for p in rest}
        try:
            for fut in as_completed(futs):
                p = futs[fut]
                try:
                    row = fut.result()
                except Exception as exc:  # worker crashed (e.g. killed): record, keep going
                    row = _error_row(p, exc)
                on_row(p, row)
        except BaseException:
            for f in futs:
                f.cancel()
            raise

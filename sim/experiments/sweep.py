"""Local parallel backend: a process pool, one task per (point, rep); rows are written by the
parent only.

The first local sweep of a grid must cost no more than a serial run (which compiles every kernel
once and computes every shared result once).  ``sim.experiments.warmup.plan_sweep`` says how:

1. **Warm-up in the parent.**  One pending point per kernel key (one per engine of an ``engine``
   grid) runs in the parent first: it compiles every Numba kernel the grid uses once, into the
   one on-disk cache of ``engines.jitcache`` (``$NUMBA_CACHE_DIR`` or ``<repo>/.numba_cache``,
   the same as every other command).  No two processes ever compile a kernel concurrently
   (parallel first compiles can corrupt the cache).  Warm points are real grid points.
2. **Workers start during the warm-up.**  The pool starts before the warm-up, from a
   ``forkserver`` (``spawn`` where there is none; ``pool_context`` says why never ``fork``), and
   each worker imports the runner and the scenario while the parent warms up; the workers then
   load the kernels from the disk cache.  An explicit start method
   (``CEPSIM_POOL_CONTEXT``) follows the same order.
3. **Shared work first.**  Points that share a scenario's ``work_key`` (the generic scenario: the
   engine counters of one stream, pattern and engine spec) are submitted only after the first
   point of their key has finished, so they load its cached result instead of several workers
   computing it at once.

Every point is computed by the same ``run_point`` as in a serial run, from its own seed, so rows
are bit-identical to the serial run's (``tests/test_sweep_local.py``).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Callable

from sim.experiments.config import ExperimentConfig, Point
from engines.errors import CepsimInputError
from engines.jitcache import ensure_numba_cache_dir, install_compile_lock  # noqa: F401
from sim.experiments.runner import default_workers, run_point
from sim.experiments.warmup import plan_sweep

REPO_ROOT = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # exists, owned by someone else
        return True
    return True


def _watch_parent(parent_pid: int, period: float = 0.5) -> None:
    """Exit this worker as soon as the process that started the pool is gone (SIGKILL/SIGTERM of
    ``cepsim sweep`` would otherwise leave the pool's workers running as orphans).  A spawned
    worker is that process's child; a forkserver worker is the server's child, and the server
    exits with the pool's owner, so a worker also exits when it is re-parented."""
    import time
    ppid = os.getppid()
    while True:
        if os.getppid() != ppid or not _alive(parent_pid):
            os._exit(1)
        time.sleep(period)


def worker_init(repo_root: str, scenario: str | None = None,
                 parent_pid: int | None = None, env: dict[str, str] | None = None) -> None:
    """Pool initializer: the pool owner's environment (``env``), a watchdog that ends the worker
    with the pool's owner, a stable import path, then import the runner and the scenario module.

    A forkserver worker inherits the environment the server started with, which is the owner's
    at its *first* pool: a later ``os.environ`` change (a cache directory, a pool context) would
    not reach later pools' workers, so every pool hands its owner's environment over."""
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if parent_pid is not None:
        import threading
        if not _alive(parent_pid):
            os._exit(1)
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True,
                         name="cepsim-parent-watch").start()
    if repo_root not in sys.path:
        sys.path.insert(0, repo_root)
    install_compile_lock()   # started workers (forked ones inherit it)
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
    """The start method of the pool: ``context`` if given, else ``$CEPSIM_POOL_CONTEXT``, else
    ``forkserver`` where the platform has it (Linux, the BSDs), else ``spawn`` (macOS' and
    Windows' default).

    ``fork`` is never the automatic choice: a sweep's parent always runs other threads by the
    time its pool starts (pyarrow's jemalloc thread from the pandas import on, its I/O pool from
    the first Parquet read), and a fork from a threaded process can deadlock the child on a lock
    one of those threads held (Python 3.12+ warns about it; 3.14 makes ``forkserver`` the Linux
    default for this reason).  A forkserver child is forked from a single-threaded server
    process instead.  What each method costs to start: ``benchmarks/bench_pool_start.py``."""
    context = context or os.environ.get("CEPSIM_POOL_CONTEXT") or None
    if context:
        if context not in mp.get_all_start_methods():
            raise CepsimInputError(f"process start method {context!r} is not available here; "
                             f"choose one of {mp.get_all_start_methods()} "
                             f"(CEPSIM_POOL_CONTEXT or the context argument)")
        return context
    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def run_local(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              workers: int | None = None, context: str | None = None, **_ignored) -> None:
    """Run ``pending`` points in a process pool, calling ``on_row`` in the parent as rows arrive
    (see the module docstring for the order: workers start, warm-up, shared work first)."""
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
    _fan_out(cfg, plan, on_row, n_workers, ctx_name)


def _fan_out(cfg: ExperimentConfig, plan, on_row: Callable[[Point, dict], None], n_workers: int,
             ctx_name: str) -> None:
    with ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context(ctx_name),
                             initializer=worker_init,
                             initargs=(str(REPO_ROOT), cfg.scenario, os.getpid(),
                                       dict(os.environ))) as pool:
        # one submit per worker starts them all now: they start and import during the warm-up
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

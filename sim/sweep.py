"""Local parallel backend: one process per worker (spawn context), one task per (point, rep).

Before fanning out, the first pending point runs in the parent: this compiles every Numba kernel
the scenario uses once and fills the on-disk cache, so workers load instead of compiling in
parallel (parallel first compiles can corrupt the cache, DESIGN section 10).  ``NUMBA_CACHE_DIR``
is pinned so parent and workers share one cache.  Rows are written by the parent only.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from sim.config import ExperimentConfig, Point
from sim.runner import default_workers, run_point

REPO_ROOT = Path(__file__).resolve().parents[1]


def ensure_numba_cache_dir() -> str | None:
    """Pin ``NUMBA_CACHE_DIR`` (to ``<repo>/.numba_cache``) unless set or numba already loaded.

    If numba was already imported with its default cache location, leave it: workers inherit the
    same default, and changing the variable now would split parent and workers."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return os.environ["NUMBA_CACHE_DIR"]
    if "numba" in sys.modules:
        return None
    path = str(REPO_ROOT / ".numba_cache")
    os.environ["NUMBA_CACHE_DIR"] = path
    return path


def _worker_init(repo_root: str) -> None:
    if repo_root not in sys.path:
        sys.path.insert(0, repo_root)


def _error_row(p: Point, exc: BaseException) -> dict:
    row = dict(p.params)
    row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
               error=f"worker failed: {type(exc).__name__}: {exc}", wall_s=None)
    return row


def run_local(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              workers: int | None = None, context: str = "spawn") -> None:
    """Run ``pending`` points in a process pool, calling ``on_row`` in the parent as rows arrive."""
    if not pending:
        return
    ensure_numba_cache_dir()
    workers = workers or default_workers()
    first, rest = pending[0], pending[1:]
    on_row(first, run_point(cfg, first))  # warm imports + Numba cache in one process
    if not rest:
        return
    ctx = mp.get_context(context)
    with ProcessPoolExecutor(max_workers=min(workers, len(rest)), mp_context=ctx,
                             initializer=_worker_init, initargs=(str(REPO_ROOT),)) as pool:
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

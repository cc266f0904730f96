"""Process-pool start-up cost per start method: ``fork``, ``forkserver`` and ``spawn``.

The local sweep (``sim.experiments.sweep``) and the reproduce pool
(``sim.experiments.reproduce_pool``) start their workers with ``sim.experiments.sweep.pool_context``.
A fork from a process that runs other threads can deadlock the child (pyarrow's jemalloc thread
starts as soon as pandas is imported, its I/O pool on the first Parquet read), and Python 3.12+
warns about it, so the default is ``forkserver`` on Linux.  This script prints what that costs,
side by side in one run, for each method:

* ``pool ready``: wall seconds from creating a 2-worker pool with the sweep's initializer (the
  runner and the given scenario modules imported) until both workers have answered a task, in a
  parent that has imported the same modules and read a Parquet file (as a real sweep's parent has);
* ``sweep``: wall seconds of ``cepsim sweep <config> --scale quick --backend local --workers 2``
  into a new results root, in a fresh process with ``CEPSIM_POOL_CONTEXT`` set (warm Numba cache; the first
  round of each method is dropped).

    python benchmarks/bench_pool_start.py [--rounds 3] [--config experiments/demo/basic.toml]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
METHODS = ("fork", "forkserver", "spawn")
SCENARIOS = ("lazy_nfa:point", "apam:point", "darling:point", "eires:point")


def _threaded_parent() -> int:
    """Make this process look like a sweep's parent: modules imported, a Parquet file read."""
    import pandas as pd

    from sim.experiments import sweep
    for s in SCENARIOS:
        sweep.prime_imports(s)
    with tempfile.TemporaryDirectory() as d:
        pd.DataFrame({"a": [1, 2]}).to_parquet(f"{d}/x.parquet")
        pd.read_parquet(f"{d}/x.parquet")
    return len(os.listdir("/proc/self/task")) if Path("/proc/self/task").is_dir() else -1


def pool_ready_s(method: str) -> float:
    import multiprocessing as mp

    from sim.experiments import sweep
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2, mp_context=mp.get_context(method),
                             initializer=sweep.worker_init,
                             initargs=(str(REPO), SCENARIOS[0], os.getpid())) as pool:
        for f in [pool.submit(sweep._noop) for _ in range(2)]:
            f.result()
        return time.perf_counter() - t0


def sweep_s(method: str, config: str) -> float:
    env = dict(os.environ, CEPSIM_POOL_CONTEXT=method)
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "sim.cli", "sweep", config, "--scale", "quick",
                        "--backend", "local", "--workers", "2", "--out", out],
                       cwd=REPO, env=env, check=True, capture_output=True)
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--config", default="experiments/demo/basic.toml")
    args = ap.parse_args()
    threads = _threaded_parent()
    print(f"python {sys.version.split()[0]}; parent threads when the pool starts: {threads}")
    ready = {m: [] for m in METHODS}
    swept = {m: [] for m in METHODS}
    for r in range(args.rounds + 1):        # methods alternate within a round; round 0 warms up
        for m in METHODS:
            a, b = pool_ready_s(m), sweep_s(m, args.config)
            if r:
                ready[m].append(a)
                swept[m].append(b)
    print(f"{'method':<11} {'pool ready s':>13} {'sweep s':>9}   (median of {args.rounds}; "
          f"sweep = {args.config} quick)")
    for m in METHODS:
        print(f"{m:<11} {statistics.median(ready[m]):>13.3f} {statistics.median(swept[m]):>9.2f}")
    base = statistics.median(swept["fork"])
    for m in METHODS[1:]:
        print(f"{m} / fork, sweep: {statistics.median(swept[m]) / base:.2f}x")


if __name__ == "__main__":
    main()

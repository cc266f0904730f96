"""First local sweep of an ``engine`` grid vs the serial run, each on a cold Numba cache.

Target (issue 15): the first local sweep takes no more than the serial run's time plus one
compilation, i.e. no more than a cold serial run.  Before, the sweep pinned its own cache and
warmed only the first engine, so workers compiled the other engines' kernels concurrently.

Each run is a fresh ``cepsim`` process with its own empty ``NUMBA_CACHE_DIR`` and counter cache:

* serial cold  = compile everything + run every point in one process;
* local cold   = ``cepsim sweep --backend local``: warm-up (one point per engine) + fan-out;
* serial warm  = the serial run again on the now warm cache (no compilation);
* compile      = serial cold - serial warm (the cost of one compilation of the grid's kernels).

    python benchmarks/bench_first_sweep.py [--config examples/engines_vs_rate] [--scale full]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _run(args: list[str], numba_dir: Path, counter_dir: Path, out: Path) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_dir), CEPSIM_COUNTER_CACHE=str(counter_dir),
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "sim.cli", *args, "--out", str(out)], cwd=REPO,
                       env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode not in (0, 1):  # 1 = a claim failed, still a complete run
        raise SystemExit(f"{' '.join(args)} failed:\n{r.stderr}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="examples/engines_vs_rate")
    ap.add_argument("--scale", default="full")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    base = ["--scale", a.scale]
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        load0 = os.getloadavg()[0]
        serial_cold = _run(["run", a.config, *base], t / "nA", t / "cA", t / "r1")
        local_cold = _run(["sweep", a.config, *base, "--backend", "local", "--workers",
                           str(a.workers)], t / "nB", t / "cB", t / "r2")
        serial_warm = _run(["run", a.config, *base], t / "nA", t / "cC", t / "r3")
        local_warm = _run(["sweep", a.config, *base, "--backend", "local", "--workers",
                           str(a.workers)], t / "nB", t / "cD", t / "r4")
        load1 = os.getloadavg()[0]
    compile_s = serial_cold - serial_warm
    print(f"config {a.config} --scale {a.scale}, workers={a.workers}, cpus={os.cpu_count()}, "
          f"load1 {load0:.1f} -> {load1:.1f}")
    print(f"{'run':<34}{'wall s':>10}")
    for name, v in (("serial, cold cache", serial_cold), ("local sweep, cold cache", local_cold),
                    ("serial, warm cache", serial_warm), ("local sweep, warm cache", local_warm),
                    ("one compilation (cold - warm)", compile_s)):
        print(f"{name:<34}{v:>10.1f}")
    print(f"local cold / (serial warm + one compilation) = {local_cold / serial_cold:.2f}x "
          f"(target <= 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

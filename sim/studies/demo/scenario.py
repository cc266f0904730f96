"""A tiny self-contained scenario that exercises the experiment machinery without any engine.

``point`` draws ``n`` normal samples with mean ``mu`` and scale ``sigma`` from the point seed and
reports their mean and spread.  Knobs used by tests and benchmarks:

* ``sleep_s``  - sleep that long (makes sweeps slow enough to be killed midway);
* ``work_s``   - burn that much CPU in a pure-Python loop (benchmarks of the parallel backends);
* ``fail_mu``  - raise ``RuntimeError`` when ``mu == fail_mu`` (failure recording);
* ``alloc_mb`` - touch that many MB of fresh memory during the point, then free it (the memory
  admission of ``sim.experiments.point_memory``).

Metrics never depend on the timing knobs, so rows are deterministic given params + seed.
"""
from __future__ import annotations

import time

import numpy as np


def _burn(seconds: float) -> int:
    """CPU-bound busy loop for ``seconds`` of process CPU time; returns an iteration count (unused)."""
    end = time.process_time() + seconds  # CPU time: a loaded machine stretches the wall time
    acc = 0
    while time.process_time() < end:
        for i in range(10_000):
            acc = (acc * 31 + i) % 1_000_003
    return acc


def point(params: dict, seed: int) -> dict:
    """One demo grid point -> flat metrics row."""
    mu = float(params.get("mu", 0.0))
    if "fail_mu" in params and mu == float(params["fail_mu"]):
        raise RuntimeError(f"demo failure requested at mu={mu}")
    if params.get("sleep_s", 0):
        time.sleep(float(params["sleep_s"]))
    if params.get("work_s", 0):
        _burn(float(params["work_s"]))
    if params.get("alloc_mb", 0):
        block = np.ones(int(float(params["alloc_mb"]) * 2**20 / 8))   # resident: every page written
        del block
    n = int(params.get("n", 100))
    sigma = float(params.get("sigma", 1.0))
    rng = np.random.default_rng(seed)
    x = rng.normal(mu, sigma, size=n)
    return {
        "sample_mean": float(x.mean()),
        "sample_std": float(x.std(ddof=1)) if n > 1 else 0.0,
        "sample_max": float(x.max()),
        "n_above_mu": int((x > mu).sum()),
    }

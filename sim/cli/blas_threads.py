"""One BLAS thread per cepsim process, unless the user chose otherwise.

cepsim's BLAS work is NumPy matrix-vector products (``dgemv`` in the samples) and dot
products, little arithmetic per call.  OpenBLAS, which the NumPy and SciPy wheels bundle, starts
one thread per core for them; after each call those threads spin, waiting for the next.
In a full reproduction (two pool workers on two cores, ``perf`` over the whole
run) the workers' OpenBLAS threads spent 113 CPU s spinning in ``blas_thread_server`` and the
calls another ~10 s handing work to them, CPU taken from the other worker; with one thread the
APAM ``cost_region`` points take 40-50 % less CPU with the same rows
(``benchmarks/bench_worker_overheads.py``;
``docs/ENGINEERING.md``, "Where the CPU of the full run goes").

OpenBLAS reads ``OPENBLAS_NUM_THREADS`` once, when NumPy loads it, so the command line sets it
before anything imports NumPy; pool workers (forked or spawned) inherit it.  An explicit value
in the environment is kept.
"""
from __future__ import annotations

import os
import sys

#: the variable OpenBLAS reads when it loads
BLAS_THREADS_VAR = "OPENBLAS_NUM_THREADS"


def use_one_blas_thread() -> bool:
    """Set ``OPENBLAS_NUM_THREADS=1`` unless it is set already; returns whether it took effect
    (False when NumPy was imported first: its BLAS has fixed its thread count then)."""
    if "numpy" in sys.modules:
        return False
    os.environ.setdefault(BLAS_THREADS_VAR, "1")
    return True

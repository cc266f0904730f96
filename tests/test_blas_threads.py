"""sim.cli.blas_threads: the command line asks OpenBLAS for one thread unless told otherwise."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHOW = ("import sys, os, sim.cli; assert 'numpy' not in sys.modules; import numpy; "
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))")


def _run(env_value: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if env_value is not None:
        env["OPENBLAS_NUM_THREADS"] = env_value
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", SHOW], env=env, capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def test_command_line_sets_one_blas_thread_before_numpy_loads():
    assert _run(None) == "1"


def test_an_explicit_thread_count_is_kept():
    assert _run("3") == "3"


def test_too_late_once_numpy_is_loaded(monkeypatch):
    import numpy  # noqa: F401  (loaded: OpenBLAS has fixed its thread count)
    from sim.cli.blas_threads import use_one_blas_thread
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert use_one_blas_thread() is False
    assert "OPENBLAS_NUM_THREADS" not in os.environ

"""The sweep backend registry: the runner finds backends by name, without importing them."""
from __future__ import annotations

import subprocess
import sys

import pytest

from engines.errors import CepsimInputError
from sim.experiments import backends


def test_runner_does_not_import_the_backends(repo_root):
    code = ("import sys, sim.experiments.runner; "
            "print('sim.experiments.sweep' in sys.modules, 'sim.experiments.spark_backend' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=repo_root, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_unknown_backend_names_the_choices():
    with pytest.raises(CepsimInputError, match="unknown backend 'nope'.*serial, local, spark"):
        backends.get_backend("nope")


def test_registered_backend_is_used(tmp_path, repo_root):
    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment, run_serial
    seen = []

    def recording(cfg, pending, on_row, **kw):
        seen.append(len(pending))
        run_serial(cfg, pending, on_row)
    sys.modules[__name__].recording = recording
    backends.register_backend("recording-test", f"{__name__}:recording")
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    s = run_experiment(cfg, scale="quick", out_dir=tmp_path, backend="recording-test")
    assert seen == [s.n_points] and s.n_failed == 0

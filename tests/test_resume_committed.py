"""A run resumes from committed results that have no shards (``results/full/`` in git keeps only
``points.parquet`` and ``meta.json``): the rows are unpacked into shards, nothing re-runs, and
the consolidated rows come out identical.  A changed config resumes nothing."""
from __future__ import annotations

import json
import shutil

import pandas as pd

from sim.experiments.config import load_config
from sim.experiments.results import experiment_dir, shard_dir
from sim.experiments.runner import run_experiment


def test_resume_from_points_without_shards(tmp_path, repo_root):
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    first = run_experiment(cfg, scale="quick", out_dir=tmp_path, backend="serial", progress=False)
    assert first.n_run == first.n_points > 0
    before = pd.read_parquet(experiment_dir(tmp_path, first.cfg) / "points.parquet")
    shutil.rmtree(shard_dir(tmp_path, first.cfg), ignore_errors=True)   # committed: rows + meta
    plain = run_experiment(cfg, scale="quick", out_dir=tmp_path / "other", backend="serial",
                           progress=False)
    assert plain.n_run == first.n_points          # `cepsim run` recomputes a finished run
    again = run_experiment(cfg, scale="quick", out_dir=tmp_path, backend="serial",
                           progress=False, resume_stored=True)
    assert (again.n_run, again.n_resumed) == (0, first.n_points)
    after = pd.read_parquet(experiment_dir(tmp_path, again.cfg) / "points.parquet")
    pd.testing.assert_frame_equal(before, after)
    meta = json.loads((experiment_dir(tmp_path, again.cfg) / "meta.json").read_text())
    assert meta["resumed_from_commit"] == meta["git_commit"]   # rows keep their commit


def test_changed_config_resumes_nothing(tmp_path, repo_root):
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    first = run_experiment(cfg, scale="quick", out_dir=tmp_path, backend="serial", progress=False)
    shutil.rmtree(shard_dir(tmp_path, first.cfg), ignore_errors=True)
    changed = load_config(repo_root / "experiments/demo/basic.toml")
    changed.params["sigma"] = 2.0                             # same points, other results
    again = run_experiment(changed, scale="quick", out_dir=tmp_path, backend="serial",
                           progress=False, resume_stored=True)
    assert again.n_resumed == 0 and again.n_run == first.n_points

"""Spark backend: identical rows to serial/local on local[2]; clear error without Java."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pandas as pd
import pytest

from sim.config import load_config
from sim.runner import run_experiment
from sim.spark_backend import parse_java_version


def rows(df):
    return df.drop(columns="wall_s").reset_index(drop=True)


@pytest.mark.spark
def test_spark_equals_serial_and_local(tmp_path, repo_root, spark):
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    ov = ["grid.mu=[0.0, 1.0, 2.0, 3.0]"]
    serial = run_experiment(cfg, out_dir=tmp_path / "s", backend="serial", overrides=ov)
    local = run_experiment(cfg, out_dir=tmp_path / "l", backend="local", workers=2, overrides=ov)
    sp = run_experiment(cfg, out_dir=tmp_path / "k", backend="spark", overrides=ov)
    assert serial.n_points == 16 and sp.n_points == 16 and sp.n_failed == 0
    pd.testing.assert_frame_equal(rows(serial.df), rows(sp.df))
    pd.testing.assert_frame_equal(rows(local.df), rows(sp.df))
    on_disk = pd.read_parquet(tmp_path / "k/demo/basic/points.parquet")
    pd.testing.assert_frame_equal(rows(on_disk), rows(serial.df))
    # the fixture's session was reused, not stopped
    assert not spark.sparkContext._jsc.sc().isStopped()


@pytest.mark.spark
def test_spark_records_failures(tmp_path, repo_root, spark):
    cfg = load_config(repo_root / "experiments/demo/failing.toml")
    s = run_experiment(cfg, out_dir=tmp_path, backend="spark")
    serial = run_experiment(cfg, out_dir=tmp_path / "s", backend="serial")
    assert s.n_failed == 1
    pd.testing.assert_frame_equal(rows(serial.df), rows(s.df))


def test_parse_java_version():
    assert parse_java_version('openjdk version "17.0.15" 2025-04-15') == 17
    assert parse_java_version('java version "1.8.0_292"') == 8
    assert parse_java_version('openjdk version "21" 2023-09-19') == 21
    assert parse_java_version("garbage") is None


def _run_cli(repo_root, tmp_path, env):
    cmd = [sys.executable, "-m", "sim.cli", "sweep", "experiments/demo/basic.toml", "--backend",
           "spark", "--out", str(tmp_path / "res")]
    return subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)


def test_spark_without_java_gives_clear_message(tmp_path, repo_root):
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path / "empty-bin")  # no java anywhere
    res = _run_cli(repo_root, tmp_path, env)
    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith("error: --backend spark: Java not found")
    assert "openjdk-17-jre-headless" in res.stderr and "JAVA_HOME" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "res").exists()  # failed before doing any work
    # the local backend still works in the same environment
    cmd = [sys.executable, "-m", "sim.cli", "sweep", "experiments/demo/basic.toml", "--scale",
           "quick", "--backend", "local", "--workers", "2", "--out", str(tmp_path / "res2"),
           "--figures-dir", str(tmp_path / "figs")]
    ok = subprocess.run(cmd, cwd=repo_root, env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr


def test_spark_with_old_java_gives_clear_message(tmp_path, repo_root):
    home = tmp_path / "jdk8"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text('#!/bin/sh\necho \'java version "1.8.0_292"\' >&2\n')
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, JAVA_HOME=str(home), PATH=str(home / "bin"))
    res = _run_cli(repo_root, tmp_path, env)
    assert res.returncode == 2
    assert "Java 8 found" in res.stderr and "17" in res.stderr

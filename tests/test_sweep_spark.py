"""Spark backend: identical rows to serial/local on local[2], rows streamed to the driver as tasks
finish (one job), interruptible, a crashing worker costs only its point, a killed sweep resumes;
clear error without Java."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pandas as pd
import pytest

from sim.experiments.config import apply_overrides, expand_points, load_config
from sim.experiments.runner import run_experiment, run_point
from sim.experiments.spark_backend import parse_java_version, run_spark
from sim.experiments.staleness import variant_slug


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
    on_disk = pd.read_parquet(sp.out_dir / "points.parquet")  # the --set variant directory
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


def _short_long(repo_root, long_s):
    """4 points: a short one (driver warm-up), then long, short, long for the sweep job."""
    cfg = apply_overrides(load_config(repo_root / "experiments/demo/basic.toml"),
                          ["grid.mu=[0.0, 1.0]", "seeds=1", f"zip.sleep_s=[0.05, {long_s}]"])
    pts = expand_points(cfg)
    short = [p for p in pts if p.params["sleep_s"] < 1]
    long_ = [p for p in pts if p.params["sleep_s"] >= 1]
    assert len(short) == len(long_) == 2
    return cfg, [short[0], long_[0], short[1], long_[1]]


@pytest.mark.spark
def test_spark_rows_arrive_as_tasks_finish(repo_root, spark):
    cfg, pending = _short_long(repo_root, 3.0)
    got = []
    run_spark(cfg, pending, lambda p, row: got.append((time.monotonic(), p, row)), spark=spark)
    assert sorted((p.point_id, p.rep) for _, p, _ in got) == sorted((p.point_id, p.rep)
                                                                    for p in pending)
    assert got[0][1] == pending[0]  # warm-up point, run in the driver
    # on local[2] the short task runs beside the first long one and is delivered ~3 s before the
    # long ones: rows stream to the driver, they are not collected at the end of the job
    assert got[1][1] == pending[2]
    assert got[-1][0] - got[1][0] > 2.0
    for _, p, row in got:
        want = run_point(cfg, p)
        assert {k: v for k, v in row.items() if k != "wall_s"} == \
            {k: v for k, v in want.items() if k != "wall_s"}


@pytest.mark.spark
def test_spark_interrupt_cancels_the_job(repo_root, spark):
    cfg, pending = _short_long(repo_root, 10.0)

    class Stop(Exception):
        pass

    calls = []

    def on_row(p, row):
        calls.append(p)
        if len(calls) == 2:  # first row from the sweep job (the short task)
            calls.append(time.monotonic())
            raise Stop

    with pytest.raises(Stop):
        run_spark(cfg, pending, on_row, spark=spark)
    assert calls[1] == pending[2]
    assert time.monotonic() - calls[2] < 6.0  # the 10 s tasks were cancelled, not awaited
    assert not spark.sparkContext.statusTracker().getActiveJobsIds()
    assert spark.sparkContext.parallelize([1, 2, 3], 2).sum() == 6  # session still usable


@pytest.mark.spark
def test_spark_crashed_worker_costs_only_its_point(repo_root, spark):
    cfg = apply_overrides(load_config(repo_root / "experiments/demo/basic.toml"),
                          ["grid.mu=[0.0, 1.0, 2.0]", "seeds=1"])
    pending = expand_points(cfg)
    crash = next(p for p in pending[1:] if p.params["mu"] == 1.0)

    def crashing_runner(cfg, p):  # local function: shipped to executors by value
        import os

        from pyspark import TaskContext

        from sim.experiments.runner import run_point
        if TaskContext.get() is not None and p.params["mu"] == 1.0 and p.params["label"] == \
                crash.params["label"]:
            os._exit(3)  # kill the Python worker, not a scenario exception
        return run_point(cfg, p)

    rows = {}

    def on_row(p, row):
        assert (p.point_id, p.rep) not in rows  # every point exactly once
        rows[(p.point_id, p.rep)] = row

    run_spark(cfg, pending, on_row, spark=spark, runner=crashing_runner)
    assert set(rows) == {(p.point_id, p.rep) for p in pending}
    for p in pending:
        row = rows[(p.point_id, p.rep)]
        if p == crash:
            assert row["error"].startswith("spark task failed:")
            assert row["mu"] == 1.0 and row["seed"] == p.seed
        else:
            want = run_point(cfg, p)
            assert {k: v for k, v in row.items() if k != "wall_s"} == \
                {k: v for k, v in want.items() if k != "wall_s"}
    assert spark.sparkContext.parallelize([1, 2], 2).sum() == 3


@pytest.mark.spark
def test_spark_sweep_killed_midway_resumes(tmp_path, repo_root):
    """SIGKILL the whole Spark sweep (driver, JVM, Python workers) after >= 3 rows, then resume.

    The rerun uses the local backend (skipping finished points is the runner's job, the same for
    every backend; a second Spark session would double the cost of this test)."""
    sleepy = ["grid.mu=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]", "zip.sleep_s=[0.5, 0.5]",
              "seeds=1"]
    # --set runs are variants with their own results directory (sim.experiments.staleness)
    _VARIANT = "basic@" + variant_slug(sleepy)
    out = tmp_path / "res"
    shards = out / "demo" / _VARIANT / "shards"
    cmd = [sys.executable, "-m", "sim.cli", "sweep", "experiments/demo/basic.toml", "--backend",
           "spark", "--master", "local[2]", "--out", str(out), "--figures-dir",
           str(tmp_path / "figs")]
    for s in sleepy:
        cmd += ["--set", s]
    proc = subprocess.Popen(cmd, cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        n = 0
        while time.monotonic() < deadline:
            n = len(list(shards.glob("*-*.json"))) if shards.exists() else 0
            if n >= 3 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"sweep finished before it could be killed ({n} shards)"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert not (out / "demo" / _VARIANT / "points.parquet").exists()
    done_before = len(list(shards.glob("*-*.json")))
    assert 3 <= done_before < 16

    resume = cmd[:cmd.index("--backend")] + ["--backend", "local", "--workers", "2"] + \
        cmd[cmd.index("--out"):]
    res = subprocess.run(resume, cwd=repo_root, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "resumed" in res.stdout
    meta = json.loads((out / "demo" / _VARIANT / "meta.json").read_text())
    assert meta["resumed_rows"] >= done_before and meta["rows"] == 16
    df = pd.read_parquet(out / "demo" / _VARIANT / "points.parquet")
    assert len(df) == 16 and not df.duplicated(["point_id", "rep"]).any()
    assert df["error"].isna().all()
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    clean = run_experiment(cfg, out_dir=tmp_path / "clean", backend="local", workers=2,
                           overrides=sleepy)
    pd.testing.assert_frame_equal(rows(df), rows(clean.df))


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

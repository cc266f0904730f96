"""``cepsim reproduce --backend spark`` (``sim.experiments.spark_reproduce``): every experiment's points in one
Spark job, in the shared pool's order; rows identical to the serial backend on ``local[2]`` and on
a standalone master + worker that the test starts on 127.0.0.1 (and stops)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.experiments.config import Point
from sim.experiments.reproduce_pool import Task, depend
from sim.experiments.spark_reproduce import task_order
from test_reproduce_pool import _registry

KEYS = (("tiny/a", 3), ("tiny/b", 3))


def _rows(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path).drop(columns="wall_s").reset_index(drop=True)


def _serial() -> None:
    r = CliRunner().invoke(app, ["reproduce", "--scale", "quick", "--backend", "serial", "--out",
                                 "res_s", "--figures-dir", "figs_s"])
    assert r.exit_code == 0, r.output


def _same_rows(tmp_path: Path, res: str) -> None:
    for key, n in KEYS:
        a = _rows(tmp_path / "res_s" / key / "points.parquet")
        b = _rows(tmp_path / res / key / "points.parquet")
        assert len(a) == n and a["error"].isna().all()
        pd.testing.assert_frame_equal(a, b)


def test_task_order_keeps_dependencies_and_runs_longest_first():
    def task(seq, est=None):
        return Task(0, Point(str(seq), 0, seq, {}), est=est, seq=seq)

    short, long_, longest_dep = task(0, 1.0), task(1, 5.0), task(2, 10.0)
    depend(longest_dep, short)            # waits for the short one (e.g. its kernel warm-up)
    free = task(3, 7.0)
    order = task_order([short, long_, longest_dep, free])
    assert [t.seq for t in order] == [3, 1, 0, 2]


@pytest.mark.spark
def test_spark_reproduce_equals_serial_local2(tmp_path, monkeypatch, spark):
    _registry(tmp_path, generic=False)
    monkeypatch.chdir(tmp_path)
    _serial()
    # the fixture's local[2] session is active: the reproduce job runs on it and leaves it open
    r = CliRunner().invoke(app, ["reproduce", "--scale", "quick", "--backend", "spark", "--out",
                                 "res_k", "--figures-dir", "figs_k"])
    assert r.exit_code == 0, r.output
    for key, _ in KEYS:
        assert f"{key}: " in r.stdout and "on spark in" in r.stdout
    _same_rows(tmp_path, "res_k")
    assert (tmp_path / "figs_k/tiny/a_fig.png").is_file()
    assert not spark.sparkContext._jsc.sc().isStopped()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> str:
    from pyspark.find_spark_home import _find_spark_home

    return str(Path(_find_spark_home()) / "bin" / "spark-class")


def _start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    fh = open(log, "wb")
    try:
        return subprocess.Popen([_spark_class()] + args, stdout=fh, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
    finally:
        fh.close()


def _stop(proc: subprocess.Popen) -> None:
    """End the daemon and everything it started (executors, Python workers): its session."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=15)


def _wait_for(log: Path, text: str, proc: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not in {log}:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.mark.spark
def test_spark_reproduce_on_a_standalone_master_and_worker(tmp_path, monkeypatch, repo_root):
    """A master and a 2-core worker on 127.0.0.1 (``spark-class``, as ``docs/CLUSTER.md``
    starts them), ``cepsim reproduce --backend spark --master spark://...`` in a subprocess."""
    _registry(tmp_path, generic=False)
    monkeypatch.chdir(tmp_path)
    _serial()
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_LOG_DIR=str(tmp_path / "logs"),
               SPARK_WORKER_DIR=str(tmp_path / "work"), SPARK_DAEMON_MEMORY="256m")
    env["PYTHONPATH"] = os.pathsep.join([str(repo_root)] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                     str(port), "--webui-port", str(_free_port())], tmp_path / "master.log", env)
    worker = None
    try:
        _wait_for(tmp_path / "master.log", "I have been elected leader", master, deadline)
        worker = _start(["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                         "--cores", "2", "--memory", "1g", "--webui-port", str(_free_port()),
                         "--work-dir", str(tmp_path / "work"), url],
                        tmp_path / "worker.log", env)
        _wait_for(tmp_path / "worker.log", "Successfully registered with master", worker,
                  deadline)
        cmd = [sys.executable, "-m", "sim.cli", "reproduce", "--scale", "quick", "--backend",
               "spark", "--master", url, "--out", "res_c", "--figures-dir", "figs_c"]
        r = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=max(30.0, deadline - time.monotonic() + 60))
        assert r.returncode == 0, r.stdout + r.stderr
        for key, _ in KEYS:
            assert f"{key}: " in r.stdout and "on spark in" in r.stdout
        _same_rows(tmp_path, "res_c")
        # the points ran on the cluster's executor, not in the driver
        assert list((tmp_path / "work").glob("app-*/*/stderr"))
    finally:
        for proc in (worker, master):
            if proc is not None:
                _stop(proc)

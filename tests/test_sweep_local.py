"""Local process-pool backend: identical rows to serial, resume after SIGKILL, failure recording."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from sim.experiments.config import load_config
from sim.experiments.runner import run_experiment

SLEEPY = ["grid.mu=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]", "zip.sleep_s=[0.25, 0.25]",
          "seeds=1"]  # 16 points of 0.25 s
# --set runs are variants with their own results directory (sim.experiments.staleness)
_VARIANT = "basic@" + __import__("sim.experiments.staleness", fromlist=["x"]).variant_slug(SLEEPY)


def rows(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns="wall_s").reset_index(drop=True)


@pytest.fixture(scope="module")
def basic(repo_root):
    return load_config(repo_root / "experiments/demo/basic.toml")


def test_local_equals_serial(tmp_path, basic):
    serial = run_experiment(basic, scale="full", out_dir=tmp_path / "s", backend="serial")
    local = run_experiment(basic, scale="full", out_dir=tmp_path / "l", backend="local", workers=2)
    assert serial.n_points == local.n_points == 24
    pd.testing.assert_frame_equal(rows(serial.df), rows(local.df))
    a = pd.read_parquet(tmp_path / "s/demo/basic/points.parquet")
    b = pd.read_parquet(tmp_path / "l/demo/basic/points.parquet")
    pd.testing.assert_frame_equal(rows(a), rows(b))


@pytest.mark.slow
@pytest.mark.parametrize("context", ["forkserver", "spawn"])
def test_local_generic_engine_grid_equals_serial(tmp_path, monkeypatch, context):
    """A first local sweep of a generic ``engine`` grid (cold counter cache, shared-work order,
    workers from a forkserver or spawned) gives the serial run's rows bit for bit."""
    import sim.experiments.sweep
    from sim.experiments.config import config_from_dict
    from sim.studies.generic import scenario as generic

    if context not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"no {context} start method on this platform")
    cfg = config_from_dict({"name": "g", "paper": "t", "scenario": "generic:point", "seed": 5,
                            "params": {"pattern": "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x "
                                                  "WITHIN 8 events",
                                       "generator": "uniform", "gen_types": "A,B,C",
                                       "gen_attrs": "x", "n_events": 300},
                            "grid": {"engine": ["eager", "chain order=c,b,a", "chain order=a,b,c"],
                                     "rate": [100.0, 1000.0, 5000.0]}})
    monkeypatch.setenv("CEPSIM_POOL_CONTEXT", context)
    assert sim.experiments.sweep.pool_context() == context
    for name, backend in (("s", "serial"), ("l", "local")):
        monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path / f"counters_{name}"))
        generic.clear_memory_cache()
        res = run_experiment(cfg, out_dir=tmp_path / name, backend=backend, workers=2,
                             progress=False)
        assert res.n_failed == 0
    a = pd.read_parquet(tmp_path / "s/t/g/points.parquet")
    b = pd.read_parquet(tmp_path / "l/t/g/points.parquet")
    assert len(a) == 9 and a["matches"].gt(0).all()
    pd.testing.assert_frame_equal(rows(a), rows(b))
    # one counter-cache entry per engine spec (shared across its rates)
    assert len(list((tmp_path / "counters_l").glob("*.npz"))) == 3


def test_local_records_failures_and_finishes(tmp_path, repo_root):
    cfg = load_config(repo_root / "experiments/demo/failing.toml")
    s = run_experiment(cfg, out_dir=tmp_path, backend="local", workers=2)
    assert s.n_points == 4 and s.n_failed == 1
    assert s.df["error"].notna().sum() == 1 and s.df["sample_mean"].notna().sum() == 3


@pytest.mark.slow
def test_sweep_killed_midway_resumes(tmp_path, repo_root, basic):
    out = tmp_path / "res"
    shards = out / "demo" / _VARIANT / "shards"
    cmd = [sys.executable, "-m", "sim.cli", "sweep", "experiments/demo/basic.toml", "--backend",
           "local", "--workers", "2", "--out", str(out), "--figures-dir", str(tmp_path / "figs")]
    for s in SLEEPY:
        cmd += ["--set", s]
    proc = subprocess.Popen(cmd, cwd=repo_root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        n = 0
        while time.monotonic() < deadline:
            n = len(list(shards.glob("*-*.json"))) if shards.exists() else 0
            if n >= 3 or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, f"sweep finished before it could be killed ({n} shards)"
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert not (out / "demo" / _VARIANT / "points.parquet").exists()
    done_before = len(list(shards.glob("*-*.json")))
    assert 3 <= done_before < 16

    res = subprocess.run(cmd, cwd=repo_root, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "resumed" in res.stdout
    import json
    meta = json.loads((out / "demo" / _VARIANT / "meta.json").read_text())
    assert meta["resumed_rows"] >= done_before and meta["rows"] == 16

    df = pd.read_parquet(out / "demo" / _VARIANT / "points.parquet")
    assert len(df) == 16
    assert not df.duplicated(["point_id", "rep"]).any()
    clean = run_experiment(basic, out_dir=tmp_path / "clean", backend="serial", overrides=SLEEPY)
    pd.testing.assert_frame_equal(rows(df), rows(clean.df))


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_do_not_outlive_a_killed_sweep(tmp_path, repo_root, sig):
    """Killing only the `cepsim sweep` process (not its group) must not leave pool workers."""
    out = tmp_path / "res"
    shards = out / "demo" / _VARIANT / "shards"  # a --set run writes its variant directory
    cmd = [sys.executable, "-m", "sim.cli", "sweep", "experiments/demo/basic.toml", "--backend",
           "local", "--workers", "2", "--out", str(out), "--figures-dir", str(tmp_path / "figs")]
    for s in SLEEPY:
        cmd += ["--set", s]
    proc = subprocess.Popen(cmd, cwd=repo_root, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (shards.exists() and len(list(shards.glob("*-*.json"))) >= 2) or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "sweep finished before it could be killed"
        kids = [int(x) for x in subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                               text=True).stdout.split()]
        assert kids, "no worker processes found"
        os.kill(proc.pid, sig)          # the parent only
        proc.wait(timeout=30)
        deadline = time.monotonic() + 20
        alive = kids
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [k for k in kids if os.path.exists(f"/proc/{k}")
                     and open(f"/proc/{k}/stat").read().split()[2] != "Z"]
        assert not alive, f"workers {alive} outlived the sweep"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_pool_context_never_forks_unless_asked(monkeypatch):
    """The automatic start method is forkserver where the platform has one, else spawn; fork only
    when asked for; an unknown method is refused with the names that exist."""
    import multiprocessing as mp

    import sim.experiments.sweep as sweep

    monkeypatch.delenv("CEPSIM_POOL_CONTEXT", raising=False)
    assert sweep.pool_context("spawn") == "spawn"
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["fork", "spawn", "forkserver"])
    assert sweep.pool_context() == "forkserver"
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["spawn", "fork"])   # e.g. macOS
    assert sweep.pool_context() == "spawn"
    monkeypatch.setenv("CEPSIM_POOL_CONTEXT", "fork")
    assert sweep.pool_context() == "fork"
    monkeypatch.setenv("CEPSIM_POOL_CONTEXT", "forkserver")
    with pytest.raises(ValueError, match="forkserver.*not available.*'spawn', 'fork'"):
        sweep.pool_context()


def test_pool_workers_exit_with_the_pool_owner(tmp_path, repo_root):
    """A forkserver worker's parent is the server, not the pool's owner: the watchdog follows the
    owner.  Kill the owner (SIGKILL, no clean-up) and its workers are gone within seconds."""
    script = tmp_path / "owner.py"
    script.write_text(
        "import multiprocessing as mp, os, sys, time\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from sim.experiments import sweep\n"
        "if __name__ == '__main__':\n"
        "    pool = ProcessPoolExecutor(2, mp_context=mp.get_context('forkserver'),\n"
        "                               initializer=sweep.worker_init,\n"
        "                               initargs=(sys.argv[1], None, os.getpid()))\n"
        "    pids = {pool.submit(sweep._noop).result() for _ in range(8)}\n"
        "    print(' '.join(map(str, sorted(pids))), flush=True)\n"
        "    time.sleep(60)\n")
    if "forkserver" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no forkserver start method on this platform")
    proc = subprocess.Popen([sys.executable, str(script), str(repo_root)],
                            stdout=subprocess.PIPE, text=True, cwd=repo_root)
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]
        assert pids and all(sweep_alive(p) for p in pids)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 10
    while any(sweep_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(sweep_alive(p) for p in pids)


def sweep_alive(pid: int) -> bool:
    """``pid`` runs and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False

"""``cepsim reproduce`` on one shared pool (``sim.experiments.reproduce_pool``): rows identical to the serial
run, resume after SIGKILL (every point exactly once), cross-experiment shared-work order, and the
cross-process compile lock of ``engines.jitcache``."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.cli import app

DEMO = textwrap.dedent("""\
    name = "{name}"
    paper = "tiny"
    title = "tiny demo"
    scenario = "demo:point"
    seed = {seed}
    [params]
    n = 40
    [grid]
    mu = [0.0, 1.0, 2.0]
    [zip]
    sleep_s = [{sleep}]
    [[claims]]
    name = "mean close"
    kind = "extension"
    fn = "demo:claim_mean_close"
    args = {{ tol = 1.5 }}
    [[figures]]
    name = "{name}_fig"
    fn = "common:line_plot"
    args = {{ x = "mu", y = "sample_mean", xlabel = "mu", ylabel = "mean" }}
    """)

# two generic experiments reading the same engine counters (one work key across experiments)
GENERIC = textwrap.dedent("""\
    name = "{name}"
    paper = "tinyg"
    title = "tiny generic"
    scenario = "generic:point"
    seed = 5
    [params]
    pattern = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 8 events"
    generator = "uniform"
    gen_types = "A,B,C"
    gen_attrs = "x"
    n_events = 300
    [grid]
    engine = ["eager", "chain order=c,b,a"]
    rate = {rates}
    """)


def _registry(root: Path, sleep: str = "0.0", generic: bool = True) -> list[Path]:
    d = root / "experiments"
    (d / "tiny").mkdir(parents=True)
    (d / "tiny" / "a.toml").write_text(DEMO.format(name="a", seed=3, sleep=sleep))
    (d / "tiny" / "b.toml").write_text(DEMO.format(name="b", seed=4, sleep=sleep))
    if not generic:
        return sorted(d.glob("*/*.toml"))
    (d / "tinyg").mkdir(parents=True)
    (d / "tinyg" / "g1.toml").write_text(GENERIC.format(name="g1", rates="[100.0, 1000.0]"))
    (d / "tinyg" / "g2.toml").write_text(GENERIC.format(name="g2", rates="[5000.0]"))
    return sorted(d.glob("*/*.toml"))


def _rows(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path).drop(columns="wall_s").reset_index(drop=True)


@pytest.mark.slow
def test_shared_pool_reproduce_equals_serial(tmp_path, monkeypatch):
    _registry(tmp_path)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    for name, backend in (("s", "serial"), ("l", "local")):
        monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path / f"counters_{name}"))
        from sim.studies.generic import scenario as generic
        generic.clear_memory_cache()
        workers = ["--workers", "2"] if backend == "local" else []   # serial refuses it
        r = runner.invoke(app, ["reproduce", "--scale", "quick", "--backend", backend, *workers,
                                "--out", f"res_{name}", "--figures-dir", f"figs_{name}"])
        assert r.exit_code == 0, r.output + r.stderr
        for key in ("tiny/a", "tiny/b", "tinyg/g1", "tinyg/g2"):
            assert f"{key}: " in r.stdout and f"on {backend} in" in r.stdout   # summary lines
    for key, n in (("tiny/a", 3), ("tiny/b", 3), ("tinyg/g1", 4), ("tinyg/g2", 2)):
        a = _rows(tmp_path / "res_s" / key / "points.parquet")
        b = _rows(tmp_path / "res_l" / key / "points.parquet")
        assert len(a) == n and a["error"].isna().all()
        pd.testing.assert_frame_equal(a, b)
    assert (tmp_path / "figs_l/tiny/a_fig.png").is_file()
    assert "| tiny/b | extension | mean close | PASS |" in (tmp_path / "res_l/claims.md").read_text()
    # the two generic experiments share their counters: one entry per engine, not per experiment
    assert len(list((tmp_path / "counters_l").glob("*.npz"))) == 2


def test_plan_gates_shared_work_across_experiments(tmp_path):
    from sim.experiments.config import load_config
    from sim.experiments.reproduce_pool import plan_tasks
    from sim.experiments.runner import prepare_run

    paths = _registry(tmp_path)
    preps = [prepare_run(load_config(p), None, tmp_path / "res") for p in paths]
    tasks = plan_tasks(preps)
    assert len(tasks) == 3 + 3 + 4 + 2
    g2 = [t for t in tasks if preps[t.exp].cfg.key == "tinyg/g2"]
    # every g2 point waits for g1's point of the same engine (the one that computes the counters)
    for t in g2:
        firsts = [q for q in tasks if t in q.then]
        assert len(firsts) == 1 and preps[firsts[0].exp].cfg.key == "tinyg/g1"
        assert firsts[0].point.params["engine"] == t.point.params["engine"]
    # demo points share no work; one kernel key per experiment: its first point goes first
    for key in ("tiny/a", "tiny/b"):
        ts = [t for t in tasks if preps[t.exp].cfg.key == key]
        assert [t.waiting for t in ts] == [0, 1, 1] and ts[0].then == ts[1:]


@pytest.mark.slow
def test_killed_reproduce_resumes_every_point_once(tmp_path, repo_root):
    _registry(tmp_path, sleep="0.4", generic=False)
    env = dict(os.environ, PYTHONPATH=str(repo_root),
               CEPSIM_COUNTER_CACHE=str(tmp_path / "counters"))
    cmd = [sys.executable, "-m", "sim.cli", "reproduce", "--scale", "quick", "--workers", "2",
           "--out", "res", "--figures-dir", "figs"]
    shards = [tmp_path / "res/tiny" / n / "shards" for n in ("a", "b")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        n = 0
        while time.monotonic() < deadline and proc.poll() is None:
            n = sum(len(list(s.glob("*-*.json"))) for s in shards if s.exists())
            if n >= 2:
                break
            time.sleep(0.05)
        assert proc.poll() is None, (f"reproduce ended before it could be killed ({n} shards): "
                                     f"{proc.stderr.read().decode()[-2000:]}")
        os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    before = sum(len(list(s.glob("*-*.json"))) for s in shards if s.exists())
    assert 2 <= before < 6, before
    res = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr
    assert "resumed" in res.stdout
    import json
    resumed = 0
    for name in ("a", "b"):
        meta = json.loads((tmp_path / "res/tiny" / name / "meta.json").read_text())
        resumed += meta["resumed_rows"]
        df = pd.read_parquet(tmp_path / "res/tiny" / name / "points.parquet")
        assert len(df) == 3 and not df.duplicated(["point_id", "rep"]).any()
    assert resumed >= before
    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment
    for name in ("a", "b"):
        clean = run_experiment(load_config(tmp_path / f"experiments/tiny/{name}.toml"),
                               scale="quick", out_dir=tmp_path / "clean", progress=False)
        pd.testing.assert_frame_equal(_rows(tmp_path / "res/tiny" / name / "points.parquet"),
                                      clean.df.drop(columns="wall_s").reset_index(drop=True))


KERNEL = textwrap.dedent("""\
    import numba

    @numba.njit(cache=True)
    def twice(x):
        return x + x
    """)

WAITER = textwrap.dedent("""\
    import os, sys, time
    sys.path.insert(0, sys.argv[1])
    from engines.jitcache import install_compile_lock
    assert install_compile_lock()
    import kern
    print(kern.twice._cache._cache_file._index_path, flush=True)
    while not os.path.exists(sys.argv[2]):
        time.sleep(0.01)
    r = kern.twice(21)
    st = kern.twice.stats
    print(r, sum(st.cache_hits.values()), sum(st.cache_misses.values()), flush=True)
    """)


def test_compile_lock_waits_then_loads_instead_of_compiling(tmp_path, repo_root):
    """A process that misses the cache while another holds the kernel's lock waits, then loads
    the kernel the other compiled (cache hit, no second compile)."""
    import fcntl

    (tmp_path / "kern.py").write_text(KERNEL)
    (tmp_path / "waiter.py").write_text(WAITER)
    env = dict(os.environ, PYTHONPATH=f"{repo_root}{os.pathsep}{tmp_path}",
               NUMBA_CACHE_DIR=str(tmp_path / "nbcache"))
    go = tmp_path / "go"
    w = subprocess.Popen([sys.executable, str(tmp_path / "waiter.py"), str(tmp_path), str(go)],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        index = w.stdout.readline().strip()
        assert index.endswith(".nbi"), w.stderr.read()
        Path(index).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(index + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
        fcntl.flock(fd, fcntl.LOCK_EX)       # "another process is compiling twice"
        go.write_text("")
        time.sleep(1.0)
        assert w.poll() is None, "the waiter did not wait for the lock"
        # the other process compiles and stores the kernel (no lock installed there)
        subprocess.run([sys.executable, "-c", "import kern; assert kern.twice(1) == 2"], env=env,
                       cwd=tmp_path, check=True, timeout=120)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
        out, err = w.communicate(timeout=120)
    finally:
        if w.poll() is None:
            w.kill()
    assert w.returncode == 0, err
    assert out.split() == ["42", "1", "0"]   # result, cache hits, cache misses (compiles)


def test_rerun_orders_points_longest_first_by_stored_wall_times(tmp_path):
    """A rerun into a results root holding the same config's results takes each point's stored
    ``wall_s`` as its cost estimate and submits the longest first; a changed config gets none."""
    import heapq

    from sim.experiments.config import load_config
    from sim.experiments.reproduce_pool import plan_tasks
    from sim.experiments.runner import prepare_run, run_experiment

    paths = _registry(tmp_path, generic=False)
    cfg = load_config(paths[0])
    first = run_experiment(cfg, out_dir=tmp_path / "res", progress=False)
    stored = {(r["point_id"], r["rep"]): r["wall_s"] for r in first.df.to_dict("records")}
    tasks = plan_tasks([prepare_run(cfg, None, tmp_path / "res")])
    assert {(t.point.point_id, t.point.rep): t.est for t in tasks} == stored
    heap = [(t.priority(), t.seq, t) for t in tasks]
    heapq.heapify(heap)
    order = [heapq.heappop(heap)[2].est for _ in tasks]
    assert order == sorted(stored.values(), reverse=True)
    (tmp_path / "alt").mkdir()       # the same experiment (tiny/a), one parameter changed
    (tmp_path / "alt" / "a.toml").write_text(paths[0].read_text().replace("n = 40", "n = 41"))
    changed = load_config(tmp_path / "alt" / "a.toml")
    assert changed.key == cfg.key
    assert all(t.est is None for t in plan_tasks([prepare_run(changed, None, tmp_path / "res")]))

"""``--dry-run`` estimates (sim/experiments/estimate.py): stored timings when they exist (same scale exactly
per point, another scale scaled by n_events), one timed sample point otherwise (``--sample``); the dry run runs
no point beyond the sample and writes no results."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.experiments import estimate, results
from sim.cli import app
from sim.experiments.config import apply_scale, expand_points, load_config
from sim.experiments.runner import resolve_run

TINY = """
name = "tiny"
paper = "est"
scenario = "demo:point"
seed = 7
seeds = 1
[params]
n = 20
work_s = 0.05
[grid]
n_events = [1000, 3000]
mu = [0.0, 1.0]
[scale.quick]
grid = { n_events = [100, 300], mu = [0.0] }
"""


def _tiny(tmp_path: Path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return load_config(p)


def _store(root: Path, cfg, scale, wall_of, error_of=lambda p: None):
    """Fixture results of ``cfg`` at ``scale``: every point with ``wall_s = wall_of(point)``."""
    rcfg, points = resolve_run(cfg, scale)
    rows = []
    for p in points:
        row = dict(p.params, seed=p.seed, rep=p.rep, point_id=p.point_id, sample_mean=0.0,
                   error=error_of(p), wall_s=wall_of(p))
        rows.append(row)
    df = results.rows_to_frame(rcfg, rows)
    results.write_points(root, rcfg, df)
    results.write_meta(root, rcfg, scale=scale, backend="serial", n_rows=len(df), n_failed=0)
    return rcfg, points


def _files(root: Path) -> dict:
    return {str(p): p.stat().st_mtime_ns for p in root.rglob("*")} if root.exists() else {}


@pytest.fixture
def no_points(monkeypatch):
    def refuse(cfg, p):
        raise AssertionError("the dry run ran a point although stored timings exist")
    monkeypatch.setattr(estimate, "run_point", refuse)


def test_stored_same_scale_gives_each_point_its_time(tmp_path, no_points):
    cfg = _tiny(tmp_path)
    walls = {}

    def wall_of(p):
        walls[(p.point_id, p.rep)] = 0.5 + len(walls)
        return walls[(p.point_id, p.rep)]

    root = tmp_path / "res"
    _, points = _store(root, cfg, None, wall_of)
    before = _files(root)
    est = estimate.estimate_experiment(cfg, None, [root])
    assert est.source == "stored" and est.n_points == est.n_pending == len(points) == 4
    assert est.point_s == [walls[(p.point_id, p.rep)] for p in points]
    assert est.cpu_s == pytest.approx(sum(walls.values()))
    assert _files(root) == before


def test_shards_of_an_interrupted_run_are_not_pending(tmp_path, no_points):
    cfg = _tiny(tmp_path)
    root = tmp_path / "res"
    rcfg, points = _store(root, cfg, None, lambda p: 2.0)
    results.prepare_shards(root, rcfg)
    for p in points[:3]:
        results.write_shard(root, rcfg, p, dict(p.params, seed=p.seed, rep=p.rep,
                                                point_id=p.point_id, error=None, wall_s=2.0))
    est = estimate.estimate_experiment(cfg, None, [root])
    assert (est.n_points, est.n_pending, est.cpu_s) == (4, 1, 2.0)


def test_other_scale_is_scaled_by_events(tmp_path, no_points):
    """Quick rows (100 and 300 events, 1 s and 2 s) -> 3 s per 400 events for the full points."""
    cfg = _tiny(tmp_path)
    root = tmp_path / "res"
    _store(root, cfg, "quick", lambda p: {100: 1.0, 300: 2.0}[p.params["n_events"]])
    est = estimate.estimate_experiment(cfg, "full", [tmp_path / "empty", root])
    assert est.source == "quick*events"
    per_event = 3.0 / 400
    want = [per_event * p.params["n_events"] for p in expand_points(apply_scale(cfg, "full"))]
    assert est.point_s == pytest.approx(want)
    # failed stored rows say nothing about a point's time: they are left out
    _store(root, cfg, "quick", lambda p: 9.0 if p.params["n_events"] == 300 else 1.0,
           lambda p: "RuntimeError: x" if p.params["n_events"] == 300 else None)
    assert estimate.estimate_experiment(cfg, "full", [root]).point_s[0] == pytest.approx(10.0)


def test_sample_point_when_nothing_is_stored(tmp_path, monkeypatch):
    cfg = _tiny(tmp_path)
    sampled = []
    real = estimate.sample_points

    def recorded(c, points):   # the parent's call: the points handed to the sample's child
        sampled.extend(points)
        return real(c, points)

    monkeypatch.setattr(estimate, "sample_points", recorded)
    root = tmp_path / "res"
    est = estimate.estimate_experiment(cfg, None, [root])
    assert len(sampled) == 1 and est.source == "sample"
    assert not root.exists()
    assert est.point_s[0] >= 0.05        # the sample burns 0.05 CPU s
    ev = [p.params["n_events"] for p in expand_points(cfg)]
    assert est.point_s == pytest.approx([est.point_s[0] * e / ev[0] for e in ev])


def test_sweep_dry_run_cli_runs_one_sample_and_writes_nothing(tmp_path):
    cfg = _tiny(tmp_path)
    out = tmp_path / "res"
    res = CliRunner().invoke(app, ["sweep", str(cfg.path), "--dry-run", "--out", str(out),
                                   "--workers", "2"])
    assert res.exit_code == 0, res.output        # without --sample: no timings, nothing run
    assert "unknown" in res.output and "--sample times one point" in res.output
    assert "samples of 0 experiment(s) run here" in res.output
    res = CliRunner().invoke(app, ["sweep", str(cfg.path), "--dry-run", "--sample", "--out",
                                   str(out), "--workers", "2"])
    assert res.exit_code == 0, res.output
    assert "est/tiny" in res.output and "sample" in res.output
    assert "samples of 1 experiment(s) run here" in res.output and "estimated wall:" in res.output
    assert not out.exists()


@pytest.mark.slow
def test_reproduce_dry_run_uses_stored_timings_of_every_experiment(tmp_path, repo_root,
                                                                  no_points):
    """Fixture quick results for every shipped experiment: no sample, the total is their sum."""
    out = tmp_path / "res"
    total = 0.0
    n_points = 0
    paths = [p for p in sorted((repo_root / "experiments").glob("*/*.toml"))
             if p.parent.name != "demo"]
    for i, p in enumerate(paths):
        cfg = load_config(p)
        _, pts = _store(out, cfg, "quick", lambda pt, i=i: 0.25 + i)
        total += (0.25 + i) * len(pts)
        n_points += len(pts)
    before = _files(out)
    res = CliRunner().invoke(app, ["reproduce", "--scale", "quick", "--dry-run", "--out",
                                   str(out), "--workers", "2", "--fresh"])
    assert res.exit_code == 0, res.output
    last = [ln for ln in res.output.splitlines() if ln.startswith("total")][0].split()
    # the total is printed to one decimal (round half to even: 40027.25 prints as 40027.2)
    assert int(last[1]) == n_points and float(last[3]) == pytest.approx(total, abs=0.051)
    assert "samples of 0 experiment(s) run here" in res.output
    assert _files(out) == before
    # without --fresh a reproduce keeps the stored rows of unchanged configs: nothing pending
    res = CliRunner().invoke(app, ["reproduce", "--scale", "quick", "--dry-run", "--out",
                                   str(out), "--workers", "2"])
    assert res.exit_code == 0, res.output
    last = [ln for ln in res.output.splitlines() if ln.startswith("total")][0].split()
    assert (int(last[1]), int(last[2])) == (n_points, 0)


def test_wall_models():
    assert estimate.lpt_makespan([3, 3, 2, 2, 2], 2) == 7   # longest first, not optimal (6)
    assert estimate.lpt_makespan([5, 1, 1], 4) == 5
    e = estimate.ExperimentEstimate("p/x", 4, 4, "stored", [4.0, 1.0, 1.0, 1.0],
                                    [True, False, False, False])
    assert estimate.wall_estimate([e], "serial", 2, None, True)[0] == 7.0
    assert estimate.wall_estimate([e], "local", 2, None, True)[0] == 4.0
    assert estimate.wall_estimate([e], "local", 2, None, False)[0] == 6.0   # warm-up, then 2
    wall, how = estimate.wall_estimate([e], "spark", None, "local[3]", True)
    assert wall == pytest.approx(4.0 + estimate.SPARK_START_S + estimate.SPARK_TASK_S)
    assert "3 slots" in how
    assert estimate.spark_slots("spark://h:7077", 8) == (8, "--workers")
    assert estimate.spark_slots("spark://h:7077", None)[0] == (os.cpu_count() or 1)


def test_shared_work_sample_times_a_leader_and_a_point_reusing_its_work(tmp_path, monkeypatch):
    """Generic scenario: the engine counters of one engine are shared by its arrival rates."""
    from test_reproduce_pool import GENERIC

    p = tmp_path / "g.toml"
    p.write_text(GENERIC.format(name="g", rates="[100.0, 1000.0]"))
    cfg = load_config(p)
    sampled = []
    real = estimate.sample_points

    def recorded(c, points):   # see test_sample_point_when_nothing_is_stored
        sampled.extend(points)
        return real(c, points)

    monkeypatch.setattr(estimate, "sample_points", recorded)
    seen: set = set()
    est = estimate.estimate_experiment(cfg, None, [tmp_path / "res"], seen_work=seen)
    assert len(sampled) == 2 and sampled[0].params["engine"] == sampled[1].params["engine"]
    assert est.n_pending == 4 and "2 points reuse shared work" in est.note
    # a second experiment of the same keys (as the APAM sensitivity studies read exp 1's
    # counters): every point reuses the work of the first, none is charged as a leader
    again = estimate.estimate_experiment(cfg, None, [tmp_path / "res"], seen_work=seen)
    assert "4 points reuse shared work" in again.note
    assert again.cpu_s - again.sample_jit_s == pytest.approx(4 * (again.point_s[1]))
    assert not (tmp_path / "res").exists()


def test_a_sample_over_the_memory_cap_fails_instead_of_the_machine(tmp_path, monkeypatch):
    p = tmp_path / "big.toml"
    p.write_text(TINY.replace("n = 20", "n = 400_000_000"))   # 3.2 GB of normal draws
    monkeypatch.setenv("CEPSIM_SAMPLE_MEMORY_GB", "1.5")
    est = estimate.estimate_experiment(load_config(p), None, [tmp_path / "res"])
    assert est.source == "sample" and "failed, the time is a lower bound" in est.note
    assert "MemoryError" in est.note or "died" in est.note

"""Memory-aware admission of the shared pool (``sim.experiments.point_memory``): the rule, the stored growths,
and a reproduce whose two large points never overlap under a budget while the rows stay those
of a run without one."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from sim.experiments import point_memory as PM
from sim.cli import app


def test_gate_admits_under_the_budget_and_always_when_idle():
    gate = PM.MemoryGate(1000.0, [{"p/0": 700.0}, {}], parent_pid=-1)   # parent RSS unknown: 0
    assert gate.expected(0, "p", 0) == 700.0
    assert gate.expected(1, "q", 0) == 0.0                   # nothing known yet
    assert gate.expected(0, "unstored", 0) == 700.0          # the experiment's largest stored
    assert gate.admit(5000.0, [], 2)                         # nothing in flight: always
    assert gate.admit(700.0, [200.0], 2)
    assert not gate.admit(700.0, [400.0], 2)
    gate.record(1, "q", 0, {"pid": 11, "growth_mb": 300.0, "retained_mb": 150.0})
    gate.record(1, "r", 0, {"pid": 12, "growth_mb": 100.0, "retained_mb": 150.0})
    assert gate.expected(1, "s", 0) == 300.0                 # the experiment's largest so far
    assert gate.held_mb(2) == 300.0                          # the workers' retained memory
    assert gate.admit(500.0, [200.0], 2) and not gate.admit(501.0, [200.0], 2)
    assert PM.MemoryGate(0.0, [{}]).admit(1e9, [1e9], 2)     # budget 0: no rule


def test_growths_are_stored_merged_and_tied_to_the_config(tmp_path):
    PM.write_growths(tmp_path, "fp1", {"a/0": 10.04, "b/0": 20.0}, "abc")
    PM.write_growths(tmp_path, "fp1", {"b/0": 30.0}, "def")          # a resumed run
    assert PM.read_growths(tmp_path, "fp1") == {"a/0": 10.0, "b/0": 30.0}
    assert PM.read_growths(tmp_path, "fp2") == {}                    # another config
    (tmp_path / PM.FILE).write_text("{not json")
    assert PM.read_growths(tmp_path, "fp1") == {}                    # unreadable: no hint


def test_worker_measures_the_growth_of_a_point():
    import numpy as np
    rss0 = PM.start_point()
    if rss0 is None:
        pytest.skip("no /proc/self/clear_refs on this system")
    block = np.ones(200 * 2**20 // 8)
    del block
    facts = PM.finish_point(rss0)
    assert facts["growth_mb"] >= 150.0
    assert facts["retained_mb"] is not None


BIG = textwrap.dedent("""\
    name = "big"
    paper = "tinym"
    title = "two large points and small ones"
    scenario = "demo:point"
    seed = 7
    [params]
    n = 20
    [zip]
    mu = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    alloc_mb = [0, 300, 300, 0, 0, 0]
    sleep_s = [0.05, 2.0, 2.0, 0.3, 0.3, 0.3]
    """)
LARGE = {1.0, 2.0}      # mu of the two large points (the first point runs alone: kernel warm-up)
SMALL = {3.0, 4.0, 5.0}     # small points, shorter than a large one


def _large_intervals(log: Path, cfg_rows: pd.DataFrame, mus=LARGE) -> list[tuple[float, float]]:
    """(start, end) of the runs of the points with ``mu`` in ``mus`` (the two large points by
    default) in the per-point log."""
    large_ids = set(cfg_rows.loc[cfg_rows["mu"].isin(mus), "point_id"])
    out = []
    for line in log.read_text().splitlines():
        r = json.loads(line)
        if r["point_id"] in large_ids:
            out.append((r["end"] - r["wall_s"], r["end"]))
    return sorted(out)


def _reproduce(runner, out: str, budget: float, log: Path, monkeypatch, fresh: bool = False):
    monkeypatch.setenv("CEPSIM_POINT_LOG", str(log))
    args = ["reproduce", "--scale", "quick", "--workers", "2", "--out", out,
            "--memory-budget-mb", f"{budget:.0f}"] + (["--fresh"] if fresh else [])
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output + r.stderr
    return pd.read_parquet(Path(out) / "tinym/big/points.parquet").drop(columns="wall_s")


@pytest.mark.slow
def test_reproduce_never_overlaps_two_large_points_under_a_budget(tmp_path, monkeypatch):
    d = tmp_path / "experiments" / "tinym"
    d.mkdir(parents=True)
    (d / "big.toml").write_text(BIG)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    # without a budget the two large points run side by side (the premise), and the run stores
    # the growths it measured beside the results
    free = _reproduce(runner, "res", 0, tmp_path / "free.jsonl", monkeypatch)
    (a0, a1), (b0, b1) = _large_intervals(tmp_path / "free.jsonl", free)
    assert b0 < a1, "without a budget the two large points should overlap"
    stored = json.loads((tmp_path / "res/tinym/big" / PM.FILE).read_text())["growth_mb"]
    large_ids = set(free.loc[free["mu"].isin(LARGE), "point_id"])
    assert {k.split("/")[0] for k, v in stored.items() if v >= 250} == large_ids
    # the rerun reads them: a budget that holds one large point but not two (what the processes
    # hold is taken as 0 here, so the budget does not depend on this test process's size or on
    # the pool's start method); the second large point starts only after the first ended, and
    # the rows are unchanged
    monkeypatch.setattr(PM.MemoryGate, "held_mb", lambda self, n_workers: 0.0)
    gated = _reproduce(runner, "res", 450, tmp_path / "gated.jsonl", monkeypatch, fresh=True)
    (a0, a1), (b0, b1) = _large_intervals(tmp_path / "gated.jsonl", gated)
    assert b0 >= a1 - 0.05
    # backfilling: while the second large point waits for memory (the rerun runs the longest
    # first), a small point, which fits beside either large one, runs on the idle worker
    small = _large_intervals(tmp_path / "gated.jsonl", gated, SMALL)
    assert any(s0 < a1 - 0.05 and s1 > a0 + 0.05 for s0, s1 in small), (a0, a1, small)
    pd.testing.assert_frame_equal(free, gated)


@pytest.mark.parametrize("extra", [[], ["--dry-run"]])
def test_negative_budget_is_refused_with_a_clear_error(tmp_path, extra):
    res = CliRunner().invoke(app, ["reproduce", "--scale", "quick", "--out", str(tmp_path),
                                   "--memory-budget-mb", "-5"] + extra)
    assert res.exit_code == 2, res.output
    assert "--memory-budget-mb: must be a number of MB >= 0" in res.output
    assert not any(tmp_path.iterdir())          # nothing run, nothing written

"""Point shards (``sim.experiments.results``): a JSON shard gives back exactly the row a one-row Parquet shard
gave, so consolidated tables are unchanged; old Parquet shards
still resume a run."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim.experiments import results
from sim.experiments.config import load_config
from sim.experiments.runner import resolve_run

REPO = Path(__file__).resolve().parents[1]


def _legacy_shard(row: dict, path: Path) -> None:
    """A shard in the one-row Parquet format: a one-row Parquet file (lists stay list cells)."""
    results.write_parquet_atomic(pd.DataFrame({k: [v] for k, v in row.items()}), path)


def _via_parquet(row: dict, tmp: Path) -> dict:
    """The pre-session-18 shard round trip: a one-row Parquet file read by ``read_shard``."""
    path = tmp / "x-0.parquet"
    _legacy_shard(row, path)
    return results.read_shard(path)


def _via_json(row: dict, tmp: Path, cfg, point) -> dict:
    return results.read_shard(results.write_shard(tmp, cfg, point, row))


def _same(a: dict, b: dict) -> bool:
    """Equal rows, NaN equal to NaN and int/float types compared too (a cell's type decides a
    consolidated column's dtype)."""
    if a.keys() != b.keys():
        return False

    def eq(x, y):
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(eq(u, v) for u, v in zip(x, y))
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            return True
        return type(x) is type(y) and x == y
    return all(eq(a[k], b[k]) for k in a)


@pytest.fixture
def demo(tmp_path):
    cfg, points = resolve_run(load_config(REPO / "experiments/basic/mg1_validation.toml"),
                              "quick")
    return cfg, points[0]


def test_json_shard_reads_back_what_a_parquet_shard_did(tmp_path, demo):
    cfg, point = demo
    rows = [
        {"a": 1, "b": 2.5, "c": "x", "d": None, "e": float("nan"), "f": True, "g": [1, 2],
         "h": [0.1, float("nan")], "i": (1, 2.5), "j": [], "k": float("inf"), "l": -0.0},
        {"a": np.int64(3), "b": np.float64(1 / 3), "c": np.float32(0.1), "f": np.bool_(False),
         "g": np.arange(3), "h": np.array([0.5, 1.5]), "e": np.float64("nan"),
         "m": 2 ** 62, "n": 1e-310, "o": "ünïcode"},
    ]
    for row in rows:
        assert _same(_via_json(row, tmp_path, cfg, point), _via_parquet(row, tmp_path))


@pytest.mark.slow
def test_every_committed_row_round_trips_as_before(tmp_path, demo):
    """Every row of the committed results (what workers return, after one Parquet round trip)
    reads back from a JSON shard exactly as from a Parquet shard."""
    cfg, point = demo
    files = sorted((REPO / "results" / "full").glob("*/*/points.parquet"))
    assert files
    n = 0
    for f in files:
        df = pd.read_parquet(f)
        recs = df.to_dict("records")
        for rec in recs[:: max(1, len(recs) // 8)]:       # up to ~8 rows per experiment
            row = {k: results._plain(v) for k, v in rec.items()}
            assert _same(_via_json(row, tmp_path, cfg, point), _via_parquet(row, tmp_path)), f
            n += 1
    assert n > 300


def test_a_parquet_shard_of_an_earlier_version_still_resumes(tmp_path, demo):
    cfg, point = demo
    results.prepare_shards(tmp_path, cfg)
    row = dict(point.params, seed=point.seed, rep=point.rep, point_id=point.point_id,
               sample_mean=1.5, error=None, wall_s=0.0)
    legacy = results.shard_path(tmp_path, cfg, point).with_suffix(".parquet")
    _legacy_shard(row, legacy)
    done = results.done_points(tmp_path, cfg, [point])
    assert done[(point.point_id, point.rep)]["sample_mean"] == 1.5
    assert len(results.collect_rows(tmp_path, cfg, [point])) == 1


def test_an_unreadable_json_shard_means_the_point_runs_again(tmp_path, demo):
    cfg, point = demo
    results.prepare_shards(tmp_path, cfg)
    results.shard_path(tmp_path, cfg, point).write_text('{"seed": 1, "rep"')
    assert results.done_points(tmp_path, cfg, [point]) == {}

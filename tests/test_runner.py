"""Runner, results storage, failure recording, claims and deterministic figures (serial backend)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from sim.experiments import results
from sim.experiments.claims import ClaimResult, check_experiment, format_markdown, format_table, ClaimRow
from sim.experiments.config import apply_scale, expand_points, load_config
from sim.experiments.runner import run_experiment, run_point


@pytest.fixture()
def basic(repo_root):
    return load_config(repo_root / "experiments/demo/basic.toml")


def test_run_point_row_shape(basic):
    cfg = apply_scale(basic, "quick")
    p = expand_points(cfg)[0]
    row = run_point(cfg, p)
    assert row["error"] is None and row["point_id"] == p.point_id and row["seed"] == p.seed
    for k, v in p.params.items():
        assert row[k] == v
    assert {"sample_mean", "sample_std", "wall_s"} <= set(row)
    again = run_point(cfg, p)
    assert {k: v for k, v in again.items() if k != "wall_s"} == \
        {k: v for k, v in row.items() if k != "wall_s"}


def test_run_experiment_writes_points_and_meta(tmp_path, basic):
    s = run_experiment(basic, scale="quick", out_dir=tmp_path)
    assert s.ok and s.n_points == 6 and s.n_run == 6
    df = pd.read_parquet(tmp_path / "demo/basic/points.parquet")
    assert len(df) == 6
    assert list(df[["point_id", "rep"]].itertuples(index=False)) == \
        sorted(df[["point_id", "rep"]].itertuples(index=False))
    assert df["error"].isna().all()
    meta = json.loads((tmp_path / "demo/basic/meta.json").read_text())
    assert meta["scale"] == "quick" and meta["base_seed"] == basic.seed
    assert meta["backend"] == "serial" and meta["config"]["params"]["n"] == 50
    assert set(meta["versions"]) >= {"numpy", "numba", "pandas", "simpy", "pyspark"}
    assert meta["python"]
    assert not (tmp_path / "demo/basic/shards").exists()  # consolidated and cleaned
    # no temp files left behind by atomic writes
    assert not [p for p in (tmp_path / "demo/basic").iterdir() if p.name.startswith(".")]
    # the same run again gives identical rows
    s2 = run_experiment(basic, scale="quick", out_dir=tmp_path / "again")
    pd.testing.assert_frame_equal(s.df.drop(columns="wall_s"), s2.df.drop(columns="wall_s"))


def test_failure_recorded_and_rest_finish(tmp_path, repo_root):
    cfg = load_config(repo_root / "experiments/demo/failing.toml")
    s = run_experiment(cfg, out_dir=tmp_path)
    assert s.n_points == 4 and s.n_failed == 1
    df = s.df
    bad = df[df["error"].notna()]
    assert list(bad["mu"]) == [1.0]
    assert "RuntimeError: demo failure requested at mu=1.0" in bad["error"].iloc[0]
    assert bad["sample_mean"].isna().all()  # no metrics for the failed point, params kept
    assert bad["n"].iloc[0] == 20
    good = df[df["error"].isna()]
    assert len(good) == 3 and good["sample_mean"].notna().all()
    # failed shard kept: a rerun retries only the failed point
    s2 = run_experiment(cfg, out_dir=tmp_path)
    assert s2.n_resumed == 3 and s2.n_run == 1 and s2.n_failed == 1
    res = check_experiment(cfg, df)
    assert res[0][1].passed is False and "1 of 4" in res[0][1].measured


def test_claims_table_and_markdown(tmp_path, repo_root, basic):
    strict = load_config(repo_root / "experiments/demo/strict.toml")
    s = run_experiment(strict, out_dir=tmp_path)
    (name, res), = check_experiment(strict, s.df)
    assert not res.passed and "max |mean - mu|" in res.measured
    ok = run_experiment(basic, scale="quick", out_dir=tmp_path)
    rows = [ClaimRow(strict.key, name, res, "extension")] + \
        [ClaimRow(basic.key, n, r, "extension") for n, r in check_experiment(basic, ok.df)]
    assert all(r.result.passed for r in rows[1:])
    table = format_table(rows)
    assert "FAIL" in table and "PASS" in table and "2 passed, 1 failed" in table
    md = format_markdown(rows)
    assert md.startswith("# Claims") and "| demo/strict |" in md


def test_claim_that_raises_is_a_failure(basic):
    import dataclasses

    from sim.experiments.config import ClaimSpec
    cfg = dataclasses.replace(basic, claims=(ClaimSpec("bad", "demo:claim_mean_close",
                                                       kind="extension", args={"tol": 1}),))
    (_, res), = check_experiment(cfg, pd.DataFrame({"mu": [0.0], "error": [None]}))
    assert isinstance(res, ClaimResult) and not res.passed and "error: KeyError" in res.measured
    # a misspelled argument is the config's mistake, not a failed claim
    from engines.errors import CepsimInputError
    cfg = dataclasses.replace(basic, claims=(ClaimSpec("bad", "demo:claim_mean_close",
                                                       kind="extension", args={"nosuch": 1}),))
    with pytest.raises(CepsimInputError, match=r"claims\[0\].*nosuch.*accepts \['tol'\]"):
        check_experiment(cfg, pd.DataFrame({"mu": [0.0], "sample_mean": [0.0], "error": [None]}))


def test_figures_are_byte_stable(tmp_path, basic):
    from sim.experiments.figures import line_plot
    s = run_experiment(basic, scale="quick", out_dir=tmp_path)
    a = line_plot(s.df, tmp_path / "a" / "fig", x="mu", y="sample_mean", hue="label")
    b = line_plot(s.df, tmp_path / "b" / "fig", x="mu", y="sample_mean", hue="label")
    assert [p.suffix for p in a] == [".png", ".pdf"]
    for pa, pb in zip(a, b):
        assert pa.read_bytes() == pb.read_bytes()
    assert b"CreationDate" not in a[1].read_bytes()


def test_stale_shards_of_other_seed_are_discarded(tmp_path, basic):
    from sim.experiments.config import apply_overrides
    cfg = apply_scale(basic, "quick")
    pts = expand_points(cfg)
    results.prepare_shards(tmp_path, cfg)
    fake = dict(pts[0].params, seed=pts[0].seed + 1, rep=0, point_id=pts[0].point_id,
                sample_mean=99.0, error=None, wall_s=0.0)
    results.write_shard(tmp_path, cfg, pts[0], fake)
    assert results.done_points(tmp_path, cfg, pts) == {}  # wrong seed: not done
    s = run_experiment(basic, scale="quick", out_dir=tmp_path)
    assert s.n_resumed == 0 and (s.df["sample_mean"] != 99.0).all()
    # another base seed wipes the shard dir (fingerprint)
    results.prepare_shards(tmp_path, cfg)
    other = apply_overrides(cfg, ["seed=1"])
    results.prepare_shards(tmp_path, other)
    assert json.loads((results.shard_dir(tmp_path, other) / "_fingerprint.json").read_text())["seed"] == 1

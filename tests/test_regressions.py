"""Regression tests for fixed bugs, one per fix (the commit named in each docstring).

Each test fails when its fix is reverted.  Fixes with a home elsewhere are tested there:
fc0977e (APAM high-rate plan must be in the optimal matching order) in
``tests/test_claims.py`` (``apam:claim_eager_low_hybrid_high`` FAIL case with order BCDEA);
91461e5 (parser quoting / reserved words / non-finite numbers) in ``tests/test_pattern.py``.
"""
from __future__ import annotations

import fnmatch
from pathlib import Path

import pandas as pd
import pytest

from sim.atomic import atomic_write, atomic_write_text


def test_ed115c9_temp_file_never_looks_like_a_finished_shard(tmp_path):
    """ed115c9: the temporary file of an atomic write ended in '.tmp.parquet', so a shard left
    by a killed sweep matched '*.parquet'.  The temp name must be hidden, end in '.tmp' and
    live next to the destination (same file system: os.replace stays atomic)."""
    seen = []

    def writer(tmp):
        seen.append(Path(tmp))
        pd.DataFrame({"a": [1]}).to_parquet(tmp, index=False)

    dest = tmp_path / "shards" / "0123abcd-0.parquet"
    atomic_write(dest, writer)
    (tmp,) = seen
    assert tmp.parent == dest.parent
    assert tmp.name.startswith(".") and tmp.name.endswith(".tmp"), tmp.name
    for pattern in ("*.parquet", "*.parquet*.parquet", "*-0.parquet"):
        assert not fnmatch.fnmatch(tmp.name, pattern), (tmp.name, pattern)
    assert sorted(p.name for p in dest.parent.iterdir()) == [dest.name]
    assert pd.read_parquet(dest)["a"].tolist() == [1]


def test_ed115c9_killed_write_leaves_old_file_and_no_temp(tmp_path):
    dest = tmp_path / "points.parquet"
    atomic_write_text(dest, "old")

    def dies(tmp):
        Path(tmp).write_text("half")
        raise KeyboardInterrupt           # a Ctrl-C / kill in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        atomic_write(dest, dies)
    assert dest.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["points.parquet"]


def test_ed115c9_write_parquet_atomic_name_restored(tmp_path):
    """ed115c9 also restored ``write_parquet_atomic`` (mangled by a refactor)."""
    from sim.experiments.results import write_parquet_atomic

    df = pd.DataFrame({"x": [1.5, 2.5]})
    write_parquet_atomic(df, tmp_path / "d" / "f.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "d" / "f.parquet"), df)


def test_resumed_sweep_ignores_a_leftover_temp_shard(tmp_path, repo_root):
    """A killed sweep can leave a temp shard behind; the resumed run must neither count it
    as a finished point nor choke on it, and must give the rows of a clean run."""
    from sim.experiments.config import expand_points, load_config
    from sim.experiments.results import shard_dir
    from sim.experiments.runner import run_experiment

    cfg = load_config(repo_root / "experiments/demo/failing.toml")    # keeps its shard dir
    first = run_experiment(cfg, out_dir=tmp_path / "r", backend="serial")
    d = shard_dir(tmp_path / "r", cfg)
    pts = expand_points(cfg)
    victim = next(p for p in pts if (d / f"{p.point_id}-{p.rep}.json").exists())
    shard = d / f"{victim.point_id}-{victim.rep}.json"
    shard.unlink()
    (d / f".{shard.name}.k1ll3d.tmp").write_bytes(b"{\"seed\": 1, trunc")
    again = run_experiment(cfg, out_dir=tmp_path / "r", backend="serial")
    assert again.n_run >= 1 and again.n_points == first.n_points
    pd.testing.assert_frame_equal(first.df.drop(columns="wall_s").reset_index(drop=True),
                                  again.df.drop(columns="wall_s").reset_index(drop=True))


@pytest.mark.parametrize("spec, cols", [
    ("demo:claim_no_errors", ["error"]),
    ("lazy_nfa:claim_matches_agree", ["matches_agree", "matches"]),
    ("lazy_nfa:claim_tree_vs_best_chain", ["f_c", "evals_tree", "evals_abc"]),
])
def test_b58c412_claims_fail_on_an_empty_table(spec, cols):
    """b58c412: these claims PASSED on a table without rows ('0 of 0 rows failed')."""
    from sim.experiments.functions import resolve

    fn = resolve(spec, "claims")
    res = fn(pd.DataFrame({c: pd.Series([], dtype=object) for c in cols}))
    assert not res.passed, res

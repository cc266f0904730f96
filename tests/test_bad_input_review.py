"""Bad inputs a new user hits: an engine option the chosen engine
ignores, a grid / zip axis whose values mix kinds, and corrupt or truncated stored results read
by ``check`` / ``figures`` / ``report``.  Each must end with exit 2 and a message naming the
option / key / file and the fix, never a traceback or silence.  The review pass behind these
cases is listed in ``docs/TESTING.md`` ("Bad input review")."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from csv_streams import write_abc_csv

from sim.cli import app

runner = CliRunner()
SEQ3 = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events"

# a demo config whose grid axis ``mu`` the tests fill in (the demo scenario needs no engine)
CFG = 'name = "review"\npaper = "demo"\nscenario = "demo:point"\nseed = 1\n' \
      '[params]\nn = 20\n[grid]\nmu = {mu}\n'


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def _no_traceback(r):
    assert "Traceback" not in (r.output + r.stderr)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch, repo_root):
    monkeypatch.chdir(repo_root)


# ------------------------------------------------------------------ engine options
@pytest.fixture()
def data(tmp_path):
    return write_abc_csv(tmp_path, n=200, seed=5)


def _match(data, tmp_path, *extra):
    p, schema = data
    return cli("match", SEQ3, p, "--format", "csv", "--schema", schema,
               "--out", tmp_path / "m.jsonl", *extra)


@pytest.mark.parametrize("engine,extra,flag,takers", [
    ("eager", ("--order", "c,a,b"), "--order", ["chain"]),
    ("ztree", ("--order", "c,a,b"), "--order", ["chain"]),
    ("eager", ("--plan", "((a,b),c)"), "--plan", ["hybrid", "ztree"]),
    ("chain", ("--trigger", "batch"), "--trigger", ["ztree"]),
    ("ztree", ("--max-states", "64"), "--max-states", ["eager"]),
])
def test_option_the_engine_ignores_is_refused(data, tmp_path, engine, extra, flag, takers):
    r = _match(data, tmp_path, "--engine", engine, *extra)
    assert r.exit_code == 2, r.output
    assert flag in r.stderr and repr(engine) in r.stderr
    assert all(t in r.stderr for t in takers), r.stderr
    assert not (tmp_path / "m.jsonl").exists()
    _no_traceback(r)


@pytest.mark.parametrize("engine,extra", [
    ("chain", ("--order", "c,a,b")),
    ("ztree", ("--plan", "((a,b),c)", "--trigger", "batch")),
    ("eager", ("--max-states", "64")),
])
def test_option_the_engine_takes_still_runs(data, tmp_path, engine, extra):
    r = _match(data, tmp_path, "--engine", engine, *extra)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "m.jsonl").exists()


# ------------------------------------------------------------------ grid axes mixing kinds
def test_grid_axis_mixing_kinds_is_refused_before_any_point(tmp_path):
    cfg = tmp_path / "review.toml"
    cfg.write_text(CFG.format(mu='[0.0, 1.0, "fast"]'))
    r = cli("run", cfg, "--out", tmp_path / "res")
    assert r.exit_code == 2, r.output
    assert "grid.mu" in r.stderr and "'fast'" in r.stderr and "string among numbers" in r.stderr
    assert not (tmp_path / "res").exists()      # nothing ran, nothing was written
    _no_traceback(r)


def test_set_grid_axis_mixing_kinds_is_refused(tmp_path):
    cfg = tmp_path / "review.toml"
    cfg.write_text(CFG.format(mu="[0.0, 1.0]"))
    r = cli("run", cfg, "--out", tmp_path / "res", "--set", 'grid.mu=[0.5, "x"]')
    assert r.exit_code == 2, r.output
    assert "grid.mu" in r.stderr and "'x'" in r.stderr
    assert not (tmp_path / "res").exists()
    _no_traceback(r)


def test_zip_and_nested_arrays_mixing_kinds_are_refused(tmp_path):
    from engines.errors import CepsimInputError
    from sim.experiments.config import config_from_dict

    base = {"name": "z", "paper": "t", "scenario": "demo:point", "seed": 1}
    with pytest.raises(CepsimInputError, match=r"zip\.label.*2 is a number among strings"):
        config_from_dict({**base, "zip": {"label": ["a", 2]}})
    with pytest.raises(CepsimInputError, match=r"grid\.order.*array elements mix kinds"):
        config_from_dict({**base, "grid": {"order": [["a", "b"], ["b", 1]]}})
    # integers and floats are one kind (one float column)
    config_from_dict({**base, "grid": {"mu": [0, 0.5, 2]}})


# ------------------------------------------------------------------ corrupt stored results
@pytest.fixture()
def stored(tmp_path):
    """A finished run of the shipped demo config under ``tmp_path/res`` (``report`` reads every
    shipped config's results): (config, results root, result dir)."""
    cfg = "experiments/demo/basic.toml"
    res = tmp_path / "res"
    r = cli("run", cfg, "--scale", "quick", "--out", res)
    assert r.exit_code == 0, r.output
    return cfg, res, res / "demo" / "basic"


def _truncate(path, keep=40):
    data = path.read_bytes()
    path.write_bytes(data[:keep])


@pytest.mark.parametrize("command", ["check", "figures", "report"])
def test_truncated_points_parquet(stored, command):
    cfg, res, d = stored
    _truncate(d / "points.parquet")
    r = cli(command, *([cfg] if command != "report" else []), "--out", res)
    assert r.exit_code == 2, r.output
    assert str(d / "points.parquet") in r.stderr and "corrupt or truncated" in r.stderr
    assert f"cepsim run {cfg} --scale quick" in r.stderr        # how to recompute it
    _no_traceback(r)


@pytest.mark.parametrize("command", ["check", "figures", "report"])
@pytest.mark.parametrize("content", ['{"scale": nu', "[1, 2]", "\xff\xfe"])
def test_corrupt_meta_json(stored, command, content):
    cfg, res, d = stored
    (d / "meta.json").write_bytes(content.encode("latin-1"))
    r = cli(command, *([cfg] if command != "report" else []), "--out", res)
    assert r.exit_code == 2, r.output
    assert str(d / "meta.json") in r.stderr and "Recompute them: cepsim run" in r.stderr
    _no_traceback(r)


def test_points_without_id_columns(stored):
    import pandas as pd

    cfg, res, d = stored
    df = pd.read_parquet(d / "points.parquet")
    df.drop(columns=["point_id"]).to_parquet(d / "points.parquet")
    r = cli("check", cfg, "--out", res)
    assert r.exit_code == 2 and "no column point_id" in r.stderr, r.output
    _no_traceback(r)


def test_recompute_command_repairs_corrupt_results(stored):
    cfg, res, d = stored
    _truncate(d / "points.parquet")
    assert cli("run", cfg, "--scale", "quick", "--out", res).exit_code == 0
    assert cli("check", cfg, "--out", res).exit_code == 0


# ------------------------------------------------------------------ found by the review pass
def test_run_out_is_a_file(tmp_path):
    f = tmp_path / "results.csv"
    f.write_text("x")
    r = cli("run", "experiments/demo/basic.toml", "--scale", "quick", "--out", f)
    assert r.exit_code == 2 and "--out" in r.stderr and "is a file" in r.stderr, r.output
    _no_traceback(r)


def test_calibrate_out_unwritable_before_measuring():
    # /proc refuses new entries even for root: refused before the (long) measurement starts
    r = cli("calibrate", "--out", "/proc/cepsim-nowhere/profile.toml", "--quick")
    assert r.exit_code == 2 and "--out" in r.stderr and "cannot write" in r.stderr, r.output
    assert "unit costs" not in r.stdout
    _no_traceback(r)

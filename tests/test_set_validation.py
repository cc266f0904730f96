"""``--set`` keys and value types are checked against the scenario's declared parameters
(``sim.experiments.params``) before anything runs: ``params.n_event=1000`` (a misspelled
``n_events``) stops with exit 2 instead of changing only the point's hash and seeds."""
from __future__ import annotations

import glob
import json

import pytest
from typer.testing import CliRunner

from engines.errors import CepsimInputError
from sim.cli import app
from sim.experiments.config import apply_overrides, load_config
from sim.experiments.params import declaration

CFG = """\
name = "t"
paper = "demo"
scenario = "demo:point"
seed = 5
[params]
n = 10
[grid]
mu = [0.0, 1.0]
[zip]
label = ["a", "b"]
sigma = [1.0, 2.0]
"""


@pytest.fixture()
def cfg(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(CFG)
    return load_config(p)


@pytest.mark.parametrize("ov, key, close", [("params.n_evnt=1000", "n_evnt", "n_events"),
                                            ("grid.muu=[1.0]", "muu", "mu"),
                                            ("zip.lable=[\"x\", \"y\"]", "lable", "label"),
                                            ("params.zzz=1", "zzz", None)])
def test_unknown_key_names_key_file_and_known_keys(cfg, ov, key, close):
    with pytest.raises(CepsimInputError) as ei:
        apply_overrides(cfg, [ov])
    msg = str(ei.value)
    assert f"unknown parameter '{key}'" in msg and str(cfg.path) in msg
    assert f"--set {ov.split('=')[0]}" in msg
    known = msg.split("known keys:")[1]
    for k in ("n", "mu", "label", "sigma", "sleep_s"):   # the demo scenario's declared keys
        assert k in known
    assert (f"did you mean '{close}'" in msg) if close else ("did you mean" not in msg)


def test_keys_the_scenario_reads_are_accepted(cfg):
    o = apply_overrides(cfg, ["params.sleep_s=0.0", "grid.fail_mu=[1.0]"])
    assert o.params["sleep_s"] == 0.0 and o.grid["fail_mu"] == [1.0]


@pytest.mark.parametrize("ov, needle", [
    ("params.n=abc", "got string 'abc'"),         # string for an integer
    ("params.n=1.5", "expects an integer"),
    ("params.n=true", "got boolean"),
    ("grid.mu=[0.5, \"x\"]", "expects a number"),
    ("params.sleep_s=\"long\"", "expects a number"),
    ("params.mu=[0.1, 0.2]", "grid.mu = [0.1, 0.2]"),  # an array where one value goes
    ("params.n=0", "out of range"),                # declared n >= 1
])
def test_bad_value_type_names_key_value_and_type(cfg, ov, needle):
    with pytest.raises(CepsimInputError) as ei:
        apply_overrides(cfg, [ov])
    msg = str(ei.value)
    assert needle in msg and "--set" in msg


def test_int_for_float_is_fine(cfg):
    assert apply_overrides(cfg, ["grid.mu=[1, 2]"]).grid["mu"] == [1, 2]


def test_declarations_cover_computed_and_looped_keys():
    """Keys the scenarios read under computed names or in loops are declared too."""
    assert {"t_pe", "t_rc", "base_cost"} <= set(declaration("apam:point").by_name)
    assert {"and_window", "plan_gen", "n_events"} <= set(declaration("adaptive:point").by_name)
    assert [f.prefix for f in declaration("basic:mg1_engine").families] == ["cal_"]
    assert [f.prefix for f in declaration("generic:point").families] == ["gen_"]


def test_every_shipped_config_accepts_its_own_keys(repo_root):
    """Each shipped config's own keys and values pass the --set check (value parsed back from
    its TOML text, as --set does)."""
    from sim.experiments.config import parse_override_value
    for p in sorted(glob.glob(str(repo_root / "experiments/*/*.toml"))):
        cfg = load_config(p, check_functions=False)
        d = cfg.to_dict()
        sets = [f"{part}.{k}={json.dumps(v)}" for part in ("params", "grid", "zip")
                for k, v in d[part].items()]
        for ov in sets:
            parse_override_value(ov.partition("=")[2])
        assert apply_overrides(cfg, sets).to_dict()["params"] == d["params"], p
    # and through apply_overrides for one config
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    assert apply_overrides(cfg, ["params.n=60", "zip.label=[\"p\", \"q\"]"]).params["n"] == 60


def test_cli_unknown_key_exits_2_before_running(tmp_path, repo_root):
    r = CliRunner().invoke(app, ["run", str(repo_root / "experiments/demo/basic.toml"), "--scale",
                                 "quick", "--out", str(tmp_path / "res"), "--set",
                                 "params.n_event=1000"])
    assert r.exit_code == 2 and "unknown parameter 'n_event'" in r.stderr
    assert "did you mean 'n_events'" in r.stderr
    assert "Traceback" not in r.output + r.stderr
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("config, ov, needle", [
    ("basic/mg1_validation.toml", "grid.rho=[-0.5, 0.5]", "-0.5 is out of range; give a value "
                                                          "in (0, 1)"),
    ("basic/mg1_validation.toml", "params.n_events=0", "0 is out of range; give a value >= 1"),
    ("basic/mg1_validation.toml", "grid.service=[\"exp\", \"foo\"]",
     "'foo' is not among the accepted values; give one of \"exp\", \"det\""),
    ("apam/exp1.toml", "grid.rate=[-1.0]", "-1.0 is out of range; give a value > 0"),
])
def test_impossible_values_exit_2_before_any_point_runs(tmp_path, repo_root, config, ov, needle):
    """A declared range is checked before any point runs: one error naming the file, the key
    and the fix, exit 2, nothing written."""
    r = CliRunner().invoke(app, ["run", str(repo_root / "experiments" / config), "--scale",
                                 "quick", "--out", str(tmp_path / "res"), "--figures-dir",
                                 str(tmp_path / "figs"), "--set", ov])
    assert r.exit_code == 2, r.output + r.stderr
    assert needle in r.stderr and f"--set {ov.split('=')[0]}" in r.stderr
    assert "Traceback" not in r.output + r.stderr
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("*.parquet"))


def test_check_params_still_catches_what_no_single_key_declares(tmp_path, repo_root):
    """Checks over several keys stay the scenario's (``check_params``, run on every point
    first): apam's n_warmup must lie below n_events."""
    r = CliRunner().invoke(app, ["run", str(repo_root / "experiments/apam/exp1.toml"), "--scale",
                                 "quick", "--out", str(tmp_path / "res"), "--figures-dir",
                                 str(tmp_path / "figs"), "--set", "params.n_warmup=10000000"])
    assert r.exit_code == 2, r.output + r.stderr
    assert "n_warmup must lie in" in r.stderr and "nothing was run" in r.stderr
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("*.parquet"))

"""``--set`` keys and value types are checked against what the config and its scenario accept,
before anything runs (``sim/experiments/paramkeys.py``; issue 14: ``params.n_event=1000`` was accepted)."""
from __future__ import annotations

import glob
import json

import pytest
from typer.testing import CliRunner

from engines.errors import CepsimInputError
from sim.cli import app
from sim.experiments.config import apply_overrides, load_config
from sim.experiments.paramkeys import scenario_keys

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


@pytest.mark.parametrize("ov, key, close", [("params.n_event=1000", "n_event", None),
                                            ("grid.muu=[1.0]", "muu", "mu"),
                                            ("zip.lable=[\"x\", \"y\"]", "lable", "label")])
def test_unknown_key_names_key_file_and_known_keys(cfg, ov, key, close):
    with pytest.raises(CepsimInputError) as ei:
        apply_overrides(cfg, [ov])
    msg = str(ei.value)
    assert f"unknown parameter '{key}'" in msg and str(cfg.path) in msg
    known = msg.split("known keys:")[1]
    for k in ("n", "mu", "label", "sigma", "sleep_s"):   # config keys and scenario-read keys
        assert k in known
    assert (f"did you mean '{close}'" in msg) if close else ("did you mean" not in msg)


def test_keys_the_scenario_reads_are_accepted(cfg):
    o = apply_overrides(cfg, ["params.sleep_s=0.0", "grid.fail_mu=[1.0]"])
    assert o.params["sleep_s"] == 0.0 and o.grid["fail_mu"] == [1.0]


@pytest.mark.parametrize("ov, needle", [
    ("params.n=abc", "'n' of"),                  # string for an integer
    ("params.n=1.5", "expects an integer"),
    ("params.n=true", "got boolean"),
    ("grid.mu=[0.5, \"x\"]", "expects a number"),
    ("zip.label=[1, 2]", "expects a string"),
    ("params.sleep_s=\"long\"", "expects a number"),   # type from the scenario's float(...)
    ("params.mu=[0.1, 0.2]", "grid.mu=[0.1, 0.2]"),  # an array where one value goes
])
def test_bad_value_type_names_key_value_and_type(cfg, ov, needle):
    with pytest.raises(CepsimInputError) as ei:
        apply_overrides(cfg, [ov])
    msg = str(ei.value)
    assert needle in msg and "--set" in msg


def test_int_for_float_is_fine(cfg):
    assert apply_overrides(cfg, ["grid.mu=[1, 2]"]).grid["mu"] == [1, 2]


def test_scan_finds_computed_and_looped_keys():
    apam, _ = scenario_keys("apam:point")
    assert {"t_pe", "t_rc", "base_cost"} <= set(apam)           # loop over DEFAULT_COSTS
    adaptive, _ = scenario_keys("adaptive:point")
    assert {"and_window", "plan_gen", "n_events"} <= set(adaptive)
    assert scenario_keys("basic:mg1_engine")[1] == ("cal_",)
    assert scenario_keys("generic:point")[1] == ("gen_",)


def test_every_shipped_config_accepts_its_own_keys(repo_root):
    """Each shipped config's own keys and values pass the --set check (value parsed back from
    its TOML text, as --set does)."""
    from sim.experiments.config import parse_override_value
    from sim.experiments.paramkeys import check_override
    for p in sorted(glob.glob(str(repo_root / "experiments/*/*.toml"))):
        cfg = load_config(p, check_functions=False)
        d = cfg.to_dict()
        for part in ("params", "grid", "zip"):
            for k, v in d[part].items():
                value = parse_override_value(json.dumps(v))
                check_override(d, cfg.scenario, p, f"--set {part}.{k}", part, k, value)
    # and through apply_overrides for one config
    cfg = load_config(repo_root / "experiments/demo/basic.toml")
    assert apply_overrides(cfg, ["params.n=60", "zip.label=[\"p\", \"q\"]"]).params["n"] == 60


def test_cli_unknown_key_exits_2_before_running(tmp_path, repo_root):
    r = CliRunner().invoke(app, ["run", str(repo_root / "experiments/demo/basic.toml"), "--scale",
                                 "quick", "--out", str(tmp_path / "res"), "--set",
                                 "params.n_event=1000"])
    assert r.exit_code == 2 and "unknown parameter 'n_event'" in r.stderr
    assert "Traceback" not in r.output + r.stderr
    assert not (tmp_path / "res").exists()


@pytest.mark.parametrize("config, ov, needle", [
    ("basic/mg1_validation.toml", "grid.rho=[-0.5, 0.5]", "rho must be in (0, 1)"),
    ("basic/mg1_validation.toml", "params.n_events=0", "n_events must be >= 1"),
    ("basic/mg1_validation.toml", "grid.service=[\"exp\", \"foo\"]", "service must be 'exp' or"),
    ("apam/exp1.toml", "grid.rate=[-1.0]", "rate must be > 0"),
])
def test_impossible_values_exit_2_before_any_point_runs(tmp_path, repo_root, config, ov, needle):
    """A scenario's check_params runs on every point first: one error naming the parameter and
    the offending points, exit 2, nothing written (was: every point failed, exit 1)."""
    r = CliRunner().invoke(app, ["run", str(repo_root / "experiments" / config), "--scale",
                                 "quick", "--out", str(tmp_path / "res"), "--figures-dir",
                                 str(tmp_path / "figs"), "--set", ov])
    assert r.exit_code == 2, r.output + r.stderr
    assert needle in r.stderr and "nothing was run" in r.stderr
    assert "Traceback" not in r.output + r.stderr
    assert not (tmp_path / "res").exists() or not any((tmp_path / "res").rglob("*.parquet"))

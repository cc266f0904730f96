"""Config loading/validation, scales, overrides, grid expansion and seed derivation."""
from __future__ import annotations

import random
import textwrap

import numpy as np
import pytest

from engines.errors import CepsimInputError
from sim.experiments.config import (apply_overrides, apply_scale, config_from_dict, expand_points, load_config,
                        point_hash, point_seed)

GOOD = textwrap.dedent("""\
    name = "t"
    paper = "demo"
    title = "test"
    scenario = "demo:point"
    seed = 5
    seeds = 2
    [params]
    n = 10
    [grid]
    mu = [0.0, 1.0, 2.0]
    sigma = [1.0, 2.0]
    [zip]
    n_events = [1, 2]
    label = ["x", "y"]
    [scale.quick]
    params = { n = 3 }
    seeds = 1
    [[claims]]
    name = "c"
    kind = "extension"
    fn = "demo:claim_no_errors"
    [[figures]]
    name = "f"
    fn = "common:line_plot"
    args = { x = "mu", y = "sample_mean" }
    """)


def write(tmp_path, text, name="c.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_good_config_loads_and_expands(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.key == "demo/t" and cfg.seeds == 2
    pts = expand_points(cfg)
    assert len(pts) == 3 * 2 * 2 * 2  # grid 3x2, zip 2 rows, 2 seeds
    # zip keys vary together
    assert {(p.params["n_events"], p.params["label"]) for p in pts} == {(1, "x"), (2, "y")}
    assert len({(p.point_id, p.rep) for p in pts}) == len(pts)
    assert len({p.seed for p in pts}) == len(pts)


@pytest.mark.parametrize("mutate, key_text", [
    (lambda t: t + 'colour = "red"\n', "colour"),
    (lambda t: t.replace('seed = 5', 'seed = "five"'), "seed"),
    (lambda t: t.replace('seeds = 2', 'seeds = 0'), "seeds"),
    (lambda t: t.replace('mu = [0.0, 1.0, 2.0]', 'mu = []'), "grid.mu"),
    (lambda t: t.replace('mu = [0.0, 1.0, 2.0]', 'mu = 1.0'), "grid.mu"),
    (lambda t: t.replace('label = ["x", "y"]', 'label = ["x"]'), "zip"),
    (lambda t: t.replace('[scale.quick]', '[scale.huge]'), "scale.huge"),
    (lambda t: t.replace('scenario = "demo:point"', 'scenario = "nosuchmod:point"'), "scenario"),
    (lambda t: t.replace('scenario = "demo:point"', 'scenario = "demo:nosuchfn"'), "scenario"),
    (lambda t: t.replace('scenario = "demo:point"', 'scenario = "demo.point"'), "scenario"),
    (lambda t: t.replace('fn = "demo:claim_no_errors"', 'fn = "demo:nope"'), "claims[0].fn"),
    (lambda t: t.replace('fn = "common:line_plot"', 'fn = "nofigs:x"'), "figures[0].fn"),
    (lambda t: t.replace('n = 10', 'n = 10\nmu = 3'), "mu"),
    (lambda t: t.replace('[[claims]]\nname = "c"', '[[claims]]\nnam = "c"'), "claims[0].nam"),
])
def test_invalid_configs_name_file_and_key(tmp_path, mutate, key_text):
    p = write(tmp_path, mutate(GOOD))
    with pytest.raises(CepsimInputError) as ei:
        load_config(p)
    msg = str(ei.value)
    assert str(p) in msg
    assert f"'{key_text}" in msg or key_text in msg


@pytest.mark.parametrize("mutate, key_text, needle", [
    (lambda t: t.replace('n = 10', 'n = 10\nsigmaa = 1.0'), "[params].sigmaa",
     "unknown parameter 'sigmaa' for scenario demo:point; did you mean 'sigma'"),
    (lambda t: t.replace('n = 10', 'n = "ten"'), "[params].n",
     "expects an integer (type int), got string 'ten'; write an integer"),
    (lambda t: t.replace('n = 10', 'n = 0'), "[params].n", "0 is out of range; give a value >= 1"),
    (lambda t: t.replace('sigma = [1.0, 2.0]', 'sigma = [true, false]'), "grid.sigma",
     "expects a number (type float), got boolean True"),
    (lambda t: t.replace('sigma = [1.0, 2.0]', 'sigma = [1.0, -2.0]'), "grid.sigma",
     "-2.0 is out of range; give a value >= 0"),
    (lambda t: t.replace('label = ["x", "y"]', 'lable = ["x", "y"]'), "zip.lable",
     "did you mean 'label'"),
    (lambda t: t.replace('params = { n = 3 }', 'params = { n = 3, nn = 1 }'),
     "scale.quick.params.nn", "unknown parameter 'nn'"),
    (lambda t: t.replace('params = { n = 3 }', 'params = { n = 3.5 }'),
     "scale.quick.params.n", "expects an integer"),
])
def test_declared_parameters_checked_on_load(tmp_path, mutate, key_text, needle):
    """Every [params] / [grid] / [zip] / [scale.*] key of a file is checked against the
    scenario's declared parameters (sim.experiments.params) when the file loads."""
    p = write(tmp_path, mutate(GOOD))
    for check in (True, False):
        with pytest.raises(CepsimInputError) as ei:
            load_config(p, check_functions=check)
        msg = str(ei.value)
        assert msg.startswith(f"{p}: key '{key_text}': ") and needle in msg, msg


def test_undeclared_scenario_accepts_its_keys(tmp_path):
    """A scenario outside sim/studies (dotted module) has no declaration: keys as written."""
    from sim.experiments.params import declaration
    assert declaration("mypkg.mystudy:point") is None
    d = config_from_dict({"name": "x", "paper": "t", "scenario": "mypkg.mystudy:point",
                          "seed": 1, "params": {"anything": 1}}, check_functions=False)
    from sim.experiments.params import validate_config
    validate_config(d.to_dict(), "<x>")      # no error: nothing to check against


def test_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(CepsimInputError, match="not found"):
        load_config(tmp_path / "nope.toml")
    p = write(tmp_path, GOOD.replace('seed = 5', 'seed = = 5'))
    with pytest.raises(CepsimInputError, match="TOML syntax error.*line"):
        load_config(p)


def test_scale_and_overrides(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    q = apply_scale(cfg, "quick")
    assert q.params["n"] == 3 and q.seeds == 1 and list(q.params) == ["n"]
    assert apply_scale(cfg, "full") == cfg  # no [scale.full]: unchanged
    with pytest.raises(CepsimInputError, match="unknown scale"):
        apply_scale(cfg, "medium")
    o = apply_overrides(q, ["params.n=1000", "grid.mu=[0.1, 0.2]", "seed=3",
                              "zip.label=[\"p\", \"q\"]"])
    assert o.params["n"] == 1000 and o.grid["mu"] == [0.1, 0.2] and o.seed == 3
    assert o.zip["label"] == ["p", "q"]
    # moving a key from grid to params
    o2 = apply_overrides(cfg, ["params.mu=7.0"])
    assert "mu" not in o2.grid and o2.params["mu"] == 7.0
    # bare words are strings
    assert apply_overrides(cfg, ["title=hello"]).title == "hello"


@pytest.mark.parametrize("ov, needle", [
    ("params.n", "key=value"),
    ("seed=abc", "'seed'"),
    ("grid.mu=[]", "grid.mu"),
    ("grid.mu=[1,", "not a TOML value"),
    ("nosuch=1", "cannot be set"),
    ("params.a.b=1", "cannot be set"),
    ("zip.n_events=[1,2,3]", "equal length"),
])
def test_bad_overrides(tmp_path, ov, needle):
    cfg = load_config(write(tmp_path, GOOD))
    with pytest.raises(CepsimInputError, match=None) as ei:
        apply_overrides(cfg, [ov])
    assert needle in str(ei.value)
    assert "--set" in str(ei.value) or "with --set" in str(ei.value)


def test_seed_derivation_independent_of_order(tmp_path):
    cfg = load_config(write(tmp_path, GOOD))
    pts = expand_points(cfg)
    by_key = {(p.point_id, p.rep): p.seed for p in pts}
    # reorder the grid lists and the zip rows: same points, same seeds
    raw = cfg.to_dict()
    raw["grid"] = {"sigma": [2.0, 1.0], "mu": [2.0, 0.0, 1.0]}
    raw["zip"] = {"label": ["y", "x"], "n_events": [2, 1]}
    cfg2 = config_from_dict(raw)
    pts2 = expand_points(cfg2)
    random.Random(0).shuffle(pts2)
    assert {(p.point_id, p.rep): p.seed for p in pts2} == by_key
    # and a seed is exactly the documented SeedSequence derivation
    p = pts[0]
    assert p.point_id == point_hash(p.params)
    ss = np.random.SeedSequence(cfg.seed, spawn_key=(int(p.point_id, 16) % 2 ** 63, p.rep))
    assert p.seed == int(ss.generate_state(1)[0]) == point_seed(cfg.seed, p.point_id, p.rep)
    # the base seed matters, the parameters matter
    assert point_seed(6, p.point_id, p.rep) != p.seed
    assert point_hash({"mu": 1}) != point_hash({"mu": 1.0})

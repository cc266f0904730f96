"""Declared scenario parameters (``sim.experiments.params``, ``sim/studies/*/params.py``): every
shipped config loads against them, every declared default is the default the scenario's code
uses, and the type / range / choice checks say what is wrong and how to fix it."""
from __future__ import annotations

import ast
import glob
import importlib
import inspect

import pytest
from typer.testing import CliRunner

from engines.errors import CepsimInputError
from sim.cli import app
from sim.experiments.config import load_config
from sim.experiments.functions import module_name
from sim.experiments.params import (Declaration, Family, Param, all_declarations, declaration,
                                    validate)

#: the scenario modules whose code reads a declaration's keys (besides the study's own)
EXTRA_MODULES = {"darling_cap:point": ("sim.studies.darling.scenario",)}
#: helpers called as helper(params, "key", default, kind)
HELPERS = ("_p", "_get")
PARAM_NAMES = ("params", "p")


def test_every_shipped_config_loads(repo_root):
    paths = sorted(glob.glob(str(repo_root / "experiments/*/*.toml")))
    assert len(paths) > 40
    for p in paths:
        load_config(p, check_functions=False)


def test_every_shipped_scenario_is_declared(repo_root):
    names = set()
    for p in glob.glob(str(repo_root / "experiments/*/*.toml")):
        names.add(load_config(p, check_functions=False).scenario)
    decls = all_declarations()
    assert names <= set(decls), sorted(names - set(decls))
    for name, decl in decls.items():
        assert decl.scenario == name and declaration(name) is decl


def _modules_of(scenario: str) -> list:
    short = scenario.split(":")[0]
    names = (module_name(short, "scenario"),) + EXTRA_MODULES.get(scenario, ())
    return [importlib.import_module(n) for n in names]


def _default(node: ast.AST | None, mod):
    """The value of a default expression: a literal, or a module-level name / expression of
    module names; None when it depends on the call (computed at run time) or is absent."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    try:
        return eval(compile(ast.Expression(node), "<default>", "eval"), vars(mod).copy())
    except Exception:
        return None


def _reads(mod) -> tuple[dict, set]:
    """(key -> set of defaults of ``params.get("k", d)`` / ``_p(params, "k", d)``, keys read
    only by ``params["k"]`` or ``"k" in params``) of a module's source."""
    tree = ast.parse(inspect.getsource(mod))
    got: dict = {}
    plain: set = set()

    def key(node):
        return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            else None

    def is_params(node):
        return isinstance(node, ast.Name) and node.id in PARAM_NAMES

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "get" and is_params(f.value) \
                    and node.args and key(node.args[0]):
                d = node.args[1] if len(node.args) > 1 else None
                got.setdefault(key(node.args[0]), []).append(_default(d, mod))
            elif isinstance(f, ast.Name) and f.id in HELPERS and len(node.args) >= 2 \
                    and is_params(node.args[0]) and key(node.args[1]):
                d = node.args[2] if len(node.args) > 2 else None
                got.setdefault(key(node.args[1]), []).append(_default(d, mod))
        elif isinstance(node, ast.Subscript) and is_params(node.value) and key(node.slice):
            plain.add(key(node.slice))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and \
                isinstance(node.ops[0], (ast.In, ast.NotIn)) and is_params(node.comparators[0]) \
                and key(node.left):
            plain.add(key(node.left))
    return got, plain - set(got)


def _norm(v):
    return [_norm(x) for x in v] if isinstance(v, (list, tuple)) else v


@pytest.mark.parametrize("scenario", sorted(all_declarations()))
def test_declared_defaults_are_the_code_defaults(scenario):
    decl = declaration(scenario)
    study_decls = [d for d in all_declarations().values()
                   if _modules_of(d.scenario)[0] is _modules_of(scenario)[0]]
    declared_anywhere = set().union(*(set(d.by_name) for d in study_decls))
    for mod in _modules_of(scenario):
        got, plain = _reads(mod)
        # every key the module reads by name is declared by one of its scenarios
        missing = sorted(k for k in set(got) | plain if k not in declared_anywhere
                         and not any(d.family_of(k) for d in study_decls))
        assert not missing, f"{mod.__name__} reads undeclared keys {missing}"
        for k, defaults in got.items():
            if k not in decl.by_name:
                continue
            # params.get("k") without a default next to params.get("k", d) is a presence test
            literal = [d for d in defaults if d is not None] or [None]
            for d in literal:
                assert _norm(decl.by_name[k].default) == _norm(d), (scenario, k, d)
        for k in plain:
            if k in decl.by_name:
                assert decl.by_name[k].default is None, (scenario, k)


def test_param_checks_name_what_is_wrong_and_the_fix():
    decl = Declaration("x:point", params=(
        Param("n", "int", 1, "count", low=1),
        Param("p", "float", 0.5, "probability", low=0, high=1),
        Param("m", "string", "a", "mode", choices=("a", "b")),
        Param("on", "boolean", False, "switch"),
        Param("xs", "array", [], "values"),
    ), families=(Family("gen_", "any", "generator keyword"),))
    ok = {"n": 3, "p": 1, "m": "b", "on": True, "xs": [1, 2], "gen_anything": "z"}
    validate(decl, ok, "f.toml", "params")
    validate(decl, {k: [v] for k, v in ok.items()}, "f.toml", "grid")
    cases = [
        ({"nn": 1}, "params", "f.toml: key '[params].nn': unknown parameter 'nn' for scenario "
                              "x:point; did you mean 'n'?"),
        ({"n": 1.0}, "params", "expects an integer (type int), got float 1.0; write an integer"),
        ({"n": True}, "params", "got boolean True"),
        ({"p": True}, "params", "expects a number (type float), got boolean True"),
        ({"p": 1.5}, "scale.quick.params", "key 'scale.quick.params.p': 1.5 is out of range; "
                                           "give a value in [0, 1]"),
        ({"n": [1, 0]}, "zip", "key 'zip.n': 0 is out of range; give a value >= 1"),
        ({"m": "c"}, "--set params", "key '--set params.m': 'c' is not among the accepted "
                                     "values; give one of \"a\", \"b\""),
        ({"n": [1, 2]}, "params", "give one value, or sweep them with grid.n = [1, 2]"),
        ({"on": 1}, "params", "expects a boolean"),
        ({"xs": 1}, "params", "expects an array"),
    ]
    for mapping, part, needle in cases:
        with pytest.raises(CepsimInputError) as ei:
            validate(decl, mapping, "f.toml", part)
        assert needle in str(ei.value), str(ei.value)


def test_generic_pattern_placeholders_are_accepted(tmp_path):
    """A key the generic scenario's pattern names as {name} is a parameter of the point."""
    cfg = tmp_path / "g.toml"
    text = ('name = "g"\npaper = "t"\nscenario = "generic:point"\nseed = 1\n[params]\n'
            'pattern = "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN {w} events"\n'
            'generator = "uniform"\ngen_types = "A,B"\ngen_attrs = "x"\nn_events = 100\n'
            'rate = 10.0\n[grid]\nw = [2, 4]\n')
    cfg.write_text(text)
    assert load_config(cfg, check_functions=False).grid["w"] == [2, 4]
    cfg.write_text(text.replace("[grid]\nw =", "[grid]\nww ="))
    with pytest.raises(CepsimInputError, match=r"key 'grid\.ww': unknown parameter 'ww'.*"
                                               r"did you mean 'w'"):
        load_config(cfg, check_functions=False)


def test_list_scenarios_prints_declared_parameters():
    r = CliRunner().invoke(app, ["list", "scenarios"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "eires:point" in out and "darling_cap:point" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("omega_fetch"))
    assert "float" in line and "0.7" in line and "[0, 1]" in line
    assert "parameter" in out and "default" in out and "meaning" in out

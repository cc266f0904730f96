"""Every shipped experiment config (``experiments/**/*.toml``, discovered, not listed) is valid:
it loads with every scenario / claim / figure function resolved, both scales expand to points,
every claim and figure accepts the config's ``args`` by name (a misspelt argument swallowed by
``**kwargs`` fails too), no claim passes on an empty result table, and every figure is drawn
from synthetic results shaped like its scenario's rows (files written, axes labelled).

New configs are picked up automatically; a new scenario needs a row builder in
``tests/result_fixtures.py`` so its figures can be drawn.
"""
from __future__ import annotations

import inspect
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from result_fixtures import BUILDERS, fixture_results, has_fixture, stored_results_path
from sim.experiments.claims import check_experiment
from sim.experiments.config import SCALES, apply_scale, expand_points, load_config, param_names
from sim.experiments.functions import resolve

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "experiments").glob("*/*.toml"))
IDS = [str(p.relative_to(REPO / "experiments")) for p in CONFIGS]


def test_configs_are_discovered():
    assert len(CONFIGS) >= 14, [str(p) for p in CONFIGS]


@pytest.fixture(scope="module", params=CONFIGS, ids=IDS)
def cfg(request):
    return load_config(request.param)          # check_functions=True: every fn resolves


def _check_args(fn, args: dict, fixed: tuple, where: str) -> None:
    sig = inspect.signature(fn)
    named = [n for n, p in sig.parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [a for a in args if a not in named[len(fixed):]]
    assert not unknown, (f"{where}: argument(s) {unknown} are not parameters of "
                         f"{fn.__module__}.{fn.__name__}{sig}")
    sig.bind(*fixed, **args)                   # and nothing required is missing


def test_config_loads_scales_and_expands(cfg):
    assert cfg.path.stem == cfg.name, f"{cfg.path}: name {cfg.name!r} differs from the file name"
    assert cfg.path.parent.name == cfg.paper, f"{cfg.path}: paper {cfg.paper!r} differs from folder"
    scenario = resolve(cfg.scenario, "scenario")
    params = list(inspect.signature(scenario).parameters)
    assert params[:2] == ["params", "seed"], f"{cfg.scenario} must take (params, seed): {params}"
    counts = {}
    for scale in SCALES:
        scaled = apply_scale(cfg, scale)
        points = expand_points(scaled)
        assert points, f"{cfg.path} [scale.{scale}] expands to no point"
        counts[scale] = len(points)
        for name in param_names(scaled):
            assert all(name in p.params for p in points)
    assert counts["quick"] <= counts["full"], f"{cfg.path}: quick scale larger than full {counts}"


def test_claim_and_figure_arguments_exist(cfg):
    for i, c in enumerate(cfg.claims):
        fn = resolve(c.fn, "claims")
        _check_args(fn, c.args, (pd.DataFrame(),), f"{cfg.path} claims[{i}] {c.fn}")
    for i, f in enumerate(cfg.figures):
        fn = resolve(f.fn, "figures")
        _check_args(fn, f.args, (pd.DataFrame(), Path("x")), f"{cfg.path} figures[{i}] {f.fn}")
    names = [c.name for c in cfg.claims] + [f.name for f in cfg.figures]
    assert len(names) == len(set(names)), f"{cfg.path}: duplicate claim/figure names {names}"


def test_no_claim_passes_on_an_empty_table(cfg):
    """A claim with no rows to look at must FAIL (or raise, which the table shows as FAIL)."""
    cols = param_names(cfg) + ["seed", "rep", "point_id", "error", "wall_s"]
    empty = pd.DataFrame({c: pd.Series([], dtype=object) for c in cols})
    for (name, res), spec in zip(check_experiment(cfg, empty), cfg.claims):
        assert not res.passed, (f"{cfg.path}: claim '{name}' ({spec.fn}) PASSES on an empty "
                                f"table: {res.measured}")


_DRAWN: set = set()       # (fn, args, scenario) already drawn in this process: draw each once


@pytest.mark.slow
def test_figures_drawn_from_fixture_results(cfg, tmp_path, monkeypatch):
    if not cfg.figures:
        return
    assert has_fixture(cfg), (f"{cfg.path}: no synthetic row builder for scenario "
                              f"{cfg.scenario!r} and no stored quick-scale results "
                              f"({stored_results_path(cfg)}); see tests/result_fixtures.py")
    df = fixture_results(cfg)
    todo = [f for f in cfg.figures
            if (f.fn, repr(sorted(f.args.items())), cfg.scenario) not in _DRAWN]
    kept = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    try:
        for f in todo:
            _DRAWN.add((f.fn, repr(sorted(f.args.items())), cfg.scenario))
            fn = resolve(f.fn, "figures")
            kept.clear()
            out = fn(df.copy(), tmp_path / f.name, **f.args)
            assert out, f"{f.fn} returned no file"
            for path in out:
                path = Path(path)
                assert path.is_file() and path.stat().st_size > 1000, f"{f.fn}: {path} missing"
            assert kept, f"{f.fn} did not save a figure through sim.experiments.figures.save"
            fig = kept[-1]
            drawn = [ax for ax in fig.axes if ax.axison and (ax.lines or ax.patches
                                                             or ax.collections)]
            assert drawn, f"{f.fn}: no axes with data"
            for ax in drawn:
                # x: a label, or categorical tick labels (e.g. one bar per plan)
                ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
                categorical = bool(ticks) and any(c.isalpha() for t in ticks for c in t)
                shared = any(o.get_xlabel().strip()
                             for o in ax.get_shared_x_axes().get_siblings(ax))
                assert ax.get_ylabel().strip() and (shared or categorical), (
                    f"{f.fn}: an axes without axis labels (title {ax.get_title()!r})")
    finally:
        monkeypatch.setattr(plt, "close", real_close)
        plt.close("all")

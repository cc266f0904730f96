"""Sweep warm-up: one point per kernel key runs in the parent before fanning out."""
from __future__ import annotations

from sim.experiments.config import config_from_dict, expand_points
from sim.experiments.warmup import split_warmup


def test_one_warm_point_per_engine_of_a_generic_grid():
    cfg = config_from_dict({"name": "w", "paper": "t", "scenario": "generic:point", "seed": 1,
                            "params": {"pattern": "PATTERN SEQ(A a, B b) WITHIN 5 events",
                                       "generator": "uniform", "n_events": 10},
                            "grid": {"engine": ["eager", "chain order=a,b", "chain order=b,a",
                                                "tree"], "rate": [1.0, 2.0, 3.0]}})
    pts = expand_points(cfg)
    warm, rest = split_warmup(cfg, pts)
    # chain with two orders shares one kernel: 3 kernel keys, not 4
    assert [p.params["engine"].split()[0] for p in warm] == ["eager", "chain", "tree"]
    assert len(warm) + len(rest) == len(pts) and not set(map(id, warm)) & set(map(id, rest))


def test_default_key_uses_engine_like_parameters_only():
    cfg = config_from_dict({"name": "w", "paper": "t", "scenario": "demo:point", "seed": 1,
                            "grid": {"mu": [0.0, 1.0], "my_engine": ["x", "y"]}})
    warm, rest = split_warmup(cfg, expand_points(cfg))
    assert sorted(p.params["my_engine"] for p in warm) == ["x", "y"] and len(rest) == 2
    cfg2 = config_from_dict({"name": "w", "paper": "t", "scenario": "demo:point", "seed": 1,
                             "grid": {"mu": [0.0, 1.0, 2.0]}})
    warm2, rest2 = split_warmup(cfg2, expand_points(cfg2))
    assert len(warm2) == 1 and len(rest2) == 2


def test_plan_sweep_runs_shared_work_once_before_its_dependents():
    """Generic grid: one warm point per kernel, then one point per (engine spec) counter key in
    parallel, and the other rates of that spec only after it (they load its cached counters)."""
    from sim.experiments.warmup import plan_sweep

    cfg = config_from_dict({"name": "w", "paper": "t", "scenario": "generic:point", "seed": 1,
                            "params": {"pattern": "PATTERN SEQ(A a, B b) WITHIN 5 events",
                                       "generator": "uniform", "n_events": 10},
                            "grid": {"engine": ["eager", "chain order=a,b", "chain order=b,a"],
                                     "rate": [1.0, 2.0, 3.0]}})
    pts = expand_points(cfg)
    plan = plan_sweep(cfg, pts)
    spec = lambda p: p.params["engine"]  # noqa: E731
    assert [spec(p) for p in plan.warm] == ["eager", "chain order=a,b"]
    assert [spec(p) for p in plan.first] == ["chain order=b,a"]
    assert [[spec(q) for q in a] for a in plan.after] == [["chain order=b,a"] * 2]
    # the warm points' own specs already have their counters: their other rates are free
    assert sorted(spec(p) for p in plan.free) == ["chain order=a,b"] * 2 + ["eager"] * 2
    every = plan.warm + plan.first + [q for a in plan.after for q in a] + plan.free
    assert sorted(p.point_id for p in every) == sorted(p.point_id for p in pts)
    assert plan.parallel_count() == len(pts) - len(plan.warm)


def test_plan_sweep_without_work_key_is_the_warm_split():
    from sim.experiments.warmup import plan_sweep

    cfg = config_from_dict({"name": "w", "paper": "t", "scenario": "demo:point", "seed": 1,
                            "grid": {"mu": [0.0, 1.0, 2.0]}})
    pts = expand_points(cfg)
    plan = plan_sweep(cfg, pts)
    warm, rest = split_warmup(cfg, pts)
    assert plan.warm == warm and plan.free == rest and not plan.first and not plan.after

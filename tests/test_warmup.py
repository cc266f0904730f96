"""Sweep warm-up: one point per kernel key runs in the parent before fanning out."""
from __future__ import annotations

from sim.config import config_from_dict, expand_points
from sim.warmup import split_warmup


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

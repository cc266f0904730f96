"""Synthetic result tables shaped like each scenario's rows, for figure and config tests.

``fixture_results(cfg)`` expands the config's quick-scale grid (so the grid columns and their
values are the config's own) and fills every point with made-up metrics of the columns the
scenario writes (``BUILDERS``, keyed by the config's ``scenario``).  A scenario without a
builder is drawn from a stored copy of a real quick-scale run instead:
``tests/data/results/<paper>/<name>.parquet`` (the ``points.parquet`` that ``cepsim run CONFIG
--scale quick`` wrote; refresh it with ``python tests/result_fixtures.py CONFIG...`` after a
run).  A new scenario needs one or the other before ``tests/test_shipped_configs.py`` can draw
its figures.
"""
from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from sim.experiments.config import ExperimentConfig, apply_scale, expand_points


def _apam(p: dict, rng) -> dict:
    n_vars = 5
    L = n_vars
    rate = float(p.get("rate", 1000))
    row: dict = {"rate_hat": rate * (1 + rng.normal(0, 0.01)), "t_seq_s": 7e-7,
                 "seq_over_pe": 1.0, "optimal_order": "EDCBA", "n_plans": L + 1}
    if "experiment" not in p:
        row["experiment"] = 1
    names = "abcde"
    lats = {}
    for k in range(L + 1):
        eager = ",".join(names[:k])
        lazy = ",".join(reversed(names[k:]))
        row[f"k{k}_plan"] = f"{eager}/{lazy}"
        st = 1e-4 * (1 + k) * rng.uniform(0.9, 1.1)
        qwt = st * rate / 5000.0 * (1 + k)
        row[f"k{k}_qwt"] = qwt
        row[f"k{k}_st"] = st
        row[f"k{k}_lat"] = qwt + st
        row[f"k{k}_lat_p50"] = (qwt + st) * 0.8
        row[f"k{k}_rho_sim"] = rate / 5000.0 * (1 + k) / 3
        row[f"k{k}_pred_l"] = (qwt + st) * 1.1
        row[f"k{k}_pred_qwt"] = qwt
        row[f"k{k}_pred_st_fe"] = st
        row[f"k{k}_pred_rho"] = row[f"k{k}_rho_sim"]
        row[f"k{k}_pred_mu"] = 1 / st
        row[f"k{k}_finals"] = 100
        lats[k] = qwt + st
    sel = min(lats, key=lats.get)
    row["selected_k"] = sel
    row["selected_plan"] = row[f"k{sel}_plan"]
    row["selected_order"] = "EDCBA"
    row["apam_lat"] = lats[sel]
    row["eager_lat"] = lats[L]
    row["lazy_lat"] = lats[0]
    row["best_k_sim"] = sel
    return row


def _mg1_synthetic(p: dict, rng) -> dict:
    rho = float(p.get("rho", 0.5))
    theory = rho / (1 - rho) if p.get("service", "exp") == "exp" else rho / (2 * (1 - rho))
    return {"wait_mean": theory * rng.uniform(0.99, 1.01), "wait_ci_half": theory * 0.01,
            "theory_wait": theory}


def _mg1_engine(p: dict, rng) -> dict:
    rho = float(p.get("rho", 0.5))
    pk = 1e-6 * rho / (1 - rho)
    w = pk * rng.uniform(0.95, 1.05)
    return {"wait_mean": w, "wait_ci_half": pk * 0.02, "pk_wait": pk,
            "rel_deviation": w / pk - 1, "shuffled_rel_deviation": 0.01,
            "service_lag1_corr": 0.1, "service_lag10_corr": 0.02, "service_iact": 1.3}


def _demo(p: dict, rng) -> dict:
    mu = float(p.get("mu", 0.0))
    return {"sample_mean": mu + rng.normal(0, 0.01), "sample_std": 1.0, "sample_max": mu + 3,
            "n_above_mu": 10}


NFAS = ("eager", "abc", "acb", "bac", "bca", "cab", "cba", "tree")


def _lazy_counts(p: dict, rng) -> dict:
    fc = float(p.get("f_c", 0.1))
    row: dict = {}
    for i, k in enumerate(NFAS):
        base = 1e5 * (1 + i) if k != "tree" else 9e4
        if k.startswith("c"):
            base *= fc
        row[f"evals_{k}"] = int(base * rng.uniform(0.95, 1.05)) + 1
        row[f"preds_{k}"] = row[f"evals_{k}"]
        row[f"peak_inst_{k}"] = 1000 if k == "eager" else 0
        row[f"peak_buf_{k}"] = 100
        row[f"matches_{k}"] = 7
        row[f"peak_inst_transient_{k}"] = -1 if k == "eager" else 3
    row.update({"matches": 7, "matches_agree": True, "n_stream_events": 1000})
    if "n_events" not in p:
        row["n_events"] = 1000
    return row


def _lazy_dynamic(p: dict, rng) -> dict:
    row = _lazy_counts(p, rng)
    row["bucket_events"] = 500
    for k in NFAS:
        row[f"evals_series_{k}"] = json.dumps([int(x) for x in rng.integers(1, 1000, 8)])
    return row


def _lazy_selectivity(p: dict, rng) -> dict:
    row = _lazy_counts(p, rng)
    t = float(p.get("threshold", 0.8))
    for pair in ("ab", "bc"):
        row[f"sel_{pair}"] = max(0.0, 1.0 - t)
        row[f"sel_pairs_{pair}"] = 400
    row["sel_min"] = max(0.0, 1.0 - t)
    return row


BUILDERS = {
    "apam:point": _apam,
    "basic:mg1_synthetic": _mg1_synthetic,
    "basic:mg1_engine": _mg1_engine,
    "demo:point": _demo,
    "lazy_nfa:condition_evaluations": _lazy_counts,
    "lazy_nfa:dynamic_evaluations": _lazy_dynamic,
    "lazy_nfa:selectivity_sensitivity": _lazy_selectivity,
}


STORED = Path(__file__).resolve().parent / "data" / "results"


def stored_results_path(cfg: ExperimentConfig) -> Path:
    """Where a stored real quick-scale result table of ``cfg`` lives (see module docstring)."""
    return STORED / cfg.paper / f"{cfg.name}.parquet"


def has_fixture(cfg: ExperimentConfig) -> bool:
    return cfg.scenario in BUILDERS or stored_results_path(cfg).is_file()


def fixture_results(cfg: ExperimentConfig, scale: str = "quick") -> pd.DataFrame:
    """One synthetic row per quick-scale point of ``cfg``, or the stored real quick-scale rows
    when the scenario has no builder (see module docstring)."""
    if cfg.scenario not in BUILDERS:
        return pd.read_parquet(stored_results_path(cfg))
    builder = BUILDERS[cfg.scenario]
    rows = []
    for pt in expand_points(apply_scale(cfg, scale)):
        rng = np.random.default_rng(pt.seed % (2 ** 32))
        row = dict(pt.params)
        row.update(builder(pt.params, rng))
        row.update(seed=pt.seed, rep=pt.rep, point_id=pt.point_id, error=None, wall_s=0.0)
        rows.append(row)
    df = pd.DataFrame(rows)
    assert not any(isinstance(v, float) and math.isnan(v) for v in df.get("rate", []))
    return df


if __name__ == "__main__":   # store real quick-scale results of the given configs as fixtures
    from sim.experiments.config import load_config

    root = Path(__file__).resolve().parents[1]
    for arg in sys.argv[1:]:
        cfg = load_config(arg)
        src = root / "results" / cfg.paper / cfg.name / "points.parquet"
        dst = stored_results_path(cfg)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        print(f"{src} -> {dst}")

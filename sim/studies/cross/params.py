"""Declared parameters of the cross-paper strategy matrix (``sim.studies.cross.scenario``;
checked by ``sim.experiments.params`` before any point runs)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

WORKLOADS = ("debs15_fc0.01", "debs15_fc1", "apam_exp1", "apam_exp3", "pvldb18_traffic",
             "pvldb18_stocks", "darling_q1", "nasdaq")

POINT = Declaration("cross:point", params=(
    Param("workload", "string", None, "required: the paper workload of the row (the scenario's "
          "WORKLOADS)", choices=WORKLOADS),
    Param("n_events", "int", 5000, "stream length (events; the NASDAQ sample and the soccer "
          "sample are cut to it)", low=1),
    Param("load", "float", 0.5, "common offered load: this x the smallest largest-stable-rate "
          "of the workload's runs", low=0, low_open=True),
    Param("stream_seed", "int", 1, "seed of the generated streams"),
    Param("f_c_small", "float", 0.01, "DEBS'15 f_c of the debs15_fc0.01 workload",
          low=0, high=1, low_open=True),
    Param("pv_n", "int", 4, "PVLDB'18 pattern length (variables) of the pvldb18_* workloads",
          low=1),
    Param("window_ms", "float", 15.0, "DARLING Q1 window (ms) of the darling_q1 workload",
          low=0, low_open=True),
))

DECLARATIONS = {d.scenario: d for d in (POINT,)}

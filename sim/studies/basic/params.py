"""Declared parameters of the M/G/1 checks (``sim.studies.basic.scenario``; checked by
``sim.experiments.params`` before any point runs; the scenario's ``check_params`` adds the
checks that involve several keys)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Family, Param

_COMMON = (
    Param("rho", "float", None, "required: offered load lambda / mu of the queue (stable: "
          "0 < rho < 1)", low=0, high=1, low_open=True, high_open=True),
    Param("n_events", "int", None, "required: events (customers) per run", low=1),
    Param("batches", "int", 32, "batches of the batch-means confidence interval "
          "(DEFAULT_BATCHES)", low=2),
    Param("warmup", "float", 0.01, "fraction of the waits dropped as warm-up (DEFAULT_WARMUP)",
          low=0, high=1, high_open=True),
)

MG1_SYNTHETIC = Declaration("basic:mg1_synthetic", params=_COMMON + (
    Param("service", "string", "exp", "service-time distribution: exponential (M/M/1) or "
          "deterministic (M/D/1)", choices=("exp", "det")),
))

MG1_ENGINE = Declaration("basic:mg1_engine", params=_COMMON + (
    Param("window", "int", 20, "count window (events) of the SEQ(A, B, C) pattern", low=1),
    Param("engine", "string", "eager", "engine name (cepsim list engines)"),
    Param("profile", "string", "default", "cost profile: default (the packaged profile), "
          "calibrated (the cal_* parameters) or a path to a profile TOML"),
), families=(
    Family("cal_", "float", "with profile = \"calibrated\": the unit cost (seconds) of counter "
           "<name>, or cal_base_cost the per-event base cost (from `cepsim calibrate`)"),
))

DECLARATIONS = {d.scenario: d for d in (MG1_SYNTHETIC, MG1_ENGINE)}

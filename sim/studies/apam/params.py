"""Declared parameters of the APAM (CIKM'16) scenario (``sim.studies.apam.scenario``; checked by
``sim.experiments.params`` before any point runs; the scenario's ``check_params`` adds the
checks that involve several keys, e.g. 0 < n_warmup < n_events)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

OPTIMIZERS = ("apam", "apam-x", "apam-x-mean", "apam-r")

POINT = Declaration("apam:point", params=(
    Param("experiment", "int", None, "required: experiment of Table 2 (section 6.1 stream)",
          low=1, high=3),
    Param("rate", "float", None, "required: Poisson arrival rate lambda (events/s)",
          low=0, low_open=True),
    Param("n_events", "int", 100_000, "stream length (events)", low=2),
    Param("n_warmup", "int", None, "warm-up events the statistics are estimated on; default "
          "computed: n_events // 2", low=1),
    Param("stream_seed", "int", 1, "seed of the section 6.1 stream"),
    Param("sigma", "string", "paper", "standard deviation of the optimizer's queue model: the "
          "paper's reading or the usual one (engines.planners.apam_model)",
          choices=("paper", "exact")),
    Param("reading", "string", "shift", "reading of section 6.1's selectivities "
          "(workloads.apam_synthetic)", choices=("shift", "domain")),
    Param("optimizer", "string", "apam", "optimizer whose choice fills the headline columns",
          choices=OPTIMIZERS),
    Param("merge_order", "string", "final-first", "merge order of the literal optimizer "
          "(engines.planners.apam.merge_sequence)", choices=("final-first", "plan")),
    Param("t_pe", "float", 7.0e-7, "T_PE: seconds per predicate evaluation (DEFAULT_COSTS)",
          low=0),
    Param("t_rc", "float", 3.5e-6, "T_RC: seconds per stored result / match (DEFAULT_COSTS)",
          low=0),
    Param("t_bi", "float", 3.5e-7, "T_BI: seconds per buffer insert (DEFAULT_COSTS)", low=0),
    Param("base_cost", "float", 2.0e-5, "per-event base cost in seconds (DEFAULT_COSTS)",
          low=0),
    Param("rc_over_pe", "float", None, "optional: T_RC = rc_over_pe x T_PE (sensitivity)",
          low=0),
    Param("t_seq", "float", None, "optional: T_SEQ in seconds per sequence comparison (default "
          "computed: T_PE; not with seq_factor)", low=0),
    Param("seq_factor", "float", None, "optional: T_SEQ = seq_factor x T_PE (not with t_seq)",
          low=0),
    Param("t_iw", "float", 0.0, "SASE run-loop engine only: seconds per run visited", low=0),
    Param("cost_scale", "float", 1.0, "multiplies every unit cost, base included (sensitivity)",
          low=0),
    Param("arrival_seed", "int", None, "optional: arrivals drawn from (arrival_seed, "
          "experiment, lambda, stream_seed) instead of the point seed (common random numbers)"),
    Param("cache_dir", "string", "results/.cache/apam", "on-disk engine-counter cache "
          "(empty: none)"),
))

DECLARATIONS = {d.scenario: d for d in (POINT,)}

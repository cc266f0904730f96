"""Declared parameters of the PVLDB'18 adaptive-CEP scenario (``sim.studies.adaptive.scenario``;
checked by ``sim.experiments.params`` before any point runs; the scenario's ``check_params``
checks the ``gen_*`` names against the data set's generator)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Family, Param

POINT = Declaration("adaptive:point", params=(
    Param("dataset", "string", "", "required: the stream (workloads.adaptive); without it "
          "gen_kwargs reads \"\", a data set whose generator takes no gen_* key",
          choices=("traffic", "stocks")),
    Param("planner", "string", None, "required: the plan generator A: greedy orders (lazy chain "
          "NFA) or ZStream trees", choices=("greedy", "zstream")),
    Param("pset", "string", None, "required: the pattern set (section 5.1)",
          choices=("seq", "and", "or", "neg", "kleene")),
    Param("n", "int", None, "required: pattern size (variables)", low=1),
    Param("n_events", "int", 20000, "stream length (events)", low=1),
    Param("n_warmup", "int", None, "warm-up events; default computed: n_events // 10", low=0),
    Param("check_every", "int", 10, "events between statistics snapshots / checks of D",
          low=1),
    Param("window", "float", 3.0, "pattern window (s)", low=0, low_open=True),
    Param("and_window", "float", 1.0, "window multiplier of the AND set (its interleavings "
          "blow up)", low=0, low_open=True),
    Param("kleene_window", "float", 1.0, "window multiplier of the Kleene set (its subsets "
          "blow up)", low=0, low_open=True),
    Param("w_s", "float", None, "statistics window (s); default computed: 10 x window", low=0,
          low_open=True),
    Param("K", "any", 1, "invariants checked per decision (an integer >= 1, or \"all\")"),
    Param("K_zstream", "any", None, "K of the ZStream planner's points (section 4.2 recommends "
          "the K-invariant method for ZStream): an integer >= 1, \"all\", or \"calibrated\" = "
          "the K chosen per data set by sensitivity.toml's search "
          "(sim/studies/adaptive/invariant_k.py); unset: K"),
    Param("zs_subtree", "string", "recompute", "how a ZStream invariant's sides are evaluated: "
          "\"recompute\" (every subtree under current statistics, OpenCEP "
          "plan/invariant/Invariants.py 82-88) or \"constant\" (section 4.2: subtree costs and "
          "cardinalities fixed at plan time; needs a finite K)",
          choices=("recompute", "constant")),
    Param("stream_seed", "int", None, "seed of the stream (default: the point seed; set, "
          "points share their evaluation)"),
    Param("tune_seeds", "array", [], "stream seeds whose rows are tuning rows (role = tune); "
          "the others are evaluation rows"),
    Param("uncond", "boolean", True, "run the unconditional re-optimisation method"),
    Param("davg", "boolean", True, "run the invariant method at d = d_avg of P0"),
    Param("t_values", "array", [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0],
          "thresholds t of ZStream's method (T_VALUES)"),
    Param("d_values", "array",
          [0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0],
          "distances d of the invariant method (D_VALUES; the paper scans 0..0.5, section 5.2)"),
    Param("n_types", "int", 40, "event types of the stream", low=1),
    Param("total_rate", "float", 100.0, "total event rate of the stream (events/s)", low=0,
          low_open=True),
    Param("type_seed", "int", 0, "seed choosing the pattern's event types"),
    Param("corridor", "boolean", False, "visit each sequence's drawn types in ascending type "
          "index (workloads.adaptive.pattern_text; with gen_model = 'road' the road-class "
          "order)"),
    Param("n_buckets", "int", 8, "histogram buckets of the selectivity statistics", low=1),
    Param("n_samples", "int", 4, "samples per selectivity estimate", low=1),
    Param("engine_cap", "int", 2_000_000, "ZStream tree evaluator: cap on partial matches, "
          "matches and Kleene nodes", low=1),
    Param("headroom_epoch", "int", 0, "epoch length (events) of the headroom oracle; 0 = "
          "computed: w_s x total_rate", low=0),
    Param("headroom_plans", "int", 16, "candidate plans of the headroom oracle", low=1),
    Param("switch", "string", "disjoint", "how a plan replacement is charged (SWITCHES): "
          "\"disjoint\" (section 2.2: no duplicate processing, one base cost per event) or "
          "\"duplicate\" (OpenCEP: both plans process the overlap, one base cost per live plan)",
          choices=("disjoint", "duplicate")),
    Param("overlap_base", "string", None, "optional: how the per-event base cost is charged "
          "while plans overlap (OVERLAP_BASE); default: as the switch reading says",
          choices=("per_plan", "once")),
    Param("adapt_units", "string", "ops", "adaptation prices (prices.ADAPT_UNITS): \"ops\" (one "
          "unit per decision comparison and planner step) or \"per_call\" (plus 5 us per call "
          "of A)", choices=("ops", "per_call")),
    Param("adapt_log2", "float", -4.0, "log2 of the adaptation cost ratio (prices.ADAPT_LOG2: the "
          "calibrate_cost search's choice)"),
    Param("adapt_rel", "float", 1.0, "extra factor on the adaptation unit costs (cost-ratio "
          "sensitivity)", low=0, low_open=True),
    Param("base_cost", "float", 1.0e-7, "engine per-event base cost in seconds "
          "(prices.ENGINE_BASE_COST)", low=0),
    Param("plan_gen", "float", None, "optional: seconds per call of A (overrides the scaled "
          "prices.ADAPT_UNITS)", low=0),
    Param("planner_step", "float", None, "optional: seconds per planner step (overrides the "
          "scaled prices.ADAPT_UNITS)", low=0),
    Param("decision_check", "float", None, "optional: seconds per decision check (overrides "
          "the scaled prices.ADAPT_UNITS)", low=0),
    Param("stat_update", "float", None, "optional: seconds per statistics update (default: the "
          "default profile's)", low=0),
    Param("plan_deploy", "float", None, "optional: seconds per plan deployment (default: the "
          "default profile's)", low=0),
    Param("deploy_rel", "float", 1.0, "factor on the plan deployment cost", low=0),
), families=(
    Family("gen_", "any", "stream-generator keyword <name> of workloads.adaptive (GEN_KEYS "
           "lists them per data set: drift size and frequency, attribute skew, model)"),
))

DECLARATIONS = {d.scenario: d for d in (POINT,)}

"""Declared parameters of the EIRES (SIGMOD'21) scenario (``sim.studies.eires.scenario``;
checked by ``sim.experiments.params`` before any point runs)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

POINT = Declaration("eires:point", params=(
    Param("dataset", "string", "DS1", "the generated data set of section 5.1 (a label only "
          "when stream_csv is given; DS1a = DS1 by the authors' Uniform_generator.cpp, "
          "workloads.eires); cluster / bushfire = the section 7.4 case studies' stand-in "
          "streams (workloads.eires_cluster, workloads.eires_bushfire)",
          choices=("DS1", "DS1a", "DS2", "cluster", "bushfire")),
    Param("query", "string", "Q1", "the query (workloads.eires.queries): the artifact's Q1 / Q2 (Q2 = "
          "two patterns, latencies pooled), Listing 2's Q1 (Q1L2; Q1L2t = its threshold form), "
          "the Fig 12 variants Q1end / Q1first (the remote check at h / at a; "
          "sim/studies/eires/scenario.py) and Q1begin (at b); Fig 13: cluster (the artifact's "
          "P7 with its hard-coded remote check) / cluster_l4 (Listing 4), bushfire (the "
          "artifact's bushfireDay) / bushfire_l3 (Listing 3's conditions, flat)",
          choices=("Q1", "Q1begin", "Q1end", "Q1first", "Q1L2", "Q1L2t", "Q2", "cluster",
                   "cluster_l4", "bushfire", "bushfire_l3")),
    Param("policy", "string", "greedy", "event selection policy of the query",
          choices=("greedy", "nongreedy")),
    Param("strategy", "string", "Hybrid", "remote-data strategy (engines.remote: BL1-BL3 "
          "baselines, PFetch, LzEval, Hybrid)",
          choices=("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid")),
    Param("n_events", "int", 100_000, "stream length (events)", low=1),
    Param("bl3_greedy_events", "int", 10_000, "events BL3 under greedy selection runs on (as the "
          "artifact: no remote filter until completion)", low=1),
    Param("greedy_events", "int", None, "optional: cap on the events of every greedy point "
          "(Q2 over DS2 emits ~10^8 matches)", low=1),
    Param("v1_max", "int", 10_000, "size of the remote key domain (DS1: 10^4 keys)", low=1),
    Param("stream_csv", "string", None, "optional: a stream file in the artifact's format "
          "replacing the generated stream (its first n_events rows)"),
    Param("stream_seed", "int", 1, "seed of the generated stream"),
    Param("threshold", "float", 5000.0, "the queries' remote-value threshold"),
    Param("profile", "string", "default", "cost profile: cepsim's round numbers or the "
          "authors' system (sim/core/profiles/eires_artifact.toml)",
          choices=("default", "eires_artifact")),
    Param("cache_share", "float", None, "optional: cache size as a share of the key domain "
          "(overrides cache_size; the artifact: 2,000 of 10^4 keys = 0.2; Fig 13: of the "
          "case's machines / scans)", low=0, high=1),
    Param("cache_size", "int", 2000, "cache entries (when cache_share is absent)", low=0),
    Param("fetch_overhead_us", "float", None, "per-fetch overhead in microseconds; default: the "
          "profile's fetch_overhead_us (0 when it has none)", low=0),
    Param("cache", "string", "cost", "cache replacement policy (engines.remote)",
          choices=("cost", "lru")),
    Param("in_event_order", "string", "class", "the artifact reading of fetch order "
          "(engines/remote/config.py)", choices=("class", "arrival")),
    Param("merge_requests", "boolean", False, "merge concurrent requests for one key "
          "(engines/remote/config.py)"),
    Param("utility", "string", "artifact", "utility model of the prefetch / cache decisions "
          "(engines/remote/config.py)", choices=("paper", "artifact")),
    Param("latency_unit_us", "float", 10.0, "remote fetch latency unit in microseconds", low=0),
    Param("workers", "int", 5, "concurrent fetch workers", low=1),
    Param("omega_fetch", "float", 0.7, "utility weight of a fetch decision (section 4)",
          low=0, high=1),
    Param("omega_cache", "float", 0.5, "utility weight of a cache decision (section 4)",
          low=0, high=1),
    Param("lookahead", "int", 0, "prefetch look-ahead (events)", low=0),
    Param("lz_span", "int", 0, "lazy-evaluation span (events)", low=0),
    Param("noise", "float", 0.0, "noise on the utility estimates", low=0, high=1),
    Param("utility_period", "int", 64, "events between utility updates", low=1),
    Param("lz_postpone", "string", "accept", "LzEval / Hybrid: postpone a missing remote "
          "predicate to the accept state, as the artifact (PatternMatcher.cpp line 1106), or "
          "over the span of Eq. 8 (engines/remote/config.py)", choices=("accept", "eq8")),
    Param("lz_block_prob", "float", 0.0, "probability that a LzEval miss before the accept "
          "state blocks instead of postponing (the artifact's -Y; -Z of its tune_weight build, "
          "the Fig 11 runs)", low=0, high=1),
    Param("bl3_fetch", "string", "serial", "BL3: one sleep per completed candidate without a "
          "cache read, as the artifact (EIRES_BL3_*/PatternMatcher.cpp 1609-1640), or the "
          "missing keys fetched in parallel", choices=("serial", "parallel")),
    Param("cache_refresh", "string", "pass", "a cache hit refreshes the key only when the "
          "remote predicate holds (the artifact, PatternMatcher.cpp 1056-1065) or on every hit",
          choices=("pass", "hit")),
    Param("key_count", "string", "fifo", "the artifact utility's per-key count, decremented "
          "(PatternMatcher.cpp 879-880) as the artifact's removeTimeouts removes the entry: "
          "from the front of its state's buffer only, consumed or expired, none in the "
          "stream's first window (806-889, 539-545); 'live' = when the partial match leaves "
          "a referencing state; 'cumulative' = increments only",
          choices=("fifo", "live", "cumulative")),
    Param("prefetch", "string", "artifact", "PFetch: one prefetch per prefetch_period "
          "transitions, as the artifact (PatternMatcher.cpp 1035-1046), or Algs. 1-3 with the "
          "utility test", choices=("artifact", "utility")),
    Param("prefetch_period", "int", 2000, "transitions per prefetch of prefetch='artifact' "
          "(the artifact's -u of run/run_synthetic.sh)", low=1),
    Param("artifact_weight", "float", 1.0, "the artifact's -w (its tune_weight build, Fig 11b): "
          "the cost cache ranks a key by w * count + (1 - w) * its count when a partial match "
          "last left a referencing state; 1 = the cost-cache build", low=0, high=1),
    Param("request_cost_us", "float", 0.0, "microseconds the matching thread spends handing "
          "one request (prefetch or LzEval) to a fetch worker, on top of the profile's "
          "remote_fetch (the artifact's FetchWorker::fetch: a mutex and a condition-variable "
          "wake-up, FetchWorker.cpp 35-40; measured 10-18 us on one pinned CPU, "
          "sim/core/profiles/eires_artifact_measured.toml); 0 = not charged", low=0),
    Param("n_machines", "int", 1000, "Fig 13b: machines of the cluster stand-in (the remote "
          "key domain; workloads.eires_cluster)", low=1),
    Param("n_regions", "int", 10, "Fig 13b: regions the machines are spread over (the remote "
          "table machine -> region)", low=1),
    Param("n_areas", "int", 300, "Fig 13a: boundaries (areas) of the satellite stand-in "
          "(workloads.eires_bushfire)", low=1),
    Param("strategy_flags", "string", "paper", "Fig 13: 'paper' = each strategy as the paper "
          "defines it; 'artifact' = each plot label run with the mechanisms, cache size and "
          "latency unit of the artifact's run script (sim/studies/eires/scenario.py "
          "ARTIFACT_FLAGS; cluster only)", choices=("paper", "artifact")),
    Param("rate", "float", 0.0, "Poisson arrival rate (events/s) of the arr_lat_* extension; "
          "0 = only the saturated run", low=0),
))

DECLARATIONS = {d.scenario: d for d in (POINT,)}

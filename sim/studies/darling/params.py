"""Declared parameters of the DARLING (PVLDB'22) scenario (``sim.studies.darling.scenario``)
and of the latency-cap study (``darling_cap:point``, ``sim.studies.darling.cap``: the same
parameters, it runs ``darling.point``'s computation); checked by ``sim.experiments.params``
before any point runs."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

METHODS = ("none", "darling", "random_input", "random_pm", "espice", "hspice", "icde20")
QUERIES = ("q1", "q1_readme", "q1pm", "q4", "q2len", "q3", "q3len", "sq1", "sq1pm", "sq2", "sq3",
           "bq1", "bq1pm", "bq2", "bq3")

_PARAMS = (
    Param("method", "string", None, "required: the load shedder (engines.shedding)",
          choices=METHODS),
    Param("query", "string", "q1", "soccer query (QUERY_SOURCES: the artifact's "
          "patterns_examples.txt lines) or stock query (sq*: Table 1's Q1^A-Q3^A and the "
          "artifact's stock partial-matches panel, on workloads.darling_stock) or bus query (bq*: "
          "Table 1's Q1^C-Q3^C and the artifact's bus partial-matches panel, on "
          "workloads.darling_bus)", choices=QUERIES),
    Param("window_ms", "float", None, "required: the query window W in ms", low=0,
          low_open=True),
    Param("length", "int", 3, "pattern length of the q2len / q3len / sq* / bq* panels "
          "(Fig. 7)", low=2, high=8),
    Param("stock_c", "float", 1.05, "Table 1's factor C of the stock queries (the authors' "
          "1.05: darling/patterns_examples.txt lines 283-361)", low=0, low_open=True),
    Param("stock_x", "float", None, "optional: Q3^A's X in S_j.open < X (default computed: "
          "the negated ticker's mean open, workloads.darling_stock.ARTIFACT_STATS)"),
    Param("bus_c", "float", 0.5, "Table 1's factor C of the bus queries (the authors' 0.5: "
          "darling/patterns_examples.txt lines 4-164)", low=0, low_open=True),
    Param("bus_x", "float", 200.0, "Table 1's X of Q3^C in L_j.delay > X (the authors' 200 s: "
          "darling/patterns_examples.txt lines 39-74)"),
    Param("bus_low_rate", "float", 0.5, "the bus stand-in's rate of lines 46, 40, 27 as a "
          "share of the others' (workloads.darling_bus: invented; section 5.2 says only "
          "'lower')", low=0, high=1, low_open=True),
    Param("n_events", "int", 50000, "stream length (events; the soccer sample is cut to it)",
          low=1),
    Param("stream", "string", "sample", "the soccer sample, or the sample followed by its "
          "synthetic continuation (workloads.soccer_synth.continue_sample)",
          choices=("sample", "continued")),
    Param("synth_seed", "int", 1, "seed of the synthetic players (q2len) / the continuation "
          "/ the stock stand-in (sq*) / the bus stand-in (bq*)"),
    Param("b_keep", "float", None, "optional: b.v threshold keeping this fraction of the ball "
          "events (partial-matches panel); 1 = no threshold", low=0, high=1),
    Param("b_threshold", "float", None, "optional: the b.v threshold of q1pm (Fig. 8 panel: "
          "X = 0 / 53705 / 71560 / 86259 / 100000)"),
    Param("ref_window_ms", "float", None, "window (ms) of the Lmax reference point; default "
          "computed: window_ms", low=0, low_open=True),
    Param("ref_b_threshold", "float", None, "optional: b.v threshold of the Lmax reference "
          "point (default: none)"),
    Param("ref_length", "int", None, "pattern length of the Lmax reference point; default "
          "computed: length", low=2, high=8),
    Param("lmax_s", "float", None, "optional: Lmax in seconds (default computed: n_in_target "
          "x z_pre of the reference point)", low=0, low_open=True),
    Param("n_in_target", "float", 1000, "Lmax = n_in_target x z_pre(reference point)", low=0,
          low_open=True),
    Param("beta", "float", 0.8, "shedding trigger: queue length >= beta x N_in (section 4)",
          low=0, high=1, low_open=True),
    Param("psi", "int", 100, "DARLING's psi (events between utility updates)", low=1),
    Param("budget", "string", "rate", "DARLING's per-type budgets N_T: by arrival rate (the "
          "authors' code), by cost x rate (the paper's text, section 4.2.2; measured Z(T)), "
          "equal, or by cost x rate with Z(T) from Eqs. 5-10 (model)",
          choices=("rate", "cost", "equal", "model")),
    Param("kleene_rule", "string", "paper", "budget = model: a Kleene type's rate as "
          "2^R(T) in Eqs. 8 and 10 (paper, section 4.2.3) or 2^(R(T) w) (subsets)",
          choices=("paper", "subsets")),
    Param("check", "string", "local", "DARLING's overload check: the per-type budget only (the "
          "authors' code) or also the queue >= beta N_in (the paper's text)",
          choices=("global", "local")),
    Param("random_input_check", "string", "global", "random input dropping's overload check "
          "(global: the queue >= beta N_in, as the other baselines)",
          choices=("global", "local")),
    Param("baseline_stop", "string", "bound", "random PM / eSPICE / hSPICE: shed until the queue "
          "is back under beta N_in (bound) or only while the arrival rate exceeds capacity "
          "(rate)", choices=("bound", "rate")),
    Param("latency_target", "string", "bounded", "the shedders' latency target: Lmax, or none "
          "(unbounded: Fig. 10, nothing dropped)", choices=("bounded", "unbounded")),
    Param("victim", "string", "artifact", "DARLING's victim choice",
          choices=("artifact", "random")),
    Param("spice_bins", "int", 10, "eSPICE / hSPICE utility bins", low=1),
    Param("spice_windows", "string", "replicated", "eSPICE / hSPICE windows: replicated per "
          "event or shared", choices=("replicated", "shared")),
    Param("icde_classes", "int", 4, "ICDE'20 shedder: number of classes", low=1),
    Param("icde_artifact_knapsack", "boolean", False, "ICDE'20 shedder: the artifact's "
          "knapsack"),
    Param("profile", "string", None, "cost profile TOML (default: the packaged default "
          "profile)"),
    Param("warm_frac", "float", 0.1, "fraction of the events in the warm-up prefix", low=0,
          high=1, high_open=True),
    Param("rho0", "float", 0.5, "base load: lambda0 = rho0 / z_pre", low=0, low_open=True),
    Param("shape", "string", "peaks", "overload shape: the paper text's four peaks between "
          "lulls at lambda0, the authors' testbed load (testbed_segments), one continuous "
          "peak (Fig. 9) or none (Fig. 10)", choices=("peaks", "testbed", "continuous", "none")),
    Param("n_peaks", "int", 4, "peaks shape: the number of load peaks sharing 70 % of the "
          "post-warm-up data (4 = section 5.1's 30/10/20/10 %; others: equal peaks, "
          "scenario.peak_layout)", low=1),
    Param("regular_ratio", "float", 1.7, "testbed shape: peak rate / regular rate (measured on "
          "the authors' testbed)", low=1),
    Param("peak_factor", "float", 500.0, "peak load lambda_peak / mu (peak_ref = mu) or / "
          "lambda0", low=0, low_open=True),
    Param("peak_ref", "string", "mu", "what peak_factor multiplies", choices=("mu", "lambda0")),
    Param("overload", "float", 0.7, "share of the post-warm-up events under the continuous "
          "peak", low=0, high=1, low_open=True),
    Param("arrival_seed", "int", None, "optional: seed of the arrivals (default: the point "
          "seed; common random numbers across methods)"),
    Param("ingest", "string", None, "optional: where the shedder's per-arrival work runs "
          "(overrides ingest_on_server)", choices=("server", "free")),
    Param("ingest_on_server", "boolean", True, "charge the shedder's per-arrival work to the "
          "server, as the authors' testbed"),
    Param("latency_cap_s", "float", None, "optional: the match latency cap in seconds "
          "(overrides latency_cap_lmax)", low=0, low_open=True),
    Param("latency_cap_lmax", "float", 1200.0, "the match latency cap as a multiple of Lmax "
          "(the paper: 30 min / 1.5 s = 1,200)", low=0, low_open=True),
    Param("event_bytes", "int", None, "bytes per event of the event-bytes memory reading; "
          "default computed: 8 x (2 + attributes)", low=1),
    Param("slot_bytes", "int", 648, "bytes per partial-match slot (SLOT_BYTES_ARTIFACT, "
          "engines.shedding.memory)", low=1),
    Param("variant", "string", None, "a row label only (the options figure): the scenario "
          "never reads it"),
)

POINT = Declaration("darling:point", params=_PARAMS)
CAP = Declaration("darling_cap:point", params=_PARAMS,
                  note="darling.point's parameters (sim.studies.darling.cap runs its computation)")

DECLARATIONS = {d.scenario: d for d in (POINT, CAP)}

"""Declared parameters of the DEBS'15 lazy-NFA scenarios (``sim.studies.lazy_nfa.scenario``;
checked by ``sim.experiments.params`` before any point runs).  Stream-generator keys without a
default in the scenario take ``workloads.stocks``' defaults (named in their meaning)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

ALL_NFAS = "eager,abc,acb,bac,bca,cab,cba,tree"

_QUERY = (
    Param("nfas", "any", ALL_NFAS, "the NFAs run (comma-separated string or array): eager, "
          "the six chain orders, tree"),
    Param("sequence", "string", "a,b,c", "the SEQ order of the query's variables"),
    Param("pairs", "string", "ab,bc", "the correlation conditions (variable pairs) of the "
          "WHERE clause"),
    Param("regime", "string", None, "optional: a named threshold regime "
          "(workloads.debs15.REGIME_T; not with threshold)",
          choices=("paper_regime", "selective")),
    Param("threshold", "float", 0.8, "T of the corr() > T conditions (not with regime)",
          low=-1, high=1),
    Param("h", "int", 10, "history length (minutes) of the correlation", low=1),
    Param("n_events", "int", None, "required: stream length (events)", low=1),
    Param("stream_seed", "int", None, "seed of the stream (default: the point seed)"),
    Param("sel_max_pairs", "int", 200_000, "in-window pairs sampled per condition for the "
          "measured pass rates", low=1),
    Param("p_update", "float", None, "stock generator: probability of a price update "
          "(default: workloads.stocks' 0.5)", low=0, high=1),
    Param("market_weight", "float", None, "stock generator: weight of the market factor "
          "(default: workloads.stocks' 0.5)", low=0),
    Param("sector_weight", "float", None, "stock generator: weight of the sector factor "
          "(default: workloads.stocks' 0.5)", low=0),
    Param("vol", "float", None, "stock generator: volatility (default: workloads.stocks' "
          "0.002)", low=0),
    Param("goog_factor", "string", None, "stock generator: the sector factor of GOOG's price, "
          "\"hitech\" (GOOG is a hi-tech stock) or \"own\" (an independent factor, the named "
          "variant); default: workloads.stocks' \"hitech\"", choices=("hitech", "own")),
)

_CONDITIONS = _QUERY + (
    Param("f_c", "float", None, "required: the GOOG (c) frequency relative to Finance "
          "(section 5, Figs. 7-9)", low=0, high=1, low_open=True),
    Param("data", "string", "synthetic", "the generated stock stream or the NASDAQ sample",
          choices=("synthetic", "nasdaq")),
    Param("nasdaq_path", "string", None, "with data = \"nasdaq\": the NASDAQ file"),
    Param("nasdaq_types", "string", None, "with data = \"nasdaq\": \"A_TICKER,B_TICKER,C_TICKER\""),
    Param("min_c_events", "float", 0, "raise n_events so that about this many c events occur",
          low=0),
    Param("prefix_of", "int", None, "every input size is a prefix of one stream of this length; "
          "default computed: n_events", low=1),
    Param("n_finance", "int", 10, "stock generator: Finance stocks", low=1),
    Param("n_hitech", "int", 10, "stock generator: HiTech stocks", low=1),
    Param("fluctuation", "float", 0.15, "amplitude of the a/b rate swing", low=0, high=1,
          high_open=True),
    Param("fluct_period", "int", None, "stock generator: period of the a/b rate swing "
          "(default: workloads.stocks' 120)", low=1),
    Param("swing", "string", "sine", "shape of the a/b rate swing (workloads.stocks.SWINGS)",
          choices=("sine", "random", "none")),
)

CONDITION_EVALUATIONS = Declaration("lazy_nfa:condition_evaluations", params=_CONDITIONS)
SELECTIVITY_SENSITIVITY = Declaration("lazy_nfa:selectivity_sensitivity", params=_CONDITIONS)
PHASED_EVALUATIONS = Declaration("lazy_nfa:phased_evaluations", params=_QUERY + (
    Param("period", "int", 100_000, "events between switches of the rarest type (Fig. 10)",
          low=1),
    Param("bucket", "int", 10_000, "events per reported bucket", low=1),
    Param("factors", "array", None, "the three rates of every phase, relative (default: "
          "workloads.stocks' [0.05, 0.3, 1.0]; not with rare_factor)"),
    Param("rare_factor", "float", None, "the rarest rate of every phase relative to the most "
          "frequent one (the rate spread's axis; the middle stays 0.3; not with factors)",
          low=0, high=0.3, low_open=True, high_open=True),
    Param("n_per_sector", "int", None, "stock generator: stocks per sector (default: "
          "workloads.stocks' 10)", low=1),
))

DECLARATIONS = {d.scenario: d for d in (CONDITION_EVALUATIONS, SELECTIVITY_SENSITIVITY,
                                        PHASED_EVALUATIONS)}

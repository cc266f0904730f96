"""The cross-paper strategy matrix: each paper's headline workload x every applicable strategy.

No paper can do this: each measures its own strategy against its own baselines on its own
workload in its own cost units.  Here every workload runs through ``sim.tools.compare.core`` (one cost
profile, one queue, the same engines) and one point = one workload:

==================  =====================================================================  ======
workload            stream and pattern (the generators / loaders of each paper's scenario)  own
==================  =====================================================================  ======
``debs15_fc0.01``   DEBS'15 Fig. 7 stock stream (``workloads.stocks.stock_stream``), f_c =   tree
                    0.01, SEQ(a, b, c) with corr() > T of the paper regime (``debs15``)
``debs15_fc1``      the same at f_c = 1                                                    tree
``apam_exp1``       APAM section 6.1 stream, Table 2 experiment 1, SEQ(A..E) WITHIN 2000   apam
                    events (``workloads.apam_synthetic``)
``apam_exp3``       the same, experiment 3                                                 apam
``pvldb18_traffic`` PVLDB'18 traffic-like stream, sequence pattern of n variables          adapt.
                    (``workloads.adaptive``, the fig5 settings)
``pvldb18_stocks``  the same on the stock-like stream                                      adapt.
``darling_q1``      DARLING soccer Q1 on the bundled DEBS'13 sample, no shedding           --
``nasdaq``          the NASDAQ sample with ``cepsim compare``'s example pattern            --
==================  =====================================================================  ======

"own" is the strategy the paper proposes: the DEBS'15 tree NFA, APAM's hybrid with its optimizer's
plan, the PVLDB'18 invariant-based re-planning (the better of its greedy and ZStream versions).
DARLING proposes a load shedder, not an evaluation strategy, and the NASDAQ sample is no paper's
workload: they have no own winner.  The paper's headline metric decides what "best" means:
throughput (the largest stable rate ``1 / E[S]``) for DEBS'15 and PVLDB'18, match latency for
APAM (its optimizer minimises E[L]).

Columns per strategy key ``k`` (``-`` written ``_``): ``lsr_k`` (events/s), ``lat_k`` /
``lat99_k`` (mean / p99 match latency at the workload's common offered load ``common_rate`` =
``load`` x the smallest largest-stable-rate of the workload's runs, so every run is stable),
``matches_k``, ``plan_k``, ``why_k`` (empty when the strategy ran; else why not).  The chain
family is its best order by throughput (``plan_chain`` names it; every order up to 4 variables is
run).  APAM's optimizer depends on the rate: its latency is that of the plan it picks at the
common load, its largest stable rate that of the plan it picks under overload (10 x the fastest
run's stable rate: the optimizer then takes the plan of largest predicted service rate), the plan
APAM runs when the load grows.  ``same_matches`` = 1 when every run found the same match set
(else ``mismatch`` names the engines).
"""
from __future__ import annotations

import math
from functools import lru_cache


WORKLOADS = ("debs15_fc0.01", "debs15_fc1", "apam_exp1", "apam_exp3", "pvldb18_traffic",
             "pvldb18_stocks", "darling_q1", "nasdaq")
OWN = {"debs15_fc0.01": ("tree", "lsr"), "debs15_fc1": ("tree", "lsr"),
       "apam_exp1": ("apam", "lat"), "apam_exp3": ("apam", "lat"),
       "pvldb18_traffic": ("adaptive-greedy|adaptive-zstream", "lsr"),
       "pvldb18_stocks": ("adaptive-greedy|adaptive-zstream", "lsr")}
PAPER = {"debs15": "DEBS'15", "apam": "APAM (CIKM'16)", "pvldb18": "PVLDB'18",
         "darling": "DARLING (PVLDB'22)", "nasdaq": "NASDAQ sample"}
NASDAQ = "workloads/data/opencep_nasdaq/NASDAQ_MEDIUM.txt"
NASDAQ_PATTERN = "PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.close < b.close WITHIN 30 minutes"


def col(key: str) -> str:
    return key.replace("-", "_")


def strategy_columns() -> list[str]:
    """The matrix's strategy keys (every non-remote strategy of ``sim.tools.compare.strategies``)."""
    from sim.tools.compare.strategies import STRATEGIES
    return [s.key for s in STRATEGIES if "remote" not in s.needs]


@lru_cache(maxsize=4)
def workload(name: str, n_events: int, seed: int, f_c_small: float = 0.01, pv_n: int = 4,
             window_ms: float = 15.0) -> tuple[str, object]:
    """(pattern text, stream) of a workload (module docstring)."""
    from engines.errors import CepsimInputError
    if name.startswith("debs15_fc"):
        from workloads.debs15 import query_text, regime_threshold
        from workloads.stocks import stock_stream
        f_c = f_c_small if name == "debs15_fc0.01" else 1.0
        return (query_text("a,b,c", regime_threshold("paper_regime"), 10),
                stock_stream(n_events, seed, h=10, f_c=f_c))
    if name.startswith("apam_exp"):
        from workloads.apam_synthetic import QUERY
        from workloads.generators import generate
        return QUERY, generate("apam", n_events, seed, experiment=int(name[-1]))
    if name.startswith("pvldb18_"):
        from workloads.adaptive import make_stream, pattern_text
        ds = name.split("_")[1]
        st = make_stream(ds, n_events, seed, n_types=24, total_rate=500.0)
        return pattern_text(ds, "seq", pv_n, st.schema.type_names, 1.0), st
    if name == "darling_q1":
        from sim.studies.darling.scenario import query_text, soccer_stream
        return query_text("q1", window_ms), soccer_stream(n_events)
    if name == "nasdaq":
        from workloads.loaders import load_stream, resolve_data_path
        st = load_stream(resolve_data_path(NASDAQ), "metastock")
        return NASDAQ_PATTERN, st.slice(0, min(n_events, len(st)))
    raise CepsimInputError(f"scenario cross: unknown workload {name!r}; choose from "
                           f"{', '.join(WORKLOADS)}")


def point(params: dict, seed: int) -> dict:
    """One workload through ``sim.tools.compare.core`` -> the matrix row (module docstring)."""
    from sim.tools.compare.core import MatchMismatch, compare, lsr, plan_of
    name = str(params["workload"])
    n = int(params.get("n_events", 5000))
    load = float(params.get("load", 0.5))
    text, stream = workload(name, n, int(params.get("stream_seed", 1)),
                            float(params.get("f_c_small", 0.01)), int(params.get("pv_n", 4)),
                            float(params.get("window_ms", 15.0)))
    own, metric = OWN.get(name, ("", ""))
    row: dict = {"paper": PAPER[name.split("_")[0]], "own": own, "own_metric": metric,
                 "stream_events": len(stream), "pattern_text": " ".join(text.split())}
    rates: dict = {}

    def choose(lsrs):
        rates["common"] = load * min(lsrs)
        rates["over"] = 10.0 * max(lsrs)
        return [rates["common"], rates["over"]]
    try:
        cmp = compare(text, stream, rates=choose, seed=seed)
    except MatchMismatch as exc:
        row.update(same_matches=0, mismatch=str(exc)[:500])
        return row
    common, over = rates["common"], rates["over"]
    row.update(same_matches=1, mismatch="", common_rate=common,
               matches=len(cmp.runs[0].result.matches), n_runs=len(cmp.runs))
    why = dict(cmp.ineligible)
    from sim.tools.compare.strategies import STRATEGIES
    per_rate = {s.key for s in STRATEGIES if s.per_rate}   # a plan chosen per rate (APAM)
    for key in strategy_columns():
        c = col(key)
        runs = [r for r in cmp.runs if r.strategy == key]
        if key in per_rate:
            lat_run = next((r for r in runs if common in r.per_rate), None)
            lsr_run = next((r for r in runs if over in r.per_rate), None)
        else:
            lat_run = lsr_run = max(runs, key=lsr) if runs else None
        if lat_run is None or lsr_run is None:
            row.update({f"lsr_{c}": math.nan, f"lat_{c}": math.nan, f"lat99_{c}": math.nan,
                        f"matches_{c}": -1, f"plan_{c}": "",
                        f"why_{c}": why.get(key, "not run")[:200]})
            continue
        m = lat_run.per_rate[common]
        row.update({f"lsr_{c}": lsr(lsr_run), f"lat_{c}": float(m["latency_mean"]),
                    f"lat99_{c}": float(m["latency_p99"]),
                    f"matches_{c}": len(lat_run.result.matches), f"why_{c}": "",
                    f"plan_{c}": plan_of(lat_run) if lat_run is lsr_run else
                    f"{plan_of(lat_run)} (common load) / {plan_of(lsr_run)} (overload)"})
    return row


def in_order(df):
    """Rows in ``WORKLOADS`` order (the points' own order is their hash)."""
    if "workload" not in df.columns:
        return df
    rank = {w: i for i, w in enumerate(WORKLOADS)}
    return df.iloc[sorted(range(len(df)), key=lambda i: rank.get(df["workload"].iloc[i], 99))]

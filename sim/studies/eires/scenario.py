"""EIRES (SIGMOD'21) Figures 5-13: latency of remote-data strategies in virtual time, per point.

One point = (dataset, query, policy, strategy, cache, parameters).  The scenario generates DS1 /
DS2 (``workloads.eires``), compiles the query (Q2 = two runs, latencies pooled) and runs the
remote-data kernel (``engines.remote``) with the unit costs of the point's cost profile.

Latency metrics (microseconds):
* ``lat_*`` - the authors' metric, read by the claims (``sim/studies/eires/claims.py``): the
  artifact loads the events and processes them flat out; a match's latency runs from when its
  last event is taken up
  (``DA_CURRENT_TIME`` set before processing, cep_match.cpp line 181) to the match's emission
  (``DA_FULL_MATCH_TIME``, PatternMatcher.cpp line 1131; the difference at cep_match.cpp line
  1415).  Queueing is never counted.  Here: every event queued at t = 0, emission minus the start
  of processing of the match's last event.
* ``arr_lat_*`` (when ``rate`` > 0) - an extension, not the paper's measure: Poisson arrivals at
  ``rate`` events/s, emission minus the arrival of the last event (queueing included).  Claims
  on it are of kind ``extension`` and name the arrival regime.
Throughput = events / busy virtual time of the saturated run.

``stream_csv`` (optional) replaces the generated stream by the first ``n_events`` rows of a
stream file in the artifact's format (``workloads.eires.load_artifact_csv``).

The artifact's mechanisms are the defaults (``lz_postpone``, ``lz_block_prob``, ``bl3_fetch``,
``cache_refresh``, ``key_count``, ``prefetch``, ``prefetch_period``, ``artifact_weight``;
engines/remote/config.py
names the artifact line each follows); the paper's readings are their named variants.
``request_cost_us`` (default 0) charges the matching thread per request handed to a fetch
worker, the artifact's cost of one on a single pinned CPU being 10-18 us
(sim/core/profiles/eires_artifact_measured.toml): the setting for comparisons with such runs.

Every point names its cost profile (``profile``: ``default`` = cepsim's round numbers,
``eires_artifact`` = the authors' system, sim/core/profiles/eires_artifact.toml) and its reading of
the artifact (``in_event_order``, ``merge_requests``; see engines/remote/config.py).

Fig 13 (section 7.4, the case studies): ``dataset = "cluster"`` / ``"bushfire"`` run the
seeded stand-in streams of ``workloads.eires_cluster`` / ``workloads.eires_bushfire`` with their
remote tables (machine -> region; the hourly sensor weather), the artifact's queries
(``cluster``, ``bushfire``) or the paper's listings (``cluster_l4``, ``bushfire_l3``): see
``_case_point``.

BL3 under greedy selection explodes (no remote filter until completion); as the artifact did, it
runs on the first ``bl3_greedy_events`` events only (row column ``n_used``); ``greedy_events``
caps every greedy point of a config the same way (Q2 over DS2: the match count explodes).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError

PCTS = (5, 25, 50, 75, 95, 99)


@lru_cache(maxsize=8)
def _stream(dataset: str, n: int, seed: int, v1_max: int):
    from workloads.eires import generate
    return generate(dataset, n, seed, v1_max=v1_max)


@lru_cache(maxsize=4)
def _csv_stream(path: str, n: int):
    from workloads.eires import load_artifact_csv
    return load_artifact_csv(path, n)


def query_texts(query: str, greedy: bool, threshold: float = 5000.0) -> list[str]:
    """Pattern texts of ``query``: ``workloads.eires.queries``, and ``Q1first`` - Q1 with its
    remote predicate checked at the first variable, a (section 7.3, Fig. 12b: "setting the
    remote data evaluation class to be beginning of the pattern sequence, allowing us to
    control the number of its succeeding classes (candidates for LzEval) between one and
    seven"), in the threshold form of the other Fig 12 variants (``Q1begin`` checks at b)."""
    from workloads.eires import queries
    if query != "Q1first":
        return queries(query, greedy, threshold)
    pol = "skip-till-any-match" if greedy else "skip-till-next-match"
    return [f"PATTERN SEQ(A a, B b, C c, D d, A e, B f, C g, D h) WHERE SAME[id] AND "
            f"REMOTE[a.v1] <= {threshold:g} AT a WITHIN 4000 events POLICY {pol}"]


@lru_cache(maxsize=4)
def _profile(name: str):
    """The cost profile a point names: ``default`` (cepsim's engines) or ``eires_artifact`` (the
    authors' system: sim/core/profiles/eires_artifact.toml, each number with its source)."""
    from pathlib import Path

    from sim.core.costmodel import load_profile
    if name == "default":
        return load_profile(None)
    path = Path(__file__).resolve().parents[2] / "core" / "profiles" / f"{name}.toml"
    if not path.exists():
        raise CepsimInputError(f"scenario eires: profile {name!r} is unknown; use 'default' or "
                               "'eires_artifact' (files in sim/core/profiles/)")
    return load_profile(path)


def _run(stream, texts, arrivals, kw, unit, base):
    """Run every pattern of a query; latency histograms (start- and arrival-based) pooled.

    The kernel bins each match's latency as it is emitted (``latency_hist``, 0.115 % bins):
    greedy DS2 runs emit ~10^8 matches, too many to keep one time per match."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.remote.kernel import run_remote
    lat, alat, busy, tot, nm = 0, 0, 0.0, np.zeros(C.N_COUNTERS, np.int64), 0
    info = {"fetches": 0, "cache_hits": 0, "cache_misses": 0, "blocked_time": 0.0,
            "blocking_fetches": 0}
    for text in texts:
        prog = compile_pattern(parse_pattern(text), stream.schema)
        r = run_remote(prog, stream, arrivals=arrivals, unit_cost=unit, base_cost=base,
                       record_matches=False, latency_hist=True, **kw)
        lat = lat + r.info["lat_hist"]
        alat = alat + r.info["arr_lat_hist"]
        nm += len(r.matches)
        busy += float(r.info["depart"][-1] - r.info["start"][0]) if len(stream) else 0.0
        tot += r.counters.sum(axis=0)
        for k in info:
            info[k] += r.info[k]
    return lat, alat, busy, tot, info, nm


def _hist_stats(h) -> tuple[np.ndarray, float]:
    """Percentiles PCTS and mean (microseconds) of a latency histogram (bin centres)."""
    from engines.remote.kernel import HIST_LO_DECADE, HIST_PER_DECADE, hist_percentiles
    h = np.asarray(h)
    n = h.sum()
    if n == 0:
        return np.full(len(PCTS), np.nan), float("nan")
    centres = 10.0 ** (HIST_LO_DECADE + (np.arange(len(h)) - 0.5) / HIST_PER_DECADE)
    centres[0] = 0.0
    return hist_percentiles(h, PCTS) * 1e6, float((h * centres).sum() / n * 1e6)


def _remote_options(p: dict, prof, strategy: str, cache_size: int, latency_unit_us: float,
                    seed: int, remote_table=None) -> dict:
    """The remote kernel's options of a point (``engines.remote.config.RemoteOptions``): every
    reading the point's parameters name, the artifact's by default."""
    return dict(strategy=strategy, cache=str(p.get("cache", "cost")),
                cache_size=max(int(cache_size), 1),
                fetch_overhead_us=float(p.get("fetch_overhead_us",
                                              prof.meta.get("fetch_overhead_us", 0.0))),
                in_event_order=str(p.get("in_event_order", "class")),
                merge_requests=bool(p.get("merge_requests", False)),
                utility=str(p.get("utility", "artifact")),
                latency_unit_us=float(latency_unit_us),
                workers=int(p.get("workers", 5)), seed=int(seed) % (2**62),
                omega_fetch=float(p.get("omega_fetch", 0.7)),
                omega_cache=float(p.get("omega_cache", 0.5)),
                lookahead=int(p.get("lookahead", 0)), lz_span=int(p.get("lz_span", 0)),
                noise=float(p.get("noise", 0.0)),
                utility_period=int(p.get("utility_period", 64)),
                lz_postpone=str(p.get("lz_postpone", "accept")),
                lz_block_prob=float(p.get("lz_block_prob", 0.0)),
                bl3_fetch=str(p.get("bl3_fetch", "serial")),
                cache_refresh=str(p.get("cache_refresh", "pass")),
                key_count=str(p.get("key_count", "fifo")),
                prefetch=str(p.get("prefetch", "artifact")),
                prefetch_period=int(p.get("prefetch_period", 2000)),
                artifact_weight=float(p.get("artifact_weight", 1.0)),
                request_cost_us=float(p.get("request_cost_us", 0.0)),
                remote_table=remote_table)


#: the executed-work counters every row reports
ROW_COUNTERS = ("remote_fetch", "cache_op", "utility_update", "pred_eval", "pm_created",
                "instance_work", "stat_update", "decision_check")


def _latency_columns(row: dict, lat, info: dict, tot) -> dict:
    """``row`` with the latency percentiles and mean (us), the kernel's info figures and
    ``ROW_COUNTERS``."""
    pv, mean = _hist_stats(lat)
    for q, v in zip(PCTS, pv):
        row[f"lat_p{q}"] = float(v)
    row["lat_mean"] = mean
    row.update({k: (float(v) if isinstance(v, float) else int(v)) for k, v in info.items()})
    for name in ROW_COUNTERS:
        row[name] = int(tot[C.COUNTER_NAMES.index(name)])
    return row


CASE_DATASETS = ("cluster", "bushfire")

#: section 7.4's runs as the artifact's scripts launched them (``strategy_flags="artifact"``):
#: the plot label -> (cepsim strategy with the same mechanisms, cache entries, latency unit us).
#: run/run_google_cluster.sh: BL1 ``-B -b -C 250``, BL2 ``-A -B -C 100``, BL3 ``-B -C 1 -L
#: 2000``, PFetch ``-A -B -C 2000``, LzEval ``-A -B -C 3000``, Hybrid ``-A -C 50000`` (every run
#: ``-L 1000 -u 20``).  ``-B`` postpones a miss to the accept state (LzEval's path; ``-b`` is not
#: read on it, src/EIRES_google_cluster_monitoring/PatternMatcher.cpp 591-628), ``-A`` adds one
#: prefetch per ``-u`` transitions (547-555), neither = block at the check (557-589).
ARTIFACT_FLAGS = {
    "cluster": {"BL1": ("LzEval", 250, 1000.0), "BL2": ("Hybrid", 100, 1000.0),
                "BL3": ("LzEval", 1, 2000.0), "PFetch": ("Hybrid", 2000, 1000.0),
                "LzEval": ("Hybrid", 3000, 1000.0), "Hybrid": ("PFetch", 50000, 1000.0)},
}


@lru_cache(maxsize=4)
def _case_stream(dataset: str, n: int, seed: int, n_machines: int, n_regions: int,
                 n_areas: int):
    """The stand-in stream and remote table(s) of a section 7.4 case study."""
    if dataset == "cluster":
        from workloads.eires_cluster import generate, region_table
        s = generate(n, seed, n_machines=n_machines, n_regions=n_regions, region_seed=seed)
        return s, {"cluster": None,
                   "cluster_l4": region_table(n_machines, n_regions, seed)}, n_machines
    from workloads.eires_bushfire import generate, n_scans, sensor_table
    s = generate(n, seed, n_areas=n_areas)
    ns = n_scans(s)
    return s, {"bushfire": sensor_table(ns, seed, form="margin"),
               "bushfire_l3": sensor_table(ns, seed, form="two")}, ns


def case_query_texts(dataset: str, query: str, greedy: bool) -> list[str]:
    """Pattern texts of a section 7.4 case study (``workloads.eires_cluster`` /
    ``workloads.eires_bushfire``)."""
    if dataset == "cluster":
        from workloads.eires_cluster import queries
    else:
        from workloads.eires_bushfire import queries
    return queries(query, greedy)


def _check_case(p: dict) -> None:
    """A section 7.4 point's query and strategy flags fit its data set (``CepsimInputError``
    naming the parameter otherwise)."""
    dataset = str(p["dataset"])
    query = str(p.get("query", "Q1"))
    want = ("cluster", "cluster_l4") if dataset == "cluster" else ("bushfire", "bushfire_l3")
    if query not in want:
        raise CepsimInputError(f"scenario eires: dataset {dataset!r} runs query "
                               f"{' or '.join(want)}, got {query!r}")
    if str(p.get("strategy_flags", "paper")) == "artifact" and dataset not in ARTIFACT_FLAGS:
        raise CepsimInputError(f"scenario eires: strategy_flags='artifact' is defined for "
                               f"{sorted(ARTIFACT_FLAGS)}, not {dataset!r}; use 'paper'")


def _check_point(params: dict) -> None:
    """Run by ``sim.experiments.runner`` for every point before any runs: the case studies'
    query and strategy flags (``_check_case``)."""
    if str(params.get("dataset", "DS1")) in CASE_DATASETS:
        _check_case(params)


def _case_point(p: dict, seed: int) -> dict:
    """One point of Fig 13 (section 7.4): a stand-in stream and its remote table, greedy and
    the cost-based cache by the configs (section 7.4: "using a cost-based cache under greedy
    selection").  ``cache_share`` is a share of the case's key domain (machines / scans);
    ``strategy_flags="artifact"`` runs each label with the mechanisms, cache and latency of
    the artifact's run script (``ARTIFACT_FLAGS``; row columns ``run_as``,
    ``cache_size_used``, ``latency_unit_used``)."""
    _check_case(p)
    dataset = str(p["dataset"])
    query = str(p.get("query", "Q1"))
    greedy = str(p.get("policy", "greedy")) == "greedy"
    label = str(p.get("strategy", "Hybrid"))
    n = int(p.get("n_events", 100_000))
    stream, tables, domain = _case_stream(dataset, n, int(p.get("stream_seed", 1)),
                                          int(p.get("n_machines", 1000)),
                                          int(p.get("n_regions", 10)),
                                          int(p.get("n_areas", 300)))
    texts = case_query_texts(dataset, query, greedy)
    prof = _profile(str(p.get("profile", "default")))
    cache_size = int(round(float(p["cache_share"]) * domain)) if "cache_share" in p else \
        int(p.get("cache_size", 2000))
    lat_unit = float(p.get("latency_unit_us", 10.0))
    strategy = label
    flags = str(p.get("strategy_flags", "paper"))
    if flags == "artifact":
        strategy, cache_size, lat_unit = ARTIFACT_FLAGS[dataset][label]
    kw = _remote_options(p, prof, strategy, cache_size, lat_unit, seed, tables[query])
    unit, base = prof.unit_vector(), float(prof.base_cost)
    lat, _, busy, tot, info, nmatch = _run(stream, texts, np.zeros(n), kw, unit, base)
    row: dict = {"n_used": n, "n_matches": int(nmatch), "cache_size_used": kw["cache_size"],
                 "latency_unit_used": lat_unit, "run_as": strategy, "key_domain": int(domain),
                 "throughput": n * len(texts) / busy if busy > 0 else float("nan")}
    return _latency_columns(row, lat, info, tot)


def point(params: dict, seed: int) -> dict:
    """One grid point (see module docstring)."""
    p = dict(params)
    dataset = str(p.get("dataset", "DS1"))
    if dataset in CASE_DATASETS:
        return _case_point(p, seed)
    query = str(p.get("query", "Q1"))
    policy = str(p.get("policy", "greedy"))
    if policy not in ("greedy", "nongreedy"):
        raise CepsimInputError(f"scenario eires: policy must be 'greedy' or 'nongreedy', got "
                               f"{policy!r}")
    greedy = policy == "greedy"
    strategy = str(p.get("strategy", "Hybrid"))
    n = int(p.get("n_events", 100_000))
    if strategy == "BL3" and greedy:
        n = min(n, int(p.get("bl3_greedy_events", 10_000)))
    if greedy and "greedy_events" in p:
        # greedy over Zipf keys (Q2 DS2) emits ~10^8 matches per 5k events: such panels run on
        # the first ``greedy_events`` events, every strategy alike (row column ``n_used``)
        n = min(n, int(p["greedy_events"]))
    v1_max = int(p.get("v1_max", 10_000))
    if p.get("stream_csv"):
        # the authors' stream file itself (benchmarks/eires_crosscheck.py: the same events on
        # both systems); ``dataset`` then only labels the row
        stream = _csv_stream(str(p["stream_csv"]), n)
    else:
        stream = _stream(dataset, n, int(p.get("stream_seed", 1)), v1_max)
    texts = query_texts(query, greedy, float(p.get("threshold", 5000.0)))
    prof = _profile(str(p.get("profile", "default")))
    # the cache as a share of the key domain (the artifact: 2,000 of DS1's 10^4 keys = 0.2)
    cache_size = int(round(float(p["cache_share"]) * v1_max)) if "cache_share" in p else \
        int(p.get("cache_size", 2000))
    kw = _remote_options(p, prof, strategy, cache_size,
                         float(p.get("latency_unit_us", 10.0)), seed)
    unit, base = prof.unit_vector(), float(prof.base_cost)
    lat, _, busy, tot, info, nmatch = _run(stream, texts, np.zeros(n), kw, unit, base)
    row: dict = {"n_used": n, "n_matches": int(nmatch), "cache_size_used": kw["cache_size"],
                 "throughput": n * len(texts) / busy if busy > 0 else float("nan")}
    rate = float(p.get("rate", 0.0))
    if rate > 0:
        rng = np.random.default_rng([int(seed) % (2**62), 7])
        arr = np.cumsum(rng.exponential(1.0 / rate, n))
        _, alat, _, _, _, _ = _run(stream, texts, arr, kw, unit, base)
        for q, v in zip(PCTS, _hist_stats(alat)[0]):
            row[f"arr_lat_p{q}"] = float(v)
    return _latency_columns(row, lat, info, tot)


point.check_params = _check_point   # sim.experiments.runner runs it for every point first

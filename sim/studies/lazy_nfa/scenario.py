"""DEBS'15 lazy evaluation (Kolchinsky et al.): the per-point scenarios of Figures 7-10.

Every scenario runs *all* compared NFAs on one stream (eager, the six lazy chains, the tree) and
returns one flat row with a column group per NFA -- so every NFA sees the same stream and the row
can record whether their match sets agree (``matches_agree``; the match count is ``matches``).
NFA keys: ``eager``, ``tree`` and the chain orders as letter strings ``abc``, ``acb``, ``bac``,
``bca``, ``cab``, ``cba`` (the selectivity order of the variables a, b, c).

Columns per NFA key ``k``: ``evals_k`` (EDGE_EVAL total = the paper's condition evaluations,
section 7: take-edge validations), ``work_k`` (INSTANCE_WORK: live instances the events were
offered to; the tree's routing decision is part of that offer), ``ops_k`` = evals + work (the
per-offer metric), ``routing_k`` (ROUTING_CHECK, the tree's routing decisions, a side metric; 0
for eager and chains), ``evals_route_k`` = evals + routing (every routing decision charged as a
condition evaluation: a named variant, printed by the tree claims; section 7 counts take-edge
validations only), ``preds_k`` (atomic predicate evaluations), ``peak_inst_k``
(peak live instances after an event), ``peak_inst_transient_k`` (lazy NFAs: peak live instances
including those that live only inside one event's processing; -1 for eager), ``peak_buf_k``
(peak buffered events, the paper's second memory metric, section 7: the lazy NFAs' input
buffers; eager's match buffers -- the distinct events its live instances hold,
``engines.evaluators.eager.match_buffer_gauge`` -- plus its negation buffer), ``matches_k``.  Every row also carries the measured pass rates
``sel_ab``/``sel_bc``, ``threshold``, ``n_c_events``, ``w_a``/``w_b`` (mean a / b events in the
window at c arrivals) and ``frac_b_rarer`` (share of c arrivals with count(b) < count(a)).
``phased_evaluations`` (Figure 10) adds ``evals_series_k``/``ops_series_k`` (JSON, per
``bucket`` events) and ``evals_phase_k``/``ops_phase_k`` (JSON, per ``period`` events).

Parameters (``[params]`` / ``[grid]`` / ``[zip]``): ``n_events``, ``min_c_events`` (lengthen the
stream so that about this many c events occur at small f_c), ``f_c``, ``sequence`` ("a,b,c"),
``regime`` ("paper_regime" | "selective": T from ``workloads.debs15.REGIME_T``) or
``threshold`` (0.8), ``pairs`` (correlated pairs, "ab,bc" as in the paper; "ab,bc,ac" links
every pair), ``h`` (history length = window in minutes, 10), ``nfas`` (comma list,
default all), stock-generator keywords (``n_finance``, ``n_hitech``, ``p_update``,
``fluctuation``, ``fluct_period``, ``market_weight``, ``sector_weight``, ``goog_factor``:
"hitech" (GOOG shares the HiTech sector factor, the default) or "own", the named variant), ``data``
("synthetic" | "nasdaq", with ``nasdaq_path`` and ``nasdaq_types`` = "A_TICKER,B_TICKER,C_TICKER"),
``stream_seed`` + ``prefix_of`` (generate one stream of ``prefix_of`` events from ``stream_seed``
and use its first ``n_events``: Figure 9's input sizes are prefixes of one stream, so peaks are
comparable across sizes); Figure 10: ``period``, ``bucket``, ``factors``, ``n_per_sector``.

``selectivity_sensitivity`` (experiments/lazy_nfa/sensitivity_selectivity.toml, a sensitivity
study, not a paper figure) adds the measured selectivities of the correlation conditions and the
tree/best-chain and eager/best-chain ratios, to show how the tree-vs-best-chain gap depends on
the (unstated in the paper) correlation threshold T.

The claims that judge these rows are in ``sim/studies/lazy_nfa/claims.py``.
"""
from __future__ import annotations

import functools
import itertools
import json

import numpy as np

from engines.errors import CepsimInputError

CHAINS = tuple("".join(p) for p in itertools.permutations("abc"))
ALL_NFAS = ("eager",) + CHAINS + ("tree",)
_STOCK_KEYS = ("n_finance", "n_hitech", "p_update", "fluctuation", "fluct_period",
               "market_weight", "sector_weight", "vol", "swing", "goog_factor")


def _nfas(params: dict) -> list[str]:
    raw = params.get("nfas", ",".join(ALL_NFAS))
    keys = [k.strip() for k in (raw.split(",") if isinstance(raw, str) else raw)]
    bad = [k for k in keys if k not in ALL_NFAS]
    if bad:
        raise CepsimInputError(f"scenario lazy_nfa: unknown NFA(s) {bad} in 'nfas'; choose from "
                               f"{list(ALL_NFAS)}")
    return keys


def run_nfa(key: str, program, stream):
    """Run one NFA by key; returns an EngineResult."""
    from engines.registry import run_engine
    if key == "eager":
        return run_engine("eager", program, stream, match_buffers=True)
    if key == "tree":
        return run_engine("tree", program, stream)
    return run_engine("chain", program, stream, order=list(key))


def _stream(params: dict, seed: int):
    from workloads import stocks
    h = int(params.get("h", 10))
    data = params.get("data", "synthetic")
    if data == "nasdaq":
        if "nasdaq_path" not in params or "nasdaq_types" not in params:
            raise CepsimInputError("scenario lazy_nfa: data = 'nasdaq' needs 'nasdaq_path' and "
                                   "'nasdaq_types' (\"A_TICKER,B_TICKER,C_TICKER\")")
        ta, tb, tc = [t.strip() for t in str(params["nasdaq_types"]).split(",")]
        s = stocks.nasdaq_stock_stream(params["nasdaq_path"], h=h, f_c=float(params["f_c"]),
                                       c_type=tc, a_type=ta, seed=seed)
        return s, {"a": ta, "b": tb, "c": tc}
    if data != "synthetic":
        raise CepsimInputError(f"scenario lazy_nfa: data must be 'synthetic' or 'nasdaq', got "
                               f"{data!r}")
    kw = {k: params[k] for k in _STOCK_KEYS if k in params}
    if str(kw.get("swing", "sine")) not in stocks.SWINGS:
        raise CepsimInputError(f"scenario lazy_nfa: swing must be one of {list(stocks.SWINGS)}, "
                               f"got {kw['swing']!r}")
    if not 0 <= float(kw.get("fluctuation", 0.15)) < 1:
        raise CepsimInputError(f"scenario lazy_nfa: fluctuation (the a/b rate swing's amplitude) "
                               f"must be in [0, 1), got {kw['fluctuation']!r}")
    n = int(params["n_events"])
    # prefix_of / stream_seed: every input size is a prefix of one stream (Figure 9)
    total = max(n, int(params.get("prefix_of", n)))
    args = (total, int(params.get("stream_seed", seed)), h, float(params["f_c"]),
            tuple(sorted(kw.items())))
    try:
        hash(args)
    except TypeError:          # a list-valued generator keyword: not memoised
        s = _stock_stream.__wrapped__(*args)
    else:
        s = _stock_stream(*args)
    return (s.slice(0, n) if total > n else s), None


@functools.lru_cache(maxsize=1)
def _stock_stream(total: int, seed: int, h: int, f_c: float, kw: tuple):
    """``workloads.stocks.stock_stream`` memoised per worker: Figure 9's ten points are
    prefixes of one 400k-event stream and Figure 10's two regimes share one 600k stream, so a
    worker generates each stream once.  The generator is a pure function of these arguments and
    no consumer writes into a stream.  One stream only: a worker keeps no stream of an earlier
    experiment alive while it runs the next (peak memory)."""
    from workloads import stocks
    return stocks.stock_stream(total, seed, h=h, f_c=f_c, **dict(kw))


def _threshold(params: dict) -> float:
    """T of the point: the named ``regime`` (``workloads.debs15.REGIME_T``) or ``threshold``."""
    from workloads.debs15 import regime_threshold
    if "regime" in params:
        if "threshold" in params:
            raise CepsimInputError("scenario lazy_nfa: give either 'regime' or 'threshold', not "
                                   "both (a regime fixes T)")
        try:
            return regime_threshold(str(params["regime"]))
        except ValueError as exc:
            raise CepsimInputError(f"scenario lazy_nfa: {exc}") from None
    return float(params.get("threshold", 0.8))


def _program(params: dict, schema, types=None):
    from workloads.debs15 import build_program
    return build_program(schema, params.get("sequence", "a,b,c"), _threshold(params),
                         float(params.get("h", 10)), types, str(params.get("pairs", "ab,bc")))


def _match_keys(pos: np.ndarray) -> np.ndarray:
    """The match rows in canonical sorted form (``engines.matches.canonical_rows``); a Python set
    of millions of tuples, or a lexsort per comparison, would dominate the paper regime."""
    from engines.matches import canonical_rows
    return canonical_rows(pos)


def _same_keys(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a, b))


def _compare_all(program, stream, keys: list[str], bucket: int | None = None,
                 period: int | None = None) -> dict:
    """Run every NFA of ``keys``; per NFA ``k``: ``evals_k`` (condition evaluations: EDGE_EVAL,
    take-edge validations only), ``work_k`` (INSTANCE_WORK), ``ops_k`` = evals + work (the
    per-offer metric), ``routing_k`` (ROUTING_CHECK: the tree's routing decisions, 0 for the
    others; ``routing_tree`` the same count from the tree's info), ``evals_route_k`` = evals +
    routing (each routing decision charged as a condition evaluation, a printed variant),
    ``preds_k``, peaks, matches.  With ``bucket``: JSON series of evals and ops per ``bucket``
    events; with ``period``: JSON lists of evals and ops per phase."""
    from engines.counters import (BUFFERED, EDGE_EVAL, INSTANCE_WORK, LIVE_PM, PRED_EVAL,
                                  ROUTING_CHECK)
    row: dict = {}
    ref = None
    agree = True
    for k in keys:
        res = run_nfa(k, program, stream)
        c = res.counters
        ev = c[:, EDGE_EVAL]
        ops = ev + c[:, INSTANCE_WORK]
        route = int(c[:, ROUTING_CHECK].sum())
        row[f"evals_{k}"] = int(ev.sum())
        row[f"work_{k}"] = int(c[:, INSTANCE_WORK].sum())
        row[f"ops_{k}"] = int(ops.sum())
        row[f"routing_{k}"] = route
        row[f"evals_route_{k}"] = int(ev.sum()) + route
        row[f"preds_{k}"] = int(c[:, PRED_EVAL].sum())
        row[f"peak_inst_{k}"] = int(c[:, LIVE_PM].max()) if len(c) else 0
        buf = c[:, BUFFERED]
        if k == "eager":   # its events wait in the match buffers (section 7; run_eager)
            buf = buf + res.info["match_buffer_events"]
        row[f"peak_buf_{k}"] = int(buf.max()) if len(c) else 0
        row[f"matches_{k}"] = len(res.matches)
        row[f"peak_inst_transient_{k}"] = int((res.info or {}).get("peak_transient_instances", -1))
        if k == "tree":
            row["routing_tree"] = int(res.info["routing_checks"])
        if ref is None:
            ref = res.matches
            ref_keys = None
        elif len(res.matches) != len(ref):
            agree = False
        elif agree:  # the sorted reference is made once, and only when a comparison needs it
            if ref_keys is None:
                ref_keys = _match_keys(ref.pos)
            if not _same_keys(ref_keys, _match_keys(res.matches.pos)):
                agree = False
        for name, col in (("evals", ev), ("ops", ops)):
            for tag, size in (("series", bucket), ("phase", period)):
                if not size:
                    continue
                nb = (len(col) + size - 1) // size
                sums = (np.add.reduceat(col, np.arange(0, nb * size, size)[:nb]) if len(col)
                        else [])
                row[f"{name}_{tag}_{k}"] = json.dumps([int(x) for x in sums])
        del res
    row["matches"] = len(ref) if ref is not None else 0
    row["matches_agree"] = bool(agree)
    row["n_stream_events"] = len(stream)
    return row


def _pass_rates(row: dict, stream, params: dict, types: dict | None, seed: int) -> None:
    """Add the measured pass rates ``sel_<xy>`` of the WHERE conditions (``sel_ab``, ``sel_bc``
    for the paper's query), ``sel_min``, the threshold, and the input-buffer counters seen at c
    arrivals: ``w_a``/``w_b`` (mean a / b events in the window), ``w_absdiff`` (mean |count(a) -
    count(b)|: what the a/b swing gives the tree's routing to choose from), ``frac_b_rarer`` (share
    of c arrivals at which count(b) < count(a), i.e. where the tree's {c} state routes to b)."""
    from workloads.debs15 import VAR_TYPES, corr_pair_selectivity, window_counts_at
    types = types or VAR_TYPES
    seq = [v.strip() for v in str(params.get("sequence", "a,b,c")).split(",")]
    thr = _threshold(params)
    h = float(params.get("h", 10))
    sels = []
    for p in [q.strip() for q in str(params.get("pairs", "ab,bc")).split(",") if q.strip()]:
        x, y = sorted(p, key=seq.index)
        sel, n = corr_pair_selectivity(stream, types[x], types[y], thr, h,
                                       int(params.get("sel_max_pairs", 200_000)), seed)
        row[f"sel_{p}"] = sel
        row[f"sel_pairs_{p}"] = n
        sels.append(sel)
    row["sel_min"] = float(min(sels))
    if "threshold" not in params:          # a regime point: record the T it stands for
        row["threshold"] = thr
    wc = window_counts_at(stream, types["c"], (types["a"], types["b"]), h)
    row["n_c_events"] = int(len(wc))
    row["w_a"] = float(wc[:, 0].mean()) if len(wc) else float("nan")
    row["w_b"] = float(wc[:, 1].mean()) if len(wc) else float("nan")
    row["w_absdiff"] = float(np.abs(wc[:, 0] - wc[:, 1]).mean()) if len(wc) else float("nan")
    row["frac_b_rarer"] = float(np.mean(wc[:, 1] < wc[:, 0])) if len(wc) else float("nan")


def _n_events(params: dict) -> int:
    """Stream length: ``n_events``, raised so that about ``min_c_events`` c events occur (f_c down
    to 1e-4 would otherwise leave a handful of c events, or none, in the stream)."""
    n = int(params["n_events"])
    need = float(params.get("min_c_events", 0))
    if need > 0:
        fc = float(params["f_c"])
        ratio_b = float(params.get("n_hitech", 10)) / float(params.get("n_finance", 10))
        n = max(n, int(np.ceil(need * (1.0 + ratio_b + fc) / fc)))
    return n


def condition_evaluations(params: dict, seed: int) -> dict:
    """Figures 7, 8 (and 9): every NFA on the f_c-controlled stock stream, plus the measured pass
    rates and buffer counters (``_pass_rates``)."""
    if "min_c_events" in params:
        params = dict(params, n_events=_n_events(params))
    stream, types = _stream(params, seed)
    row = _compare_all(_program(params, stream.schema, types), stream, _nfas(params))
    _pass_rates(row, stream, params, types, seed)
    row.update(_swing_cols(params))
    return row


def _swing_cols(params: dict) -> dict:
    """The a/b rate swing the stream really has (``workloads.stocks.ab_swing``):
    ``swing_kind`` ("sine" | "random" | "none"; "data" for NASDAQ) and ``swing_amp`` (0 when the
    rates do not swing) -- the rows the "tree below the best chain" claim may use."""
    if params.get("data", "synthetic") != "synthetic":
        return {"swing_kind": "data", "swing_amp": float("nan")}
    kind = str(params.get("swing", "sine"))
    amp = 0.0 if kind == "none" else float(params.get("fluctuation", 0.15))
    return {"swing_kind": kind if amp > 0 else "none", "swing_amp": amp}


def phased_evaluations(params: dict, seed: int) -> dict:
    """Figure 10: ``workloads.stocks.phased_stock_stream`` (three distinct rates per phase, all
    six orders, the rarest switched every ``period`` events, independent GOOG feeds); evaluations
    and operations per ``bucket`` events and per phase as JSON columns, plus totals and the
    measured pass rates.  The rates: ``factors`` (three, rare to frequent) or ``rare_factor``
    (the rare one, the others ``workloads.stocks.PHASE_FACTORS``' 0.3 and 1); ``rate_spread``
    (frequent / rare factor) is recorded per row."""
    from workloads import stocks
    kw = {k: params[k] for k in ("n_per_sector", "p_update", "market_weight", "sector_weight",
                                 "vol", "goog_factor") if k in params}
    if "factors" in params and "rare_factor" in params:
        raise CepsimInputError("scenario lazy_nfa: give either 'factors' or 'rare_factor', not "
                               "both (rare_factor sets factors = [rare_factor, 0.3, 1])")
    if "factors" in params:
        kw["factors"] = tuple(float(x) for x in params["factors"])
    elif "rare_factor" in params:
        kw["factors"] = (float(params["rare_factor"]),) + tuple(stocks.PHASE_FACTORS[1:])
    period = int(params.get("period", 100_000))
    stream = stocks.phased_stock_stream(int(params["n_events"]),
                                        int(params.get("stream_seed", seed)), period=period,
                                        h=int(params.get("h", 10)), **kw)
    bucket = int(params.get("bucket", 10_000))
    row = _compare_all(_program(params, stream.schema), stream, _nfas(params), bucket, period)
    row["bucket_events"] = bucket
    row["period_events"] = period
    f = kw.get("factors", stocks.PHASE_FACTORS)
    row["rate_spread"] = float(f[-1]) / float(f[0])
    row["phases"] = json.dumps(["".join("abc"[stocks.SECTORS.index(x)] for x in ph)
                                for ph in stocks.PHASES])
    _pass_rates(row, stream, params, None, seed)
    return row


def selectivity_sensitivity(params: dict, seed: int) -> dict:
    """SENSITIVITY (not a paper figure): ``condition_evaluations`` plus the *measured*
    selectivity of each correlation condition on the same stream and the derived ratios.

    Extra columns: ``sel_<xy>`` (pass rate of ``corr(x, y) > threshold`` over in-window pairs,
    ``x`` the variable earlier in the SEQ; ``workloads.debs15.corr_pair_selectivity``),
    ``sel_pairs_<xy>`` (pairs evaluated), ``sel_min`` (the smaller of them), ``best_chain``,
    ``evals_best_chain``, ``tree_over_best`` and ``eager_over_best`` (condition evaluations
    relative to the best of the six chains) and ``cab_over_cba``.  Extra parameter
    ``sel_max_pairs`` (default 200000: pairs sampled per condition when there are more)."""
    row = condition_evaluations(params, seed)
    keys = _nfas(params)
    chains = [k for k in CHAINS if k in keys]
    if chains:
        best = min(chains, key=lambda k: row[f"evals_{k}"])
        row["best_chain"] = best
        row["evals_best_chain"] = row[f"evals_{best}"]
        for k in ("tree", "eager"):
            if k in keys:
                row[f"{k}_over_best"] = row[f"evals_{k}"] / max(row[f"evals_{best}"], 1)
    if "cab" in keys and "cba" in keys:
        row["cab_over_cba"] = row["evals_cab"] / max(row["evals_cba"], 1)
    return row

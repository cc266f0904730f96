"""DEBS'15 lazy evaluation (Kolchinsky et al.): scenarios and claims for Figures 7-10.

Every scenario runs *all* compared NFAs on one stream (eager, the six lazy chains, the tree) and
returns one flat row with a column group per NFA -- so every NFA sees the same stream and the row
can record whether their match sets agree (``matches_agree``; the match count is ``matches``).
NFA keys: ``eager``, ``tree`` and the chain orders as letter strings ``abc``, ``acb``, ``bac``,
``bca``, ``cab``, ``cba`` (the selectivity order of the variables a, b, c).

Columns per NFA key ``k``: ``evals_k`` (EDGE_EVAL total = the paper's condition evaluations),
``preds_k`` (atomic predicate evaluations), ``peak_inst_k`` (peak live instances after an
event), ``peak_inst_transient_k`` (lazy NFAs: peak live instances including those that live
only inside one event's processing; -1 for eager), ``peak_buf_k`` (peak buffered events),
``matches_k``.  ``dynamic_evaluations`` adds
``evals_series_k``: a JSON list of condition evaluations per ``bucket`` events.

Parameters (``[params]`` / ``[grid]``): ``n_events``, ``f_c``, ``sequence`` ("a,b,c"),
``threshold`` (0.8), ``pairs`` (correlated pairs, "ab,bc" as in the paper; "ab,bc,ac" links
every pair), ``h`` (history length = window in minutes, 10), ``nfas`` (comma list,
default all), stock-generator keywords (``n_finance``, ``n_hitech``, ``p_update``,
``fluctuation``, ``fluct_period``, ``market_weight``, ``sector_weight``), ``data``
("synthetic" | "nasdaq", with ``nasdaq_path`` and ``nasdaq_types`` = "A_TICKER,B_TICKER,C_TICKER"),
``stream_seed`` + ``prefix_of`` (generate one stream of ``prefix_of`` events from ``stream_seed``
and use its first ``n_events``: Figure 9's input sizes are prefixes of one stream, so peaks are
comparable across sizes).

``selectivity_sensitivity`` (experiments/lazy_nfa/sensitivity_selectivity.toml, a sensitivity
study, not a paper figure) adds the measured selectivities of the correlation conditions and the
tree/best-chain and eager/best-chain ratios, to show how the tree-vs-best-chain gap depends on
the (unstated in the paper) correlation threshold T.
"""
from __future__ import annotations

import itertools
import json

import numpy as np

from engines.errors import CepsimInputError

CHAINS = tuple("".join(p) for p in itertools.permutations("abc"))
ALL_NFAS = ("eager",) + CHAINS + ("tree",)
_STOCK_KEYS = ("n_finance", "n_hitech", "p_update", "fluctuation", "fluct_period",
               "market_weight", "sector_weight", "vol")
_DYN_KEYS = ("n_finance", "n_hitech", "p_update", "market_weight", "sector_weight", "vol",
             "rare_factor")


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
        return run_engine("eager", program, stream)
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
    n = int(params["n_events"])
    # prefix_of / stream_seed: every input size is a prefix of one stream (Figure 9)
    total = max(n, int(params.get("prefix_of", n)))
    s = stocks.stock_stream(total, int(params.get("stream_seed", seed)), h=h,
                            f_c=float(params["f_c"]), **kw)
    return (s.slice(0, n) if total > n else s), None


def _program(params: dict, schema, types=None):
    from workloads.debs15 import build_program
    return build_program(schema, params.get("sequence", "a,b,c"),
                         float(params.get("threshold", 0.8)), float(params.get("h", 10)), types,
                         str(params.get("pairs", "ab,bc")))


def _compare_all(program, stream, keys: list[str], bucket: int | None = None) -> dict:
    from engines.counters import BUFFERED, EDGE_EVAL, LIVE_PM, PRED_EVAL
    row: dict = {}
    ref = None
    agree = True
    for k in keys:
        res = run_nfa(k, program, stream)
        c = res.counters
        row[f"evals_{k}"] = int(c[:, EDGE_EVAL].sum())
        row[f"preds_{k}"] = int(c[:, PRED_EVAL].sum())
        row[f"peak_inst_{k}"] = int(c[:, LIVE_PM].max()) if len(c) else 0
        row[f"peak_buf_{k}"] = int(c[:, BUFFERED].max()) if len(c) else 0
        row[f"matches_{k}"] = len(res.matches)
        row[f"peak_inst_transient_{k}"] = int((res.info or {}).get("peak_transient_instances", -1))
        ks = res.matches.key_set()
        if ref is None:
            ref = ks
        elif ks != ref:
            agree = False
        if bucket:
            e = c[:, EDGE_EVAL]
            nb = (len(e) + bucket - 1) // bucket
            series = np.add.reduceat(e, np.arange(0, nb * bucket, bucket)[:nb]) if len(e) else []
            row[f"evals_series_{k}"] = json.dumps([int(x) for x in series])
    row["matches"] = len(ref) if ref is not None else 0
    row["matches_agree"] = bool(agree)
    row["n_stream_events"] = len(stream)
    return row


def condition_evaluations(params: dict, seed: int) -> dict:
    """Figures 7, 8 (and 9): every NFA on the f_c-controlled stock stream."""
    stream, types = _stream(params, seed)
    return _compare_all(_program(params, stream.schema, types), stream, _nfas(params))


def dynamic_evaluations(params: dict, seed: int) -> dict:
    """Figure 10: the rarest sector switches every ``period`` events; condition evaluations per
    ``bucket`` events as JSON series columns plus totals."""
    from workloads import stocks
    kw = {k: params[k] for k in _DYN_KEYS if k in params}
    stream = stocks.dynamic_stock_stream(int(params["n_events"]),
                                         int(params.get("stream_seed", seed)),
                                         period=int(params.get("period", 100_000)),
                                         h=int(params.get("h", 10)), **kw)
    bucket = int(params.get("bucket", 10_000))
    row = _compare_all(_program(params, stream.schema), stream, _nfas(params), bucket)
    row["bucket_events"] = bucket
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
    from workloads.debs15 import VAR_TYPES, corr_pair_selectivity
    stream, types = _stream(params, seed)
    keys = _nfas(params)
    row = _compare_all(_program(params, stream.schema, types), stream, keys)
    types = types or VAR_TYPES
    seq = [v.strip() for v in str(params.get("sequence", "a,b,c")).split(",")]
    thr = float(params.get("threshold", 0.8))
    sels = []
    for p in [q.strip() for q in str(params.get("pairs", "ab,bc")).split(",") if q.strip()]:
        x, y = sorted(p, key=seq.index)
        sel, n = corr_pair_selectivity(stream, types[x], types[y], thr,
                                       float(params.get("h", 10)),
                                       int(params.get("sel_max_pairs", 200_000)), seed)
        row[f"sel_{p}"] = sel
        row[f"sel_pairs_{p}"] = n
        sels.append(sel)
    row["sel_min"] = float(min(sels))
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


# ----------------------------------------------------------------------------- claims
def _claim(passed, measured):
    from sim.claims import ClaimResult
    return ClaimResult(bool(passed), measured)


def _chains_in(df) -> list[str]:
    return [k for k in CHAINS if f"evals_{k}" in df.columns]


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def claim_matches_agree(df, **_) -> object:
    """Every NFA found the same match set at every point."""
    bad = df[~df["matches_agree"].astype(bool)]
    return _claim(len(bad) == 0 and len(df) > 0,
                  f"{len(df) - len(bad)}/{len(df)} points agree; matches per point "
                  f"{sorted(int(m) for m in df['matches'])}")


def claim_tree_vs_best_chain(df, factor: float = 1.1, **_) -> object:
    """tree <= factor x best chain (condition evaluations) at every point."""
    chains = _chains_in(df)
    parts = []
    ok = len(df) > 0 and bool(chains)          # no rows: nothing shown, not a pass
    keys = [c for c in ("data", "sequence", "f_c") if c in df.columns]
    for _, r in df.sort_values(keys).iterrows():
        best_k = min(chains, key=lambda k: r[f"evals_{k}"])
        best = r[f"evals_{best_k}"]
        ratio = r["evals_tree"] / max(best, 1)
        ok &= ratio <= factor
        lab = (f"{r['data'] + ' ' if 'data' in df.columns else ''}{r.get('sequence', '')} "
               f"f_c={r['f_c']}") if "f_c" in df.columns else "point"
        parts.append(f"{lab}: tree/{best_k}={_fmt(ratio)}")
    return _claim(ok, "; ".join(parts))


def claim_c_first_vs_eager(df, factor: float = 10.0, sequence: str = "a,b,c",
                           data: str = "synthetic", **_) -> object:
    """c-first chains (cab, cba) need >= factor x fewer evaluations than eager at the smallest
    f_c, and the eager/c-first gap shrinks as f_c grows to its largest value."""
    d = df[df["sequence"] == sequence] if "sequence" in df.columns else df
    if "data" in d.columns:
        d = d[d["data"] == data]
    g = d.groupby("f_c")[["evals_eager", "evals_cab", "evals_cba"]].mean().sort_index()
    lo, hi = g.iloc[0], g.iloc[-1]
    r_lo = [lo["evals_eager"] / max(lo[f"evals_{k}"], 1) for k in ("cab", "cba")]
    r_hi = [hi["evals_eager"] / max(hi[f"evals_{k}"], 1) for k in ("cab", "cba")]
    ok = min(r_lo) >= factor and all(h < l for h, l in zip(r_hi, r_lo))
    return _claim(ok, f"{data}: eager/cab, eager/cba at f_c={g.index[0]}: {_fmt(r_lo[0])}, {_fmt(r_lo[1])}; "
                  f"at f_c={g.index[-1]}: {_fmt(r_hi[0])}, {_fmt(r_hi[1])}")


def claim_eager_close(df, factor: float = 2.0, sequence: str = "c,b,a", **_) -> object:
    """For the given sequence, eager <= factor x best chain at every f_c."""
    d = df[df["sequence"] == sequence].sort_values("f_c")
    chains = _chains_in(d)
    parts = []
    ok = len(d) > 0
    for _, r in d.iterrows():
        best = min(r[f"evals_{k}"] for k in chains)
        ratio = r["evals_eager"] / max(best, 1)
        ok &= ratio <= factor
        parts.append(f"f_c={r['f_c']}: eager/best={_fmt(ratio)}")
    return _claim(ok, "; ".join(parts))


def claim_peak_instances(df, factor: float = 0.1, **_) -> object:
    """At the largest input, c-first chains and tree hold <= factor x eager's peak instances.

    The verdict uses the lazy NFAs' *transient* peak (instances alive at any moment, also inside
    one event), which is stricter than their after-event gauge (often 0: they finish within the
    event); eager's peak is its after-event gauge."""
    d = df[df["n_events"] == df["n_events"].max()]
    e = float(d["peak_inst_eager"].mean())
    gauge = {k: float(d[f"peak_inst_{k}"].mean()) for k in ("cab", "cba", "tree")}
    trans = {k: float(d[f"peak_inst_transient_{k}"].mean()) for k in ("cab", "cba", "tree")}
    ok = all(v <= factor * e for v in trans.values())
    return _claim(ok, f"n_events={int(d['n_events'].iloc[0])}: eager peak {_fmt(e)}; transient "
                  "(after-event) peaks: " +
                  ", ".join(f"{k} {_fmt(trans[k])} ({_fmt(gauge[k])})" for k in trans))


def claim_dynamic_tree_best(df, pairs: str | None = None, **_) -> object:
    """On the dynamic stream the tree's total evaluations are below every chain's total
    (rows of the query variant ``pairs`` only, when given)."""
    if pairs is not None and "pairs" in df.columns:
        df = df[df["pairs"] == pairs]
    chains = _chains_in(df)
    tot = {k: float(df[f"evals_{k}"].sum()) for k in chains + ["tree", "eager"]
           if f"evals_{k}" in df.columns}
    ok = all(tot["tree"] < tot[k] for k in chains)
    best = min(chains, key=lambda k: tot[k])
    return _claim(ok, f"tree {_fmt(tot['tree'])}, best chain {best} {_fmt(tot[best])}, eager "
                  f"{_fmt(tot.get('eager', float('nan')))}; all: " +
                  ", ".join(f"{k}={_fmt(v)}" for k, v in tot.items()))


def _sensitivity_table(df):
    """Mean over seeds per (f_c, threshold) point; ratios recomputed from mean evaluations."""
    chains = _chains_in(df)
    g = df.groupby(["f_c", "threshold"]).mean(numeric_only=True).reset_index()
    best = g[[f"evals_{k}" for k in chains]].min(axis=1).clip(lower=1)
    g["best_chain"] = [min(chains, key=lambda k: r[f"evals_{k}"]) for _, r in g.iterrows()]
    g["tree_over_best"] = g["evals_tree"] / best
    g["eager_over_best"] = g["evals_eager"] / best
    return g.sort_values(["f_c", "sel_min"])


def claim_tree_near_best_when_unselective(df, factor: float = 1.1, min_selectivity: float = 0.9,
                                          **_) -> object:
    """SENSITIVITY: at every f_c, the tree needs <= factor x the best chain's condition
    evaluations at every point whose correlation conditions are unselective (measured
    ``sel_min`` >= min_selectivity); fails too when an f_c has no such point.  Also reports the
    crossover selectivity per f_c: the smallest measured selectivity from which on (upwards)
    every point has tree/best <= factor, and the log-interpolated selectivity at which
    tree/best crosses factor."""
    g = _sensitivity_table(df)
    ok = True
    parts = []
    for fc, d in g.groupby("f_c"):
        d = d.sort_values("sel_min")
        sel = d["sel_min"].to_numpy(float)
        rat = d["tree_over_best"].to_numpy(float)
        unsel = sel >= min_selectivity
        ok &= bool(unsel.any()) and bool((rat[unsel] <= factor).all())
        bad = np.flatnonzero(rat > factor)
        if len(bad) == 0:
            cross = f"<= {_fmt(sel[0])} (all points within)"
        elif bad[-1] == len(sel) - 1:
            cross = "none (even the least selective point exceeds it)"
        else:
            i = bad[-1]                      # last failing point; i+1 passes and so does all above
            s0, s1, r0, r1 = sel[i], sel[i + 1], rat[i], rat[i + 1]
            t = (np.log(r0) - np.log(factor)) / (np.log(r0) - np.log(r1))
            s_int = (float(np.exp(np.log(s0) + t * (np.log(s1) - np.log(s0)))) if s0 > 0
                     else float(s0 + t * (s1 - s0)))   # log-interpolate unless s0 == 0
            cross = f"{_fmt(s1)} (measured point), ~{_fmt(s_int)} (interpolated)"
        pts = ", ".join(f"T={r.threshold:g}: sel={_fmt(r.sel_min)} tree/{r.best_chain}="
                        f"{_fmt(r.tree_over_best)}" for r in d.itertuples())
        parts.append(f"f_c={fc:g}: crossover selectivity {cross}; worst where sel>="
                     f"{min_selectivity:g}: "
                     + (_fmt(rat[unsel].max()) if unsel.any() else "no such point")
                     + f" [{pts}]")
    return _claim(ok, " | ".join(parts))

"""Reading the adaptive study's result tables: the helpers ``claims`` and ``figures`` share.

``supported_rows`` (points that ran: no error, ``supported`` = 1), ``method_labels`` (the
``thr{t}`` / ``inv{d}`` labels present), ``coverage`` (which pattern sets an average covers),
``zero_match_points`` (points whose pattern found no match: an average over them measures a
pattern that cannot match, so ``tuned`` refuses them with ``ZeroMatchError``),
``tuned`` (the d and t of a Fig. 6-7 comparison and the per-n means on the evaluation seeds;
section 5.2: "For the invariant-based method, the d_opt values obtained during the first
experiment were used", t_opt "empirically found ... using a similar series of runs"),
``fig5_d_opt`` (the best d of a Fig. 5 scan), ``headroom_table`` (the headroom oracle's
ratios), ``drift_axes`` / ``drift_table`` (the drift studies' settings) and ``COST_AXES`` (the
cost-sensitivity study's axes).  Rows come from ``sim.studies.adaptive.scenario.point``.
"""
from __future__ import annotations

import numpy as np


def supported_rows(df):
    """The rows of points that ran: no ``error`` and ``supported`` = 1."""
    d = df[df["error"].isna()] if "error" in df.columns else df
    return d[d["supported"] == 1]


def method_labels(df, prefix: str) -> list[str]:
    """The method labels ``<prefix><number>`` (``thr0.3``, ``inv0.1``) with a ``_thr`` column in
    ``df``, by their number."""
    return sorted({c[:-4] for c in df.columns if c.startswith(prefix) and c.endswith("_thr")
                   and c[len(prefix):-4].replace(".", "").isdigit()},
                  key=lambda s: float(s[len(prefix):]))


class ZeroMatchError(ValueError):
    """An average would include a point whose pattern found no match (``zero_match_points``)."""


def zero_match_points(df) -> list[str]:
    """The supported points (data set / planner / pattern set, n, stream seed) whose pattern
    found no match on its stream (``static_matches`` = 0: every method detects the same
    matches, ``matches_consistent``), as ``traffic/greedy/seq n=8 (seeds 1, 3)``."""
    d = supported_rows(df)
    if d.empty or "static_matches" not in d.columns:
        return []
    z = d[d["static_matches"] <= 0]
    if z.empty:
        return []
    seed_col = "stream_seed" if "stream_seed" in z.columns else None
    out = []
    for (ds, pl, ps, n), g in z.groupby(["dataset", "planner", "pset", "n"]):
        seeds = (" (seeds " + ", ".join(str(int(x)) for x in sorted(g[seed_col].unique())) + ")"
                 if seed_col else f" ({len(g)} rows)")
        out.append(f"{ds}/{pl}/{ps} n={int(n)}{seeds}")
    return out


def require_matches(df, what: str) -> None:
    """Raise ``ZeroMatchError`` naming the points of ``df`` whose pattern found no match."""
    z = zero_match_points(df)
    if z:
        raise ZeroMatchError(f"ZERO-MATCH POINTS in {what}: " + "; ".join(z) + " -- their "
                             f"patterns cannot match on this stream, an average over them "
                             f"measures nothing")


def coverage(df) -> str:
    """Which pattern sets every average covers, per planner."""
    d = df[df["error"].isna()] if "error" in df.columns else df
    parts = []
    for pl, g in d.groupby("planner"):
        ok = sorted(g[g["supported"] == 1]["pset"].unique())
        no = sorted(set(g["pset"].unique()) - set(ok))
        parts.append(f"{pl}: sets {','.join(ok) or '-'}" + (f" (not run: {','.join(no)})"
                                                               if no else ""))
    return "; ".join(parts)


#: Fig. 5's scan inside a Fig. 6 / Fig. 7 run: experiments/adaptive/fig5.toml runs the SEQ set
#: for n = 3-8 on stream seeds 1-3 with the stream, window, statistics and prices of fig6.toml
#: (traffic) and fig7.toml (stocks), so the SEQ rows of those seeds in a Fig. 6-7 run are Fig. 5's
#: points, bit for bit (tests/test_adaptive_protocol.py holds the three configs to it).
FIG5_SCAN_PSET = "seq"
FIG5_SCAN_SEEDS = (1, 2, 3)
#: where a Fig. 6-7 comparison takes its invariant distance: ``"fig5"`` (section 5.2's protocol:
#: d_opt of the Fig. 5 scan) or ``"tune"`` (a variant: the best d on the tuning seeds, mean over
#: every pattern set, as t is chosen)
D_FROM = ("fig5", "tune")


def fig5_d_opt(rows, labels: list[str]) -> str | None:
    """The best invariant label of a Fig. 5 scan: the largest mean over n of the per-n mean
    throughput (``claims.claim_dopt_vs_d0`` reads d_opt the same way); None without a measured
    throughput."""
    m = rows.groupby("n")[[c + "_thr" for c in labels]].mean().dropna(how="all")
    if m.empty or not labels:
        return None
    return str(m.mean().idxmax())[:-4]


def tuned(df, dataset: str, planner: str, allow_zero: bool = False,
          d_from: str = "tune") -> dict | None:
    """The d and t of a Fig. 6-7 comparison, and the evaluation rows' per-n means of static /
    uncond / thr(t_best) / inv(d_best).  t: the best on the tuning seeds (mean throughput over n
    and pattern sets).  d: ``d_from = "fig5"`` takes d_opt of the Fig. 5 scan (the SEQ rows of
    ``FIG5_SCAN_SEEDS``, ``fig5_d_opt``), as section 5.2 did; ``"tune"`` chooses it as t is
    chosen.  ``d_source`` says which was used.  A point whose pattern found no match raises
    ``ZeroMatchError`` unless ``allow_zero`` (the figures draw such averages with a warning
    instead); ``zero`` lists those points."""
    if d_from not in D_FROM:
        raise ValueError(f"adaptive: d_from must be one of {D_FROM}, got {d_from!r}")
    d = supported_rows(df)
    d = d[(d["dataset"] == dataset) & (d["planner"] == planner)]
    if d.empty:
        return None
    zero = zero_match_points(d)
    if not allow_zero:
        require_matches(d, f"{dataset}/{planner}")
    tune = d[d["role"] == "tune"]
    ev = d[d["role"] == "eval"]
    if tune.empty or ev.empty:
        tune = ev = d
    inv = method_labels(d, "inv")
    thr = method_labels(d, "thr")
    best_inv = max(inv, key=lambda c: tune[c + "_thr"].mean()) if inv else None
    d_source = "tuning seeds"
    if d_from == "fig5" and inv:
        scan = (d[(d["pset"] == FIG5_SCAN_PSET) & d["stream_seed"].isin(FIG5_SCAN_SEEDS)]
                if "stream_seed" in d.columns else d.iloc[0:0])
        if scan.empty:
            raise ValueError(f"adaptive: {dataset}/{planner} has no Fig. 5 scan rows (pattern "
                             f"set {FIG5_SCAN_PSET!r}, stream seeds {FIG5_SCAN_SEEDS}) to take "
                             f"d_opt from; use d_from = 'tune'")
        best_inv = fig5_d_opt(scan, inv) or best_inv
        d_source = "Fig. 5 scan"
    best_thr = max(thr, key=lambda c: tune[c + "_thr"].mean()) if thr else None
    # a tuned value at the grid's largest entry means the grid did not bracket the optimum
    edges = [lab for lab, labs in ((best_inv, inv), (best_thr, thr))
             if lab is not None and len(labs) > 1 and lab == labs[-1]]
    cols = {"static": "static", "uncond": "uncond", "thr": best_thr, "inv": best_inv}
    cols = {k: v for k, v in cols.items() if v is not None and v + "_thr" in d.columns}
    per_n = {}
    for n, g in ev.groupby("n"):
        per_n[int(n)] = {k: {m: float(g[f"{v}_{m}"].mean()) for m in ("thr", "repl", "ovh")}
                         for k, v in cols.items()}
    oracle_n = ({int(n): float(g["oracle_thr"].mean()) for n, g in ev.groupby("n")}
                if "oracle_thr" in ev.columns else {})
    return {"best_inv": best_inv, "best_thr": best_thr, "per_n": per_n, "inv_labels": inv,
            "thr_labels": thr, "eval": ev, "tune": tune, "edges": edges,
            "oracle_n": oracle_n, "zero": zero, "d_source": d_source}


def tuning_text(t: dict) -> str:
    """``inv0.5, thr3`` (``inv0.5 (d_opt of the Fig. 5 scan), thr3`` when d comes from the
    scan) plus a warning when a chosen value is the grid's largest."""
    note = " (d_opt of the Fig. 5 scan)" if t.get("d_source") == "Fig. 5 scan" else ""
    s = f"{t['best_inv']}{note}, {t['best_thr']}"
    return s + (f"; AT GRID EDGE: {', '.join(t['edges'])}" if t.get("edges") else "")


def headroom_table(df) -> dict:
    """``{(dataset, planner): {n: (headroom, headroom_engine, rows)}}``: the headroom oracle's
    ratios (static / per-epoch best plan, ``engines.planners.adaptive.headroom``), mean over the
    supported rows (every seed and pattern set) of each n."""
    d = supported_rows(df)
    out: dict = {}
    if d.empty or "headroom" not in d.columns:
        return out
    for (ds, pl, n), g in d.groupby(["dataset", "planner", "n"]):
        out.setdefault((ds, pl), {})[int(n)] = (float(g["headroom"].mean()),
                                                float(g["headroom_engine"].mean()), len(g))
    return out


def drift_axes(df) -> list[str]:
    """The ``gen_*`` columns that vary in ``df`` (the drift study's axes)."""
    return [c for c in df.columns if c.startswith("gen_") and df[c].nunique(dropna=True) > 1]


def drift_table(df, allow_zero: bool = False) -> list[dict]:
    """Per drift setting (values of ``drift_axes``) and planner: mean headroom and the tuned
    methods' throughput relative to static (mean over n, evaluation seeds); ``allow_zero`` as
    in ``tuned``."""
    d = supported_rows(df)
    axes = drift_axes(d)
    rows = []
    if d.empty:
        return rows
    for key, g in (d.groupby(axes) if axes else [((), d)]):
        key = key if isinstance(key, tuple) else (key,)
        sub = df.loc[g.index]
        for (ds, pl), _ in g.groupby(["dataset", "planner"]):
            t = tuned(sub, ds, pl, allow_zero=allow_zero)
            rel = {k: float(np.mean([v[k]["thr"] / v["static"]["thr"] for v in t["per_n"].values()]))
                   for k in next(iter(t["per_n"].values())) if k != "static"}
            gg = g[(g["dataset"] == ds) & (g["planner"] == pl)]
            rows.append({"setting": dict(zip(axes, key)), "dataset": ds, "planner": pl,
                         "headroom": float(gg["headroom"].mean()),
                         "headroom_engine": float(gg["headroom_engine"].mean()),
                         "rel": rel, "tuning": tuning_text(t)})
    return rows


#: the cost-sensitivity study's axes (column, label format), in the order of its labels
COST_AXES = (("adapt_rel", "ratio x{:g}"), ("deploy_rel", "deploy x{:g}"),
             ("switch", "switch {}"), ("adapt_units", "units {}"),
             ("overlap_base", "overlap {}"), ("base_cost", "base {:g}"))

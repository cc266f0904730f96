"""Claims of the eires study: functions ``claim(df, **args) -> ClaimResult`` over the rows of
``sim/studies/eires/scenario.py``.

Every claim reads ``lat_*`` by default (``METRIC``): the artifact's metric, events replayed flat
out, latency from taking up a match's last event to its emission (``cep_match.cpp`` lines 181
and 1415).  ``metric="arr_lat"`` reads the Poisson-arrival columns instead (an extension: queueing
counted).  Panels are the groups of (dataset, query, policy, cache, v1_max, bl3_fetch) present in
the rows;
rows with an ``error`` are left out.  ``claim_ranking`` and ``claim_ratios_two_refs`` judge
against the authors' ``plot/dat`` files (``sim/studies/eires/refs.py``).
"""
from __future__ import annotations

import numpy as np

from sim.experiments.claims import ClaimResult

BASELINES = ("BL1", "BL2", "BL3")


# ----------------------------------------------------------------------------- claim helpers
def _dat_p(dat: str, stat: str) -> dict[str, float]:
    from sim.studies.eires.refs import dat_by_strategy
    return dat_by_strategy(dat, stat)


def _dat_ratio(dat: str, num: str, stat: str = "p50") -> float:
    d = _dat_p(dat, stat)
    return float(d[num] / d["Hybrid"]) if num in d and "Hybrid" in d else float("nan")


def _dat_suffix(text: str) -> str:
    """The authors' own measurements of the same test, printed beside a text claim (not
    judged): where the dat contradicts the text, the row shows both references."""
    return f"; authors' dat (not judged): {text}" if text else ""

def _ok(df):
    return df[df["error"].isna()] if "error" in df.columns else df


def _panels(df):
    d = _ok(df)
    keys = [k for k in ("dataset", "query", "policy", "cache", "v1_max", "bl3_fetch")
            if k in d.columns]
    return keys, d.groupby(keys, sort=True)


METRIC = "lat"          # the artifact's metric; "arr_lat" = the Poisson-arrival extension


def _col(col: str, metric: str) -> str:
    return col.replace("lat_", metric + "_", 1) if col.startswith("lat_") else col


def _by_strategy(g, col, metric: str = METRIC):
    return g.groupby("strategy")[_col(col, metric)].mean()


def _fmt_panel(keys, key):
    key = key if isinstance(key, tuple) else (key,)
    return "/".join(str(v) for v in key)


def claim_hybrid_best(df, factor: float = 1.1, metric: str = METRIC,
                      dats: dict | None = None, note: str = "") -> ClaimResult:
    """Hybrid best or within ``factor`` of the best strategy in every panel, at p50 and p95.
    ``dats`` ({panel label: dat file}): the same test on the authors' dat, printed beside."""
    keys, groups = _panels(df)
    bad, n = [], 0
    for key, g in groups:
        for col in ("lat_p50", "lat_p95"):
            s = _by_strategy(g, col, metric).dropna()
            if "Hybrid" not in s or s.empty:
                continue
            n += 1
            if s["Hybrid"] > factor * s.min():
                bad.append(f"{_fmt_panel(keys, key)} {_col(col, metric)}: Hybrid "
                           f"{s['Hybrid']:.1f} vs best "
                           f"{s.idxmin()} {s.min():.1f}")
    dn, dbad = 0, []
    for label, dat in (dats or {}).items():
        for stat in ("p50", "p95"):
            ref = _dat_p(dat, stat)
            if "Hybrid" not in ref:
                continue
            dn += 1
            best = min(ref, key=ref.get)
            if ref["Hybrid"] > factor * ref[best]:
                dbad.append(f"{label} {stat}: Hybrid {ref['Hybrid']:.0f} vs {best} "
                            f"{ref[best]:.0f}")
    dtext = (f"{dn - len(dbad)}/{dn} hold" + ("; fails: " + "; ".join(dbad) if dbad else "")) \
        if dn else ""
    return ClaimResult(n > 0 and not bad, f"{n - len(bad)}/{n} panel-percentiles pass"
                       + ("; fails: " + "; ".join(bad[:6]) if bad else "") + " (paper: Hybrid "
                       "best everywhere)" + _dat_suffix(dtext) + (f"; {note}" if note else ""))


def claim_pf_lz_below_baselines(df, metric: str = METRIC, dats: dict | None = None,
                                note: str = "") -> ClaimResult:
    """PFetch and LzEval each below every baseline at p50 in every panel (a panel without a match
    is not judged; ``dats``: the same
    test on the authors' dat, printed beside)."""
    keys, groups = _panels(df)
    bad, n = [], 0
    for key, g in groups:
        s = _by_strategy(g, "lat_p50", metric)
        base = [s[b] for b in BASELINES if b in s]
        for st in ("PFetch", "LzEval"):
            if st not in s or not base:
                continue
            if np.isnan(s[st]) and np.isnan(base).all():
                continue                      # a panel without a match: nothing to judge
            n += 1
            lo = float(np.fmin.reduce(base))  # skips a NaN baseline (no match) in any order
            if not s[st] < lo:
                bad.append(f"{_fmt_panel(keys, key)} {st} {s[st]:.1f} >= {lo:.1f}")
    dn, dbad = 0, []
    for label, dat in (dats or {}).items():
        ref = _dat_p(dat, "p50")
        base = [ref[b] for b in BASELINES if b in ref]
        for st in ("PFetch", "LzEval"):
            if st in ref and base:
                dn += 1
                if not ref[st] < min(base):
                    dbad.append(f"{label} {st} {ref[st]:.0f} >= {min(base):.0f}")
    dtext = (f"{dn - len(dbad)}/{dn} hold" + ("; fails: " + "; ".join(dbad) if dbad else "")) \
        if dn else ""
    return ClaimResult(n > 0 and not bad, f"{n - len(bad)}/{n} pass"
                       + ("; fails: " + "; ".join(bad[:6]) if bad else "") + _dat_suffix(dtext)
                       + (f"; {note}" if note else ""))


def _ratio(df, sel: dict, num: str, col: str = "lat_p50", metric: str = METRIC) -> float:
    d = _ok(df)
    for k, v in sel.items():
        d = d[d[k] == v]
    s = _by_strategy(d, col, metric)
    if "Hybrid" not in s or num not in s:
        return float("nan")
    return float(s[num] / s["Hybrid"])


def claim_ratios(df, panel: dict, paper: dict, col: str = "lat_p50",
                 tolerance_decades: float = 0.5, order: list | None = None,
                 metric: str = METRIC, dat: str | None = None) -> ClaimResult:
    """baseline / Hybrid ratios in one panel vs the paper's (within ``tolerance_decades``), and
    optionally the baselines' order (largest ratio first); ``dat``: the authors' ratios printed
    beside."""
    parts, ok = [], True
    got = {}
    for b, pv in paper.items():
        r = _ratio(df, panel, b, col, metric)
        got[b] = r
        good = np.isfinite(r) and r > 0 and abs(np.log10(r / pv)) <= tolerance_decades
        ok &= bool(good)
        parts.append(f"{b}/Hybrid {r:.2f}x (paper {pv}x){'' if good else ' X'}")
    if order:
        ord_ok = all(got[a] > got[b] for a, b in zip(order, order[1:]))
        ok &= ord_ok
        parts.append(f"order {' > '.join(order)} {'holds' if ord_ok else 'fails'}")
    stat = col.replace("lat_", "")
    dtext = ", ".join(f"{b}/Hybrid {_dat_ratio(dat, b, stat):.2f}x" for b in paper) if dat else ""
    return ClaimResult(ok, f"{panel}: " + "; ".join(parts) + _dat_suffix(dtext))


def claim_min_ratio(df, panel: dict, minimum: float, paper: float,
                    col: str = "lat_p50", metric: str = METRIC,
                    dat: str | None = None) -> ClaimResult:
    """Every baseline / Hybrid ratio in a panel at least ``minimum`` (``dat``: the authors'
    ratios printed beside)."""
    rs = {b: _ratio(df, panel, b, col, metric) for b in BASELINES}
    lo = float(np.fmin.reduce(list(rs.values())))   # NaN ratios skipped in any order
    return ClaimResult(bool(np.isfinite(lo) and lo >= minimum),
                       f"{panel}: min baseline/Hybrid {_col(col, metric)} {lo:.2f}x (" +
                       ", ".join(f"{b} {r:.2f}x" for b, r in rs.items()) +
                       f"); required >= {minimum}x (paper {paper}x)" + _dat_suffix(
                           ", ".join(f"{b}/Hybrid {_dat_ratio(dat, b, col.replace('lat_', '')):.2f}x"
                                     for b in BASELINES) if dat else ""))


def claim_max_ratio(df, panel: dict, paper_p50: float, paper_p95: float,
                    tolerance_decades: float = 1.0, metric: str = METRIC,
                    dats: list | None = None) -> ClaimResult:
    """Largest baseline / Hybrid ratio at p50 and p95 within a decade of the paper's headline
    (``dats``: the authors' largest ratios printed beside)."""
    # NaN ratios (a baseline without matches) skipped whatever the baseline order
    r50 = float(np.fmax.reduce([_ratio(df, panel, b, "lat_p50", metric) for b in BASELINES]))
    r95 = float(np.fmax.reduce([_ratio(df, panel, b, "lat_p95", metric) for b in BASELINES]))
    ok = all(np.isfinite(r) and abs(np.log10(r / pv)) <= tolerance_decades
             for r, pv in ((r50, paper_p50), (r95, paper_p95)))
    dtext = "; ".join(
        f"{dat}: p50 {np.nanmax([_dat_ratio(dat, b, 'p50') for b in BASELINES]):.1f}x, p95 "
        f"{np.nanmax([_dat_ratio(dat, b, 'p95') for b in BASELINES]):.1f}x"
        for dat in (dats or []))
    return ClaimResult(bool(ok), f"{panel}: max baseline/Hybrid p50 {r50:.1f}x (paper "
                       f"{paper_p50}x), p95 {r95:.1f}x (paper {paper_p95}x)" +
                       _dat_suffix(dtext))


def claim_cost_vs_lru(df, metric: str = METRIC, policies: list | None = None,
                      datasets: list | None = None, dats: dict | None = None) -> ClaimResult:
    """DS1: cost-based <= LRU for PFetch and LzEval (p50); DS2 greedy: LRU <= cost (p50).
    ``policies``: the DS1 panels judged (default both; §7.2 states it for Fig. 5a-b, the
    non-greedy panels); ``dats`` ({policy: (cost dat, LRU dat)}): the authors' p50 beside."""
    d = _ok(df)
    if policies is not None:
        d = d[~d["dataset"].isin(["DS1", "DS1a"]) | d["policy"].isin(list(policies))]
    if datasets is not None:
        d = d[d["dataset"].isin(list(datasets))]
    parts, ok = [], True
    for (ds, q, pol), g in d.groupby(["dataset", "query", "policy"]):
        for st in ("PFetch", "LzEval"):
            s = g[g["strategy"] == st].groupby("cache")[metric + "_p50"].mean()
            if "cost" not in s or "lru" not in s:
                continue
            if ds in ("DS1", "DS1a"):
                good = s["cost"] <= s["lru"]
                parts.append(f"{ds}/{q}/{pol} {st} cost {s['cost']:.1f} vs lru {s['lru']:.1f}"
                             f"{'' if good else ' X'}")
                ok &= bool(good)
            elif pol == "greedy":
                good = s["lru"] <= s["cost"]
                parts.append(f"{ds}/{q}/{pol} {st} lru {s['lru']:.1f} vs cost {s['cost']:.1f}"
                             f"{'' if good else ' X'}")
                ok &= bool(good)
    dparts = []
    for pol, (dc, dl) in (dats or {}).items():
        c, l = _dat_p(dc, "p50"), _dat_p(dl, "p50")
        dparts += [f"{pol} {st} cost {c[st]:.0f} vs lru {l[st]:.0f}"
                   f"{'' if c[st] <= l[st] else ' X'}" for st in ("PFetch", "LzEval")]
    return ClaimResult(ok and bool(parts), "; ".join(parts) + _dat_suffix("; ".join(dparts)))


def claim_grows_with(df, x: str, strategy: str, factor: float, col: str = "lat_p50",
                     paper: str = "", dat: str | None = None) -> ClaimResult:
    """``col`` of ``strategy`` at the largest ``x`` >= ``factor`` x the value at the smallest
    (``dat``: the authors' sweep, first and last label, printed beside)."""
    d = _ok(df)
    s = d[d["strategy"] == strategy].groupby(x)[col].mean().sort_index()
    if len(s) < 2:
        return ClaimResult(False, "not enough points")
    r = s.iloc[-1] / s.iloc[0]
    dtext = ""
    if dat:
        from sim.studies.eires.refs import read_dat
        rows = read_dat(dat)
        lo, hi = min(rows), max(rows)
        st = col.replace("lat_", "")
        dtext = (f"{dat} {st} {rows[lo][st]:.0f} -> {rows[hi][st]:.0f} = "
                 f"{rows[hi][st] / rows[lo][st]:.2f}x")
    return ClaimResult(bool(r >= factor), f"{strategy} {col} {x}={s.index[0]:g}: {s.iloc[0]:.1f}, "
                       f"{x}={s.index[-1]:g}: {s.iloc[-1]:.1f} -> {r:.2f}x (required >= {factor}x)"
                       f"{' ' + paper if paper else ''}" + _dat_suffix(dtext))


def claim_monotone(df, x: str, direction: str, most: str | None = None,
                   col: str = "lat_p50") -> ClaimResult:
    """Every strategy's ``col`` moves with ``x`` (last vs first point) in ``direction``
    ('down' / 'up'); ``most``: that strategy changes most (largest ratio)."""
    d = _ok(df)
    parts, ok, ratios = [], True, {}
    for st, g in d.groupby("strategy"):
        s = g.groupby(x)[col].mean().sort_index()
        r = s.iloc[-1] / s.iloc[0]
        ratios[st] = r if direction == "up" else 1 / r
        good = r < 1 if direction == "down" else r > 1
        ok &= bool(good)
        parts.append(f"{st} {s.iloc[0]:.1f}->{s.iloc[-1]:.1f}{'' if good else ' X'}")
    if most and ratios:
        top = max(ratios, key=ratios.get)
        ok &= top == most
        parts.append(f"most sensitive: {top} (paper: {most})")
    return ClaimResult(ok and bool(ratios), f"{col} vs {x}: " + "; ".join(parts))


def claim_best_at(df, x: str, strategy: str, accept: list, paper, col: str = "lat_p50",
                  tie: float = 0.0, min_spread: float = 1.05,
                  dat: str | None = None) -> ClaimResult:
    """The ``x`` minimising ``col`` for ``strategy`` lies in ``accept`` (ties within ``tie``
    relative count as best); ``dat``: the authors' sweep (its runs in label order matched to
    the sorted ``x`` values by position), its best printed beside."""
    d = _ok(df)
    s = d[d["strategy"] == strategy].groupby(x)[col].mean().sort_index()
    if s.empty:
        return ClaimResult(False, "no rows")
    best = s[s <= s.min() * (1 + tie)].index.tolist()
    spread = float(s.max() / s.min()) if s.min() > 0 else float("inf")
    ok = any(b in accept for b in best) and spread >= min_spread
    return ClaimResult(bool(ok), f"{strategy} {col} by {x}: " +
                       ", ".join(f"{i:g}:{v:.1f}" for i, v in s.items()) +
                       f"; best {best}, max/min {spread:.3f} (paper {paper}, accept {accept}; "
                       f"a curve flatter than {min_spread}x max/min shows no optimum: FAIL)"
                       + _dat_suffix(_dat_best(dat, list(s.index), col) if dat else ""))


def _dat_best(dat: str, xs: list, col: str) -> str:
    from sim.studies.eires.refs import read_dat
    rows = read_dat(dat)
    st = col.replace("lat_", "")
    labels = sorted(rows)
    vals = [rows[k][st] for k in labels]
    j = int(np.argmin(vals))
    at = f" = x {xs[j]:g}" if len(xs) == len(labels) else ""
    return (f"{dat} {st} " + ", ".join(f"{v:.0f}" for v in vals) + f"; best run {j + 1}{at}, "
            f"max/min {max(vals) / min(vals):.3f}")


# ------------------------------------------------------------- claims with two references
def _panel_p(df, panel: dict, stat: str, metric: str = METRIC) -> dict[str, float]:
    """Mean ``stat`` per strategy over the rows of ``panel`` ({column: value}; a column the
    table lacks selects nothing)."""
    d = _ok(df)
    for k, v in panel.items():
        d = d[d[k] == v] if k in d.columns else d.iloc[0:0]
    s = _by_strategy(d, f"lat_{stat}", metric)
    return {k: float(v) for k, v in s.items()}


def claim_ranking(df, panel: dict, dat: str, min_agree: float = 0.8, stat: str = "p50",
                  metric: str = METRIC) -> ClaimResult:
    """Ranking first: the strategies ordered by ``stat`` as the authors' own measurements
    (``artifact_dat/<dat>``) order them, in at least ``min_agree`` of the strategy pairs (a pair
    within 5 % in either counts as agreeing)."""
    from sim.studies.eires.refs import dat_by_strategy, order, pair_agreement
    ours = _panel_p(df, panel, stat, metric)
    ref = dat_by_strategy(dat, stat)
    share, bad = pair_agreement(ours, ref)
    ok = bool(np.isfinite(share) and share >= min_agree)
    return ClaimResult(ok, f"{panel} {metric}_{stat}: cepsim {order(ours)}; artifact dat ({dat}) "
                           f"{order(ref)}; {share:.0%} of pairs agree (required "
                           f"{min_agree:.0%})" + (f"; disagree: {', '.join(bad[:6])}" if bad else ""))


def claim_ratios_two_refs(df, panel: dict, dat: str, text: dict, tolerance_decades: float = 0.5,
                          stat: str = "p50", metric: str = METRIC) -> ClaimResult:
    """Magnitudes second: baseline / Hybrid ratios within ``tolerance_decades`` of the authors'
    dat (the judged reference), the paper text's ratio printed beside each, with a note where
    the dat itself is more than ``tolerance_decades`` from the text."""
    from sim.studies.eires.refs import dat_by_strategy
    ours = _panel_p(df, panel, stat, metric)
    ref = dat_by_strategy(dat, stat)
    parts, ok, contra = [], True, []
    for b, tv in text.items():
        r = ours.get(b, np.nan) / ours.get("Hybrid", np.nan)
        rd = ref[b] / ref["Hybrid"]
        good = bool(np.isfinite(r) and r > 0 and abs(np.log10(r / rd)) <= tolerance_decades)
        ok &= good
        parts.append(f"{b}/Hybrid {r:.2f}x (dat {rd:.2f}x, text {tv}x){'' if good else ' X'}")
        if abs(np.log10(rd / tv)) > tolerance_decades:
            contra.append(f"{b} dat {rd:.1f}x vs text {tv}x")
    note = ("; the authors' own dat contradicts the text: " + ", ".join(contra)) if contra else ""
    return ClaimResult(ok, f"{panel} {metric}_{stat} vs {dat}: " + "; ".join(parts) + note)


def claim_bl3_below(df, policies: list | None = None, col: str = "lat_p50",
                    metric: str = METRIC) -> ClaimResult:
    """BL3 below both BL1 and BL2 at ``col`` in every panel of ``policies`` (section 7.2: "BL3
    outperforms both BL1 and BL2 for Q1", explained by BL3 fetching a complete match's remote
    data at once, so that it waits for the slowest fetch rather than their sum).  Panels with
    no match (NaN) are reported and not judged."""
    keys, groups = _panels(df)
    bad, good, empty = [], [], []
    for key, g in groups:
        if policies and "policy" in g.columns and g["policy"].iloc[0] not in policies:
            continue
        s = _by_strategy(g, col, metric)
        label = _fmt_panel(keys, key)
        if not all(b in s for b in BASELINES) or s[list(BASELINES)].isna().any():
            empty.append(label)
            continue
        text = f"{label} BL3 {s['BL3']:.1f} vs BL1 {s['BL1']:.1f}, BL2 {s['BL2']:.1f}"
        (good if s["BL3"] < min(s["BL1"], s["BL2"]) else bad).append(text)
    n = len(good) + len(bad)
    return ClaimResult(n > 0 and not bad, f"{len(good)}/{n} panels hold ({_col(col, metric)})"
                       + ("; fails: " + "; ".join(bad) if bad else "")
                       + ("; holds: " + "; ".join(good) if good else "")
                       + ("; no match (not judged): " + ", ".join(empty) if empty else ""))


# ------------------------------------------------------------- Fig 9: throughput (§7.1, §7.2)
def _thr_groups(df, policy: str, datasets):
    """(label, group) per (dataset, query, cache[, v1_max]) panel of ``policy`` whose dataset is
    in ``datasets`` (rows with an ``error`` left out)."""
    keys, groups = _panels(df)
    out = []
    for key, g in groups:
        if "policy" in g.columns and g["policy"].iloc[0] != policy:
            continue
        if datasets and "dataset" in g.columns and g["dataset"].iloc[0] not in datasets:
            continue
        out.append((_fmt_panel(keys, key), g))
    return out


def claim_throughput_in_line(df, policy: str = "nongreedy", datasets: list | None = None,
                             min_agree: float = 0.8, stat: str = "p50", metric: str = METRIC,
                             dats: dict | None = None) -> ClaimResult:
    """Fig. 9 (§7.2: "Throughput performance is largely in line with the observed latencies,
    with a few deviations"): in every panel of ``policy`` (restricted to ``datasets``), the
    strategies ranked by throughput (highest first) as by latency ``stat`` (lowest first) in at
    least ``min_agree`` of the strategy pairs (a pair within 5 % in either counts as agreeing,
    ``refs.pair_agreement``).

    Throughput is §7.1's "number of events processed per second": the row's ``throughput``
    column, events / busy virtual time of the run (events replayed flat out; Q2's two patterns
    count each event once per pattern run, ``scenario.py``).  ``dats`` ({panel label: [latency
    dat, throughput dat]}): the same test on the authors' measurements (``plot/dat``
    ``result_throughput_*``: per-interval throughput samples of one run, the mean column = events
    / run time), printed beside, not judged."""
    from sim.studies.eires.refs import dat_by_strategy, pair_agreement
    parts, ok, n = [], True, 0
    for label, g in _thr_groups(df, policy, datasets):
        lat = _by_strategy(g, f"lat_{stat}", metric).dropna()
        thr = g.groupby("strategy")["throughput"].mean().dropna()
        common = [s for s in lat.index if s in thr.index and thr[s] > 0]
        if len(common) < 2:
            continue
        n += 1
        share, bad = pair_agreement({s: float(lat[s]) for s in common},
                                    {s: 1.0 / float(thr[s]) for s in common})
        good = bool(np.isfinite(share) and share >= min_agree)
        ok &= good
        by_thr = sorted(common, key=lambda s: -thr[s])
        parts.append(f"{label}: throughput (events/s) " + ", ".join(
            f"{s} {thr[s]:,.0f}" for s in by_thr) + f"; {share:.0%} of pairs ranked as by "
            f"{_col('lat_' + stat, metric)}{'' if good else ' X'}"
            + (f" (disagree: {', '.join(bad[:6])})" if bad else ""))
    dparts = []
    for label, (ldat, tdat) in (dats or {}).items():
        lat, thr = dat_by_strategy(ldat, stat), dat_by_strategy(tdat, "mean")
        share, bad = pair_agreement(lat, {s: 1.0 / v for s, v in thr.items() if v > 0})
        dparts.append(f"{label} {share:.0%} of pairs (mean throughput " + ", ".join(
            f"{s} {v:,.0f}" for s, v in sorted(thr.items(), key=lambda kv: -kv[1])) + ")"
            + (f", disagree: {', '.join(bad)}" if bad else ""))
    return ClaimResult(n > 0 and ok, f"{n} panels; " + "; ".join(parts)
                       + f" (required >= {min_agree:.0%} of pairs)"
                       + _dat_suffix("; ".join(dparts)))


def claim_throughput_equal(df, strategy: str = "LzEval", policy: str = "nongreedy",
                           datasets: list | None = None, tolerance: float = 0.05,
                           metric: str = METRIC, dats: dict | None = None) -> ClaimResult:
    """Fig. 9 (§7.2: "while *LzEval* with a cost-based cache has a lower median latency compared
    to *LzEval* with LRU, the observed throughput is virtually equivalent"): ``strategy``'s
    throughput with the cost-based cache within ``tolerance`` (relative) of its throughput with
    LRU in every (dataset, query[, v1_max]) of ``policy`` (restricted to ``datasets``).  The two
    median latencies are printed beside (the latency half of the sentence is judged by
    ``claim_cost_vs_lru``).  ``dats`` ({"cost": [latency dat, throughput dat], "lru": [...]}):
    the authors' mean throughput and p50 of the same comparison, printed beside."""
    from sim.studies.eires.refs import dat_by_strategy
    d = _ok(df)
    if "policy" in d.columns:
        d = d[d["policy"] == policy]
    if datasets:
        d = d[d["dataset"].isin(list(datasets))]
    d = d[d["strategy"] == strategy]
    keys = [k for k in ("dataset", "query", "v1_max") if k in d.columns]
    parts, ok, n = [], True, 0
    for key, g in (d.groupby(keys, sort=True) if keys and not d.empty else []):
        thr = g.groupby("cache")["throughput"].mean()
        lat = g.groupby("cache")[metric + "_p50"].mean()
        if "cost" not in thr or "lru" not in thr or not thr["lru"] > 0:
            continue
        n += 1
        r = float(thr["cost"] / thr["lru"])
        good = bool(np.isfinite(r) and abs(r - 1.0) <= tolerance)
        ok &= good
        parts.append(f"{_fmt_panel(keys, key)} {strategy} throughput cost {thr['cost']:,.0f} vs "
                     f"lru {thr['lru']:,.0f} events/s = {r:.3f}x{'' if good else ' X'} "
                     f"({metric}_p50 cost {lat.get('cost', np.nan):.1f} vs lru "
                     f"{lat.get('lru', np.nan):.1f})")
    dtext = ""
    if dats:
        tc = dat_by_strategy(dats["cost"][1], "mean")[strategy]
        tl = dat_by_strategy(dats["lru"][1], "mean")[strategy]
        lc = dat_by_strategy(dats["cost"][0], "p50")[strategy]
        ll = dat_by_strategy(dats["lru"][0], "p50")[strategy]
        dtext = (f"{strategy} mean throughput cost {tc:,.0f} vs lru {tl:,.0f} = {tc / tl:.3f}x, "
                 f"p50 cost {lc:.0f} vs lru {ll:.0f}")
    return ClaimResult(n > 0 and ok, "; ".join(parts) + f" (required within {tolerance:.0%})"
                       + _dat_suffix(dtext))


# ----------------------------------------------- Figs 10-11: the text's percentile statements
def _pct(df, x: str, strategy: str, stat: str) -> "pd.Series":
    """``strategy``'s latency ``stat`` (``p5`` ... ``p95``) by ``x`` (mean over rows)."""
    d = _ok(df)
    d = d[d["strategy"] == strategy] if "strategy" in d.columns else d.iloc[0:0]
    col = f"lat_{stat}"
    if d.empty or col not in d.columns:
        import pandas as pd
        return pd.Series(dtype=float)
    return d.groupby(x)[col].mean().sort_index()


def _at(s, xv: float) -> float:
    """The value of series ``s`` at index ``xv`` (float match), NaN when absent."""
    hit = [v for i, v in s.items() if np.isclose(float(i), float(xv))]
    return float(hit[0]) if hit else float("nan")


def _dat_pct(dats: dict | None, dat_x: dict | None, strategy: str, stat: str):
    """The authors' sweep of ``strategy`` as a series over the swept value: ``dats`` maps a
    strategy to its dat file, ``dat_x`` a dat label (as written in the file, e.g. "1000") to the
    value of ``x`` it stands for (labels missing from ``dat_x`` are left out)."""
    import pandas as pd
    from sim.studies.eires.refs import read_dat
    if not dats or strategy not in dats:
        return pd.Series(dtype=float)
    rows = read_dat(dats[strategy])
    lab = {f"{float(k):g}": float(v) for k, v in (dat_x or {}).items()}
    out = {lab[f"{k:g}"]: r[stat] for k, r in rows.items() if f"{k:g}" in lab}
    return pd.Series(out, dtype=float).sort_index()


def _above_text(get, at, above, below) -> tuple[bool, list[str], int]:
    ok, parts, n = True, [], 0
    for xv in at:
        a = get(above[0], above[1])
        av = _at(a, xv)
        for st, stat in below:
            bv = _at(get(st, stat), xv)
            n += 1
            good = bool(np.isfinite(av) and np.isfinite(bv) and av > bv)
            ok &= good
            parts.append(f"at {xv:g}: {above[0]} {above[1]} {av:.0f} vs {st} {stat} {bv:.0f}"
                         f"{'' if good else ' X'}")
    return ok and n > 0, parts, n


def claim_pct_above(df, x: str, at: list, above: list, below: list, dats: dict | None = None,
                    dat_x: dict | None = None) -> ClaimResult:
    """At every ``x`` in ``at``, strategy ``above[0]``'s latency percentile ``above[1]`` exceeds
    each ``[strategy, percentile]`` of ``below`` (Fig. 10a: "Above a 50% noise ratio, its
    median latency already exceeds *LzEval*'s 75th percentile and Hybrid's 95th percentile";
    "at the 90% noise ratio, ... Hybrid's 75th percentile latency is higher than *LzEval*'s").
    ``dats`` / ``dat_x``: the same comparison on the authors' sweep, printed beside."""
    ok, parts, n = _above_text(lambda s, p: _pct(df, x, s, p), at, above, below)
    dtext = ""
    if dats:
        dok, dparts, dn = _above_text(lambda s, p: _dat_pct(dats, dat_x, s, p), at, above,
                                      below)
        dtext = f"{'holds' if dok else 'fails'}: " + "; ".join(dparts)
    return ClaimResult(bool(ok), f"{x}: " + "; ".join(parts) + _dat_suffix(dtext))


def _stable_text(get, stats, within, max_spread) -> tuple[bool, list[str]]:
    ok, parts = True, []
    for stat in stats:
        s = get(stat)
        if within:
            s = s[[any(np.isclose(float(i), float(w)) for w in within) for i in s.index]]
        s = s.dropna()
        if len(s) < 2 or not s.min() > 0:
            ok = False
            parts.append(f"{stat}: {len(s)} points X")
            continue
        spread = float(s.max() / s.min())
        good = spread <= max_spread
        ok &= good
        parts.append(f"{stat} " + ", ".join(f"{v:.0f}" for v in s) + f" (max/min {spread:.2f}"
                     f"{'' if good else ' X'})")
    return ok and bool(stats), parts


def claim_pct_stable(df, x: str, strategy: str, stats: list, max_spread: float = 1.2,
                     within: list | None = None, dats: dict | None = None,
                     dat_x: dict | None = None) -> ClaimResult:
    """``strategy``'s latency percentiles ``stats`` stable over ``x`` (every value of ``x``, or
    those in ``within``): max/min <= ``max_spread`` each (Fig. 10a: "*LzEval* ... obtaining
    stable latencies across noise levels for the 5th and 25th percentile, as well as the
    median"; Fig. 11a: "especially stable median latencies" for omega_fetch in [0.5, 0.9]).
    ``dats`` / ``dat_x``: the same test on the authors' sweep, printed beside."""
    ok, parts = _stable_text(lambda p: _pct(df, x, strategy, p), stats, within, max_spread)
    dtext = ""
    if dats:
        dok, dparts = _stable_text(lambda p: _dat_pct(dats, dat_x, strategy, p), stats, within,
                                   max_spread)
        dtext = f"{'holds' if dok else 'fails'}: " + "; ".join(dparts)
    return ClaimResult(bool(ok), f"{strategy} by {x}" + (f" in {within}" if within else "")
                       + ": " + "; ".join(parts) + f" (stable: max/min <= {max_spread})"
                       + _dat_suffix(dtext))


def _spearman(s) -> float:
    """Spearman rank correlation of a series' values with its index (average ranks)."""
    import pandas as pd
    if len(s) < 2:
        return float("nan")
    a = pd.Series(np.asarray(s.index, dtype=float)).rank().to_numpy()
    b = pd.Series(s.to_numpy(dtype=float)).rank().to_numpy()
    if a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def _rises_text(s) -> tuple[bool, str]:
    s = s.dropna()
    if len(s) < 2:
        return False, f"{len(s)} points"
    rho = _spearman(s)
    good = bool(s.iloc[-1] > s.iloc[0] and np.isfinite(rho) and rho > 0)
    return good, (", ".join(f"{i:g}: {v:.0f}" for i, v in s.items())
                  + f"; last/first {s.iloc[-1] / s.iloc[0]:.2f}x, Spearman {rho:+.2f}")


def claim_pct_rises(df, x: str, strategy: str, stat: str, dats: dict | None = None,
                    dat_x: dict | None = None) -> ClaimResult:
    """``strategy``'s latency ``stat`` grows along with ``x``: higher at the largest ``x`` than at
    the smallest, and rank-correlated with ``x`` (Spearman > 0) (Fig. 10a: "especially
    *LzEval*'s 95th percentile latency grows along with an increasing noise ratio").
    ``dats`` / ``dat_x``: the same test on the authors' sweep, printed beside."""
    ok, text = _rises_text(_pct(df, x, strategy, stat))
    dtext = ""
    if dats:
        dok, dt = _rises_text(_dat_pct(dats, dat_x, strategy, stat))
        dtext = f"{'holds' if dok else 'fails'}: {dt}"
    return ClaimResult(ok, f"{strategy} {stat} by {x}: {text} (required: last > first and "
                       "Spearman > 0)" + _dat_suffix(dtext))


def _lower_text(get, stats, at, than) -> tuple[bool, list[str]]:
    ok, parts = True, []
    for stat in stats:
        s = get(stat)
        va, vt = _at(s, at), _at(s, than)
        good = bool(np.isfinite(va) and np.isfinite(vt) and va < vt)
        ok &= good
        parts.append(f"{stat} {va:.0f} at {at:g} vs {vt:.0f} at {than:g}{'' if good else ' X'}")
    return ok and bool(stats), parts


def claim_pct_lower_at(df, x: str, strategy: str, stats: list, at: float, than: float,
                       dats: dict | None = None, dat_x: dict | None = None) -> ClaimResult:
    """``strategy``'s latency percentiles ``stats`` lower at ``x = at`` than at ``x = than``
    (Fig. 11a: "increasing the weight reduces the 75th and 95th percentile latencies", up to
    the optimum omega_fetch = 0.7).  ``dats`` / ``dat_x``: the same test on the authors' sweep,
    printed beside."""
    ok, parts = _lower_text(lambda p: _pct(df, x, strategy, p), stats, at, than)
    dtext = ""
    if dats:
        dok, dparts = _lower_text(lambda p: _dat_pct(dats, dat_x, strategy, p), stats, at, than)
        dtext = f"{'holds' if dok else 'fails'}: " + "; ".join(dparts)
    return ClaimResult(ok, f"{strategy} by {x}: " + "; ".join(parts) + _dat_suffix(dtext))


# ------------------------------------------------------- Fig 13: the section 7.4 case studies
def _label(panel: dict) -> str:
    return "/".join(str(v) for v in panel.values())


def claim_case_ratios(df, panels: list, paper: dict, stat: str = "p50",
                      tolerance_decades: float = 0.5, dat: str | None = None) -> ClaimResult:
    """Fig. 13: baseline / Hybrid ratios of latency percentile ``stat`` within
    ``tolerance_decades`` of the paper's factors (``paper`` = {baseline: factor}) in every panel
    of ``panels`` (each a {column: value} selection); ``dat``: the authors' ratios printed
    beside (not judged)."""
    ok, parts, n = True, [], 0
    for panel in panels:
        s = _panel_p(df, panel, stat)
        for b, pv in paper.items():
            r = s.get(b, np.nan) / s.get("Hybrid", np.nan)
            good = bool(np.isfinite(r) and r > 0 and abs(np.log10(r / pv)) <= tolerance_decades)
            ok &= good
            n += 1
            parts.append(f"{_label(panel)} {b}/Hybrid {r:.2f}x (paper {pv}x)"
                         f"{'' if good else ' X'}")
    dtext = ""
    if dat:
        ref = _dat_p(dat, stat)
        dtext = ", ".join(f"{b}/Hybrid {ref[b] / ref['Hybrid']:.2f}x" for b in paper
                          if b in ref and "Hybrid" in ref) or "no Hybrid row"
    return ClaimResult(bool(ok and n), f"lat_{stat}: " + "; ".join(parts) + _dat_suffix(dtext))


def claim_case_best(df, panels: list, strategy: str = "Hybrid", stats: list | None = None,
                    factor: float = 1.1) -> ClaimResult:
    """Fig. 13: ``strategy`` best, or within ``factor`` of the best, at every percentile of
    ``stats`` (default p50, p95) in every panel."""
    stats = stats or ["p50", "p95"]
    bad, n = [], 0
    for panel in panels:
        for stat in stats:
            s = {k: v for k, v in _panel_p(df, panel, stat).items() if np.isfinite(v)}
            if strategy not in s:
                continue
            n += 1
            best = min(s, key=s.get)
            if s[strategy] > factor * s[best]:
                bad.append(f"{_label(panel)} {stat}: {strategy} {s[strategy]:.0f} vs {best} "
                           f"{s[best]:.0f}")
    return ClaimResult(n > 0 and not bad, f"{n - len(bad)}/{n} panel-percentiles with "
                       f"{strategy} within {factor}x of the best" +
                       ("; fails: " + "; ".join(bad) if bad else ""))


def claim_case_below(df, panels: list, ours: list | None = None,
                     stat: str = "p50") -> ClaimResult:
    """Fig. 13a: each of ``ours`` (default PFetch, LzEval, Hybrid) below every baseline at
    ``stat`` in every panel ("all our approaches outperforming the baselines")."""
    ours = ours or ["PFetch", "LzEval", "Hybrid"]
    bad, n = [], 0
    for panel in panels:
        s = _panel_p(df, panel, stat)
        base = {b: s[b] for b in BASELINES if b in s and np.isfinite(s[b])}
        for st in ours:
            if st not in s or not base:
                continue
            n += 1
            lo = min(base, key=base.get)
            if not s[st] < base[lo]:
                bad.append(f"{_label(panel)} {st} {s[st]:.0f} >= {lo} {base[lo]:.0f}")
    return ClaimResult(n > 0 and not bad, f"{n - len(bad)}/{n} below every baseline at {stat}"
                       + ("; fails: " + "; ".join(bad) if bad else ""))


def claim_case_close_except(df, panels: list, a: str = "PFetch", b: str = "Hybrid",
                            close: list | None = None, apart: str = "p95",
                            within: float = 1.5) -> ClaimResult:
    """Fig. 13a: ``a`` within ``within``x of ``b`` at each percentile of ``close`` (default
    p5-p75: "similar performance") and more than ``within``x above it at ``apart`` ("except for
    the long tail, 95th percentile latency"), in every panel."""
    close = close or ["p5", "p25", "p50", "p75"]
    ok, parts = True, []
    for panel in panels:
        for stat in close + [apart]:
            s = _panel_p(df, panel, stat)
            r = s.get(a, np.nan) / s.get(b, np.nan)
            good = bool(np.isfinite(r) and (1 / within <= r <= within if stat != apart
                                            else r > within))
            ok &= good
            parts.append(f"{_label(panel)} {stat} {a}/{b} {r:.2f}x{'' if good else ' X'}")
    return ClaimResult(bool(ok and parts), "; ".join(parts) + f" (required: within {within}x "
                       f"at {', '.join(close)}; above {within}x at {apart})")


def claim_case_below_and_best(df, panels: list, factor: float = 1.1) -> ClaimResult:
    """Fig. 13a, one sentence: "all our approaches outperforming the baselines and Hybrid
    performing best" - ``claim_case_below`` (p50) and ``claim_case_best`` (p50, p95) both."""
    a = claim_case_below(df, panels)
    b = claim_case_best(df, panels, factor=factor)
    return ClaimResult(bool(a.passed and b.passed), f"below baselines: {a.measured}; best: "
                       f"{b.measured}")

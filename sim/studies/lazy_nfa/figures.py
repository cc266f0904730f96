"""DEBS'15 lazy evaluation, Figures 7-10, drawn from the results DataFrame only.

Figures 7/8: per 1,000 events, condition evaluations (top row; the tree's take-edge validations,
and dotted the variant that charges its routing decisions as conditions) and
operations = conditions + instance work (bottom row), log y, vs f_c per NFA, one column per regime
(and sequence);
Figure 9: peak active instances vs input size, beside peak buffered events; Figure 10: both metrics per bucket of events along
the phased stream, one row per regime.  Columns come from ``sim/studies/lazy_nfa/scenario.py``
(``evals_<nfa>``, ``ops_<nfa>``, ``peak_inst_<nfa>``, ``evals_series_<nfa>``, ``ops_series_<nfa>``).
"""
from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sim.experiments.figures import save

ORDER = ("eager", "abc", "acb", "bac", "bca", "cab", "cba", "tree")
STYLE = {"eager": dict(color="black", marker="s", lw=2.5),
         "tree": dict(color="tab:red", marker="*", lw=2, ms=10),
         # chains: distinct non-red colours; dashed where they often coincide with eager
         "abc": dict(color="tab:blue", marker="o", lw=1, ls="--"),
         "acb": dict(color="tab:orange", marker="v", lw=1),
         "bac": dict(color="tab:green", marker="^", lw=1, ls="--"),
         "bca": dict(color="tab:purple", marker="<", lw=1),
         "cab": dict(color="tab:brown", marker="D", lw=1),
         "cba": dict(color="tab:olive", marker="P", lw=1)}


def _label(k: str) -> str:
    if k in ("eager", "tree"):
        return f"{k.capitalize()} NFA"
    return f"Chain NFA ({','.join(k)})"


def _keys(df, prefix: str, subset=ORDER) -> list[str]:
    return [k for k in subset if f"{prefix}{k}" in df.columns]


METRIC_LABEL = {"evals": "condition evaluations", "ops": "operations (conditions + instance work)"}


def _regimes(df) -> list:
    return sorted(set(df["regime"]), key=lambda r: r != "paper_regime") if "regime" in df.columns \
        else [None]


def _regime_title(d, regime) -> str:
    if regime is None:
        return ""
    thr = d["threshold"].mean() if "threshold" in d.columns else float("nan")
    return f"{regime} (T = {thr:g})"


def _evals_panel(ax, d, title: str, metric: str = "evals") -> None:
    """One metric vs f_c per NFA, per 1,000 stream events (stream lengths differ across f_c)."""
    g = d.groupby("f_c").mean(numeric_only=True).sort_index()
    per = 1000.0 / g["n_stream_events"]
    for k in _keys(d, f"{metric}_"):
        ax.plot(g.index, g[f"{metric}_{k}"] * per, label=_label(k),
                **STYLE.get(k, dict(marker="o", lw=1)))
    if metric == "evals" and "evals_route_tree" in g.columns:
        # the variant that charges every routing decision as a condition evaluation
        ax.plot(g.index, g["evals_route_tree"] * per, label="Tree NFA, routing as conditions",
                **{**STYLE["tree"], "ls": ":", "marker": "x", "ms": 6})
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$f_c$ (frequency of c relative to a)")
    ax.set_ylabel(f"{METRIC_LABEL[metric]} per 1,000 events")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)


def _grid_fig(df, panels: list[tuple], name: str):
    """Rows: the two metrics; columns: ``panels`` = [(subset, title)]."""
    metrics = [m for m in ("evals", "ops") if any(c.startswith(f"{m}_") for c in df.columns)]
    fig, axes = plt.subplots(len(metrics), len(panels), figsize=(5.6 * len(panels),
                             4.4 * len(metrics)), squeeze=False)
    for i, m in enumerate(metrics):
        for j, (sub, title) in enumerate(panels):
            _evals_panel(axes[i][j], sub, title, m)
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle(name, fontsize=11)
    fig.tight_layout()
    return fig


def fig7(df, out_base: Path) -> list[Path]:
    d = df[df["sequence"] == "a,b,c"] if "sequence" in df.columns else df
    data = sorted(set(d["data"]))[0] if "data" in d.columns else "synthetic"
    what = {"synthetic": "synthetic stock-like stream (sectors)",
            "nasdaq": "NASDAQ sample, single tickers a,b,c = DRIV,ORLY,MSFT (not sectors)"}
    panels = []
    for r in _regimes(d):
        sub = d if r is None else d[d["regime"] == r]
        panels.append((sub, f"a,b,c, {_regime_title(sub, r)}"))
    fig = _grid_fig(d, panels, f"Fig 7: sequence a,b,c on the {what.get(data, data)}")
    return save(fig, out_base)


def fig8(df, out_base: Path) -> list[Path]:
    seqs = [s for s in ("c,b,a", "a,c,b") if s in set(df["sequence"])]
    panels = []
    for sq in seqs:
        ds = df[df["sequence"] == sq]
        for r in _regimes(ds):
            sub = ds if r is None else ds[ds["regime"] == r]
            panels.append((sub, f"{sq}, {_regime_title(sub, r)}"))
    data = sorted(set(df["data"]))[0] if "data" in df.columns else "synthetic"
    what = {"synthetic": "synthetic stream",
            "nasdaq": "NASDAQ sample, single tickers a,b,c = DRIV,ORLY,MSFT (not sectors)"}
    fig = _grid_fig(df, panels, f"Fig 8: sequences c,b,a and a,c,b ({what.get(data, data)})")
    return save(fig, out_base)


def fig9(df, out_base: Path) -> list[Path]:
    """Left: peak active instances vs input size (the paper's Figure 9); right, when the rows
    carry ``peak_buf_<nfa>``: peak buffered events (section 7's second memory metric: the lazy
    NFAs' input buffers, eager's match buffers), every NFA.  One line style per regime
    (solid: the first regime, dashed: the second)."""
    regs = _regimes(df)
    has_buf = any(c.startswith("peak_buf_") for c in df.columns)
    fig, axes = plt.subplots(1, 2 if has_buf else 1, figsize=(13 if has_buf else 7, 5),
                             squeeze=False)
    ax, axb = axes[0][0], (axes[0][1] if has_buf else None)
    for j, r in enumerate(regs):
        d = df if r is None else df[df["regime"] == r]
        g = d.groupby("n_events").mean(numeric_only=True).sort_index()
        ls = "-" if j == 0 else "--"
        tag = "" if r is None else f", {r}"
        for k in _keys(d, "peak_inst_", ("eager", "abc", "bac", "cab", "tree")):
            col = f"peak_inst_transient_{k}"
            # lazy NFAs: peak including instances living inside one event; eager: after-event gauge
            y = g[col] if col in g.columns and (g[col] >= 0).all() else g[f"peak_inst_{k}"]
            ax.plot(g.index, y, label=_label(k) + tag, **{**STYLE.get(k, dict(marker="o", lw=1)),
                                                          "ls": ls})
        if axb is not None:
            for k in _keys(d, "peak_buf_"):
                axb.plot(g.index, g[f"peak_buf_{k}"], label=_label(k) + tag,
                         **{**STYLE.get(k, dict(marker="o", lw=1)), "ls": ls})
    ax.set_xlabel("Input size (events)")
    ax.set_ylabel("Peak number of simultaneously active instances")
    ax.set_title("Sequence a,b,c")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    if axb is not None:
        axb.set_xlabel("Input size (events)")
        axb.set_ylabel("Peak buffered events (input buffers; eager: match buffers)")
        axb.set_title("Sequence a,b,c: buffered events (section 7)")
        axb.grid(True, alpha=0.3)
        axb.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    return save(fig, out_base)


def fig10(df, out_base: Path) -> list[Path]:
    """Rows: (regime, rate spread) pairs; columns: the two metrics; per bucket of events, every
    NFA; dotted lines at the phase switches, each phase labelled with its rare -> frequent
    order."""
    spreads = (sorted(df["rate_spread"].astype(float).unique()) if "rate_spread" in df.columns
               else [None])
    panels = [(reg, sp) for reg in _regimes(df) for sp in spreads]
    metrics = [m for m in ("evals", "ops") if any(c.startswith(f"{m}_series_") for c in df.columns)]
    fig, axes = plt.subplots(len(panels), len(metrics),
                             figsize=(9 * len(metrics), 4.4 * len(panels)), squeeze=False)
    for i, (reg, sp) in enumerate(panels):
        d = df if reg is None else df[df["regime"] == reg]
        if sp is not None:
            d = d[np.isclose(d["rate_spread"].astype(float), sp)]
        r = d.iloc[0]
        bucket = int(r["bucket_events"])
        period = int(r.get("period_events", 0) or 0)
        labels = json.loads(r["phases"]) if "phases" in r else []
        for j, m in enumerate(metrics):
            ax = axes[i][j]
            for k in _keys(df, f"{m}_series_"):
                y = np.array(json.loads(r[f"{m}_series_{k}"]), dtype=float)
                x = (np.arange(len(y)) + 1) * bucket
                ax.plot(x, np.maximum(y, 1), label=_label(k), **{**STYLE.get(k, dict(lw=1)),
                                                                 "marker": None})
            if period:
                n = int(r["n_stream_events"])
                for q, x0 in enumerate(range(0, n, period)):
                    if x0:
                        ax.axvline(x0, color="grey", ls=":", lw=0.8)
                    if labels:
                        ax.text(x0 + period / 2, 1.0, ",".join(labels[q % len(labels)]),
                                transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                                fontsize=8)
            ax.set_yscale("log")
            ax.set_xlabel("Events from the beginning of the stream (phase label: rare -> frequent)")
            ax.set_ylabel(f"{METRIC_LABEL[m]} per {bucket:,} events")
            sp_txt = "" if sp is None else f", rate spread {sp:g}x"
            ax.set_title(f"Fig 10, a,b,c, {_regime_title(df[df['regime'] == reg] if reg else df, reg)}"
                         f"{sp_txt}", fontsize=10, pad=14)
            ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return save(fig, out_base)


def sensitivity_selectivity(df, out_base: Path) -> list[Path]:
    """SENSITIVITY (not a paper figure): tree/best-chain, eager/best-chain and c,a,b / c,b,a
    condition-evaluation ratios vs the measured selectivity of the correlation conditions
    (``sel_min``: the smaller pass rate of corr(a,b)>T and corr(b,c)>T), one line per f_c;
    the point at the paper-figure default T = 0.8 is ringed."""
    chains = [k for k in ORDER if k not in ("eager", "tree") and f"evals_{k}" in df.columns]
    g = df.groupby(["f_c", "threshold"]).mean(numeric_only=True).reset_index()
    best = g[[f"evals_{k}" for k in chains]].min(axis=1).clip(lower=1)
    g["tree_over_best"] = g["evals_tree"] / best
    g["eager_over_best"] = g["evals_eager"] / best
    g["cab_over_cba"] = g["evals_cab"] / g["evals_cba"].clip(lower=1)
    # a zero measured pass rate cannot sit on a log axis: draw it at 0.5 / pairs sampled (open)
    npairs = g[[c for c in g.columns if c.startswith("sel_pairs_")]].min(axis=1).clip(lower=1)
    g["zero_sel"] = g["sel_min"] <= 0
    g["sel_min"] = np.where(g["zero_sel"], 0.5 / npairs, g["sel_min"])
    panels = [("tree_over_best", "Tree NFA / best chain"),
              ("eager_over_best", "Eager NFA / best chain"),
              ("cab_over_cba", "Chain (c,a,b) / chain (c,b,a)")]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (col, lab) in zip(axes, panels):
        for i, (fc, d) in enumerate(g.groupby("f_c")):
            d = d.sort_values("sel_min")
            c = colors[i % len(colors)]
            ax.plot(d["sel_min"], d[col], marker="o", color=c, label=f"$f_c$ = {fc:g}")
            dflt = d[np.isclose(d["threshold"], 0.8)]
            ax.scatter(dflt["sel_min"], dflt[col], s=160, facecolors="none", edgecolors=c,
                       lw=1.5, zorder=5)
            z = d[d["zero_sel"]]
            ax.scatter(z["sel_min"], z[col], s=60, marker="<", facecolors="white",
                       edgecolors=c, zorder=6)
        ax.axhline(1.0, color="grey", lw=0.8)
        if col == "tree_over_best":
            ax.axhline(1.1, color="tab:red", ls="--", lw=1, label="paper: tree ≤ 1.1 × best")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Measured selectivity of corr > T (min of a–b, b–c pass rates)")
        ax.set_ylabel(f"{lab} (condition evaluations)")
        ax.set_title(lab)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8, title="ringed: T = 0.8 (Fig 7 default)\n"
                   "open ◁: no pair passed, drawn at 0.5/pairs", title_fontsize=8)
    fig.suptitle("SENSITIVITY (not a paper figure): Fig 7 workload, sequence a,b,c, "
                 "correlation threshold T varied", fontsize=11)
    fig.tight_layout()
    return save(fig, out_base)


def swing_sensitivity(df, out_base: Path) -> list[Path]:
    """SENSITIVITY (not a paper figure): tree / best chain vs the amplitude of the a/b
    rate swing (0 = none), one line per (swing shape, f_c); rows: regimes, columns: the two
    metrics.  Below 1 is the paper's observation 4 ("slightly better than the best chain")."""
    chains = [k for k in ORDER if k not in ("eager", "tree")]
    regs = _regimes(df)
    metrics = [m for m in ("evals", "ops") if f"{m}_tree" in df.columns]
    fig, axes = plt.subplots(len(regs), len(metrics), figsize=(6.2 * len(metrics), 4.4 * len(regs)),
                             squeeze=False)
    for i, reg in enumerate(regs):
        d = df if reg is None else df[df["regime"] == reg]
        for j, m in enumerate(metrics):
            ax = axes[i][j]
            ks = [k for k in chains if f"{m}_{k}" in d.columns]
            g = d.groupby(["f_c", "swing", "fluctuation"]).mean(numeric_only=True).reset_index()
            g["ratio"] = g[f"{m}_tree"] / g[[f"{m}_{k}" for k in ks]].min(axis=1).clip(lower=1)
            for (fc, sw), h in g.groupby(["f_c", "swing"]):
                h = h.sort_values("fluctuation")
                ax.plot(h["fluctuation"], h["ratio"], marker="o" if sw == "sine" else "s",
                        ls="-" if sw == "sine" else "--", label=f"{sw}, $f_c$ = {fc:g}")
            ax.axhline(1.0, color="grey", lw=0.8)
            ax.set_xlabel("a/b rate swing amplitude (0 = no swing)")
            ax.set_ylabel(f"tree / best chain, {METRIC_LABEL[m]}")
            ax.set_title(_regime_title(d, reg), fontsize=10)
            ax.grid(True, alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.suptitle("SENSITIVITY (not a paper figure): Fig 7 workload, a/b rate swing varied",
                 fontsize=11)
    fig.tight_layout()
    return save(fig, out_base)

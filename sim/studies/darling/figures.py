"""DARLING (PVLDB'22) figures from results only.

``fig678``: one row of three panels per experiment -- % of matches found (Fig. 6), mean
detection latency (Fig. 7, log scale) and peak memory (Fig. 8) against the experiment's axis;
``fig9``: % matches and latency vs overload rate; ``fig10``: latency with no dropping.  Lines:
one per method; DARLING bold.

The axes are the paper's (Section 5.1, Figs. 6-10): a window-size panel is drawn against the
average number of pattern events per window (row column ``avg_pattern_events_per_window``), a
partial-matches panel against the average number of partial matches per window
(``avg_pms_per_window``; both defined in ``sim.studies.darling.axes``), each point labelled
with its knob (W in ms, the threshold X); rows without those columns fall back to the knob.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from sim.experiments.figures import save
from sim.experiments.results import ok_rows

LABEL = {"darling": "DARLING", "random_input": "random input", "random_pm": "random PM",
         "espice": "eSPICE", "hspice": "hSPICE", "icde20": "Zhao et al. (ICDE'20)",
         "none": "no shedding"}
ORDER = ["darling", "random_input", "random_pm", "espice", "hspice", "icde20", "none"]
AXIS = {"window_ms": "window size W (ms)", "length": "pattern length",
        "b_keep": "fraction of ball events kept by b.v > X (partial matches per window)",
        "b_threshold": "ball speed threshold X in b.v > X (fewer partial matches as X rises)",
        "overload": "overload rate (fraction of the stream at peak rate)"}


#: knob column -> the paper's axis column (sim.studies.darling.axes)
PAPER_AXIS = {"window_ms": "avg_pattern_events_per_window",
              "b_threshold": "avg_pms_per_window", "b_keep": "avg_pms_per_window"}
AXIS.update({"avg_pattern_events_per_window": "average number of pattern events per window",
             "avg_pms_per_window": "average number of partial matches per window"})
KNOB_UNIT = {"window_ms": "W = {:g} ms", "b_threshold": "X = {:g}", "b_keep": "keep {:g}"}


def _paper_axis(d, knob: str) -> str:
    """The column to draw on the x-axis: the paper's average for ``knob`` when every row has
    it, else the knob itself."""
    col = PAPER_AXIS.get(knob)
    if col is not None and col in d.columns and d[col].notna().all():
        return col
    return knob


def knob_label(knob: str, value: float) -> str:
    """A knob value as drawn at the top of a panel (``KNOB_UNIT``); a window of whole minutes
    (the stock panels: Table 1's windows are minutes) as minutes."""
    if knob == "window_ms" and value >= 60000 and float(value) % 60000 == 0:
        return f"W = {value / 60000:g} min"
    return KNOB_UNIT.get(knob, knob + " = {:g}").format(value)


def _knob_labels(ax, d, knob: str, xcol: str) -> None:
    """Mark each x position with its knob value on a secondary axis at the top (one tick per
    distinct knob value)."""
    if xcol == knob:
        return
    pos = d.groupby(knob)[xcol].mean().sort_values()
    top = ax.secondary_xaxis("top")
    top.set_xticks(pos.to_numpy(), [knob_label(knob, k) for k in pos.index], fontsize=6,
                   rotation=30)
    top.minorticks_off()


def _xscale(ax, d, x: str) -> None:
    """Log x when the axis spans a factor of 10 or more (the paper's window and partial-match
    panels), else linear."""
    v = d[x].to_numpy(dtype=float)
    v = v[v > 0]
    if x != "length" and v.size and v.max() >= 10 * v.min():
        ax.set_xscale("log")


def _axis(df) -> str:
    for x in ("window_ms", "length", "b_keep", "b_threshold", "overload"):
        if x in df.columns and df[x].nunique() > 1:
            return x
    return "window_ms"


def _lines(ax, d, x, y, logy=False):
    if y.startswith("latency") and "matches_measured" in d.columns:
        d = d.copy()
        d.loc[d["matches_measured"] == 0, y] = float("nan")   # no match: no latency
    for mth in ORDER:
        g = d[d["method"] == mth]
        if g.empty:
            continue
        m = g.groupby(x, sort=True)[y].agg(["mean", "std"])
        ax.errorbar(m.index.to_numpy(), m["mean"].to_numpy(),
                    yerr=m["std"].fillna(0).to_numpy(), marker="o", ms=3,
                    lw=2.2 if mth == "darling" else 1.0, label=LABEL[mth], capsize=2)
    if logy:
        ax.set_yscale("log")


def _factors(d) -> list:
    """(shape, peak load lambda_peak / mu) pairs present, one figure row each; [None] when
    there is one."""
    if "peak_factor" not in d.columns:
        return [None]
    sh = d["shape"] if "shape" in d.columns else None
    pairs = sorted({(str(a), float(b)) for a, b in zip(
        sh if sh is not None else ["peaks"] * len(d), d["peak_factor"])},
        key=lambda p: (p[0] != "testbed", p[1]))
    return pairs if len(pairs) > 1 else [None]


def _rows_of(d, pf):
    """The rows of one ``_factors`` entry."""
    if pf is None:
        return d
    g = d[d["peak_factor"] == pf[1]]
    return g[g["shape"] == pf[0]] if "shape" in g.columns else g


def _label(pf) -> str:
    return f"{pf[0]}, peak {pf[1]:g} x mu"


def fig678(df, out_base: Path) -> list[Path]:
    d = ok_rows(df)
    knob = _axis(d)
    x = _paper_axis(d, knob)
    d = d.copy()
    d["peak_memory_kb"] = d["peak_memory_bytes"] / 1024.0
    facs = _factors(d)
    fig, axs = plt.subplots(len(facs), 3, figsize=(13, 3.6 * len(facs)), squeeze=False)
    for row, pf in zip(axs, facs):
        g = _rows_of(d, pf)
        _lines(row[0], g, x, "kept_pct")
        row[0].set_ylabel("% of matches found (Eq. 4)")
        _lines(row[1], g, x, "latency_mean", logy=True)
        lm = g.groupby(x)["lmax_s"].mean()
        row[1].plot(lm.index, lm.values, "k--", lw=0.8, label="Lmax")
        row[1].set_ylabel("mean detection latency (s, log)")
        _lines(row[2], g, x, "peak_memory_kb", logy=True)
        row[2].set_ylabel("peak memory (KiB, log)")
        for ax, t in zip(row, ("Fig. 6", "Fig. 7", "Fig. 8")):
            ax.set_xlabel(AXIS.get(x, x))
            ax.set_title(t if pf is None else f"{t}, {_label(pf)}")
            _xscale(ax, g, x)
            _knob_labels(ax, g, knob, x)
    axs[0][1].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out_base)


def fig_peaks(df, out_base: Path) -> list[Path]:
    """Section 5.1's number-of-peaks measurement (peaks_count.toml): % of matches found and mean
    latency against the number of load peaks, one row per window."""
    d = ok_rows(df)
    ws = sorted(d["window_ms"].unique()) if "window_ms" in d.columns else [None]
    fig, axs = plt.subplots(len(ws), 2, figsize=(9, 3.4 * len(ws)), squeeze=False)
    for row, w in zip(axs, ws):
        g = d if w is None else d[d["window_ms"] == w]
        _lines(row[0], g, "n_peaks", "kept_pct")
        row[0].set_ylabel("% of matches found (Eq. 4)")
        _lines(row[1], g, "n_peaks", "latency_mean", logy=True)
        lm = g.groupby("n_peaks")["lmax_s"].mean()
        row[1].plot(lm.index, lm.values, "k--", lw=0.8, label="Lmax")
        row[1].set_ylabel("mean detection latency (s, log)")
        for ax in row:
            ax.set_xlabel("number of load peaks (70 % of the data)")
            ax.set_xscale("log", base=2)
            ks = sorted(int(k) for k in g["n_peaks"].unique())
            ax.set_xticks(ks, [str(k) for k in ks])
            ax.minorticks_off()
            ax.set_title(f"soccer Q1, W = {w:g} ms" if w is not None else "soccer Q1")
    axs[0][1].legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out_base)


def fig9(df, out_base: Path) -> list[Path]:
    d = ok_rows(df)
    facs = _factors(d)
    fig, axs = plt.subplots(len(facs), 2, figsize=(9, 3.6 * len(facs)), squeeze=False)
    for row, pf in zip(axs, facs):
        g = _rows_of(d, pf)
        _lines(row[0], g, "overload", "kept_pct")
        row[0].set_ylabel("% of matches found")
        _lines(row[1], g, "overload", "latency_mean", logy=True)
        row[1].set_ylabel("mean detection latency (s, log)")
        for ax in row:
            ax.set_xlabel(AXIS["overload"])
            if pf is not None:
                ax.set_title(_label(pf))
    axs[0][1].legend(fontsize=7)
    fig.suptitle("Fig. 9: one continuous peak")
    fig.tight_layout()
    return save(fig, out_base)


def fig10(df, out_base: Path) -> list[Path]:
    d = ok_rows(df)
    knob = _axis(d)
    x = _paper_axis(d, knob)
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    _lines(ax, d, x, "latency_mean", logy=True)
    ax.set_xlabel(AXIS.get(x, x))
    _xscale(ax, d, x)
    _knob_labels(ax, d, knob, x)
    ax.set_ylabel("mean detection latency (s, log)")
    ax.set_title("Fig. 10: latency overhead, no dropping")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out_base)


VARIANTS = ["paper", "equal budgets", "local check", "random victim", "free ingest",
            "peak 50 (old 100x lambda0)", "peak 5 (old 10x lambda0)", "random input peak 5",
            "free ingest, peak 5", "random input", "random PM",
            "q1 README form", "random input, q1 README form", "cap 60000 x Lmax (old 1800 s)",
            "random PM, cap 60000 x Lmax", "hSPICE replicated", "hSPICE shared",
            "eSPICE shared", "ICDE20 fixed", "ICDE20 artifact", "N_in 500", "N_in 2000",
            "warm-up 20 %", "hSPICE 5 bins", "hSPICE 20 bins", "ICDE20 2 classes",
            "ICDE20 8 classes", "authors' code (rate budgets, local check)",
            "random PM, stop on rate", "hSPICE replicated, stop on rate"]


def fig_sensitivity(df, out_base: Path) -> list[Path]:
    d = ok_rows(df)
    g = d.groupby("variant")[["kept_pct", "latency_mean", "lmax_s"]].mean()
    known = [v for v in VARIANTS if v in g.index]
    g = g.loc[known + sorted(v for v in g.index if v not in VARIANTS)]
    fig, axs = plt.subplots(1, 2, figsize=(12, 5.5))
    y = range(len(g))
    axs[0].barh(list(y), g["kept_pct"].to_numpy())
    axs[0].set_xlabel("% of matches found")
    axs[1].barh(list(y), g["latency_mean"].to_numpy())
    axs[1].axvline(float(g["lmax_s"].mean()), color="k", ls="--", lw=0.8, label="Lmax")
    axs[1].set_xscale("log")
    axs[1].set_xlabel("mean detection latency (s, log)")
    axs[1].legend(fontsize=7)
    for ax in axs:
        ax.set_yticks(list(y))
        ax.set_yticklabels(list(g.index), fontsize=7)
        ax.set_ylabel("shedder variant")
        ax.invert_yaxis()
    fig.suptitle("DARLING options and baseline variants (Q1, W = 50 ms)")
    fig.tight_layout()
    return save(fig, out_base)

"""PVLDB'18 adaptive CEP: Figures 5-7 and the sensitivity studies, from results only.

``fig5``: throughput vs pattern size n for every invariant distance d and d_avg, one panel per
(dataset, planner) present (the paper's (a) traffic/greedy, (b) traffic/ZStream, (c) stocks/
greedy, (d) stocks/ZStream).  ``fig6`` / ``fig7``: per planner (rows) throughput, throughput
relative to static, plan replacements and overhead (%) vs n for static, unconditional,
threshold (best t on the tuning seeds) and invariant (best d on the tuning seeds), on the
evaluation seeds, averaged over the pattern sets that ran (named in the panel title).
``fig_sensitivity``: best-d invariant throughput and false-negative rates vs check_every per K.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.experiments.figures import plt, save
from sim.studies.adaptive.analysis import (COST_AXES, coverage, drift_axes, drift_table,
                                           headroom_table, method_labels, supported_rows, tuned,
                                           zero_match_points)


def _panels(k: int, width: float = 4.2, height: float = 3.6):
    """One row of ``k`` panels (at least one)."""
    return plt.subplots(1, max(1, k), figsize=(width * max(1, k), height), squeeze=False)


def _finish(fig, axes, out_base: Path, fontsize: int = 7, df=None) -> list[Path]:
    """Legend on the first panel, tight layout, the zero-match banner (``df`` given), save."""
    axes.flat[0].legend(fontsize=fontsize)
    fig.tight_layout()
    if df is not None:
        _zero_warning(fig, df)
    return save(fig, out_base)


def _zero_warning(fig, d) -> None:
    """A red banner naming the points whose pattern found no match (their averages measure a
    pattern that cannot match; the claims refuse them, ``analysis.ZeroMatchError``)."""
    z = zero_match_points(d)
    if z:
        fig.text(0.5, 0.995, "ZERO-MATCH POINTS AVERAGED: " + "; ".join(z), color="red",
                 ha="center", va="top", fontsize=7, wrap=True)


def _label(ax, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)


def fig5(df, out_base: Path) -> list[Path]:
    d = supported_rows(df)
    pairs = sorted({(a, b) for a, b in zip(d["dataset"], d["planner"])},
                   key=lambda p: (p[0] != "traffic", p[1]))
    fig, axes = plt.subplots(1, max(1, len(pairs)), figsize=(4.2 * max(1, len(pairs)), 3.6),
                             squeeze=False)
    cmap = plt.get_cmap("viridis")
    for ax, (ds, pl) in zip(axes.flat, pairs):
        g = d[(d["dataset"] == ds) & (d["planner"] == pl)]
        labs = method_labels(g, "inv")
        m = g.groupby("n")[[c + "_thr" for c in labs] + ["invdavg_thr"]].mean()
        for i, c in enumerate(labs):
            ax.plot(m.index, m[c + "_thr"], "o-", ms=3, color=cmap(i / max(1, len(labs) - 1)),
                    label=f"d={c[3:]}")
        ax.plot(m.index, m["invdavg_thr"], "k*--", label="d_avg")
        ax.set_yscale("log")
        ax.set_xlabel("pattern size n")
        ax.set_ylabel("throughput (events/s, virtual time)")
        ax.set_title(f"{ds} / {pl}", fontsize=9)
    axes.flat[0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    _zero_warning(fig, d)
    return save(fig, out_base)


def _methods_fig(df, out_base: Path, dataset: str) -> list[Path]:
    d = supported_rows(df)
    planners = sorted(d[d["dataset"] == dataset]["planner"].unique())
    fig, axes = plt.subplots(max(1, len(planners)), 4, figsize=(15, 3.3 * max(1, len(planners))),
                             squeeze=False)
    style = {"static": ("s-", "gray"), "uncond": ("^-", "tab:red"), "thr": ("D-", "tab:blue"),
             "inv": ("o-", "tab:green")}
    for row, pl in zip(axes, planners):
        try:    # section 5.2's protocol; a run without the SEQ scan rows tunes d instead
            t = tuned(df, dataset, pl, allow_zero=True, d_from="fig5")
        except ValueError:
            t = tuned(df, dataset, pl, allow_zero=True, d_from="tune")
        ns = sorted(t["per_n"])
        names = {"static": "static", "uncond": "unconditional",
                 "thr": f"threshold ({t['best_thr']})",
                 "inv": f"invariant ({t['best_inv']}, d from the {t['d_source']})"}
        for k, (mk, col) in style.items():
            if k not in t["per_n"][ns[0]]:
                continue
            thr = np.array([t["per_n"][n][k]["thr"] for n in ns])
            st = np.array([t["per_n"][n]["static"]["thr"] for n in ns])
            row[0].plot(ns, thr, mk, color=col, label=names[k])
            row[1].plot(ns, thr / st, mk, color=col)
            row[2].plot(ns, [t["per_n"][n][k]["repl"] for n in ns], mk, color=col)
            row[3].plot(ns, [t["per_n"][n][k]["ovh"] for n in ns], mk, color=col)
        row[0].set_ylabel(f"{pl}: throughput (events/s)")
        row[1].set_ylabel("throughput / static")
        row[2].set_ylabel("plan replacements")
        row[3].set_ylabel("overhead of D and A (%)")
        row[0].legend(fontsize=7)
        for ax in row:
            ax.set_xlabel("pattern size n")
    fig.suptitle(f"{dataset}: " + coverage(d[d["dataset"] == dataset]), fontsize=9)
    fig.tight_layout()
    _zero_warning(fig, d[d["dataset"] == dataset])
    return save(fig, out_base)


def fig6(df, out_base: Path) -> list[Path]:
    return _methods_fig(df, out_base, "traffic")


def fig7(df, out_base: Path) -> list[Path]:
    return _methods_fig(df, out_base, "stocks")


def fig_sensitivity(df, out_base: Path) -> list[Path]:
    d = supported_rows(df)
    pairs = sorted({(a, b) for a, b in zip(d["dataset"], d["planner"])})
    fig, axes = plt.subplots(len(pairs), 2, figsize=(10, 3.3 * len(pairs)), squeeze=False)
    for row, (ds, pl) in zip(axes, pairs):
        g = d[(d["dataset"] == ds) & (d["planner"] == pl)]
        for K, gk in sorted(g.groupby("K_used")):
            labs = method_labels(gk, "inv")
            best = max(labs, key=lambda c: gk[c + "_thr"].mean())
            m = gk.groupby("check_every")[[best + "_thr", best + "_fn"]].mean()
            row[0].plot(m.index, m[best + "_thr"], "o-", label=f"K={K} ({best})")
            row[1].plot(m.index, m[best + "_fn"], "o-", label=f"invariant K={K} ({best})")
        tl = method_labels(g, "thr")
        if tl:
            m = g.groupby("check_every")[[c + "_fn" for c in tl]].mean().mean(axis=1)
            row[1].plot(m.index, m, "D--", color="tab:blue", label="threshold (mean over t)")
        for ax in row:
            ax.set_xscale("log")
            ax.set_xlabel("check_every (events)")
        row[0].set_ylabel(f"{ds}/{pl}: throughput")
        row[1].set_ylabel("false-negative rate")
        row[0].legend(fontsize=7)
        row[1].legend(fontsize=7)
    fig.tight_layout()
    _zero_warning(fig, d)
    return save(fig, out_base)


def fig_cost_sensitivity(df, out_base: Path) -> list[Path]:
    """Per (dataset, planner): throughput relative to static of unconditional, threshold (best t)
    and invariant (best d), mean over n on the evaluation seeds, and the headroom, for every cost
    setting of the study (adaptation ratio, deployment cost, overlap charging, base cost; one
    category per setting)."""
    d = supported_rows(df)
    cols = [c for c, _ in COST_AXES if c in d.columns]
    settings = list(d.groupby(cols, sort=False).groups) if cols else []
    labels = []
    for key in settings:
        key = key if isinstance(key, tuple) else (key,)
        labels.append(", ".join(f.format(v) for (c, f), v in zip(
            [(c, f) for c, f in COST_AXES if c in cols], key)))
    pairs = sorted({(a, b) for a, b in zip(d["dataset"], d["planner"])})
    fig, axes = _panels(len(pairs), 4.6, 4.2)
    style = {"uncond": ("^", "tab:red"), "thr": ("D", "tab:blue"), "inv": ("o", "tab:green")}
    x = np.arange(len(settings))
    for ax, (ds, pl) in zip(axes.flat, pairs):
        ys = {k: [] for k in list(style) + ["headroom"]}
        for key in settings:
            key = key if isinstance(key, tuple) else (key,)
            mask = np.ones(len(df), bool)
            for c, v in zip(cols, key):
                mask &= (df[c] == v).to_numpy()
            sub = df[mask]
            t = tuned(sub, ds, pl, allow_zero=True)
            for k in style:
                ys[k].append(np.mean([v[k]["thr"] / v["static"]["thr"]
                                      for v in t["per_n"].values()])
                             if t and k in next(iter(t["per_n"].values())) else np.nan)
            g = supported_rows(sub)
            g = g[(g["dataset"] == ds) & (g["planner"] == pl)]
            ys["headroom"].append(float(g["headroom"].mean()) if "headroom" in g else np.nan)
        for k, (mk, col) in style.items():
            ax.plot(x, ys[k], mk, color=col, label=k)
        ax.plot(x, ys["headroom"], "k*", ms=9, label="headroom")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=6)
        _label(ax, "", "throughput / static (mean over n)", f"{ds} / {pl}")
    return _finish(fig, axes, out_base, df=supported_rows(df))


def fig_headroom(df, out_base: Path) -> list[Path]:
    """Per (dataset, planner): the headroom oracle (static / per-epoch best plan; solid: service
    time with the per-event base cost, dashed: engine work only) vs n, beside the measured gain
    over static of the tuned invariant and threshold methods and of unconditional re-planning
    (evaluation seeds, when the config has tuning and methods)."""
    tab = headroom_table(df)
    pairs = sorted(tab)
    fig, axes = _panels(len(pairs))
    style = {"uncond": ("^:", "tab:red"), "thr": ("D:", "tab:blue"), "inv": ("o:", "tab:green")}
    for ax, (ds, pl) in zip(axes.flat, pairs):
        ns = sorted(tab[(ds, pl)])
        ax.plot(ns, [tab[(ds, pl)][n][0] for n in ns], "k*-", label="headroom (oracle / static)")
        ax.plot(ns, [tab[(ds, pl)][n][1] for n in ns], "k*--", lw=0.8,
                label="headroom, engine work only")
        t = tuned(df, ds, pl, allow_zero=True)
        if t and t["per_n"]:
            for k, (mk, col) in style.items():
                if k not in next(iter(t["per_n"].values())):
                    continue
                tn = sorted(t["per_n"])
                ax.plot(tn, [t["per_n"][n][k]["thr"] / t["per_n"][n]["static"]["thr"]
                             for n in tn], mk, color=col, label=f"{k} / static (measured)")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_yscale("log")
        _label(ax, "pattern size n", "ratio to the static plan", f"{ds} / {pl}")
    return _finish(fig, axes, out_base, 6, df=supported_rows(df))


def fig_tuning(df, out_base: Path) -> list[Path]:
    """Tuning curves: per (dataset, planner), mean throughput on the tuning seeds of the
    threshold method vs t and of the invariant method vs d (relative to static on the same
    rows), with the chosen values marked; a chosen value at the right end means the grid did
    not bracket the optimum."""
    d = supported_rows(df)
    pairs = sorted({(a, b) for a, b in zip(d["dataset"], d["planner"])})
    fig, axes = _panels(len(pairs))
    for ax, (ds, pl) in zip(axes.flat, pairs):
        t = tuned(df, ds, pl, allow_zero=True)
        tune = t["tune"]
        st = float(tune["static_thr"].mean())
        for prefix, labs, best, mk, col, name in (
                ("thr", t["thr_labels"], t["best_thr"], "D-", "tab:blue", "threshold t"),
                ("inv", t["inv_labels"], t["best_inv"], "o-", "tab:green", "invariant d")):
            if not labs:
                continue
            x = [float(lab[len(prefix):]) for lab in labs]
            y = [float(tune[lab + "_thr"].mean()) / st for lab in labs]
            ax.plot(x, y, mk, color=col, ms=3, label=name)
            if best is not None:
                ax.plot([float(best[len(prefix):])], [float(tune[best + "_thr"].mean()) / st],
                        "*", color=col, ms=12, mec="k")
        ax.axhline(1.0, color="gray", lw=0.8, label="static")
        ax.set_xscale("symlog", linthresh=0.05)
        ax.set_xlim(left=0.0)
        _label(ax, "t or d (symlog)", "throughput / static (tuning seeds)", f"{ds} / {pl}")
    return _finish(fig, axes, out_base, df=supported_rows(df))


def fig_drift(df, out_base: Path) -> list[Path]:
    """Drift study: per planner, headroom (oracle / static) and the tuned invariant method's
    gain over static vs each drift axis (the other axes averaged)."""
    import pandas as pd
    rows = drift_table(df, allow_zero=True)
    axes_names = drift_axes(supported_rows(df))
    flat = pd.DataFrame([dict(r["setting"], planner=r["planner"], headroom=r["headroom"],
                              inv=r["rel"].get("inv", np.nan), thr=r["rel"].get("thr", np.nan))
                         for r in rows])
    # zipped axes move together: plot against the first of each group of equal-rank columns
    shown = []
    for a in axes_names:
        if not any(flat.groupby(b)[a].nunique().max() == 1 for b in shown):
            shown.append(a)
    fig, axes = _panels(len(shown), 4.4)
    for ax, a in zip(axes.flat, shown):
        for pl, g in flat.groupby("planner"):
            m = g.groupby(a)[["headroom", "inv", "thr"]].mean()
            ax.plot(m.index, m["headroom"], "k*-" if pl == "greedy" else "k*--",
                    label=f"{pl}: headroom")
            ax.plot(m.index, m["inv"], "o-" if pl == "greedy" else "o--", color="tab:green",
                    label=f"{pl}: invariant / static")
            ax.plot(m.index, m["thr"], "D-" if pl == "greedy" else "D--", color="tab:blue",
                    label=f"{pl}: threshold / static")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log")
        _label(ax, a, "ratio to static (mean over n)", "")
    return _finish(fig, axes, out_base, 6, df=supported_rows(df))

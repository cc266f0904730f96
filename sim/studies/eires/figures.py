"""EIRES (SIGMOD'21) Figures 5-12 from results/eires/*: latency box plots (p5/p25/p50/p75/p95)
per strategy, throughput bars, and the sensitivity sweeps.  Latency is ``lat_*`` (the artifact's
metric: events replayed flat out, emission minus the start of processing of the last event) in
microseconds, log y as the paper."""
from __future__ import annotations

from pathlib import Path

from sim.experiments.figures import plt, save
from sim.experiments.results import ok_rows
from sim.studies.eires.claims import METRIC  # the artifact's metric, as the claims

ORDER = ["BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid"]


def _stats(g, label):
    return {"label": label, "whislo": g[f"{METRIC}_p5"].mean(), "q1": g[f"{METRIC}_p25"].mean(),
            "med": g[f"{METRIC}_p50"].mean(), "q3": g[f"{METRIC}_p75"].mean(),
            "whishi": g[f"{METRIC}_p95"].mean(), "fliers": []}


def _overall(df, out_base: Path, dataset: str) -> list[Path]:
    d = ok_rows(df)
    d = d[d["dataset"] == dataset]
    query = str(d["query"].iloc[0]) if len(d) else "?"
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.6), squeeze=False)
    panels = [("nongreedy", "cost"), ("nongreedy", "lru"), ("greedy", "cost"), ("greedy", "lru")]
    for ax, (pol, cache), letter in zip(axes.flat, panels, "abcd"):
        g = d[(d["policy"] == pol) & (d["cache"] == cache)]
        stats = [_stats(g[g["strategy"] == s], s) for s in ORDER if (g["strategy"] == s).any()]
        if stats:
            ax.bxp(stats, showfliers=False)
        ax.set_yscale("log")
        ax.set_title(f"({letter}) {'Non-greedy' if pol == 'nongreedy' else 'Greedy'}, "
                     f"{'Cost' if cache == 'cost' else 'LRU'}", fontsize=9)
        ax.set_ylabel("Latency (µs)")
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.suptitle(f"{query} over {dataset} (whiskers p5/p95, box p25/p75, line p50)", fontsize=10)
    fig.tight_layout()
    return save(fig, out_base)


def fig_overall_ds1(df, out_base: Path) -> list[Path]:
    return _overall(df, out_base, "DS1")


def fig_overall_ds2(df, out_base: Path) -> list[Path]:
    return _overall(df, out_base, "DS2")


def fig_overall_ds1a(df, out_base: Path) -> list[Path]:
    """DS1 drawn by the authors' generator (workloads.eires, ``DS1a``)."""
    return _overall(df, out_base, "DS1a")


def _listing2(df, out_base: Path, bl3_fetch: str) -> list[Path]:
    """Listing 2's Q1 over DS1a: non-greedy panels from ``Q1L2`` (as written), greedy ones from
    ``Q1L2t`` (its threshold form: the equalities as written give no greedy match), BL3 in the
    ``bl3_fetch`` reading."""
    d = ok_rows(df)
    keep = ((d["policy"] == "nongreedy") & (d["query"] == "Q1L2")) | \
        ((d["policy"] == "greedy") & (d["query"] == "Q1L2t"))
    if "bl3_fetch" in d.columns:
        keep &= d["bl3_fetch"] == bl3_fetch
    sub = d[keep].assign(query="Listing 2's Q1 (greedy panels: its threshold form),")
    return _overall(sub, out_base, "DS1a")


def fig_listing2_serial(df, out_base: Path) -> list[Path]:
    """Listing 2's Q1, BL3 as the artifact (one fetch after another)."""
    return _listing2(df, out_base, "serial")


def fig_listing2_parallel(df, out_base: Path) -> list[Path]:
    """Listing 2's Q1, BL3 as section 7.2 explains it (fetches overlapping)."""
    return _listing2(df, out_base, "parallel")


def fig_throughput(df, out_base: Path) -> list[Path]:
    """Fig. 9: throughput per strategy, Q1 non-greedy (saturated run: events / busy time)."""
    d = ok_rows(df)
    d = d[(d["policy"] == "nongreedy")]
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), squeeze=False)
    for ax, cache in zip(axes.flat, ("cost", "lru")):
        g = d[(d["cache"] == cache) & (d["dataset"] == "DS1")]
        vals = [g[g["strategy"] == s]["throughput"].mean() for s in ORDER]
        ax.bar(ORDER, vals, color="#4a7fb0")
        ax.set_title(f"Q1 non-greedy DS1, {'cost-based' if cache == 'cost' else 'LRU'} cache",
                     fontsize=9)
        ax.set_ylabel("Throughput (events/s)")
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.tight_layout()
    return save(fig, out_base)


def fig_sweep(df, out_base: Path) -> list[Path]:
    """Figs. 10-12: box plots per strategy at each value of the swept parameter."""
    d = ok_rows(df)
    xs = [c for c in ("noise", "cache_size", "cache_share", "latency_unit_us", "omega_fetch",
                      "omega_cache", "lz_block_prob", "artifact_weight", "lookahead", "lz_span")
          if c in d.columns and d[c].nunique() > 1]
    x = xs[0] if xs else "strategy"
    strategies = [s for s in ORDER if (d["strategy"] == s).any()]
    values = sorted(d[x].unique())
    fig, ax = plt.subplots(figsize=(max(5, 1.1 * len(values) * len(strategies)), 3.6))
    stats, pos, colors = [], [], []
    palette = {"PFetch": "#f2b134", "LzEval": "#6aa84f", "Hybrid": "#4a7fb0"}
    for i, v in enumerate(values):
        for j, s in enumerate(strategies):
            g = d[(d[x] == v) & (d["strategy"] == s)]
            if g.empty:
                continue
            stats.append(_stats(g, f"{v:g}" if j == len(strategies) // 2 else ""))
            pos.append(i * (len(strategies) + 1) + j)
            colors.append(palette.get(s, "grey"))
    if stats:
        bp = ax.bxp(stats, positions=pos, showfliers=False, patch_artist=True)
        for patch, c in zip(bp["boxes"], colors):
            patch.set_facecolor(c)
        for s in strategies:
            ax.plot([], [], color=palette.get(s, "grey"), lw=6, label=s)
        ax.legend(fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel("Latency (µs)")
    fig.tight_layout()
    return save(fig, out_base)


def fig_case(df, out_base: Path) -> list[Path]:
    """Fig. 13 (section 7.4): latency box plots (p5/p25/p50/p75/p95) per strategy, one panel per
    (query, strategy_flags) of the rows: the artifact's query, the paper's listing and, where
    run, the labels as the artifact's run script launched them."""
    d = ok_rows(df)
    keys = [k for k in ("query", "strategy_flags") if k in d.columns]
    groups = list(d.groupby(keys, sort=True)) if keys else [("all", d)]
    fig, axes = plt.subplots(1, max(len(groups), 1), figsize=(4.2 * max(len(groups), 1), 3.6),
                             squeeze=False)
    dataset = str(d["dataset"].iloc[0]) if len(d) else "?"
    for ax, (key, g) in zip(axes.flat, groups):
        stats = [_stats(g[g["strategy"] == s], s) for s in ORDER if (g["strategy"] == s).any()]
        if stats:
            ax.bxp(stats, showfliers=False)
        ax.set_yscale("log")
        key = key if isinstance(key, tuple) else (key,)
        ax.set_title(" / ".join(str(k) for k in key), fontsize=9)
        ax.set_ylabel("Latency (µs)")
        ax.tick_params(axis="x", labelrotation=30, labelsize=8)
    fig.suptitle(f"Fig 13 stand-in: {dataset}, greedy, cost-based cache (whiskers p5/p95, box "
                 "p25/p75, line p50)", fontsize=10)
    fig.tight_layout()
    return save(fig, out_base)

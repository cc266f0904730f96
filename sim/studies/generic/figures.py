"""Figures for studies written with the generic scenario (``sim/studies/generic/scenario.py``).

Each function draws from the results table only and saves PNG + PDF through
``sim.experiments.figures.save``; overloaded points (offered load >= 1) are crossed out in red.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt

from sim.experiments.figures import line_plot, save
from sim.experiments.results import ok_rows


def line(df, out_base: Path, x: str = "rate", y: str = "latency_mean", hue: str | None = "engine",
         xlabel: str | None = None, ylabel: str | None = None, title: str | None = None,
         logx: bool = False, logy: bool = False) -> list[Path]:
    """Mean ``y`` vs ``x``, one line per ``hue`` (default: latency vs rate per engine spec)."""
    return line_plot(df, out_base, x=x, y=y, hue=hue, xlabel=xlabel, ylabel=ylabel, title=title,
                     logx=logx, logy=logy)


def counters(df, out_base: Path, metrics: list | None = None, by: str = "engine",
             logy: bool = True, title: str | None = None) -> list[Path]:
    """Grouped bars: mean of each counter total in ``metrics`` per ``by`` value (one stream).

    On the log axis a zero total is drawn as a stub at 0.5 (the operation never happened)."""
    d = ok_rows(df)
    metrics = list(metrics or ["pred_eval", "pm_created", "buf_insert", "match_emit"])
    g = d.groupby(by)[metrics].mean()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    width = 0.8 / max(1, len(g.index))
    for i, (key, row) in enumerate(g.iterrows()):
        xs = [j + i * width for j in range(len(metrics))]
        ax.bar(xs, [max(float(v), 0.5) for v in row.to_numpy()], width, label=str(key))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(metrics))], metrics)
    ax.set_ylabel("operations (whole stream)")
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save(fig, out_base)

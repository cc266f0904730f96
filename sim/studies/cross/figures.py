"""Figures of the cross-paper strategy matrix (``sim/studies/cross/scenario.py``).

``matrix``: two heat maps over (workload, strategy) -- the largest stable rate relative to the
workload's best (annotated with the rate itself) and the mean match latency at the workload's
common offered load relative to the best -- with each paper's own strategy outlined, plus the
same numbers as a markdown table (``<out_base>.md``).
"""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from sim.experiments.figures import save
from sim.experiments.results import ok_rows
from sim.atomic import atomic_write_text


def _grid(d, keys, metric: str) -> np.ndarray:
    from sim.studies.cross.scenario import col
    return np.array([[float(r.get(f"{metric}_{col(k)}", math.nan)) for k in keys]
                     for _, r in d.iterrows()], dtype=float)


def _fmt(v: float, metric: str) -> str:
    if not math.isfinite(v):
        return "-"
    if metric == "lsr":
        return f"{float(f'{v:.3g}'):g}" if v < 1e4 else f"{v / 1e3:.0f}k"
    return f"{v * 1e6:.3g}" if v < 1e-3 else f"{v * 1e3:.3g}m"


def table_markdown(d, keys) -> str:
    """Largest stable rate (events/s) and latency at the common load per (workload, strategy);
    ``**`` marks the workload's best, ``(own)`` the paper's strategy."""
    out = []
    for metric, title, unit in (("lsr", "Largest stable rate", "events/s"),
                                ("lat", "Mean match latency at the common offered load",
                                 "us; m = ms")):
        g = _grid(d, keys, metric)
        out += [f"### {title} ({unit})", "",
                "| workload | " + " | ".join(keys) + " |", "|---|" + "---|" * len(keys)]
        for i, (_, r) in enumerate(d.iterrows()):
            row = g[i]
            fin = row[np.isfinite(row)]
            best = (fin.max() if metric == "lsr" else fin.min()) if len(fin) else math.nan
            own = str(r.get("own") or "").split("|")
            cells = []
            for k, v in zip(keys, row):
                c = _fmt(v, metric)
                if math.isfinite(v) and v == best:
                    c = f"**{c}**"
                if k in own:
                    c += " (own)"
                cells.append(c)
            extra = f" @ {r['common_rate']:.3g}/s" if metric == "lat" else ""
            out.append(f"| {r['workload']}{extra} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def matrix(df, out_base: Path) -> list[Path]:
    """Heat maps of the largest stable rate and of the latency at the common load (module
    docstring), each relative to the workload's best; numbers annotated."""
    from sim.studies.cross.scenario import in_order, strategy_columns
    d = in_order(ok_rows(df))
    d = d[d.get("same_matches", 0) == 1] if "same_matches" in d.columns else d
    keys = [k for k in strategy_columns()
            if any(math.isfinite(float(v)) for v in d.get(f"lsr_{k.replace('-', '_')}", []))]
    if d.empty or not keys:
        raise ValueError("no successful workload rows to draw")
    fig, axes = plt.subplots(1, 2, figsize=(14, 0.55 * len(d) + 2.5))
    for ax, metric, title in ((axes[0], "lsr", "largest stable rate / best (events/s)"),
                              (axes[1], "lat", "best latency / latency at common load")):
        g = _grid(d, keys, metric)
        best = np.nanmax(g, axis=1, keepdims=True) if metric == "lsr" else \
            np.nanmin(g, axis=1, keepdims=True)
        rel = g / best if metric == "lsr" else best / g
        cmap = plt.get_cmap("viridis").with_extremes(bad="0.85")   # not run: grey
        im = ax.imshow(np.ma.masked_invalid(rel), cmap=cmap, vmin=0, vmax=1, aspect="auto")
        for i in range(g.shape[0]):
            own = str(d.iloc[i].get("own") or "").split("|")
            for j, k in enumerate(keys):
                v = g[i, j]
                ax.text(j, i, _fmt(v, metric), ha="center", va="center", fontsize=7,
                        color="white" if math.isfinite(rel[i, j]) and rel[i, j] < 0.6
                        else "black")
                if k in own:
                    ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2,
                                               ec="red"))
        ax.set_xticks(range(len(keys)), keys, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(d)), list(d["workload"]), fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("strategy")
        ax.set_ylabel("workload")
        cb = fig.colorbar(im, ax=ax, fraction=0.03)
        cb.set_label("fraction of the workload's best", fontsize=8)
        cb.ax.set_xlabel("1 = best", fontsize=7)
    fig.suptitle("strategy matrix (red box: the paper's own strategy; grey: cannot run)",
                 fontsize=10)
    fig.tight_layout()
    paths = save(fig, out_base)
    md = Path(f"{out_base}.md")
    atomic_write_text(md, table_markdown(d, keys))
    return list(paths) + [md]

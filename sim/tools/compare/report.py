"""Files of a ``sim.tools.compare.model.Comparison``: ``compare.md``, the two figures and the
``--out`` directory (rows as Parquet).

The table cells (``cells``, also the terminal table ``Comparison.table()``) come from
``sim.tools.compare.model``.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.tools.compare.model import cells, grouped_reasons, rank_value, spread_note


def markdown(cmp, command: str = "") -> str:
    """``compare.md``: the command, the table, what was not run and the recommendation."""
    head, body = cells(cmp)
    md = ["# cepsim compare", ""]
    if command:
        md += ["```", command, "```", ""]
    md += [f"Pattern: `{' '.join(cmp.pattern.split())}`", "",
           f"{cmp.n_events} events; cost profile `{cmp.profile_name}`; latency = match "
           f"latency p50/p99; `*` = best (lowest mean latency among stable runs) at that rate; "
           f"`ρ=` = overloaded (offered load >= 1).", "", spread_note(cmp) + ".", ""]
    if cmp.provenance:
        md += ["Cost profile:", "", "```", *cmp.provenance, "```", ""]
    md += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
    if cmp.ineligible:
        md += ["", "Not run:", ""] + [f"- `{k}`: {why}" for k, why in
                                       grouped_reasons(cmp.ineligible)]
    md += [""] + [f"**Warning:** {w}" + "\n" for w in cmp.warnings]
    md += [cmp.simpy + ".", "", f"**Recommendation:** {cmp.recommendation}", "",
           "Figures: `latency_vs_rate.png`, `work_per_engine.png`; rows: `rows.parquet`.", ""]
    return "\n".join(md)


def figures(cmp, out: Path) -> list[Path]:
    """``latency_vs_rate.png``/``.pdf`` (mean match latency per run vs rate, overloaded points
    left out) and ``work_per_engine.png``/``.pdf`` (mean service time per event, split by
    counter)."""
    import sim.experiments.figures  # noqa: F401  (selects the headless backend before pyplot)
    import matplotlib.pyplot as plt
    from engines import counters as C

    paths = []
    fig, ax = plt.subplots(figsize=(8, 4.5))
    cmap = plt.get_cmap("tab20")
    for i, r in enumerate(cmp.runs):
        xs = [rate for rate in cmp.rates if rate in r.per_rate and r.per_rate[rate]["stable"]]
        ys = [rank_value(r.per_rate[x]) for x in xs]
        if xs:
            ax.plot(xs, ys, marker="os^vD<>"[i % 7], ls=("-", "--", ":", "-.")[i % 4],
                    color=cmap(i % 20), label=r.label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arrival rate (events/s)")
    ax.set_ylabel("mean match latency (s)")
    ax.set_title("latency vs rate (stable points only)")
    paths += _finish(fig, ax, out / "latency_vs_rate")

    fig, ax = plt.subplots(figsize=(8.5, 0.35 * len(cmp.runs) + 1.5))
    labels = [r.label for r in cmp.runs]
    prof_units, base = cmp.profile.unit_vector(), float(cmp.profile.base_cost)
    left = np.zeros(len(cmp.runs))
    shares = {}
    for r in cmp.runs:
        tot = np.asarray(r.result.counters)[:len(r.service)].sum(axis=0) * prof_units
        shares[r.label] = tot / len(r.service) * 1e6
    used = [i for i in range(C.N_COUNTERS) if any(shares[lb][i] > 0 for lb in labels)]
    for i in used + [-1]:
        w = np.array([base * 1e6 if i < 0 else shares[lb][i] for lb in labels])
        ax.barh(labels, w, left=left, label="base" if i < 0 else C.COUNTER_NAMES[i],
                color="0.7" if i < 0 else cmap(i % 20))
        left += w
    ax.set_xlabel("mean service time per event (us), by counter")
    ax.invert_yaxis()
    return paths + _finish(fig, ax, out / "work_per_engine")


def _finish(fig, ax, base: Path) -> list[Path]:
    """Legend outside the axes, then ``sim.experiments.figures.save`` (byte-stable PNG + PDF)."""
    from sim.experiments.figures import save
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    return list(save(fig, base))


def write_out(cmp, out: Path, command: str = "") -> list[Path]:
    """``rows.parquet``, the two figures and ``compare.md`` under ``out``."""
    from sim.atomic import atomic_write_text
    out.mkdir(parents=True, exist_ok=True)
    p = out / "rows.parquet"
    cmp.rows.to_parquet(p, index=False)
    paths = [p] + figures(cmp, out)
    md = out / "compare.md"
    atomic_write_text(md, markdown(cmp, command))
    return paths + [md]

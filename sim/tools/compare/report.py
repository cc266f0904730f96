"""Presentation of a ``sim.tools.compare.core.Comparison``: the terminal table, ``compare.md``, the two
figures and the ``--out`` directory (rows as Parquet).

Latency cells are ``p50/p99`` of the match latency in one unit for the whole table; the best
run at a rate (lowest mean match latency among the stable runs) is marked ``*``; an overloaded
run (offered load ρ = λ·E[S] >= 1) shows ``ρ=...`` instead of latencies, which would only grow
with the stream length; ``-`` = not run at that rate (APAM's optimizer chose another plan).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

_UNITS = ((1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def _unit(values: list[float]) -> tuple[float, str]:
    vals = [v for v in values if isinstance(v, float) and math.isfinite(v) and v > 0]
    med = float(np.median(vals)) if vals else 1e-3
    scale, name = _UNITS[0]
    for s, nm in _UNITS:
        if med >= s:
            scale, name = s, nm
    return scale, name


def _num(v: float) -> str:
    if not math.isfinite(v):
        return "nan"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def cells(cmp) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the comparison table as strings."""
    from sim.tools.compare.core import fmt_rate, lsr, plan_of
    lat = [m.get("latency_p50") for r in cmp.runs for m in r.per_rate.values()]
    scale, unit = _unit([float(v) for v in lat if v is not None])
    head = ["engine", "plan/order", "matches", "work per event (share of cost)",
            "svc mean us", "svc p99 us", "max stable ev/s"]
    head += [f"p50/p99 {unit} @{fmt_rate(r)}" for r in cmp.rates]
    out = []
    for r in cmp.runs:
        plan = plan_of(r)
        row = [r.label, plan if plan not in r.label else "", str(len(r.result.matches)),
               _work(r, cmp), _num(float(r.service.mean()) * 1e6),
               _num(float(np.percentile(r.service, 99)) * 1e6), fmt_rate(lsr(r))]
        for rate in cmp.rates:
            m = r.per_rate.get(rate)
            if m is None:
                row.append("-")
            elif not m.get("stable"):
                row.append(f"ρ={m.get('offered_load', float('nan')):.3g}")
            elif not m.get("matches"):
                row.append("no match")
            else:
                c = f"{_num(m['latency_p50'] / scale)}/{_num(m['latency_p99'] / scale)}"
                row.append(c + (" *" if cmp.best.get(rate) == r.label else ""))
        out.append(row)
    return head, out


def _work(run, cmp) -> str:
    rows = cmp.rows
    if rows is not None and "work" in rows.columns:
        hit = rows[(rows["label"] == run.label) & rows["eligible"]]
        if len(hit):
            return str(hit["work"].iloc[0])
    return ""


def grouped_reasons(ineligible: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Strategies refused for the same reason on one line: ``("eires-BL1, eires-BL2", why)``."""
    by: dict[str, list[str]] = {}
    for k, why in ineligible:
        by.setdefault(why, []).append(k)
    return [(", ".join(ks), why) for why, ks in by.items()]


def text_table(cmp) -> str:
    """The terminal report: table, ineligible strategies, SimPy check, recommendation."""
    head, body = cells(cmp)
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
    left = {0, 1, 3}

    def line(vals):
        return "  ".join(v.ljust(w) if i in left else v.rjust(w)
                         for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    lines = [f"{cmp.pattern}", f"{cmp.n_events} events, cost profile {cmp.profile_name!r}; "
             f"latency = match latency (p50/p99); * = best at that rate; ρ = overloaded", "",
             line(head), line(["-" * w for w in widths])]
    lines += [line(r) for r in body]
    if cmp.ineligible:
        lines += ["", "not run:"]
        lines += [f"  {k}: {why}" for k, why in grouped_reasons(cmp.ineligible)]
    lines += ["", cmp.simpy, f"recommendation: {cmp.recommendation}"]
    return "\n".join(lines)


def markdown(cmp, command: str = "") -> str:
    """``compare.md``: the command, the table, what was not run and the recommendation."""
    head, body = cells(cmp)
    md = ["# cepsim compare", ""]
    if command:
        md += ["```", command, "```", ""]
    md += [f"Pattern: `{' '.join(cmp.pattern.split())}`", "",
           f"{cmp.n_events} events; cost profile `{cmp.profile_name}`; latency = match "
           f"latency p50/p99; `*` = best (lowest mean latency among stable runs) at that rate; "
           f"`ρ=` = overloaded (offered load >= 1).", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    md += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in body]
    if cmp.ineligible:
        md += ["", "Not run:", ""] + [f"- `{k}`: {why}" for k, why in
                                       grouped_reasons(cmp.ineligible)]
    md += ["", cmp.simpy + ".", "", f"**Recommendation:** {cmp.recommendation}", "",
           "Figures: `latency_vs_rate.png`, `work_per_engine.png`; rows: `rows.parquet`.", ""]
    return "\n".join(md)


def figures(cmp, out: Path) -> list[Path]:
    """``latency_vs_rate.png``/``.pdf`` (mean match latency per run vs rate, overloaded points
    left out) and ``work_per_engine.png``/``.pdf`` (mean service time per event, split by
    counter)."""
    import sim.experiments.figures  # noqa: F401  (selects the headless backend before pyplot)
    import matplotlib.pyplot as plt
    from engines import counters as C
    from sim.tools.compare.core import rank_value

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

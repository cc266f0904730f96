"""Figures of the basic simulator validation (experiments/basic/*.toml).

``fig_mg1``: simulated mean queue wait vs rho for M/M/1 and M/D/1 with batch-means 95% CI
bars, against the closed-form curves.  ``fig_mg1_engine``: eager-NFA service times, simulated
mean wait vs the Pollaczek-Khinchine prediction per cost profile, with the relative deviation
and the service times' autocorrelation underneath.
Both read only the results DataFrame.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


def _save(fig, out_base: Path) -> list[Path]:
    from sim.experiments.figures import save

    return save(fig, out_base)


def fig_mg1(df, out_base: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    from sim.studies.basic.scenario import md1_wait, mm1_wait

    fig, ax = plt.subplots(figsize=(5.0, 3.6))
    grid = np.linspace(0.05, max(0.95, float(df["rho"].max())), 200)
    styles = {"exp": ("M/M/1", "C0", "o", mm1_wait), "det": ("M/D/1", "C1", "s", md1_wait)}
    for svc, (label, color, marker, fn) in styles.items():
        g = df[df["service"] == svc]
        if g.empty:
            continue
        ax.plot(grid, [fn(r) for r in grid], color=color, lw=1, label=f"{label} theory")
        agg = g.groupby("rho").agg(w=("wait_mean", "mean"), h=("wait_ci_half",
                                                             lambda h: np.sqrt((h ** 2).sum()) / len(h)))
        ax.errorbar(agg.index, agg["w"], yerr=agg["h"], fmt=marker, color=color, ms=4,
                    capsize=2, label=f"{label} simulated (95% CI)")
    ax.set_yscale("log")
    ax.set_xlabel(r"utilisation $\rho$")
    ax.set_ylabel("mean queue wait (mean service times)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_base)


def fig_mg1_engine(df, out_base: Path) -> list[Path]:
    """Top: simulated mean wait (95% CI) vs Pollaczek-Khinchine per cost profile; middle: the
    relative deviation; bottom: serial correlation of the service times (lag-1 and lag-10
    autocorrelation; legend: integrated autocorrelation time), the M/G/1 assumption it breaks."""
    import matplotlib.pyplot as plt

    d = df.copy()
    if "profile" not in d:
        d["profile"] = "default"
    fig, (ax, ax2, ax3) = plt.subplots(3, 1, figsize=(5.2, 6.4), sharex=True,
                                       gridspec_kw={"height_ratios": [3, 1.4, 1.4]})
    for k, (prof, g) in enumerate(sorted(d.groupby("profile"), key=lambda t: str(t[0]))):
        color = f"C{k}"
        agg = g.groupby("rho").agg(
            w=("wait_mean", "mean"),
            h=("wait_ci_half", lambda h: np.sqrt((h ** 2).sum()) / len(h)),
            pk=("pk_wait", "mean"), dev=("rel_deviation", "mean"),
            sdev=("shuffled_rel_deviation", "mean") if "shuffled_rel_deviation" in g else
            ("rel_deviation", lambda v: np.nan),
            l1=("service_lag1_corr", "mean"),
            l10=("service_lag10_corr", "mean") if "service_lag10_corr" in g else
            ("service_lag1_corr", lambda v: np.nan),
            iact=("service_iact", "mean") if "service_iact" in g else
            ("service_lag1_corr", lambda v: np.nan))
        ax.plot(agg.index, agg["pk"] * 1e6, "-", color=color, lw=1,
                label=f"{prof}: Pollaczek-Khinchine")
        ax.errorbar(agg.index, agg["w"] * 1e6, yerr=agg["h"] * 1e6, fmt="o", ms=4, capsize=2,
                    color=color, label=f"{prof}: simulated (95% CI)")
        ax2.plot(agg.index, agg["dev"] * 100, "o-", ms=3, color=color, label=prof)
        ax2.plot(agg.index, agg["sdev"] * 100, "x:", ms=4, color=color,
                 label=f"{prof}, shuffled service")
        ax3.plot(agg.index, agg["l1"], "o-", ms=3, color=color,
                 label=f"{prof} lag 1 (IACT {float(np.nanmean(agg['iact'])):.1f})")
        ax3.plot(agg.index, agg["l10"], "s--", ms=3, color=color, label=f"{prof} lag 10")
    ax.set_yscale("log")
    ax.set_ylabel(r"mean queue wait ($\mu$s)")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    ax2.axhline(0, color="k", lw=0.8)
    ax2.set_ylabel("deviation\nfrom P-K (%)")
    ax2.legend(fontsize=6, ncol=2)
    ax2.grid(alpha=0.3)
    ax3.axhline(0, color="k", lw=0.8)
    ax3.set_ylabel("service time\nautocorrelation")
    ax3.set_xlabel(r"utilisation $\rho$")
    ax3.legend(fontsize=6, ncol=2)
    ax3.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_base)

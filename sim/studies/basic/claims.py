"""Claims of the basic study (the M/G/1 check of the simulator): ``claim(df, **args) ->
ClaimResult`` over the rows of ``sim/studies/basic/scenario.py``."""
from __future__ import annotations

import numpy as np


def claim_mg1_within(df, tolerance: float = 0.03, max_rho: float = 0.8):
    """Simulated mean wait within ``tolerance`` (relative) of M/M/1 / M/D/1 theory at every
    grid point with rho <= ``max_rho`` (seeds averaged per point)."""
    from sim.experiments.claims import ClaimResult

    sub = df[df["rho"] <= max_rho + 1e-12]
    if sub.empty:
        return ClaimResult(False, f"no rows with rho <= {max_rho}")
    parts, ok = [], True
    for (svc, rho), g in sub.groupby(["service", "rho"], sort=True):
        sim_w = float(g["wait_mean"].mean())
        theory = float(g["theory_wait"].iloc[0])
        err = sim_w / theory - 1
        # CI of the seed-average from the per-seed batch-means half widths
        half = float(np.sqrt(np.sum(g["wait_ci_half"] ** 2)) / len(g))
        ok &= abs(err) <= tolerance
        parts.append(f"{svc} rho={rho:g}: {sim_w:.4g}±{half:.2g} vs {theory:.4g} ({err:+.2%})")
    worst = float((sub.groupby(["service", "rho"])["wait_mean"].mean()
                   / sub.groupby(["service", "rho"])["theory_wait"].first() - 1).abs().max())
    return ClaimResult(bool(ok), f"worst |rel err| {worst:.2%} (tol {tolerance:.0%}); "
                       + "; ".join(parts))

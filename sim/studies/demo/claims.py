"""Claims of the demo study: ``claim(df, **args) -> ClaimResult`` over the rows of
``sim/studies/demo/scenario.py``."""
from __future__ import annotations

from sim.experiments.claims import ClaimResult


def claim_mean_close(df, tol: float = 0.5) -> ClaimResult:
    """The sample mean lies within ``tol`` of ``mu`` at every successful point."""
    ok = df[df["error"].isna()] if "error" in df else df
    if ok.empty:
        return ClaimResult(False, "no successful rows")
    dev = (ok["sample_mean"] - ok["mu"]).abs()
    worst = float(dev.max())
    return ClaimResult(bool(worst <= tol), f"max |mean - mu| = {worst:.4f} (tol {tol})")


def claim_no_errors(df) -> ClaimResult:
    """Every point ran without an exception."""
    n_err = int(df["error"].notna().sum()) if "error" in df else 0
    return ClaimResult(n_err == 0 and len(df) > 0, f"{n_err} of {len(df)} rows failed")

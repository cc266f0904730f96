"""Claims of the generic study: functions ``claim(df, **args) -> ClaimResult`` over the rows of
``sim.studies.generic.scenario.point`` (used by the configs in ``experiments/examples/``).

Every claim reads successful rows only (a row with an ``error`` is dropped); the engine spec of
a row is its ``engine`` column.
"""
from __future__ import annotations

from sim.experiments.claims import ClaimResult
from sim.studies.generic.scenario import pattern_placeholders


def _ok(df):
    return df[df["error"].isna()] if "error" in df.columns else df


def claim_ratio(df, metric: str = "latency_mean", better: str = "", than: str = "",
                factor: float = 1.0, by: str = "rate", at: list | None = None) -> ClaimResult:
    """mean ``metric`` of engine spec ``better`` <= ``factor`` x that of ``than`` at every ``by``
    value (or only at the values listed in ``at``)."""
    d = _ok(df)
    if d.empty or metric not in d.columns:
        return ClaimResult(False, f"no successful rows with {metric!r}")
    keys = [by] if by and by in d.columns else []
    if at is not None and not keys:
        return ClaimResult(False, f"no {by!r} column: cannot check at {by} = {list(at)}")
    g = d.groupby(keys + ["engine"])[metric].mean().unstack("engine") if keys else \
        d.groupby("engine")[metric].mean().to_frame().T
    for e in (better, than):
        if e not in g.columns:
            return ClaimResult(False, f"engine {e!r} not in results ({', '.join(map(str, g.columns))})")
    ratio = g[better] / g[than]
    if at is not None and keys:
        missing = [v for v in at if v not in ratio.index]
        if missing:
            return ClaimResult(False, f"{by} value(s) {missing} not in results")
        ratio = ratio.loc[list(at)]
    parts = [f"{by}={i:g}: {r:.3f}" if keys else f"{r:.3f}" for i, r in ratio.items()]
    return ClaimResult(bool((ratio <= factor).all()),
                       f"{metric} {better} / {than}: {', '.join(parts)} (limit {factor})")


def claim_same_matches(df, by: str = "") -> ClaimResult:
    """Every engine finds the same number of matches on the same stream (per ``by`` value; the
    parameters filling a pattern's ``{placeholders}`` count as part of the pattern)."""
    d = _ok(df)
    if d.empty:
        return ClaimResult(False, "no successful rows")
    filled = sorted({n for t in d["pattern"].dropna().astype(str) for n in
                     pattern_placeholders(t)}) if "pattern" in d.columns else []
    keys = list(dict.fromkeys(k for k in ([by] if by else []) + filled + [
        "stream_seed", "generator", "data", "pattern", "pattern_file", "n_events"]
        if k in d.columns))
    # every row of a stream (all engines, all rates) must report the same count
    spread = d.groupby(keys, dropna=False)["matches"].nunique(dropna=False) if keys else \
        d["matches"].nunique(dropna=False)
    bad = int((spread > 1).sum()) if keys else int(spread > 1)
    counts = ", ".join(f"{e}: {v}" for e, v in d.groupby("engine")["matches"].sum().items())
    return ClaimResult(bad == 0, f"{bad} stream(s) where engines disagree; total matches {counts}")


def claim_all_stable(df) -> ClaimResult:
    """No point is overloaded (offered load ρ < 1 everywhere)."""
    d = _ok(df)
    if d.empty or "offered_load" not in d.columns:
        return ClaimResult(False, "no successful rows with offered_load")
    bad = d[~(d["offered_load"] < 1)]          # a missing (NaN) load is not a stable one
    return ClaimResult(bad.empty, f"{len(bad)} of {len(d)} points with ρ >= 1 (max ρ = "
                                  f"{float(d['offered_load'].max()):.3f})")

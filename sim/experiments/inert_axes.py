"""Grid axes that change nothing: every value of the axis gives the same result row.

A grid axis whose values all produce identical rows (every result column equal, at every
combination of the other grid values and repetition) is a knob the model does not read: a
figure drawn over it is flat by construction, not by measurement.  ``finish_run`` records such
axes in ``meta.json`` (``inert_axes``) and ``cepsim run`` / ``sweep`` / ``reproduce`` print
them.  The point seed, the repetition, the ids and the wall time are not results; a column of
the row that repeats a parameter is not either.  The test is exact: each point draws its own
seed from its parameters (``config.point_seed``), so an axis the model ignores is caught only
where the scenario's randomness comes from parameters (e.g. a ``stream_seed`` grid axis); where
it comes from the point seed, the rows differ by that seed's draws and the axis is not named.
"""
from __future__ import annotations

import pandas as pd

from sim.experiments.config import ExperimentConfig, param_names

#: row columns that are not results (``runner.run_point``)
NOT_RESULTS = ("seed", "rep", "point_id", "error", "wall_s")


def _key(v) -> str:
    return repr(v.tolist()) if hasattr(v, "tolist") else repr(v)


def inert_axes(cfg: ExperimentConfig, df: pd.DataFrame | None) -> list[str]:
    """The grid axes (more than one value) along which every successful row is identical."""
    if df is None or df.empty:
        return []
    if "error" in df.columns:
        df = df[df["error"].isna()]
    params = [p for p in param_names(cfg) if p in df.columns]
    results = [c for c in df.columns if c not in params and c not in NOT_RESULTS]
    if df.empty or not results:
        return []
    text = df[params + results + (["rep"] if "rep" in df.columns else [])].map(_key)
    out = []
    for ax in cfg.grid:
        if ax not in text.columns or text[ax].nunique() < 2:
            continue
        others = [p for p in params if p != ax] + (["rep"] if "rep" in text.columns else [])
        groups = text.groupby(others, sort=False) if others else [((), text)]
        compared = False
        inert = True
        for _, g in groups:
            if g[ax].nunique() < 2:
                continue
            compared = True
            if (g[results].nunique() > 1).any():
                inert = False
                break
        if compared and inert:
            out.append(ax)
    return out


def inert_note(cfg: ExperimentConfig, axes: list[str]) -> str:
    """One warning line naming the inert axes ('' when none)."""
    if not axes:
        return ""
    return (f"{cfg.key}: grid axis {', '.join(axes)}: every value gives identical rows (the "
            f"model does not read {'it' if len(axes) == 1 else 'them'}; recorded in meta.json "
            f"as inert_axes)")

"""Scenario modules, one per paper: ``sim/scenarios/<paper>.py``.

Each defines per-point functions ``f(params: dict, seed: int) -> dict`` (one flat row of
metrics, deterministic given params and seed) and claim functions
``claim(df, **args) -> sim.claims.ClaimResult`` referenced from ``experiments/<paper>/*.toml``.
"""

"""Studies: one package per paper (or study), each holding its scenario, claims and figures.

A package ``sim/studies/<name>/`` has ``scenario.py`` (per-point functions
``f(params: dict, seed: int) -> dict``: one flat row of metrics, deterministic given params and
seed), ``claims.py`` (``claim(df, **args) -> ClaimResult`` over an experiment's rows) and
``figures.py`` (``figure(df, out_base, **args)``, drawn from rows only).  Configs name them
``<name>:<function>`` (``sim.experiments.functions`` maps the names to modules).  Studies
import the kernel (``sim.core``), the experiment layer and the tools; nothing imports a study
but the configs that name it.
"""

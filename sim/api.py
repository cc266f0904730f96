"""cepsim's Python API for notebooks and scripts: one import, the whole pipeline.

Load or generate a stream, parse and compile a pattern, run an engine, queue its work in virtual
time, run a config and read its results.  Everything here is a thin, documented entry point to
the modules that do the work (``engines.*``, ``workloads.*``, ``sim.*``); see
``docs/ARCHITECTURE.md`` for how they fit and ``docs/API.md`` for a walk-through.

>>> from sim import api
>>> stream = api.generate_stream("uniform", n_events=300, seed=1, types="A,B,C", attrs="x")
>>> program = api.compile_pattern(
...     "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 10 events", stream)
>>> eager = api.run_engine("eager", program, stream)
>>> chain = api.run_engine("chain order=b,a", program, stream)
>>> len(eager.matches) == len(chain.matches) > 0
True
>>> chain.info["order"]
'b,a'
>>> totals = api.counter_totals(eager)
>>> totals["pred_eval"] > 0, totals["match_emit"] == len(eager.matches)
(True, True)
>>> slow, fast = (api.simulate(stream, program, "eager", rate=r, seed=7) for r in (1e3, 1e5))
>>> slow.metrics["stable"], slow.metrics["offered_load"] < fast.metrics["offered_load"]
(True, True)
>>> sorted(k for k in slow.metrics if k.startswith("latency_p"))[:3]
['latency_p25', 'latency_p5', 'latency_p50']
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sim.core.metrics import metrics_row  # noqa: F401  (re-exported: scenario rows without collisions)

__all__ = ["engines", "generators", "load_stream", "generate_stream", "parse_pattern",
           "compile_pattern", "run_engine", "counter_totals", "load_profile", "arrivals",
           "simulate", "compare", "run_config", "read_results", "metrics_row"]


def engines() -> list[str]:
    """Names of every registered engine (``cepsim list engines`` adds descriptions)."""
    from engines.registry import engine_names

    return engine_names()


def generators() -> list[str]:
    """Names of every stream generator (``cepsim list generators``).

    >>> "uniform" in generators()
    True
    """
    from workloads.generators import generator_names

    return generator_names()


def load_stream(path: str | Path, fmt: str | None = None, schema: Any = None):
    """Read an event file (``metastock``, ``soccer``, ``csv``, ``parquet``; ``*.gz`` too).

    Relative paths that do not exist from the working directory are taken from the repository
    root, so the bundled samples load from anywhere:

    >>> s = load_stream("workloads/data/opencep_nasdaq/NASDAQ_SHORT.txt", "metastock")
    >>> s.schema.attr_names
    ('open', 'high', 'low', 'close', 'volume')
    """
    from workloads.loaders import load_stream as _load, resolve_data_path

    p = resolve_data_path(path)
    return _load(p, fmt, schema) if schema is not None else _load(p, fmt)


def generate_stream(generator: str, n_events: int, seed: int = 0, **params):
    """A seeded stream from a registered generator (``generators()``); ``params`` are the
    generator's own keyword arguments (e.g. ``types="A,B"`` for ``uniform``, ``f_c=0.1`` for
    ``stocks``)."""
    from workloads.generators import generate

    return generate(generator, n_events, seed, **params)


def parse_pattern(text: str):
    """Pattern text -> AST (``str(ast)`` re-parses to an equal AST; grammar in
    ``docs/SEMANTICS.md``).

    >>> str(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 5 events")).startswith("PATTERN SEQ(")
    True
    """
    from engines.pattern import parse_pattern as _parse

    return _parse(text, source="<api>")


def compile_pattern(pattern, stream_or_schema):
    """Pattern text or AST + the stream (or its schema) -> the numeric ``Program`` engines run."""
    from engines.compile import compile_pattern as _compile

    pat = parse_pattern(pattern) if isinstance(pattern, str) else pattern
    schema = getattr(stream_or_schema, "schema", stream_or_schema)
    return _compile(pat, schema)


def run_engine(engine: str, program, stream, **options):
    """Run an engine: a name (``"eager"``) or a spec with options (``"chain order=c,b,a"``, the
    syntax of the generic scenario); keyword ``options`` are added.  Returns ``EngineResult``
    with ``.matches`` (``MatchSet``), ``.counters`` (int64 per event x counter) and ``.info``
    (engine facts: plan, order, peaks)."""
    from engines.registry import run_engine as _run
    from sim.studies.generic.scenario import parse_engine_spec

    name, opts = parse_engine_spec(engine)
    opts.update(options)
    return _run(name, program, stream, **opts)


def counter_totals(result) -> dict[str, int]:
    """Counter totals (count columns) and peaks (gauges) of an engine result, by name."""
    from engines.counters import summarize

    return summarize(np.asarray(result.counters))


def load_profile(path: str | Path | None = None):
    """A cost profile (``None`` = the packaged default; ``cepsim list profiles``)."""
    from sim.core.costmodel import load_profile as _load
    from sim.experiments.inputs import resolve_input

    return _load(None if path is None else resolve_input(str(path)))


def arrivals(n: int, rate: float | None = None, seed: int = 0, stream=None,
             time_scale: float = 1.0) -> np.ndarray:
    """Virtual arrival times: Poisson at ``rate`` events/s, or (``rate=None``) the ``stream``'s
    own timestamps times ``time_scale``.

    >>> a = arrivals(4, rate=2.0, seed=1)
    >>> a.shape, bool((a[1:] >= a[:-1]).all())
    ((4,), True)
    """
    from sim.core.arrivals import poisson_arrivals, replay_arrivals

    if rate is not None:
        return poisson_arrivals(n, rate, seed)
    if stream is None:
        raise ValueError("arrivals: give rate= (Poisson) or stream= (replay its timestamps)")
    return replay_arrivals(stream.ts) * float(time_scale)


def simulate(stream, program, engine: str, rate: float | None = None, arrivals_=None,
             seed: int = 0, profile=None, path: str = "auto", **options):
    """Run ``engine`` (name or spec) and queue its work: Poisson at ``rate`` (or the given
    ``arrivals_`` array, or a replay of the stream's timestamps when both are None).

    Returns ``SimResult``: ``.metrics`` (latency mean/percentiles, throughput, utilisation,
    ``offered_load`` ρ = λ·E[S], ``stable``, queue peak, counter totals), ``.match_latency``,
    ``.events`` / ``.engine_result`` (kept).  The profile defaults to the packaged one."""
    from sim.core.simulate import simulate_counters

    res = run_engine(engine, program, stream, **options)
    n = len(stream)
    arr = arrivals_ if arrivals_ is not None else arrivals(n, rate, seed, stream)
    prof = profile if profile is not None and not isinstance(profile, (str, Path)) \
        else load_profile(profile)
    out = simulate_counters(np.asarray(res.counters)[:n], arr, prof, path=path,
                            match_last_event=res.matches.last_event,
                            match_detect=res.matches.detect, keep_events=True, rate=rate)
    out.metrics["engine"] = engine
    out.engine_result = res
    return out


def compare(pattern, stream, rates=None, engines: list[str] | None = None, profile=None,
            seed: int = 0):
    """Every evaluation strategy that can evaluate ``pattern`` on ``stream``, like ``cepsim
    compare``: same match set checked, work priced with ``profile`` (a ``CostProfile``, a path
    or None = the packaged default), queued at each of ``rates`` (events/s; None = four rates
    spanning the engines' largest stable rates) with Poisson arrivals from ``seed``.

    Returns ``sim.tools.compare.core.Comparison``: ``.rows`` (DataFrame: one row per engine run and rate
    -- ``engine_spec``, ``plan``, ``matches``, ``service_mean``, ``lsr`` (largest stable rate),
    ``latency_p50``/``p99``, ``best`` -- plus one per strategy that cannot run, with its
    ``reason``), ``.table()`` (the CLI's text), ``.recommendation``, ``.ineligible``.
    ``engines``: strategy keys or engine names (``sim.tools.compare.strategies.STRATEGIES``)."""
    from sim.tools.compare.core import compare as _compare

    prof = profile if profile is not None and not isinstance(profile, (str, Path)) \
        else load_profile(profile)
    return _compare(pattern, stream, rates, engines, prof, seed)


def run_config(config: str | Path, scale: str | None = None, out: str | Path = "results",
               overrides: list[str] | None = None, backend: str = "serial",
               workers: int | None = None):
    """Run an experiment config like ``cepsim run`` (without figures) -> its results DataFrame.

    ``overrides`` are ``--set`` strings (``["params.n_events=1000"]``); such a run writes to
    ``<out>/<paper>/<name>@<overrides>/``.  Claims: ``sim.experiments.claims.check_experiment(cfg, df)``."""
    from sim.experiments.config import load_config
    from sim.experiments.inputs import resolve_input
    from sim.experiments.runner import run_experiment

    cfg = load_config(resolve_input(str(config)))
    summary = run_experiment(cfg, scale=scale, out_dir=out, backend=backend, workers=workers,
                             overrides=overrides, progress=False)
    return summary.df


def read_results(config: str | Path, out: str | Path = "results", variant: str = ""):
    """The stored rows of a config (``variant``: the ``@...`` suffix of a ``--set`` run), or
    None when it has not been run."""
    import dataclasses

    from sim.experiments import results
    from sim.experiments.config import load_config
    from sim.experiments.inputs import resolve_input

    cfg = load_config(resolve_input(str(config)), check_functions=False)
    if variant:
        cfg = dataclasses.replace(cfg, name=f"{cfg.name}@{variant}")
    return results.read_points(out, cfg)

"""Run an experiment: expand the grid, run each pending point on a backend, store the rows.

``run_point`` is the one function every backend executes (serially, in worker processes or on
Spark executors), so all backends produce the same rows.  A scenario exception becomes a row with
its ``error`` text and the point's parameters; the sweep goes on with the other points.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

from engines.errors import CepsimInputError
from sim.experiments import pointlog, results
from sim.experiments.config import ExperimentConfig, Point, apply_overrides, apply_scale, expand_points
from sim.experiments.functions import resolve
from sim.experiments.inputs import check_input_files
from sim.experiments.progress import Progress

BACKENDS = ("serial", "local", "spark")   # the built-in names (sim.experiments.backends holds the registry)
RESERVED = ("seed", "rep", "point_id", "error", "wall_s")


@dataclass
class RunSummary:
    """What ``run_experiment`` did: counts, failures and the consolidated rows."""

    cfg: ExperimentConfig
    backend: str
    scale: str | None
    out_dir: Path
    n_points: int
    n_resumed: int
    n_run: int
    n_failed: int
    failures: list = field(default_factory=list)  # (point_id, rep, error)
    wall_s: float = 0.0
    df: pd.DataFrame | None = None
    inert_axes: list = field(default_factory=list)  # grid axes whose values change no row

    @property
    def ok(self) -> bool:
        return self.n_failed == 0


def _plain_metric(v: Any) -> Any:
    if hasattr(v, "item") and getattr(v, "ndim", 0) == 0:
        v = v.item()
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"metric value {v!r} of type {type(v).__name__} is not a scalar")


class ScenarioContractError(ValueError):
    """A scenario returned a row that breaks the scenario contract (``docs/EXTENDING.md``)."""


def clean_metrics(scenario: str, metrics: dict, params: dict) -> dict:
    """Check a scenario's metrics row and turn numpy scalars into plain values.

    Every problem is reported at once (not one per rerun), with the fix: metric names that
    collide with a parameter or a reserved column would overwrite the point's identity in
    the results table, so they are refused rather than silently renamed."""
    bad_names = [k for k in metrics if not isinstance(k, str)]
    if bad_names:
        raise ScenarioContractError(f"scenario {scenario}: metric names must be strings, got "
                                    f"{bad_names!r}")
    reserved = [k for k in metrics if k in RESERVED]
    clash = [k for k in metrics if k in params and k not in RESERVED]
    if reserved or clash:
        parts = []
        if clash:
            parts.append(f"metric name(s) {', '.join(repr(k) for k in clash)} collide with "
                         f"parameter columns")
        if reserved:
            parts.append(f"metric name(s) {', '.join(repr(k) for k in reserved)} are reserved "
                         f"columns ({', '.join(RESERVED)})")
        raise ScenarioContractError(
            f"scenario {scenario}: {'; '.join(parts)}. Fix: return only new metric names, e.g. "
            f"`return sim.core.metrics.metrics_row(metrics, params)` (prefixes colliding names with "
            f"'sim_') or drop them with `{{k: v for k, v in metrics.items() if k not in params}}`")
    clean = {}
    errors = []
    for k, v in metrics.items():
        try:
            clean[k] = _plain_metric(v)
        except TypeError as exc:
            errors.append(f"{k!r}: {exc}")
    if errors:
        raise ScenarioContractError(f"scenario {scenario}: metrics must be scalars (bool, int, "
                                    f"float, str or None): {'; '.join(errors)}")
    return clean


def run_point(cfg: ExperimentConfig, point: Point) -> dict:
    """Run the scenario at one (point, rep) -> row dict (params, ids, metrics, error, wall_s)."""
    t0 = time.perf_counter()
    clocks = pointlog.start()
    row: dict[str, Any] = dict(point.params)
    row.update(seed=point.seed, rep=point.rep, point_id=point.point_id)
    try:
        fn = resolve(cfg.scenario, "scenario", str(cfg.path or cfg.key), "scenario")
        metrics = fn(dict(point.params), point.seed)
        if not isinstance(metrics, dict):
            raise TypeError(f"scenario {cfg.scenario} returned {type(metrics).__name__}, "
                            f"expected a dict of metrics")
        row.update(clean_metrics(cfg.scenario, metrics, point.params))
        row["error"] = None
    except Exception as exc:  # recorded, the sweep goes on
        row["error"] = f"{type(exc).__name__}: {exc}"
    row["wall_s"] = time.perf_counter() - t0
    pointlog.finish(clocks, str(cfg.path or cfg.key), point.point_id, point.rep, row["error"])
    return row


def check_point_params(cfg: ExperimentConfig, points: list[Point]) -> None:
    """Run the scenario's ``check_params(params)`` (an optional attribute of the scenario
    function; it raises ``CepsimInputError`` naming the parameter) on every distinct point and
    raise one ``CepsimInputError`` listing the invalid points before anything runs -- instead
    of every point failing with the same error and the run exiting 1."""
    source = str(cfg.path or cfg.key)
    fn = resolve(cfg.scenario, "scenario", source, "scenario")
    check = getattr(fn, "check_params", None)
    if check is None:
        return
    varying = list(cfg.grid) + list(cfg.zip)
    seen: set = set()
    problems: list[str] = []
    for p in points:
        if p.point_id in seen:
            continue
        seen.add(p.point_id)
        try:
            check(dict(p.params))
        except CepsimInputError as exc:
            where = ", ".join(f"{k}={p.params[k]!r}" for k in varying) or "the point"
            problems.append(f"{where}: {exc}")
    if problems:
        more = f"\n  (+{len(problems) - 5} more)" if len(problems) > 5 else ""
        raise CepsimInputError(f"{source}: {len(problems)} of {len(seen)} point(s) have invalid "
                               f"parameter values; nothing was run (fix the value in the config "
                               f"or the --set override):\n  " + "\n  ".join(problems[:5]) + more)


def _cost_profile_info(cfg: ExperimentConfig) -> Any:
    """The cost profile a run used, if the config names one (path + file text)."""
    for key in ("cost_profile", "profile"):
        vals = [cfg.params.get(key)] + list(cfg.grid.get(key, [])) + list(cfg.zip.get(key, []))
        vals = [v for v in vals if isinstance(v, str)]
        if vals:
            info = {}
            for v in vals:
                p = Path(v)
                info[v] = p.read_text() if p.is_file() else None
            return info
    return None


def _as_variant(cfg: ExperimentConfig, overrides: list[str] | None) -> ExperimentConfig:
    """A ``--set`` run is a variant named ``<name>@<overrides>``: its own results directory, so
    it never overwrites the canonical results (``sim.experiments.staleness``)."""
    import dataclasses

    from sim.experiments.staleness import variant_slug

    slug = variant_slug(overrides)
    return dataclasses.replace(cfg, name=f"{cfg.name}@{slug}") if slug else cfg


def run_serial(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
               **_ignored) -> None:
    """The serial backend: every point in this process, in order."""
    for p in pending:
        on_row(p, run_point(cfg, p))


@dataclass
class PreparedRun:
    """An experiment ready to run: resolved config, its points, which are already done (shards of
    an interrupted run) and which are pending.  ``prepare_run`` makes it, ``finish_run`` turns
    the shards into the results; in between any backend (or ``sim.experiments.reproduce_pool``, which
    runs the points of many experiments in one pool) writes a shard per finished point through
    ``on_row``."""

    cfg: ExperimentConfig
    root: Path
    scale: str | None
    overrides: list[str] | None
    points: list[Point]
    done: set
    pending: list[Point]
    t0: float
    failures: list = field(default_factory=list)
    stored_commit: str | None = None   # commit of stored rows this run resumed from, if any

    def on_row(self, p: Point, row: dict) -> None:
        """Store one finished point (atomic shard write)."""
        results.write_shard(self.root, self.cfg, p, row)
        if row.get("error") is not None:
            self.failures.append((p.point_id, p.rep, row["error"]))


def resolve_run(cfg: ExperimentConfig, scale: str | None = None,
                overrides: list[str] | None = None) -> tuple[ExperimentConfig, list[Point]]:
    """(resolved config, its points): scale + overrides applied (a ``--set`` run is a variant),
    and everything checked that can be checked before any work (input files, claim arguments,
    parameter values).  Writes nothing (``prepare_run`` and ``sim.experiments.estimate`` share it)."""
    cfg = apply_overrides(apply_scale(cfg, scale), overrides)
    cfg = _as_variant(cfg, overrides)
    check_input_files(cfg)  # once, before any point: a missing profile/data file is one error
    from sim.experiments.claims import check_claim_args
    check_claim_args(cfg)      # a misspelled claim argument is a config error, before any work
    points = expand_points(cfg)
    check_point_params(cfg, points)   # impossible values: one error, before any point runs
    return cfg, points


def prepare_run(cfg: ExperimentConfig, scale: str | None = None, out_dir: Path | str = "results",
                overrides: list[str] | None = None, fresh: bool = False,
                resume_stored: bool = False) -> PreparedRun:
    """Resolve scale + overrides, check everything that can be checked before any work (input
    files, claim arguments, parameter values) and find the pending points.

    Points with a shard (an interrupted run) are done.  With ``resume_stored`` (``cepsim
    reproduce``) so are the rows of a finished earlier run of the same config, shards or not
    (``results.restore_shards``): a reproduction resumes from committed results."""
    t0 = time.perf_counter()
    cfg, points = resolve_run(cfg, scale, overrides)
    root = Path(out_dir)
    results.prepare_shards(root, cfg, fresh=fresh)
    stored_commit = None
    if resume_stored and not fresh and results.restore_shards(root, cfg, points):
        stored_commit = (results.read_meta(root, cfg) or {}).get("git_commit")
    done = results.done_points(root, cfg, points)
    pending = [p for p in points if (p.point_id, p.rep) not in done]
    return PreparedRun(cfg, root, scale, overrides, points, done, pending, t0,
                       stored_commit=stored_commit)


def finish_run(prep: PreparedRun, backend: str) -> RunSummary:
    """Consolidate the shards of ``prep`` into ``points.parquet`` + ``meta.json``."""
    cfg, root, points, failures = prep.cfg, prep.root, prep.points, prep.failures
    rows = results.collect_rows(root, cfg, points)
    have = {(r["point_id"], r["rep"]) for r in rows}
    for p in points:  # a point whose row never arrived (should not happen): record it
        if (p.point_id, p.rep) not in have:
            row = dict(p.params)
            row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
                       error="no result row was produced (worker lost)", wall_s=None)
            rows.append(row)
            failures.append((p.point_id, p.rep, row["error"]))
    df = results.rows_to_frame(cfg, rows)
    results.write_points(root, cfg, df)
    n_failed = int(df["error"].notna().sum())
    from sim.experiments.inert_axes import inert_axes
    inert = inert_axes(cfg, df)
    extra = {"overrides": list(prep.overrides or []), "resumed_rows": len(prep.done),
             "inert_axes": inert}
    if prep.stored_commit is not None:
        # rows resumed from an earlier finished run keep naming the commit that produced them
        extra["resumed_from_commit"] = prep.stored_commit
        if not prep.pending:
            extra["git_commit"] = prep.stored_commit
    results.write_meta(root, cfg, scale=prep.scale, backend=backend, n_rows=len(df),
                       n_failed=n_failed, cost_profile=_cost_profile_info(cfg), extra=extra)
    results.finish_shards(root, cfg, df)
    failed = [(r["point_id"], r["rep"], r["error"]) for r in df.to_dict("records")
              if r["error"] is not None]
    return RunSummary(cfg=cfg, backend=backend, scale=prep.scale,
                      out_dir=results.experiment_dir(root, cfg), n_points=len(points),
                      n_resumed=len(prep.done), n_run=len(prep.pending), n_failed=n_failed,
                      failures=failed, wall_s=time.perf_counter() - prep.t0, df=df,
                      inert_axes=inert)


def run_experiment(cfg: ExperimentConfig, scale: str | None = None, out_dir: Path | str = "results",
                   backend: str = "serial", workers: int | None = None, master: str | None = None,
                   progress: bool | None = None, overrides: list[str] | None = None,
                   fresh: bool = False, resume_stored: bool = False) -> RunSummary:
    """Resolve scale + overrides, run every pending point on ``backend``, write results.

    Resumes from shards of an earlier interrupted run unless ``fresh`` (and, with
    ``resume_stored``, from the stored rows of a finished run of the same config).  Never raises for a
    failing point: failures are rows with ``error`` set and are listed in the summary."""
    from sim.experiments import backends
    run_backend = backends.get_backend(backend)
    if workers is not None and workers < 1:
        raise CepsimInputError(f"--workers: must be >= 1, got {workers}")
    backends.preflight(backend)  # fail fast, before any work (Spark: Java missing or too old)
    prep = prepare_run(cfg, scale, out_dir, overrides, fresh, resume_stored)

    with Progress(len(prep.points), desc=prep.cfg.key, enabled=progress) as bar:
        bar.update(len(prep.done))

        def on_row(p: Point, row: dict) -> None:
            prep.on_row(p, row)
            bar.update(1)

        if prep.pending:
            run_backend(prep.cfg, prep.pending, on_row, workers=workers, master=master)
    return finish_run(prep, backend)


def default_workers() -> int:
    return max(1, os.cpu_count() or 1)

"""``cepsim run``, ``sweep`` and ``reproduce``: run experiments (points -> results, then their
figures and claims tables)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from engines.errors import CepsimInputError
from sim.cli.commands.common import (FIGS_HELP, OUT_HELP, SCALE_HELP, SET_HELP, all_config_paths,
                                 figures_root, guard, out_root, resolve_config_path)
from sim.cli.commands.results import all_failed, check_all, claim_rows, draw_figures

DRY_HELP = ("print points, estimated CPU and wall time per experiment from stored timings (yours, "
            "else the committed results/full scaled by stream length) and run nothing; no "
            "kernel is compiled (sim/experiments/estimate.py)")
SAMPLE_HELP = ("with --dry-run: time one sample point of each experiment that has no stored "
               "timings (compiles its kernels: minutes on a fresh clone)")
STRICT_HELP = ("exit 1 when a paper claim fails (for CI); by default a failing claim is a "
               "result, printed in the table, and the exit code says only whether every point "
               "and figure ran")

# Which of the options --workers / --master / --memory-budget-mb each backend uses: an option
# the chosen backend would ignore is refused (as `cepsim match` refuses engine options).
_BACKEND_OPTIONS = {"serial": frozenset(), "local": frozenset({"--workers", "--memory-budget-mb"}),
                    "spark": frozenset({"--workers", "--master"})}


def check_backend_options(backend: str, given: dict, command: str) -> None:
    """Refuse an option of ``given`` (flag -> value, None = not given) that ``backend`` ignores,
    naming the backends that use it."""
    takes = _BACKEND_OPTIONS.get(backend)
    if takes is None:            # an unknown backend: the backend registry names the choices
        return
    for flag, value in given.items():
        if value is not None and flag not in takes:
            users = [b for b, opts in _BACKEND_OPTIONS.items() if flag in opts]
            raise CepsimInputError(f"{flag}: `cepsim {command} --backend {backend}` does not use "
                                   f"this option; it applies to --backend {' or '.join(users)} "
                                   f"(drop {flag} or choose one of those backends)")


def _report_failures(summary) -> None:
    """Failed points grouped by error text (one line per distinct error, not one per point)."""
    groups: dict[str, list[str]] = {}
    for pid, rep, err in summary.failures:
        groups.setdefault(str(err), []).append(f"{pid}/{rep}")
    for err, ids in groups.items():
        more = f" (+{len(ids) - 3} more)" if len(ids) > 3 else ""
        typer.echo(f"  FAILED {len(ids)} point(s) [{', '.join(ids[:3])}{more}]: {err}", err=True)


def _run_one(config: Path, scale, out: Path, overrides, backend, workers, master, figs_root, fresh,
             resume_stored: bool = False):
    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment

    cfg = load_config(config)
    summary = run_experiment(cfg, scale=scale, out_dir=out, backend=backend, workers=workers,
                             master=master, overrides=list(overrides or []), fresh=fresh,
                             resume_stored=resume_stored)
    return summary, _after_run(summary, backend, figs_root)


def _after_run(summary, backend: str, figs_root: Path) -> list[str]:
    """The one-line summary of a finished run, its failures, and its figures (error texts)."""
    typer.echo(f"{summary.cfg.key}: {summary.n_points} rows ({summary.n_resumed} resumed, "
               f"{summary.n_run} run, {summary.n_failed} failed) on {backend} in "
               f"{summary.wall_s:.1f}s -> {summary.out_dir}")
    _report_failures(summary)
    from sim.experiments.inert_axes import inert_note
    note = inert_note(summary.cfg, summary.inert_axes)
    if note:
        typer.echo(note, err=True)
    if all_failed(summary):
        typer.echo(f"{summary.cfg.key}: all {summary.n_points} points failed; figures and claims "
                   f"skipped (fix the error above and rerun)", err=True)
        return []
    return draw_figures(summary.cfg, summary.df, figs_root)


def _run_command(config, scale, out, overrides, backend, workers, master, figures_dir, fresh):
    from sim.experiments.claims import print_table

    summary, fig_errors = _run_one(resolve_config_path(config), scale, out_root(out, scale),
                                   overrides, backend, workers, master,
                                   figures_root(figures_dir, out, scale), fresh)
    rows = [] if all_failed(summary) else claim_rows(summary.cfg, summary.df)
    if rows:
        print_table(rows)
    failed_claims = [r for r in rows if r.failed]
    if summary.n_failed:
        typer.echo(f"{summary.n_failed} of {summary.n_points} points failed; rerun the same "
                   f"command to retry them (successful points are kept)", err=True)
    if failed_claims or summary.n_failed or fig_errors:
        raise typer.Exit(1)


@guard
def run(config: str = typer.Argument(..., help="experiments/<paper>/<name>.toml (or <paper>/<name>)"),
        scale: Optional[str] = typer.Option(None, "--scale", help=SCALE_HELP),
        out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
        set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
        backend: str = typer.Option("serial", "--backend", help="serial, local or spark"),
        workers: Optional[int] = typer.Option(None, "--workers", help="parallel workers"),
        master: Optional[str] = typer.Option(None, "--master", help="Spark master URL"),
        figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=FIGS_HELP),
        fresh: bool = typer.Option(False, "--fresh", help="discard shards of an interrupted run")):
    """Run one experiment, write results, draw its figures and print its claims table.

    Exit 1 when a point, a figure or a claim fails (one experiment: its claims are the verdict
    asked for); ``reproduce`` treats failing claims as results (see its ``--strict``)."""
    check_backend_options(backend, {"--workers": workers, "--master": master}, "run")
    _run_command(config, scale, out, set_, backend, workers, master, figures_dir, fresh)


@guard
def sweep(config: str = typer.Argument(..., help="experiments/<paper>/<name>.toml (or <paper>/<name>)"),
          scale: Optional[str] = typer.Option(None, "--scale", help=SCALE_HELP),
          backend: str = typer.Option("local", "--backend", help="local or spark"),
          master: Optional[str] = typer.Option(None, "--master",
                                               help="Spark master URL (default local[*])"),
          workers: Optional[int] = typer.Option(None, "--workers", help="parallel workers"),
          out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
          set_: Optional[List[str]] = typer.Option(None, "--set", help=SET_HELP),
          figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=FIGS_HELP),
          fresh: bool = typer.Option(False, "--fresh", help="discard shards of an interrupted run"),
          dry_run: bool = typer.Option(False, "--dry-run", help=DRY_HELP),
          sample: bool = typer.Option(False, "--sample", help=SAMPLE_HELP)):
    """Run one experiment on a parallel backend; resumes an interrupted sweep."""
    if backend not in ("local", "spark"):
        raise CepsimInputError(f"--backend: sweep runs on 'local' or 'spark', got {backend!r} "
                               f"(use `cepsim run` for serial)")
    check_backend_options(backend, {"--workers": workers, "--master": master}, "sweep")
    if sample and not dry_run:
        raise CepsimInputError("--sample: only with --dry-run (it times a sample point instead "
                               "of running the experiment)")
    if dry_run:
        from sim.experiments.estimate import dry_run as estimate
        estimate([resolve_config_path(config)], scale, out_root(out, scale), out_root(None),
                 backend, workers, master, shared=False, overrides=set_, echo=typer.echo,
                 extra_roots=[out_root(None, "full")], sample=sample)
        return
    _run_command(config, scale, out, set_, backend, workers, master, figures_dir, fresh)


@guard
def reproduce(scale: str = typer.Option("quick", "--scale", help=SCALE_HELP),
              backend: str = typer.Option("local", "--backend",
                                          help="local (all cores, default), serial or spark"),
              workers: Optional[int] = typer.Option(None, "--workers",
                                                    help="parallel workers (default: all cores)"),
              master: Optional[str] = typer.Option(
                  None, "--master", help="Spark master URL, e.g. spark://HOST:7077 (default "
                                         "local[*]; docs/CLUSTER.md)"),
              out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
              figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=FIGS_HELP),
              dry_run: bool = typer.Option(False, "--dry-run", help=DRY_HELP),
              sample: bool = typer.Option(False, "--sample", help=SAMPLE_HELP),
              strict: bool = typer.Option(False, "--strict", help=STRICT_HELP),
              fresh: bool = typer.Option(
                  False, "--fresh", help="recompute every point; by default the stored rows of "
                                         "an unchanged config are kept (a reproduction resumes, "
                                         "also from committed results/full)"),
              memory_budget_mb: Optional[float] = typer.Option(
                  None, "--memory-budget-mb",
                  help="local backend: the process tree's memory budget in MB; a point starts "
                       "only when its expected memory fits beside what the workers hold "
                       "(sim/experiments/point_memory.py; default 0 = no limit)")):
    """Run every experiment (except demo) in parallel, draw all figures, check all claims.

    The local backend runs the points of all experiments in one process pool
    (``sim.experiments.reproduce_pool``), spark in one Spark job (``sim.experiments.spark_reproduce``); serial runs the
    experiments one after another.  Rows already stored for an unchanged config (an interrupted
    reproduction, or the committed ``results/full``) are kept unless ``--fresh``; a changed
    config's rows are recomputed.

    Exit 0 when every point and figure ran: a claim that fails is a result (printed in the table
    and in ``<out>/claims.md``); 1 when a point or a figure failed, or with ``--strict`` when a
    ``paper`` claim failed; 2 on bad input."""
    from sim.experiments.progress import Progress

    check_backend_options(backend, {"--workers": workers, "--master": master,
                                    "--memory-budget-mb": memory_budget_mb}, "reproduce")
    if sample and not dry_run:
        raise CepsimInputError("--sample: only with --dry-run (it times a sample point instead "
                               "of running the experiments)")
    bad = False
    paths = [p for p in all_config_paths() if p.parent.name != "demo"]
    if not paths:
        raise CepsimInputError("no experiment configs under experiments/ (besides demo)")
    if memory_budget_mb is not None and not memory_budget_mb >= 0:
        raise CepsimInputError(f"--memory-budget-mb: must be a number of MB >= 0 (0 = no limit), "
                               f"got {memory_budget_mb}")
    if dry_run:
        from sim.experiments.estimate import dry_run as estimate
        estimate(paths, scale, out_root(out, scale), out_root(None), backend, workers, master,
                 shared=backend != "serial", echo=typer.echo, resume_stored=not fresh,
                 extra_roots=[out_root(None, "full")], sample=sample)
        return
    import time
    t_start = time.perf_counter()
    figs_root = figures_root(figures_dir, out, scale)
    root = out_root(out, scale)
    if backend in ("local", "spark"):
        bad = _reproduce_shared(paths, scale, root, workers, figs_root, backend, master, fresh,
                                memory_budget_mb)
    else:
        with Progress(len(paths), desc="reproduce", unit="experiments") as bar:
            for p in paths:
                summary, fig_errors = _run_one(p, scale, root, None, backend, workers,
                                               master, figs_root, fresh, resume_stored=True)
                bad |= bool(summary.n_failed or fig_errors)
                bar.update(1)
    rows, refused = check_all(root, [str(p) for p in paths], write=True, scale=scale,
                              given_out=out)
    failed_paper = [r for r in rows if r.failed and r.kind == "paper"]
    failed_other = [r for r in rows if r.failed and r.kind != "paper"]
    typer.echo(f"reproduce: {_minutes(time.perf_counter() - t_start)}; "
               f"{'some points or figures failed (above)' if bad else 'every point ran'}; "
               f"{len(failed_paper)} paper claim(s) and {len(failed_other)} other claim(s) "
               f"failed (results, see the table; --strict exits 1 on a failing paper claim)")
    if bad or refused or (strict and failed_paper):
        raise typer.Exit(1)


def _minutes(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{seconds:.1f} s"


def _reproduce_shared(paths: list[Path], scale, out: Path, workers: Optional[int],
                      figs_root: Path, backend: str = "local", master: Optional[str] = None,
                      fresh: bool = False, memory_budget_mb: Optional[float] = None) -> bool:
    """Every experiment's points in one local pool (``sim.experiments.reproduce_pool``) or one Spark job
    (``sim.experiments.spark_reproduce``); each experiment's summary line and figures as soon as its last
    point is back.  Returns whether a point or a figure failed."""
    from sim.experiments.backends import preflight
    from sim.experiments.config import load_config
    from sim.experiments.reproduce_pool import run_shared
    from sim.experiments.runner import prepare_run
    from sim.experiments.spark_reproduce import run_spark_shared

    if workers is not None and workers < 1:
        raise CepsimInputError(f"--workers: must be >= 1, got {workers}")
    preflight(backend)   # Spark: Java present and recent enough, before any work
    # every config is checked (inputs, claim arguments, parameter values) before any work
    preps = [prepare_run(load_config(p), scale, out, fresh=fresh, resume_stored=True)
             for p in paths]
    bad = False

    def on_done(summary) -> None:
        nonlocal bad
        fig_errors = _after_run(summary, backend, figs_root)
        bad |= bool(summary.n_failed or fig_errors)

    if backend == "spark":
        run_spark_shared(preps, on_done, master=master, workers=workers)
    else:
        run_shared(preps, on_done, workers=workers, memory_budget_mb=memory_budget_mb)
    return bad

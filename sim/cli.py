"""``cepsim``: the one command-line entry point (``docs/ARCHITECTURE.md``, "Command line").

Exit codes: 0 ok, 1 a claim failed (or a point / figure failed), 2 bad input
(``CepsimInputError`` -> ``error: <message>`` on stderr).  Engine, loader and calibration modules
are imported inside the commands that need them, so ``cepsim --help`` stays fast.
"""
from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import List, Optional

import typer

from engines.errors import CepsimInputError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,  # plain help: importing rich costs ~0.2 s per call
                  help="cepsim: complex event processing research simulator.")

REPO_ROOT = Path(__file__).resolve().parents[1]


def _guard(fn):
    """Map ``CepsimInputError`` and ``CapacityError`` (a cap the user can raise or a pattern
    they can narrow) to ``error: ...`` on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from engines.errors import CapacityError
        try:
            return fn(*args, **kwargs)
        except (CepsimInputError, CapacityError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2)
    return wrapper


def _check_output_path(path: Path, option: str) -> None:
    """Fail before any work when ``path`` (the value of ``option``) cannot be written."""
    import os
    if path.is_dir():
        raise CepsimInputError(f"{option} {path}: is a directory; give a file path, e.g. "
                               f"{path / 'matches.jsonl'}")
    parent = path.parent if str(path.parent) else Path(".")
    probe = parent
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise CepsimInputError(f"{option} {path}: {probe} is a file, not a directory; choose "
                               f"another output path")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise CepsimInputError(f"{option} {path}: directory {probe} is not writable; choose a "
                               f"writable output path")
    if path.exists() and not os.access(path, os.W_OK):
        raise CepsimInputError(f"{option} {path}: the file exists and is not writable; choose "
                               f"another output path or fix its permissions")


def _write_output(option: str, path: Path, write) -> None:
    """Run ``write()``; an OS error (disk full, permissions changed) becomes an input error."""
    try:
        write()
    except OSError as exc:
        raise CepsimInputError(f"{option} {path}: cannot write ({exc.strerror or exc}); choose "
                               f"another output path") from None


def _experiments_root() -> Path:
    local = Path("experiments")
    return local if local.is_dir() else REPO_ROOT / "experiments"


def _project_root() -> Path:
    """The checkout commands work in: the working directory if it holds ``experiments/``, else
    the repository this package was loaded from."""
    return Path.cwd() if Path("experiments").is_dir() else REPO_ROOT


def _out_root(out: Optional[Path]) -> Path:
    """Results root: ``--out`` if given, else ``<project>/results``."""
    return Path(out) if out is not None else _project_root() / "results"


def _figures_root(given: Optional[Path], out: Optional[Path] = None) -> Path:
    """Figures root: ``--figures-dir``; else ``<--out>/figures`` when ``--out`` is given (results
    and figures both under ``--out``); else ``<project>/paper_figs`` (both under the project)."""
    if given is not None:
        return given
    if out is not None:
        return Path(out) / "figures"
    return _project_root() / "paper_figs"


def _resolve_config_path(config: str) -> Path:
    p = Path(config)
    if p.is_file():
        return p
    cand = _experiments_root() / (config if config.endswith(".toml") else config + ".toml")
    return cand if cand.is_file() else p  # load_config reports the missing file


def _all_config_paths() -> list[Path]:
    return sorted(_experiments_root().glob("*/*.toml"))


def _draw_figures(cfg, df, figs_root: Path) -> list[str]:
    """Draw every figure of ``cfg``; returns error texts (empty = all drawn)."""
    from sim.config import resolve_function

    from sim.staleness import variant_of

    errors = []
    suffix = f"@{variant_of(cfg.name)}" if variant_of(cfg.name) else ""
    if cfg.figures:
        _warn_overloaded(cfg, df)
    for i, f in enumerate(cfg.figures):
        out_base = figs_root / cfg.paper / (f.name + suffix)
        try:
            fn = resolve_function(f.fn, "paper_figs", str(cfg.path or cfg.key), f"figures[{i}].fn")
            paths = fn(df.copy(), out_base, **f.args)
            typer.echo(f"figure {cfg.paper}/{f.name}: " + ", ".join(str(p) for p in paths or []))
        except CepsimInputError:
            raise
        except Exception as exc:
            msg = f"figure {cfg.paper}/{f.name} failed: {type(exc).__name__}: {exc}"
            typer.echo(msg, err=True)
            errors.append(msg)
    return errors


def _warn_overloaded(cfg, df) -> bool:
    """Print one warning when some successful points are overloaded (offered load >= 1)."""
    from paper_figs.common import ok_rows, overloaded

    bad = overloaded(df)
    if bad.empty:
        return False
    ok = ok_rows(df)
    worst = bad["offered_load"].max() if "offered_load" in bad.columns else float("nan")
    typer.echo(f"warning: {cfg.key}: {len(bad)} of {len(ok)} points are overloaded (offered load "
               f"rho = lambda*E[S] >= 1, worst {worst:.3g}); their latencies grow with the stream "
               f"length and are not comparable (crossed out in the generic figures)", err=True)
    return True


def _all_failed(summary_or_df) -> bool:
    df = getattr(summary_or_df, "df", summary_or_df)
    return df is not None and len(df) > 0 and bool(df["error"].notna().all())


def _report_failures(summary) -> None:
    """Failed points grouped by error text (one line per distinct error, not one per point)."""
    groups: dict[str, list[str]] = {}
    for pid, rep, err in summary.failures:
        groups.setdefault(str(err), []).append(f"{pid}/{rep}")
    for err, ids in groups.items():
        more = f" (+{len(ids) - 3} more)" if len(ids) > 3 else ""
        typer.echo(f"  FAILED {len(ids)} point(s) [{', '.join(ids[:3])}{more}]: {err}", err=True)


def _claim_rows(cfg, df):
    from sim.claims import ClaimRow, check_experiment

    return [ClaimRow(cfg.key, name, res) for name, res in check_experiment(cfg, df)]


def _run_one(config: Path, scale, out: Path, overrides, backend, workers, master, figs_root, fresh):
    from sim.config import load_config
    from sim.runner import run_experiment

    cfg = load_config(config)
    summary = run_experiment(cfg, scale=scale, out_dir=out, backend=backend, workers=workers,
                             master=master, overrides=list(overrides or []), fresh=fresh)
    return summary, _after_run(summary, backend, figs_root)


def _after_run(summary, backend: str, figs_root: Path) -> list[str]:
    """The one-line summary of a finished run, its failures, and its figures (error texts)."""
    typer.echo(f"{summary.cfg.key}: {summary.n_points} rows ({summary.n_resumed} resumed, "
               f"{summary.n_run} run, {summary.n_failed} failed) on {backend} in "
               f"{summary.wall_s:.1f}s -> {summary.out_dir}")
    _report_failures(summary)
    if _all_failed(summary):
        typer.echo(f"{summary.cfg.key}: all {summary.n_points} points failed; figures and claims "
                   f"skipped (fix the error above and rerun)", err=True)
        return []
    return _draw_figures(summary.cfg, summary.df, figs_root)


_SCALE_HELP = "quick or full: apply the config's [scale.<name>] overrides"
_SET_HELP = ("override a config key, e.g. params.n_events=1000, grid.rho=[0.1,0.2], seed=3; "
             "results go to <name>@<overrides>/, never over the config's own results")
_DRY_HELP = ("print points, estimated CPU and wall time per experiment and run nothing (one "
             "timed sample point where no stored timings exist; sim/estimate.py)")
_OUT_HELP = ("results root (default <project>/results); when given, figures go to "
             "<out>/figures unless --figures-dir")
_FIGS_HELP = "figures root (default <out>/figures with --out, else <project>/paper_figs)"


def _run_command(config, scale, out, overrides, backend, workers, master, figures_dir, fresh):
    from sim.claims import print_table

    summary, fig_errors = _run_one(_resolve_config_path(config), scale, _out_root(out), overrides,
                                   backend, workers, master, _figures_root(figures_dir, out), fresh)
    rows = [] if _all_failed(summary) else _claim_rows(summary.cfg, summary.df)
    if rows:
        print_table(rows)
    failed_claims = [r for r in rows if not r.result.passed]
    if summary.n_failed:
        typer.echo(f"{summary.n_failed} of {summary.n_points} points failed; rerun the same "
                   f"command to retry them (successful points are kept)", err=True)
    if failed_claims or summary.n_failed or fig_errors:
        raise typer.Exit(1)


@app.command()
@_guard
def run(config: str = typer.Argument(..., help="experiments/<paper>/<name>.toml (or <paper>/<name>)"),
        scale: Optional[str] = typer.Option(None, "--scale", help=_SCALE_HELP),
        out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP),
        set_: Optional[List[str]] = typer.Option(None, "--set", help=_SET_HELP),
        backend: str = typer.Option("serial", "--backend", help="serial, local or spark"),
        workers: Optional[int] = typer.Option(None, "--workers", help="parallel workers"),
        master: Optional[str] = typer.Option(None, "--master", help="Spark master URL"),
        figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=_FIGS_HELP),
        fresh: bool = typer.Option(False, "--fresh", help="discard shards of an interrupted run")):
    """Run one experiment, write results, draw its figures and print its claims table."""
    _run_command(config, scale, out, set_, backend, workers, master, figures_dir, fresh)


@app.command()
@_guard
def sweep(config: str = typer.Argument(..., help="experiments/<paper>/<name>.toml (or <paper>/<name>)"),
          scale: Optional[str] = typer.Option(None, "--scale", help=_SCALE_HELP),
          backend: str = typer.Option("local", "--backend", help="local or spark"),
          master: Optional[str] = typer.Option(None, "--master",
                                               help="Spark master URL (default local[*])"),
          workers: Optional[int] = typer.Option(None, "--workers", help="parallel workers"),
          out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP),
          set_: Optional[List[str]] = typer.Option(None, "--set", help=_SET_HELP),
          figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=_FIGS_HELP),
          fresh: bool = typer.Option(False, "--fresh", help="discard shards of an interrupted run"),
          dry_run: bool = typer.Option(False, "--dry-run", help=_DRY_HELP)):
    """Run one experiment on a parallel backend; resumes an interrupted sweep."""
    if backend not in ("local", "spark"):
        raise CepsimInputError(f"--backend: sweep runs on 'local' or 'spark', got {backend!r} "
                               f"(use `cepsim run` for serial)")
    if dry_run:
        from sim.estimate import dry_run as estimate
        estimate([_resolve_config_path(config)], scale, _out_root(out), _out_root(None), backend,
                 workers, master, shared=False, overrides=set_, echo=typer.echo)
        return
    _run_command(config, scale, out, set_, backend, workers, master, figures_dir, fresh)


_LIST_HELP = "what to list: " + ", ".join(
    ("experiments", "engines", "scenarios", "claims", "figures", "profiles", "generators"))


@app.command("list")
@_guard
def list_(what: str = typer.Argument("experiments", help=_LIST_HELP)):
    """List experiments (default), engines, scenarios, claims, figures, profiles or generators."""
    from sim import listing

    if what not in listing.KINDS:
        raise CepsimInputError(f"cepsim list: unknown kind {what!r}; choose one of "
                               f"{', '.join(listing.KINDS)}")
    if what != "experiments":
        rows = listing.listing(what)
        width = max([len(n) for n, _ in rows] + [8])
        for name, desc in rows:
            typer.echo(f"{name:<{width}}  {desc}")
        if not rows:
            typer.echo(f"no {what} found")
        return
    _list_experiments()


def _list_experiments() -> None:
    from sim.config import load_config

    paths = _all_config_paths()
    if not paths:
        typer.echo("no experiment configs found under experiments/")
        return
    for p in paths:
        try:
            cfg = load_config(p, check_functions=False)
            typer.echo(f"{cfg.key:<28} {cfg.paper:<10} {cfg.title}  ({p})")
        except CepsimInputError as exc:
            typer.echo(f"{str(p):<28} INVALID: {exc}")


def _select_configs(names: Optional[List[str]]) -> list:
    """[(name given or None, configs)]: configs named on the command line (path, paper/name,
    name or paper), or one group of all configs."""
    from sim.config import load_config

    if not names:
        out = []
        for p in _all_config_paths():
            try:
                out.append(load_config(p))
            except CepsimInputError as exc:  # one broken config must not hide the others
                typer.echo(f"warning: skipping {p}: {exc}", err=True)
        return [(None, out)]
    groups, all_cfgs = [], None
    for n in names:
        p = _resolve_config_path(n)
        if p.is_file():
            groups.append((n, [load_config(p)]))
            continue
        if all_cfgs is None:
            all_cfgs = _select_configs(None)[0][1]
        hits = [c for c in all_cfgs if n in (c.name, c.key, c.paper)]
        if not hits:
            raise CepsimInputError(f"{n}: no such config (give a path, paper/name, name or "
                                   f"paper; `cepsim list` shows them)")
        groups.append((n, hits))
    return groups


def _stored_results(out: Path, cfg):
    """[(resolved cfg, df, result dir, stale reason or None)] for the canonical results of ``cfg``
    and its ``--set`` variants, each checked against the config on disk (``sim.staleness``)."""
    import dataclasses

    from sim import results
    from sim.config import apply_overrides, apply_scale
    from sim.staleness import config_diff, config_fingerprint, rerun_command

    base = out / cfg.paper
    dirs = [base / cfg.name] + sorted(base.glob(f"{cfg.name}@*"))
    found = []
    for d in dirs:
        probe = dataclasses.replace(cfg, name=d.name)
        df = results.read_points(out, probe)
        if df is None:
            continue
        meta = results.read_meta(out, probe) or {}
        scale, overrides = meta.get("scale"), list(meta.get("overrides") or [])
        stale = None
        try:
            cur = apply_overrides(apply_scale(cfg, scale), overrides)
        except CepsimInputError as exc:
            cur, stale = cfg, f"its --set overrides no longer apply ({exc})"
        cur = dataclasses.replace(cur, name=d.name)
        stored = meta.get("config")
        stored_fp = meta.get("config_fingerprint") or (config_fingerprint(stored) if stored else None)
        if stale is None and stored_fp != config_fingerprint(cur.to_dict()):
            diff = config_diff(stored or {}, cur.to_dict()) if stored else ["no stored config"]
            stale = "produced by a different config: " + "; ".join(diff or ["(unknown)"])
        if stale:
            stale += f". Rerun: {rerun_command(cfg.path or cfg.key, scale, overrides)}"
        found.append((cur, df, d, stale))
    return found


def _collect(out: Path, names: Optional[List[str]]):
    """(usable entries, refusal messages) for ``check`` and ``figures``."""
    entries, refused, seen = [], [], set()
    for given, cfgs in _select_configs(names):
        stored = []
        for cfg in cfgs:
            if cfg.key not in seen:
                seen.add(cfg.key)
                stored += _stored_results(out, cfg)
        if not stored and given is not None:
            refused.append(f"{given}: no results under {out}; run `cepsim run {given}` first")
        for cur, df, d, stale in stored:
            if stale:
                refused.append(f"REFUSED {d}: results are stale, {stale}")
            elif _all_failed(df):
                refused.append(f"{d}: every point failed; figures and claims skipped (rerun "
                               f"after fixing: see the error column)")
            else:
                entries.append((cur, df))
    return entries, refused


@app.command()
@_guard
def figures(names: Optional[List[str]] = typer.Argument(None, help="configs (path, paper/name, "
                                                                   "name or paper; default all)"),
            out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP),
            figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=_FIGS_HELP)):
    """Redraw figures from stored results only (no simulation); refuses stale results."""
    root = _out_root(out)
    entries, refused = _collect(root, names)
    if not entries and not refused:
        raise CepsimInputError(f"no stored results under {root}; run experiments first (`cepsim "
                               f"run ...` or `cepsim reproduce`), or pass --out RESULTS_ROOT")
    for msg in refused:
        typer.echo(msg, err=True)
    errors = []
    for cfg, df in entries:
        errors += _draw_figures(cfg, df, _figures_root(figures_dir, out))
    if errors or refused:
        raise typer.Exit(1)


def _check_all(out: Path, names: Optional[List[str]] = None) -> bool:
    from sim.claims import print_table, write_markdown

    entries, refused = _collect(out, names)
    rows = []
    for cfg, df in entries:
        _warn_overloaded(cfg, df)
        rows += _claim_rows(cfg, df)
    print_table(rows)
    for msg in refused:
        typer.echo(msg, err=True)
    md = write_markdown(rows, out / "claims.md")
    typer.echo(f"wrote {md}")
    return not refused and all(r.result.passed for r in rows)


@app.command()
@_guard
def check(configs: Optional[List[str]] = typer.Argument(None, help="configs to check (path, "
                                                                   "paper/name, name or paper; "
                                                                   "default all with results)"),
          out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP)):
    """Claims table (PASS/FAIL + measured numbers); refuses results of a changed config."""
    if not _check_all(_out_root(out), configs):
        raise typer.Exit(1)


@app.command()
@_guard
def reproduce(scale: str = typer.Option("quick", "--scale", help=_SCALE_HELP),
              backend: str = typer.Option("local", "--backend",
                                          help="local (all cores, default), serial or spark"),
              workers: Optional[int] = typer.Option(None, "--workers",
                                                    help="parallel workers (default: all cores)"),
              master: Optional[str] = typer.Option(
                  None, "--master", help="Spark master URL, e.g. spark://HOST:7077 (default "
                                         "local[*]; docs/CLUSTER.md)"),
              out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP),
              figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=_FIGS_HELP),
              dry_run: bool = typer.Option(False, "--dry-run", help=_DRY_HELP)):
    """Run every experiment (except demo) in parallel, draw all figures, check all claims.

    The local backend runs the points of all experiments in one process pool
    (``sim.reproduce_pool``), spark in one Spark job (``sim.spark_reproduce``); serial runs the
    experiments one after another."""
    from sim.progress import Progress

    bad = False
    paths = [p for p in _all_config_paths() if p.parent.name != "demo"]
    if not paths:
        raise CepsimInputError("no experiment configs under experiments/ (besides demo)")
    if dry_run:
        from sim.estimate import dry_run as estimate
        estimate(paths, scale, _out_root(out), _out_root(None), backend, workers, master,
                 shared=backend != "serial", echo=typer.echo)
        return
    figs_root = _figures_root(figures_dir, out)
    if backend in ("local", "spark"):
        bad = _reproduce_shared(paths, scale, _out_root(out), workers, figs_root, backend, master)
    else:
        with Progress(len(paths), desc="reproduce", unit="experiments") as bar:
            for p in paths:
                summary, fig_errors = _run_one(p, scale, _out_root(out), None, backend, workers,
                                               master, figs_root, False)
                bad |= bool(summary.n_failed or fig_errors)
                bar.update(1)
    ok = _check_all(_out_root(out), [str(p) for p in paths])
    if bad or not ok:
        raise typer.Exit(1)


def _reproduce_shared(paths: list[Path], scale, out: Path, workers: Optional[int],
                      figs_root: Path, backend: str = "local", master: Optional[str] = None) -> bool:
    """Every experiment's points in one local pool (``sim.reproduce_pool``) or one Spark job
    (``sim.spark_reproduce``); each experiment's summary line and figures as soon as its last
    point is back.  Returns whether a point or a figure failed."""
    from sim.backends import preflight
    from sim.config import load_config
    from sim.reproduce_pool import run_shared
    from sim.runner import prepare_run
    from sim.spark_reproduce import run_spark_shared

    if workers is not None and workers < 1:
        raise CepsimInputError(f"--workers: must be >= 1, got {workers}")
    preflight(backend)   # Spark: Java present and recent enough, before any work
    # every config is checked (inputs, claim arguments, parameter values) before any work
    preps = [prepare_run(load_config(p), scale, out) for p in paths]
    bad = False

    def on_done(summary) -> None:
        nonlocal bad
        fig_errors = _after_run(summary, backend, figs_root)
        bad |= bool(summary.n_failed or fig_errors)

    if backend == "spark":
        run_spark_shared(preps, on_done, master=master, workers=workers)
    else:
        run_shared(preps, on_done, workers=workers)
    return bad


@app.command()
@_guard
def report(out: Optional[Path] = typer.Option(None, "--out", help=_OUT_HELP),
           figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=_FIGS_HELP),
           report_dir: Optional[Path] = typer.Option(None, "--report-dir",
                                                     help="where to write (default OUT/report)")):
    """Write a browsable HTML report (figures, claims, configs, versions) from stored results;
    stale results (config changed since the run) are left out with a message."""
    from sim.report import build_report

    root = _out_root(out)
    found, refused = _collect(root, None)
    for msg in refused:
        typer.echo(msg, err=True)
    if not found:
        raise CepsimInputError(f"no stored results under {root}; run experiments first (`cepsim "
                               f"reproduce --scale quick`), or pass --out RESULTS_ROOT")
    dest = report_dir if report_dir is not None else root / "report"
    _check_output_path(dest / "index.html", "--report-dir")
    page = build_report(found, _figures_root(figures_dir, out), dest, root)
    typer.echo(f"report: {page} ({len(found)} experiments)")


@app.command()
@_guard
def calibrate(out: Optional[Path] = typer.Option(None, "--out", help="cost profile TOML to write"),
              quick: bool = typer.Option(False, "--quick", help="short calibration run")):
    """Measure unit costs of engine operations on this machine -> cost profile TOML."""
    from sim.calibrate import calibrate as do_calibrate

    profile, report = do_calibrate(out, quick)
    typer.echo(report if isinstance(report, str) else json.dumps(report, indent=2, default=str))


def _json_default(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    raise TypeError(f"not JSON serialisable: {type(v).__name__}")


_PROGRESS_MIN_BYTES = 4 << 20     # `cepsim match` shows progress by default from this file size
_PROGRESS_CHUNK_NOTE = 200_000    # per-chunk write progress only for this many matches or more
_PATTERN_FILE_SUFFIXES = (".cep", ".pattern", ".txt", ".sase")


def _pattern_text(pattern: str) -> tuple[str, str]:
    """(text, source) of the PATTERN argument: a file's content when it names a file."""
    ppath = Path(pattern)
    looks_like_text = "(" in pattern or "\n" in pattern or pattern.lstrip().upper().startswith(
        "PATTERN")
    try:
        is_file = len(pattern) < 4096 and not looks_like_text and ppath.is_file()
    except OSError:
        is_file = False
    if is_file:
        try:
            return ppath.read_text(encoding="utf-8"), str(ppath)
        except (OSError, UnicodeDecodeError) as exc:
            raise CepsimInputError(f"{ppath}: cannot read the pattern file ({exc})") from None
    if not looks_like_text and (ppath.suffix.lower() in _PATTERN_FILE_SUFFIXES or "/" in pattern):
        raise CepsimInputError(f"{pattern}: pattern file not found; give the pattern text "
                               f"(PATTERN SEQ(...) ...) or the path of an existing file")
    return pattern, "<pattern>"


@app.command()
@_guard
def match(pattern: str = typer.Argument(..., help="pattern text, or a file holding it"),
          data: Path = typer.Argument(..., help="event data file"),
          fmt: Optional[str] = typer.Option(None, "--format",
                                            help="metastock, soccer, csv or parquet (default: from "
                                                 "the extension)"),
          schema: Optional[Path] = typer.Option(None, "--schema", help="schema file for csv data"),
          engine: str = typer.Option("eager", "--engine", help="engine name (eager, oracle, ...)"),
          out: Path = typer.Option(Path("matches.jsonl"), "--out", help="JSON lines output"),
          stats_json: Optional[Path] = typer.Option(None, "--stats-json",
                                                    help="write match count, counters, timings"),
          order: Optional[str] = typer.Option(None, "--order",
                                              help="evaluation order, comma-separated variables"),
          plan: Optional[str] = typer.Option(None, "--plan", help="tree plan (engine specific)"),
          trigger: Optional[str] = typer.Option(None, "--trigger",
                                                help="ztree join trigger: push or batch"),
          max_partial_matches: Optional[int] = typer.Option(
              None, "--max-partial-matches", help="cap on live partial matches (engine default)"),
          max_matches: Optional[int] = typer.Option(
              None, "--max-matches", help="cap on matches found (engine default)"),
          max_branches: int = typer.Option(
              5000, "--max-branches", help="cap on the flat alternatives an OR/AND expands into"),
          max_states: Optional[int] = typer.Option(
              None, "--max-states", help="eager engine: cap on automaton states (AND of k "
                                         "events: 2**k)"),
          progress: Optional[bool] = typer.Option(
              None, "--progress/--no-progress",
              help="stage progress on stderr (default: on a terminal, for data files of "
                   f"{_PROGRESS_MIN_BYTES >> 20} MiB or more)"),
          strategy: Optional[str] = typer.Option(
              None, "--strategy", help="remote engine: BL1, BL2, BL3, PFetch, LzEval or Hybrid"),
          cache: Optional[str] = typer.Option(None, "--cache",
                                              help="remote engine: cache policy lru or cost"),
          cache_size: Optional[int] = typer.Option(None, "--cache-size",
                                                   help="remote engine: cache capacity (keys)"),
          remote_table: Optional[Path] = typer.Option(
              None, "--remote-table",
              help="remote engine: CSV or Parquet file with columns key,value (default: "
                   "identity, the value is the key)"),
          remote_opt: Optional[List[str]] = typer.Option(
              None, "--remote-opt", help="remote engine: another option NAME=VALUE (e.g. "
                                         "latency_unit_us=10, workers=5); repeatable")):
    """Evaluate PATTERN over DATA with one engine; write matches as JSON lines (0-based rows)."""
    from engines.registry import engine_names

    if engine not in engine_names():
        raise CepsimInputError(f"--engine: unknown engine {engine!r}; choose one of "
                               f"{', '.join(engine_names())}")
    for opt, v in (("--max-partial-matches", max_partial_matches), ("--max-matches", max_matches),
                   ("--max-branches", max_branches), ("--max-states", max_states)):
        if v is not None and v < 1:
            raise CepsimInputError(f"{opt} must be >= 1 (got {v})")
    remote_opts = _remote_match_options(engine, strategy, cache, cache_size, remote_table,
                                        remote_opt)
    text, source = _pattern_text(pattern)
    if not data.exists():
        raise CepsimInputError(f"{data}: data file not found; give the path of the events file")
    _check_output_path(out, "--out")
    if stats_json is not None:
        _check_output_path(stats_json, "--stats-json")

    global _EXIT_FAST
    _EXIT_FAST = True         # outputs go through closed (atomic) files: skip the teardown
    from engines.jitcache import skip_numba_blas_probe
    skip_numba_blas_probe()   # ~0.2 s CPU of scipy.linalg that no kernel uses
    from engines import counters as ctr
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine
    from sim.atomic import atomic_write_text
    from sim.match_io import write_matches_jsonl
    from workloads.loaders import load_stream

    bar = _match_progress(progress, data)
    with bar:
        c0, t0 = time.process_time(), time.perf_counter()
        bar.stage(f"match: loading {data.name}")
        stream = load_stream(data, fmt, schema) if schema is not None else load_stream(data, fmt)
        bar.update(1)
        c1, t1 = time.process_time(), time.perf_counter()
        bar.stage(f"match: compiling the pattern ({len(stream)} events)")
        prog = compile_pattern(parse_pattern(text, source), stream.schema,
                               max_branches=max_branches)
        bar.update(1)
        c2, t2 = time.process_time(), time.perf_counter()
        bar.stage(f"match: evaluating with {engine}")
        res, t_jit, _ = _match_evaluate(run_engine, engine, prog, stream, order, plan,
                                        trigger, max_partial_matches, max_matches,
                                        max_states, remote_opts)
        bar.update(1)
        c3, t3 = time.process_time(), time.perf_counter()
        n_matches = len(res.matches)
        bar.stage(f"match: writing {n_matches} matches")
        _write_output("--out", out, lambda: write_matches_jsonl(
            res.matches, out, on_chunk=lambda done, tot: bar.stage(
                f"match: writing matches {done}/{tot}") if tot > _PROGRESS_CHUNK_NOTE else None))
        bar.update(1)
        c4, t4 = time.process_time(), time.perf_counter()
    _match_report(res, n_matches, out, stats_json, engine, stream, atomic_write_text, ctr,
                  (c0, c1, c2, c3, c4), (t0, t1, t2, t3, t4), t_jit)



def _compare_help() -> str:
    from sim.compare_strategies import help_text
    return ("Run every evaluation strategy that can evaluate PATTERN on DATA, check they find "
            "the same matches, price their work with the cost profile and queue it at each "
            "rate: one table (engine, plan, matches, work, service time, largest stable rate, "
            "latency p50/p99 per rate, best marked) and a recommendation.  --out DIR writes "
            "rows.parquet, latency_vs_rate.png, work_per_engine.png and compare.md.  Patterns "
            "with REMOTE[...] compare the EIRES strategies instead.\n\nStrategies (--engines "
            "takes these keys or engine names) and the pattern features they cannot "
            "evaluate:\n\n" + "\n\n".join(help_text().splitlines()))


@app.command(help=_compare_help())
@_guard
def compare(pattern: str = typer.Argument(..., help="pattern text, or a file holding it"),
            data: Path = typer.Argument(..., help="event data file"),
            fmt: Optional[str] = typer.Option(None, "--format", help="metastock, soccer, csv or "
                                              "parquet (default: from the extension)"),
            schema: Optional[Path] = typer.Option(None, "--schema",
                                                  help="schema file for csv / parquet data"),
            rates: Optional[str] = typer.Option(None, "--rates", help="arrival rates in events/s, "
                                                "comma-separated (default: 4 rates spanning the "
                                                "engines' largest stable rates)"),
            engines: Optional[str] = typer.Option(None, "--engines", help="comma-separated "
                                                  "strategy keys or engine names (default all)"),
            profile: Optional[Path] = typer.Option(None, "--profile", help="cost profile TOML "
                                                   "(default: the packaged default profile; "
                                                   "`cepsim calibrate` writes one)"),
            out: Optional[Path] = typer.Option(None, "--out", help="directory for rows.parquet, "
                                               "two figures and compare.md"),
            seed: int = typer.Option(0, "--seed", help="seed of the Poisson arrivals"),
            n_events: Optional[int] = typer.Option(None, "--n-events",
                                                   help="use the first N events only"),
            progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                                    help="stage progress on stderr (default: "
                                                         "on a terminal)")):
    from sim.compare import run_command
    text, source = _pattern_text(pattern)
    printed, code = run_command(text, source, data, fmt, schema, rates, engines, profile, out,
                                seed, n_events, progress)
    typer.echo(printed, err=code != 0)
    if code:
        raise typer.Exit(code)


def _match_progress(progress: Optional[bool], data: Path):
    """The stage display of ``cepsim match`` (stderr only, never the output file): a bar on a
    terminal; with ``--progress`` off a terminal, one line per stage; silent otherwise."""
    import sys

    from sim.progress import Progress, _isatty

    tty = _isatty(sys.stderr)
    if progress is None:
        try:
            large = data.stat().st_size >= _PROGRESS_MIN_BYTES
        except OSError:
            large = False
        show = tty and large
    else:
        show = progress
    return Progress(4, desc="match", unit="stages", enabled=None if show else False)


def _remote_match_options(engine: str, strategy, cache, cache_size, remote_table,
                          remote_opt) -> dict:
    """The remote engine's options from ``cepsim match`` flags, validated before any data is
    read (``engines.remote.config``); refused for other engines, naming the flag."""
    given = {"--strategy": strategy, "--cache": cache, "--cache-size": cache_size,
             "--remote-table": remote_table, "--remote-opt": remote_opt or None}
    used = [k for k, v in given.items() if v is not None]
    if not used:
        return {}
    if engine != "remote":
        raise CepsimInputError(f"{', '.join(used)}: only for --engine remote (got --engine "
                               f"{engine})")
    from engines.remote.config import OPTION_NAMES, RemoteOptions, options_from
    opts: dict = {}
    if strategy is not None:
        opts["strategy"] = strategy
    if cache is not None:
        opts["cache"] = cache
    if cache_size is not None:
        opts["cache_size"] = cache_size
    fields = RemoteOptions.__dataclass_fields__
    for item in remote_opt or []:
        name, sep, val = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in OPTION_NAMES or name == "remote_table":
            raise CepsimInputError(f"--remote-opt {item!r}: give NAME=VALUE with NAME one of "
                                   f"{[n for n in OPTION_NAMES if n != 'remote_table']}")
        default = fields[name].default
        try:
            if isinstance(default, bool):
                if val.strip().lower() not in ("true", "false", "1", "0"):
                    raise ValueError(val)
                opts[name] = val.strip().lower() in ("true", "1")
            elif isinstance(default, int):
                opts[name] = int(val)
            elif isinstance(default, float):
                opts[name] = float(val)
            else:
                opts[name] = val.strip()
        except ValueError:
            raise CepsimInputError(f"--remote-opt {item!r}: {name} needs a "
                                   f"{type(default).__name__} value") from None
    options_from(opts)                         # refuses bad values now, naming the option
    if remote_table is not None:
        from engines.remote.table import load_remote_table
        opts["remote"] = load_remote_table(remote_table)
    return opts


def _match_evaluate(run_engine, engine, prog, stream, order, plan, trigger, max_partial_matches,
                    max_matches, max_states, remote_opts=None):
    opts: dict = dict(remote_opts or {})
    if order:
        opts["order"] = [s.strip() for s in order.split(",") if s.strip()]
    if plan:
        opts["plan"] = plan
    if trigger:
        opts["trigger"] = trigger
    if max_partial_matches is not None:
        opts["max_partial_matches"] = max_partial_matches
    if max_matches is not None:
        opts["max_matches"] = max_matches
    if max_states is not None:
        opts["max_states"] = max_states
    res, t_jit = _run_engine_timed(run_engine, engine, prog, stream, opts)
    return res, t_jit, opts


def _match_report(res, n_matches, out, stats_json, engine, stream, atomic_write_text, ctr, cs, ts,
                  t_jit):
    """Print the match summary; write ``--stats-json``."""
    c0, c1, c2, c3, c4 = cs
    t0, t1, t2, t3, t4 = ts
    summary = ctr.summarize(res.counters)
    typer.echo(f"{n_matches} matches -> {out}")
    typer.echo("counters: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    facts = _engine_facts(res)
    if facts:
        typer.echo("engine: " + ", ".join(f"{k}={v}" for k, v in facts.items()))
    if stats_json is not None:
        stats = {"matches": n_matches, "engine": engine, "events": len(stream),
                 "counters": summary, "engine_info": facts,
                 "seconds": {"load": t1 - t0, "compile": t2 - t1, "jit": t_jit,
                             "evaluate": t3 - t2 - t_jit, "write": t4 - t3},
                 # CPU time of this process per stage (less sensitive to other jobs); its
                 # evaluate includes the kernel compile / cache load ('jit' above)
                 "cpu_seconds": {"before": c0, "load": c1 - c0, "compile": c2 - c1,
                                 "evaluate": c3 - c2, "write": c4 - c3}}
        _write_output("--stats-json", stats_json, lambda: atomic_write_text(
            stats_json, json.dumps(stats, indent=2, default=_json_default) + "\n"))


_JIT_PREFIX = 64


def _run_engine_timed(run_engine, engine: str, prog, stream, opts: dict):
    """(result, jit seconds): kernels are compiled (or loaded from the cache) by a run over the
    first ``_JIT_PREFIX`` events, timed apart, so ``evaluate`` is evaluation only, cold cache or
    not.  A failing prefix run is ignored (the full run reports the real error)."""
    from engines.stream import EventStream

    t0 = time.perf_counter()
    k = min(len(stream), _JIT_PREFIX)
    if k:
        try:
            run_engine(engine, prog, EventStream(stream.types[:k], stream.ts[:k], stream.attrs[:k],
                                                 stream.schema), **opts)
        except Exception:
            pass
    t_jit = time.perf_counter() - t0
    return run_engine(engine, prog, stream, **opts), t_jit


def _engine_facts(res) -> dict:
    """The engine's own facts (hybrid plan, chain order, transient peaks, ...), JSON-safe."""
    out = {}
    for k, v in (getattr(res, "info", None) or {}).items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        try:
            json.dumps(v)
        except TypeError:
            v = str(v)
        out[k] = v
    return out


# Set by one-shot commands (``match``) once their outputs are written through closed files: the
# process then ends without the interpreter's teardown (Numba/LLVM and module clean-up cost about
# 0.4 s of CPU after the work is done).  Only for a real command line (``main()`` without argv).
_EXIT_FAST = False


def main(argv: Optional[list[str]] = None) -> None:
    """Console-script entry point (``cepsim = "sim.cli:main"``)."""
    if argv is not None:
        app(args=argv, prog_name="cepsim")
        return
    try:
        app(prog_name="cepsim")
    except SystemExit as exc:
        if _EXIT_FAST:
            _exit_now(exc.code)
        raise


def _exit_now(code) -> None:
    """Flush stdout/stderr and end the process with ``code`` (SystemExit semantics)."""
    import os
    import sys

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    main()

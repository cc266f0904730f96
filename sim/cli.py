"""``cepsim``: the one command-line entry point (DESIGN section 8).

Exit codes: 0 ok, 1 a claim failed (or a point / figure failed), 2 bad input
(``CepsimInputError`` -> ``error: <message>`` on stderr).  Engine, loader and calibration modules
are imported inside the commands that need them, so ``cepsim --help`` stays fast.
"""
from __future__ import annotations

import functools
import json
import sys
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


def _figures_root(given: Optional[Path]) -> Path:
    if given is not None:
        return given
    local = Path("paper_figs")
    return local if local.is_dir() else REPO_ROOT / "paper_figs"


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

    errors = []
    for i, f in enumerate(cfg.figures):
        out_base = figs_root / cfg.paper / f.name
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


def _claim_rows(cfg, df):
    from sim.claims import ClaimRow, check_experiment

    return [ClaimRow(cfg.key, name, res) for name, res in check_experiment(cfg, df)]


def _run_one(config: Path, scale, out: Path, overrides, backend, workers, master, figs_root, fresh):
    from sim.config import load_config
    from sim.runner import run_experiment

    cfg = load_config(config)
    summary = run_experiment(cfg, scale=scale, out_dir=out, backend=backend, workers=workers,
                             master=master, overrides=list(overrides or []), fresh=fresh)
    typer.echo(f"{summary.cfg.key}: {summary.n_points} rows ({summary.n_resumed} resumed, "
               f"{summary.n_run} run, {summary.n_failed} failed) on {backend} in "
               f"{summary.wall_s:.1f}s -> {summary.out_dir}")
    for pid, rep, err in summary.failures:
        typer.echo(f"  FAILED point {pid} rep {rep}: {err}", err=True)
    fig_errors = _draw_figures(summary.cfg, summary.df, figs_root)
    return summary, fig_errors


_SCALE_HELP = "quick or full: apply the config's [scale.<name>] overrides"
_SET_HELP = "override a config key, e.g. params.n_events=1000, grid.rho=[0.1,0.2], seed=3"


def _run_command(config, scale, out, overrides, backend, workers, master, figures_dir, fresh):
    from sim.claims import print_table

    summary, fig_errors = _run_one(_resolve_config_path(config), scale, out, overrides, backend,
                                   workers, master, _figures_root(figures_dir), fresh)
    rows = _claim_rows(summary.cfg, summary.df)
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
        out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
        set_: Optional[List[str]] = typer.Option(None, "--set", help=_SET_HELP),
        backend: str = typer.Option("serial", "--backend", help="serial, local or spark"),
        workers: Optional[int] = typer.Option(None, "--workers", help="parallel workers"),
        master: Optional[str] = typer.Option(None, "--master", help="Spark master URL"),
        figures_dir: Optional[Path] = typer.Option(None, "--figures-dir",
                                                   help="figures root (default paper_figs/)"),
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
          out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
          set_: Optional[List[str]] = typer.Option(None, "--set", help=_SET_HELP),
          figures_dir: Optional[Path] = typer.Option(None, "--figures-dir",
                                                     help="figures root (default paper_figs/)"),
          fresh: bool = typer.Option(False, "--fresh", help="discard shards of an interrupted run")):
    """Run one experiment on a parallel backend; resumes an interrupted sweep."""
    if backend not in ("local", "spark"):
        raise CepsimInputError(f"--backend: sweep runs on 'local' or 'spark', got {backend!r} "
                               f"(use `cepsim run` for serial)")
    _run_command(config, scale, out, set_, backend, workers, master, figures_dir, fresh)


@app.command("list")
@_guard
def list_():
    """List the experiment configs under experiments/ with their paper and title."""
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


def _configs_with_results(out: Path, names: Optional[List[str]] = None):
    """(cfg, df) for every config with stored results (filtered by name, paper/name or paper)."""
    from sim import results
    from sim.config import load_config

    found = []
    for p in _all_config_paths():
        try:
            cfg = load_config(p)
        except CepsimInputError as exc:  # one broken config must not hide the others' results
            typer.echo(f"warning: skipping {p}: {exc}", err=True)
            continue
        if names and not ({cfg.name, cfg.key, cfg.paper} & set(names)):
            continue
        df = results.read_points(out, cfg)
        if df is None:
            continue
        meta = results.read_meta(out, cfg) or {}
        if meta.get("config"):
            # claims/figures from the current file, the rest as the run resolved it
            try:
                from sim.config import config_from_dict
                resolved = dict(meta["config"])
                resolved["claims"] = cfg.to_dict()["claims"]
                resolved["figures"] = cfg.to_dict()["figures"]
                cfg = config_from_dict(resolved, source=str(p), path=p)
            except CepsimInputError:
                pass
        found.append((cfg, df))
    return found


@app.command()
@_guard
def figures(names: Optional[List[str]] = typer.Argument(None, help="experiment names (default all)"),
            out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
            figures_dir: Optional[Path] = typer.Option(None, "--figures-dir",
                                                       help="figures root (default paper_figs/)")):
    """Redraw figures from stored results only (no simulation)."""
    found = _configs_with_results(out, names)
    if names and not found:
        raise CepsimInputError(f"no stored results for {', '.join(names)} under {out}; run the "
                               f"experiment first (`cepsim run ...`)")
    if not found:
        raise CepsimInputError(f"no stored results under {out}; run experiments first (`cepsim "
                               f"run ...` or `cepsim reproduce`), or pass --out RESULTS_ROOT")
    errors = []
    for cfg, df in found:
        errors += _draw_figures(cfg, df, _figures_root(figures_dir))
    if errors:
        raise typer.Exit(1)


def _check_all(out: Path) -> bool:
    from sim.claims import print_table, write_markdown

    rows = []
    for cfg, df in _configs_with_results(out):
        rows += _claim_rows(cfg, df)
    print_table(rows)
    md = write_markdown(rows, out / "claims.md")
    typer.echo(f"wrote {md}")
    return all(r.result.passed for r in rows)


@app.command()
@_guard
def check(out: Path = typer.Option(Path("results"), "--out", help="results root directory")):
    """Claims table (PASS/FAIL + measured numbers) for every experiment with results."""
    if not _check_all(out):
        raise typer.Exit(1)


@app.command()
@_guard
def reproduce(scale: str = typer.Option("quick", "--scale", help=_SCALE_HELP),
              backend: str = typer.Option("local", "--backend",
                                          help="local (all cores, default), serial or spark"),
              workers: Optional[int] = typer.Option(None, "--workers",
                                                    help="parallel workers (default: all cores)"),
              master: Optional[str] = typer.Option(None, "--master"),
              out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
              figures_dir: Optional[Path] = typer.Option(None, "--figures-dir")):
    """Run every experiment (except demo) in parallel, draw all figures, check all claims."""
    from sim.progress import Progress

    bad = False
    paths = [p for p in _all_config_paths() if p.parent.name != "demo"]
    if not paths:
        raise CepsimInputError("no experiment configs under experiments/ (besides demo)")
    with Progress(len(paths), desc="reproduce", unit="experiments") as bar:
        for p in paths:
            summary, fig_errors = _run_one(p, scale, out, None, backend, workers, master,
                                           _figures_root(figures_dir), False)
            bad |= bool(summary.n_failed or fig_errors)
            bar.update(1)
    ok = _check_all(out)
    if bad or not ok:
        raise typer.Exit(1)


@app.command()
@_guard
def report(out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
           figures_dir: Optional[Path] = typer.Option(None, "--figures-dir",
                                                      help="figures root (default paper_figs/)"),
           report_dir: Optional[Path] = typer.Option(None, "--report-dir",
                                                     help="where to write (default OUT/report)")):
    """Write a browsable HTML report (figures, claims, configs, versions) from stored results."""
    from sim.report import build_report

    found = _configs_with_results(out)
    if not found:
        raise CepsimInputError(f"no stored results under {out}; run experiments first (`cepsim "
                               f"reproduce --scale quick`), or pass --out RESULTS_ROOT")
    dest = report_dir if report_dir is not None else out / "report"
    _check_output_path(dest / "index.html", "--report-dir")
    page = build_report(found, _figures_root(figures_dir), dest, out)
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
          max_partial_matches: Optional[int] = typer.Option(
              None, "--max-partial-matches", help="cap on live partial matches (engine default)"),
          max_matches: Optional[int] = typer.Option(
              None, "--max-matches", help="cap on matches found (engine default)"),
          max_branches: int = typer.Option(
              5000, "--max-branches", help="cap on the flat alternatives an OR/AND expands into"),
          max_states: Optional[int] = typer.Option(
              None, "--max-states", help="eager engine: cap on automaton states (AND of k "
                                         "events: 2**k)")):
    """Evaluate PATTERN over DATA with one engine; write matches as JSON lines (0-based rows)."""
    from engines.registry import engine_names

    if engine not in engine_names():
        raise CepsimInputError(f"--engine: unknown engine {engine!r}; choose one of "
                               f"{', '.join(engine_names())}")
    for opt, v in (("--max-partial-matches", max_partial_matches), ("--max-matches", max_matches),
                   ("--max-branches", max_branches), ("--max-states", max_states)):
        if v is not None and v < 1:
            raise CepsimInputError(f"{opt} must be >= 1 (got {v})")
    text, source = _pattern_text(pattern)
    if not data.exists():
        raise CepsimInputError(f"{data}: data file not found; give the path of the events file")
    _check_output_path(out, "--out")
    if stats_json is not None:
        _check_output_path(stats_json, "--stats-json")

    from engines import counters as ctr
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine
    from sim.atomic import atomic_write_text
    from sim.match_io import write_matches_jsonl
    from workloads.loaders import load_stream

    c0, t0 = time.process_time(), time.perf_counter()
    stream = load_stream(data, fmt, schema) if schema is not None else load_stream(data, fmt)
    c1, t1 = time.process_time(), time.perf_counter()
    prog = compile_pattern(parse_pattern(text, source), stream.schema, max_branches=max_branches)
    c2, t2 = time.process_time(), time.perf_counter()
    opts: dict = {}
    if order:
        opts["order"] = [s.strip() for s in order.split(",") if s.strip()]
    if plan:
        opts["plan"] = plan
    if max_partial_matches is not None:
        opts["max_partial_matches"] = max_partial_matches
    if max_matches is not None:
        opts["max_matches"] = max_matches
    if max_states is not None:
        opts["max_states"] = max_states
    res = run_engine(engine, prog, stream, **opts)
    c3, t3 = time.process_time(), time.perf_counter()
    n_matches = len(res.matches)
    _write_output("--out", out, lambda: write_matches_jsonl(res.matches, out))
    c4, t4 = time.process_time(), time.perf_counter()
    summary = ctr.summarize(res.counters)
    typer.echo(f"{n_matches} matches -> {out}")
    typer.echo("counters: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    if stats_json is not None:
        stats = {"matches": n_matches, "engine": engine, "events": len(stream),
                 "counters": summary,
                 "seconds": {"load": t1 - t0, "compile": t2 - t1, "evaluate": t3 - t2,
                             "write": t4 - t3},
                 # CPU time of this process per stage (less sensitive to other jobs); the first
                 # evaluation includes loading the cached Numba kernels
                 "cpu_seconds": {"before": c0, "load": c1 - c0, "compile": c2 - c1,
                                 "evaluate": c3 - c2, "write": c4 - c3}}
        _write_output("--stats-json", stats_json, lambda: atomic_write_text(
            stats_json, json.dumps(stats, indent=2, default=_json_default) + "\n"))


def main(argv: Optional[list[str]] = None) -> None:
    """Console-script entry point (``cepsim = "sim.cli:main"``)."""
    app(args=argv, prog_name="cepsim")


if __name__ == "__main__":
    main()

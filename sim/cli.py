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
                  help="cepsim: complex event processing research simulator.")

REPO_ROOT = Path(__file__).resolve().parents[1]


def _guard(fn):
    """Map ``CepsimInputError`` to ``error: ...`` on stderr and exit code 2."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except CepsimInputError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2)
    return wrapper


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
              backend: str = typer.Option("serial", "--backend", help="serial, local or spark"),
              workers: Optional[int] = typer.Option(None, "--workers"),
              master: Optional[str] = typer.Option(None, "--master"),
              out: Path = typer.Option(Path("results"), "--out", help="results root directory"),
              figures_dir: Optional[Path] = typer.Option(None, "--figures-dir")):
    """Run every experiment (except demo), draw all figures, check all claims."""
    bad = False
    paths = [p for p in _all_config_paths() if p.parent.name != "demo"]
    if not paths:
        raise CepsimInputError("no experiment configs under experiments/ (besides demo)")
    for p in paths:
        summary, fig_errors = _run_one(p, scale, out, None, backend, workers, master,
                                       _figures_root(figures_dir), False)
        bad |= bool(summary.n_failed or fig_errors)
    ok = _check_all(out)
    if bad or not ok:
        raise typer.Exit(1)


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
          max_partial_matches: Optional[int] = typer.Option(None, "--max-partial-matches")):
    """Evaluate PATTERN over DATA with one engine; write matches as JSON lines (0-based rows)."""
    from engines import counters as ctr
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine
    from sim.claims import write_text_atomic
    from workloads.loaders import load_stream

    try:
        names = __import__("engines.registry", fromlist=["x"])
        known = list(getattr(names, "ENGINE_NAMES", None) or names.engine_names())
    except Exception:  # pragma: no cover
        known = []
    if known and engine not in known:
        raise CepsimInputError(f"--engine: unknown engine {engine!r}; choose one of {', '.join(known)}")
    ppath = Path(pattern)
    try:
        is_file = len(pattern) < 4096 and "\n" not in pattern and ppath.is_file()
    except OSError:
        is_file = False
    text, source = (ppath.read_text(encoding="utf-8"), str(ppath)) if is_file else (pattern, "<pattern>")
    if not data.exists():
        raise CepsimInputError(f"{data}: data file not found; give the path of the events file")

    t0 = time.perf_counter()
    stream = load_stream(data, fmt, schema) if schema is not None else load_stream(data, fmt)
    t1 = time.perf_counter()
    prog = compile_pattern(parse_pattern(text, source), stream.schema)
    t2 = time.perf_counter()
    opts = {}
    if order:
        opts["order"] = [s.strip() for s in order.split(",") if s.strip()]
    if plan:
        opts["plan"] = plan
    if trigger:
        opts["trigger"] = trigger
    if max_partial_matches is not None:
        opts["max_partial_matches"] = max_partial_matches
    res = run_engine(engine, prog, stream, **opts)
    t3 = time.perf_counter()
    records = res.matches.records()
    lines = "".join(json.dumps(r, default=_json_default, separators=(", ", ": ")) + "\n"
                    for r in records)
    write_text_atomic(out, lines)
    summary = ctr.summarize(res.counters)
    typer.echo(f"{len(records)} matches -> {out}")
    typer.echo("counters: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    if stats_json is not None:
        stats = {"matches": len(records), "engine": engine, "events": len(stream),
                 "counters": summary,
                 "seconds": {"load": t1 - t0, "compile": t2 - t1, "evaluate": t3 - t2}}
        write_text_atomic(stats_json, json.dumps(stats, indent=2, default=_json_default) + "\n")


def main(argv: Optional[list[str]] = None) -> None:
    """Console-script entry point (``cepsim = "sim.cli:main"``)."""
    app(args=argv, prog_name="cepsim")


if __name__ == "__main__":
    main()

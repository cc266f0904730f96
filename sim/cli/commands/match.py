"""``cepsim match``: evaluate one pattern over one data file with one engine, write the
matches (their rows, or with ``--emit events`` their events as JSON lines or CSV); stages (load,
compile, evaluate, write) timed apart for ``--stats-json``.  A first use of the engine's kernels
in this checkout says so on stderr with its elapsed time (``sim.experiments.warmup``)."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import List, Optional

import typer

from engines.errors import CepsimInputError
from sim.cli.commands.common import check_output_path, guard, request_fast_exit, write_output


def _json_default(v):
    if hasattr(v, "tolist"):
        return v.tolist()
    raise TypeError(f"not JSON serialisable: {type(v).__name__}")


_PROGRESS_MIN_BYTES = 4 << 20     # `cepsim match` shows progress by default from this file size


_PROGRESS_CHUNK_NOTE = 200_000    # per-chunk write progress only for this many matches or more


_PATTERN_FILE_SUFFIXES = (".cep", ".pattern", ".txt", ".sase")


def pattern_text(pattern: str) -> tuple[str, str]:
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


@guard
def match(pattern: str = typer.Argument(..., help="pattern text, or a file holding it"),
          data: Path = typer.Argument(..., help="event data file"),
          fmt: Optional[str] = typer.Option(None, "--format",
                                            help="metastock, soccer, csv or parquet (default: from "
                                                 "the extension)"),
          schema: Optional[Path] = typer.Option(None, "--schema", help="schema file for csv data"),
          engine: str = typer.Option("eager", "--engine", help="engine name (eager, oracle, ...)"),
          out: Path = typer.Option(Path("matches.jsonl"), "--out",
                                   help="output file: JSON lines (with --emit events: CSV when "
                                        "it ends in .csv)"),
          emit: str = typer.Option("rows", "--emit",
                                   help="rows: each match's 0-based row per variable "
                                        "({\"a\": 3, \"b\": 7}); events: each match's events "
                                        "with type, timestamp and attributes"),
          limit: Optional[int] = typer.Option(
              None, "--limit", help="write the first N matches (by detection, then rows); the "
                                    "whole stream is still evaluated"),
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
              None, "--max-matches", help="safety cap on the matches an engine holds (engine "
                                          "default); exceeding it is an error, not a truncation: "
                                          "use --limit N for the first N matches"),
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
    """Evaluate PATTERN over DATA with one engine; write the matches as JSON lines of 0-based
    rows, or with ``--emit events`` as their events (JSON lines, or CSV for a .csv --out)."""
    from engines.registry import engine_names

    if emit not in ("rows", "events"):
        raise CepsimInputError(f"--emit: rows or events, got {emit!r}")
    if limit is not None and limit < 0:
        raise CepsimInputError(f"--limit must be >= 0 (got {limit})")
    if emit == "rows" and str(out).lower().endswith(".csv"):
        raise CepsimInputError(f"--out {out}: rows are written as JSON lines; give a .jsonl path, "
                               f"or --emit events for CSV")

    if engine not in engine_names():
        raise CepsimInputError(f"--engine: unknown engine {engine!r}; choose one of "
                               f"{', '.join(engine_names())}")
    for opt, v in (("--max-partial-matches", max_partial_matches), ("--max-matches", max_matches),
                   ("--max-branches", max_branches), ("--max-states", max_states)):
        if v is not None and v < 1:
            raise CepsimInputError(f"{opt} must be >= 1 (got {v})")
    _check_engine_options(engine, (("--order", "order", order), ("--plan", "plan", plan),
                                   ("--trigger", "trigger", trigger),
                                   ("--max-states", "max_states", max_states)))
    remote_opts = _remote_match_options(engine, strategy, cache, cache_size, remote_table,
                                        remote_opt)
    text, source = pattern_text(pattern)
    if not data.exists():
        raise CepsimInputError(f"{data}: data file not found; give the path of the events file")
    check_output_path(out, "--out")
    if stats_json is not None:
        check_output_path(stats_json, "--stats-json")

    request_fast_exit()       # outputs go through closed (atomic) files: skip the teardown
    from engines.jitcache import skip_numba_blas_probe
    skip_numba_blas_probe()   # ~0.2 s CPU of scipy.linalg that no kernel uses
    from engines import counters as ctr
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine
    from sim.atomic import atomic_write_text
    from sim.experiments.warmup import FirstUseNotice
    from sim.tools.match_io import first_matches, write_match_events, write_matches_jsonl
    from workloads.loaders import load_stream, warm_reader

    bar, shown = _match_progress(progress, data)
    # first-use compile notices: on the stage display when it is shown, else one stderr line
    say = bar.stage if shown else (lambda msg: typer.echo(msg, err=True))
    with bar:
        c_lj, t_lj = time.process_time(), time.perf_counter()
        with FirstUseNotice(f"the {fmt or data.suffix} reader's kernel", say, prefix="match: "):
            warm_reader(fmt)      # the reader's compiled kernel, timed apart ('load_jit')
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
                                        max_states, remote_opts, notice=say)
        bar.update(1)
        c3, t3 = time.process_time(), time.perf_counter()
        n_matches = len(res.matches)
        written = res.matches if limit is None else first_matches(res.matches, limit)
        bar.stage(f"match: writing {len(written)} matches")
        note = (lambda done, tot: bar.stage(f"match: writing matches {done}/{tot}")
                if tot > _PROGRESS_CHUNK_NOTE else None)
        if emit == "events":
            write_output("--out", out, lambda: write_match_events(written, stream, out,
                                                                  on_chunk=note))
        else:
            write_output("--out", out, lambda: write_matches_jsonl(written, out, on_chunk=note))
        bar.update(1)
        c4, t4 = time.process_time(), time.perf_counter()
    _match_report(res, n_matches, out, stats_json, engine, stream, atomic_write_text, ctr,
                  (c_lj, c0, c1, c2, c3, c4), (t_lj, t0, t1, t2, t3, t4), t_jit,
                  n_written=len(written))


def _check_engine_options(engine: str, given) -> None:
    """Refuse an engine-specific option (``(flag, parameter, value)``, value None = not given)
    that ``engine`` would silently ignore, naming the engines that take it."""
    from engines.registry import engine_options, engines_taking

    takes = engine_options(engine)
    for flag, param, value in given:
        if value is not None and param not in takes:
            users = engines_taking(param)
            raise CepsimInputError(f"{flag}: the {engine!r} engine does not use this option; it "
                                   f"applies to --engine {' or '.join(users)} (drop {flag} or "
                                   f"choose one of those engines)")


def _match_progress(progress: Optional[bool], data: Path):
    """(the stage display of ``cepsim match``, whether it shows): stderr only, never the output
    file; a bar on a terminal; with ``--progress`` off a terminal, one line per stage; silent
    otherwise."""
    import sys

    from sim.experiments.progress import Progress, is_tty

    tty = is_tty(sys.stderr)
    if progress is None:
        try:
            large = data.stat().st_size >= _PROGRESS_MIN_BYTES
        except OSError:
            large = False
        show = tty and large
    else:
        show = progress
    return Progress(4, desc="match", unit="stages", enabled=None if show else False), bool(show)


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
                    max_matches, max_states, remote_opts=None, notice=None):
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
    res, t_jit = _run_engine_timed(run_engine, engine, prog, stream, opts, notice)
    return res, t_jit, opts


def _match_report(res, n_matches, out, stats_json, engine, stream, atomic_write_text, ctr, cs, ts,
                  t_jit, n_written=None):
    """Print the match summary; write ``--stats-json``."""
    c_lj, c0, c1, c2, c3, c4 = cs
    t_lj, t0, t1, t2, t3, t4 = ts
    summary = ctr.summarize(res.counters)
    n_written = n_matches if n_written is None else n_written
    if n_written < n_matches:
        typer.echo(f"{n_matches} matches, the first {n_written} -> {out}")
    else:
        typer.echo(f"{n_matches} matches -> {out}")
    typer.echo("counters: " + ", ".join(f"{k}={v}" for k, v in summary.items()))
    facts = _engine_facts(res)
    if facts:
        typer.echo("engine: " + ", ".join(f"{k}={v}" for k, v in facts.items()))
    if stats_json is not None:
        stats = {"matches": n_matches, "written": n_written, "engine": engine,
                 "events": len(stream),
                 "counters": summary, "engine_info": facts,
                 # load_jit: the reader's compiled kernel loaded (or compiled) before the
                 # timed load; jit: the engine's kernels, before the timed evaluation
                 "seconds": {"load_jit": t0 - t_lj, "load": t1 - t0, "compile": t2 - t1,
                             "jit": t_jit,
                             "evaluate": t3 - t2 - t_jit, "write": t4 - t3},
                 # CPU time of this process per stage (less sensitive to other jobs); its
                 # evaluate includes the kernel compile / cache load ('jit' above)
                 "cpu_seconds": {"before": c_lj, "load_jit": c0 - c_lj, "load": c1 - c0,
                                 "compile": c2 - c1,
                                 "evaluate": c3 - c2, "write": c4 - c3}}
        write_output("--stats-json", stats_json, lambda: atomic_write_text(
            stats_json, json.dumps(stats, indent=2, default=_json_default) + "\n"))


_JIT_PREFIX = 64


def _run_engine_timed(run_engine, engine: str, prog, stream, opts: dict, notice=None):
    """(result, jit seconds): kernels are compiled (or loaded from the cache) by a run over the
    first ``_JIT_PREFIX`` events, timed apart, so ``evaluate`` is evaluation only, cold cache or
    not.  A failing prefix run is ignored (the full run reports the real error).  ``notice``
    (a line printer): when the prefix run is a compile, not a cache load, it says so
    (``FirstUseNotice``)."""
    from engines.stream import EventStream
    from sim.experiments.warmup import FirstUseNotice

    t0 = time.perf_counter()
    k = min(len(stream), _JIT_PREFIX)
    if k:
        with FirstUseNotice(f"{engine} kernels", notice or (lambda _m: None), prefix="match: "):
            try:
                run_engine(engine, prog, EventStream(stream.types[:k], stream.ts[:k],
                                                     stream.attrs[:k], stream.schema), **opts)
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

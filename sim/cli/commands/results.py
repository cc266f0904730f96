"""``cepsim figures``, ``check`` and ``report``: everything that reads stored results (and the
figure drawing and claim rows that ``run`` / ``reproduce`` share with them).

Stored results are found per config (its canonical directory and its ``--set`` variants) and
checked against the config on disk (``sim.experiments.staleness``): stale results are refused with the
command that recomputes them.
"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from engines.errors import CepsimInputError
from sim.cli.commands.common import (FIGS_HELP, OUT_HELP, ROOT_SCALE_HELP, all_config_paths, check_output_path,
                                 figures_root, guard, out_root, resolve_config_path)


def draw_figures(cfg, df, figs_root: Path) -> list[str]:
    """Draw every figure of ``cfg``; returns error texts (empty = all drawn)."""
    from sim.experiments.functions import resolve

    from sim.experiments.staleness import variant_of

    errors = []
    suffix = f"@{variant_of(cfg.name)}" if variant_of(cfg.name) else ""
    if cfg.figures:
        warn_overloaded(cfg, df)
    for i, f in enumerate(cfg.figures):
        out_base = figs_root / cfg.paper / (f.name + suffix)
        try:
            fn = resolve(f.fn, "figures", str(cfg.path or cfg.key), f"figures[{i}].fn")
            paths = fn(df.copy(), out_base, **f.args)
            typer.echo(f"figure {cfg.paper}/{f.name}: " + ", ".join(str(p) for p in paths or []))
        except CepsimInputError:
            raise
        except Exception as exc:
            msg = f"figure {cfg.paper}/{f.name} failed: {type(exc).__name__}: {exc}"
            typer.echo(msg, err=True)
            errors.append(msg)
    return errors


def warn_overloaded(cfg, df) -> bool:
    """Print one warning when some successful points are overloaded (offered load >= 1)."""
    from sim.experiments.results import ok_rows, overloaded

    bad = overloaded(df)
    if bad.empty:
        return False
    ok = ok_rows(df)
    worst = bad["offered_load"].max() if "offered_load" in bad.columns else float("nan")
    typer.echo(f"warning: {cfg.key}: {len(bad)} of {len(ok)} points are overloaded (offered load "
               f"rho = lambda*E[S] >= 1, worst {worst:.3g}); their latencies grow with the stream "
               f"length and are not comparable (crossed out in the generic figures)", err=True)
    return True


def all_failed(summary_or_df) -> bool:
    df = getattr(summary_or_df, "df", summary_or_df)
    return df is not None and len(df) > 0 and bool(df["error"].notna().all())


def claim_rows(cfg, df):
    from sim.experiments.claims import claim_rows as rows_of

    return rows_of(cfg, df)


def select_configs(names: Optional[List[str]]) -> list:
    """[(name given or None, configs)]: configs named on the command line (path, paper/name,
    name or paper), or one group of all configs."""
    from sim.experiments.config import load_config

    if not names:
        out = []
        for p in all_config_paths():
            try:
                out.append(load_config(p))
            except CepsimInputError as exc:  # one broken config must not hide the others
                typer.echo(f"warning: skipping {p}: {exc}", err=True)
        return [(None, out)]
    groups, all_cfgs = [], None
    for n in names:
        p = resolve_config_path(n)
        if p.is_file():
            groups.append((n, [load_config(p)]))
            continue
        if all_cfgs is None:
            all_cfgs = select_configs(None)[0][1]
        hits = [c for c in all_cfgs if n in (c.name, c.key, c.paper)]
        if not hits:
            raise CepsimInputError(f"{n}: no such config (give a path, paper/name, name or "
                                   f"paper; `cepsim list` shows them)")
        groups.append((n, hits))
    return groups


def stored_results(out: Path, cfg):
    """[(resolved cfg, df, result dir, stale reason or None)] for the canonical results of ``cfg``
    and its ``--set`` variants, each checked against the config on disk (``sim.experiments.staleness``)."""
    import dataclasses

    from sim.experiments import results
    from sim.experiments.config import apply_overrides, apply_scale
    from sim.experiments.staleness import config_diff, config_fingerprint, rerun_command

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


def make_command(cfg, scale: str, out: Optional[Path]) -> str:
    """The exact command that makes the results of ``cfg`` under the root ``check`` / ``figures``
    read: ``cepsim run CONFIG --scale SCALE`` (and ``--out ROOT`` when the root was given)."""
    from sim.cli.commands.common import project_root

    path = Path(cfg.path) if cfg.path else Path(cfg.key)
    try:
        path = path.resolve().relative_to(project_root().resolve())
    except ValueError:
        pass
    cmd = f"cepsim run {path} --scale {scale}"
    return cmd + (f" --out {out}" if out is not None else "")


def collect(out: Path, names: Optional[List[str]], scale: str = "quick",
            given_out: Optional[Path] = None):
    """(usable entries, refusal messages) for ``check``, ``figures`` and ``report``.

    A config named on the command line with no results under ``out`` is bad input (exit 2): the
    message gives the exact command that makes them (``make_command``)."""
    entries, refused, seen, missing = [], [], set(), []
    for given, cfgs in select_configs(names):
        stored = []
        for cfg in cfgs:
            if cfg.key not in seen:
                seen.add(cfg.key)
                stored += stored_results(out, cfg)
        if not stored and given is not None:
            cmds = "; ".join(f"`{make_command(c, scale, given_out)}`" for c in cfgs)
            missing.append(f"{given}: no results under {out}; make them with {cmds}")
        for cur, df, d, stale in stored:
            if stale:
                refused.append(f"REFUSED {d}: results are stale, {stale}")
            elif all_failed(df):
                refused.append(f"{d}: every point failed; figures and claims skipped (rerun "
                               f"after fixing: see the error column)")
            else:
                entries.append((cur, df))
    if missing:
        raise CepsimInputError("\n".join(missing))
    return entries, refused


def no_results_message(root: Path, scale: str, given_out: Optional[Path]) -> str:
    """Bad input of a results-reading command with nothing stored under ``root``: the command
    that makes them, and the committed full-scale reproduction when it is there."""
    make = f"cepsim reproduce --scale {scale}" + (f" --out {given_out}" if given_out else "")
    msg = f"no stored results under {root}; make them with `{make}`"
    if scale == "quick" and given_out is None and _has_results(out_root(None, "full")):
        msg += (f", or read the committed full-scale reproduction in {out_root(None, 'full')} "
                f"with --scale full")
    return msg


def _has_results(root: Path) -> bool:
    return root.is_dir() and any(root.glob("*/*/points.parquet"))


def tracked_files(root: Path) -> set:
    """The files under ``root`` that git tracks in the project's checkout (resolved paths; an
    empty set outside a git checkout or without git)."""
    import subprocess

    from sim.cli.commands.common import project_root

    proj = project_root().resolve()
    try:
        proc = subprocess.run(["git", "-C", str(proj), "ls-files", "-z", "--full-name", "--",
                               str(Path(root).resolve())], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode != 0:
        return set()
    top = subprocess.run(["git", "-C", str(proj), "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    base = Path(top.stdout.strip()) if top.returncode == 0 else proj
    return {(base / f).resolve() for f in proc.stdout.decode().split("\0") if f}


def figure_targets(entries, figs_root: Path) -> list:
    """The base paths (no extension) ``draw_figures`` writes for ``entries``."""
    from sim.experiments.staleness import variant_of

    out = []
    for cfg, _ in entries:
        suffix = f"@{variant_of(cfg.name)}" if variant_of(cfg.name) else ""
        out += [figs_root / cfg.paper / (f.name + suffix) for f in cfg.figures]
    return out


def tracked_targets(bases: list, figs_root: Path) -> list:
    """The git-tracked files among the figures of ``bases`` (``<base>.<ext>``)."""
    tracked = tracked_files(figs_root)
    if not tracked:
        return []
    hits = []
    for b in bases:
        stem = str(Path(b).resolve()) + "."
        hits += sorted(str(t) for t in tracked if str(t).startswith(stem)
                       and "/" not in str(t)[len(stem):])
    return hits


@guard
def figures(names: Optional[List[str]] = typer.Argument(None, help="configs (path, paper/name, "
                                                                   "name or paper; default all)"),
            out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
            figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=FIGS_HELP),
            scale: str = typer.Option("quick", "--scale", help=ROOT_SCALE_HELP),
            write: bool = typer.Option(False, "--write",
                                       help="allow redrawing figures that git tracks (the "
                                            "committed paper_figs); refused without it")):
    """Redraw figures from stored results only (no simulation); refuses stale results.

    A read-only command: it never overwrites a file git tracks (the committed ``paper_figs``)
    unless ``--write``; ``--figures-dir DIR`` draws elsewhere."""
    scale = _root_scale(scale)
    root = out_root(out, scale)
    entries, refused = collect(root, names, scale, out)
    if not entries and not refused:
        raise CepsimInputError(no_results_message(root, scale, out))
    figs = figures_root(figures_dir, out, scale)
    if not write:
        hits = tracked_targets(figure_targets(entries, figs), figs)
        if hits:
            raise CepsimInputError(
                f"{len(hits)} of the figures to draw are files git tracks (e.g. {hits[0]}); "
                f"pass --write to redraw them in place, or --figures-dir DIR to draw elsewhere")
    for msg in refused:
        typer.echo(msg, err=True)
    errors = []
    for cfg, df in entries:
        errors += draw_figures(cfg, df, figs)
    if errors or refused:
        raise typer.Exit(1)


def _root_scale(scale: str) -> str:
    """``--scale`` of the commands that read stored results: which default root to read."""
    if scale not in ("quick", "full"):
        raise CepsimInputError(f"--scale: quick or full, got {scale!r}")
    return scale


def check_all(out: Path, names: Optional[List[str]] = None, write: bool = False,
              scale: str = "quick", given_out: Optional[Path] = None):
    """Print the claims table of the stored results under ``out``; with ``write`` also write
    ``out/claims.md``.  Returns (claim rows, refusal messages)."""
    from sim.experiments import results
    from sim.experiments.claims import print_table, provenance_line, write_markdown

    entries, refused = collect(out, names, scale, given_out)
    rows = []
    metas = {}
    for cfg, df in entries:
        warn_overloaded(cfg, df)
        rows += claim_rows(cfg, df)
        metas[cfg.key] = results.read_meta(out, cfg) or {}
    print_table(rows)
    for msg in refused:
        typer.echo(msg, err=True)
    if write:
        md = write_markdown(rows, out / "claims.md", provenance_line(metas) if metas else None)
        typer.echo(f"wrote {md}")
    return rows, refused


@guard
def check(configs: Optional[List[str]] = typer.Argument(None, help="configs to check (path, "
                                                                   "paper/name, name or paper; "
                                                                   "default all with results)"),
          out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
          scale: str = typer.Option("quick", "--scale", help=ROOT_SCALE_HELP),
          write: bool = typer.Option(False, "--write",
                                     help="also write the root's claims file OUT/claims.md "
                                          "(every config; refused with config names)")):
    """Claims table (PASS/FAIL + measured numbers); refuses results of a changed config.

    Read-only unless ``--write``: the claims file of a root (``results/full/claims.md`` is
    committed) is written by ``cepsim reproduce`` into its own results root, or by ``check
    --write`` over every config.  Exit 0 when every claim passes, 1 when one fails or results
    are stale, 2 when there are no results (the message gives the command that makes them)."""
    scale = _root_scale(scale)
    if write and configs:
        raise CepsimInputError("--write: the claims file covers every config of the root; drop "
                               "the config names (or drop --write to print their claims)")
    root = out_root(out, scale)
    if not configs and not _has_results(root):
        raise CepsimInputError(no_results_message(root, scale, out))
    rows, refused = check_all(root, configs, write=write, scale=scale, given_out=out)
    if refused or any(r.failed for r in rows):
        raise typer.Exit(1)


@guard
def report(out: Optional[Path] = typer.Option(None, "--out", help=OUT_HELP),
           figures_dir: Optional[Path] = typer.Option(None, "--figures-dir", help=FIGS_HELP),
           report_dir: Optional[Path] = typer.Option(None, "--report-dir",
                                                     help="where to write (default OUT/report)"),
           scale: str = typer.Option("quick", "--scale", help=ROOT_SCALE_HELP)):
    """Write a browsable HTML report (figures, claims, configs, versions) from stored results;
    stale results (config changed since the run) are left out with a message.  At ``--scale
    full`` (default roots) the quick-scale results, where they exist, are shown beside the full
    ones: figures side by side and both verdicts per claim."""
    from sim.experiments.report import Companion, build_report

    scale = _root_scale(scale)
    root = out_root(out, scale)
    if (scale == "quick" and out is None and not _has_results(root)
            and _has_results(out_root(None, "full"))):
        # a fresh clone: no runs of one's own, the committed full-scale reproduction is there
        scale, root = "full", out_root(None, "full")
        typer.echo(f"no quick-scale results of your own under {out_root(None)}; reporting the "
                   f"committed full-scale reproduction in {root} (the same as `cepsim report "
                   f"--scale full`)", err=True)
    found, refused = collect(root, None, scale, out)
    for msg in refused:
        typer.echo(msg, err=True)
    if not found:
        raise CepsimInputError(no_results_message(root, scale, out))
    dest = report_dir if report_dir is not None else root / "report"
    check_output_path(dest / "index.html", "--report-dir")
    companion = None
    if scale == "full" and out is None and figures_dir is None:
        quick_root = out_root(None)
        quick_found, _ = collect(quick_root, None)
        if quick_found:
            companion = Companion("quick", quick_found, figures_root(None), quick_root)
    page = build_report(found, figures_root(figures_dir, out, scale), dest, root,
                        companion=companion, label=scale)
    typer.echo(f"report: {page} ({len(found)} experiments)")

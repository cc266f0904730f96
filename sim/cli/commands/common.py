"""What every ``cepsim`` command group shares: the error guard (bad input -> exit 2), where
results, figures and configs live, output-path checks, and the help texts of common options.

Engine, loader and calibration modules are imported inside the commands that need them, so
``cepsim --help`` stays fast.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional

import typer

from engines.errors import CepsimInputError

REPO_ROOT = Path(__file__).resolve().parents[3]

SCALE_HELP = "quick or full: apply the config's [scale.<name>] overrides"
SET_HELP = ("override a config key, e.g. params.n_events=1000, grid.rho=[0.1,0.2], seed=3; "
            "results go to <name>@<overrides>/, never over the config's own results")
OUT_HELP = ("results root (default <project>/results, <project>/results/full at --scale full); "
            "when given, figures go to <out>/figures unless --figures-dir")
FIGS_HELP = ("figures root (default <out>/figures with --out, else <project>/paper_figs, "
             "<project>/paper_figs/full at --scale full)")
ROOT_SCALE_HELP = ("quick or full: which stored reproduction to read (default roots "
                   "<project>/results and paper_figs, or results/full and paper_figs/full)")
# The full-scale reproduction lives in its own subdirectory of the results and figures roots,
# so that it is committed beside (never over) a user's quick runs (docs/EXPERIMENTS.md).
FULL_SUBDIR = "full"

# Set by one-shot commands (``match``) once their outputs are written through closed files: the
# process then ends without the interpreter's teardown (Numba/LLVM and module clean-up cost about
# 0.4 s of CPU after the work is done).  Only for a real command line (``sim.cli.main()``
# without argv).
FAST_EXIT = {"requested": False}


def request_fast_exit() -> None:
    """Let ``sim.cli.main`` end the process without the interpreter teardown."""
    FAST_EXIT["requested"] = True


def guard(fn):
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


def check_output_path(path: Path, option: str) -> None:
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


def write_output(option: str, path: Path, write) -> None:
    """Run ``write()``; an OS error (disk full, permissions changed) becomes an input error."""
    try:
        write()
    except OSError as exc:
        raise CepsimInputError(f"{option} {path}: cannot write ({exc.strerror or exc}); choose "
                               f"another output path") from None


def experiments_root() -> Path:
    local = Path("experiments")
    return local if local.is_dir() else REPO_ROOT / "experiments"


def project_root() -> Path:
    """The checkout commands work in: the working directory if it holds ``experiments/``, else
    the repository this package was loaded from."""
    return Path.cwd() if Path("experiments").is_dir() else REPO_ROOT


def out_root(out: Optional[Path], scale: Optional[str] = None) -> Path:
    """Results root: ``--out`` if given, else ``<project>/results`` (``<project>/results/full``
    at scale full); an existing file there is bad input (results are a directory tree)."""
    if out is not None:
        root = Path(out)
    else:
        root = project_root() / "results"
        if scale == "full":
            root = root / FULL_SUBDIR
    if root.exists() and not root.is_dir():
        raise CepsimInputError(f"--out {root}: is a file; the results root is a directory, give "
                               f"a directory path (e.g. {root.parent / 'results'})")
    return root


def figures_root(given: Optional[Path], out: Optional[Path] = None,
                 scale: Optional[str] = None) -> Path:
    """Figures root: ``--figures-dir``; else ``<--out>/figures`` when ``--out`` is given (results
    and figures both under ``--out``); else ``<project>/paper_figs`` (both under the project),
    ``<project>/paper_figs/full`` at scale full."""
    if given is not None:
        return given
    if out is not None:
        return Path(out) / "figures"
    root = project_root() / "paper_figs"
    return root / FULL_SUBDIR if scale == "full" else root


def resolve_config_path(config: str) -> Path:
    p = Path(config)
    if p.is_file():
        return p
    cand = experiments_root() / (config if config.endswith(".toml") else config + ".toml")
    return cand if cand.is_file() else p  # load_config reports the missing file


def all_config_paths() -> list[Path]:
    return sorted(experiments_root().glob("*/*.toml"))

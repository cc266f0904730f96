"""Check the input files a config names, once, before any point runs.

Without this check a missing cost profile or data file fails every grid point with the same
error (and on a sweep, after the workers started).  A parameter names a file when

* its key ends in ``_file`` or ``_path`` (``pattern_file``, ``nasdaq_path``), or
* its key is one of ``profile``, ``cost_profile``, ``data``, ``schema`` and its value looks like a
  path (contains ``/`` or ends in a file extension such as ``.toml``, ``.csv``, ``.txt.gz``):
  symbolic values (``profile = "default"``, ``data = "synthetic"``) are left to the scenario.

Relative paths are taken from the working directory, then from the repository root (as the
loaders do, so configs can name the bundled ``workloads/data/...`` samples from anywhere).  A cost
profile is also parsed and validated here, so a typo in it is reported once.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from engines.errors import CepsimInputError

PATH_KEYS = ("profile", "cost_profile", "data", "schema")
PROFILE_KEYS = ("profile", "cost_profile")
_EXT_RE = re.compile(r"\.(toml|csv|txt|gz|parquet|pat|json|dat)$", re.IGNORECASE)
REPO_ROOT = Path(__file__).resolve().parents[2]


def is_file_param(key: str, value: Any) -> bool:
    """Does parameter ``key = value`` name an input file (see the module docstring)?"""
    if not isinstance(value, str) or not value.strip():
        return False
    if key.endswith("_file") or key.endswith("_path"):
        return True
    return key in PATH_KEYS and ("/" in value or "\\" in value or bool(_EXT_RE.search(value)))


def resolve_input(value: str) -> Path:
    """``value`` as given if it exists, else taken from the repository root."""
    p = Path(value)
    if not p.exists() and not p.is_absolute() and (REPO_ROOT / p).exists():
        return REPO_ROOT / p
    return p


def _values(v: Any) -> Iterator[Any]:
    if isinstance(v, list):
        for x in v:
            yield from _values(x)
    else:
        yield v


def file_params(cfg) -> list[tuple[str, str, str]]:
    """(section.key, key, value) of every file-naming value in params, grid and zip (distinct)."""
    out, seen = [], set()
    for part in ("params", "grid", "zip"):
        for k, v in getattr(cfg, part).items():
            for x in _values(v):
                if is_file_param(k, x) and (k, x) not in seen:
                    seen.add((k, x))
                    out.append((f"{part}.{k}", k, x))
    return out


def check_input_files(cfg) -> list[Path]:
    """Raise one ``CepsimInputError`` listing every missing or invalid input file of ``cfg``.

    Returns the resolved paths (for the run's metadata)."""
    source = str(cfg.path) if getattr(cfg, "path", None) else cfg.key
    problems: list[str] = []
    found: list[Path] = []
    for where, key, value in file_params(cfg):
        p = resolve_input(value)
        if not p.is_file():
            problems.append(f"key '{where}': file {value!r} not found (looked in the working "
                            f"directory and the repository root); fix the path or create the file")
            continue
        found.append(p)
        if key in PROFILE_KEYS:
            from sim.core.costmodel import load_profile
            try:
                load_profile(p)
            except CepsimInputError as exc:
                problems.append(f"key '{where}': invalid cost profile: {exc}")
    if problems:
        raise CepsimInputError(f"{source}: {len(problems)} input file problem(s), nothing was "
                               f"run:\n  " + "\n  ".join(problems))
    return found

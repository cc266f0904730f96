"""Result storage: ``<root>/<paper>/<name>/points.parquet`` + ``meta.json`` (+ shards while running).

While a sweep runs every finished (point, rep) is written as ``shards/<point_id>-<rep>.json``
(atomically), so a killed sweep resumes: points with a successful shard of the same seed are
skipped (shards of earlier versions, ``<point_id>-<rep>.parquet``, are still read).  At the end
all shards of the current config are consolidated into ``points.parquet``.
The consolidated table is always built the same way from the shard rows, sorted by
(point_id, rep), with a fixed column order, so every backend yields identical rows (``wall_s``
is the only timing column and is excluded from equality).

Reading stored results (``read_points``, ``read_meta``: ``check``, ``figures``, ``report``) never
ends in a traceback: a corrupt or truncated file is a ``CepsimInputError`` naming it and the
command that recomputes it.  An unreadable shard is not an error: its point simply runs again.
"""
from __future__ import annotations

import json
import platform
import shutil
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from engines.errors import CepsimInputError
from sim.atomic import atomic_write, atomic_write_text
from sim.experiments.config import ExperimentConfig, Point, param_names
from sim.experiments.staleness import config_fingerprint, rerun_command

ID_COLUMNS = ("seed", "rep", "point_id")
TAIL_COLUMNS = ("error", "wall_s")
VERSION_PACKAGES = ("numpy", "numba", "pandas", "pyarrow", "simpy", "pyspark", "matplotlib")
REPO_ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- row filters
def ok_rows(df):
    """Rows without an error (figures draw successful points only)."""
    return df[df["error"].isna()] if "error" in df.columns else df


def overloaded(df):
    """Rows of successful points whose offered load ρ = λ·E[S] is >= 1 (``stable`` False)."""
    d = ok_rows(df)
    if "stable" not in d.columns:
        return d.iloc[0:0]
    return d[d["stable"].map(lambda v: v is False or v == 0)]


def experiment_dir(root: Path | str, cfg: ExperimentConfig) -> Path:
    return Path(root) / cfg.paper / cfg.name


def shard_dir(root: Path | str, cfg: ExperimentConfig) -> Path:
    return experiment_dir(root, cfg) / "shards"


def shard_path(root: Path | str, cfg: ExperimentConfig, point: Point) -> Path:
    return shard_dir(root, cfg) / f"{point.point_id}-{point.rep}.json"


def _shard_file(root: Path | str, cfg: ExperimentConfig, point: Point) -> Path | None:
    """The point's shard file (JSON, else an earlier version's one-row Parquet), or None."""
    p = shard_path(root, cfg, point)
    if p.exists():
        return p
    old = p.with_suffix(".parquet")
    return old if old.exists() else None


def write_parquet_atomic(df: pd.DataFrame, path: Path) -> None:
    atomic_write(path, lambda tmp: df.to_parquet(tmp, index=False))


def write_json_atomic(obj: Any, path: Path) -> None:
    def w(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(obj, fh, indent=2, sort_keys=True, default=str)
            fh.write("\n")
    atomic_write(Path(path), w)


# --- shards ------------------------------------------------------------------------------

def _json_cell(v: Any, top: bool = False) -> Any:
    """A row value as a one-row Parquet file gives it back through ``read_shard``'s ``_plain``
    (which the JSON shard must reproduce exactly, tested on every committed row): numpy scalars
    and arrays as Python values and lists, tuples as lists, a list mixing ints and floats as
    floats (Arrow's one element type), a NaN cell as None (a NaN inside a list stays NaN)."""
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, float):
        return None if (top and v != v) else v
    if isinstance(v, (list, tuple)):
        out = [_json_cell(x) for x in v]
        if any(type(x) is float for x in out) and all(type(x) in (int, float) for x in out):
            out = [float(x) for x in out]
        return out
    if isinstance(v, dict):
        return {k: _json_cell(x) for k, x in v.items()}
    return v


def write_shard(root: Path | str, cfg: ExperimentConfig, point: Point, row: dict) -> Path:
    """Store one finished point's row as ``shards/<point_id>-<rep>.json`` (atomically).
    JSON, not a one-row Parquet file: the parent process writes one shard per point while the
    workers compute, and Parquet cost 21 ms per write and 5 ms per read (5,749 points of the
    full reproduction: 150 s of CPU taken from the workers); floats are written with
    ``repr``, which reads back the same double."""
    p = shard_path(root, cfg, point)
    atomic_write_text(p, json.dumps({str(k): _json_cell(v, top=True) for k, v in row.items()},
                                    allow_nan=True))
    return p


def _plain(v: Any) -> Any:
    """numpy scalars / arrays from a parquet round trip -> plain Python values."""
    if hasattr(v, "tolist"):
        return v.tolist()
    if isinstance(v, float) and v != v:
        return None
    return v


def read_shard(path: Path) -> dict | None:
    """The row stored in a shard (JSON, or an earlier version's one-row Parquet), or None if
    the shard is unreadable (then the point re-runs)."""
    path = Path(path)
    if path.suffix == ".json":
        try:
            row = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return row if isinstance(row, dict) else None
    try:
        df = pd.read_parquet(path)
    except Exception:
        return None
    if len(df) != 1:
        return None
    return {k: _plain(v) for k, v in df.iloc[0].to_dict().items()}


def _fingerprint(cfg: ExperimentConfig) -> dict:
    return {"scenario": cfg.scenario, "seed": cfg.seed, "paper": cfg.paper, "name": cfg.name}


def shards_match(root: Path | str, cfg: ExperimentConfig) -> bool:
    """Whether the shard directory holds shards of this scenario/seed (``prepare_shards`` keeps
    them and a run resumes from them); reads only."""
    try:
        fp = json.loads((shard_dir(root, cfg) / "_fingerprint.json").read_text())
    except (OSError, ValueError):
        return False
    return fp == _fingerprint(cfg)


def prepare_shards(root: Path | str, cfg: ExperimentConfig, fresh: bool = False) -> Path:
    """Create the shard directory; wipe it when ``fresh`` or when it belongs to another scenario/seed."""
    d = shard_dir(root, cfg)
    fp_path = d / "_fingerprint.json"
    if d.exists() and (fresh or not shards_match(root, cfg)):
        shutil.rmtree(d)
    d.mkdir(parents=True, exist_ok=True)
    if not fp_path.exists():
        write_json_atomic(_fingerprint(cfg), fp_path)
    return d


def restore_shards(root: Path | str, cfg: ExperimentConfig, points: Iterable[Point]) -> int:
    """Unpack the consolidated rows of ``cfg`` into missing shards, so that a run resumes from
    results that were committed without their shards (``results/full/`` keeps only
    ``points.parquet`` and ``meta.json``).  Only when the stored config is this config
    (``meta.json``'s fingerprint; a changed config resumes nothing) and only successful rows of
    the same seed.  Returns the number of shards written."""
    stored = stored_rows(root, cfg, points)
    n = 0
    for p in points:
        row = stored.get((p.point_id, p.rep))
        if row is None or _shard_file(root, cfg, p) is not None:
            continue
        write_shard(root, cfg, p, row)
        n += 1
    return n


def stored_rows(root: Path | str, cfg: ExperimentConfig,
                points: Iterable[Point]) -> dict[tuple[str, int], dict]:
    """``(point_id, rep) -> row`` of the successful consolidated rows of ``points`` (same seed)
    when ``meta.json`` says they were produced by this very config; else empty.  Reads only."""
    meta = read_meta(root, cfg)
    if not meta or meta.get("config_fingerprint") != config_fingerprint(cfg.to_dict()):
        return {}
    df = read_points(root, cfg)
    if df is None:
        return {}
    by_id = {(r["point_id"], int(r["rep"])): r for r in df.to_dict("records")}
    out: dict[tuple[str, int], dict] = {}
    for p in points:
        row = by_id.get((p.point_id, p.rep))
        if row is None:
            continue
        row = {k: _plain(v) for k, v in row.items()}
        if row.get("error") is None and row.get("seed") == p.seed:
            out[(p.point_id, p.rep)] = row
    return out


def done_points(root: Path | str, cfg: ExperimentConfig, points: Iterable[Point]) -> dict[tuple[str, int], dict]:
    """(point_id, rep) -> stored row, for points with a usable successful shard of the same seed.

    Shards that recorded an error are not counted as done: a resumed sweep retries them."""
    out: dict[tuple[str, int], dict] = {}
    for p in points:
        sp = _shard_file(root, cfg, p)
        if sp is None:
            continue
        row = read_shard(sp)
        if row is None or row.get("error") is not None or row.get("seed") != p.seed:
            continue
        out[(p.point_id, p.rep)] = row
    return out


def collect_rows(root: Path | str, cfg: ExperimentConfig, points: Iterable[Point]) -> list[dict]:
    """Rows of all ``points`` that have a shard (any outcome)."""
    rows = []
    for p in points:
        sp = _shard_file(root, cfg, p)
        if sp is not None:
            row = read_shard(sp)
            if row is not None:
                rows.append(row)
    return rows


# --- consolidation -----------------------------------------------------------------------

def rows_to_frame(cfg: ExperimentConfig, rows: list[dict]) -> pd.DataFrame:
    """Rows -> DataFrame with fixed column order and sort, independent of arrival order."""
    rows = [{k: _plain(v) for k, v in r.items()} for r in rows]
    rows.sort(key=lambda r: (r["point_id"], r["rep"]))
    pcols = [c for c in param_names(cfg)]
    seen = set(pcols) | set(ID_COLUMNS) | set(TAIL_COLUMNS)
    metric_cols = sorted({k for r in rows for k in r if k not in seen})
    cols = pcols + list(ID_COLUMNS) + metric_cols + list(TAIL_COLUMNS)
    data = {c: [r.get(c) for r in rows] for c in cols}
    df = pd.DataFrame(data, columns=cols)
    for c in metric_cols:
        # numeric metrics with missing values (failed rows) -> float NaN, consistently
        vals = [v for v in data[c] if v is not None]
        if vals and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            if len(vals) < len(data[c]) or any(isinstance(v, float) for v in vals):
                df[c] = pd.array([float("nan") if v is None else float(v) for v in data[c]],
                                 dtype="float64")
            else:
                df[c] = pd.array(data[c], dtype="int64")
    df["error"] = pd.array(data["error"], dtype="object")
    df["wall_s"] = pd.array([float("nan") if v is None else float(v) for v in data["wall_s"]],
                            dtype="float64")
    return df.reset_index(drop=True)


def write_points(root: Path | str, cfg: ExperimentConfig, df: pd.DataFrame) -> Path:
    p = experiment_dir(root, cfg) / "points.parquet"
    write_parquet_atomic(df, p)
    return p


def _unreadable(root: Path | str, cfg: ExperimentConfig, path: Path, why: str
                ) -> CepsimInputError:
    """The error for a stored result file that cannot be read: the file, why, and the command
    that recomputes it (with the stored run's ``--scale`` / ``--set`` when ``meta.json`` has
    them)."""
    scale, overrides = None, None
    if path.name != "meta.json":
        try:
            meta = read_meta(root, cfg) or {}
            scale, overrides = meta.get("scale"), meta.get("overrides")
        except CepsimInputError:
            pass
    cmd = rerun_command(str(cfg.path or cfg.key), scale, overrides)
    if scale is None and overrides is None:
        cmd += " [--scale quick|full] [--set ... as in the original run]"
    return CepsimInputError(f"{path}: stored results are unreadable ({why}); the file is corrupt "
                            f"or truncated. Recompute them: {cmd} (or delete {path.parent})")


def read_points(root: Path | str, cfg: ExperimentConfig) -> pd.DataFrame | None:
    """The stored ``points.parquet`` of ``cfg`` (None when there is none)."""
    import pyarrow as pa

    p = experiment_dir(root, cfg) / "points.parquet"
    if not p.exists():
        return None
    try:
        df = pd.read_parquet(p)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise _unreadable(root, cfg, p, f"{type(exc).__name__}: {exc}") from None
    missing = [c for c in (*ID_COLUMNS, "error") if c not in df.columns]
    if missing:
        raise _unreadable(root, cfg, p, f"no column {', '.join(missing)}")
    return df


def finish_shards(root: Path | str, cfg: ExperimentConfig, df: pd.DataFrame) -> None:
    """Remove the shard dir once everything succeeded (keep it when some rows failed: resume)."""
    if df["error"].isna().all():
        shutil.rmtree(shard_dir(root, cfg), ignore_errors=True)


# --- metadata ----------------------------------------------------------------------------

def package_versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in VERSION_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


DIRTY_FILES_CAP = 50    # meta.json lists at most this many modified tracked files


def git_commit(repo: Path = REPO_ROOT) -> str | None:
    """HEAD commit of the checkout (``+dirty`` if the tree has changes), None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True,
                              text=True, timeout=10)
        if head.returncode != 0:
            return None
        return head.stdout.strip() + ("+dirty" if git_dirty_files(repo) else "")
    except (OSError, subprocess.SubprocessError):
        return None


def git_dirty_files(repo: Path = REPO_ROOT) -> list[str]:
    """The tracked files that differ from HEAD (``git status --porcelain``, untracked files
    left out), sorted; empty for a clean tree or outside git.  ``meta.json`` records them so
    that a ``+dirty`` result says which changes it ran with."""
    try:
        st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                            capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    if st.returncode != 0:
        return []
    return sorted({ln[3:].split(" -> ")[-1].strip() for ln in st.stdout.splitlines()
                   if len(ln) > 3})


def write_meta(root: Path | str, cfg: ExperimentConfig, *, scale: str | None, backend: str,
               n_rows: int, n_failed: int, cost_profile: Any = None, extra: dict | None = None) -> Path:
    meta = {
        "config": cfg.to_dict(),
        "config_path": str(cfg.path) if cfg.path else None,
        "scale": scale,
        "base_seed": cfg.seed,
        "backend": backend,
        "rows": n_rows,
        "failed_rows": n_failed,
        "versions": package_versions(),
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "git_dirty_files": git_dirty_files()[:DIRTY_FILES_CAP],
        "cost_profile": cost_profile,
        "config_fingerprint": config_fingerprint(cfg.to_dict()),
    }
    if extra:
        if "git_commit" in extra:      # rows of an earlier run: its dirty files are not known here
            meta["git_dirty_files"] = extra.get("git_dirty_files")
        meta.update(extra)
    p = experiment_dir(root, cfg) / "meta.json"
    write_json_atomic(meta, p)
    return p


def read_meta(root: Path | str, cfg: ExperimentConfig) -> dict | None:
    """The stored ``meta.json`` of ``cfg`` (None when there is none)."""
    p = experiment_dir(root, cfg) / "meta.json"
    if not p.exists():
        return None
    try:
        meta = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _unreadable(root, cfg, p, f"{type(exc).__name__}: {exc}") from None
    if not isinstance(meta, dict):
        raise _unreadable(root, cfg, p, f"a JSON {type(meta).__name__}, not an object")
    return meta

"""Where cepsim keeps its caches: one Numba kernel cache and one engine-counter cache.

**Numba kernel cache.** Every command (``run``, ``sweep``, ``match``, ``calibrate``, the Python
API, the tests via ``engines/__init__``) uses one location: ``$NUMBA_CACHE_DIR`` when set, else
``<repo>/.numba_cache`` (git-ignored), or ``~/.cache/cepsim/numba`` when the checkout is not
writable.  Numba reads the variable when it is first imported, so ``ensure_numba_cache_dir`` must
run before that; ``engines/__init__.py`` calls it, which covers every path into an engine.  If
numba was imported earlier by someone else with its default location, the location is left
alone (changing it then would split one process from its workers).

**Counter cache.** Engines are pure: their per-event counters depend on the stream, the
pattern, the engine and its options, never on the arrival rate.  Scenarios that sweep the
arrival rate (``sim/studies/generic/scenario.py``) store the counters once under
``counter_cache_dir()``: ``$CEPSIM_COUNTER_CACHE`` when set (empty = no disk cache), else
``<repo>/.cepsim_cache/counters``.  Entries are keyed by everything that determines them,
including a fingerprint of the engine and workload source code (``code_fingerprint``), so an
edited engine can never be served stale counters.
"""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from engines.jitcache import (default_numba_cache_dir, ensure_numba_cache_dir,  # noqa: F401
                             numba_cache_dir)

REPO_ROOT = Path(__file__).resolve().parents[2]


def counter_cache_dir() -> Path | None:
    """Disk location of cached engine counters (None = memory only)."""
    env = os.environ.get("CEPSIM_COUNTER_CACHE")
    if env is not None:
        return Path(env) if env.strip() else None
    return REPO_ROOT / ".cepsim_cache" / "counters"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 (16 hex) of every ``engines/**/*.py`` and ``workloads/**/*.py`` source file.

    Part of every counter-cache key: any change to an engine, the pattern compiler or a
    generator invalidates the cached counters."""
    h = hashlib.sha256()
    files = sorted((REPO_ROOT / "engines").rglob("*.py")) + sorted((REPO_ROOT / "workloads").rglob("*.py"))
    for f in files:
        h.update(str(f.relative_to(REPO_ROOT)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def entry_key(**parts) -> str:
    """A cache key (24 hex) for everything an entry depends on: SHA-256 of ``parts`` as sorted
    JSON (values that JSON cannot write go in as ``str``)."""
    import json
    blob = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def load_arrays(subdir: str, key: str) -> dict | None:
    """The arrays stored under ``<counter cache>/<subdir>/<key>.npz`` (``store_arrays``), or
    None without a disk cache, without the entry, or when it cannot be read (an interrupted copy:
    the caller recomputes)."""
    d = counter_cache_dir()
    path = None if d is None else d / subdir / f"{key}.npz"
    if path is None or not path.exists():
        return None
    import numpy as np
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (OSError, ValueError):
        return None


def store_arrays(subdir: str, key: str, **arrays) -> None:
    """Store ``arrays`` under ``<counter cache>/<subdir>/<key>.npz``, atomically; nothing without
    a disk cache or when the entry exists, and a read-only cache only costs the sharing."""
    d = counter_cache_dir()
    if d is None:
        return
    path = d / subdir / f"{key}.npz"
    if path.exists():
        return
    import numpy as np

    from sim.atomic import atomic_write

    def write(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)
    try:
        atomic_write(path, write)
    except OSError:
        pass

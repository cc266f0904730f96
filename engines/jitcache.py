"""The one Numba kernel cache location (documented in ``docs/ARCHITECTURE.md``, "Caches").

``$NUMBA_CACHE_DIR`` when set, else ``<repo>/.numba_cache`` (git-ignored), or
``~/.cache/cepsim/numba`` when the checkout is not writable.  ``engines/__init__.py`` calls
``ensure_numba_cache_dir`` before any engine module imports numba, so every command, the Python
API, sweeps and their worker processes share one cache.  This lives in ``engines/`` (not ``sim/``)
because ``engines/`` never imports ``sim/``.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / ".write_probe"
        probe.write_text("")
        probe.unlink()
        return True
    except OSError:
        return False


def default_numba_cache_dir() -> Path:
    """``<repo>/.numba_cache`` if writable, else ``~/.cache/cepsim/numba``."""
    d = REPO_ROOT / ".numba_cache"
    if _writable(d):
        return d
    return Path.home() / ".cache" / "cepsim" / "numba"


def numba_cache_dir() -> Path:
    """The kernel cache every command uses (``$NUMBA_CACHE_DIR`` or the default)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else default_numba_cache_dir()


def ensure_numba_cache_dir() -> str | None:
    """Set ``NUMBA_CACHE_DIR`` to the default unless it is set or numba is already imported.

    Returns the location in effect (None: numba was imported first with its own default)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    if "numba" in sys.modules:
        return None
    path = str(default_numba_cache_dir())
    os.environ["NUMBA_CACHE_DIR"] = path
    return path




def skip_numba_blas_probe() -> bool:
    """Let Numba start without importing ``scipy.linalg`` (for one-shot commands).

    When Numba's CPU target starts it imports ``numba.np.arraymath``, which probes for BLAS by
    importing ``scipy.linalg.cython_blas``: about 0.2 s CPU, and up to a second of wall time on a
    busy machine, on every ``cepsim match``.  No cepsim kernel calls ``np.dot``/``np.linalg``
    inside compiled code, so the command imports ``numba.np.arraymath`` while ``scipy.linalg`` is
    hidden; Numba then records "no BLAS" for this process only (compiled ``np.dot`` would be
    refused with Numba's own message).  ``scipy.linalg`` itself stays importable afterwards.
    Returns whether the probe was skipped (False when Numba's array math or scipy.linalg was
    already loaded)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return False
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # makes the probe's import fail
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]
    return True

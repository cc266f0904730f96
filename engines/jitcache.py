"""The one Numba kernel cache location (documented in ``docs/ARCHITECTURE.md``, "Caches").

``$NUMBA_CACHE_DIR`` when set, else ``<repo>/.numba_cache/<key>`` (git-ignored), or
``~/.cache/cepsim/numba/<key>`` when the checkout is not writable.  ``<key>`` hashes the source
of every module under ``engines/`` and of the modules under ``sim/`` that compile code: Numba invalidates a cached kernel only when *its own* file
changes, but a kernel freezes module constants of other files (``counters.N_COUNTERS``) and
links the helpers it calls from other files, so a change there would otherwise leave stale
machine code in the cache (an ``IndexError`` deep in a kernel after a counter was added).  ``engines/__init__.py`` calls
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


def engines_source_key() -> str:
    """12 hex digits of SHA-256 over every ``engines/**/*.py`` and every ``sim/**/*.py`` that
    compiles code (its text mentions ``njit``: the compiled shedding queue calls its hooks in
    another file), path and bytes, sorted."""
    import hashlib
    h = hashlib.sha256()
    for top, compiled_only in (("engines", False), ("sim", True)):
        root = REPO_ROOT / top
        for f in sorted(root.rglob("*.py")):
            data = f.read_bytes()
            if compiled_only and b"njit" not in data:
                continue
            h.update(str(f.relative_to(REPO_ROOT)).encode())
            h.update(data)
    return h.hexdigest()[:12]


def default_numba_cache_dir() -> Path:
    """``<repo>/.numba_cache/<key>`` if writable, else ``~/.cache/cepsim/numba/<key>`` (module
    docstring: the key changes with any engine source, so no kernel is ever stale)."""
    key = engines_source_key()
    d = REPO_ROOT / ".numba_cache" / key
    if _writable(d):
        return d
    return Path.home() / ".cache" / "cepsim" / "numba" / key


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


# --- one compiler per kernel across processes ------------------------------------------------
#
# Numba's on-disk cache is not safe for two processes that compile signatures of ONE function at
# the same time: ``IndexDataCacheFile.save`` reads the index, picks the first free data-file
# number and writes index and data, so two concurrent saves can both pick ``.1.nbc`` and leave an
# index entry pointing at the other signature's machine code.  A pool whose workers may meet an
# uncompiled kernel at the same moment (``cepsim reproduce``: one pool for every experiment)
# therefore serializes compiles per function with an advisory file lock beside the function's
# cache index: on a cache miss a process takes the lock, looks in the cache again (another
# process may have compiled the kernel while it waited: then it loads it instead of compiling
# it twice), compiles and saves, and releases the lock when ``Dispatcher.compile`` returns or
# raises.  Cache hits take no lock.  A lock not obtained within ``_COMPILE_LOCK_WAIT_S`` (a
# process stuck while compiling) is given up: the kernel is then compiled without it.

_COMPILE_LOCK_WAIT_S = 900.0
_held: dict = {}     # lock path -> [fd, depth]  (re-entrant within this process)
_frames: list = []   # one list of lock paths per active Dispatcher.compile call
_installed = False


def _acquire(path: str) -> bool:
    import fcntl
    import time

    if path in _held:
        _held[path][1] += 1
        return True
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # unwritable cache directory: compile unlocked, as Numba does
        return False
    t0 = time.monotonic()
    deadline = t0 + _COMPILE_LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _log_wait(path, time.monotonic() - t0)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return False
            time.sleep(0.02)
        except OSError:  # a file system without flock
            os.close(fd)
            return False
    _held[path] = [fd, 1]
    return True


def _log_wait(path: str, waited: float) -> None:
    """With ``$CEPSIM_COMPILE_LOCK_LOG`` set, append ``pid seconds-waited lock`` for every lock
    taken (how long a process sat idle behind another's compile; benchmarks read it)."""
    log = os.environ.get("CEPSIM_COMPILE_LOCK_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()} {waited:.3f} {os.path.basename(path)}\n")


def _release(path: str) -> None:
    import fcntl

    ent = _held.get(path)
    if ent is None:
        return
    ent[1] -= 1
    if ent[1] == 0:
        del _held[path]
        try:
            fcntl.flock(ent[0], fcntl.LOCK_UN)
        finally:
            os.close(ent[0])


def install_compile_lock() -> bool:
    """Serialize Numba compiles of each cached function across processes (see above).

    Idempotent; call it before a process pool starts (forked workers inherit it; spawned ones
    call it from their initializer).  Returns False when this Numba lacks the internals it wraps
    (then nothing is changed and compiles stay unsynchronized)."""
    global _installed
    if _installed:
        return True
    try:
        from numba.core import caching, dispatcher
        orig_load = caching.Cache.load_overload
        orig_compile = dispatcher.Dispatcher.compile
    except (ImportError, AttributeError):  # pragma: no cover - other Numba versions
        return False

    def load_overload(self, sig, target_context):
        res = orig_load(self, sig, target_context)
        if res is not None or not _frames:
            return res
        cache_file = getattr(self, "_cache_file", None)
        index = getattr(cache_file, "_index_path", None)
        if index is None or not _acquire(index + ".lock"):
            return res
        _frames[-1].append(index + ".lock")
        return orig_load(self, sig, target_context)   # compiled by another process meanwhile?

    def compile(self, sig):
        _frames.append([])
        try:
            return orig_compile(self, sig)
        finally:
            for path in _frames.pop():
                _release(path)

    caching.Cache.load_overload = load_overload
    dispatcher.Dispatcher.compile = compile
    _installed = True
    return True

"""What a long-lived pool worker gives back between points (issue 27 item 4: peak memory).

``cepsim reproduce`` runs every experiment's points on one pool whose workers live for the whole
command (``sim.reproduce_pool``).  A worker keeps, from every paper it has run, the memos of the
scenario modules (streams, reference runs, shared evaluations: ``functools.lru_cache`` functions
and module dicts) and heap pages that the C allocator does not hand back by itself.  Measured in
the session-9 full run (``docs/reproduction/full_timing.md``): a worker entered
``darling/cap_binding`` already holding 2.3 GB from ``adaptive/fig7``, and the process tree
peaked at 9.7 GB.

After a point, when the worker's resident memory is above ``RELEASE_ABOVE_MB``, this module drops
the memos of every *other* scenario module (the next point is most likely of the same paper, which
reuses its own), collects garbage and asks glibc to return free heap pages (``malloc_trim``).
Memos are pure caches of deterministic computations, so a dropped one is recomputed and rows are
unchanged; only time can be lost, and only when a worker goes back to a paper it left.
"""
from __future__ import annotations

import ctypes
import gc
import os
import sys

#: Resident memory (MB) above which a worker releases memory after a point.  The target is a
#: 4 GB peak for the whole tree (two workers and the parent): a worker that starts a point with
#: at most ~1 GB leaves each point most of its half of the budget.
def _release_limit() -> float:
    raw = os.environ.get("CEPSIM_WORKER_RELEASE_MB", "1024")
    try:
        return float(raw)
    except ValueError:
        from engines.errors import CepsimInputError
        raise CepsimInputError(f"$CEPSIM_WORKER_RELEASE_MB={raw!r}: give a number of megabytes "
                               f"(e.g. 1024), or unset it") from None


RELEASE_ABOVE_MB = _release_limit()

#: The packages whose modules hold per-paper memos.
MEMO_PACKAGES = ("sim.scenarios.", "workloads.")

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 4096 / 2**20


def rss_mb(pid: int | None = None) -> float | None:
    """Resident memory now (MB) of this process, or of process ``pid``; None where ``/proc``
    does not tell."""
    try:
        with open(f"/proc/{'self' if pid is None else pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):
        return None


def trim_heap() -> bool:
    """Ask glibc to return free heap pages to the system; False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.malloc_trim(0))
    except (OSError, AttributeError):
        return False


def memo_modules_used_by(module: str) -> set[str]:
    """``module`` and every module under ``MEMO_PACKAGES`` it reaches through its globals
    (module objects and the modules of the functions it imported), transitively: the memos a
    point of that scenario may read (e.g. ``darling_cap`` reads ``darling``'s streams)."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name in seen or name not in sys.modules:
            continue
        seen.add(name)
        for obj in vars(sys.modules[name]).values():
            dep = obj.__name__ if isinstance(obj, type(sys)) else getattr(obj, "__module__", None)
            if isinstance(dep, str) and dep.startswith(MEMO_PACKAGES) and dep not in seen:
                todo.append(dep)
    return seen


def clear_memos(keep: set[str] | frozenset = frozenset()) -> int:
    """Clear the memos of every loaded module under ``MEMO_PACKAGES`` except the modules in
    ``keep``: each ``functools.lru_cache`` function the module defines, and each dict the module
    names in its ``MEMO_DICTS``.  Returns the number of memos cleared."""
    n = 0
    for name, mod in list(sys.modules.items()):
        if mod is None or name in keep or not name.startswith(MEMO_PACKAGES):
            continue
        for obj in list(vars(mod).values()):
            if callable(getattr(obj, "cache_clear", None)) \
                    and getattr(obj, "__module__", None) == name:
                obj.cache_clear()
                n += 1
        for attr in getattr(mod, "MEMO_DICTS", ()):
            d = getattr(mod, attr, None)
            if isinstance(d, dict):
                d.clear()
                n += 1
    return n


def release_after_point(scenario: str, threshold_mb: float | None = None) -> bool:
    """After a point of ``scenario`` (``module:function``): release memory when this process
    holds more than ``threshold_mb`` (default ``RELEASE_ABOVE_MB``).  True when it released."""
    limit = RELEASE_ABOVE_MB if threshold_mb is None else threshold_mb
    rss = rss_mb()
    if rss is None or rss <= limit:
        return False
    module = scenario.split(":")[0]
    if "." not in module:
        module = f"sim.scenarios.{module}"
    clear_memos(keep=memo_modules_used_by(module))
    gc.collect()
    trim_heap()
    return True

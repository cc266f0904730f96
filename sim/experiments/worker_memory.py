"""What a long-lived pool worker gives back between points (peak memory).

``cepsim reproduce`` runs every experiment's points on one pool whose workers live for the whole
command (``sim.experiments.reproduce_pool``).  A worker keeps, from every paper it has run, the memos of the
scenario modules (streams, reference runs, shared evaluations: ``functools.lru_cache`` functions
and module dicts) and heap pages that the C allocator does not hand back by itself.  Measured in
a full run without these releases (``docs/reproduction/full_timing.md``): a worker enters
``darling/cap_binding`` already holding 2.3 GB from ``adaptive/fig7``, and the process tree
peaks at 9.7 GB.

After a point, when the worker's resident memory is above ``RELEASE_ABOVE_MB``, this module drops
the memos of every *other* scenario module (the next point is most likely of the same paper, which
reuses its own), collects garbage and asks glibc to return free heap pages (``malloc_trim``).
Memos are pure caches of deterministic computations, so a dropped one is recomputed and rows are
unchanged; only time can be lost, and only when a worker goes back to a paper it left.
"""
from __future__ import annotations

import gc
import os
import sys

from engines.heap import trim_heap

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
MEMO_PACKAGES = ("sim.studies.", "workloads.")

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 4096 / 2**20


def rss_mb(pid: int | None = None) -> float | None:
    """Resident memory now (MB) of this process, or of process ``pid``; None where ``/proc``
    does not tell."""
    try:
        with open(f"/proc/{'self' if pid is None else pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):
        return None


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


#: types that hold no array (``array_bytes`` does not look into them)
_LEAVES = (str, bytes, int, float, bool, type(None))


def array_bytes(obj, _seen: set | None = None) -> int:
    """Bytes of the numpy arrays reachable from ``obj`` through dicts, lists, tuples and object
    attributes (``__dict__`` / ``__slots__``), each owning array counted once (views: 0)."""
    import numpy as np
    seen = set() if _seen is None else _seen
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        return obj.nbytes if obj.base is None else 0
    if isinstance(obj, dict):
        return sum(array_bytes(k, seen) + array_bytes(v, seen) for k, v in obj.items()
                   if type(k) not in _LEAVES or type(v) not in _LEAVES)
    if isinstance(obj, (list, tuple)):
        # scalars skipped in the loop, not by a call each: a memo's JSON-able evaluation
        # holds lists of tens of thousands of numbers (the adaptive scenario's headroom sums),
        # and a call per number made this walk 20 ms after every point of a worker holding them
        return sum(array_bytes(v, seen) for v in obj if type(v) not in _LEAVES)
    if isinstance(obj, _LEAVES):
        return 0
    total = 0
    if hasattr(obj, "__dict__"):
        total += array_bytes(vars(obj), seen)
    for slot in getattr(type(obj), "__slots__", ()):
        total += array_bytes(getattr(obj, slot, None), seen)
    return total


def drop_bulky_entries(min_mb: float) -> int:
    """Drop every entry of every ``MEMO_DICTS`` dict (of every loaded module under
    ``MEMO_PACKAGES``, the running paper's included) whose arrays take ``min_mb`` MB or more:
    under a memory budget a worker does not carry e.g. DARLING's 4.2M-event stream (400 MB) from
    one point to the next, while the small memos that save most recomputation (the adaptive
    scenario's shared evaluations, 50k-event streams) stay.  Returns the number dropped."""
    n = 0
    limit = float(min_mb) * 2**20
    for name, mod in list(sys.modules.items()):
        if mod is None or not name.startswith(MEMO_PACKAGES):
            continue
        for attr in getattr(mod, "MEMO_DICTS", ()):
            d = getattr(mod, attr, None)
            if not isinstance(d, dict):
                continue
            sized = _SIZED.setdefault(id(d), {})
            for key in [k for k, v in d.items() if _entry_bytes(sized, k, v) >= limit]:
                del d[key]
                n += 1
            for key in [k for k in sized if k not in d]:
                del sized[key]
    return n


#: ``array_bytes`` of every memo entry already measured, per memo dict: ``{id(dict): {key:
#: (id(value), bytes)}}``.  A memo entry is a finished result that is replaced, never changed
#: in place, so its size is measured once, not after every point (walking the adaptive
#: scenario's JSON-able evaluations took 7-20 ms per point).
_SIZED: dict = {}


def _entry_bytes(sized: dict, key, value) -> int:
    got = sized.get(key)
    if got is None or got[0] != id(value):
        got = sized[key] = (id(value), array_bytes(value))
    return got[1]


def release_after_point(scenario: str, threshold_mb: float | None = None,
                        bulky_mb: float | None = None) -> bool:
    """After a point of ``scenario`` (``module:function``): release memory when this process
    holds more than ``threshold_mb`` (default ``RELEASE_ABOVE_MB``); with ``bulky_mb`` (the pool
    runs under a memory budget) also drop every memo entry of ``bulky_mb`` MB or more
    (``drop_bulky_entries``), whatever the resident memory.  True when it released."""
    limit = RELEASE_ABOVE_MB if threshold_mb is None else threshold_mb
    dropped = drop_bulky_entries(bulky_mb) if bulky_mb is not None else 0
    rss = rss_mb()
    if rss is None or rss <= limit:
        if dropped:
            collect_then_freeze()
            trim_heap()
        return bool(dropped)
    from sim.experiments.functions import scenario_module

    module = scenario_module(scenario)
    clear_memos(keep=memo_modules_used_by(module))
    collect_then_freeze()
    trim_heap()
    return True


def collect_then_freeze() -> None:
    """A full garbage collection, then ``gc.freeze()`` of what survived it.

    Survivors of a release are the worker's long-lived objects: compiled kernels (Numba keeps
    its typing and lowering results per signature: tens of thousands of objects a worker builds
    as it meets kernels) and the memos it keeps.  Frozen, later collections -- automatic ones
    and the next release's -- do not traverse them again: in a full run without freezing, full
    collections after points take 47 of the workers' 68 CPU s outside the points.  Frozen
    objects are still freed by reference counting when a memo drops them; only a reference
    cycle among frozen objects would stay until the worker ends (the full run's peak memory,
    measured with this rule, is the check: ``docs/reproduction/full_timing.md``)."""
    gc.collect()
    gc.freeze()

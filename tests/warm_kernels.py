"""Compile the engines' Numba kernels into the on-disk cache before the pytest-xdist workers start.

With a cold cache, compiling the registered engines costs about 150 s of CPU, mostly in a few
large kernels (z-tree, remote/EIRES, eager: 60-120 s wall each on a loaded machine; lazy NFA,
stepper and SASE less).  ``tests/conftest.py`` runs :func:`warm` in two processes at once, each
on its own group of engines (:data:`GROUPS`, balanced by that measured cost), so the warm-up
takes about half the wall time on 2 cores; the workers then load the kernels from the cache.
Run as a script: ``python tests/warm_kernels.py ENGINE ...`` (``lindley`` warms the queue fast
path); an engine not in any group (added later) goes to the second group.
"""
from __future__ import annotations

import sys
from pathlib import Path

#: Two groups of similar compile cost (z-tree + lazy NFA + SASE vs eager + remote + stepper);
#: hybrid runs the z-tree kernel, so it goes with it.
GROUPS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("ztree", "hybrid", "chain", "tree", "sase"),
    ("eager", "remote", "stepper", "lindley"),
)


def groups(engines: list[str]) -> list[list[str]]:
    """``GROUPS`` restricted to ``engines`` (plus ``lindley``), unknown engines appended to the
    second group."""
    known = set(GROUPS[0]) | set(GROUPS[1])
    first = [e for e in GROUPS[0] if e in engines]
    second = [e for e in GROUPS[1] if e in engines or e == "lindley"]
    second += [e for e in engines if e not in known and e != "oracle"]
    return [first, second]


def warm(names: list[str] | None = None) -> list[str]:
    """Run each engine of ``names`` (default: every registered engine but the oracle, and the
    queue fast path) once on a tiny stream, for a count and a time window, so that its kernels
    are compiled into the cache; returns the names that ran."""
    import numpy as np

    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import engine_names, run_engine
    from engines.stream import EventStream
    from sim.core.fastpath import lindley

    if names is None:
        names = [e for e in engine_names() if e != "oracle"] + ["lindley"]
    rng = np.random.default_rng(0)
    n = 60
    stream = EventStream.from_arrays(rng.integers(0, 3, n).astype(np.int32),
                                     np.arange(n, dtype=np.float64),
                                     rng.integers(0, 4, (n, 2)).astype(np.float64),
                                     ("A", "B", "C"), ("x", "y"))
    done = []
    for text in ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 8 events",
                 "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 8 s",
                 # negation and Kleene take their own kernels in some engines (lazy_negkleene)
                 "PATTERN SEQ(A a, NOT(C n), B+ b, C c) WHERE a.x < c.x WITHIN 8 s"):
        prog = compile_pattern(parse_pattern(text), stream.schema)
        for name in names:
            if name in ("oracle", "lindley") or name not in engine_names():
                continue
            try:
                run_engine(name, prog, stream)
                done.append(name)
            except Exception:         # an engine that refuses this pattern: nothing to warm
                pass
    if "lindley" in names:
        lindley(np.arange(5, dtype=np.float64), np.ones(5))
        done.append("lindley")
    return sorted(set(done))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # this checkout first
    print(" ".join(warm(sys.argv[1:] or None)))

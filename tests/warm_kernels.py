"""Compile the engines' Numba kernels into the on-disk cache before the pytest-xdist workers start.

With a cold cache, compiling the registered engines costs about 300 s of CPU, mostly in a few
large kernels (each alone on a fresh cache, idle machine: remote/EIRES 108 s, eager 61 s, lazy
chain + tree 50 s, z-tree 43 s, stepper 22 s, SASE 16 s, each including ~10 s of shared
helpers).  Two warm targets are not engines: ``shedding`` (the shedding server loop and every
shedder's hooks, one tiny DARLING point per method: 64 s) and ``adaptive`` (the PVLDB'18
statistics, controllers, planners and epoch sums, one tiny point per planner: 79 s).  Without
them both pytest-xdist workers compiled those kernels side by side in the tests that first use
them (30 s in each of two DARLING tests).  ``tests/conftest.py`` runs :func:`warm` in two
processes at once, each on its own group (:data:`GROUPS`, balanced by those costs), so the
warm-up takes about half the CPU time in wall time on 2 cores; the workers then load the kernels
from the cache.  Run as a script: ``python tests/warm_kernels.py TARGET ...`` (``lindley`` warms
the queue fast path); an engine not in any group (added later) goes to the second group.
"""
from __future__ import annotations

import sys
from pathlib import Path

#: Two groups of similar compile cost (the module docstring's figures); hybrid and adaptive run
#: the z-tree and lazy chain kernels, and shedding the stepper's, so each goes with them.
GROUPS: tuple[tuple[str, ...], tuple[str, ...]] = (
    ("ztree", "hybrid", "chain", "tree", "eager", "adaptive"),
    ("remote", "stepper", "shedding", "sase", "lindley"),
)


def groups(engines: list[str]) -> list[list[str]]:
    """``GROUPS`` restricted to ``engines`` (plus the warm targets that are not engines), unknown
    engines appended to the second group."""
    known = set(GROUPS[0]) | set(GROUPS[1])
    extra = ("lindley", "shedding", "adaptive")      # warm targets that are not engines
    first = [e for e in GROUPS[0] if e in engines or e in extra]
    second = [e for e in GROUPS[1] if e in engines or e in extra]
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
        names = [e for e in engine_names() if e != "oracle"] + ["lindley", "shedding", "adaptive"]
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
            if name not in engine_names() or name == "oracle":
                continue
            try:
                run_engine(name, prog, stream)
                done.append(name)
            except Exception:         # an engine that refuses this pattern: nothing to warm
                pass
    if "shedding" in names:
        done += _warm_shedding()
    if "adaptive" in names:
        done += _warm_adaptive()
    if "lindley" in names:
        lindley(np.arange(5, dtype=np.float64), np.ones(5))
        done.append("lindley")
    return sorted(set(done))


def _warm_shedding() -> list[str]:
    """One tiny DARLING-scenario point per shedding method: the shedding server loop and each
    shedder's hooks compile per method."""
    from sim.studies.darling import scenario as D

    small = dict(query="q1", window_ms=15, n_events=1500, warm_frac=0.2, shape="peaks",
                 peak_factor=50.0, ref_window_ms=15, beta=0.8, arrival_seed=1)
    for method in ("none", "darling", "random_input", "random_pm", "espice", "icde20"):
        D.point(dict(small, method=method), seed=7)
    return ["shedding"]


def _warm_adaptive() -> list[str]:
    """One tiny PVLDB'18 point per planner: statistics, controllers, planners and epoch sums."""
    import os
    import tempfile

    from sim.studies.adaptive import scenario as A

    params = {"dataset": "traffic", "pset": "seq", "n": 3, "window": 1.0, "w_s": 3.0,
              "n_events": 1500, "n_types": 8, "total_rate": 500.0, "check_every": 25,
              "n_samples": 2, "K": 1, "t_values": [0.3], "d_values": [0.1], "davg": False,
              "stream_seed": 1}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CEPSIM_COUNTER_CACHE"] = tmp
        for planner in ("greedy", "zstream"):
            A.point(dict(params, planner=planner), 0)
    return ["adaptive"]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))     # this checkout first
    print(" ".join(warm(sys.argv[1:] or None)))

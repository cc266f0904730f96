"""Shared, general test fixtures.  Keep small: feature-specific fixtures live in their test files.

Also: the ``match_rate`` fixture (property tests report the fraction of examples with a match),
the end-of-run list of those rates, Spark tests kept on one pytest-xdist worker (one JVM), and
``warm_kernels``: under pytest-xdist the controller compiles every engine's Numba kernels once
into the on-disk cache before the workers start, so two workers do not compile the same
kernels side by side (set ``CEPSIM_NO_WARM=1`` to skip).

Hypothesis runs derandomized (the ``ci`` profile): the same examples on every run and machine,
so a green suite stays green and a red one is reproducible.  To search new random examples
locally, run with ``CEPSIM_HYPOTHESIS=explore``.
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from strategies import MatchRate

hypothesis_settings.register_profile("ci", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile("explore" if os.environ.get("CEPSIM_HYPOTHESIS") == "explore"
                                 else "ci")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def spark():
    """One SparkSession for the whole test session (``local[2]``, no UI, no console progress)."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    pp = os.environ.get("PYTHONPATH", "")
    if str(REPO_ROOT) not in pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + pp if pp else "")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("cepsim-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
               .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"])
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def match_rate(record_property):
    """Factory of ``strategies.MatchRate`` counters for property tests; ``check()`` records the
    summary as the test's ``match_rate`` property, listed at the end of the run."""

    def make(name: str, big: int = 4) -> MatchRate:
        return MatchRate(name, big, record=record_property)

    return make


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """List the match rates the property tests measured (works under pytest-xdist too)."""
    lines = []
    for rep in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        if getattr(rep, "when", "") != "call":
            continue
        for key, value in getattr(rep, "user_properties", ()):
            if key == "match_rate":
                lines.append(f"{value}")
    if lines:
        terminalreporter.section("property-test match rates")
        for line in sorted(set(lines)):
            terminalreporter.write_line(line)


def pytest_collection_modifyitems(config, items):
    """Spark tests share one SparkSession: keep them on one xdist worker (--dist loadgroup)."""
    for item in items:
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))


def warm_kernels() -> list[str]:
    """Run every registered engine (and the queue fast path) once on a tiny stream so that
    their Numba kernels are compiled into the cache; returns the engines that ran."""
    import numpy as np

    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import engine_names, run_engine
    from engines.stream import EventStream
    from sim.fastpath import lindley

    rng = np.random.default_rng(0)
    n = 60
    stream = EventStream.from_arrays(rng.integers(0, 3, n).astype(np.int32),
                                     np.arange(n, dtype=np.float64),
                                     rng.integers(0, 4, (n, 2)).astype(np.float64),
                                     ("A", "B", "C"), ("x", "y"))
    done = []
    for text in ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 8 events",
                 "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 8 s"):
        prog = compile_pattern(parse_pattern(text), stream.schema)
        for name in engine_names():
            if name == "oracle":
                continue
            try:
                run_engine(name, prog, stream)
                done.append(name)
            except Exception:         # an engine that refuses this pattern: nothing to warm
                pass
    lindley(np.arange(5, dtype=np.float64), np.ones(5))
    return sorted(set(done))


def pytest_configure(config):
    if os.environ.get("CEPSIM_NO_WARM") or hasattr(config, "workerinput"):
        return
    n = getattr(config.option, "numprocesses", None)
    if not n or getattr(config.option, "collectonly", False):
        return
    t0 = time.perf_counter()
    names = warm_kernels()
    config._cepsim_warm = (names, time.perf_counter() - t0)


def pytest_report_header(config):
    warm = getattr(config, "_cepsim_warm", None)
    if warm:
        return f"cepsim: kernels warmed for {', '.join(warm[0])} in {warm[1]:.1f}s"
    return None

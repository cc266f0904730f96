"""Shared, general test fixtures.  Keep small: feature-specific fixtures live in their test files.

Also: the ``match_rate`` fixture (property tests report the fraction of examples with a match),
the end-of-run list of those rates, Spark tests kept on one pytest-xdist worker (one JVM), and
the warm-up: under pytest-xdist the controller compiles every engine's Numba kernels once into
the on-disk cache before the workers start (``tests/warm_kernels.py``, two processes with
disjoint engines), so two workers do not compile the same kernels side by side (set
``CEPSIM_NO_WARM=1`` to skip).

Hypothesis runs derandomized (the ``ci`` profile): the same examples on every run and machine,
so a green suite stays green and a red one is reproducible.  To search new random examples
locally, run with ``CEPSIM_HYPOTHESIS=explore``.
"""
from __future__ import annotations

import os
import subprocess
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


def _no_local_constants() -> None:
    """Keep derandomized examples independent of what else the process imported.

    Hypothesis (6.131 and later) draws about 5 % of its choices from a pool of literals it
    collects from every local module in ``sys.modules`` (``providers._get_local_constants``), so
    a derandomized test's examples change with the modules other tests loaded before it: under
    pytest-xdist, with the order the workers happen to take tests in.  Measured: the ZStream
    Kleene/negation property test drew different examples after ``test_lazy_chain_fast_equal``
    and ``test_stocks`` had run in the same process, and its match rate fell from 9 of 12 to
    2 of 11 patterns of 4+ variables.  An empty local pool makes the examples a function of the
    test alone again (the global constants Hypothesis ships stay); older Hypothesis versions
    have no pool and are left as they are."""
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:
        return
    if hasattr(providers, "_get_local_constants"):
        empty = Constants()
        providers._get_local_constants = lambda: empty


_no_local_constants()

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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Spark tests share one SparkSession: keep them on one xdist worker (--dist loadgroup).
    They are ``slow`` too (a JVM and a SparkSession start in ~45 s): the default run (``-m 'not
    slow'`` in pyproject.toml) needs no Java, the complete run (``-m ''``) has them.  Runs before
    the mark plugin deselects, so the added marker counts."""
    for item in items:
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))
            item.add_marker(pytest.mark.slow)


def pytest_configure(config):
    if os.environ.get("CEPSIM_NO_WARM") or hasattr(config, "workerinput"):
        return
    n = getattr(config.option, "numprocesses", None)
    if not n or getattr(config.option, "collectonly", False):
        return
    t0 = time.perf_counter()
    config._cepsim_warm = (warm_in_parallel(), time.perf_counter() - t0)


def warm_in_parallel() -> list[str]:
    """``warm_kernels.warm`` in two processes at once, one per group of engines (the machine has
    2 cores; the warm-up is pure compilation).  A failing warm-up process is reported in the
    header, not fatal: the workers then compile what they need themselves."""
    from engines.registry import engine_names
    from warm_kernels import groups

    script = Path(__file__).with_name("warm_kernels.py")
    procs = [subprocess.Popen([sys.executable, str(script), *g], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for g in groups(engine_names()) if g]
    done = []
    for p in procs:
        out, err = p.communicate()
        done += out.split() if p.returncode == 0 else [f"(warm-up failed: {err.strip()[-200:]})"]
    return done


def pytest_report_header(config):
    warm = getattr(config, "_cepsim_warm", None)
    if warm:
        return f"cepsim: kernels warmed for {', '.join(warm[0])} in {warm[1]:.1f}s"
    return None

"""Shared, general test fixtures.  Keep small: feature-specific fixtures live in their test files."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from strategies import MatchRate

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

"""Shared, general test fixtures.  Keep small: feature-specific fixtures live in their test files."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

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

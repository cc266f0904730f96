"""Spark backend: every (point, rep) is one Spark task running the same ``run_point`` as locally.

Session: ``SparkSession.builder.getOrCreate()`` - reuses the session of ``spark-submit`` (or of a
test fixture) when one is active, otherwise starts one on ``master`` (``local[*]`` by default).
Python workers run ``sys.executable`` (``PYSPARK_PYTHON``) so they see the installed packages and
the same Numba cache.  Points are submitted as single-task jobs from a small driver thread pool so
that rows come back - and are written as shards - as soon as each task finishes (a killed Spark
sweep resumes like a local one).  Java 17+ is checked before any JVM start.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable

from engines.errors import CepsimInputError
from sim.config import ExperimentConfig, Point
from sim.runner import run_point
from sim.sweep import REPO_ROOT, ensure_numba_cache_dir

JAVA_MIN = 17
JAVA_HELP = ("install Java 17 or newer (e.g. `apt-get install openjdk-17-jre-headless`) and put it "
             "on PATH or set JAVA_HOME to its directory (e.g. /usr/lib/jvm/java-17-openjdk-amd64); "
             "the local backend (--backend local) works without Java")


def _java_binary() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home:
        cand = Path(home) / "bin" / "java"
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    return shutil.which("java")


def parse_java_version(text: str) -> int | None:
    """Major version from ``java -version`` output ('1.8.0_x' -> 8, '17.0.15' -> 17)."""
    m = re.search(r'version "([^"]+)"', text)
    if not m:
        m = re.search(r"(?:openjdk|java)\s+(\d[\w.+-]*)", text)
        if not m:
            return None
    ver = m.group(1)
    parts = re.split(r"[._+-]", ver)
    try:
        major = int(parts[0])
        if major == 1 and len(parts) > 1:
            major = int(parts[1])
        return major
    except ValueError:
        return None


def check_java() -> int:
    """Return the Java major version, or raise ``CepsimInputError`` telling what to install."""
    java = _java_binary()
    if java is None:
        where = f"JAVA_HOME={os.environ['JAVA_HOME']} has no bin/java and " if os.environ.get("JAVA_HOME") else ""
        raise CepsimInputError(f"--backend spark: Java not found ({where}no `java` on PATH); "
                               f"{JAVA_HELP}")
    try:
        res = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        raise CepsimInputError(f"--backend spark: running `{java} -version` failed ({exc}); "
                               f"{JAVA_HELP}") from None
    major = parse_java_version(res.stderr + res.stdout)
    if major is None:
        raise CepsimInputError(f"--backend spark: cannot read the Java version from `{java} -version`; "
                               f"{JAVA_HELP}")
    if major < JAVA_MIN:
        raise CepsimInputError(f"--backend spark: Java {major} found at {java}, PySpark 4 needs Java "
                               f"{JAVA_MIN}+; {JAVA_HELP}")
    return major


def prepare_env() -> None:
    """Environment the JVM and its Python workers inherit (set before the session starts)."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    ensure_numba_cache_dir()
    pp = os.environ.get("PYTHONPATH", "")
    if str(REPO_ROOT) not in pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = str(REPO_ROOT) + (os.pathsep + pp if pp else "")


def get_session(master: str | None = None, app_name: str = "cepsim-sweep"):
    """The active SparkSession, or a new one on ``master`` (default ``local[*]``)."""
    check_java()
    prepare_env()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active, False
    builder = (SparkSession.builder.appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
               .config("spark.executorEnv.PYTHONPATH", os.environ["PYTHONPATH"]))
    if os.environ.get("NUMBA_CACHE_DIR"):
        builder = builder.config("spark.executorEnv.NUMBA_CACHE_DIR", os.environ["NUMBA_CACHE_DIR"])
    # under spark-submit the master comes from its command line; otherwise default local[*]
    if master or "spark.master" not in _submit_conf():
        builder = builder.master(master or "local[*]")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark, True


def _submit_conf() -> dict:
    """spark-submit passes its conf through PYSPARK_SUBMIT_ARGS / SparkConf defaults."""
    try:
        from pyspark import SparkConf
        return dict(SparkConf().getAll())
    except Exception:  # pragma: no cover
        return {}


def run_spark(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              master: str | None = None, workers: int | None = None, spark=None) -> None:
    """Run ``pending`` as Spark tasks; ``on_row`` is called in the driver as each row arrives."""
    if not pending:
        return
    created = False
    if spark is None:
        spark, created = get_session(master)
    else:
        prepare_env()
    try:
        sc = spark.sparkContext
        first, rest = pending[0], pending[1:]
        on_row(first, run_point(cfg, first))  # warm imports + Numba cache once (driver)
        if not rest:
            return
        n_threads = max(1, min(workers or sc.defaultParallelism, len(rest)))

        def one(p: Point) -> dict:
            rows = sc.parallelize([p], 1).map(lambda q: run_point(cfg, q)).collect()
            return rows[0]

        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            futs = {pool.submit(one, p): p for p in rest}
            for fut in as_completed(futs):
                p = futs[fut]
                try:
                    row = fut.result()
                except Exception as exc:  # task failed inside Spark (lost executor, ...)
                    row = dict(p.params)
                    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                    row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
                               error=f"spark task failed: {type(exc).__name__}: {msg}", wall_s=None)
                on_row(p, row)
    finally:
        if created:
            spark.stop()

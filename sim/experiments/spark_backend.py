"""Spark backend: every (point, rep) is one Spark task running the same ``run_point`` as locally.

Session: ``SparkSession.builder.getOrCreate()`` - reuses the session of ``spark-submit`` (or of a
test fixture) when one is active, otherwise starts one on ``master`` (``local[*]`` by default).
Python workers run ``sys.executable`` (``PYSPARK_PYTHON``) with the installed package on a stable
path, so they share the driver's Numba cache.  Java 17+ is checked before any JVM start.

One job for the whole sweep (``run_spark``):

1. a small *prime* job (one task per executor slot) starts the Python workers and imports the
   runner and the scenario module, in a driver thread, while
2. the driver runs one pending point per kernel key itself (``sim.experiments.warmup``): it compiles every
   Numba kernel of the grid once and fills the on-disk cache before any executor could compile
   in parallel (parallel first compiles can corrupt the cache);
3. the remaining points go out as ONE job, ``parallelize(points, numSlices=len(points))`` (one
   task per point, scheduled onto every free slot).  Each task sends its row back through a
   list accumulator; the driver picks rows up as tasks finish (completion order, ~0.1 s after
   each task) and calls ``on_row`` - so rows are written as shards by the driver, one at a time,
   and a killed sweep resumes like a local one.  The output directory therefore only has to be
   visible to the driver, also on a real cluster.

Why not ``toLocalIterator(prefetchPartitions=True)``: it submits one job per partition and keeps
at most two partitions in flight, in partition order (measured: 2 concurrent tasks on local[4]),
so it neither removes the per-job overhead nor uses more than two slots.  Accumulator updates of a
successful task are applied exactly once (failed attempts are not counted); rows are de-duplicated
by (point_id, rep) on top.  If the job fails (a Python worker dies: in local mode one task failure
aborts the job), the points whose rows did not arrive are re-run as one single-task job each, so a
crash costs only the point that crashes, which is recorded as a failed row.

Measured (local[2], 2 cores shared with other jobs at load ~5-7, 16 x 5 s points): the sweep job
adds ~0.4 s per wave of tasks; the main fixed cost is the Python worker cold start of a fresh
session (prime job 7.6-10.5 s, of which only the 5 s warm-up point overlaps).  Part of it is
PySpark itself: workers import pyspark from ``$SPARK_HOME/python/lib/pyspark.zip``, which holds no
``.pyc`` files, so every Python worker compiles pyspark from source (``import pyspark.daemon,
pyspark.worker``: 2.8-3.3 s from the zip vs 0.7-0.8 s from site-packages, same machine).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable

from engines.errors import CepsimInputError
from sim.experiments.config import ExperimentConfig, Point
from sim.experiments.runner import run_point
from sim.experiments.sweep import REPO_ROOT, ensure_numba_cache_dir, prime_imports

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
               .config("spark.python.worker.reuse", "true")  # workers keep their imports
               .config("spark.task.cpus", "1")  # one point per core
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


POLL_S = 0.05  # how often the driver looks for new rows while the job runs


def _accumulator_param():
    from pyspark.accumulators import AccumulatorParam

    class _RowList(AccumulatorParam):
        """Rows as a list; the driver side only ever appends, so readers see a growing prefix."""

        def zero(self, value: list) -> list:
            return []

        def addInPlace(self, a: list, b: list) -> list:
            a.extend(b)
            return a

    return _RowList()


def _prime_partition(scenario: str, _it: Iterable) -> Iterable[int]:
    prime_imports(scenario)
    yield os.getpid()


def _run_partition(runner: Callable, acc: Any, it: Iterable) -> None:
    """Executor side: run each (index, config, point) and send ``(index, row)`` to the driver.

    The compile lock (``engines.jitcache``) makes a kernel missing from the executor machine's
    disk cache compile in one Python worker while the others wait for it and load it."""
    from engines.jitcache import install_compile_lock

    install_compile_lock()
    for idx, cfg, p in it:
        acc.add([(idx, runner(cfg, p))])


def _first_line(exc: BaseException) -> str:
    """The informative line of a (Py4J-wrapped) Spark error, at most 300 characters."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    for ln in lines:  # Py4J puts "An error occurred while calling oNN.xyz." first
        if "Exception" in ln or "exited unexpectedly" in ln or "Job aborted" in ln:
            return ln[:300]
    return lines[0][:300] if lines else ""


def _task_error_row(p: Point, exc: BaseException) -> dict:
    row = dict(p.params)
    msg = _first_line(exc)
    row.update(seed=p.seed, rep=p.rep, point_id=p.point_id,
               error=f"spark task failed: {type(exc).__name__}: {msg}", wall_s=None)
    return row


class _Job(threading.Thread):
    """Runs one Spark action in its own job group (so the driver can cancel it)."""

    def __init__(self, sc, action: Callable[[], Any], desc: str):
        super().__init__(daemon=True, name=f"cepsim-{desc}")
        self.sc, self.action, self.desc = sc, action, desc
        self.group = f"cepsim-{desc}-{uuid.uuid4().hex[:8]}"
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.sc.setJobGroup(self.group, f"cepsim {self.desc}", interruptOnCancel=True)
            self.result = self.action()
        except BaseException as exc:  # reported to the driver thread
            self.error = exc

    def cancel(self) -> None:
        try:
            self.sc.cancelJobGroup(self.group)
        except Exception:  # pragma: no cover - session already gone
            pass
        self.join(timeout=30)


def run_spark(cfg: ExperimentConfig, pending: list[Point], on_row: Callable[[Point, dict], None],
              master: str | None = None, workers: int | None = None, spark=None,
              runner: Callable[[ExperimentConfig, Point], dict] = run_point) -> None:
    """Run ``pending`` as Spark tasks; ``on_row`` is called in the driver as each row arrives.

    ``workers`` only bounds the thread pool of the per-point fallback; the parallelism of the
    sweep job is the number of executor slots (``local[N]``, ``--master``).  ``runner`` is what
    driver and executors run per point (always ``run_point`` except in tests that crash a
    worker on purpose)."""
    if not pending:
        return
    created = False
    if spark is None:
        spark, created = get_session(master)
    else:
        prepare_env()
    try:
        sc = spark.sparkContext
        from sim.experiments.warmup import split_warmup
        warm, rest = split_warmup(cfg, pending)
        if not rest:
            for p in warm:
                on_row(p, runner(cfg, p))
            return
        n_slots = max(1, sc.defaultParallelism)
        prime = _Job(sc, lambda: sc.parallelize(range(n_slots), n_slots)
                     .mapPartitions(partial(_prime_partition, cfg.scenario)).collect(), "prime")
        prime.start()  # executors start Python and import while the driver warms the cache
        try:
            for p in warm:  # warm imports + every kernel of the grid once (driver)
                on_row(p, runner(cfg, p))
        except BaseException:
            prime.cancel()
            raise
        prime.join()  # a failed prime job is harmless: the sweep job reports real failures

        run_items(sc, [(cfg, p) for p in rest], lambda i, row: on_row(rest[i], row), workers,
                  runner)
    finally:
        if created:
            spark.stop()


def run_items(sc, items: list[tuple[ExperimentConfig, Point]],
              on_row: Callable[[int, dict], None], workers: int | None = None,
              runner: Callable[[ExperimentConfig, Point], dict] = run_point) -> None:
    """Run ``items`` (config, point) as ONE Spark job, one task per item in list order (a stage
    hands its tasks to free slots in partition order); ``on_row(index, row)`` is called in the
    driver as each row arrives.  Items whose rows did not arrive because the job failed are
    re-run as one single-task job each (a crash costs only its point, recorded as failed)."""
    got, job_error = _run_job(sc, items, on_row, runner)
    missing = [i for i in range(len(items)) if i not in got]
    if missing:
        why = (f"{type(job_error).__name__}: {_first_line(job_error)}" if job_error
               else "rows missing")
        print(f"cepsim: spark job ended early ({why}); running the {len(missing)} "
              f"unfinished point(s) as one job each", file=sys.stderr, flush=True)
        _run_per_point(sc, items, missing, on_row, workers, runner)


def _run_job(sc, items: list[tuple[ExperimentConfig, Point]],
             on_row: Callable[[int, dict], None],
             runner: Callable) -> tuple[set[int], BaseException | None]:
    """One job, one task per item -> (indices whose rows were delivered, the job's error)."""
    acc = sc.accumulator([], _accumulator_param())
    rdd = sc.parallelize([(i, c, p) for i, (c, p) in enumerate(items)], numSlices=len(items))
    job = _Job(sc, lambda: rdd.foreachPartition(partial(_run_partition, runner, acc)), "sweep")
    got: set[int] = set()
    seen = 0

    def drain() -> None:
        nonlocal seen
        rows = acc.value  # grows by appends in the accumulator server thread
        while seen < len(rows):
            idx, row = rows[seen]
            seen += 1
            if idx not in got:
                got.add(idx)
                on_row(idx, row)

    job.start()
    try:
        while job.is_alive():
            job.join(POLL_S)
            drain()
        drain()
    except BaseException:
        job.cancel()
        raise
    return got, job.error


def _run_per_point(sc, items: list[tuple[ExperimentConfig, Point]], indices: list[int],
                   on_row: Callable[[int, dict], None], workers: int | None,
                   runner: Callable) -> None:
    """Fallback after a failed job: one single-task job per item, failures recorded."""
    n_threads = max(1, min(workers or sc.defaultParallelism, len(indices)))
    group = f"cepsim-fallback-{uuid.uuid4().hex[:8]}"

    def one(i: int) -> dict:
        sc.setJobGroup(group, "cepsim per-point fallback", interruptOnCancel=True)
        cfg, p = items[i]
        return sc.parallelize([p], 1).map(partial(runner, cfg)).collect()[0]

    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        futs = {pool.submit(one, i): i for i in indices}
        try:
            for fut in as_completed(futs):
                i = futs[fut]
                try:
                    row = fut.result()
                except Exception as exc:  # task failed inside Spark (lost worker, ...)
                    row = _task_error_row(items[i][1], exc)
                on_row(i, row)
        except BaseException:
            for f in futs:
                f.cancel()
            sc.cancelJobGroup(group)
            raise

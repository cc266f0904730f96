"""``cepsim reproduce --backend spark``: the points of every experiment as the tasks of ONE job.

Running the experiments one after another, each as its own Spark sweep, pays a session start, a
prime job and a driver warm-up per experiment and leaves slots idle at the tail of each.  Here
one session runs one job whose tasks are the pending points of all experiments, in the order the
local shared pool (``sim.experiments.reproduce_pool``) would start them: its dependency graph (first point
of each kernel key, first point of each shared-work key) and its priorities (longest first by
the ``wall_s`` of stored results of the same config, else the points that unblock others first,
papers in turn), flattened into one static order by ``task_order``.  A Spark stage hands its
tasks to free slots in partition order, so the longest points start first.

A job has no dependencies between its tasks, so a dependent point may start while the point it
waits for locally is still running.  That costs time, never correctness: a kernel missing from
an executor machine's disk cache compiles in one Python worker while the others wait for it
(``engines.jitcache.install_compile_lock``, installed in every task), and shared work computed
twice gives the same result (engine counters are pure).  Rows are the serial run's (same
``run_point``, same seeds); they come back to the driver through an accumulator as tasks finish
(``sim.experiments.spark_backend.run_items``), so the driver writes every shard and the results directory
only has to be visible to the driver.  As soon as an experiment's last row is back the driver
consolidates it (``sim.experiments.runner.finish_run``) and calls ``on_done`` (the command draws its figures
there) while the job goes on.  A killed run resumes from the shards like any other.
"""
from __future__ import annotations

import heapq
import time
from typing import Any, Callable

from sim.experiments.config import ExperimentConfig, Point
from sim.experiments.reproduce_pool import RunTracker, Task, plan_tasks
from sim.experiments.runner import PreparedRun, RunSummary, run_point


def task_order(tasks: list[Task]) -> list[Task]:
    """Every task once, each after the tasks it depends on, otherwise by the shared pool's
    priority: the order in which ``sim.experiments.reproduce_pool`` would start them if every point took
    the same time.  Consumes the tasks' ``waiting`` counts."""
    ready = [(t.priority(), t.seq, t) for t in tasks if not t.waiting]
    heapq.heapify(ready)
    out = []
    while ready:
        t = heapq.heappop(ready)[2]
        out.append(t)
        for q in t.then:
            q.waiting -= 1
            if not q.waiting:
                heapq.heappush(ready, (q.priority(), q.seq, q))
    return out


def run_spark_shared(preps: list[PreparedRun], on_done: Callable[[RunSummary], Any],
                     master: str | None = None, workers: int | None = None, spark=None,
                     progress: bool | None = None,
                     runner: Callable[[ExperimentConfig, Point], dict] = run_point) -> None:
    """Run the pending points of all ``preps`` as one Spark job; call ``on_done(summary)`` in the
    driver as soon as an experiment's last point is back (runs with nothing pending first).

    ``spark``: an active session to use (else one is started on ``master``, default
    ``local[*]``, and stopped at the end); ``workers`` bounds the per-point fallback only."""
    from sim.experiments.spark_backend import get_session, prepare_env, run_items

    order = task_order(plan_tasks(preps))
    with RunTracker(preps, on_done, "spark", progress) as tracker:
        if not order:
            return
        created = False
        if spark is None:
            spark, created = get_session(master, app_name="cepsim-reproduce")
        else:
            prepare_env()
        try:
            t0 = time.perf_counter()
            for prep in preps:   # the summary line's time: the job's start to the last row
                prep.t0 = t0

            run_items(spark.sparkContext, [(preps[t.exp].cfg, t.point) for t in order],
                      lambda i, row: tracker.row(order[i].exp, order[i].point, row), workers,
                      runner)
        finally:
            if created:
                spark.stop()

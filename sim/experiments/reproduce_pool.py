"""``cepsim reproduce`` on ONE process pool: the points of every experiment in one queue.

Running the experiments one after another, each on its own pool (``sim.experiments.sweep.run_local``), pays a
pool start and a serial warm-up per experiment and leaves a core idle at the tail of every
experiment (most have 2-12 points of very unequal cost).  Here one pool lives for the whole
command and every experiment's pending points are submitted to it, so the cores stay busy until
the last point of the last experiment.  Rows are the serial run's (same ``run_point``, same
seeds); only the order in which points run changes.

**Order.**  A point becomes *ready* when the points it depends on are back:

- *kernel warm-up*: within an experiment the first pending point of each kernel key
  (``sim.experiments.warmup.warm_key``) runs before the other points of that key, which then load the
  compiled kernels from the disk cache instead of waiting for them;
- *shared work*: points with one scenario ``work_key`` (per scenario module, across
  experiments) wait for the first point of that key, whose result they read from a cache (the
  generic scenario's engine counters; APAM's engine counters, which the two APAM sensitivity
  studies share with exp 1 and exp 3).

Ready points go to the pool longest first, by their ``wall_s`` in stored results of the same
config under the results root when there are any (a rerun or a ``--fresh`` run), else warm-up
and shared-work points first (they unblock others), taking the scenario modules (papers) in
turn: papers use different engines, so on a cold kernel cache the workers compile different
kernels side by side instead of one waiting for the other's compile of the same kernel; for
the same reason only one warm-up point per paper is in flight at a time.  Only a few points are
in the pool's queue at a time (4 per worker + 4), so a newly ready long point is not stuck
behind a long queue.

**Compiles.**  Workers start once, before any kernel is compiled (from a ``forkserver``;
``sim.experiments.sweep.pool_context`` says why not ``fork``), so they compile (or load from
the disk cache) the kernels they meet; ``engines.jitcache.install_compile_lock`` makes each
kernel compile in one process while others wait for it (and never corrupts the cache).

**Memory.**  After a point, a worker holding more than ``sim.experiments.worker_memory.RELEASE_ABOVE_MB``
drops the other papers' memos and returns free heap pages (``sim.experiments.worker_memory``), so memory one
paper left behind does not add to another paper's peak.  And a point starts only when the
memory it is expected to need fits in the budget beside what the parent and the workers hold
(``sim.experiments.point_memory``: growths measured per point, stored beside the results for the next run),
so two points of gigabytes do not run at once; a point is always started when none is in
flight.  While a point waits for memory, later points *backfill* idle workers (the rule of
EASY backfilling in batch schedulers, with memory as the reserved resource): a later point
starts only on an idle worker (nothing is queued ahead of the waiting point) and only when it
fits beside what is in flight *and* beside the waiting point, so it never delays that point's
start (no starvation), while the other core does not idle through a run of large points (with
only a memory gate, DARLING's 4.2M-event points of a full run go one at a time next to an idle
core).

**Finishing.**  As soon as an experiment's last point is back the parent consolidates its shards
(``sim.experiments.runner.finish_run``: the same writer as a single run) and calls ``on_done`` (the command
draws its figures there), while the workers go on with the other experiments' points.
"""
from __future__ import annotations

import heapq
import multiprocessing as mp
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Callable

from sim.experiments import point_memory
from sim.experiments.config import Point
from sim.experiments.progress import Progress
from sim.experiments.runner import PreparedRun, RunSummary, default_workers, finish_run, run_point
from sim.experiments.warmup import hashable, scenario_hook, warm_key, work_key


@dataclass
class Task:
    exp: int                    # index into the prepared runs
    point: Point
    waiting: int = 0            # dependencies not back yet
    then: list = field(default_factory=list)   # tasks waiting for this one
    unblocks: bool = False      # a warm-up / shared-work first point
    module: str = ""            # scenario module; set on a kernel warm-up point only
    est: float | None = None    # expected seconds (stored wall_s of the same config)
    spread: tuple = ()          # (experiment's rank within its scenario module, module index)
    seq: int = 0                # config order, the tie-breaker
    mem: float = 0.0            # expected memory growth (MB) when submitted (sim.experiments.point_memory)

    def priority(self) -> tuple:
        if self.est is not None:
            return (0, -self.est, self.seq)
        return (1, 0 if self.unblocks else 1, self.spread, self.seq)


def stored_wall_times(prep: PreparedRun) -> dict:
    """``{(point_id, rep): wall_s}`` of the stored results of exactly this config (same config
    fingerprint) under the results root; empty when there are none."""
    from sim.experiments import results
    from sim.experiments.staleness import config_fingerprint

    try:
        meta = results.read_meta(prep.root, prep.cfg) or {}
        if meta.get("config_fingerprint") != config_fingerprint(prep.cfg.to_dict()):
            return {}
        df = results.read_points(prep.root, prep.cfg)
    except Exception:  # unreadable old results: no estimate, nothing else depends on it
        return {}
    if df is None or "wall_s" not in df.columns:
        return {}
    out = {}
    for pid, rep, w in zip(df["point_id"], df["rep"], df["wall_s"]):
        if w is not None and w == w:
            out[(str(pid), int(rep))] = float(w)
    return out


def plan_tasks(preps: list[PreparedRun]) -> list[Task]:
    """Every pending point of every run as a task with its dependencies (see module docstring).

    Dependencies always point to a task planned earlier, so the graph has no cycle."""
    tasks: list[Task] = []
    work_first: dict = {}
    modules: dict = {}    # scenario module -> [its index, experiments seen]
    for i, prep in enumerate(preps):
        cfg = prep.cfg
        khook = scenario_hook(cfg, "warm_key")
        whook = scenario_hook(cfg, "work_key")
        module = cfg.scenario.split(":")[0]
        m = modules.setdefault(module, [len(modules), 0])
        spread = (m[1], m[0])
        m[1] += 1
        est = stored_wall_times(prep) if prep.pending else {}
        kernel_first: dict = {}
        for p in prep.pending:
            t = Task(i, p, est=est.get((p.point_id, p.rep)), spread=spread, seq=len(tasks))
            k = hashable(warm_key(cfg, p, khook))
            if k in kernel_first:
                depend(t, kernel_first[k])
            else:
                kernel_first[k] = t
                t.unblocks = True
                t.module = module
            w = work_key(p, whook)
            if w is not None:
                w = (module, w)
                if w in work_first:
                    depend(t, work_first[w])
                else:
                    work_first[w] = t
                    t.unblocks = True
            tasks.append(t)
    return tasks


def depend(t: Task, on: Task) -> None:
    if t not in on.then:
        on.then.append(t)
        t.waiting += 1


class RunTracker:
    """The rows of many experiments run together (this pool, or one Spark job): stores each
    row, counts it on the progress bar, and as soon as an experiment's last row is back
    consolidates it (``finish_run``) and calls ``on_done(summary)``; on entry, experiments with
    nothing pending are finished at once."""

    def __init__(self, preps: list[PreparedRun], on_done: Callable[[RunSummary], Any],
                 backend: str, progress: bool | None = None):
        self.preps, self.on_done, self.backend = preps, on_done, backend
        self.remaining = [len(p.pending) for p in preps]
        self.bar = Progress(sum(len(p.points) for p in preps), desc="reproduce",
                            enabled=progress)

    def __enter__(self) -> "RunTracker":
        self.bar.update(sum(len(p.done) for p in self.preps))
        for i, prep in enumerate(self.preps):
            if not self.remaining[i]:
                self.on_done(finish_run(prep, self.backend))
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()

    def row(self, exp: int, point: Point, row: dict) -> None:
        self.preps[exp].on_row(point, row)
        self.bar.update(1)
        self.remaining[exp] -= 1
        if not self.remaining[exp]:
            self.on_done(finish_run(self.preps[exp], self.backend))


#: ready points examined for backfilling per top-up (the ready heap holds thousands)
_BACKFILL_LOOKAHEAD = 64


def worker_init(repo_root: str, scenarios: tuple, parent_pid: int,
                env: dict[str, str] | None = None) -> None:
    """Pool initializer: the local backend's (owner's environment, watchdog, import path), the
    compile lock and every scenario module."""
    from engines.jitcache import install_compile_lock
    from sim.experiments import sweep

    sweep.worker_init(repo_root, None, parent_pid, env)
    install_compile_lock()
    for s in scenarios:
        sweep.prime_imports(s)


def _run_point_then_release(cfg, point: Point, bulky_mb: float | None = None
                            ) -> tuple[dict, dict]:
    """A worker's task: (the point's row, its memory facts).  After the point, when the worker
    holds much memory, the memos of the other papers and free heap pages go back to the system
    (``sim.experiments.worker_memory``); the facts (``sim.experiments.point_memory.finish_point``: the point's memory
    growth, what the worker retains after the release) feed the pool's memory admission.  Rows
    are ``run_point``'s: the release only drops caches.  ``bulky_mb`` (set when the pool runs
    under a memory budget): memo entries of that many MB or more are dropped after every point,
    the running paper's own included (``sim.experiments.worker_memory.drop_bulky_entries``)."""
    from sim.experiments import point_memory
    from sim.experiments.worker_memory import release_after_point

    rss0 = point_memory.start_point()
    row = run_point(cfg, point)
    release_after_point(cfg.scenario, bulky_mb=bulky_mb)
    return row, point_memory.finish_point(rss0)


def _memory_gate(preps: list[PreparedRun], budget_mb: float | None) -> point_memory.MemoryGate:
    """The pool's admission rule (``sim.experiments.point_memory``) with the stored growths of every run."""
    from sim.experiments.results import experiment_dir
    from sim.experiments.staleness import config_fingerprint

    budget = point_memory.DEFAULT_BUDGET_MB if budget_mb is None else float(budget_mb)
    stored = [point_memory.read_growths(experiment_dir(p.root, p.cfg),
                                        config_fingerprint(p.cfg.to_dict())) for p in preps]
    return point_memory.MemoryGate(budget, stored)


def _store_growths(prep: PreparedRun, gate: point_memory.MemoryGate, exp: int) -> None:
    """Write the growths this run measured for experiment ``exp`` beside its results."""
    from sim.experiments.results import experiment_dir, git_commit
    from sim.experiments.staleness import config_fingerprint

    try:
        point_memory.write_growths(experiment_dir(prep.root, prep.cfg),
                                   config_fingerprint(prep.cfg.to_dict()),
                                   gate.measured.get(exp, {}), git_commit())
    except OSError:      # a hint only: a read-only results root costs the next run's hint
        pass


def run_shared(preps: list[PreparedRun], on_done: Callable[[RunSummary], Any],
               workers: int | None = None, context: str | None = None,
               progress: bool | None = None, memory_budget_mb: float | None = None) -> None:
    """Run the pending points of all ``preps`` in one pool; call ``on_done(summary)`` in this
    process as soon as an experiment's last point is back (runs with nothing pending first).
    ``memory_budget_mb``: the process tree's memory budget for admission (``sim.experiments.point_memory``;
    None = its default, 0 = no admission rule)."""
    from engines.jitcache import ensure_numba_cache_dir, install_compile_lock
    from sim.experiments import sweep
    from sim.experiments import worker_memory  # noqa: F401  (a bad $CEPSIM_WORKER_RELEASE_MB: exit 2 now)

    ensure_numba_cache_dir()
    workers = workers or default_workers()
    tasks = plan_tasks(preps)
    gate = _memory_gate(preps, memory_budget_mb)
    bulky = point_memory.BULKY_ENTRY_MB if gate.active else None
    with RunTracker(preps, on_done, "local", progress) as tracker:
        if not tasks:
            return
        install_compile_lock()
        scenarios = tuple(sorted({p.cfg.scenario for p in preps}))
        for s in scenarios:     # the parent unpickles the workers' rows of every scenario
            sweep.prime_imports(s)
        ctx_name = sweep.pool_context(context)
        n_workers = min(workers, len(tasks))
        ready = [(t.priority(), t.seq, t) for t in tasks if not t.waiting]
        heapq.heapify(ready)
        # queue a few points per worker: enough to keep them busy while this process draws an
        # experiment's figures (seconds), short enough that a long point made ready later is
        # not stuck behind many others (a queue of n_workers + 2 left the workers idle 16 % of
        # a warm rerun whose last experiments have many sub-second points)
        limit = 4 * n_workers + 4
        with ProcessPoolExecutor(max_workers=n_workers, mp_context=mp.get_context(ctx_name),
                                 initializer=worker_init,
                                 initargs=(str(sweep.REPO_ROOT), scenarios,
                                           os.getpid(), dict(os.environ))) as pool:
            inflight: dict = {}
            started = [False] * len(preps)

            warming: dict = {}   # scenario module -> its warm-up points in flight

            def top_up() -> None:
                held = []
                blocked = None     # the first ready point waiting for memory
                looked = 0
                while ready and len(inflight) < limit:
                    item = heapq.heappop(ready)
                    t = item[2]
                    if t.module and warming.get(t.module):
                        held.append(item)   # its paper is compiling: likely the same kernels
                        continue
                    t.mem = gate.expected(t.exp, t.point.point_id, t.point.rep)
                    mems = [q.mem for q in inflight.values()]
                    if blocked is None:
                        if not gate.admit(t.mem, mems, n_workers):
                            blocked = t     # memory: it waits for points in flight to end
                            held.append(item)
                        else:
                            _submit(t)
                        continue
                    # backfill behind the blocked point: onto an idle worker only (nothing
                    # queued ahead of it), and only a point that fits now AND beside the
                    # blocked one, so it never delays the blocked point's start
                    looked += 1
                    if len(inflight) >= n_workers or looked > _BACKFILL_LOOKAHEAD:
                        held.append(item)
                        break
                    if gate.admit(t.mem, mems, n_workers) and \
                            gate.admit(t.mem, [blocked.mem], n_workers):
                        _submit(t)
                    else:
                        held.append(item)
                for item in held:
                    heapq.heappush(ready, item)

            def _submit(t: Task) -> None:
                if t.module:
                    warming[t.module] = warming.get(t.module, 0) + 1
                if not started[t.exp]:   # the summary line's time: first submit to end
                    started[t.exp] = True
                    preps[t.exp].t0 = time.perf_counter()
                inflight[pool.submit(_run_point_then_release, preps[t.exp].cfg,
                                     t.point, bulky)] = t

            top_up()
            try:
                while inflight:
                    done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                    back = []
                    for fut in done:
                        t = inflight.pop(fut)
                        if t.module:
                            warming[t.module] -= 1
                        try:
                            row, facts = fut.result()
                            gate.record(t.exp, t.point.point_id, t.point.rep, facts)
                        except Exception as exc:  # worker lost: record, keep going
                            row = sweep.error_row(t.point, exc)
                        for q in t.then:  # a failed first point: they report it themselves
                            q.waiting -= 1
                            if not q.waiting:
                                heapq.heappush(ready, (q.priority(), q.seq, q))
                        back.append((t, row))
                    top_up()   # keep the workers busy while this process writes
                    for t, row in back:
                        if tracker.remaining[t.exp] == 1:     # its experiment's last point
                            _store_growths(preps[t.exp], gate, t.exp)
                        tracker.row(t.exp, t.point, row)
                    top_up()
            except BaseException:
                for f in inflight:
                    f.cancel()
                raise

"""Estimate a run before running it: ``cepsim reproduce --dry-run`` and ``cepsim sweep --dry-run``.

For every experiment: its points, the pending ones (a run resumes from the shards of an
interrupted run, so those cost nothing), the estimated CPU seconds of the pending points and
where that figure comes from; then the estimated wall time of the whole command on the chosen
backend and number of workers.  Nothing is written under the results root.

**Point times.**  A stored row's ``wall_s`` is the wall time of one point in one process; every
backend runs one point per core, so it is the point's CPU time when the workers have a core
each.  The estimate of a pending point comes from the first of:

1. ``stored``: rows of the *same scale* of this config (or of the same ``--set`` variant) under
   the results roots.  A pending point stored with the same ``point_id`` and ``rep`` (the same
   parameters) costs its stored ``wall_s``; any other pending point is scaled from the stored
   rows as in 2 (then the source reads ``stored+events``).
2. ``<scale>*events``: rows of *another* scale (the quick results when estimating a full run),
   scaled per point by its stream length, ``n_events(point) * sum(wall_s) / sum(n_events)`` over
   the stored rows.  Engines and the queue work per event, so this is the first-order factor;
   an engine whose work grows faster than the stream (partial matches of a longer window) makes
   it low (measured, full from quick: APAM exp 1-3 3-4x low, 3,316 CPU s for the whole full
   reproduction against 5,145 from samples; the command prints a note).  Where the stored rows
   or the point have no numeric ``n_events`` the mean stored point is used
   (``<scale>*points``: only the number of points scales).
3. ``sample`` (``--sample`` only): the first pending point is run and timed in CPU seconds (a stored ``wall_s``
   is a point's CPU time on a core of its own; the wall time of a sample on a busy machine is
   not), then scaled to the other points by ``n_events`` as in 2.  Where points share work (a
   scenario's ``work_key``, ``sim.experiments.warmup``: the engine counters of one stream, reused across
   queueing and pricing parameters) a second point reusing that work is timed right after it,
   and every point whose work key an earlier point of the command (this experiment or an
   earlier one) computes costs that second time instead.  The samples run in a fresh child
   process with their disk caches (engine counters, ``sim/experiments/cache.py``; a ``cache_dir``
   parameter) in a temporary directory, so they compute what a fresh clone computes and leave
   nothing behind; their rows are discarded.  The CPU the Numba kernels took to compile or
   load from the disk cache (measured around ``Dispatcher.compile``) is charged once to the
   experiment, not scaled to every point: a run pays it once per kernel and process.  The
   sample process may use at most ``sample_memory_cap()`` of heap (half this machine's memory,
   at most 8 GiB; ``$CEPSIM_SAMPLE_MEMORY_GB``): a point that needs more fails there, and the
   estimate says its time is a lower bound, instead of the dry run waking the OOM killer.  The
   largest peak resident memory of a sample process is printed.

Results roots searched: the command's results root, then ``<project>/results`` when it differs
(quick results in the default root give the timings for ``--out results/full``), then the
committed full-scale reproduction ``<project>/results/full`` (the CLI's ``extra_roots``): a
fresh clone's ``reproduce --scale quick --dry-run`` answers in seconds from the committed rows,
scaled by stream length (source ``full*events``), without compiling a kernel.  Sampling (3.) is
on only with ``--sample``; without it an experiment no root has timings for reads ``unknown``.

**Wall time.**  ``serial``: the sum.  ``local``: ``cepsim reproduce`` runs every experiment's
points in one pool, longest first (``sim.experiments.reproduce_pool``), estimated as the longest-first list
schedule of all point estimates on the workers; ``cepsim sweep`` runs one experiment's warm-up
points (one per kernel key, ``sim.experiments.warmup``) in the parent first and the rest on the pool.
``spark``: the same schedules on the executor slots (``--workers``, else N of ``local[N]``, else
this machine's cores) plus ``SPARK_START_S`` for the session and Python worker start and
``SPARK_TASK_S`` per task.  The schedule ignores the dependencies between points (warm-up and
shared-work points first) and assumes one core per worker: with more workers than free cores
the wall is longer.
"""
from __future__ import annotations

import heapq
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from engines.errors import CepsimInputError
from sim.experiments.config import ExperimentConfig, Point, load_config
from sim.experiments.runner import resolve_run, run_point

# Session start + Python worker cold start of a fresh Spark session on local[2] (measured 7.6 -
# 10.5 s, sim/experiments/spark_backend.py module docstring); a real cluster adds its executor launch.
SPARK_START_S = 10.0
# Per task on top of the point itself: a quick-scale reproduce of 884 points on a standalone
# master + one 1-core worker took 262 s wall against 116 s serially on the same machine
# (docs/ENGINEERING.md): (262 - 116 - 10) / 884 = 0.15 s per task (scheduling, task
# serialization, the row's trip back through the accumulator, the driver writing its shard).
SPARK_TASK_S = 0.15


@dataclass
class ExperimentEstimate:
    """The estimate of one experiment: its points and the seconds of each pending point."""

    key: str
    n_points: int
    n_pending: int
    source: str                                    # stored, quick*events, sample, ... (see above)
    point_s: list = field(default_factory=list)    # estimated seconds per pending point
    warm: list = field(default_factory=list)       # per pending point: a warm-up point (sweep)
    note: str = ""
    sample_cpu_s: float = 0.0                      # CPU seconds of the sample point run here
    sample_jit_s: float = 0.0                      # of its wall: Numba compiles / cache loads
    sample_peak_mb: float | None = None            # peak resident memory of the sample process

    @property
    def cpu_s(self) -> float:
        return float(sum(self.point_s))

    @property
    def longest_s(self) -> float:
        return float(max(self.point_s, default=0.0))


def point_events(params: dict) -> float | None:
    """The point's stream length (``n_events``) when it is a positive number, else None."""
    v = params.get("n_events")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v > 0:
        return None
    return float(v)


@dataclass
class _Stored:
    """Point times of one stored results directory."""

    scale: str | None
    exact: dict            # (point_id, rep) -> wall_s (same scale only)
    per_event: float | None
    per_point: float


def _read_stored(root: Path, cfg: ExperimentConfig, name: str) -> tuple[dict, object] | None:
    import dataclasses

    from sim.experiments import results

    probe = dataclasses.replace(cfg, name=name)
    try:
        meta = results.read_meta(root, probe)
        df = results.read_points(root, probe)
    except Exception:  # unreadable old results: no timings from them
        return None
    if meta is None or df is None or "wall_s" not in df.columns:
        return None
    return meta, df


def _timings(meta: dict, df, same_scale: bool) -> _Stored | None:
    import pandas as pd

    walls, events, exact = [], [], {}
    ev_col = df["n_events"] if "n_events" in df.columns else [None] * len(df)
    for pid, rep, w, err, ev in zip(df["point_id"], df["rep"], df["wall_s"], df["error"], ev_col):
        if pd.isna(w) or pd.notna(err):
            continue   # failed rows: their time says nothing about a successful point
        walls.append(float(w))
        if same_scale:
            exact[(str(pid), int(rep))] = float(w)
        events.append(point_events({"n_events": ev.item() if hasattr(ev, "item") else ev}))
    if not walls:
        return None
    per_event = None
    if all(e is not None for e in events):
        per_event = sum(walls) / sum(events)
    return _Stored(meta.get("scale"), exact, per_event, sum(walls) / len(walls))


def stored_timings(roots: Iterable[Path], cfg: ExperimentConfig, scale: str | None,
                   base_name: str | None = None) -> _Stored | None:
    """The best stored point times of ``cfg`` (resolved, possibly a ``--set`` variant) under
    ``roots``: rows of the same scale first, then rows of another scale of the config
    (``base_name``: the config's own name when ``cfg`` is a variant)."""
    names = [cfg.name] + ([base_name] if base_name and base_name != cfg.name else [])
    other = None
    for root in roots:
        for name in names:
            got = _read_stored(Path(root), cfg, name)
            if got is None:
                continue
            meta, df = got
            same = meta.get("scale") == scale and name == cfg.name
            t = _timings(meta, df, same)
            if t is None:
                continue
            if same:
                return t
            if other is None:
                other = t
    return other


def _pending(root: Path, cfg: ExperimentConfig, points: list[Point],
             resume_stored: bool = False) -> list[Point]:
    """The points a run would still run: all but those with a usable shard and, with
    ``resume_stored`` (``cepsim reproduce``), those with a stored row of this config (read
    only)."""
    from sim.experiments import results

    done = set(results.done_points(root, cfg, points)) if results.shards_match(root, cfg) else set()
    if resume_stored:
        done |= set(results.stored_rows(root, cfg, points))
    return [p for p in points if (p.point_id, p.rep) not in done]


def _scaled(params: dict, per_event: float | None, per_point: float) -> float:
    ev = point_events(params)
    return per_event * ev if per_event is not None and ev is not None else per_point


def estimate_experiment(cfg: ExperimentConfig, scale: str | None, roots: list[Path],
                        overrides: list[str] | None = None, sample: bool = True,
                        progress: Callable[[str], None] | None = None,
                        seen_work: set | None = None,
                        resume_stored: bool = False) -> ExperimentEstimate:
    """Estimate the pending points of ``cfg`` at ``scale`` (see the module docstring); runs a
    sample (one point, or two where points share work) only when no stored timings exist.
    ``resume_stored``: stored rows of this config count as done (``cepsim reproduce``).

    ``seen_work``: the shared-work keys of the experiments estimated before in the same command
    (updated here), whose points here reuse that work."""
    seen_work = set() if seen_work is None else seen_work
    from sim.experiments.warmup import split_warmup

    base_name = cfg.name
    rcfg, points = resolve_run(cfg, scale, overrides)
    pending = _pending(Path(roots[0]), rcfg, points, resume_stored)
    est = ExperimentEstimate(rcfg.key, len(points), len(pending), "none")
    if not pending:
        return est
    warm_ids = {(p.point_id, p.rep) for p in split_warmup(rcfg, pending)[0]}
    est.warm = [(p.point_id, p.rep) in warm_ids for p in pending]
    st = stored_timings(roots, rcfg, scale, base_name)
    if st is not None:
        seen_work.update(k for k in _work_keys(rcfg, pending) if k is not None)
        secs, n_exact = [], 0
        for p in pending:
            w = st.exact.get((p.point_id, p.rep))
            if w is None:
                w = _scaled(p.params, st.per_event, st.per_point)
            else:
                n_exact += 1
            secs.append(w)
        est.point_s = secs
        if st.exact:
            est.source = "stored" if n_exact == len(pending) else "stored+events"
        else:
            by_events = st.per_event is not None and all(
                point_events(p.params) is not None for p in pending)
            est.source = f"{st.scale}*{'events' if by_events else 'points'}"
        return est
    if not sample:
        est.source, est.note = "unknown", "no stored timings; --sample times a point"
        est.point_s = [0.0] * len(pending)
        return est
    _estimate_from_sample(est, rcfg, pending, seen_work, progress)
    return est


def _work_keys(cfg: ExperimentConfig, pending: list[Point]) -> list:
    """Per pending point: its shared-work key ``(scenario module, work_key)``, or None."""
    from sim.experiments.warmup import scenario_hook, work_key

    hook = scenario_hook(cfg, "work_key")
    module = cfg.scenario.split(":")[0]
    if hook is None:
        return [None] * len(pending)
    return [None if (k := work_key(p, hook)) is None else (module, k) for p in pending]


def _estimate_from_sample(est: ExperimentEstimate, cfg: ExperimentConfig, pending: list[Point],
                          seen_work: set, progress) -> None:
    """Fill ``est`` from a sample: the first pending point, and when it has a shared-work key,
    then a point reusing that work (a point of the same key, else the same point again) in the
    same process: a *leader* (the first point of a work key in this command) costs the first,
    every other point of a key (in this experiment or an earlier one: the APAM sensitivity
    studies read exp 1/3's counters) the second, both scaled by ``n_events``."""
    keys = _work_keys(cfg, pending)
    sample = [pending[0]]
    if keys[0] is not None:
        sample.append(next((p for p, k in zip(pending[1:], keys[1:]) if k == keys[0]),
                           pending[0]))
    if progress is not None:
        progress(f"dry run: timing {len(sample)} sample point(s) of {cfg.key} ...")
    timed = sample_points(cfg, sample)
    est.sample_cpu_s = sum(t[0] for t in timed)
    est.sample_peak_mb = max((t[3] for t in timed if t[3] is not None), default=None)
    est.sample_jit_s = min(sum(t[1] for t in timed), est.sample_cpu_s)
    # without the kernel compiles / cache loads: a run pays those once per kernel and process

    def rate(i: int) -> tuple[float | None, float]:
        spent = max(0.0, timed[i][0] - timed[i][1])
        ev = point_events(sample[i].params)
        return (spent / ev if ev is not None else None), spent

    lead = rate(0)
    follow = rate(1) if len(timed) > 1 else lead
    secs, n_follow = [], 0
    for p, k in zip(pending, keys):
        if k is not None and k in seen_work:
            secs.append(_scaled(p.params, *follow))
            n_follow += 1
        else:
            secs.append(_scaled(p.params, *lead))
        if k is not None:
            seen_work.add(k)
    secs[0] += est.sample_jit_s   # ... once
    est.point_s = secs
    est.source = "sample"
    notes = []
    if est.sample_jit_s >= 0.05:
        notes.append(f"incl. {est.sample_jit_s:.1f} s kernel compile/load once")
    if n_follow:
        notes.append(f"{n_follow} points reuse shared work: {timed[-1][0]:.2f} s sampled")
    errors = [t[2] for t in timed if t[2] is not None]
    if errors:
        notes.append(f"the sample point failed, the time is a lower bound: {errors[0][:120]}")
    est.note = "; ".join(notes)


def _timed_points(cfg: ExperimentConfig, points: list[Point], scratch: str,
                  memory_cap: int | None = None) -> list:
    """[(CPU s, of which Numba compile/load s, error text or None)] of ``points`` run here one
    after the other, their disk caches in ``scratch`` (a child process of ``sample_points``).
    ``memory_cap``: bytes of heap (the parent's ``sample_memory_cap()``: a child started by a
    fork server does not see the parent's current environment)."""
    import resource

    os.environ["CEPSIM_COUNTER_CACHE"] = os.path.join(scratch, "counters")
    cap = sample_memory_cap() if memory_cap is None else memory_cap
    try:   # a runaway sample fails with MemoryError instead of waking the OOM killer
        resource.setrlimit(resource.RLIMIT_DATA, (cap, resource.RLIM_INFINITY))
    except (ValueError, OSError):  # pragma: no cover - no such limit on this system
        pass
    out = []
    for point in points:
        params = dict(point.params)
        if isinstance(params.get("cache_dir"), str) and params["cache_dir"]:
            params["cache_dir"] = os.path.join(scratch, "cache_dir")  # e.g. APAM's counters
        c0 = time.process_time()
        with _JitTimer() as jit:
            row = run_point(cfg, Point(point.point_id, point.rep, point.seed, params))
        out.append((time.process_time() - c0, jit.seconds, row.get("error"),
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    return out


def sample_memory_cap() -> int:
    """Bytes of heap a sample process may use: ``$CEPSIM_SAMPLE_MEMORY_GB`` GiB, else half of
    this machine's memory, at most 8 GiB."""
    env = os.environ.get("CEPSIM_SAMPLE_MEMORY_GB")
    if env:
        return int(float(env) * (1 << 30))
    try:
        phys = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # pragma: no cover
        phys = 16 << 30
    return int(min(8 << 30, phys // 2))


def sample_points(cfg: ExperimentConfig, points: list[Point]) -> list:
    """Run ``points`` one after the other for their times: [(CPU s, of which Numba
    compile/load s, error or None)].

    They run in a fresh child process (``sim.experiments.sweep.pool_context``: from a forkserver)
    with their disk caches in a temporary directory that is removed afterwards: the first finds
    no engine counters or streams that an earlier sample or run left in memory or on disk, so it
    costs what the point costs on a fresh clone, and the dry run leaves nothing behind."""
    import tempfile
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from sim.experiments.sweep import pool_context

    from concurrent.futures.process import BrokenProcessPool

    with tempfile.TemporaryDirectory(prefix="cepsim-sample-") as scratch:
        c0 = time.perf_counter()
        with ProcessPoolExecutor(max_workers=1,   # a new pool, so a new process, per sample
                                 mp_context=get_context(pool_context())) as pool:
            try:
                return pool.submit(_timed_points, cfg, points, scratch,
                                   sample_memory_cap()).result()
            except BrokenProcessPool as exc:   # killed (signal, memory): the time it lived
                return [(time.perf_counter() - c0, 0.0, f"sample process died: {exc}", None)]


class _JitTimer:
    """CPU seconds spent in Numba's ``Dispatcher.compile`` (compiling a kernel or loading it
    from the disk cache) while the context is open; nested compiles count once."""

    def __enter__(self) -> "_JitTimer":
        self.seconds, self._depth, self._orig = 0.0, 0, None
        try:
            from numba.core import dispatcher
        except ImportError:  # pragma: no cover - numba is a dependency
            return self
        self._cls, self._orig = dispatcher.Dispatcher, dispatcher.Dispatcher.compile
        timer, orig = self, self._orig

        def compile(disp, sig):
            timer._depth += 1
            t0 = time.process_time()
            try:
                return orig(disp, sig)
            finally:
                timer._depth -= 1
                if not timer._depth:
                    timer.seconds += time.process_time() - t0

        self._cls.compile = compile
        return self

    def __exit__(self, *exc) -> None:
        if self._orig is not None:
            self._cls.compile = self._orig


def lpt_makespan(seconds: Iterable[float], workers: int) -> float:
    """Wall time of running jobs of ``seconds`` on ``workers``, longest first, each to the
    first free worker (what the shared pool and a Spark stage of ordered tasks do)."""
    loads = [0.0] * max(1, workers)
    for s in sorted(seconds, reverse=True):
        heapq.heapreplace(loads, loads[0] + s)
    return max(loads)


def spark_slots(master: str | None, workers: int | None) -> tuple[int, str]:
    """(executor slots, how they were found) of a Spark run."""
    if workers is not None:
        return workers, "--workers"
    m = re.fullmatch(r"local(?:\[(\d+|\*)(?:,\s*\d+)?\])?", master or "local[*]")
    if m and m.group(1) and m.group(1) != "*":
        return int(m.group(1)), master or ""
    if m and m.group(1) is None:
        return 1, master or ""
    cores = os.cpu_count() or 1
    if m:
        return cores, f"{master or 'local[*]'}: this machine's cores"
    return cores, (f"{master}: assumed this machine's {cores} cores; pass --workers N (the "
                   f"cluster's executor cores) for the cluster")


def wall_estimate(ests: list[ExperimentEstimate], backend: str, workers: int | None,
                  master: str | None, shared: bool) -> tuple[float, str]:
    """(estimated wall seconds, how) of running ``ests`` on ``backend`` (module docstring).

    ``shared``: all experiments' points in one pool / one Spark job (``cepsim reproduce``);
    otherwise each experiment on its own, warm-up points first (``cepsim sweep``)."""
    from sim.experiments.runner import default_workers

    if backend == "serial":
        return sum(e.cpu_s for e in ests), "serial: one process, the sum of the points"
    task = 0.0
    if backend == "spark":
        n, how = spark_slots(master, workers)
        start, task = SPARK_START_S, SPARK_TASK_S
        what = (f"spark on {n} slots ({how}), +{SPARK_START_S:.0f} s start and "
                f"{SPARK_TASK_S:.2f} s per task")
    else:
        n, start = workers or default_workers(), 0.0
        what = f"local on {n} workers"
    if shared:
        wall = lpt_makespan([s + task for e in ests for s in e.point_s], n)
        return start + wall, what + ", every experiment's points in one pool, longest first"
    wall = start
    for e in ests:
        warm = [s for s, w in zip(e.point_s, e.warm) if w]
        rest = [s + task for s, w in zip(e.point_s, e.warm) if not w]
        wall += sum(warm) + lpt_makespan(rest, n)
    return wall, what + ", per experiment: warm-up points first, then the rest longest first"


def _hms(s: float) -> str:
    s = int(round(s))
    h, m = divmod(s // 60, 60)
    return f"{h} h {m:02d} min" if h else (f"{m} min {s % 60:02d} s" if m else f"{s} s")


def format_table(ests: list[ExperimentEstimate]) -> list[str]:
    """The per-experiment lines, slowest first, and the total line."""
    width = max([len(e.key) for e in ests] + [10])
    lines = [f"{'experiment':<{width}}  {'points':>6}  {'pending':>7}  {'est CPU s':>10}  "
             f"{'longest s':>9}  source"]
    for e in sorted(ests, key=lambda e: (-e.cpu_s, e.key)):
        note = f"  ({e.note})" if e.note else ""
        lines.append(f"{e.key:<{width}}  {e.n_points:>6}  {e.n_pending:>7}  {e.cpu_s:>10.1f}  "
                     f"{e.longest_s:>9.2f}  {e.source}{note}")
    lines.append(f"{'total':<{width}}  {sum(e.n_points for e in ests):>6}  "
                 f"{sum(e.n_pending for e in ests):>7}  {sum(e.cpu_s for e in ests):>10.1f}")
    return lines


def dry_run(paths: list[Path], scale: str | None, out: Path, default_out: Path,
            backend: str, workers: int | None, master: str | None, shared: bool,
            overrides: list[str] | None = None,
            echo: Callable[[str], None] = print,
            resume_stored: bool = False, extra_roots: Iterable[Path] = (),
            sample: bool = True) -> list[ExperimentEstimate]:
    """``--dry-run``: estimate every config of ``paths`` and print the table and the wall time;
    ``resume_stored`` as ``cepsim reproduce`` (stored rows of an unchanged config are done).

    ``extra_roots``: further results roots searched for timings after ``out`` and
    ``default_out`` (the CLI passes the committed ``results/full``, so a fresh clone's dry run
    answers from the committed rows scaled by stream length).  ``sample``: time a sample point
    where no root has timings (compiles kernels); otherwise such an experiment's source reads
    ``unknown`` and the command names ``--sample``.

    Every config is checked as a real run checks it (bad input: ``CepsimInputError``)."""
    from sim.experiments import backends

    backends.get_backend(backend)   # an unknown backend is the same error as in a real run
    if workers is not None and workers < 1:
        raise CepsimInputError(f"--workers: must be >= 1, got {workers}")
    roots: list[Path] = []
    for r in [Path(out), Path(default_out), *map(Path, extra_roots)]:
        if r not in roots:
            roots.append(r)
    cfgs = [load_config(p) for p in paths]   # every config checked before any sample runs
    say = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731 - progress on stderr
    seen: set = set()
    ests = [estimate_experiment(c, scale, roots, overrides, sample=sample, progress=say,
                                seen_work=seen, resume_stored=resume_stored) for c in cfgs]
    for line in format_table(ests):
        echo(line)
    wall, how = wall_estimate(ests, backend, workers, master, shared)
    samples = [e for e in ests if e.source == "sample"]
    echo(f"estimated wall: {wall:.0f} s ({_hms(wall)}) on {how}")
    scaled = [e for e in ests if e.n_pending and "*" in e.source]
    if scaled:
        from_full = any(e.source.startswith("full*") for e in scaled)
        echo(f"note: {len(scaled)} experiment(s) scaled from another scale's rows linearly in "
             f"n_events; engines whose work grows faster than the stream make full-from-quick "
             f"low (measured: APAM exp 1-3 3-4x low)"
             + (" and quick-from-full high" if from_full else "")
             + "; the figures are first-order estimates")
    if any(e.n_pending for e in ests):
        echo("note: a cold kernel cache adds the first compile of every engine, not counted "
             "above (`cepsim warmup`: 4.5 min on 2 cores, once; benchmarks/cold_compile.md)")
    unknown = [e for e in ests if e.n_pending and e.source == "unknown"]
    if unknown:
        echo(f"note: {len(unknown)} experiment(s) have no stored timings ({unknown[0].key}"
             f"{', ...' if len(unknown) > 1 else ''}) and count 0 s above; --sample times one "
             f"point of each (compiles its kernels)")
    peaks = [e for e in ests if e.sample_peak_mb is not None]
    if peaks:
        top = max(peaks, key=lambda e: e.sample_peak_mb)
        echo(f"largest sample process: {top.sample_peak_mb:,.0f} MB peak resident ({top.key}; "
             f"a worker holds one point at a time)")
    sources = sorted({e.source for e in ests if e.n_pending})
    echo(f"dry run: scale {scale or '(config)'}; estimates from {', '.join(sources) or '-'} "
         f"(sim/experiments/estimate.py); samples of {len(samples)} experiment(s) run here "
         f"({sum(e.sample_cpu_s for e in samples):.1f} CPU s, of which "
         f"{sum(e.sample_jit_s for e in samples):.1f} s kernel compile/load); no results "
         f"written")
    return ests

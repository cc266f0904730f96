"""Calibrate a cost profile against this machine's eager engine (docs/COST_MODEL.md).

Entry point for ``cepsim calibrate``::

    calibrate(out_path=None, quick=False, seeds=(1, 2, 3), engine="eager", repeats=None)
        -> (CostProfile, report: dict)

``out_path=None`` writes ``profiles/calibrated.toml`` under the current directory (the
report's ``out_path`` says where).  ``quick`` uses fewer and shorter chunks (seconds).

Measurement scheme.  ``WORKLOADS`` are seeded synthetic streams with patterns chosen so that
the counter columns vary *independently* across runs (a pattern without predicates, one with
four conjuncts per edge, a never-matching wide window where almost every edge check fails, one
with ~30 matches per event, a negation (buffer inserts), skip-till-next-match, a skewed type
mix whose window is comparable to the chunk length so that partial matches created and removed
per chunk differ -- in steady state every partial match created is also removed, and the two
columns would be collinear otherwise -- and a nearly idle workload that pins the per-event
base cost).  Each stream is cut into chunks of different lengths; each chunk runs as a stream
of its own (``stream.slice``) through ``engines.registry.run_engine(engine, ...)``.  The
time of that call is the *thread CPU time* (``time.thread_time``), minimum of ``repeats``
runs after one untimed run that compiles and warms caches: on a shared machine wall time
picks up whole scheduler quanta of other processes (measured here under load ~3 on 2 cores:
per-event wall times of one chunk spread 0.4-5 us over 15 runs, CPU times 0.29-0.47 us).
Each time is paired with the counter totals *of that same run*, so work and time describe the
same computation (the window state lost at a chunk boundary changes both consistently).
The model fitted is::

    cpu_time(chunk) = call_overhead + n_events * base_cost + sum_k total_k * unit_cost_k

by non-negative least squares (``scipy.optimize.nnls``) on column-scaled data, each run
weighted by 1/time (a relative-error fit: short and long chunks count alike).
``call_overhead`` (engine dispatch, per-call tables and allocation, ~0.1 ms) has no place in
a per-event service time: it is reported, not written.  Counters that never occur in the
calibration runs (for the eager engine: join probes, plan generations, decision checks,
remote fetches) cannot be measured; their unit costs are copied from the default profile and
listed in the report.  Side-metric counters (``routing_check``: the DEBS'15 tree NFA's routing
decisions, whose work ``instance_work`` charges) are written as 0.0 and never fitted.  The
profile (with the report in ``[meta]``) is written atomically.

Report: ``r2`` (on raw times), ``chunk_rel_rms`` / ``chunk_rel_max`` (relative error per timed
chunk), per workload the relative error of its predicted total time (in-sample) and
``cv_rel_error`` (leave-one-workload-out: fitted without that workload, i.e. how well the
profile predicts a workload it has not seen).  The counter model is linear; the engine's real
cost per operation depends on cache behaviour and branch prediction, so expect per-workload
errors of some tens of percent even with noise-free timings.
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
import time
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from engines.counters import COUNT_COLUMNS
from sim.core.costmodel import COUNT_NAMES, SIDE_NAMES, CostProfile, load_profile, save_profile

# (pattern text, type weights A, B, C, ...) per workload; what each one is there to move.
WORKLOADS: tuple[tuple[str, tuple[float, ...]], ...] = (
    # created != removed per chunk (window ~ chunk length), rare B scans ~450 live A's
    ("PATTERN SEQ(A a, B b) WHERE a.x > b.x + 2 WITHIN 1500 events", (30, 1, 69)),
    # ~30 matches per event (match_emit dominated)
    ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 800 events", (20, 2, 5, 73)),
    # no predicates at all: edges, instances and matches only
    ("PATTERN SEQ(A a, B b) WITHIN 8 events", (1, 1, 1)),
    # four conjuncts per edge
    ("PATTERN SEQ(A a, B b) WHERE a.x < b.x AND a.x < b.x + 0.5 AND a.x > b.x - 0.9 "
     "AND b.x > 0.1 WITHIN 12 events", (1, 1, 1)),
    ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 30 events", (1, 1, 1, 1)),
    ("PATTERN SEQ(A a, B b, C c) WITHIN 15 events", (1, 1, 1)),
    # wide window, almost every edge check fails: pred/edge heavy, few instances, no matches
    ("PATTERN SEQ(A a, B b) WHERE a.x > b.x + 0.97 WITHIN 150 events", (1, 1, 1)),
    # middle negation: buffer inserts
    ("PATTERN SEQ(A a, NOT(C c), B b) WHERE a.x < b.x WITHIN 20 events", (1, 1, 1)),
    ("PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 60 events "
     "POLICY skip-till-next-match", (1, 1, 1)),
    ("PATTERN SEQ(A a, B b, C c, D d) WHERE a.x > 0.5 AND d.x < a.x WITHIN 40 events",
     (1, 1, 1, 1, 1)),
    # nearly idle: pins base_cost
    ("PATTERN SEQ(A a, B b) WHERE a.x > 0.99 AND b.x > 0.99 WITHIN 5 events", (1,) * 8),
)
QUICK_SIZES = (1000, 3000, 8000)

# Second stage: the remote-data engine (EIRES) produces counters the eager engine never does
# (cache operations, utility updates, fetches issued, decision checks, statistics updates, sort
# comparisons).  (pattern text, type weights, options of ``run_remote``); integer keys ``k``
# uniform on 0..999.  Strategies, caches, cache sizes and utility periods differ so that those
# columns vary independently of the instance / match work.  PFetch runs its utility-tested
# reading (``prefetch = "utility"``): the artifact's PFetch prefetches without a decision check,
# and the decision-check column needs a workload that makes them.
REMOTE_WORKLOADS: tuple[tuple[str, tuple[float, ...], dict], ...] = (
    ("PATTERN SEQ(A a, B b) WHERE REMOTE[a.k] <= 300 AT b WITHIN 30 events", (1, 1, 1),
     {"strategy": "BL2", "cache": "lru", "cache_size": 50}),
    ("PATTERN SEQ(A a, B b) WHERE REMOTE[a.k] <= 300 AT b WITHIN 30 events", (1, 1, 1),
     {"strategy": "BL1", "cache": "lru", "cache_size": 50}),
    ("PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.k] <= 500 AT c WITHIN 40 events", (1, 1, 1),
     {"strategy": "Hybrid", "cache": "cost", "cache_size": 100, "utility_period": 4}),
    ("PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.k] <= 500 AT c WITHIN 40 events", (1, 1, 1),
     {"strategy": "PFetch", "cache": "lru", "cache_size": 400, "utility_period": 64,
      "prefetch": "utility"}),
    ("PATTERN SEQ(A a, B b, C c) WHERE REMOTE[a.k] <= 700 AT b WITHIN 60 events", (2, 1, 1),
     {"strategy": "LzEval", "cache": "cost", "cache_size": 200, "utility_period": 1}),
    ("PATTERN SEQ(A a, B b, C c, D d) WHERE REMOTE[a.k] <= 900 AT c WITHIN 80 events",
     (1, 1, 1, 1), {"strategy": "Hybrid", "cache": "lru", "cache_size": 1000,
                    "utility_period": 16}),
)
FULL_SIZES = (1000, 3000, 8000, 20000, 40000)


def calibration_stream(n: int, seed: int, weights):
    """Seeded stream: Poisson(1) timestamps, types A, B, ... drawn with ``weights``, attribute
    ``x`` uniform on [0, 1)."""
    from engines.stream import EventStream

    p = np.asarray(weights, dtype=np.float64)
    p = p / p.sum()
    rng = np.random.default_rng(seed)
    ts = np.cumsum(rng.exponential(1.0, n))
    types = rng.choice(p.size, n, p=p).astype(np.int32)
    x = rng.random((n, 1))
    names = [chr(ord("A") + k) for k in range(p.size)]
    return EventStream.from_arrays(types, ts, x, names, ["x"], source=f"calibration(seed={seed})")


def fit_profile(totals: np.ndarray, n_events: np.ndarray, times: np.ndarray,
                names: tuple[str, ...] = COUNT_NAMES) -> dict:
    """NNLS fit of ``times ~ overhead + n_events*base + totals @ units`` (relative weights).

    ``totals``: float ``[m, len(names)]`` counter totals per timed run, ``n_events``: ``[m]``,
    ``times``: ``[m]`` seconds.  Columns that are zero in every run are left out (``None`` in
    the result).  Returns ``{"unit_cost": {name: float|None}, "base_cost", "call_overhead",
    "r2", "chunk_rel_rms", "chunk_rel_max", "predicted"}``.
    """
    totals = np.asarray(totals, dtype=np.float64)
    n_events = np.asarray(n_events, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    used = [j for j in range(totals.shape[1]) if np.any(totals[:, j] != 0)]
    X = np.column_stack([np.ones_like(times), n_events] + [totals[:, j] for j in used])
    scale = np.abs(X).max(axis=0)
    scale[scale == 0] = 1.0
    # weight each run by 1/time so short and long chunks count alike (relative error fit)
    w = 1.0 / np.maximum(times, 1e-12)
    coef_s, _ = nnls(X / scale * w[:, None], times * w)
    coef = coef_s / scale
    pred = X @ coef
    ss_res = float(np.sum((times - pred) ** 2))
    ss_tot = float(np.sum((times - times.mean()) ** 2))
    rel = pred / np.maximum(times, 1e-12) - 1
    units: dict[str, float | None] = {name: None for name in names}
    for k, j in enumerate(used):
        units[names[j]] = float(coef[2 + k])
    return {"unit_cost": units, "base_cost": float(coef[1]), "call_overhead": float(coef[0]),
            "r2": 1 - ss_res / ss_tot if ss_tot > 0 else float("nan"),
            "chunk_rel_rms": float(np.sqrt(np.mean(rel ** 2))) if rel.size else float("nan"),
            "chunk_rel_max": float(np.abs(rel).max()) if rel.size else float("nan"),
            "predicted": pred}


def _time_call(fn, repeats: int) -> tuple[float, object]:
    """Minimum thread CPU time of ``repeats`` calls (and the last result)."""
    best, res = float("inf"), None
    for _ in range(repeats):
        t0 = time.thread_time()
        res = fn()
        best = min(best, time.thread_time() - t0)
    return best, res


def measure(seeds=(1, 2, 3), quick: bool = False, engine: str = "eager",
            repeats: int | None = None, workloads=WORKLOADS, progress=None) -> list[dict]:
    """Timed runs: one dict per chunk (``workload``, ``seed``, ``n_events``, ``time``,
    ``totals``)."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.registry import run_engine

    sizes = QUICK_SIZES if quick else FULL_SIZES
    repeats = int(repeats) if repeats is not None else (3 if quick else 5)
    runs: list[dict] = []
    for wi, (text, weights) in enumerate(workloads):
        for seed in seeds:
            stream = calibration_stream(sum(sizes), int(seed) * 1000 + wi, weights)
            program = compile_pattern(parse_pattern(text, source="calibration workload"),
                                      stream.schema)
            run_engine(engine, program, stream.slice(0, min(500, len(stream))))  # compile/warm
            pos = 0
            for size in sizes:
                chunk = stream.slice(pos, pos + size)
                pos += size
                t, res = _time_call(lambda: run_engine(engine, program, chunk), repeats)
                c = np.asarray(res.counters)[:size]
                runs.append({"workload": wi, "seed": int(seed), "n_events": size, "time": t,
                             "totals": c[:, list(COUNT_COLUMNS)].sum(axis=0)})
        if progress is not None:
            progress(wi + 1, len(workloads))
    return runs


def remote_calibration_stream(n: int, seed: int, weights, n_keys: int = 1000):
    """Seeded stream for the remote engine: types drawn with ``weights``, integer key ``k``
    uniform on 0..n_keys-1 (a REMOTE key) and ``x`` uniform on [0, 1)."""
    from engines.stream import EventStream

    p = np.asarray(weights, dtype=np.float64)
    p = p / p.sum()
    rng = np.random.default_rng([seed, 77])
    ts = np.arange(n, dtype=np.float64)
    types = rng.choice(p.size, n, p=p).astype(np.int32)
    attrs = np.stack([rng.integers(0, n_keys, n).astype(np.float64), rng.random(n)], axis=1)
    names = [chr(ord("A") + k) for k in range(p.size)]
    return EventStream.from_arrays(types, ts, attrs, names, ["k", "x"],
                                   source=f"remote-calibration(seed={seed})")


def measure_remote(seeds=(1, 2, 3), quick: bool = False, repeats: int | None = None,
                   workloads=REMOTE_WORKLOADS) -> list[dict]:
    """Timed runs of the remote-data kernel (same record format as ``measure``).  Fetch
    latencies are virtual time; the CPU time measured is the kernel's own work."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern
    from engines.remote.kernel import run_remote

    sizes = QUICK_SIZES if quick else FULL_SIZES
    repeats = int(repeats) if repeats is not None else (3 if quick else 5)
    runs: list[dict] = []
    for wi, (text, weights, opts) in enumerate(workloads):
        for seed in seeds:
            stream = remote_calibration_stream(sum(sizes), int(seed) * 1000 + wi, weights)
            program = compile_pattern(parse_pattern(text), stream.schema)

            def go(chunk):
                return run_remote(program, chunk, record_matches=False, **opts)
            go(stream.slice(0, min(500, len(stream))))                  # compile / warm
            pos = 0
            for size in sizes:
                chunk = stream.slice(pos, pos + size)
                pos += size
                t, res = _time_call(lambda: go(chunk), repeats)
                c = np.asarray(res.counters)[:size]
                runs.append({"workload": wi, "seed": int(seed), "n_events": size, "time": t,
                             "totals": c[:, list(COUNT_COLUMNS)].sum(axis=0)})
    return runs


DEFAULT_OUT = Path("profiles") / "calibrated.toml"


def _per_workload(runs, times, predicted, n_ev, totals, workloads) -> list[dict]:
    wl_ids = np.array([r["workload"] for r in runs])
    out = []
    for wi in sorted(set(wl_ids.tolist())):
        m = wl_ids == wi
        meas, pred = float(times[m].sum()), float(predicted[m].sum())
        cv = float("nan")
        if len(set(wl_ids.tolist())) > 2:
            f = fit_profile(totals[~m], n_ev[~m], times[~m])
            u = np.array([0.0 if v is None else v for v in f["unit_cost"].values()])
            cv_pred = f["call_overhead"] + n_ev[m] * f["base_cost"] + totals[m] @ u
            cv = float(cv_pred.sum() / meas - 1)
        ev = float(n_ev[m].sum())
        out.append({"workload": workloads[wi][0], "events": int(ev),
                    "measured_us_per_event": meas / ev * 1e6,
                    "measured_s": meas, "predicted_s": pred, "rel_error": pred / meas - 1,
                    "cv_rel_error": cv})
    return out


def calibrate(out_path: str | os.PathLike | None = None, quick: bool = False, seeds=(1, 2, 3),
              engine: str = "eager", repeats: int | None = None,
              workloads=WORKLOADS,
              remote_workloads=REMOTE_WORKLOADS) -> tuple[CostProfile, dict]:
    """Measure ``engine`` on this machine, fit unit costs, write the profile to ``out_path``.

    Returns the profile and a report: ``r2``, ``chunk_rel_rms``, ``chunk_rel_max``,
    ``call_overhead`` (s), ``base_cost``, ``unit_cost``, ``unmeasured`` (counters copied from
    the default profile), ``workloads`` (per workload: events, measured and predicted seconds,
    in-sample and leave-one-workload-out relative error), ``n_runs``.

    Counters ``engine`` never produces are then priced from a second fit on the remote-data
    kernel's runs (``remote_workloads``; that fit's own prices of shared counters are not
    used): ``remote_priced`` lists them with ``remote_r2`` / ``remote_chunk_rel_rms``.  Only what
    neither fit sees is copied from the default profile (``unmeasured``).
    """
    out_path = Path(out_path) if out_path is not None else DEFAULT_OUT
    runs = measure(seeds=seeds, quick=quick, engine=engine, repeats=repeats, workloads=workloads)
    totals = np.array([r["totals"] for r in runs], dtype=np.float64)
    n_ev = np.array([r["n_events"] for r in runs], dtype=np.float64)
    times = np.array([r["time"] for r in runs])
    fit = fit_profile(totals, n_ev, times)
    default = load_profile(None)
    remote_priced: dict[str, float] = {}
    rfit = None
    if remote_workloads:
        rruns = measure_remote(seeds=seeds, quick=quick, repeats=repeats,
                               workloads=remote_workloads)
        rfit = fit_profile(np.array([r["totals"] for r in rruns], dtype=np.float64),
                           np.array([r["n_events"] for r in rruns], dtype=np.float64),
                           np.array([r["time"] for r in rruns]))
        for k, v in fit["unit_cost"].items():
            if v is None and rfit["unit_cost"][k] is not None:
                remote_priced[k] = rfit["unit_cost"][k]
    # side metrics (routing_check) are priced 0 by definition, never fitted: their work is in
    # another column (engines.counters.SIDE_METRICS)
    for k in SIDE_NAMES:
        fit["unit_cost"][k] = 0.0
        remote_priced.pop(k, None)
    unmeasured = [k for k, v in fit["unit_cost"].items() if v is None and k not in remote_priced]
    units = {k: (remote_priced[k] if k in remote_priced else
                 default.unit_cost[k] if v is None else v) for k, v in fit["unit_cost"].items()}
    per_wl = _per_workload(runs, times, fit["predicted"], n_ev, totals, workloads)
    cv = np.array([w["cv_rel_error"] for w in per_wl])
    report = {"engine": engine, "clock": "thread CPU time, min of repeats",
              "r2": fit["r2"], "chunk_rel_rms": fit["chunk_rel_rms"],
              "chunk_rel_max": fit["chunk_rel_max"],
              "workload_rel_error_max": float(max(abs(w["rel_error"]) for w in per_wl)),
              "workload_cv_rel_error_max": float(np.nanmax(np.abs(cv))) if cv.size else None,
              "call_overhead": fit["call_overhead"],
              "base_cost": fit["base_cost"], "unit_cost": units, "unmeasured": unmeasured,
              "remote_priced": remote_priced, "side_metrics_zero": list(SIDE_NAMES),
              "remote_r2": rfit["r2"] if rfit else None,
              "remote_chunk_rel_rms": rfit["chunk_rel_rms"] if rfit else None,
              "workloads": per_wl, "n_runs": len(runs), "quick": bool(quick),
              "seeds": [int(s) for s in seeds], "out_path": str(out_path)}
    meta = {"calibrated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "engine": engine, "machine": _machine(),
            "python": platform.python_version(), "r2": float(fit["r2"]),
            "chunk_rel_rms": float(fit["chunk_rel_rms"]),
            "call_overhead_s": float(fit["call_overhead"]), "unmeasured": unmeasured,
            "remote_priced": sorted(remote_priced),
            "workload_rel_error": [float(w["rel_error"]) for w in per_wl],
            "workload_cv_rel_error": [float(w["cv_rel_error"]) for w in per_wl]}
    profile = CostProfile(unit_cost=units, base_cost=fit["base_cost"], name="calibrated",
                          description=f"fitted to the {engine} engine on this machine by "
                                      f"cepsim calibrate (see meta)", meta=meta,
                          source=str(out_path))
    save_profile(profile, Path(out_path))
    return profile, report


def _machine() -> str:
    """CPU model (from /proc/cpuinfo when available), architecture and core count."""
    model = platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model} {platform.machine()} x{os.cpu_count()}".strip()

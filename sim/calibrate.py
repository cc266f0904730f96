"""Calibrate a cost profile against this machine's eager engine (DESIGN section 4).

Entry point for ``cepsim calibrate``::

    calibrate(out_path=None, quick=False, seeds=(1, 2, 3), engine="eager", repeats=3)
        -> (CostProfile, report: dict)

``out_path=None`` writes ``profiles/calibrated.toml`` under the current directory (the
report's ``out_path`` says where).  ``quick`` uses shorter chunks (seconds, not minutes).

Measurement scheme.  For every seeded synthetic workload (different patterns, windows and
type mixes, so the counter columns vary independently) the stream is cut into chunks of
*different* lengths.  Each chunk is run as a stream of its own (``stream.slice``) through
``engines.registry.run_engine(engine, ...)``: the wall time of that call (minimum of
``repeats`` runs, after one untimed run that compiles and warms caches) is paired with the
counter totals *of that same run*, so work and time always describe the same computation
(the window state lost at the chunk boundary changes both consistently).  The model
fitted is::

    wall_time(chunk) = call_overhead + n_events * base_cost + sum_k total_k * unit_cost_k

by non-negative least squares (``scipy.optimize.nnls``) on column-scaled data.
``call_overhead`` (engine dispatch, allocation per call) has no place in a per-event service
time: it is reported, not written.  Counters that never occur in the calibration runs (for
the eager engine: join probes, plan generations, decision checks, remote fetches) cannot be
measured; their unit costs are copied from the default profile and listed in the report.
The profile (with the report in ``[meta]``) is written atomically.  The report gives R^2 of
the fit and, per workload, the relative error of the predicted total time.
"""
from __future__ import annotations

import datetime as _dt
import os
import platform
import time
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from engines.counters import COUNT_COLUMNS, COUNTER_NAMES
from sim.costmodel import COUNT_NAMES, CostProfile, load_profile, save_profile

# (pattern text, number of types) per workload; {w} = count window.
WORKLOADS = (
    ("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN {w} events", 3, 10),
    ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN {w} events", 4, 30),
    ("PATTERN SEQ(A a, B b, C c) WITHIN {w} events", 3, 15),
    ("PATTERN SEQ(A a, B b, C c, D d) WHERE a.x > 0.5 AND d.x < a.x WITHIN {w} events", 5, 40),
)


def fit_profile(totals: np.ndarray, n_events: np.ndarray, times: np.ndarray,
                names: tuple[str, ...] = COUNT_NAMES) -> dict:
    """NNLS fit of ``times ~ overhead + n_events*base + totals @ units``.

    ``totals``: float ``[m, len(names)]`` counter totals per timed run, ``n_events``: ``[m]``,
    ``times``: ``[m]`` seconds.  Columns that are zero in every run are left out (``None`` in
    the result).  Returns ``{"unit_cost": {name: float|None}, "base_cost", "call_overhead",
    "r2", "predicted"}``.
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
    units: dict[str, float | None] = {name: None for name in names}
    for k, j in enumerate(used):
        units[names[j]] = float(coef[2 + k])
    return {"unit_cost": units, "base_cost": float(coef[1]), "call_overhead": float(coef[0]),
            "r2": 1 - ss_res / ss_tot if ss_tot > 0 else float("nan"), "predicted": pred}


def _time_call(fn, repeats: int) -> tuple[float, object]:
    best, res = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t0)
    return best, res


def measure(seeds=(1, 2, 3), quick: bool = False, engine: str = "eager",
            repeats: int = 3) -> list[dict]:
    """Timed runs: one dict per chunk (``workload``, ``seed``, ``n_events``, ``time``,
    ``totals``)."""
    from engines.registry import run_engine
    from sim.scenarios.basic import engine_program, synthetic_stream

    sizes = (1000, 2000, 4000) if quick else (5000, 10000, 20000, 40000)
    runs: list[dict] = []
    for wi, (text, n_types, window) in enumerate(WORKLOADS):
        for seed in seeds:
            stream = synthetic_stream(sum(sizes), int(seed) * 1000 + wi, n_types=n_types)
            program = engine_program(stream, pattern=text.format(w=window))
            run_engine(engine, program, stream.slice(0, min(500, len(stream))))  # compile/warm
            pos = 0
            for size in sizes:
                chunk = stream.slice(pos, pos + size)
                pos += size
                t, res = _time_call(lambda: run_engine(engine, program, chunk), repeats)
                c = np.asarray(res.counters)[:size]
                runs.append({"workload": wi, "seed": int(seed), "n_events": size, "time": t,
                             "totals": c[:, list(COUNT_COLUMNS)].sum(axis=0)})
    return runs


DEFAULT_OUT = Path("profiles") / "calibrated.toml"


def calibrate(out_path: str | os.PathLike | None = None, quick: bool = False, seeds=(1, 2, 3),
              engine: str = "eager", repeats: int = 3) -> tuple[CostProfile, dict]:
    """Measure ``engine`` on this machine, fit unit costs, write the profile to ``out_path``.

    Returns the profile and a report: ``r2``, ``call_overhead`` (s), ``base_cost``,
    ``unit_cost``, ``unmeasured`` (counters copied from the default profile), ``workloads``
    (per workload: events, measured and predicted seconds, relative error), ``n_runs``.
    """
    out_path = Path(out_path) if out_path is not None else DEFAULT_OUT
    runs = measure(seeds=seeds, quick=quick, engine=engine, repeats=repeats)
    totals = np.array([r["totals"] for r in runs], dtype=np.float64)
    n_ev = np.array([r["n_events"] for r in runs], dtype=np.float64)
    times = np.array([r["time"] for r in runs])
    fit = fit_profile(totals, n_ev, times)
    default = load_profile(None)
    unmeasured = [k for k, v in fit["unit_cost"].items() if v is None]
    units = {k: (default.unit_cost[k] if v is None else v) for k, v in fit["unit_cost"].items()}
    per_wl = []
    wl_ids = np.array([r["workload"] for r in runs])
    for wi in sorted(set(wl_ids.tolist())):
        m = wl_ids == wi
        meas, pred = float(times[m].sum()), float(fit["predicted"][m].sum())
        per_wl.append({"workload": WORKLOADS[wi][0].format(w=WORKLOADS[wi][2]),
                       "events": int(n_ev[m].sum()), "measured_s": meas, "predicted_s": pred,
                       "rel_error": pred / meas - 1})
    report = {"engine": engine, "r2": fit["r2"], "call_overhead": fit["call_overhead"],
              "base_cost": fit["base_cost"], "unit_cost": units, "unmeasured": unmeasured,
              "workloads": per_wl, "n_runs": len(runs), "quick": bool(quick),
              "seeds": [int(s) for s in seeds], "out_path": str(out_path)}
    meta = {"calibrated": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "engine": engine, "machine": f"{platform.machine()} {platform.processor()}".strip(),
            "python": platform.python_version(), "r2": float(fit["r2"]),
            "call_overhead_s": float(fit["call_overhead"]), "unmeasured": unmeasured,
            "workload_rel_error": [float(w["rel_error"]) for w in per_wl]}
    profile = CostProfile(unit_cost=units, base_cost=fit["base_cost"], name="calibrated",
                          description=f"fitted to the {engine} engine on this machine by "
                                      f"cepsim calibrate (see meta)", meta=meta,
                          source=str(out_path))
    save_profile(profile, Path(out_path))
    return profile, report

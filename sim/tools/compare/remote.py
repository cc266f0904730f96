"""``cepsim compare`` for patterns with ``REMOTE[...]`` data: the EIRES strategies (SIGMOD'21).

Their service time depends on virtual time (a fetch blocks the server until it completes, the
cache fills as time passes), so there is no counters-then-queue split: the remote kernel
(``engines.remote.kernel.run_remote``) runs its own FIFO queue in virtual time, once per rate
with the Poisson arrivals of that rate (the same arrivals for every strategy) and once with
every event at t = 0 (saturated) for the largest stable rate (events / busy time) and the work
per event.  Match latency = emission time - arrival of the match's last event, as in
``sim/studies/eires/scenario.py``'s ``arr_lat``.  The SimPy check replays one run's trace of store
interactions in SimPy (``sim.core.remote_queue``) and compares the emission times.
"""
from __future__ import annotations

import math

import numpy as np

from engines.errors import CapacityError, CepsimInputError
from sim.tools.compare.model import (SIMPY_CHECK_EVENTS, SIMPY_TOLERANCE, Kept, Run, auto_rates,
                                     batch_figures, check_same_matches, finish, fmt_rate,
                                     match_digest, poisson, refusal, stage)

TRACE_CAP = 4_000_000    # trace records for the SimPy check (SIMPY_CHECK_EVENTS events)


def _metrics(res, arr: np.ndarray, rate: float) -> tuple[dict, np.ndarray]:
    """The run's metrics at ``rate`` and its ranked figure per stream segment (the spread)."""
    from sim.core.metrics import latency_summary
    start, depart = np.asarray(res.info["start"]), np.asarray(res.info["depart"])
    svc = depart - start
    last = res.matches.last_event
    lat = np.asarray(res.info["emit_time"]) - arr[last] if len(last) else np.zeros(0)
    m = {"sim_path": "remote-kernel", "matches": int(len(last))}
    for k, v in latency_summary(lat).items():
        if k != "count":
            m[f"latency_{k}"] = v
    rho = rate * float(svc.mean()) if len(svc) else float("nan")
    m.update(offered_load=rho, stable=bool(rho < 1.0), sojourn_mean=float((depart - arr).mean()))
    return m, batch_figures(len(arr), last, lat, depart - arr)


def compare_remote(pattern: str, program, stream, eligible, ineligible, rates, prof, seed: int,
                   bar=None):
    """The EIRES strategies of ``eligible`` on ``program`` (see module docstring)."""
    from engines.registry import run_engine

    n = len(stream)
    unit, base = prof.unit_vector(), float(prof.base_cost)
    runs: list = []
    for s in eligible:
        r = Run(s.key, s.key, s.engine, {**dict(s.options), "seed": int(seed)})
        stage(bar, f"compare: running {r.spec} (saturated)")
        try:
            r.result = run_engine("remote", program, stream, arrivals=np.zeros(n),
                                  unit_cost=unit, base_cost=base, **r.options)
        except (CepsimInputError, CapacityError) as exc:
            ineligible.append((s.key, refusal(exc)))
            continue
        r.service = np.asarray(r.result.info["depart"]) - np.asarray(r.result.info["start"])
        r.digest = match_digest(r.result.matches)
        r.result = Kept.of(r.result)
        runs.append(r)
    if not runs:
        raise CepsimInputError("no EIRES strategy could run this pattern: " + "; ".join(
            f"{k}: {w}" for k, w in ineligible))
    check_same_matches(runs)
    if rates is None:
        rates = auto_rates([1.0 / float(r.service.mean()) for r in runs])
    for rate in rates:
        arr = poisson(n, rate, seed)
        for r in runs:
            stage(bar, f"compare: {r.spec} at {rate:g} ev/s")
            res = run_engine("remote", program, stream, arrivals=arr, unit_cost=unit,
                             base_cost=base, **r.options)
            r.per_rate[rate], r.batches[rate] = _metrics(res, arr, rate)
    simpy = simpy_check_remote(runs[0], program, stream, rates[len(rates) // 2], prof, seed)
    return finish(pattern, n, prof, rates, runs, ineligible, simpy)


def simpy_check_remote(run, program, stream, rate: float, prof, seed: int) -> str:
    """Replay ``run`` at ``rate`` in SimPy (``sim.core.remote_queue``); emission times must agree
    with the kernel's to 1e-9 relative."""
    from engines.remote.kernel import run_remote
    from sim.core.remote_queue import simulate_remote_simpy
    m = min(len(stream), SIMPY_CHECK_EVENTS)
    arr = poisson(len(stream), rate, seed)[:m]
    stream = stream.slice(0, m) if m < len(stream) else stream
    res = run_remote(program, stream, arrivals=arr, unit_cost=prof.unit_vector(),
                     base_cost=float(prof.base_cost), trace_cap=TRACE_CAP, **run.options)
    opts = {**dict(run.options)}
    ref = simulate_remote_simpy(arr, res.info["trace"], len(res.matches),
                                int(opts.get("workers", 5)), int(opts.get("seed", 0)),
                                float(opts.get("latency_unit_us", 10.0)))
    a, b = np.asarray(ref.emit_time), np.asarray(res.info["emit_time"])
    rel = float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))) if len(b) else 0.0
    if not math.isfinite(rel):
        rel = float("inf")
    text = (f"SimPy check: {run.label} at {fmt_rate(rate)} ev/s, first {m} events: emission "
            f"times of the {len(b)} matches agree with the remote kernel to {rel:.1e} relative")
    if not rel <= SIMPY_TOLERANCE:
        raise RuntimeError(text + f" (tolerance {SIMPY_TOLERANCE:g}: a bug in the kernel)")
    return text

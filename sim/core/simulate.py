"""The simulator facade: engine run -> cost model -> queue -> metrics (``docs/COST_MODEL.md``).

``simulate`` runs an engine once over the whole stream (engines are pure: their counters do
not depend on virtual time), turns each event's counter row into a service time with the
cost profile and queues the events at their virtual arrival times.

Latency definitions (``docs/ARCHITECTURE.md``, "The simulator"):

* match latency = ``depart[detect] - arrival[last_event]``: the match is emitted when the
  server finishes the event during whose processing it was found (``detect``); matches
  emitted at end-of-stream flush (``detect == n``) count as emitted when the last event
  departs;
* final-event latency (APAM) = ``depart[i] - arrival[i]`` for every event ``i`` that is the
  last event of at least one match (queue wait + its own service, merging included).

Path choice (``path="auto"``): the Lindley fast path whenever service times cannot depend on
timing; the choice is recorded in ``metrics["sim_path"]``.  Nothing is time dependent yet;
shedders / remote fetchers will pass ``time_dependent=True`` with their own ``service_fn`` to
force the SimPy path.  Both paths agree per event to 1e-9 relative
(``tests/test_simulate_engine.py`` with the eager engine's counters).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError
from sim.core.costmodel import CostProfile
from sim.core.fastpath import lindley
from sim.core.metrics import latency_summary, queue_metrics
from sim.core.queue import ServiceFn, simulate_simpy

PATHS = ("auto", "fast", "simpy")


@dataclass
class SimResult:
    """One simulated run.

    ``metrics``: flat dict (latency_*, final_latency_*, queue metrics, counter totals/peaks,
    ``matches``, ``sim_path``); ``match_latency``: float64 per match (engine order);
    ``match_detect_time``: float64 per match, the virtual time it was emitted
    (``depart[detect]``); ``final_events`` / ``final_latency``: the distinct last events of
    the matches (ascending) and their latency ``depart - arrival``; ``events``: dict of
    per-event arrays ``arrival``, ``start``, ``depart``, ``service`` (None unless
    ``keep_events``); ``engine_result``: the engine's result (None unless ``keep_events``).
    """

    metrics: dict
    match_latency: np.ndarray
    events: dict | None = None
    engine_result: object | None = field(default=None, repr=False)
    match_detect_time: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    final_events: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)
    final_latency: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)


def simulate(stream, program, engine: str, arrivals, profile: CostProfile, path: str = "auto",
             engine_options: dict | None = None, keep_events: bool = False,
             rate: float | None = None) -> SimResult:
    """Run ``engine`` on ``stream`` and queue its work at ``arrivals`` (virtual seconds).

    ``arrivals`` is a float64 array with one arrival per stream event (see ``sim.core.arrivals``);
    ``rate`` is their nominal rate λ, if any, for the ``offered_load`` column (else estimated).
    ``metrics["engine"]`` names the engine: a scenario that returns these metrics from a grid
    over ``engine`` must drop that key (``sim.api.metrics_row`` does).
    """
    from engines.registry import run_engine  # engines never import sim; import lazily

    n = len(stream)
    arr = np.asarray(arrivals, dtype=np.float64)
    if arr.shape != (n,):
        raise CepsimInputError(f"simulate: {arr.shape[0] if arr.ndim else 0} arrival times for a "
                               f"stream of {n} events; generate one arrival per event")
    res = run_engine(engine, program, stream, **(engine_options or {}))
    counters = np.asarray(res.counters)[:n] if n else np.zeros((0, C.N_COUNTERS), np.int64)
    out = simulate_counters(counters, arr, profile, path=path,
                            match_last_event=res.matches.last_event,
                            match_detect=res.matches.detect, keep_events=keep_events,
                            rate=rate)
    out.metrics["engine"] = engine
    if keep_events:
        out.engine_result = res
    return out


def simulate_counters(counters: np.ndarray, arrivals, profile: CostProfile, path: str = "auto",
                      match_last_event=None, match_detect=None, keep_events: bool = False,
                      time_dependent: bool = False,
                      service_fn: ServiceFn | None = None, rate: float | None = None) -> SimResult:
    """The queueing part of ``simulate`` given an engine's counter matrix ``int64[n, K]``.

    ``time_dependent`` marks runs whose service depends on virtual time (later: shedders,
    remote fetches); they need the SimPy path and may supply ``service_fn(i, now)``
    (default: the cost-model service time of event ``i``).  ``rate``: the nominal arrival rate
    λ for ``metrics["offered_load"]`` (ρ = λ·E[S]; estimated from ``arrivals`` when None).
    """
    if path not in PATHS:
        raise CepsimInputError(f"simulate: path must be one of {PATHS}, got {path!r}")
    counters = np.asarray(counters)
    arr = np.ascontiguousarray(arrivals, dtype=np.float64)
    n = int(arr.shape[0])
    if counters.ndim != 2 or counters.shape[0] != n:
        raise CepsimInputError(f"simulate: counters has shape {counters.shape} but there are {n} "
                               f"arrivals; one counter row per event is required")
    if n > 1 and np.any(np.diff(arr) < 0):
        raise CepsimInputError("simulate: arrival times must be non-decreasing")
    if time_dependent and path == "fast":
        raise CepsimInputError("simulate: path='fast' cannot model time-dependent service "
                               "(shedding / remote fetches); use path='auto' or 'simpy'")
    if service_fn is not None and not time_dependent:
        raise CepsimInputError("simulate: a custom service_fn needs time_dependent=True")
    chosen = "simpy" if (path == "simpy" or time_dependent) else "fast"

    service = profile.service_times(counters) if n else np.zeros(0)
    if chosen == "fast":
        start, depart = lindley(arr, service)
    else:
        if service_fn is None:
            svc = service.tolist()

            def service_fn(i: int, now: float) -> float:  # noqa: ARG001 - hook signature
                return svc[i]
            start, depart = simulate_simpy(arr, service_fn, n)
        else:
            realised = np.empty(n, dtype=np.float64)
            user_fn = service_fn

            def recording(i: int, now: float) -> float:
                s = float(user_fn(i, now))
                realised[i] = s
                return s
            start, depart = simulate_simpy(arr, recording, n)
            service = realised

    metrics: dict = {"sim_path": chosen}
    metrics.update(queue_metrics(arr, start, depart, service, rate=rate))
    metrics.update(C.summarize(counters) if n else
                   C.summarize(np.zeros((0, C.N_COUNTERS), np.int64)))

    if match_last_event is None:
        match_last_event = np.zeros(0, dtype=np.int64)
        match_detect = np.zeros(0, dtype=np.int64)
    last = np.asarray(match_last_event, dtype=np.int64)
    det = np.asarray(match_detect if match_detect is not None else last, dtype=np.int64)
    if last.shape != det.shape:
        raise CepsimInputError("simulate: match_last_event and match_detect differ in length")
    if last.size and (last.min() < 0 or last.max() >= n or det.min() < 0 or det.max() > n
                      or np.any(det < last)):
        raise CepsimInputError(f"simulate: match indices out of range for {n} events "
                               f"(need 0 <= last_event <= detect <= n)")
    if last.size:
        det_time = depart[np.minimum(det, n - 1)]
        match_latency = det_time - arr[last]
        finals = np.unique(last)
        final_latency = depart[finals] - arr[finals]
    else:
        det_time = np.zeros(0, dtype=np.float64)
        match_latency = np.zeros(0, dtype=np.float64)
        finals = np.zeros(0, dtype=np.int64)
        final_latency = match_latency
    metrics["matches"] = int(last.size)
    for k, v in latency_summary(match_latency).items():
        if k != "count":
            metrics[f"latency_{k}"] = v
    fl = latency_summary(final_latency)
    for k, v in fl.items():
        metrics[f"final_latency_{k}" if k != "count" else "final_events"] = v
    events = None
    if keep_events:
        events = {"arrival": arr, "start": start, "depart": depart, "service": service}
    return SimResult(metrics=metrics, match_latency=match_latency, events=events,
                     match_detect_time=det_time, final_events=finals,
                     final_latency=final_latency)

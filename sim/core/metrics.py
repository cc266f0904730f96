"""Latency and queue summaries (the result columns of ``docs/EXPERIMENTS.md``).

``latency_summary`` gives the latency statistics every result row carries;
``queue_metrics`` summarises one run of the FIFO server.  Both are NaN-safe for empty input
(an experiment point with no match still yields a row).
"""
from __future__ import annotations

import numpy as np

PERCENTILES = (5, 25, 50, 75, 95, 99)


def latency_summary(values) -> dict[str, float]:
    """``mean``, ``p5`` … ``p99`` (linear interpolation) and ``count`` of finite ``values``.

    NaNs are ignored; with nothing left every statistic is NaN and ``count`` is 0.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[~np.isnan(v)]
    out: dict[str, float] = {}
    if v.size == 0:
        out["mean"] = float("nan")
        for p in PERCENTILES:
            out[f"p{p}"] = float("nan")
    else:
        out["mean"] = float(v.mean())
        qs = np.percentile(v, PERCENTILES)
        for p, q in zip(PERCENTILES, qs):
            out[f"p{p}"] = float(q)
    out["count"] = int(v.size)
    return out


def number_in_system_at_arrivals(arrivals: np.ndarray, depart: np.ndarray) -> np.ndarray:
    """Exact number of events in the system (waiting + in service) just after each arrival.

    FIFO departures are non-decreasing, so the events that left by ``a_i`` (a departure at the
    same instant counts as gone) are a prefix of the departure array: ``k_i =
    searchsorted(depart, a_i, 'right')``; of those only the ones before ``i`` matter, hence
    ``N_i = i + 1 - min(k_i, i)``.  The queue only grows at arrivals, so its peak is
    ``max_i N_i``.
    """
    a = np.asarray(arrivals, dtype=np.float64)
    d = np.asarray(depart, dtype=np.float64)
    idx = np.arange(a.shape[0], dtype=np.int64)
    k = np.searchsorted(d, a, side="right")
    return idx + 1 - np.minimum(k, idx)


def offered_load(arrivals, service, rate: float | None = None) -> float:
    """Offered load ρ = λ·E[S] of one run.

    ``rate`` is the nominal arrival rate λ (events per virtual second) when the arrival process
    has one (Poisson at λ); without it λ is estimated from the arrivals as
    ``(n - 1) / (a[n-1] - a[0])`` (replayed timestamps, piecewise rates).  ρ ≥ 1 means the
    server cannot keep up: the queue grows with the stream, so the mean latency of such a run
    depends on the stream length rather than on the strategy alone.  NaN for fewer than two
    events without ``rate``; ``inf`` when all arrivals coincide.

    >>> import numpy as np
    >>> offered_load(np.array([0.0, 1.0, 2.0]), np.array([0.5, 0.5, 0.5]))
    0.5
    >>> offered_load(np.array([0.0, 1.0, 2.0]), np.array([0.5, 0.5, 0.5]), rate=3.0)
    1.5
    """
    sv = np.asarray(service, dtype=np.float64)
    if sv.size == 0:
        return float("nan")
    es = float(sv.mean())
    if rate is not None:
        return float(rate) * es
    a = np.asarray(arrivals, dtype=np.float64)
    if a.size < 2:
        return float("nan")
    span = float(a[-1] - a[0])
    if span <= 0:
        return float("inf")
    return (a.size - 1) / span * es


def queue_metrics(arrivals, start, depart, service, rate: float | None = None) -> dict[str, float]:
    """Throughput, utilisation, offered load, peak number in system and mean wait of one run.

    * ``throughput``: events per virtual second of busy server (= 1 / mean service);
    * ``utilisation``: busy time / makespan (first arrival to last departure);
    * ``queue_peak``: peak number in system (waiting + in service), exact;
    * ``wait_mean``: mean queue wait ``start - arrival``; ``sojourn_mean``: ``depart - arrival``;
    * ``offered_load``: ρ = λ·E[S] (see ``offered_load``; ``rate`` = nominal λ if known);
      unlike ``utilisation`` it exceeds 1 for an overloaded run;
    * ``stable``: ``offered_load < 1`` (False for an overloaded point, whose latencies grow
      with the stream length; ``cepsim check`` and the figures warn about such points);
    * ``makespan``, ``busy_time``, ``n_events``.
    """
    a = np.asarray(arrivals, dtype=np.float64)
    st = np.asarray(start, dtype=np.float64)
    dp = np.asarray(depart, dtype=np.float64)
    sv = np.asarray(service, dtype=np.float64)
    n = int(a.shape[0])
    nan = float("nan")
    if n == 0:
        return {"n_events": 0, "throughput": nan, "utilisation": nan, "queue_peak": 0,
                "wait_mean": nan, "sojourn_mean": nan, "makespan": 0.0, "busy_time": 0.0,
                "offered_load": nan, "stable": True}
    busy = float(sv.sum())
    makespan = float(dp[-1] - a[0])
    rho = offered_load(a, sv, rate)
    return {
        "n_events": n,
        "throughput": n / busy if busy > 0 else float("inf"),
        "utilisation": busy / makespan if makespan > 0 else nan,
        "queue_peak": int(number_in_system_at_arrivals(a, dp).max()),
        "wait_mean": float((st - a).mean()),
        "sojourn_mean": float((dp - a).mean()),
        "makespan": makespan,
        "busy_time": busy,
        "offered_load": rho,
        "stable": bool(rho < 1.0) if rho == rho else True,
    }


RESERVED_COLUMNS = ("seed", "rep", "point_id", "error", "wall_s")


def metrics_row(metrics: dict, params: dict, prefix: str = "sim_") -> dict:
    """A scenario's return value from ``metrics``: names that are also parameters (or reserved
    result columns) get ``prefix``, so they can never overwrite the point's identity.

    >>> metrics_row({"engine": "eager", "n_events": 3, "latency_mean": 0.5},
    ...             {"engine": "eager", "rate": 10})
    {'sim_engine': 'eager', 'n_events': 3, 'latency_mean': 0.5}
    """
    return {(prefix + k if (k in params or k in RESERVED_COLUMNS) else k): v
            for k, v in metrics.items()}

"""APAM-R: the APAM plan choice priced by replaying measured service times (beyond the paper).

The paper's optimizer (CIKM'16 section 4, Eqs. 2-5) and ``apam-x`` price a plan's queueing
delay with the M/G/1 (Pollaczek-Khinchine) formula, which assumes independent service times.
On the section 6.1 stream they are not independent: an event's service time depends on the
partial matches alive in its 2000-event window, so consecutive service times are correlated
(autocorrelation about 0.2 up to lags near the window length, about 0 at twice it) and the
queue is locally overloaded where the window is rich; the simulated wait is many times the
M/G/1 wait of the same service times, while the same service times shuffled give the M/G/1
wait (``shuffle_report``).

``apam-r`` keeps the paper's candidate plans (section 4.3: the optimal matching order split
after its first k variables) and prices each one by what it measured: the per-event service
times of the candidate over the warm-up prefix (its counters priced at the unit costs),
queued by the Lindley recursion (FIFO single server, ``lindley``) behind Poisson arrivals at
the target rate; the predicted latency is the mean departure - arrival of the true final
events of the prefix (section 6.1's metric).  The candidate with the lowest predicted latency
is selected (ties: the larger eager group).  Not in the paper: the paper has no replay model.

Also here, the measurements that state the cause: ``autocorrelation`` (service times by lag)
and ``shuffle_report`` (the wait of the same service times in stream order, shuffled event by
event, shuffled by blocks of the window length, and the Pollaczek-Khinchine value).

Unit costs arrive as floats (seconds) so ``engines/`` never imports ``sim/``; ``lindley``
(``engines.queueing``) is the simulator's own recursion.
"""
from __future__ import annotations

import math

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError
from engines.planners.apam import candidate_plans, optimal_order
from engines.planners.apam_model import plan_text
from engines.queueing import lindley


def service_times(counters: np.ndarray, costs: dict) -> np.ndarray:
    """Per-event service time (seconds) of an engine's counter matrix at the APAM unit costs:
    ``base + t_pe·pred_eval + t_seq·search_cmp + t_rc·(pm_created + match_emit) +
    t_bi·buf_insert + t_iw·instance_work`` (``t_seq`` None or absent: ``t_pe``; ``t_iw``
    absent: 0), the pricing of
    ``sim.studies.apam.scenario.profile_for``; or, when ``costs`` has ``unit_vector`` (seconds
    per counter, ``N_COUNTERS`` long, e.g. a cost profile's), ``base + counters @ unit_vector``."""
    c = np.asarray(counters)
    if c.ndim != 2 or c.shape[1] != C.N_COUNTERS:
        raise CepsimInputError(f"apam-r: counters must have shape (n, {C.N_COUNTERS}), got "
                               f"{c.shape}")
    if costs.get("unit_vector") is not None:
        unit = np.asarray(costs["unit_vector"], dtype=np.float64)
        if unit.shape != (C.N_COUNTERS,):
            raise CepsimInputError(f"apam-r: unit_vector must have {C.N_COUNTERS} entries, got "
                                   f"shape {unit.shape}")
    else:
        t_seq = costs.get("t_seq")
        t_seq = float(costs["t_pe"]) if t_seq is None else float(t_seq)
        unit = np.zeros(C.N_COUNTERS)
        unit[C.PRED_EVAL] = float(costs["t_pe"])
        unit[C.SEARCH_CMP] = t_seq
        unit[C.PM_CREATED] = float(costs["t_rc"])
        unit[C.MATCH_EMIT] = float(costs["t_rc"])
        unit[C.BUF_INSERT] = float(costs["t_bi"])
        unit[C.INSTANCE_WORK] = float(costs.get("t_iw", 0.0))
    out = c.astype(np.float64) @ unit + float(costs["base"])
    if not np.all(out >= 0):
        raise CepsimInputError("apam-r: unit costs must give non-negative service times")
    return np.ascontiguousarray(out)


def poisson_arrivals(n: int, rate: float, seed: int) -> np.ndarray:
    """``n`` Poisson arrival times at ``rate`` events/s (first at 0), from ``seed``."""
    if not (rate > 0 and math.isfinite(rate)):
        raise CepsimInputError(f"apam-r: the target rate must be a finite number > 0 events/s, "
                               f"got {rate}")
    gaps = np.random.default_rng(seed).exponential(1.0 / rate, n)
    gaps[0] = 0.0
    return np.cumsum(gaps)


def predict_r(service: np.ndarray, finals: np.ndarray, rate: float, seed: int = 0,
              skip: int = 0, arrivals: np.ndarray | None = None) -> dict:
    """Replay one candidate: ``service`` (its measured per-event service times over the
    warm-up prefix, seconds) queued behind ``arrivals`` (default: Poisson at ``rate`` from
    ``seed``) by the Lindley recursion.  ``finals``: the prefix's true final events (indices);
    those at or after ``skip`` are measured.  Returns the keys of
    ``engines.planners.apam.predict``: ``e_l`` (mean latency of the measured true final
    events), ``e_qwt``, ``e_st_fe``, ``e_st``, ``mu``, ``rho`` (rate x mean service), ``t_m``
    (NaN: no merge model), ``n_measured``."""
    s = np.ascontiguousarray(service, dtype=np.float64)
    n = s.shape[0]
    if n == 0:
        raise CepsimInputError("apam-r: no warm-up service times to replay")
    a = poisson_arrivals(n, rate, seed) if arrivals is None else np.asarray(arrivals, float)
    if a.shape != s.shape:
        raise CepsimInputError(f"apam-r: {a.shape[0]} arrivals for {n} service times")
    start, depart = lindley(a, s)
    f = np.asarray(finals, dtype=np.int64)
    f = f[(f >= int(skip)) & (f < n)]
    e_st = float(s.mean())
    mu = 1.0 / e_st if e_st > 0 else math.inf
    if f.size:
        e_l = float((depart[f] - a[f]).mean())
        e_qwt = float((start[f] - a[f]).mean())
        e_st_fe = float(s[f].mean())
    else:          # no true final event measured: no latency to pay (a plan is as good as any)
        e_l = e_qwt = e_st_fe = math.nan
    return {"e_l": e_l, "e_qwt": e_qwt, "e_st_fe": e_st_fe, "e_st": e_st, "mu": mu,
            "rho": float(rate) * e_st, "t_m": math.nan, "n_measured": int(f.size)}


def select_r(preds: list[dict]) -> int:
    """Index of the candidate with the lowest replayed latency (ties: the larger ``k``); when
    no candidate measured a true final event, the largest μ."""
    ok = [i for i, p in enumerate(preds) if math.isfinite(p["e_l"])]
    if ok:
        return min(ok, key=lambda i: (preds[i]["e_l"], -preds[i]["k"]))
    return max(range(len(preds)), key=lambda i: (preds[i]["mu"], preds[i]["k"]))


def evaluate_candidates_r(st, measured: list[tuple[np.ndarray, np.ndarray]], rate: float,
                          seed: int = 0, skip: int = 0) -> dict:
    """``engines.planners.apam.evaluate_candidates`` for ``apam-r``: ``measured[k]`` = (warm-up
    service times, warm-up true final events) of candidate k of ``candidate_plans(st)``; every
    candidate replays the same arrivals (Poisson at ``rate`` from ``seed``)."""
    cands = candidate_plans(st)
    if len(measured) != len(cands):
        raise CepsimInputError(f"apam-r: {len(measured)} measured candidates for "
                               f"{len(cands)} plans")
    preds = []
    arr = None
    for (eeg, leg), (service, finals) in zip(cands, measured):
        if arr is None or arr.shape[0] != len(service):
            arr = poisson_arrivals(len(service), rate, seed)
        p = predict_r(service, finals, rate, skip=skip, arrivals=arr)
        preds.append({"plan": plan_text(st, eeg, leg), "k": len(eeg), **p})
    sel = select_r(preds)
    return {"plan": preds[sel]["plan"], "selected_k": preds[sel]["k"],
            "optimal_order": [st.names[s] for s in optimal_order(st)],
            "candidates": preds, "predicted": preds[sel], "arrival_rate": rate,
            "optimizer": "apam-r"}


def choose_plan_r(program, stream, st, costs: dict, seed: int = 0) -> dict:
    """Run every candidate on the warm-up prefix (the first ``st.n_warmup`` events) with the
    hybrid evaluator, price its counters (``service_times``) and replay them at ``st.rate``
    (``evaluate_candidates_r``; the first window's events are not measured)."""
    from engines.evaluators.hybrid import evaluate_plan

    w = int(st.n_warmup)
    prefix = stream.slice(0, w) if hasattr(stream, "slice") else stream[:w]
    measured = []
    for eeg, leg in candidate_plans(st):
        res = evaluate_plan(program, prefix, plan_text(st, eeg, leg), {}, 10**8, 10**8)
        measured.append((service_times(np.asarray(res.counters)[:w], costs),
                         np.unique(np.asarray(res.matches.detect)).astype(np.int64)))
    skip = int(min(st.win_events, w // 2)) if math.isfinite(st.win_events) else 0
    return evaluate_candidates_r(st, measured, st.rate, seed=seed, skip=skip)


# ----------------------------------------------------------------------------- the cause
def autocorrelation(service: np.ndarray, lags) -> dict:
    """{lag: Pearson correlation of ``service[i]`` and ``service[i + lag]``} (NaN when the
    series is shorter than lag + 2 or constant)."""
    s = np.asarray(service, dtype=np.float64)
    out = {}
    for lag in lags:
        lag = int(lag)
        if lag < 1:
            raise CepsimInputError(f"apam-r autocorrelation: lags must be >= 1, got {lag}")
        if s.shape[0] < lag + 2:
            out[lag] = math.nan
            continue
        x, y = s[:-lag], s[lag:]
        sx, sy = x.std(), y.std()
        out[lag] = (float(((x - x.mean()) * (y - y.mean())).mean() / (sx * sy))
                    if sx > 0 and sy > 0 else math.nan)
    return out


def pk_wait(service: np.ndarray, rate: float) -> float:
    """Pollaczek-Khinchine mean wait ``λ E[S²] / (2 (1 - ρ))`` of i.i.d. service times with the
    moments of ``service`` (infinite when ρ = λ E[S] >= 1)."""
    s = np.asarray(service, dtype=np.float64)
    rho = float(rate) * float(s.mean())
    if rho >= 1:
        return math.inf
    return float(rate) * float(np.mean(s * s)) / (2.0 * (1.0 - rho))


def shuffle_report(arrivals: np.ndarray, service: np.ndarray, rate: float, block: int,
                   measure_from: int = 0, seed: int = 0) -> dict:
    """Mean wait (start - arrival) of the events from ``measure_from`` on, for the same service
    times in three orders behind the same ``arrivals``: ``wait`` (stream order), ``wait_shuf``
    (shuffled event by event: independent service, the M/G/1 premise), ``wait_block``
    (consecutive blocks of ``block`` events shuffled as wholes: the correlation inside a
    window kept); and ``wait_pk`` (``pk_wait`` of the service times).  Shuffles from
    ``seed``."""
    s = np.ascontiguousarray(service, dtype=np.float64)
    a = np.ascontiguousarray(arrivals, dtype=np.float64)
    n = s.shape[0]
    if int(block) < 1:
        raise CepsimInputError(f"apam-r shuffle_report: block must be >= 1 events, got {block}")
    if not 0 <= int(measure_from) < n:
        raise CepsimInputError(f"apam-r shuffle_report: measure_from must lie in [0, {n}), got "
                               f"{measure_from}")
    rng = np.random.default_rng(seed)
    m = int(measure_from)

    def wait(svc):
        start, _ = lindley(a, svc)
        return float((start[m:] - a[m:]).mean())

    nb = -(-n // int(block))
    order = rng.permutation(nb)
    blocks = np.concatenate([np.arange(b * block, min((b + 1) * block, n)) for b in order])
    return {"wait": wait(s), "wait_shuf": wait(s[rng.permutation(n)]),
            "wait_block": wait(s[blocks]), "wait_pk": pk_wait(s, rate)}

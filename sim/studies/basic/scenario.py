"""Basic validation of the simulator against queueing theory (APAM CIKM'16 section 4.1).

(a) ``mg1_synthetic``: Poisson arrivals and i.i.d. service (exponential: M/M/1,
    deterministic: M/D/1) through the Lindley fast path; the simulated mean queue wait is
    compared with the closed forms ``Wq = rho / (mu - lambda)`` (M/M/1) and
    ``Wq = rho / (2 mu (1 - rho))`` (M/D/1).
(b) ``mg1_engine``: the eager NFA on a seeded stream; its counters give service times through
    a cost profile (the packaged default, or unit costs measured by ``cepsim calibrate``), and
    the simulated mean wait is compared with the Pollaczek-Khinchine prediction
    ``Wq = lambda E[S^2] / (2 (1 - rho))`` from the measured E[S] and E[S^2].  Engine service
    times are *not* independent (they depend on the live partial matches, which persist across
    events), which M/G/1 assumes; the deviation is reported with the serial correlation of the
    service times (lag-k autocorrelation, integrated autocorrelation time), not asserted.

Mean-wait confidence intervals use batch means: after discarding a warm-up prefix the waits
are cut into ``batches`` consecutive batches; the batch means are treated as i.i.d. and a
Student-t 95% interval is formed.  Waits of a queue near saturation are strongly correlated,
so batches must be long compared with the queue's relaxation time (~1/(1-sqrt(rho))^2 customers)
for the interval to be honest; the configs choose n accordingly.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from engines.errors import CepsimInputError
from sim.core.arrivals import poisson_arrivals
from sim.core.fastpath import lindley

DEFAULT_BATCHES = 32
DEFAULT_WARMUP = 0.01


# --- helpers -----------------------------------------------------------------------------
def batch_means_ci(values: np.ndarray, batches: int = DEFAULT_BATCHES,
                   level: float = 0.95) -> tuple[float, float]:
    """(mean, half-width) of a ``level`` CI for the mean of a correlated series by batch means."""
    v = np.asarray(values, dtype=np.float64)
    b = int(batches)
    if b < 2 or v.size < 2 * b:
        raise CepsimInputError(f"batch means: need at least {2 * b} values for {b} batches, got "
                               f"{v.size}; raise n_events or lower batches")
    m = v.size // b
    means = v[: m * b].reshape(b, m).mean(axis=1)
    half = stats.t.ppf(0.5 + level / 2, b - 1) * means.std(ddof=1) / np.sqrt(b)
    return float(means.mean()), float(half)


def _get(params: dict, key: str, default=None, kind=float):
    if key not in params:
        if default is None:
            raise CepsimInputError(f"scenario basic: missing parameter {key!r}; set it under "
                                   f"[params] or [grid]")
        return default
    try:
        return kind(params[key])
    except (TypeError, ValueError):
        raise CepsimInputError(f"scenario basic: parameter {key!r} must be {kind.__name__}, got "
                               f"{params[key]!r}") from None


def _rho(params: dict) -> float:
    rho = _get(params, "rho")
    if not 0 < rho < 1:
        raise CepsimInputError(f"scenario basic: rho must be in (0, 1) for a stable queue, got "
                               f"{rho}")
    return rho


def _wait_stats(arrivals, service, warmup: float, batches: int) -> dict:
    start, depart = lindley(arrivals, service)
    waits = start - arrivals
    skip = int(warmup * waits.size)
    mean, half = batch_means_ci(waits[skip:], batches)
    busy = float(service.sum())
    return {"wait_mean": mean, "wait_ci_half": half, "wait_ci_low": mean - half,
            "wait_ci_high": mean + half, "rho_measured": busy / float(depart[-1] - arrivals[0]),
            "n_used": int(waits.size - skip), "n_batches": int(batches)}


def mm1_wait(rho: float, mu: float = 1.0) -> float:
    """M/M/1 mean queue wait ``rho / (mu - lambda)``."""
    return rho / (mu - rho * mu)


def md1_wait(rho: float, mu: float = 1.0) -> float:
    """M/D/1 mean queue wait ``rho / (2 mu (1 - rho))``."""
    return rho / (2 * mu * (1 - rho))


def pk_wait(lam: float, es: float, es2: float) -> float:
    """Pollaczek-Khinchine mean queue wait ``lambda E[S^2] / (2 (1 - lambda E[S]))``."""
    rho = lam * es
    return lam * es2 / (2 * (1 - rho)) if rho < 1 else float("inf")


def _check_common(params: dict) -> None:
    """Parameter values both M/G/1 scenarios need (run for every grid point before any runs)."""
    _rho(params)
    n = _get(params, "n_events", kind=int)
    if n < 1:
        raise CepsimInputError(f"scenario basic: n_events must be >= 1, got {n}")
    batches = _get(params, "batches", DEFAULT_BATCHES, int)
    if batches < 2:
        raise CepsimInputError(f"scenario basic: batches must be >= 2 (a confidence interval "
                               f"needs two batch means), got {batches}")
    warmup = _get(params, "warmup", DEFAULT_WARMUP)
    if not 0 <= warmup < 1:
        raise CepsimInputError(f"scenario basic: warmup is the fraction of waits dropped, in "
                               f"[0, 1); got {warmup}")


def _check_synthetic(params: dict) -> None:
    _check_common(params)
    service_kind = str(params.get("service", "exp"))
    if service_kind not in ("exp", "det"):
        raise CepsimInputError(f"scenario mg1_synthetic: service must be 'exp' or 'det', got "
                               f"{service_kind!r}")


def _check_engine(params: dict) -> None:
    _check_common(params)
    window = _get(params, "window", 20, int)
    if window < 1:
        raise CepsimInputError(f"scenario mg1_engine: window must be >= 1 event, got {window}")


# --- (a) synthetic M/M/1 and M/D/1 --------------------------------------------------------
def mg1_synthetic(params: dict, seed: int) -> dict:
    """One M/M/1 or M/D/1 run (params: ``rho``, ``service`` exp|det, ``n_events``,
    optional ``batches``, ``warmup`` fraction).  Time unit: the mean service time (mu = 1)."""
    rho = _rho(params)
    n = _get(params, "n_events", kind=int)
    service_kind = str(params.get("service", "exp"))
    batches = _get(params, "batches", DEFAULT_BATCHES, int)
    warmup = _get(params, "warmup", DEFAULT_WARMUP)
    ss = np.random.SeedSequence(int(seed))
    s_arr, s_svc = (int(c.generate_state(1)[0]) for c in ss.spawn(2))
    arrivals = poisson_arrivals(n, rho, s_arr)             # lambda = rho * mu, mu = 1
    if service_kind == "exp":
        service = np.random.default_rng(s_svc).exponential(1.0, n)
        theory = mm1_wait(rho)
    elif service_kind == "det":
        service = np.ones(n)
        theory = md1_wait(rho)
    else:
        raise CepsimInputError(f"scenario mg1_synthetic: service must be 'exp' or 'det', got "
                               f"{service_kind!r}")
    row = _wait_stats(arrivals, service, warmup, batches)
    row["theory_wait"] = theory
    row["rel_error"] = row["wait_mean"] / theory - 1
    row["ci_rel_half"] = row["wait_ci_half"] / theory
    row["theory_in_ci"] = bool(row["wait_ci_low"] <= theory <= row["wait_ci_high"])
    return row


mg1_synthetic.check_params = _check_synthetic   # sim.experiments.runner runs it for every point first


# --- (b) eager engine service times ---------------------------------------------------------
ENGINE_PATTERN = ("PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x "
                  "WITHIN {window} events")


def synthetic_stream(n: int, seed: int, n_types: int = 4, rate: float = 1.0):
    """A seeded stream: Poisson(``rate``) timestamps, types A, B, C, ... uniform, attribute
    ``x`` uniform on [0, 1)."""
    from engines.stream import EventStream

    rng = np.random.default_rng(seed)
    ts = np.cumsum(rng.exponential(1.0 / rate, n))
    types = rng.integers(0, n_types, n).astype(np.int32)
    x = rng.random((n, 1))
    names = [chr(ord("A") + k) for k in range(n_types)]
    return EventStream.from_arrays(types, ts, x, names, ["x"], source=f"synthetic(seed={seed})")


def engine_program(stream, window: int = 20, pattern: str | None = None):
    """Compile the scenario's SEQ pattern (count window) against ``stream``'s schema."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern

    text = pattern if pattern is not None else ENGINE_PATTERN.format(window=int(window))
    return compile_pattern(parse_pattern(text, source="scenario basic"), stream.schema)


CALIBRATED_PREFIX = "cal_"


def engine_profile(params: dict):
    """The cost profile of an ``mg1_engine`` point: ``profile = "default"`` (the packaged
    profile), ``"calibrated"`` (unit costs given as ``cal_<counter>`` / ``cal_base_cost``
    params, copied from a ``cepsim calibrate`` run; counters not given cost 0) or a path to a
    profile TOML."""
    from sim.core.costmodel import COUNT_NAMES, CostProfile, load_profile

    name = str(params.get("profile", "default"))
    if name == "default":
        return load_profile(None)
    if name != "calibrated":
        return load_profile(name)
    known = {CALIBRATED_PREFIX + k for k in COUNT_NAMES} | {CALIBRATED_PREFIX + "base_cost"}
    bad = sorted(k for k in params if k.startswith(CALIBRATED_PREFIX) and k not in known)
    if bad:
        raise CepsimInputError(f"scenario basic: unknown calibrated cost parameter(s) {bad}; "
                               f"valid: {sorted(known)}")
    if CALIBRATED_PREFIX + "base_cost" not in params:
        raise CepsimInputError("scenario basic: profile = 'calibrated' needs cal_base_cost and "
                               "cal_<counter> parameters (from `cepsim calibrate`)")
    units = {k: _get(params, CALIBRATED_PREFIX + k, 0.0) for k in COUNT_NAMES}
    return CostProfile(unit_cost=units, base_cost=_get(params, CALIBRATED_PREFIX + "base_cost"),
                       name="calibrated", description="cal_* parameters of the config")


def autocorrelation(x: np.ndarray, lag: int) -> float:
    """Sample autocorrelation of ``x`` at ``lag`` (0 for a constant series).

    The two sums of products are exactly rounded (``math.fsum``), not ``np.dot``: BLAS splits a
    long dot product among its threads, so its last bits depended on the thread count, i.e. on
    the machine's cores (a one-thread BLAS changed ``service_lag*_corr`` of the 1M-event
    ``mg1_engine`` rows in the 14th digit, ``sim.cli.blas_threads``).  ``fsum`` gives the same double
    on every machine."""
    x = np.asarray(x, dtype=np.float64)
    c = x - x.mean()
    den = math.fsum(c * c)
    if den == 0.0 or lag >= x.size:
        return 0.0
    return math.fsum(c[:-lag] * c[lag:]) / den if lag > 0 else 1.0


def integrated_autocorrelation_time(x: np.ndarray, batches: int = DEFAULT_BATCHES) -> float:
    """``tau = m Var(batch means) / Var(x)`` with ``batches`` batches of length ``m``: 1 for an
    i.i.d. series, the factor by which correlation inflates the variance of a mean otherwise
    (``tau = 1 + 2 sum_k rho_k``)."""
    x = np.asarray(x, dtype=np.float64)
    m = x.size // batches
    var = float(x.var())
    if m < 2 or var == 0.0:
        return 1.0
    means = x[: m * batches].reshape(batches, m).mean(axis=1)
    return float(m * means.var(ddof=1) / var)


def mg1_engine(params: dict, seed: int) -> dict:
    """Eager NFA service times vs the Pollaczek-Khinchine mean wait (params: ``rho``,
    ``n_events``, optional ``window`` (events), ``engine`` (default eager), ``profile``
    (default | calibrated | path, see ``engine_profile``), ``batches``, ``warmup``).

    Row: the simulated mean wait with its batch-means CI, ``pk_wait`` and ``rel_deviation``,
    the control ``shuffled_*`` (the same service times in a random order: same marginal, no
    serial correlation, so it should agree with P-K),
    the service-time moments (``service_mean``, ``service_scv``) and their serial correlation
    (``service_lag{1,10,100}_corr``, ``service_iact``), plus the match / final-event latency
    summary of the same run (``sim.core.simulate``, fast path)."""
    from engines.registry import run_engine
    from sim.core.simulate import simulate

    rho = _rho(params)
    n = _get(params, "n_events", kind=int)
    window = _get(params, "window", 20, int)
    engine = str(params.get("engine", "eager"))
    batches = _get(params, "batches", DEFAULT_BATCHES, int)
    warmup = _get(params, "warmup", DEFAULT_WARMUP)
    profile = engine_profile(params)
    ss = np.random.SeedSequence(int(seed))
    s_stream, s_arr, s_shuf = (int(c.generate_state(1)[0]) for c in ss.spawn(3))
    stream = synthetic_stream(n, s_stream)
    program = engine_program(stream, window)
    # The count window makes the engine's work independent of the timestamps and arrivals, so
    # one engine run prices the service times and the arrival rate is set from their measured
    # mean to hit the target rho.  simulate() then runs the engine again with the arrivals.
    counters = np.asarray(run_engine(engine, program, stream).counters)[:n]
    service = profile.service_times(counters)
    es, es2 = float(service.mean()), float(np.mean(service ** 2))
    lam = rho / es
    arrivals = poisson_arrivals(n, lam, s_arr)
    sim = simulate(stream, program, engine, arrivals, profile, path="auto", keep_events=True)
    if not np.array_equal(sim.events["service"], service):
        raise RuntimeError("mg1_engine: engine counters differ between two runs of the same "
                           "stream (engines must be deterministic)")
    row = _wait_stats(arrivals, service, warmup, batches)
    pk = pk_wait(lam, es, es2)
    # control: the same service times in random order (same marginal, no serial correlation)
    shuffled = np.random.default_rng(s_shuf).permutation(service)
    ctrl = _wait_stats(arrivals, shuffled, warmup, batches)
    row.update({
        "pk_wait": pk, "rel_deviation": row["wait_mean"] / pk - 1,
        "shuffled_wait_mean": ctrl["wait_mean"], "shuffled_wait_ci_half": ctrl["wait_ci_half"],
        "shuffled_rel_deviation": ctrl["wait_mean"] / pk - 1,
        "service_mean": es, "service_scv": es2 / es ** 2 - 1,
        "service_lag1_corr": autocorrelation(service, 1),
        "service_lag10_corr": autocorrelation(service, 10),
        "service_lag100_corr": autocorrelation(service, 100),
        "service_iact": integrated_autocorrelation_time(service, batches),
        "arrival_rate": lam, "sim_path": sim.metrics["sim_path"],
        "matches": sim.metrics["matches"],
        "latency_mean": sim.metrics["latency_mean"], "latency_p50": sim.metrics["latency_p50"],
        "latency_p99": sim.metrics["latency_p99"],
        "final_latency_mean": sim.metrics["final_latency_mean"],
        "throughput": sim.metrics["throughput"], "utilisation": sim.metrics["utilisation"],
        "queue_peak": sim.metrics["queue_peak"],
        "peak_live_pm": sim.metrics["peak_live_pm"], "pred_eval": sim.metrics["pred_eval"],
        "edge_eval": sim.metrics["edge_eval"],
    })
    return row


mg1_engine.check_params = _check_engine       # sim.experiments.runner runs it for every point first

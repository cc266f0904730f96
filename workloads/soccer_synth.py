"""Seeded synthetic DEBS'13-like soccer stream for DARLING's pattern-length panel.

The bundled sample (``workloads/data/darling_soccer``) holds three sensors (goalkeeper 61,
goalkeeper 13, ball 8); patterns of length 2-8 need a goalkeeper and up to seven player sensors.
This generator emits sensor ``61`` (goalkeeper) and the player sensors ``PLAYER_IDS``, each at
the sample's player rate, with every attribute of the soccer schema following an AR(1) path
whose mean, standard deviation and lag-1 autocorrelation are fitted to the sample:

* rates: each sensor emits every ``dt`` seconds, ``dt`` = the mean inter-event gap of sensors 61
  and 13 in the sample (about 5 ms, 200 Hz), with a seeded phase per sensor;
* attributes: per attribute, ``(mu, sigma, rho)`` fitted to sensor 61 (the goalkeeper) and to
  sensor 13 (the template for players); the players' position means ``x``, ``y`` are drawn
  around the template's mean with the spread ``|mu_61 - mu_13|`` of the two sample sensors (so
  players stand apart as the two sample sensors do), every other attribute keeps the
  template's fit.

``continue_sample`` (DARLING's latency-cap experiment, ``sim.studies.darling.cap``) keeps the
sample's three sensors and makes it longer: the sample itself, then per sensor the same kind of
fitted path (``_fit_sensor`` on that sensor: its own rate and attribute fit), each starting from
the sensor's last sample event.

Nothing here is copied from the sample beyond those summary statistics; the sample is only read
to fit them (and, for ``continue_sample``, kept as the prefix).  Same ``seed`` => identical
stream.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.stream import EventStream
from workloads.loaders import SOCCER_ATTRS, load_soccer

SAMPLE = "workloads/data/darling_soccer/mini_soccer.txt.gz"
GOALKEEPER = "61"
TEMPLATE_PLAYER = "13"
PLAYER_IDS = ("13", "14", "97", "98", "47", "16", "49")
# emission-time jitter (fraction of dt): strictly periodic sensors in fixed phases would fix the
# order of the sensors inside every period, so a SEQ over them would match only in that order
JITTER = 0.5


def _fit_sensor(st: EventStream, name: str) -> tuple:
    """(mu, sigma, rho, mean gap) of one sensor's attributes in stream ``st``: per attribute
    the mean, standard deviation and lag-1 autocorrelation (clipped to [0, 0.9999]), and the
    mean inter-event gap of the sensor (seconds)."""
    code = st.schema.type_code(name)
    sel = st.types == code
    a = st.attrs[sel]
    mu = a.mean(0)
    sd = np.maximum(a.std(0), 1e-9)
    rho = np.array([np.corrcoef(a[1:, j], a[:-1, j])[0, 1] if sd[j] > 1e-9 else 0.0
                    for j in range(a.shape[1])])
    return mu, sd, np.clip(np.nan_to_num(rho), 0.0, 0.9999), np.diff(st.ts[sel]).mean()


def fit_sample(path: str = SAMPLE) -> dict:
    """(mu, sigma, rho) per attribute for the goalkeeper and the player template, and dt."""
    st = load_soccer(path)
    out = {}
    gaps = []
    for name in (GOALKEEPER, TEMPLATE_PLAYER):
        mu, sd, rho, gap = _fit_sensor(st, name)
        out[name] = (mu, sd, rho)
        gaps.append(gap)
    out["dt"] = float(np.mean(gaps))
    return out


def _ar1(rng, n, mu, sd, rho, x0: np.ndarray | None = None) -> np.ndarray:
    """n steps of the AR(1) path ``x[k] = mu + rho (x[k-1] - mu) + eps``, stationary
    standard deviation ``sd``; ``x0`` given: the path continues from the state ``x0`` (its first
    row is one step after ``x0``), else its first row is drawn from the stationary law."""
    x = np.empty((n, len(mu)))
    if x0 is None:
        x[0] = mu + sd * rng.standard_normal(len(mu))
    innov = sd * np.sqrt(1.0 - rho ** 2)
    eps = rng.standard_normal((n, len(mu))) * innov
    if x0 is not None and n:
        x[0] = mu + rho * (np.asarray(x0, dtype=np.float64) - mu) + eps[0]
    _ar1_steps(x, np.asarray(mu, np.float64), np.asarray(rho, np.float64), eps)
    return x


@njit(cache=True)
def _ar1_steps(x, mu, rho, eps):
    """``x[k] = mu + rho (x[k-1] - mu) + eps[k]`` for k >= 1, element by element: the same
    operations in the same order as the numpy row expression it replaces (no fast-math, so
    no fused multiply-add), hence the same bits; a Python loop over 4.2M rows took 8 s."""
    for k in range(1, x.shape[0]):
        for j in range(x.shape[1]):
            x[k, j] = mu[j] + rho[j] * (x[k - 1, j] - mu[j]) + eps[k, j]


def generate(n_events: int, seed: int = 1, n_players: int = len(PLAYER_IDS),
             fit: dict | None = None) -> EventStream:
    """``n_events`` events of the goalkeeper and ``n_players`` player sensors (module doc)."""
    fit = fit or fit_sample()
    rng = np.random.default_rng(seed)
    names = (GOALKEEPER,) + PLAYER_IDS[:n_players]
    k = len(names)
    per = int(np.ceil(n_events / k)) + 1
    dt = fit["dt"]
    mu_g, sd_g, rho_g = fit[GOALKEEPER]
    mu_p, sd_p, rho_p = fit[TEMPLATE_PLAYER]
    ix, iy = SOCCER_ATTRS.index("x"), SOCCER_ATTRS.index("y")
    spread = np.abs(mu_g - mu_p)
    types, ts, attrs = [], [], []
    for code, name in enumerate(names):
        if name == GOALKEEPER:
            mu, sd, rho = mu_g, sd_g, rho_g
        else:
            mu = mu_p.copy()
            mu[ix] += spread[ix] * rng.standard_normal()
            mu[iy] += spread[iy] * rng.standard_normal()
            sd, rho = sd_p, rho_p
        phase = rng.uniform(0, dt)
        ts.append(phase + dt * np.arange(per) + rng.normal(0, dt * JITTER, per))
        attrs.append(_ar1(rng, per, mu, sd, rho))
        types.append(np.full(per, code, dtype=np.int32))
    ts = np.concatenate(ts)
    idx = np.argsort(ts, kind="stable")[:n_events]
    t_sel = ts[idx]
    ty = np.concatenate(types)[idx]
    at = np.concatenate(attrs)[idx]
    return EventStream.from_arrays(ty, t_sel - t_sel[0], at, names, SOCCER_ATTRS,
                                   source=f"soccer_synth(seed={seed})")


def continue_sample(n_events: int, seed: int = 1, path: str = SAMPLE) -> EventStream:
    """The first ``n_events`` events of the sample followed by a seeded synthetic continuation
    fitted to it.

    ``n_events`` <= the sample's length: the sample's prefix, unchanged.  Longer: every sensor
    of the sample goes on at its own mean inter-event gap ``dt`` (with the emission jitter
    ``JITTER`` x dt of ``generate``; a stamp before the sample's last one is raised to it), its
    attributes an AR(1) path with the sensor's own (mu, sigma, rho) that continues from the
    sensor's last sample event; the sensors are merged in time order and cut at ``n_events``.
    """
    st = load_soccer(path)
    n0 = len(st)
    n_events = int(n_events)
    if n_events <= n0:
        return st if n_events == n0 else st.slice(0, max(n_events, 0))
    rng = np.random.default_rng(seed)
    names = st.schema.type_names
    t_end = float(st.ts[-1])
    fits = [_fit_sensor(st, name) for name in names]
    need = n_events - n0
    span = 1.02 * need / sum(1.0 / f[3] for f in fits)      # seconds the continuation covers
    types, ts, attrs = [], [], []
    for name, (mu, sd, rho, dt) in zip(names, fits):
        code = st.schema.type_code(name)
        sel = np.flatnonzero(st.types == code)
        t_last = float(st.ts[sel[-1]])
        k = int(np.ceil((t_end - t_last + span) / dt)) + 8
        t = t_last + dt * np.arange(1, k + 1) + rng.normal(0, dt * JITTER, k)
        ts.append(np.maximum(t, t_end))
        attrs.append(_ar1(rng, k, mu, sd, rho, x0=st.attrs[sel[-1]]))
        types.append(np.full(k, code, dtype=np.int32))
    ts_c = np.concatenate(ts)
    if ts_c.size < need:        # pragma: no cover - span has 2 % slack and 8 rows per sensor
        raise RuntimeError(f"continue_sample: generated {ts_c.size} < {need} events")
    idx = np.argsort(ts_c, kind="stable")[:need]
    return EventStream.from_arrays(np.concatenate([st.types, np.concatenate(types)[idx]]),
                                   np.concatenate([st.ts, ts_c[idx]]),
                                   np.concatenate([st.attrs, np.concatenate(attrs)[idx]]),
                                   names, st.schema.attr_names,
                                   source=f"soccer_continued(n={n_events}, seed={seed})")

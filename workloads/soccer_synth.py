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

Nothing here is copied from the sample beyond those summary statistics; the sample is only read
to fit them.  Same ``seed`` => identical stream.
"""
from __future__ import annotations

import numpy as np

from engines.stream import EventStream
from workloads.loaders import SOCCER_ATTRS, load_soccer

SAMPLE = "workloads/data/darling_soccer/mini_soccer.txt.gz"
GOALKEEPER = "61"
TEMPLATE_PLAYER = "13"
PLAYER_IDS = ("13", "14", "97", "98", "47", "16", "49")
# emission-time jitter (fraction of dt): strictly periodic sensors in fixed phases would fix the
# order of the sensors inside every period, so a SEQ over them would match only in that order
JITTER = 0.5


def fit_sample(path: str = SAMPLE) -> dict:
    """(mu, sigma, rho) per attribute for the goalkeeper and the player template, and dt."""
    st = load_soccer(path)
    out = {}
    gaps = []
    for name in (GOALKEEPER, TEMPLATE_PLAYER):
        code = st.schema.type_code(name)
        sel = st.types == code
        a = st.attrs[sel]
        mu = a.mean(0)
        sd = np.maximum(a.std(0), 1e-9)
        rho = np.array([np.corrcoef(a[1:, j], a[:-1, j])[0, 1] if sd[j] > 1e-9 else 0.0
                        for j in range(a.shape[1])])
        out[name] = (mu, sd, np.clip(np.nan_to_num(rho), 0.0, 0.9999))
        gaps.append(np.diff(st.ts[sel]).mean())
    out["dt"] = float(np.mean(gaps))
    return out


def _ar1(rng, n, mu, sd, rho) -> np.ndarray:
    x = np.empty((n, len(mu)))
    x[0] = mu + sd * rng.standard_normal(len(mu))
    innov = sd * np.sqrt(1.0 - rho ** 2)
    eps = rng.standard_normal((n, len(mu))) * innov
    for k in range(1, n):
        x[k] = mu + rho * (x[k - 1] - mu) + eps[k]
    return x


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

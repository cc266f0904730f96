"""Seeded NASDAQ-like per-minute stock stream for DARLING's stock panels (PVLDB'22 §5.1, Table 1).

The paper's stock data set is "a one-year period of updates to stock prices, covering over 2500
stock identifiers with prices updated on a per-minute basis (409,622,891 events). Each event
consists of a stock identifier (used as the event type), a timestamp, trading volume, and prices
at open, close, high, and low points" (§5.1).  cepsim cannot ship it; the NASDAQ files in
``/work/shared/data/opencep_nasdaq`` are one trading day (2008-02-01) of seven tickers, 3,661
rows, which cover neither the eight tickers of the authors' stock patterns nor a stream long
enough for the Fig. 6-9 panels (a 60-minute window over one day holds eight windows).  So
``stock_stream`` draws a seeded stand-in:

Taken from the authors' artifact (koralchapnik/vldb_submission):

* **Tickers**: the eight of the authors' stock patterns, in their order: ``GOOG, AAPL, MSFT,
  NFLX, INTC, YHOO, EBAY`` (``darling/patterns_examples.txt`` lines 282-420: ``SEQ(GOOG a, AAPL
  b, MSFT c, NFLX d, INTC e, YHOO f, EBAY g)``) and ``SIRI`` (the eighth ticker of the
  length-8 data file ``stock_AAPL_EBAY_GOOG_INTC_MSFT_NFLX_SIRI_YHOO.txt`` in
  ``darling/experiments/datasets/data_distributions.json``).  As in that file, the stream holds
  these tickers only; the paper's other ~2,490 tickers never match a pattern variable.
* **Levels**: each ticker's mean and standard deviation of ``open`` and of ``volume`` are the
  artifact's (``ARTIFACT_STATS``: the ``stock_AAPL_EBAY_GOOG_INTC_MSFT_NFLX_SIRI_YHOO.txt``
  entry of ``data_distributions.json``, measured by the authors on their files).

Measured on the NASDAQ sample files (``SAMPLE_CALIBRATION``; ``calibrate_on_sample``
recomputes it):

* **Report rate**: a ticker reports in a minute with probability ``p_report`` (median over the
  sample's seven tickers of the share of minutes between its first and last report with a
  report: 0.925; range 0.83-0.99).
* **Open dynamics**: ``log open`` is a stationary AR(1) (Ornstein-Uhlenbeck) process around the
  artifact's mean with the artifact's relative standard deviation as its stationary spread and a
  per-minute innovation of ``ret_sd`` (median per-minute log-return sd of ``open`` on the
  sample: 0.0020), so the level stays in the artifact's band over a long stream and moves at the
  sample's per-minute pace.
* **Volume**: log-normal with the artifact's mean and sd (moment-matched), its log an AR(1) with
  lag-1 autocorrelation ``vol_ac`` (median on the sample: 0.71).
* **High / low / close**: ``close = open * exp(N(0, ret_sd))``; high / low exceed max / min(open,
  close) by ``|N(0, hl_sd)|`` in log (``hl_sd`` = half the sample's median (high - low) / open,
  0.0027 / 2).

Invented: the minute clock runs on without overnight gaps (``ts = 60 * minute`` seconds, minute
0 = the stream's start); the tickers move independently (no market factor: the sample's one day
of seven tickers does not pin cross-ticker correlation); events of one minute share its timestamp
and appear in a seeded random order (as in the Metastock files, where they share the minute
stamp).
"""
from __future__ import annotations

import math

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

#: The authors' tickers in the order of their stock patterns (see module docstring).
TICKERS: tuple[str, ...] = ("GOOG", "AAPL", "MSFT", "NFLX", "INTC", "YHOO", "EBAY", "SIRI")

#: (open mean, open sd, volume mean, volume sd) per ticker: the artifact's
#: ``data_distributions.json`` entry ``stock_AAPL_EBAY_GOOG_INTC_MSFT_NFLX_SIRI_YHOO.txt``.
ARTIFACT_STATS: dict[str, tuple[float, float, float, float]] = {
    "AAPL": (130.846, 3.815, 93297.16, 92244.762),
    "EBAY": (28.321, 0.421, 48216.67, 84557.825),
    "GOOG": (506.132, 8.899, 26932.974, 28241.759),
    "INTC": (20.828, 0.638, 167691.182, 228839.895),
    "MSFT": (29.849, 0.781, 363416.749, 502990.26),
    "NFLX": (25.619, 0.499, 4420.243, 7438.497),
    "SIRI": (3.242, 0.069, 80292.442, 140957.976),
    "YHOO": (28.854, 0.466, 358885.941, 650307.766),
}

#: Medians over the seven tickers of the NASDAQ sample files (NASDAQ_MEDIUM.txt,
#: NASDAQ_AAPL_AMZN_GOOG.txt; ``calibrate_on_sample``).
SAMPLE_CALIBRATION: dict[str, float] = {"p_report": 0.925, "ret_sd": 0.0020, "vol_ac": 0.71,
                                        "hl_range": 0.0027}

ATTRS: tuple[str, ...] = ("open", "high", "low", "close", "volume")


def lognormal_params(mean: float, sd: float) -> tuple[float, float]:
    """(mu, sigma) of the log-normal with this mean and standard deviation."""
    if not mean > 0 or not sd >= 0:
        raise CepsimInputError(f"darling_stock: log-normal needs mean > 0 and sd >= 0, got "
                               f"{mean}, {sd}")
    s2 = math.log1p((sd / mean) ** 2)
    return math.log(mean) - s2 / 2.0, math.sqrt(s2)


def ar1_coefficient(stationary_sd: float, innovation_sd: float) -> float:
    """AR(1) coefficient phi with stationary sd ``stationary_sd`` given the innovation sd:
    ``stationary_sd^2 = innovation_sd^2 / (1 - phi^2)`` (0 when the innovation is the larger)."""
    if stationary_sd <= innovation_sd:
        return 0.0
    return math.sqrt(1.0 - (innovation_sd / stationary_sd) ** 2)


def _ar1(n: int, phi: float, sd: float, rng: np.random.Generator) -> np.ndarray:
    """Stationary zero-mean AR(1) path of length ``n`` with stationary sd ``sd``."""
    out = np.empty(n)
    eps = rng.standard_normal(n) * sd * math.sqrt(max(0.0, 1.0 - phi * phi))
    out[0] = rng.standard_normal() * sd
    for t in range(1, n):
        out[t] = phi * out[t - 1] + eps[t]
    return out


def stock_stream(n_events: int, seed: int, *, tickers: tuple[str, ...] = TICKERS,
                 p_report: float = SAMPLE_CALIBRATION["p_report"],
                 ret_sd: float = SAMPLE_CALIBRATION["ret_sd"],
                 vol_ac: float = SAMPLE_CALIBRATION["vol_ac"],
                 hl_range: float = SAMPLE_CALIBRATION["hl_range"]) -> EventStream:
    """``n_events`` per-minute updates of ``tickers`` (event type = ticker; attributes
    ``open, high, low, close, volume``; ``ts`` in seconds, ``60 * minute``), seeded by ``seed``
    (module docstring: what is taken from the artifact, measured on the sample, invented)."""
    n_events = int(n_events)
    if n_events < 1:
        raise CepsimInputError(f"darling_stock: n_events must be >= 1, got {n_events}")
    if not 0 < p_report <= 1:
        raise CepsimInputError(f"darling_stock: p_report must lie in (0, 1], got {p_report}")
    if not ret_sd > 0 or not 0 <= vol_ac < 1 or not hl_range >= 0:
        raise CepsimInputError("darling_stock: need ret_sd > 0, 0 <= vol_ac < 1, hl_range >= 0")
    unknown = [t for t in tickers if t not in ARTIFACT_STATS]
    if unknown or not tickers:
        raise CepsimInputError(f"darling_stock: unknown tickers {unknown}; use some of "
                               f"{list(ARTIFACT_STATS)}")
    rng = np.random.default_rng([int(seed), 55])
    k = len(tickers)
    n_min = int(n_events / (k * p_report) * 1.2) + 20
    log_open = np.empty((n_min, k))
    log_vol = np.empty((n_min, k))
    for i, t in enumerate(tickers):
        om, osd, vm, vsd = ARTIFACT_STATS[t]
        s_rel = osd / om
        phi = ar1_coefficient(s_rel, ret_sd)
        log_open[:, i] = math.log(om) + _ar1(n_min, phi, max(s_rel, ret_sd), rng)
        mu, sig = lognormal_params(vm, vsd)
        log_vol[:, i] = mu + _ar1(n_min, vol_ac, sig, rng)
    report = rng.random((n_min, k)) < p_report
    counts = report.sum(axis=1)
    cum = np.cumsum(counts)
    if cum[-1] < n_events:
        raise CepsimInputError("darling_stock: internal: too few minutes drawn")
    last = int(np.searchsorted(cum, n_events))            # minute holding event n_events - 1
    minute_of, ticker_of = [], []
    for m in range(last + 1):
        idx = np.flatnonzero(report[m])
        if idx.size:
            idx = idx[rng.permutation(idx.size)]
            minute_of.append(np.full(idx.size, m, dtype=np.int64))
            ticker_of.append(idx)
    mm = np.concatenate(minute_of)[:n_events]
    tk = np.concatenate(ticker_of)[:n_events]
    op = np.exp(log_open[mm, tk])
    cl = op * np.exp(rng.standard_normal(n_events) * ret_sd)
    hi = np.maximum(op, cl) * np.exp(np.abs(rng.standard_normal(n_events)) * hl_range / 2.0)
    lo = np.minimum(op, cl) * np.exp(-np.abs(rng.standard_normal(n_events)) * hl_range / 2.0)
    vol = np.round(np.exp(log_vol[mm, tk]))
    attrs = np.column_stack([op, hi, lo, cl, vol])
    return EventStream.from_arrays(tk.astype(np.int32), mm.astype(np.float64) * 60.0, attrs,
                                   tickers, ATTRS, source=f"darling_stock(seed={seed})")


def calibrate_on_sample(paths) -> dict[str, float]:
    """The medians of ``SAMPLE_CALIBRATION`` recomputed from Metastock files (``ticker,
    YYYYMMDDhhmm, open, high, low, close, volume``; duplicate rows of a minute dropped): per
    ticker the share of minutes between its first and last report that have one, the sd of the
    per-report log return of ``open``, the lag-1 autocorrelation of ``log volume`` and the mean
    (high - low) / open; the median of each over the tickers."""
    import pandas as pd
    frames = [pd.read_csv(p, header=None,
                          names=["t", "ts", "open", "high", "low", "close", "vol"]) for p in paths]
    d = pd.concat(frames)
    rows = []
    for _, g in d.groupby("t"):
        g = g.drop_duplicates("ts").sort_values("ts")
        if len(g) < 10:
            continue
        m = pd.to_datetime(g["ts"].astype(str), format="%Y%m%d%H%M")
        span = (m.max() - m.min()).total_seconds() / 60.0 + 1.0
        lv = np.log(g["vol"].to_numpy(dtype=float).clip(1))
        rows.append((len(g) / span, float(np.diff(np.log(g["open"].to_numpy(float))).std()),
                     float(np.corrcoef(lv[1:], lv[:-1])[0, 1]),
                     float(((g["high"] - g["low"]) / g["open"]).mean())))
    if not rows:
        raise CepsimInputError("darling_stock: no ticker with >= 10 reports in the files")
    a = np.median(np.array(rows), axis=0)
    return {"p_report": float(a[0]), "ret_sd": float(a[1]), "vol_ac": float(a[2]),
            "hl_range": float(a[3])}

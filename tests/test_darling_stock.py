"""DARLING's stock stand-in (workloads/darling_stock.py) and Table 1's stock queries
(sim/studies/darling/scenario.py ``stock_query_text``):

* the generator's stated properties on a seeded tiny stream (tickers, minute clock, one report
  per ticker per minute, report share, OHLC order, the open's per-minute pace, the volume's
  log-normal level and lag-1 autocorrelation), determinism, input errors;
* the calibration constants are the medians measured on the NASDAQ sample files;
* each stock query, written out by hand from Table 1 / the authors' lines, parses to the text the
  scenario builds, and the ``stepper`` (the shedding engine, every event stepped) finds exactly
  the matches of ``eager`` and of the oracle on a seeded stream.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from darling_query_checks import assert_negation_vetoes, assert_stepper_equals_eager_and_oracle
from sim.studies.darling.scenario import (STOCK_C, _program, query_text, stock_query_text,
                                          stock_tickers)
from workloads.darling_stock import (ARTIFACT_STATS, SAMPLE_CALIBRATION, TICKERS,
                                     ar1_coefficient, calibrate_on_sample, lognormal_params,
                                     stock_stream)

ROOT = Path(__file__).resolve().parents[1]
NASDAQ = ROOT / "workloads" / "data" / "opencep_nasdaq"


@pytest.fixture(scope="module")
def st():
    return stock_stream(6000, seed=3)


def _consecutive(st, code: int, col: int):
    """(value at minute t, value at minute t + 1) of one ticker over the minutes it reported
    in both."""
    m = st.types == code
    minute = (st.ts[m] / 60.0).astype(np.int64)
    v = st.attrs[m, col]
    nxt = np.flatnonzero(np.diff(minute) == 1)
    return v[nxt], v[nxt + 1]


def test_tickers_clock_and_one_report_per_minute(st):
    assert st.schema.type_names == TICKERS
    assert len(st) == 6000
    minute = st.ts / 60.0
    assert np.all(minute == np.round(minute)) and np.all(np.diff(st.ts) >= 0)
    pairs = minute.astype(np.int64) * 16 + st.types
    assert np.unique(pairs).size == len(st)          # no ticker twice in one minute


def test_report_share_is_p_report(st):
    m = st.ts / 60.0
    full = m < m[-1]                                  # the last minute may be cut short
    n_min = int(m[-1])                                # minutes 0 .. last-1, all complete
    share = full.sum() / (n_min * len(TICKERS))
    p = SAMPLE_CALIBRATION["p_report"]
    sd = math.sqrt(p * (1 - p) / (n_min * len(TICKERS)))
    assert abs(share - p) < 5 * sd


def test_ohlc_order_and_integer_volume(st):
    o, h, lo, c, v = (st.attrs[:, i] for i in range(5))
    assert np.all(h >= np.maximum(o, c)) and np.all(lo <= np.minimum(o, c))
    assert np.all(v >= 0) and np.all(v == np.round(v))


def test_open_moves_at_the_sample_pace(st):
    for k, t in enumerate(TICKERS):
        a, b = _consecutive(st, k, 0)
        sd = np.log(b / a).std()
        # AR(1) around the mean: one-minute log change sd = ret_sd * sqrt(2 / (1 + phi)) ~ ret_sd
        assert abs(sd / SAMPLE_CALIBRATION["ret_sd"] - 1) < 0.15, (t, sd)
        lvl = np.exp(np.log(st.attrs[st.types == k, 0]).mean())
        om, osd = ARTIFACT_STATS[t][:2]
        assert abs(lvl / om - 1) < 5 * osd / om, (t, lvl)      # the artifact's level


def test_volume_lognormal_level_and_autocorrelation(st):
    for k, t in enumerate(TICKERS):
        mu, sig = lognormal_params(*ARTIFACT_STATS[t][2:])
        lv = np.log(np.maximum(st.attrs[st.types == k, 4], 1.0))
        phi = SAMPLE_CALIBRATION["vol_ac"]
        n_eff = lv.size * (1 - phi) / (1 + phi)
        assert abs(lv.mean() - mu) < 5 * sig / math.sqrt(n_eff), t
        a, b = _consecutive(st, k, 4)
        ac = np.corrcoef(np.log(np.maximum(a, 1)), np.log(np.maximum(b, 1)))[0, 1]
        assert abs(ac - phi) < 0.12, (t, ac)


def test_seeded():
    a, b, c = stock_stream(500, seed=1), stock_stream(500, seed=1), stock_stream(500, seed=2)
    assert np.array_equal(a.attrs, b.attrs) and np.array_equal(a.types, b.types)
    assert not np.array_equal(a.attrs, c.attrs)


def test_helpers_by_hand():
    mu, s = lognormal_params(10.0, 0.0)
    assert (mu, s) == (math.log(10.0), 0.0)
    mu, s = lognormal_params(2.0, 2.0)                # CV 1: sigma^2 = ln 2
    assert math.isclose(s * s, math.log(2.0)) and math.isclose(math.exp(mu + s * s / 2), 2.0)
    assert math.isclose(ar1_coefficient(0.05, 0.03), 0.8)      # 0.03^2 / (1 - 0.64) = 0.05^2
    assert ar1_coefficient(0.01, 0.02) == 0.0


@pytest.mark.parametrize("kw", [dict(n_events=0), dict(n_events=10, p_report=0.0),
                                dict(n_events=10, tickers=("XYZ",)),
                                dict(n_events=10, vol_ac=1.0)])
def test_bad_input(kw):
    n = kw.pop("n_events")
    with pytest.raises(CepsimInputError):
        stock_stream(n, seed=1, **kw)


def test_calibration_is_the_sample_median():
    got = calibrate_on_sample([NASDAQ / "NASDAQ_MEDIUM.txt", NASDAQ / "NASDAQ_AAPL_AMZN_GOOG.txt"])
    for k, v in SAMPLE_CALIBRATION.items():
        assert abs(got[k] / v - 1) < 0.01, (k, got[k], v)     # the constants are rounded


# ------------------------------------------------------------------------------------ queries
def test_q1a_text_by_hand():
    # Table 1 Q1^A: SEQ(S_1, ..., S_n) WHERE S_i.volume > S_{i-1}.volume x C; the authors'
    # tickers GOOG, AAPL, MSFT, NFLX (patterns_examples.txt 282-321) and C = 1.05
    want = ("PATTERN SEQ(GOOG s1, AAPL s2, MSFT s3, NFLX s4) WHERE s2.volume > s1.volume * 1.05 "
            "AND s3.volume > s2.volume * 1.05 AND s4.volume > s3.volume * 1.05 "
            "WITHIN 3.6e+06 ms")
    assert stock_query_text("sq1", 3.6e6, 4) == want
    assert parse_pattern(query_text("sq1", 3.6e6, length=4)) == parse_pattern(want)
    assert STOCK_C == 1.05


def test_open_queries_take_tickers_in_ascending_open():
    order = stock_tickers("sq2")
    assert order == ("SIRI", "INTC", "NFLX", "EBAY", "YHOO", "MSFT", "AAPL", "GOOG")
    assert stock_tickers("sq1") == TICKERS


def test_q2a_q3a_text_by_hand():
    assert stock_query_text("sq2", 3e5, 3) == (
        "PATTERN SEQ(SIRI s1, INTC+ s2, NFLX s3) WHERE s2.open > s1.open * 1.05 AND "
        "s3.open > s2.open * 1.05 WITHIN 300000 ms")
    # NEG(S_2) with S_2.open < X (X = INTC's mean open); the chain joins S_3 to S_1
    assert stock_query_text("sq3", 3e5, 4) == (
        "PATTERN SEQ(SIRI s1, NOT(INTC s2), NFLX s3, EBAY s4) WHERE s2.open < 20.828 AND "
        "s3.open > s1.open * 1.05 AND s4.open > s3.open * 1.05 WITHIN 300000 ms")
    assert "s2.open < 19.5" in stock_query_text("sq3", 3e5, 3, x=19.5)


def test_pms_query_is_the_artifacts_line():
    # patterns_examples.txt 426-430: SEQ(AAPL a, MSFT b, INTC c) WHERE a.volume > c.volume *
    # 1.03 and b.volume > c.volume and c.volume > 100000 and b.volume > X WITHIN 60 minutes
    got = parse_pattern(stock_query_text("sq1pm", 3.6e6, threshold=50000.0))
    want = parse_pattern("PATTERN SEQ(AAPL a, MSFT b, INTC c) WHERE a.volume > c.volume * 1.03 "
                         "AND b.volume > c.volume AND c.volume > 100000 AND b.volume > 50000 "
                         "WITHIN 3600000 ms")                  # 60 minutes
    assert got == want


@pytest.mark.parametrize("query, length", [("sq2", 2), ("sq3", 2), ("sq1", 9), ("sq5", 3)])
def test_bad_stock_queries(query, length):
    with pytest.raises(CepsimInputError):
        stock_query_text(query, 3e5, length)


@pytest.mark.parametrize("params", [
    dict(query="sq1", length=3, window_ms=6e5),
    dict(query="sq1", length=2, window_ms=3e5),
    dict(query="sq1pm", window_ms=9e5, b_threshold=25000.0),
    dict(query="sq2", length=3, window_ms=2.4e5),
    dict(query="sq2", length=4, window_ms=1.8e5),
    dict(query="sq3", length=3, window_ms=6e5, stock_x=20.9),
    dict(query="sq3", length=4, window_ms=6e5, stock_x=20.9),
])
def test_stepper_equals_eager_and_oracle(params):
    st = stock_stream(700, seed=5)
    assert_stepper_equals_eager_and_oracle(_program(params, st), st)


def test_negation_vetoes():
    """Q3^A: with X above every INTC open the negation vetoes every (s1, s3) pair with an INTC
    event between them; with X below every INTC open it vetoes none, so the match set is the
    SEQ(SIRI, NFLX) pairs with the open condition."""
    st = stock_stream(700, seed=5)
    base = dict(query="sq3", length=3, window_ms=6e5)
    assert_negation_vetoes(
        _program(dict(base, stock_x=0.0), st), _program(dict(base, stock_x=1e9), st),
        "PATTERN SEQ(SIRI s1, NFLX s3) WHERE s3.open > s1.open * 1.05 WITHIN 600000 ms", st,
        "INTC", "s1", "s3")


def test_stock_windows_are_labelled_in_minutes():
    from sim.studies.darling.figures import knob_label
    assert knob_label("window_ms", 3600000.0) == "W = 60 min"
    assert knob_label("window_ms", 50.0) == "W = 50 ms"              # the soccer panels
    assert knob_label("window_ms", 90000.0) == "W = 90000 ms"        # not whole minutes
    assert knob_label("b_threshold", 25000.0) == "X = 25000"

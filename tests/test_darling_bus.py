"""DARLING's Dublin-bus stand-in (workloads/darling_bus.py) and Table 1's bus queries
(sim/studies/darling/scenario.py ``bus_query_text``):

* the generator's stated properties on a seeded tiny stream (the authors' lines in their order,
  per-line rates from the paper's record count, the lower rate of the appended lines, dist /
  delay levels of the artifact, integer delays, positive distances), determinism, extra lines,
  input errors;
* each bus query, written out by hand from Table 1 / the authors' lines, equals the text the
  scenario builds, and the ``stepper`` (the shedding engine, every event stepped) finds exactly
  the matches of ``eager`` and of the oracle on a seeded stream.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from darling_query_checks import assert_negation_vetoes, assert_stepper_equals_eager_and_oracle
from sim.studies.darling.scenario import BUS_C, BUS_X, _program, bus_query_text, query_text
from workloads.darling_bus import (ARTIFACT_STATS, BASE_RATE, LINES, LOW_RATE_LINES,
                                   bus_stream, gamma_params, line_rates)


@pytest.fixture(scope="module")
def st():
    return bus_stream(16000, seed=3)


def test_lines_attrs_and_clock(st):
    assert st.schema.type_names == LINES == ("15", "39", "145", "38", "25", "46", "40", "27")
    assert tuple(st.schema.attr_names) == ("dist", "delay")
    assert len(st) == 16000
    assert np.all(np.diff(st.ts) >= 0) and st.ts[0] > 0


def test_base_rate_is_the_papers_record_count():
    # 33,097,325 records / (30 days x 86,400 s) / 80 lines
    assert math.isclose(BASE_RATE, 33_097_325 / 2_592_000 / 80)
    assert 0.159 < BASE_RATE < 0.160


def test_rates_and_line_shares(st):
    rates = line_rates(LINES)
    total = 5 * BASE_RATE + 3 * 0.5 * BASE_RATE             # lines 46, 40, 27 at half rate
    assert math.isclose(rates.sum(), total)
    n = len(st)
    # Poisson superposition: n events take n / total seconds (sd sqrt(n) / total)
    assert abs(st.ts[-1] - n / total) < 5 * math.sqrt(n) / total
    counts = np.bincount(st.types, minlength=len(LINES))
    for k, ln in enumerate(LINES):
        p = (0.5 if ln in LOW_RATE_LINES else 1.0) / 6.5
        assert abs(counts[k] / n - p) < 5 * math.sqrt(p * (1 - p) / n), ln


def test_dist_and_delay_levels_are_the_artifacts(st):
    for k, ln in enumerate(LINES):
        m = st.types == k
        d, y = st.attrs[m, 0], st.attrs[m, 1]
        dm, dsd, ym, ysd = ARTIFACT_STATS[ln]
        assert np.all(d > 0)
        assert abs(d.mean() - dm) < 5 * dsd / math.sqrt(d.size), ln
        assert abs(d.std() / dsd - 1) < 0.15, ln
        assert np.all(y == np.round(y))                            # whole seconds
        assert abs(y.mean() - ym) < 5 * ysd / math.sqrt(y.size), ln
        assert abs(y.std() / ysd - 1) < 0.1, ln


def test_gamma_params_by_hand():
    shape, scale = gamma_params(10.0, 5.0)                     # mean k theta, var k theta^2
    assert math.isclose(shape, 4.0) and math.isclose(scale, 2.5)
    with pytest.raises(CepsimInputError):
        gamma_params(0.0, 1.0)


def test_seeded_and_extra_lines():
    a, b, c = bus_stream(500, seed=1), bus_stream(500, seed=1), bus_stream(500, seed=2)
    assert np.array_equal(a.attrs, b.attrs) and np.array_equal(a.types, b.types)
    assert not np.array_equal(a.attrs, c.attrs)
    big = bus_stream(4000, seed=1, n_lines=82)
    names = big.schema.type_names
    assert len(names) == 82 and names[:8] == LINES and names[8] == "x09" and names[-1] == "x82"
    share = np.mean(big.types < 8)           # 6.5 of 80.5 rate units are the pattern lines
    assert abs(share - 6.5 / 80.5) < 5 * math.sqrt(0.08 * 0.92 / 4000)


@pytest.mark.parametrize("kw", [dict(n_events=0), dict(n_events=10, n_lines=7),
                                dict(n_events=10, low_rate=0.0),
                                dict(n_events=10, base_rate=-1.0)])
def test_bad_input(kw):
    n = kw.pop("n_events")
    with pytest.raises(CepsimInputError):
        bus_stream(n, seed=1, **kw)


# ------------------------------------------------------------------------------------ queries
def test_q1c_text_by_hand():
    # Table 1 Q1^C: SEQ(L_1, ..., L_n) WHERE L_i.dist > L_{i-1}.dist x C; the authors' lines
    # 15, 39, 145, 38 (patterns_examples.txt 3-8) and C = 0.5
    want = ("PATTERN SEQ(15 l1, 39 l2, 145 l3, 38 l4) WHERE l2.dist > l1.dist * 0.5 AND "
            "l3.dist > l2.dist * 0.5 AND l4.dist > l3.dist * 0.5 WITHIN 120000 ms")
    assert bus_query_text("bq1", 1.2e5, 4) == want
    assert parse_pattern(query_text("bq1", 1.2e5, length=4)) == parse_pattern(want)
    assert (BUS_C, BUS_X) == (0.5, 200.0)


def test_q2c_q3c_text_by_hand():
    assert bus_query_text("bq2", 6e4, 3) == (
        "PATTERN SEQ(15 l1, 39+ l2, 145 l3) WHERE l2.dist > l1.dist * 0.5 AND "
        "l3.dist > l2.dist * 0.5 WITHIN 60000 ms")
    # NEG(L_2) with L_2.delay > X (the authors' 39! b ... b.delay > 200); the chain joins L_3
    # to L_1
    assert bus_query_text("bq3", 6e4, 4) == (
        "PATTERN SEQ(15 l1, NOT(39 l2), 145 l3, 38 l4) WHERE l2.delay > 200.0 AND "
        "l3.dist > l1.dist * 0.5 AND l4.dist > l3.dist * 0.5 WITHIN 60000 ms")
    assert "l2.delay > 50.0" in bus_query_text("bq3", 6e4, 3, x=50.0)


def test_pms_query_is_the_artifacts_line():
    # patterns_examples.txt 116-120: SEQ(15 a, 145 b, 39 c) WHERE a.dist > 0 and b.dist >
    # c.dist and c.dist > 5000 and b.dist > X
    got = parse_pattern(bus_query_text("bq1pm", 1e7, threshold=2000.0))
    want = parse_pattern("PATTERN SEQ(15 a, 145 b, 39 c) WHERE a.dist > 0 AND b.dist > c.dist "
                         "AND c.dist > 5000 AND b.dist > 2000 WITHIN 10000000 ms")
    assert got == want


@pytest.mark.parametrize("query, length", [("bq2", 2), ("bq3", 2), ("bq1", 9), ("bq5", 3)])
def test_bad_bus_queries(query, length):
    with pytest.raises(CepsimInputError):
        bus_query_text(query, 6e4, length)


@pytest.mark.parametrize("params", [
    dict(query="bq1", length=3, window_ms=6e4),
    dict(query="bq1", length=2, window_ms=3e4),
    dict(query="bq1", length=6, window_ms=6e4),
    dict(query="bq1pm", window_ms=1.2e5, b_threshold=2000.0),
    dict(query="bq2", length=3, window_ms=3e4),
    dict(query="bq2", length=4, window_ms=3e4),
    dict(query="bq3", length=3, window_ms=6e4),
    dict(query="bq3", length=4, window_ms=6e4, bus_x=-100.0),
])
def test_stepper_equals_eager_and_oracle(params):
    st = bus_stream(900, seed=5)
    assert_stepper_equals_eager_and_oracle(_program(params, st), st)


def test_negation_vetoes():
    """Q3^C: with X below every delay the negation vetoes every (l1, l3) pair with a line-39
    record between them; with X above every delay it vetoes none, so the match set is the
    SEQ(15, 145) pairs with the dist condition."""
    st = bus_stream(900, seed=5)
    base = dict(query="bq3", length=3, window_ms=6e4)
    assert_negation_vetoes(
        _program(dict(base, bus_x=1e9), st), _program(dict(base, bus_x=-1e9), st),
        "PATTERN SEQ(15 l1, 145 l3) WHERE l3.dist > l1.dist * 0.5 WITHIN 60000 ms", st,
        "39", "l1", "l3")


def test_bus_windows_are_labelled():
    from sim.studies.darling.figures import knob_label
    assert knob_label("window_ms", 120000.0) == "W = 2 min"
    assert knob_label("window_ms", 30000.0) == "W = 30000 ms"

"""The eager NFA must report exactly the oracle's matches (and detection indices).

Property tests draw random streams and patterns from ``tests/strategies.py`` (every operator,
random predicates, both policies, time and count windows, sometimes no window).  Half of the runs
use tiny buffer capacities and collection thresholds (``_tune``) so that every growth, sweep and
node-collection path of the kernel runs on these small cases.  Two tests replay real data files
(NASDAQ Metastock rows, DEBS'13 soccer sensor rows) with real predicates.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases, small_cases

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

DATA = Path(__file__).resolve().parent / "data"
TINY = (1, 1, 1, 1)   # every buffer starts at capacity 1, sweeps/collections run every event
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


def _check(pattern, stream, tiny: bool) -> int:
    """Compare eager with the oracle; return the number of matches."""
    program = compile_pattern(pattern, stream.schema)
    eager = run_eager(program, stream, _tune=TINY if tiny else None)
    oracle = run_oracle(program, stream)
    assert_same_matches(eager, oracle, (program, stream), labels=("eager", "oracle"),
                        check_detect=True)
    return len(oracle.matches)


def _property(rate, strategy, max_examples: int) -> None:
    """Run eager-vs-oracle on ``max_examples`` hypothesis examples, counting the match rate."""

    @settings(max_examples=max_examples, **SETTINGS)
    @given(strategy, st.booleans())
    def prop(case, tiny):
        rate.add(case[0], _check(*case, tiny))

    prop()
    rate.check()


def test_eager_equals_oracle_all_operators(match_rate):
    _property(match_rate("eager, all operators"), cases(max_events=60), 700)


def test_eager_equals_oracle_long_streams_sequences(match_rate):
    _property(match_rate("eager, long simple sequences"),
              cases(max_events=200, min_len=2, max_len=5, simple_sequence=True), 300)


def test_eager_equals_oracle_kleene_and_negation(match_rate):
    _property(match_rate("eager, Kleene and negation"),
              cases(max_events=120, kleene_max_events=50, and_or=False), 300)


def test_eager_equals_oracle_with_unbounded_windows(match_rate):
    _property(match_rate("eager, with unbounded windows"),
              cases(max_events=40, windows=("time", "count", "none")), 200)


def test_eager_equals_oracle_next_match_long(match_rate):
    _property(match_rate("eager, next-match long"),
              cases(max_events=200, kleene_max_events=200, negation=True, and_or=False,
                    policies=("skip-till-next-match",)), 200)


@pytest.mark.parametrize("seed", [101, pytest.param(202, marks=pytest.mark.slow)])
def test_eager_equals_oracle_seeded_loop(seed, match_rate):
    """Deterministic numpy-drawn cases (a fixed regression set independent of hypothesis)."""
    rate = match_rate(f"eager, seeded loop {seed}")
    for i, (pattern, stream) in enumerate(small_cases(seed, 300)):
        rate.add(pattern, _check(pattern, stream, tiny=bool(i % 2)))
    rate.check()


# ----------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def nasdaq():
    from workloads.loaders import load_metastock
    return load_metastock(DATA / "nasdaq_medium_head.txt")


@pytest.fixture(scope="module")
def soccer():
    from workloads.loaders import load_soccer
    return load_soccer(DATA / "soccer_head.txt")


NASDAQ_PATTERNS = [
    # DEBS'15-style sequence of three tickers with price/volume relations
    "PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.close < b.close AND b.volume > c.volume "
    "WITHIN 5 minutes",
    "PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.close < b.close AND b.volume > c.volume "
    "WITHIN 5 minutes POLICY skip-till-next-match",
    # Kleene of rising-volume ORLY rows between an MSFT and a CBRL row
    "PATTERN SEQ(MSFT a, ORLY+ b, CBRL c) WHERE b.volume > a.volume * 0.001 "
    "AND c.close > b.close * 0.5 WITHIN 3 minutes POLICY skip-till-next-match",
    "PATTERN SEQ(MSFT a, ORLY+ b, CBRL c) WHERE b.volume > 2000 AND c.close > 10 "
    "WITHIN 2 minutes",
    # negation in the middle, at the start and at the end
    "PATTERN SEQ(MSFT a, NOT(DRIV d), ORLY b) WHERE d.volume > a.volume * 0.01 "
    "WITHIN 4 minutes",
    "PATTERN SEQ(NOT(CBRL z), MSFT a, ORLY b) WHERE z.close > 33.9 AND |a.close - b.close| <= 50 "
    "WITHIN 3 minutes",
    "PATTERN SEQ(MSFT a, ORLY b, NOT(DRIV d)) WHERE d.close > 33.8 WITHIN 40 events",
    "PATTERN OR(SEQ(MSFT a, CBRL b), SEQ(DRIV c, ORLY d)) WHERE a.close < b.close "
    "AND c.volume < d.volume WITHIN 12 events",
]


@pytest.mark.parametrize("text", NASDAQ_PATTERNS)
def test_eager_equals_oracle_nasdaq(nasdaq, text):
    program = compile_pattern(parse_pattern(text), nasdaq.schema)
    eager = run_eager(program, nasdaq)
    oracle = run_oracle(program, nasdaq)
    assert len(oracle.matches) > 0, "pattern chosen to have matches on this data"
    assert_same_matches(eager, oracle, text, labels=("eager", "oracle"), check_detect=True)


SOCCER_PATTERNS = [
    # sensor 13 faster than 61, then a sample of sensor 8 faster still with a similar vx
    "PATTERN SEQ(61 a, 13 b, 8 c) WHERE b.v > a.v AND c.v > b.v * 1.5 AND |a.vx - c.vx| <= 3000 "
    "WITHIN 30 ms",
    "PATTERN SEQ(61 a, 13 b, 8 c) WHERE b.v > a.v AND c.v > b.v * 1.5 AND |a.vx - c.vx| <= 3000 "
    "WITHIN 30 ms POLICY skip-till-next-match",
    "PATTERN SEQ(13 a, 8+ b, 61 c) WHERE b.a > 1000000 AND c.v < b.v WITHIN 25 events "
    "POLICY skip-till-next-match",
    "PATTERN SEQ(61 a, NOT(13 n), 8 b) WHERE n.v > a.v AND b.z > a.z WITHIN 20 ms",
]


@pytest.mark.parametrize("text", SOCCER_PATTERNS)
def test_eager_equals_oracle_soccer(soccer, text):
    program = compile_pattern(parse_pattern(text), soccer.schema)
    eager = run_eager(program, soccer)
    oracle = run_oracle(program, soccer)
    assert len(oracle.matches) > 0, "pattern chosen to have matches on this data"
    assert_same_matches(eager, oracle, text, labels=("eager", "oracle"), check_detect=True)

"""workloads/stocks.py: determinism, f_c control, histories, fluctuation, dynamic switching."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import pytest

from workloads.stocks import (SWINGS, ab_swing, add_history, dynamic_stock_stream,
                              nasdaq_stock_stream, resample_type, stock_stream)

DATA = Path(__file__).parent / "data" / "nasdaq_medium_head.txt"


def test_deterministic_and_schema():
    a = stock_stream(3000, 11, h=6, f_c=0.2)
    b = stock_stream(3000, 11, h=6, f_c=0.2)
    assert len(a) == 3000 and a.schema.type_names == ("Finance", "HiTech", "GOOG")
    assert np.array_equal(a.attrs, b.attrs) and np.array_equal(a.types, b.types)
    assert a.schema.vector("hist") == (2, 6)
    # the last history entry is the current price
    assert np.allclose(a.attrs[:, 2 + 5], a.attrs[:, 0])
    assert not np.array_equal(stock_stream(3000, 12, h=6).attrs, a.attrs)


def test_f_c_sets_relative_frequency_of_c():
    for f_c in (0.05, 0.3, 1.0, 2.0):
        s = stock_stream(8000, 3, f_c=f_c)
        n = np.bincount(s.types, minlength=3)
        assert abs(n[2] / n[0] - f_c) < 0.2 * f_c + 0.01, (f_c, n)


def test_histories_are_the_tickers_last_prices():
    s = stock_stream(4000, 5, h=5, f_c=0.5)
    h0, L = s.schema.vector("hist")
    minute = (s.ts // 60).astype(int)
    tick = s.attrs[:, 1]
    last = {}
    checked = 0
    for i in range(len(s)):
        key = tick[i]
        if key in last and minute[last[key]] == minute[i] - 1:
            j = last[key]
            assert np.allclose(s.attrs[i, h0:h0 + L - 1], s.attrs[j, h0 + 1:h0 + L])
            checked += 1
        last[key] = i
    assert checked > 100


def test_a_and_b_frequencies_fluctuate_around_each_other():
    s = stock_stream(15000, 2, f_c=0.1, fluct_period=120)
    minute = (s.ts // 60).astype(int)
    per = 30
    blocks = minute // per
    ratio = [np.sum((blocks == k) & (s.types == 0)) / max(1, np.sum((blocks == k) & (s.types == 1)))
             for k in range(blocks.max())]
    assert min(ratio) < 0.95 and max(ratio) > 1.05   # each is dominant part of the time
    assert 0.9 < np.mean(ratio) < 1.1


def test_ab_swing_shapes():
    """The a/b rate swing -- "sine" is the Fig 7 / 8 stream's formula, "random"
    a seeded telegraph signal (+/- amplitude, exponential stretches of mean period / 2), "none"
    equal rates."""
    t = np.arange(5000)
    assert np.array_equal(ab_swing(5000, 1, "sine", 0.15, 120), 0.15 * np.sin(2 * np.pi * t / 120))
    assert not ab_swing(5000, 1, "none", 0.15, 120).any()
    assert not ab_swing(5000, 1, "random", 0.0, 120).any()
    r = ab_swing(20000, 7, "random", 0.2, 120)
    assert set(np.unique(r)) == {-0.2, 0.2}
    assert np.array_equal(r, ab_swing(20000, 7, "random", 0.2, 120))          # seeded
    assert not np.array_equal(r, ab_swing(20000, 8, "random", 0.2, 120))
    switches = int(np.count_nonzero(np.diff(r)))
    assert 20000 / 60 * 0.8 < switches < 20000 / 60 * 1.2        # mean stretch 60 minutes
    assert abs(np.mean(r > 0) - 0.5) < 0.1                        # each dominant about half the time
    for bad in (("zigzag", 0.1, 120), ("sine", 1.0, 120), ("sine", 0.1, 0)):
        with pytest.raises(ValueError):
            ab_swing(100, 1, *bad)
    assert SWINGS == ("sine", "random", "none")


def test_swing_none_and_random_streams():
    """"none": a and b about equal in every block; "random": one of them dominant for long
    stretches; the default stream is the "sine" stream."""
    assert np.array_equal(stock_stream(3000, 4).types, stock_stream(3000, 4, swing="sine").types)
    for swing, lo_hi in (("none", (0.8, 1.25)), ("random", None)):
        s = stock_stream(15000, 2, f_c=0.1, fluctuation=0.3, swing=swing)
        blocks = (s.ts // 60).astype(int) // 30
        ratio = np.array([np.sum((blocks == k) & (s.types == 0))
                          / max(1, np.sum((blocks == k) & (s.types == 1)))
                          for k in range(blocks.max())])
        if lo_hi:
            assert np.median(ratio) == pytest.approx(1.0, abs=0.1)
            assert np.mean((ratio > 1.4) | (ratio < 1 / 1.4)) < 0.1
        else:      # +/-30 %: a/b = 1.3/0.7 or 0.7/1.3 in most blocks
            assert np.mean((ratio > 1.4) | (ratio < 1 / 1.4)) > 0.5


def test_dynamic_stream_rarest_switches_every_period():
    s = dynamic_stock_stream(6000, 4, period=1000, rare_factor=0.1)
    assert len(s) == 6000 and np.all(np.diff(s.ts) >= 0)
    rarest = [int(np.argmin(np.bincount(s.types[k:k + 1000], minlength=3)))
              for k in range(0, 6000, 1000)]
    assert rarest == [2, 0, 1, 2, 0, 1]              # GOOG -> Finance -> HiTech -> ...


def test_resample_duplicates_adjacent_and_filters():
    s = stock_stream(2000, 1, f_c=0.2)
    d = resample_type(s, "GOOG", 3.0, seed=0)
    assert np.sum(d.types == 2) == 3 * np.sum(s.types == 2)
    i = int(np.flatnonzero(d.types == 2)[0])
    assert np.array_equal(d.attrs[i], d.attrs[i + 1]) and d.ts[i] == d.ts[i + 2]
    f = resample_type(s, "GOOG", 0.0, seed=0)
    assert np.sum(f.types == 2) == 0


def test_nasdaq_history_helper():
    s = nasdaq_stock_stream(str(DATA), h=4)
    assert set(s.schema.type_names) >= {"MSFT", "DRIV"}
    h0, L = s.schema.vector("hist")
    assert L == 4 and np.allclose(s.attrs[:, h0 + 3], s.attrs[:, 0])
    i = np.flatnonzero(s.types == s.schema.type_code("MSFT"))
    assert np.allclose(s.attrs[i[1], h0:h0 + 3], s.attrs[i[0], h0 + 1:h0 + 4])
    r = nasdaq_stock_stream(str(DATA), h=4, f_c=0.5, c_type="MSFT", a_type="DRIV", seed=1)
    ratio = np.sum(r.types == r.schema.type_code("MSFT")) / np.sum(r.types == r.schema.type_code("DRIV"))
    assert abs(ratio - 0.5) < 0.1


def test_debs15_query_text_and_program():
    import pytest

    from workloads.debs15 import build_program, query_text
    t = query_text("c,b,a", 0.7, 5)
    assert t.startswith("PATTERN SEQ(GOOG c, HiTech b, Finance a)")
    assert "corr(a.hist, b.hist) > 0.7 AND corr(b.hist, c.hist) > 0.7" in t and "WITHIN 5 minutes" in t
    assert "corr(a.hist, c.hist)" in query_text(pairs="ab,bc,ac")
    with pytest.raises(ValueError):
        query_text("a,b")
    with pytest.raises(ValueError):
        query_text(pairs="aa")
    s = stock_stream(500, 1, h=5)
    prog = build_program(s.schema, "a,c,b", h_minutes=5)
    assert prog.is_simple_sequence and prog.window == 300.0

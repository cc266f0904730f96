"""EIRES Fig 13a (section 7.4, bushfire detection): the stand-in satellite stream's stated
properties and its sensor table (``workloads/eires_bushfire.py``), the case-study queries on a
hand-built stream against hand counts, and the remote kernel's matches equal the oracle's with
the remote values resolved, for every strategy and both caches."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from engines.remote.config import STRATEGIES
from engines.remote.kernel import run_remote
from engines.remote.table import RemoteTable
from engines.stream import EventStream
from remote_oracle import assert_every_strategy_equals_oracle
from workloads import eires_bushfire as W

COL = {a: i for i, a in enumerate(W.ATTRS)}


def test_generator_scans_channels_levels():
    s = W.generate(5000, 3, n_areas=20)
    a = s.attrs
    assert len(s) == 5000 and s.schema.type_names == ("Satellite",)
    scan = a[:, COL["scan"]]
    assert np.all(np.diff(scan) >= 0) and scan[0] == 0
    assert np.array_equal(s.ts, scan * 300.0)                     # one scan per 5 min
    assert np.allclose(a[:, COL["hour"]], (scan * 300.0 / 3600.0) % 24.0)
    assert np.array_equal(a[:, COL["scan_h"]], scan + W.HUMIDITY_KEY_OFFSET)
    assert set(np.unique(a[:, COL["channel"]]).tolist()) <= {6.0, 3.0, 5.0, 7.0, 8.0, 9.0}
    assert set(np.unique(a[:, COL["level"]]).tolist()) <= {1.0, 2.0}
    b = a[:, COL["boundary"]]
    assert b.min() >= 1 and b.max() <= 20
    # each (scan, area, channel) at most once
    trip = set(zip(scan.tolist(), b.tolist(), a[:, COL["channel"]].tolist()))
    assert len(trip) == len(s)
    # p_emit = 1, n_other = 0: every scan has exactly 3 events per area
    full = W.generate(120, 1, n_areas=4, p_emit=1.0, n_other=0)
    assert np.array_equal(np.bincount(full.attrs[:, COL["scan"]].astype(int)), [12] * 10)
    # p_fire = 0, p_high = 0: no high level at all; p_fire = 1, p_high_fire = 1: all high
    assert np.all(W.generate(500, 1, n_areas=5, p_fire=0.0, p_high=0.0).attrs[:, 1] == 1)
    assert np.all(W.generate(500, 1, n_areas=5, p_fire=1.0, p_high_fire=1.0).attrs[:, 1] == 2)
    assert np.array_equal(W.generate(800, 3, n_areas=20).attrs, a[:800])   # deterministic


def test_sensor_table_forms():
    # 36 scans at 12 per hour: sensor_table draws the weather of ceil(36 / 12) + 1 = 4 hours
    temp, hum = W.weather(4, 5)
    m = W.sensor_table(36, 5, form="margin")
    assert np.array_equal(m.keys, np.arange(36))
    for k in range(36):
        h = k // 12
        assert m.values[k] == pytest.approx(min(temp[h] - 46.51, 23.38 - hum[h]))
        assert (m.values[k] >= 0) == (temp[h] >= 46.51 and hum[h] <= 23.38)
    two = W.sensor_table(36, 5, form="two")
    assert two(13) == pytest.approx(temp[1]) and two(13 + W.HUMIDITY_KEY_OFFSET) == \
        pytest.approx(hum[1])
    with pytest.raises(CepsimInputError, match="margin or two"):
        W.sensor_table(3, 1, form="three")
    with pytest.raises(CepsimInputError, match="p_fire"):
        W.generate(10, 1, p_fire=2.0)


def _hand(rows):
    """rows: (channel, level, boundary, hour, scan)."""
    a = np.array([(c, lv, b, h, sc, sc + W.HUMIDITY_KEY_OFFSET) for c, lv, b, h, sc in rows],
                 float)
    return EventStream.from_arrays(np.zeros(len(rows), np.int32), a[:, 4] * 300.0, a,
                                   W.TYPES, W.ATTRS)


def test_queries_by_hand():
    """Area 1: C07, C07-C14, C16 all high, C16 in scan 2 (weather passes) -> one match; area 2:
    the same with C16 in scan 3 (weather fails) -> none; area 3: C07-C14 normal -> none; area
    4: C16 13 scans (65 min) after C07 -> outside the hour, none.  Listing 3's reading adds
    daytime: the same streams at hour 14 match, at hour 20 (a.hour >= 6, c.hour < 18 fails)
    not."""
    margin = RemoteTable.from_pairs([2, 3, 13], [1.5, -0.5, 2.0])
    two = RemoteTable.from_pairs([2, 3, 13, 2 + W.HUMIDITY_KEY_OFFSET, 3 +
                                  W.HUMIDITY_KEY_OFFSET, 13 + W.HUMIDITY_KEY_OFFSET],
                                 [48.0, 40.0, 48.0, 20.0, 30.0, 20.0])
    for hour, l3_expected in ((14.0, 1), (20.0, 0)):
        s = _hand([(6, 2, 1, hour, 0), (6, 2, 2, hour, 0), (6, 2, 3, hour, 0),
                   (6, 2, 4, hour, 0), (3, 2, 1, hour, 1), (3, 2, 2, hour, 1),
                   (3, 1, 3, hour, 1), (3, 2, 4, hour, 1), (5, 2, 1, hour, 2),
                   (5, 2, 3, hour, 2), (5, 2, 2, hour, 3), (5, 2, 4, hour, 13)])
        for st in STRATEGIES:
            for q, tab, want in (("bushfire", margin, 1), ("bushfire_l3", two, l3_expected)):
                prog = compile_pattern(parse_pattern(W.queries(q)[0]), s.schema)
                r = run_remote(prog, s, remote=tab, strategy=st, cache_size=1)
                assert len(r.matches) == want, (q, st, hour)


@pytest.mark.parametrize("query", ["bushfire", "bushfire_l3"])
def test_kernel_equals_oracle(query):
    s = W.generate(700, 6, n_areas=6, p_fire=0.5, start_hour=13.0)
    ns = W.n_scans(s)
    tab = W.sensor_table(ns, 6, form="margin" if query == "bushfire" else "two",
                         start_hour=13.0)
    prog = compile_pattern(parse_pattern(W.queries(query)[0]), s.schema)
    assert_every_strategy_equals_oracle(prog, s, tab, latency_unit_us=10000.0)

"""DS1a: DS1 as the authors' ``Uniform_generator.cpp`` draws it (``workloads.eires``).

``std::default_random_engine`` is libstdc++'s ``minstd_rand0`` (x <- 16807 x mod 2^31 - 1, seed
1: outputs 16807, 282475249, 1622650073, 984943658, ...), and ``uniform_int_distribution<int>
(a, b)`` downscales: scaling = (2^31 - 3) // (b - a + 1), value = a + (x - 1) // scaling (redrawn
when x - 1 >= (b - a + 1) * scaling).  Per event the generator draws type U{1..4}, v1
U{1..10^4}, ID U{1..100}.
"""
from __future__ import annotations

import numpy as np

from workloads.eires import _minstd_uniform, generate, load_artifact_csv, write_artifact_csv


def test_first_event_by_hand():
    # x1 = 16807 -> type 1 + 16806 // 536870911 = 1 (A)
    # x2 = 282475249 -> v1 1 + 282475248 // 214748 = 1316
    # x3 = 1622650073 -> ID 1 + 1622650072 // 21474836 = 76
    # x4 = 984943658 -> type 1 + 984943657 // 536870911 = 2 (B)
    d = _minstd_uniform(2, 100)
    assert d[0].tolist() == [1, 1316, 76]
    assert d[1, 0] == 2


def test_stream_matches_its_csv(tmp_path):
    f = tmp_path / "ds1.csv"
    write_artifact_csv(f, 500)
    first = f.read_text().splitlines()[0]
    assert first == "A,1,76,1316,0"                   # name, ArrivalQTime, ID, v1, v2
    s = generate("DS1a", 500, seed=123)
    c = load_artifact_csv(f, 500)
    assert np.array_equal(s.types, c.types) and np.array_equal(s.attrs, c.attrs)
    assert set(np.unique(s.types)) <= {0, 1, 2, 3}
    assert s.attrs[:, 0].min() >= 1 and s.attrs[:, 0].max() <= 100

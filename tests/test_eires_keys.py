"""Remote keys of any value: keys are factorized to dense ids once per run.

Keys near 2^63 (the authors' DS2 generator draws unbounded Zipf values up to 9.2e18) must give the
same matches as small keys mapped one-to-one, for every strategy and cache, with the remote table
given as key,value pairs; ``cepsim match --engine remote`` takes the strategy, cache and
remote-table options.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.remote.config import CACHES, STRATEGIES
from engines.remote.kernel import run_remote
from engines.remote.table import RemoteTable, load_remote_table
from engines.stream import EventStream

TEXT = ("PATTERN SEQ(A a, B b, C c, D d) WHERE SAME[id] AND b.v2 = REMOTE[a.v1] AT c "
        "WITHIN 60 events")


def _streams(n=500, seed=5):
    """The same stream twice: keys 0..K-1 and keys 2^63 - 4096 * (k + 1) (distinct float64s)."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, n)
    small = rng.integers(0, 25, n).astype(float)
    v2 = rng.integers(0, 4, n).astype(float)
    ids = rng.integers(0, 4, n).astype(float)
    big = 2.0 ** 63 - 4096.0 * (small + 1)
    assert len(np.unique(big)) == len(np.unique(small))
    mk = lambda k: EventStream.from_arrays(list(np.array(list("ABCD"))[t]),    # noqa: E731
                                           np.arange(n, dtype=float),
                                           np.stack([k, v2, ids], 1), tuple("ABCD"),
                                           ("v1", "v2", "id"))
    values = rng.integers(0, 4, 25).astype(float)
    return mk(small), mk(big), values


def test_keys_near_2_63_match_small_keys_one_to_one():
    s_small, s_big, values = _streams()
    tab_small = RemoteTable.from_pairs(np.arange(25.0), values)
    tab_big = RemoteTable.from_pairs(2.0 ** 63 - 4096.0 * (np.arange(25.0) + 1), values)
    p_small = compile_pattern(parse_pattern(TEXT), s_small.schema)
    p_big = compile_pattern(parse_pattern(TEXT), s_big.schema)
    expected = run_oracle(p_small, s_small, remote=tab_small).matches.key_set()
    assert len(expected) > 5
    assert run_oracle(p_big, s_big, remote=tab_big).matches.key_set() == expected
    unit = np.full(C.N_COUNTERS, 1e-7)
    for strategy in STRATEGIES:
        for cache in CACHES:
            kw = dict(strategy=strategy, cache=cache, cache_size=6, unit_cost=unit,
                      base_cost=1e-6)
            a = run_remote(p_small, s_small, remote=tab_small, **kw)
            b = run_remote(p_big, s_big, remote=tab_big, **kw)
            assert a.matches.key_set() == expected, (strategy, cache)
            assert b.matches.key_set() == expected, (strategy, cache)
            # one-to-one renaming of keys changes nothing, not even the virtual times
            assert np.array_equal(a.info["emit_time"], b.info["emit_time"]), (strategy, cache)
            assert a.info["fetches"] == b.info["fetches"]
            assert b.info["remote_keys"] == 25


def test_identity_table_and_the_old_array_table_still_work():
    s_small, _, values = _streams()
    prog = compile_pattern(parse_pattern(TEXT), s_small.schema)
    for remote in (None, values):
        exp = run_oracle(prog, s_small, remote=remote).matches.key_set()
        got = run_remote(prog, s_small, strategy="Hybrid", remote=remote).matches.key_set()
        assert got == exp


def test_missing_key_is_false_and_bad_tables_are_refused(tmp_path):
    s_small, _, values = _streams()
    prog = compile_pattern(parse_pattern(TEXT), s_small.schema)
    half = RemoteTable.from_pairs(np.arange(12.0), values[:12])    # keys 12..24 absent
    exp = run_oracle(prog, s_small, remote=half).matches.key_set()
    got = run_remote(prog, s_small, strategy="BL2", remote=half)
    assert got.matches.key_set() == exp
    assert got.info["remote_missing_keys"] == 13
    with pytest.raises(CepsimInputError, match="more than once"):
        RemoteTable.from_pairs([1.0, 1.0], [0.0, 1.0])
    bad = tmp_path / "t.csv"
    bad.write_text("k,v\n1,2\n")
    with pytest.raises(CepsimInputError, match="columns 'key' and 'value'"):
        load_remote_table(bad)
    with pytest.raises(CepsimInputError, match="not an index"):
        run_remote(prog, s_small, strategy="BL2", remote=np.zeros(3))


def test_cli_match_remote_options(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app
    _, s_big, values = _streams(n=200)
    data = tmp_path / "ev.csv"
    lines = ["type,ts,v1,v2,id"]
    for i in range(len(s_big)):
        lines.append(f"{'ABCD'[s_big.types[i]]},{i},{int(s_big.attrs[i, 0])},"
                     f"{int(s_big.attrs[i, 1])},{int(s_big.attrs[i, 2])}")
    data.write_text("\n".join(lines) + "\n")
    schema = tmp_path / "schema.toml"
    schema.write_text('type_column = "type"\nts_column = "ts"\nattributes = ["v1", "v2", "id"]\n')
    table = tmp_path / "remote.csv"
    keys = [2 ** 63 - 4096 * (k + 1) for k in range(25)]
    table.write_text("key,value\n" + "".join(f"{k},{int(v)}\n" for k, v in zip(keys, values)))
    out = tmp_path / "m.jsonl"
    stats = tmp_path / "s.json"
    runner = CliRunner()
    r = runner.invoke(app, ["match", TEXT, str(data), "--schema", str(schema), "--engine", "remote",
                            "--strategy", "BL2",
                            "--cache", "lru", "--cache-size", "4", "--remote-table", str(table),
                            "--remote-opt", "latency_unit_us=5", "--out", str(out),
                            "--stats-json", str(stats)])
    assert r.exit_code == 0, r.output
    info = json.loads(stats.read_text())["engine_info"]
    assert info["strategy"] == "BL2" and info["cache"] == "lru"
    n_cli = sum(1 for _ in out.open())
    prog = compile_pattern(parse_pattern(TEXT), s_big.schema)
    tab = RemoteTable.from_pairs(np.array(keys, float), values)
    assert n_cli == len(run_oracle(prog, s_big, remote=tab).matches) > 0
    r = runner.invoke(app, ["match", TEXT, str(data), "--engine", "eager", "--strategy", "BL2"])
    assert r.exit_code == 2 and "only for --engine remote" in r.output
    r = runner.invoke(app, ["match", TEXT, str(data), "--engine", "remote", "--remote-opt",
                            "workers=x"])
    assert r.exit_code == 2 and "workers" in r.output

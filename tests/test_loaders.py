"""Tests for workloads.loaders: real-sample loading, timestamp arithmetic, generic CSV/Parquet
round trips and one test per user error (the message must name the line and field).

Expected values are read from the sample text itself (tests/data/, copies of the shared
samples), never typed in by hand."""
from __future__ import annotations

import calendar
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engines.errors import CepsimInputError, StreamError
from workloads.loaders import (METASTOCK_ATTRS, SOCCER_ATTRS, load_csv, load_metastock,
                               load_parquet, load_schema, load_soccer, load_stream)

DATA = Path(__file__).parent / "data"
NASDAQ = DATA / "nasdaq_medium_head.txt"
SOCCER = DATA / "soccer_head.txt"


def _lines(path: Path) -> list[str]:
    return [ln for ln in path.read_text().splitlines() if ln.strip()]


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def _utc_seconds(stamp: str) -> float:
    return float(calendar.timegm(time.strptime(stamp, "%Y%m%d%H%M")))


# --------------------------------------------------------------------------- real samples

def test_metastock_sample_matches_file_text():
    lines = _lines(NASDAQ)
    s = load_metastock(NASDAQ)
    fields = [ln.split(",") for ln in lines]
    assert len(s) == len(lines)
    assert s.schema.attr_names == METASTOCK_ATTRS
    assert s.schema.type_names == tuple(dict.fromkeys(f[0] for f in fields))
    assert s.source == str(NASDAQ)
    for i in (0, 1, len(lines) // 2, len(lines) - 1):
        f = fields[i]
        assert s.schema.type_names[s.types[i]] == f[0]
        assert s.ts[i] == _utc_seconds(f[1])
        assert s.attrs[i].tolist() == [float(v) for v in f[2:]]
    assert s.types.dtype == np.int32 and s.ts.dtype == np.float64
    assert np.all(np.diff(s.ts) >= 0)
    # every timestamp is a whole minute
    assert np.all(np.mod(s.ts, 60.0) == 0)


def test_soccer_sample_matches_file_text():
    lines = _lines(SOCCER)
    fields = [ln.split(",") for ln in lines]
    s, offset = load_soccer(SOCCER, return_offset=True)
    assert len(s) == len(lines)
    assert s.schema.attr_names == SOCCER_ATTRS
    assert s.schema.type_names == tuple(dict.fromkeys(f[0] for f in fields))
    first_ps = int(fields[0][1])
    assert offset == first_ps
    assert s.ts[0] == 0.0
    # picosecond offsets survive exactly: ts * 1e12 rounds back to the integer difference
    rel = np.array([int(f[1]) - first_ps for f in fields], dtype=np.int64)
    assert np.array_equal(np.round(s.ts * 1e12).astype(np.int64), rel)
    for i in (0, len(lines) - 1):
        assert s.schema.type_names[s.types[i]] == fields[i][0]
        assert s.attrs[i].tolist() == [float(v) for v in fields[i][2:]]
    plain = load_soccer(SOCCER)
    assert np.array_equal(plain.ts, s.ts)


# --------------------------------------------------------------------------- timestamp arithmetic

def test_metastock_minutes_across_day_month_year_boundaries(tmp_path):
    stamps = ["200802282359", "200802290000", "200802290001", "200802292359", "200803010000",
              "200812312359", "200901010000"]
    p = _write(tmp_path, "x.txt", [f"AAA,{st},1,2,0.5,1.5,100" for st in stamps])
    s = load_metastock(p)
    expected = [_utc_seconds(st) for st in stamps]
    assert s.ts.tolist() == expected
    assert s.ts[0] == datetime(2008, 2, 28, 23, 59, tzinfo=timezone.utc).timestamp()
    assert np.diff(s.ts)[[0, 1, 3, 5]].tolist() == [60.0, 60.0, 60.0, 60.0]


def test_soccer_relative_picoseconds_are_exact(tmp_path):
    first = 10634757171903878
    # why the offset: absolute float64 seconds at this magnitude are ~2 ps apart
    assert np.spacing(first / 1e12) > 1e-12
    deltas = [0, 1, 2, 49_999_999_999, 50_000_000_000, 50_000_000_001, 21_364_963_434_040]
    rows = [f"8,{first + d},1,2,3,4,5,6,7,8,9,10,11" for d in deltas]
    s, off = load_soccer(_write(tmp_path, "s.txt", rows), return_offset=True)
    assert off == first
    assert s.ts.tolist() == [d / 1e12 for d in deltas]
    assert np.round(s.ts * 1e12).astype(np.int64).tolist() == deltas
    assert np.all(np.diff(s.ts) > 0)
    window = 5e10 / 1e12
    assert s.ts[3] - s.ts[0] < window < s.ts[5] - s.ts[0]


# --------------------------------------------------------------------------- generic round trips

def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 50
    return pd.DataFrame({
        "kind": rng.choice(["B", "A", "C"], n),
        "t": np.sort(rng.integers(1_600_000_000_000, 1_600_000_100_000, n)),   # ms
        "price": rng.normal(100, 5, n),
        "hist[0]": rng.random(n),
        "hist[1]": rng.random(n),
        "ignored": ["x"] * n,
    })


SCHEMA = {"type_column": "kind", "ts_column": "t", "ts_unit": "ms",
          "attributes": ["price", "hist[0]", "hist[1]"]}


def _check_same(s, df):
    assert len(s) == len(df)
    assert s.schema.attr_names == ("price", "hist[0]", "hist[1]")
    assert s.schema.vector("hist") == (1, 2)
    assert [s.schema.type_names[t] for t in s.types] == df["kind"].tolist()
    assert np.array_equal(s.ts, df["t"].to_numpy() / 1e3)
    assert np.array_equal(s.attrs, df[["price", "hist[0]", "hist[1]"]].to_numpy())


def test_csv_round_trip_dict_and_toml_schema(tmp_path):
    df = _frame()
    p = tmp_path / "ev.csv"
    df.to_csv(p, index=False)
    _check_same(load_csv(p, SCHEMA), df)
    toml = tmp_path / "schema.toml"
    toml.write_text('[schema]\ntype_column = "kind"\nts_column = "t"\nts_unit = "ms"\n'
                    'attributes = ["price", "hist[0]", "hist[1]"]\ntypes = ["C", "B", "A"]\n')
    s = load_stream(p, schema=toml)
    _check_same(s, df)
    assert s.schema.type_names == ("C", "B", "A")


def test_parquet_round_trip_and_default_attributes(tmp_path):
    df = _frame()
    p = tmp_path / "ev.parquet"
    df.drop(columns="ignored").to_parquet(p, index=False)
    _check_same(load_parquet(p, SCHEMA), df)
    s = load_stream(p, schema={k: v for k, v in SCHEMA.items() if k != "attributes"})
    assert s.schema.attr_names == ("price", "hist[0]", "hist[1]")


def test_parquet_datetime_and_relative_integer_ps(tmp_path):
    base = 10634757171903878
    df = pd.DataFrame({"type": [8, 13, 8], "ts": [base, base + 1, base + 50_000_000_000],
                       "x": [1.0, 2.0, 3.0]})
    p = tmp_path / "ps.parquet"
    df.to_parquet(p, index=False)
    s = load_parquet(p, {"ts_unit": "ps", "ts_relative": True})
    assert s.schema.type_names == ("8", "13")
    assert s.ts.tolist() == [0.0, 1e-12, 0.05]
    dt = pd.DataFrame({"type": ["a", "b"], "ts": pd.to_datetime(["2008-02-01 09:00",
                                                                  "2008-02-01 09:01"], utc=True),
                       "v": [1.0, 2.0]})
    q = tmp_path / "dt.parquet"
    dt.to_parquet(q, index=False)
    s = load_parquet(q, {})
    assert s.ts.tolist() == [_utc_seconds("200802010900"), _utc_seconds("200802010901")]


def test_csv_allow_missing_keeps_nan(tmp_path):
    p = _write(tmp_path, "m.csv", ["type,ts,v", "A,1,1.5", "B,2,", "A,3,nan"])
    s = load_csv(p, {"allow_missing": True})
    assert s.attrs[0, 0] == 1.5 and np.isnan(s.attrs[1:, 0]).all()


def test_load_stream_dispatch(tmp_path):
    assert len(load_stream(NASDAQ, fmt="metastock")) == len(_lines(NASDAQ))
    assert len(load_stream(SOCCER, fmt="soccer")) == len(_lines(SOCCER))
    with pytest.raises(StreamError, match="--format"):
        load_stream(NASDAQ)
    csv = _write(tmp_path, "a.csv", ["type,ts,v", "A,1,2"])
    with pytest.raises(StreamError, match="needs a schema"):
        load_stream(csv)
    with pytest.raises(StreamError, match="unknown format 'xls'"):
        load_stream(csv, fmt="xls")
    with pytest.raises(StreamError, match="fixed layout"):
        load_stream(NASDAQ, fmt="metastock", schema={})


# --------------------------------------------------------------------------- errors

def _nasdaq_variant(tmp_path, edit) -> Path:
    """The first five sample lines with ``edit(lines)`` applied."""
    lines = _lines(NASDAQ)[:5]
    edit(lines)
    return _write(tmp_path, "bad.txt", lines)


def _soccer_variant(tmp_path, edit) -> Path:
    lines = _lines(SOCCER)[:5]
    edit(lines)
    return _write(tmp_path, "bad_soccer.txt", lines)


def _set_field(lines, i, k, value):
    f = lines[i].split(",")
    f[k] = value
    lines[i] = ",".join(f)


def test_error_missing_file(tmp_path):
    missing = tmp_path / "nope.txt"
    for loader in (load_metastock, load_soccer):
        with pytest.raises(StreamError, match="nope.txt: file not found"):
            loader(missing)
    with pytest.raises(StreamError, match="file not found"):
        load_parquet(tmp_path / "nope.parquet", {})


def test_error_empty_file(tmp_path):
    p = tmp_path / "empty.txt"
    p.write_text("\n\n")
    with pytest.raises(StreamError, match="empty.txt: file is empty"):
        load_metastock(p)
    h = _write(tmp_path, "h.csv", ["type,ts,v"])
    with pytest.raises(StreamError, match="no events"):
        load_csv(h, {})


def test_error_wrong_column_count(tmp_path):
    p = _nasdaq_variant(tmp_path, lambda ls: ls.__setitem__(2, ls[2] + ",999"))
    with pytest.raises(StreamError, match=r"line 3 has 8 fields but 7 are expected") as e:
        load_metastock(p)
    assert str(p) in str(e.value)
    q = _soccer_variant(tmp_path, lambda ls: ls.__setitem__(3, ls[3].rsplit(",", 1)[0]))
    with pytest.raises(StreamError, match=r"line 4 has 12 fields but 13 are expected"):
        load_soccer(q)


def test_error_blank_line_inside(tmp_path):
    p = _nasdaq_variant(tmp_path, lambda ls: ls.insert(2, ""))
    with pytest.raises(StreamError, match="line 3 is empty"):
        load_metastock(p)


def test_error_unparsable_number(tmp_path):
    p = _nasdaq_variant(tmp_path, lambda ls: _set_field(ls, 1, 3, "31.3x"))
    with pytest.raises(StreamError, match=r"line 2, field 4 \(high\) '31.3x' is not a number"):
        load_metastock(p)
    q = _soccer_variant(tmp_path, lambda ls: _set_field(ls, 2, 1, "1.06e16"))
    with pytest.raises(StreamError, match=r"line 3, field 2 \(ts\) '1.06e16' is not a whole"):
        load_soccer(q)
    r = _soccer_variant(tmp_path, lambda ls: _set_field(ls, 1, 1, "9223372036854775808"))
    with pytest.raises(StreamError, match=r"line 2, field 2 \(ts\) '9223372036854775808' is not "
                                          r"a whole number in int64 range"):
        load_soccer(r)


@pytest.mark.parametrize("stamp", ["2008020109", "200813010900", "200802300900", "20080201090a"])
def test_error_bad_timestamp(tmp_path, stamp):
    p = _nasdaq_variant(tmp_path, lambda ls: _set_field(ls, 3, 1, stamp))
    with pytest.raises(StreamError, match=rf"line 4, field 2 \(stamp\): '{stamp}' is not a valid "
                                          r"YYYYMMDDhhmm"):
        load_metastock(p)


def test_error_unsorted_timestamps(tmp_path):
    def swap(ls):
        ls[2] = ls[2].split(",")[0] + ",200802010859," + ",".join(ls[2].split(",")[2:])
    p = _nasdaq_variant(tmp_path, swap)
    with pytest.raises(StreamError, match=r"non-decreasing, but line 3 \(stamp 200802010859\) is "
                                          r"earlier than line 2"):
        load_metastock(p)
    q = _soccer_variant(tmp_path, lambda ls: ls.reverse())
    with pytest.raises(StreamError, match=r"line 2 .* is earlier than line 1"):
        load_soccer(q)


def test_error_empty_and_nan_fields(tmp_path):
    p = _nasdaq_variant(tmp_path, lambda ls: _set_field(ls, 1, 2, ""))
    with pytest.raises(StreamError, match=r"line 2, field 3 \(open\) is empty"):
        load_metastock(p)
    q = _soccer_variant(tmp_path, lambda ls: _set_field(ls, 4, 5, "NaN"))
    with pytest.raises(StreamError, match=r"line 5, field 6 \(v\) is 'NaN'"):
        load_soccer(q)
    t = _nasdaq_variant(tmp_path, lambda ls: _set_field(ls, 0, 0, " "))
    with pytest.raises(StreamError, match=r"line 1, field 1 \(ticker\) is empty"):
        load_metastock(t)


def test_error_generic_csv(tmp_path):
    with pytest.raises(StreamError, match=r"column\(s\) \['price'\] named by the schema"):
        load_csv(_write(tmp_path, "a.csv", ["type,ts,v", "A,1,2"]), {"attributes": ["price"]})
    with pytest.raises(StreamError, match=r"line 3, column 'v' 'abc' is not a number"):
        load_csv(_write(tmp_path, "b.csv", ["type,ts,v", "A,1,2", "A,2,abc"]), {})
    with pytest.raises(StreamError, match=r"line 3, column 'v' is empty or NaN"):
        load_csv(_write(tmp_path, "c.csv", ["type,ts,v", "A,1,2", "A,2,"]), {})
    with pytest.raises(StreamError, match=r"non-decreasing, but line 4 \(ts=1\)"):
        load_csv(_write(tmp_path, "d.csv", ["type,ts,v", "A,1,2", "A,3,2", "A,1,2"]), {})
    with pytest.raises(StreamError, match=r"line 2, column 'type': type 'Z' is not among"):
        load_csv(_write(tmp_path, "e.csv", ["type,ts,v", "Z,1,2"]), {"types": ["A"]})
    with pytest.raises(StreamError, match=r"line 3 has 2 fields but 3 are expected"):
        load_csv(_write(tmp_path, "f.csv", ["type,ts,v", "A,1,2", "A,2"]), {})
    with pytest.raises(StreamError, match=r"line 2, column 'ts' 'soon' is not a number"):
        load_csv(_write(tmp_path, "g.csv", ["type,ts,v", "A,soon,2"]), {})
    with pytest.raises(StreamError, match=r"repeats column name\(s\) \['v'\]"):
        load_csv(_write(tmp_path, "h.csv", ["type,ts,v,v", "A,1,2,3"]), {})


def test_error_parquet_rows_are_one_based(tmp_path):
    df = pd.DataFrame({"type": ["A", "B", "A"], "ts": [1.0, 2.0, 3.0], "v": [1.0, np.nan, 2.0]})
    p = tmp_path / "n.parquet"
    df.to_parquet(p, index=False)
    with pytest.raises(StreamError, match=r"row 2 \(1-based\), column 'v' is empty or NaN"):
        load_parquet(p, {})
    bad = tmp_path / "not.parquet"
    bad.write_text("type,ts\n")
    with pytest.raises(StreamError, match="not a readable Parquet file"):
        load_parquet(bad, {})


def test_error_bad_schema(tmp_path):
    with pytest.raises(StreamError, match=r"unknown schema key\(s\) \['ts_col'\]"):
        load_schema({"ts_col": "t"})
    with pytest.raises(StreamError, match="ts_unit 'min' is not one of"):
        load_schema({"ts_unit": "min"})
    toml = tmp_path / "s.toml"
    toml.write_text("ts_unit = \n")
    with pytest.raises(StreamError, match="not valid TOML"):
        load_schema(toml)
    assert issubclass(StreamError, CepsimInputError)


# --------------------------------------------------------------------------- fast path

def test_fast_path_reads_the_samples_and_equals_the_precise_path(tmp_path):
    """The pyarrow/integer fast path accepts the real samples and gives the same stream as the
    pandas path that diagnoses errors (forced here by a leading space, which only the precise
    path accepts)."""
    from workloads.formats.metastock import _fast_metastock
    from workloads.formats.rawfile import read_bytes
    from workloads.formats.soccer import _fast_soccer
    p, data = read_bytes(NASDAQ, "")
    fast = _fast_metastock(data, p)
    assert fast is not None
    lines = _lines(NASDAQ)
    slow = load_metastock(_write(tmp_path, "slow.txt", [" " + ln for ln in lines]))
    assert np.array_equal(fast.types, slow.types) and np.array_equal(fast.ts, slow.ts)
    assert np.array_equal(fast.attrs, slow.attrs) and fast.schema == slow.schema
    p, data = read_bytes(SOCCER, "")
    fs, off = _fast_soccer(data, p)
    ss, off2 = load_soccer(_write(tmp_path, "slow2.txt",
                                  [" " + ln for ln in _lines(SOCCER)]), return_offset=True)
    assert off == off2 and np.array_equal(fs.ts, ss.ts) and np.array_equal(fs.attrs, ss.attrs)
    assert np.array_equal(fs.types, ss.types) and fs.schema == ss.schema


@pytest.mark.parametrize("stamp", ["200802300900", "200902290900", "200802011260",
                                   "200813010900", "200802012400", "190002290000"])
def test_fast_path_rejects_calendar_invalid_stamps(tmp_path, stamp):
    lines = _lines(NASDAQ)[:3]
    f = lines[1].split(",")
    f[1] = stamp
    lines[1] = ",".join(f)
    with pytest.raises(StreamError, match=r"line 2, field 2 \(stamp\).*YYYYMMDDhhmm"):
        load_metastock(_write(tmp_path, "bad.txt", lines))


def test_fast_path_accepts_leap_day(tmp_path):
    lines = _lines(NASDAQ)[:1]
    f = lines[0].split(",")
    f[1] = "200002291230"
    s = load_metastock(_write(tmp_path, "leap.txt", [",".join(f)]))
    assert s.ts[0] == _utc_seconds("200002291230")


@pytest.mark.parametrize("stamp", ["0200802010900", "20080201090", "+20080201090", " 200802010900",
                                   "2008020109OO", "000102010900"])
def test_fast_path_declines_stamps_that_are_not_12_digits(tmp_path, stamp):
    """The compiled stamp scan accepts exactly 12 digits of a valid minute; anything else goes
    to the precise path (which strips blanks or names the line)."""
    from workloads.formats.metastock import _fast_metastock
    from workloads.formats.rawfile import read_bytes
    lines = _lines(NASDAQ)[:3]
    f = lines[1].split(",")
    f[1] = stamp
    lines[1] = ",".join(f)
    p, data = read_bytes(_write(tmp_path, "odd.txt", lines), "")
    assert _fast_metastock(data, p) is None


@pytest.mark.parametrize("long_number", [False, True])
def test_fast_path_multi_block_crlf_equals_precise_path(tmp_path, long_number):
    """A file larger than one CSV block (tickers first seen in the second block, CRLF line ends):
    the fast path's codes, stamps and values equal the precise path's -- read by the compiled
    scan, or (a 16-digit value makes the scan decline) by pyarrow, whose per-block dictionaries
    are merged in first-appearance order."""
    from workloads.formats.metastock import _fast_metastock
    from workloads.formats.rawfile import read_bytes
    from workloads.metastock_scan import POW10, SCAN_OK, scan_metastock
    rng = np.random.default_rng(7)
    n = 95_000                                        # ~4.6 MB > the 4 MiB block
    tick = np.where(np.arange(n) < n // 2, rng.choice(["XA", "XB"], n),
                    rng.choice(["XC", "XA", "XD", "XB"], n))
    minutes = np.cumsum(rng.integers(0, 2, n))
    stamps = (np.datetime64("2019-12-31T23:00") + minutes.astype("timedelta64[m]")).astype(str)
    stamps = [s.replace("-", "").replace("T", "").replace(":", "") for s in stamps]
    lines = [f"{t},{s},{i % 97}.25,{i % 89}.5,{i % 83}.75,{i % 79}.125,{i}"
             for i, (t, s) in enumerate(zip(tick, stamps))]
    if long_number:
        f = lines[10].split(",")
        f[3] = "1234567.890123456"
        lines[10] = ",".join(f)
    path = tmp_path / "big.txt"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    p, data = read_bytes(path, "")
    scanned = scan_metastock(np.frombuffer(data, np.uint8), 5, POW10)[0] == SCAN_OK
    assert scanned != long_number
    fast = _fast_metastock(data, p)
    assert fast is not None
    slow = load_metastock(_write(tmp_path, "slow.txt", [" " + ln for ln in lines]))
    names = list(fast.schema.type_names)
    assert fast.schema == slow.schema and set(names[:2]) == {"XA", "XB"} and \
        set(names[2:]) == {"XC", "XD"}
    assert np.array_equal(fast.types, slow.types) and np.array_equal(fast.ts, slow.ts)
    assert np.array_equal(fast.attrs, slow.attrs)


def test_compiled_metastock_scan_parses_numbers_exactly(tmp_path):
    """The one-pass scan's float conversion (<= 15 digits, exact division by a power of ten)
    gives the same doubles as the precise pandas path, for signs, leading/trailing points and
    zeros, and up to 15 digits; a 16-digit value makes the scan decline (pyarrow reads it)."""
    from workloads.formats.rawfile import read_bytes
    from workloads.metastock_scan import POW10, SCAN_BAD, SCAN_OK, scan_metastock
    rng = np.random.default_rng(11)

    def num(max_digits):
        nd = int(rng.integers(1, max_digits + 1))
        digits = "".join(str(d) for d in rng.integers(0, 10, nd))
        cut = int(rng.integers(0, nd + 1))
        s = digits[:cut] + ("." if rng.random() < 0.8 else "") + digits[cut:]
        s = s if any(ch.isdigit() for ch in s) else "0"
        return ("-" if rng.random() < 0.3 else "") + s

    lines = [f"T{i % 5},{200801010000 + i // 60 * 100 + i % 60},"
             + ",".join(num(15) for _ in range(5)) for i in range(1200)]
    path = _write(tmp_path, "nums.txt", lines)
    p, data = read_bytes(path, "")
    st, codes, ts, attrs, keys = scan_metastock(np.frombuffer(data, np.uint8), 5, POW10)
    assert st == SCAN_OK
    slow = load_metastock(_write(tmp_path, "slow.txt", [" " + ln for ln in lines]))
    assert np.array_equal(attrs, slow.attrs)          # bit-identical doubles (-0.0 == 0.0)
    assert ts.tobytes() == slow.ts.tobytes() and np.array_equal(codes, slow.types)
    assert load_metastock(path).attrs.tobytes() == attrs.tobytes()
    f = lines[3].split(",")
    f[4] = "1234567.890123456"                          # 16 digits: declined, still loaded right
    lines[3] = ",".join(f)
    path2 = _write(tmp_path, "long.txt", lines)
    p2, data2 = read_bytes(path2, "")
    assert scan_metastock(np.frombuffer(data2, np.uint8), 5, POW10)[0] == SCAN_BAD
    assert load_metastock(path2).attrs[3, 2] == 1234567.890123456


def test_compiled_metastock_scan_one_pass_sizes_and_statuses():
    """The scan reads the file once (no line-count pass; outputs sized for the
    most lines the bytes can hold).  Lines of the minimum length (every byte a line can spare)
    all fit and give one row each; the first bad or out-of-order line decides the status, and
    bytes after the last newline make the file SCAN_BAD only after every line before them was
    read -- even when those bytes look like a complete, out-of-order line."""
    from workloads.metastock_scan import POW10, SCAN_BAD, SCAN_OK, SCAN_UNSORTED, scan_metastock

    def scan(text):
        return scan_metastock(np.frombuffer(text.encode(), np.uint8), 5, POW10)

    minimal = [f"{'ABC'[i % 3]},2008010100{i % 60:02d},{i % 10},1,2,3,{i % 7}" for i in range(60)]
    text = "\n".join(minimal) + "\n"
    assert {len(ln) + 1 for ln in minimal} == {25}
    st, codes, ts, attrs, keys = scan(text)
    assert st == SCAN_OK and len(codes) == len(ts) == len(attrs) == 60 and len(keys) == 3
    assert codes.tolist() == [i % 3 for i in range(60)]
    assert attrs[:, 0].tolist() == [float(i % 10) for i in range(60)]
    assert np.array_equal(np.diff(ts), np.full(59, 60.0))
    later, earlier = "A,200801010005,1,1,1,1,1", "A,200801010004,1,1,1,1,1"
    bad = "A,200801010006,1,1,x,1,1"
    assert scan(f"{later}\n{earlier}")[0] == SCAN_BAD        # no final newline
    assert scan(f"{later}\n{earlier}\n")[0] == SCAN_UNSORTED
    assert scan(f"{later}\n{earlier}\n{bad}\n")[0] == SCAN_UNSORTED     # the first problem
    assert scan(f"{earlier}\n{bad}\n{earlier}\n")[0] == SCAN_BAD
    assert scan(f"{earlier}\r\n{later}\r\n")[0] == SCAN_OK
    assert scan(f"{earlier}\n{later}\n\n")[0] == SCAN_BAD               # an empty line


def test_compiled_metastock_reader_equals_the_precise_reader_with_edge_cases(tmp_path,
                                                                             monkeypatch):
    """The compiled reader (``scan_metastock``, calls written out so its loop
    pays no reference counts) gives exactly the arrays of the precise pandas reader (forced by
    disabling the fast path) on a file with CRLF line ends, trailing blank lines, signs, leading
    and trailing points, a 7-byte ticker, a leap day and repeated stamps; a header line, a blank
    line inside and a bad value are CepsimInputErrors naming the file and the line, with the
    same message from both readers."""
    import workloads.formats.metastock as ms
    lines = ["AAPL,200802282359,136.2,136.2,-1.5,.25,6700",
             "ABCDEFG,200802290000,79.,79.36,79.25,79.36,0",
             "GOOG,200802290000,532.04,532.04,530.51,530.51,17665",
             "AAPL,200803010000,-0.5,136.25,136,136.125,100000000000000"]
    path = tmp_path / "edge.txt"
    path.write_bytes(("\r\n".join(lines) + "\r\n\r\n\n").encode())
    fast = load_metastock(path)

    def precise(p):
        with monkeypatch.context() as m:
            m.setattr(ms, "_fast_metastock", lambda data, p: None)
            return load_metastock(p)

    slow = precise(path)
    assert fast.schema == slow.schema and list(fast.schema.type_names) == ["AAPL", "ABCDEFG",
                                                                           "GOOG"]
    assert fast.types.tobytes() == slow.types.tobytes() and fast.types.dtype == slow.types.dtype
    assert fast.ts.tobytes() == slow.ts.tobytes()
    assert fast.attrs.tobytes() == slow.attrs.tobytes()
    assert fast.ts[1] == _utc_seconds("200802290000")
    bad = {"header": (["ticker,stamp,open,high,low,close,volume"] + lines, 1),
           "blank": (lines[:2] + [""] + lines[2:], 3),
           "value": (lines[:3] + [lines[3].replace("136.25", "136.2.5")], 4)}
    for name, (content, line) in bad.items():
        p = _write(tmp_path, f"{name}.txt", content)
        msgs = []
        for reader in (load_metastock, precise):
            with pytest.raises(CepsimInputError, match=rf"line {line}\b") as e:
                reader(p)
            assert str(p) in str(e.value)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]


def test_metastock_reader_maps_plain_files_and_reads_the_rest_identically(tmp_path):
    """``map_file`` maps only a file ``read_bytes`` would return unchanged (one final newline,
    not gzip); every variant of one content loads to the same arrays."""
    import gzip as gz

    from workloads.formats.rawfile import map_file
    text = "\n".join(_lines(NASDAQ)[:40])
    variants = {"plain.txt": (text + "\n").encode(), "none.txt": text.encode(),
                "blank.txt": (text + "\n\n\r\n").encode(),
                "zipped.txt.gz": gz.compress((text + "\n").encode())}
    ref = None
    for name, raw in variants.items():
        p = tmp_path / name
        p.write_bytes(raw)
        mapped = map_file(p)
        assert (mapped is not None) == (name == "plain.txt"), name
        if mapped is not None:
            assert bytes(mapped[1]) == raw and mapped[0] == p
        s = load_metastock(p)
        if ref is None:
            ref = s
        assert s.schema == ref.schema and s.types.tobytes() == ref.types.tobytes()
        assert s.ts.tobytes() == ref.ts.tobytes() and s.attrs.tobytes() == ref.attrs.tobytes()

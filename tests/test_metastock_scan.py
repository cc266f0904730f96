"""The Metastock scan read as two parts on two threads equals the one-part scan bit for bit
in every case: codes numbered by first appearance in the file (tickers first seen in the
second part), the seam's stamp order, CRLF line ends, bad lines in either part, bytes after the
last newline -- the status and every array.  The one-part scan is compared with the precise
pandas reader in tests/test_loaders.py."""
from __future__ import annotations

import numpy as np
import pytest

from workloads.metastock_scan import (POW10, SCAN_BAD, SCAN_OK, SCAN_UNSORTED,
                                      line_start_after, scan_metastock)


def _scan(data: bytes, parts: int):
    return scan_metastock(np.frombuffer(data, np.uint8), 5, POW10, parts=parts,
                          split_min_bytes=0)


def _same(data: bytes):
    """Both scans of ``data``; asserts they agree and returns the status."""
    one = _scan(data, 1)
    two = _scan(data, 2)
    assert one[0] == two[0]
    for a, b in zip(one[1:], two[1:]):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return one[0]


def _number(rng) -> str:
    nd = int(rng.integers(1, 8))
    digits = "".join(str(d) for d in rng.integers(0, 10, nd))
    cut = int(rng.integers(0, nd + 1))
    s = digits[:cut] + ("." if rng.random() < 0.6 else "") + digits[cut:]
    return ("-" if rng.random() < 0.1 else "") + s


def _lines(rng, n: int, late_tickers: bool) -> list[str]:
    early = ["AAPL", "AMZN", "GOOG", "X"]
    late = ["MSFT", "ABCDEFG", "AAPL"] if late_tickers else early
    minute = 0
    out = []
    for i in range(n):
        minute += int(rng.integers(0, 2))
        pool = early if i < n // 2 else late
        stamp = (np.datetime64("2008-01-01T00:00") + np.timedelta64(minute, "m")).astype(str)
        stamp = stamp.replace("-", "").replace("T", "").replace(":", "")
        out.append(",".join([pool[int(rng.integers(0, len(pool)))], str(stamp)]
                            + [_number(rng) for _ in range(5)]))
    return out


def _join(lines: list[str], rng) -> bytes:
    return "".join(ln + ("\r\n" if rng.random() < 0.3 else "\n") for ln in lines).encode()


@pytest.mark.parametrize("seed", range(40))
def test_two_part_scan_equals_one_part_scan_on_random_files(seed):
    """Random files: tickers first seen in the second half, CRLF mixed with LF, and one of: a
    clean file, a bad value or an out-of-order stamp in either half or at the seam, bytes
    after the last newline, an empty line."""
    rng = np.random.default_rng(seed)
    lines = _lines(rng, int(rng.integers(2, 400)), late_tickers=seed % 2 == 0)
    case = seed % 8
    data = _join(lines, rng)
    mid = line_start_after(np.frombuffer(data, np.uint8), len(data) // 2)
    seam = data[:mid].count(b"\n")               # index of the second part's first line
    if case == 1:                                # a bad value in the first / second part
        k = int(rng.integers(0, max(seam, 1)))
        lines[k] = lines[k].replace(",", ",x", 3)
    elif case == 2 and seam < len(lines):
        k = int(rng.integers(seam, len(lines)))
        lines[k] = lines[k] + ",1"
    elif case == 3 and 0 < seam < len(lines):    # out of order exactly at the seam
        f = lines[seam].split(",")
        f[1] = "200712312359"
        lines[seam] = ",".join(f)
    elif case == 4 and seam + 1 < len(lines):    # out of order inside the second part
        f = lines[-1].split(",")
        f[1] = "200712312359"
        lines[-1] = ",".join(f)
    if case in (1, 2, 3, 4):
        data = _join(lines, rng)
    if case == 5:
        data = data + lines[0].encode()          # no newline after the last line
    if case == 6:
        cut = data.index(b"\n", len(data) // 2) + 1 if b"\n" in data[len(data) // 2:] else 0
        data = data[:cut] + b"\n" + data[cut:]    # an empty line near the seam
    status = _same(data)
    if case == 0 or case == 7:
        assert status == SCAN_OK
    if case == 5 or case == 6:
        assert status == SCAN_BAD


def test_two_part_scan_seam_cases():
    """The seam itself: a second part whose every ticker is new (codes continue after the first
    part's), a second part of one line, an out-of-order first line of the second part (SCAN_
    UNSORTED, as one pass), a first line of the second part that is bad, and a one-line file
    (nothing to split)."""
    first = [f"A,2008010100{m:02d},1,2,3,4,5" for m in range(6)]
    second = [f"{t},2008010100{m:02d},1.5,2,3,4,5" for m, t in zip(range(6, 12), "BCBDCB")]
    data = ("\n".join(first + second) + "\n").encode()
    st, codes, ts, attrs, keys = _scan(data, 2)
    assert st == SCAN_OK and _same(data) == SCAN_OK
    assert codes.tolist() == [0] * 6 + [1, 2, 1, 3, 2, 1] and len(keys) == 4
    long_first = [f"A,2008010100{m:02d},1,2,3,4,5" for m in range(20)]
    one_more = long_first + ["B,200801010020,1,2,3,4,5"]
    assert _same(("\n".join(one_more) + "\n").encode()) == SCAN_OK
    buf = ("\n".join(first + second) + "\n").encode()
    mid = line_start_after(np.frombuffer(buf, np.uint8), len(buf) // 2)
    seam = buf[:mid].count(b"\n")
    early = first + second
    early[seam] = early[seam].replace(early[seam].split(",")[1], "200801010000")
    assert seam > 1 and _same(("\n".join(early) + "\n").encode()) == SCAN_UNSORTED
    bad = first + second
    bad[seam] = bad[seam].replace(",1", ",1.2.3", 1)
    assert _same(("\n".join(bad) + "\n").encode()) == SCAN_BAD
    assert _same(b"A,200801010000,1,2,3,4,5\n") == SCAN_OK
    assert _same(b"A,200801010000,1,2,3,4,5\r\n") == SCAN_OK


@pytest.mark.slow
def test_default_scan_uses_two_parts_only_with_an_idle_cpu(monkeypatch):
    """A file above ``SPLIT_MIN_BYTES`` is read on two threads when ``_idle_cpu`` says a CPU is
    free, on one otherwise; the arrays are the same either way."""
    import workloads.metastock_scan as ms
    rng = np.random.default_rng(5)
    lines = _lines(rng, 30_000, late_tickers=True)
    data = ("\n".join(lines) + "\n").encode()
    assert len(data) >= ms.SPLIT_MIN_BYTES
    seen = []
    real = ms.line_start_after

    def spy(buf, p):
        seen.append(p)
        return real(buf, p)

    monkeypatch.setattr(ms, "line_start_after", spy)
    results = []
    for idle in (True, False):
        monkeypatch.setattr(ms, "_idle_cpu", lambda idle=idle: idle)
        seen.clear()
        results.append(ms.scan_metastock(np.frombuffer(data, np.uint8), 5))
        assert bool(seen) == (idle and len(ms._CPUS) >= 2)
    assert results[0][0] == results[1][0] == SCAN_OK
    for a, b in zip(results[0][1:], results[1][1:]):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("text, idle", [(b"0.50 0.40 0.30 1/120 4567\n", True),
                                        (b"3.10 2.90 2.70 64/300 4567\n", False),
                                        (b"garbage\n", False)])
def test_idle_cpu_reads_the_runnable_count(monkeypatch, text, idle):
    """``_idle_cpu``: a CPU is idle when /proc/loadavg's runnable count (this thread included)
    is below the CPU count; an unreadable file means no."""
    import os

    import workloads.metastock_scan as ms
    monkeypatch.setattr(ms.os, "cpu_count", lambda: 2)
    real_open = os.open

    def fake_open(path, flags, *a):
        assert path == "/proc/loadavg"
        return real_open(os.devnull, flags)

    monkeypatch.setattr(ms.os, "open", fake_open)
    monkeypatch.setattr(ms.os, "read", lambda fd, n: text)
    assert ms._idle_cpu() is idle

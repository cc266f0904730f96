"""Compiled reading of a Metastock file's bytes: ``scan_metastock`` (the whole file: codes,
stamps as seconds, values; on two threads for large files) and ``scan_metastock_minutes`` (the
stamps only, beside pyarrow's reader for files the full scan declines).

Why compiled: the stamp column is the only one pyarrow does not convert for us exactly
(``YYYYMMDDhhmm`` is an integer, not a date), and a numpy version needs several passes and
temporaries the size of the file (comma positions, a digit matrix); the kernels read each
line's 12 stamp bytes once, check them and convert them with the civil-date formula.  They
accept only what the precise (pandas) path accepts -- exactly 12 digits between the first and
second comma, a valid calendar minute, non-decreasing stamps -- and otherwise report failure so
the loader runs the precise diagnosis that names the line.
"""
from __future__ import annotations

import os
import threading

import numpy as np
from numba import njit

SCAN_OK = 0
SCAN_BAD = 1      # a stamp that is not 12 digits, a bad calendar value, or a line count mismatch
SCAN_UNSORTED = 2


@njit(cache=True)
def _days_from_civil(y, m, d):
    """Days since 1970-01-01 (H. Hinnant's algorithm, the same formula as the numpy version)."""
    if m <= 2:
        y -= 1
    era = y // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True)
def _civil_minute(v):
    """Minutes since the epoch of the 12-digit value ``v`` = ``YYYYMMDDhhmm``, or -1 when it is
    not a valid calendar minute.  Scalars only: a compiled call with an array argument costs an
    atomic reference count update per array, more than this arithmetic (docs/ENGINEERING.md,
    "Numba hot loops")."""
    mi = v % 100
    hh = (v // 100) % 100
    d = (v // 10000) % 100
    mo = (v // 1000000) % 100
    y = v // 100000000
    if y < 1000 or mo < 1 or mo > 12 or d < 1 or hh > 23 or mi > 59:
        return np.int64(-1)
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    if mo == 2:
        dim = 29 if leap else 28
    elif mo == 4 or mo == 6 or mo == 9 or mo == 11:
        dim = 30
    else:
        dim = 31
    if d > dim:
        return np.int64(-1)
    return (_days_from_civil(y, mo, d) * 24 + hh) * 60 + mi


@njit(cache=True)
def _stamp_minute(buf, j):
    """Minutes since the epoch of the 12 stamp digits ``buf[j+1 .. j+12]`` (``YYYYMMDDhhmm``),
    or -1 when they are not 12 digits or not a valid calendar minute.  The caller checks the
    commas around them."""
    v = np.int64(0)
    for k in range(j + 1, j + 13):
        c = np.int64(buf[k]) - 48
        if c < 0 or c > 9:
            return np.int64(-1)
        v = v * 10 + c
    return _civil_minute(v)


@njit(cache=True)
def scan_metastock_minutes(buf, n):
    """(status, minutes[n]) for the ``n`` lines of ``buf`` (uint8, lines ending in ``\\n``)."""
    out = np.empty(n, dtype=np.int64)
    size = buf.shape[0]
    i = 0
    line = 0
    while i < size and line < n:
        j = i
        while j < size and buf[j] != 44 and buf[j] != 10:
            j += 1
        if j + 13 >= size or buf[j] != 44 or buf[j + 13] != 44:
            return SCAN_BAD, out
        m_ = _stamp_minute(buf, j)
        if m_ < 0:
            return SCAN_BAD, out
        if line > 0 and m_ < out[line - 1]:
            return SCAN_UNSORTED, out
        out[line] = m_
        k = j + 14
        while k < size and buf[k] != 10:
            k += 1
        i = k + 1
        line += 1
    if line != n:
        return SCAN_BAD, out
    return SCAN_OK, out


# exact powers of ten: 10**p is a double exactly for p <= 22 (Clinger's fast path)
POW10 = np.array([10.0 ** p for p in range(23)], dtype=np.float64)
_MAX_TICKERS = 2048
# unsigned constants for byte positions and shifts (uint64 with an int64 is float64 in Numba)
_U1, _U2, _U3, _U4, _U5, _U6, _U7 = (np.uint64(k) for k in range(1, 8))
_U8, _U16, _U24, _U32, _U40, _U48, _U56 = (np.uint64(k) for k in range(8, 64, 8))
_HASH_SIZE = 4096


def rows_bound(n_bytes: int, n_attrs: int) -> int:
    """The most lines ``n_bytes`` bytes can hold (a line has at least ``15 + 2 * n_attrs``
    bytes: a 1-byte ticker, 12 stamp digits, one digit per value, commas, the newline)."""
    return n_bytes // (15 + 2 * n_attrs) + 1


@njit(cache=True)
def alloc_rows(n_rows, n_attrs):
    """(codes, ts, attrs) for ``n_rows`` rows, uninitialised (small files; see
    ``_alloc_outputs``)."""
    return (np.empty(n_rows, dtype=np.int32), np.empty(n_rows, dtype=np.float64),
            np.empty((n_rows, n_attrs), dtype=np.float64))


@njit(cache=True, nogil=True)
def count_lines(buf, lo, hi):
    """The ``\\n`` bytes of ``buf[lo:hi]`` (a loop LLVM vectorises)."""
    n = np.int64(0)
    for k in range(lo, hi):
        n += buf[k] == 10
    return n


@njit(cache=True, nogil=True)
def line_start_after(buf, p):
    """The position just after the first ``\\n`` at or after ``p`` (``len(buf)`` if none)."""
    size = buf.shape[0]
    while p < size:
        if buf[p] == 10:
            return p + 1
        p += 1
    return size


@njit(cache=True, nogil=True)
def scan_lines(buf, lo, hi, row0, pow10, codes, ts, attrs, keys, table):
    """Parse the lines of ``buf[lo:hi]`` (``lo`` at a line start, ``hi`` just after a ``\\n``
    or the end of ``buf``) into rows ``row0, row0 + 1, ...`` of ``codes``, ``ts``, ``attrs``:
    (status, lines read, tickers in ``keys``).

    Accepts only plain lines ``TICKER,YYYYMMDDhhmm,x,x,x,x,x`` (a ticker of 1-7 bytes without
    blanks, numbers ``[-]digits[.digits]`` with at most 15 digits, ``\\n`` or ``\\r\\n`` line
    ends) with non-decreasing stamps; status SCAN_BAD or SCAN_UNSORTED at the first line that
    is not, and SCAN_BAD for bytes after the last newline once every line before them is read
    (or when a line does not fit the rows).  Ticker codes are numbered by first appearance;
    ``keys[c]`` packs ticker ``c``'s bytes and length (decoded by ``ticker_names``); ``table``
    (all -1) is the hash table.  ``ts`` = whole minutes since the epoch x 60.0, the same double
    as ``float64(minutes) * 60.0``.  Holds no GIL (``scan_metastock`` runs two parts of a file
    at once); called once per part, not per line."""
    size = hi
    n_attrs = attrs.shape[1]
    n_max = codes.shape[0]
    end = size
    while end > lo and buf[end - 1] != 10:
        end -= 1
    n_keys = 0
    i = lo
    line = 0
    prev = np.int64(0)
    pw1 = np.uint64(0)
    pw2 = np.uint64(0)
    m_ = np.int64(0)
    while i < end:
        row = row0 + line
        if row >= n_max:
            return SCAN_BAD, line, n_keys
        # ticker: 1..7 bytes, no blank
        key = np.uint64(0)
        j = i
        while j < size and buf[j] != 44:
            c = buf[j]
            if c == 10 or c == 13 or c == 32 or c == 9 or j - i >= 7:
                return SCAN_BAD, line, n_keys
            key |= np.uint64(c) << np.uint64(8 * (j - i))
            j += 1
        ln = j - i
        if ln == 0 or j >= size:
            return SCAN_BAD, line, n_keys
        key |= np.uint64(ln) << np.uint64(56)
        h = np.int64((key * np.uint64(11400714819323198485)) >> np.uint64(52)) & (_HASH_SIZE - 1)
        while True:
            slot = table[h]
            if slot < 0:
                if n_keys == _MAX_TICKERS:
                    return SCAN_BAD, line, n_keys
                table[h] = n_keys
                keys[n_keys] = key
                slot = n_keys
                n_keys += 1
                break
            if keys[slot] == key:
                break
            h = (h + 1) & (_HASH_SIZE - 1)
        codes[row] = slot
        # stamp: exactly 12 digits, a valid calendar minute, non-decreasing
        if j + 13 >= size or buf[j + 13] != 44:
            return SCAN_BAD, line, n_keys
        # the stamp's 12 bytes as two words (unsigned positions: no negative-index wraparound,
        # so LLVM reads each word with one load); the same bytes as the previous line's stamp
        # (lines of one minute repeat it) are the same valid minute
        u = np.uint64(j + 1)
        w1 = (np.uint64(buf[u]) | (np.uint64(buf[u + _U1]) << _U8)
              | (np.uint64(buf[u + _U2]) << _U16) | (np.uint64(buf[u + _U3]) << _U24)
              | (np.uint64(buf[u + _U4]) << _U32) | (np.uint64(buf[u + _U5]) << _U40)
              | (np.uint64(buf[u + _U6]) << _U48) | (np.uint64(buf[u + _U7]) << _U56))
        u = np.uint64(j + 9)
        w2 = (np.uint64(buf[u]) | (np.uint64(buf[u + _U1]) << _U8)
              | (np.uint64(buf[u + _U2]) << _U16) | (np.uint64(buf[u + _U3]) << _U24))
        if line == 0 or w1 != pw1 or w2 != pw2:
            # the digits read here, not by _stamp_minute (a call with an array argument costs
            # an atomic reference count update per array, more than the parsing)
            v = np.int64(0)
            for k in range(j + 1, j + 13):
                c = np.int64(buf[k]) - 48
                if c < 0 or c > 9:
                    return SCAN_BAD, line, n_keys
                v = v * 10 + c
            m_ = _civil_minute(v)
            pw1 = w1
            pw2 = w2
        if m_ < 0:
            return SCAN_BAD, line, n_keys
        if line > 0 and m_ < prev:
            return SCAN_UNSORTED, line, n_keys
        prev = m_
        ts[row] = np.float64(m_) * 60.0
        # attributes
        i = j + 14
        for a in range(n_attrs):
            # [-]digits[.digits], exact: at most 15 digits (the significand is below 2**53) and
            # at most 22 after the point, so one IEEE division of two exact doubles gives the
            # correctly rounded value, the same double as any correct parser (pyarrow,
            # pandas' round-trip reader); anything else is SCAN_BAD (the loader then uses
            # pyarrow).  Written out here: see the stamp above.
            neg = False
            if i < size and buf[i] == 45:
                neg = True
                i += 1
            w = np.int64(0)
            nd = 0
            frac = 0
            seen_point = False
            while i < size:
                c = np.int64(buf[i])
                if 48 <= c <= 57:
                    w = w * 10 + (c - 48)
                    nd += 1
                    if seen_point:
                        frac += 1
                elif c == 46 and not seen_point:
                    seen_point = True
                else:
                    break
                i += 1
            if nd == 0 or nd > 15 or frac > 22 or i >= size:
                return SCAN_BAD, line, n_keys
            x = np.float64(w) / pow10[frac]
            attrs[row, a] = -x if neg else x
            c = buf[i]
            if a < n_attrs - 1:
                if c != 44:
                    return SCAN_BAD, line, n_keys
                i += 1
            else:
                if c == 13 and i + 1 < size and buf[i + 1] == 10:
                    i += 1
                if buf[i] != 10:
                    return SCAN_BAD, line, n_keys
                i += 1
        line += 1
    if end != size:
        return SCAN_BAD, line, n_keys
    return SCAN_OK, line, n_keys


# Files from this size are read as two parts on two threads when a second CPU is idle (a
# thread's start-up, ~0.1 ms, is not worth it below).
SPLIT_MIN_BYTES = 1 << 20
try:
    _CPUS = sorted(os.sched_getaffinity(0))
except AttributeError:                           # not Linux
    _CPUS = list(range(os.cpu_count() or 1))


_HUGE_PAGE = 2 << 20


def _alloc_outputs(n_rows: int, n_attrs: int):
    """(codes, ts, attrs) for ``n_rows`` rows, uninitialised.  When the values take at least a
    2 MiB huge page, they are views of one numpy block (numpy asks the kernel for transparent
    huge pages from 4 MiB): the values from a 2 MiB boundary, then from the next boundary ts
    and right after its ``n_rows`` values the codes, so each 2 MiB written costs one fault
    instead of 512: the 100k-line file loaded in 7.7 instead of 9.2 ms (best of 10 fresh
    processes; medians 8.2 / 9.5 ms, four slow runs of 12-14 ms against one of 15).  Rows are
    written from the first, so the pages of rows past the file's lines (``rows_bound`` is an
    upper bound) are never touched, except within a huge page partly written.  Smaller files
    use ``alloc_rows``."""
    if n_rows * n_attrs * 8 < _HUGE_PAGE:
        return alloc_rows(n_rows, n_attrs)
    values = n_rows * n_attrs * 8
    span = (values + _HUGE_PAGE - 1) // _HUGE_PAGE * _HUGE_PAGE
    block = np.empty(span + n_rows * 12 + _HUGE_PAGE, dtype=np.uint8)
    off = (-block.ctypes.data) % _HUGE_PAGE
    attrs = block[off:off + values].view(np.float64).reshape(n_rows, n_attrs)
    off += span
    ts = block[off:off + n_rows * 8].view(np.float64)
    codes = block[off + n_rows * 8:off + n_rows * 12].view(np.int32)
    return codes, ts, attrs


def scan_metastock(buf: np.ndarray, n_attrs: int, pow10: np.ndarray = POW10,
                   parts: int | None = None, split_min_bytes: int = SPLIT_MIN_BYTES):
    """All of a Metastock file (``buf``: its bytes, uint8) read by ``scan_lines``: (status, type
    codes int32[n], ts float64[n] (seconds), attributes float64[n, n_attrs], ticker keys).

    One pass over the bytes: the outputs are sized for the most lines the bytes can hold
    (``rows_bound``) and returned as views of the ``n`` rows read (a separate pass counting
    the lines read the whole file once more: ~1 ms of a fresh process's scan of a 5 MB file,
    whose bytes are not yet in the CPU caches); rows past ``n`` are never written, so their
    pages are never touched.

    ``parts`` = 2 (the default for a file of ``split_min_bytes`` or more when the process may
    use two CPUs and one is idle now, ``_idle_cpu``): the file is cut at the line start
    nearest its middle; this thread reads the first part while a second thread counts the
    first part's lines (so it knows where its rows start) and reads the second part; the
    second thread asks for another CPU than this thread's (a new thread starts on its
    parent's CPU, and the scheduler moved it too late to overlap a few milliseconds of work).
    Then the parts' tickers are merged in order (a ticker first seen in the second part takes
    the next code), so the codes are those of one pass, and the seam's stamps are checked.  If
    a part is not SCAN_OK, the seam is out of order or the tickers exceed ``_MAX_TICKERS``, the
    whole file is read again as one part: the status is that of one pass (the first bad line
    decides) and the arrays are bit for bit those of one pass."""
    size = buf.shape[0]
    split = size >= split_min_bytes and (
        parts > 1 if parts is not None else len(_CPUS) >= 2 and _idle_cpu())
    mid = line_start_after(buf, size // 2) if split else size
    codes, ts, attrs = _alloc_outputs(rows_bound(size, n_attrs), n_attrs)
    keys = np.zeros(_MAX_TICKERS, dtype=np.uint64)
    if 0 < mid < size:
        keys2 = np.zeros(_MAX_TICKERS, dtype=np.uint64)
        second: list = []
        worker = threading.Thread(target=_second_part, daemon=True,
                                  args=(second, this_cpu(), buf, mid, size, pow10, codes, ts,
                                        attrs, keys2))
        worker.start()
        st1, n1, nk1 = scan_lines(buf, 0, mid, 0, pow10, codes, ts, attrs, keys,
                                  np.full(_HASH_SIZE, -1, dtype=np.int64))
        worker.join()
        if second and st1 == SCAN_OK:
            n_first, (st2, n2, nk2) = second
            merged = _merge_parts(n1, n_first, n2, st2, keys[:nk1], keys2[:nk2], codes, ts)
            if merged is not None:
                n = n1 + n2
                return SCAN_OK, codes[:n], ts[:n], attrs[:n], merged
        keys[:] = 0
    st, n, nk = scan_lines(buf, 0, size, 0, pow10, codes, ts, attrs, keys,
                           np.full(_HASH_SIZE, -1, dtype=np.int64))
    if st != SCAN_OK:
        return st, codes[:0], ts[:0], attrs[:0], keys[:0]
    return SCAN_OK, codes[:n], ts[:n], attrs[:n], keys[:nk].copy()


def _idle_cpu() -> bool:
    """Whether a CPU is idle now: fewer runnable tasks, this thread included, than CPUs
    (``/proc/loadavg``'s fourth field).  On a machine whose CPUs are busy (even with niced
    jobs) the second thread got its CPU late or shared it: the 100k-line file took 12-21 ms on
    two threads against 9-10 ms on one; on a quiet machine 6.5 against 9 ms."""
    try:
        fd = os.open("/proc/loadavg", os.O_RDONLY)    # not open(): its io layers took ~0.1 ms
        try:
            text = os.read(fd, 256)
        finally:
            os.close(fd)
        running = int(text.split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return running < (os.cpu_count() or 1)


_LIBC: list = []


def this_cpu() -> int:
    """The CPU this thread runs on now (-1 when unknown)."""
    try:
        if not _LIBC:
            import ctypes
            _LIBC.append(ctypes.CDLL(None))
        return int(_LIBC[0].sched_getcpu())
    except (OSError, AttributeError):
        return -1


def _second_part(out: list, avoid: int, buf, mid, size, pow10, codes, ts, attrs, keys) -> None:
    """The second thread of ``scan_metastock``: on another CPU than ``avoid`` when the process
    may use one, count the first part's lines, then read the second part after them."""
    others = [c for c in _CPUS if c != avoid]
    if avoid >= 0 and others:
        try:
            os.sched_setaffinity(0, others)      # this thread only (it ends with the scan)
        except OSError:
            pass
    n_first = count_lines(buf, 0, mid)
    out.extend((n_first, scan_lines(buf, mid, size, n_first, pow10, codes, ts, attrs, keys,
                                    np.full(_HASH_SIZE, -1, dtype=np.int64))))


def _merge_parts(n1, n_first, n2, st2, keys1, keys2, codes, ts) -> np.ndarray | None:
    """The file's ticker keys in first-appearance order, the second part's codes renumbered to
    them in place; None when the second part or the seam is not as one pass would read it."""
    if st2 != SCAN_OK or n1 != n_first or (n1 > 0 and n2 > 0 and ts[n1] < ts[n1 - 1]):
        return None
    index = {key: c for c, key in enumerate(keys1.tolist())}
    remap = np.array([index.setdefault(key, len(index)) for key in keys2.tolist()],
                     dtype=np.int32)
    if len(index) > _MAX_TICKERS:
        return None
    if np.any(remap != np.arange(len(remap), dtype=np.int32)):
        codes[n1:n1 + n2] = remap[codes[n1:n1 + n2]]
    return np.array(list(index), dtype=np.uint64)


def ticker_names(keys: np.ndarray) -> list[str] | None:
    """The ticker strings packed in ``keys`` (None when one is not UTF-8)."""
    out = []
    for k in keys.tolist():
        ln = k >> 56
        raw = bytes((k >> (8 * b)) & 0xFF for b in range(ln))
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return None
    return out

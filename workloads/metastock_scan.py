"""One compiled pass over a Metastock file's bytes: the stamps as whole minutes since the epoch.

Why compiled: the stamp column is the only one pyarrow does not convert for us exactly
(``YYYYMMDDhhmm`` is an integer, not a date), and a numpy version needs several passes and
temporaries the size of the file (comma positions, a digit matrix); this kernel reads each
line's 12 stamp bytes once, checks them and converts them with the civil-date formula.  It
accepts only what the precise (pandas) path accepts -- exactly 12 digits between the first and
second comma, a valid calendar minute, non-decreasing stamps -- and otherwise reports failure so
the loader runs the precise diagnosis that names the line.
"""
from __future__ import annotations

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
_POW10 = np.array([10.0 ** p for p in range(23)], dtype=np.float64)
_MAX_TICKERS = 2048
_HASH_SIZE = 4096


@njit(cache=True)
def scan_metastock(buf, n_attrs, pow10):
    """All of a Metastock file in one compiled pass: (status, type codes, ts, attributes, ticker
    keys).  Accepts only plain lines ``TICKER,YYYYMMDDhhmm,x,x,x,x,x`` (a ticker of 1-7 bytes
    without blanks, numbers ``[-]digits[.digits]`` with at most 15 digits, ``\\n`` or ``\\r\\n``
    line ends); status SCAN_BAD otherwise, and the loader falls back to pyarrow.  Ticker codes
    are numbered by first appearance; ``keys[c]`` packs ticker ``c``'s bytes and length
    (decoded by ``ticker_names``).  ``ts`` = whole minutes since the epoch x 60.0, the same
    double as ``float64(minutes) * 60.0`` (written here: no minutes array and no temporaries).

    One pass over the bytes: the output arrays are sized for the most lines the file can hold
    (every line has at least ``15 + 2 * n_attrs`` bytes) and the results are views of their
    first ``n`` rows, so no separate pass counts the lines first (that pass read the whole
    file once more: ~1 ms of a fresh process's 8 ms scan of a 5 MB file, where the bytes are
    not yet in the CPU caches).  Rows past ``n`` are never written, so their pages are never
    touched (no memory is used for them)."""
    size = buf.shape[0]
    n_max = size // (15 + 2 * n_attrs) + 1
    codes = np.empty(n_max, dtype=np.int32)
    ts = np.empty(n_max, dtype=np.float64)
    attrs = np.empty((n_max, n_attrs), dtype=np.float64)
    keys = np.zeros(_MAX_TICKERS, dtype=np.uint64)
    table = np.full(_HASH_SIZE, -1, dtype=np.int64)
    # the lines end at the last "\\n"; bytes after it make the file SCAN_BAD once every line
    # before them is read (as when the lines were counted first)
    end = size
    while end > 0 and buf[end - 1] != 10:
        end -= 1
    n_keys = 0
    i = 0
    line = 0
    prev = np.int64(0)
    prev_v = np.int64(0)
    m_ = np.int64(0)
    while i < end:
        if line == n_max:                 # cannot happen for lines that parse (see above)
            return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
        # ticker: 1..7 bytes, no blank
        key = np.uint64(0)
        j = i
        while j < size and buf[j] != 44:
            c = buf[j]
            if c == 10 or c == 13 or c == 32 or c == 9 or j - i >= 7:
                return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
            key |= np.uint64(c) << np.uint64(8 * (j - i))
            j += 1
        ln = j - i
        if ln == 0 or j >= size:
            return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
        key |= np.uint64(ln) << np.uint64(56)
        h = np.int64((key * np.uint64(11400714819323198485)) >> np.uint64(52)) & (_HASH_SIZE - 1)
        while True:
            slot = table[h]
            if slot < 0:
                if n_keys == _MAX_TICKERS:
                    return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
                table[h] = n_keys
                keys[n_keys] = key
                slot = n_keys
                n_keys += 1
                break
            if keys[slot] == key:
                break
            h = (h + 1) & (_HASH_SIZE - 1)
        codes[line] = slot
        # stamp: exactly 12 digits, a valid calendar minute, non-decreasing
        if j + 13 >= size or buf[j + 13] != 44:
            return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
        # the stamp digits read here, not by _stamp_minute (a call with an array argument costs
        # an atomic reference count update per array, more than the parsing)
        v = np.int64(0)
        for k in range(j + 1, j + 13):
            c = np.int64(buf[k]) - 48
            if c < 0 or c > 9:
                return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
            v = v * 10 + c
        if line == 0 or v != prev_v:
            # a new stamp (lines of one minute repeat it: their minute is the previous one,
            # whose checks passed; the calendar arithmetic is ~1/6 of the scan)
            m_ = _civil_minute(v)
            prev_v = v
        if m_ < 0:
            return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
        if line > 0 and m_ < prev:
            return SCAN_UNSORTED, codes[:0], ts[:0], attrs[:0], keys[:0]
        prev = m_
        ts[line] = np.float64(m_) * 60.0
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
                return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
            x = np.float64(w) / pow10[frac]
            attrs[line, a] = -x if neg else x
            c = buf[i]
            if a < n_attrs - 1:
                if c != 44:
                    return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
                i += 1
            else:
                if c == 13 and i + 1 < size and buf[i + 1] == 10:
                    i += 1
                if buf[i] != 10:
                    return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
                i += 1
        line += 1
    if end != size:
        return SCAN_BAD, codes[:0], ts[:0], attrs[:0], keys[:0]
    return SCAN_OK, codes[:line], ts[:line], attrs[:line], keys[:n_keys].copy()


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

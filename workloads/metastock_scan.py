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
def scan_metastock_minutes(buf, n):
    """(status, minutes[n]) for the ``n`` lines of ``buf`` (uint8, lines ending in ``\\n``)."""
    out = np.empty(n, dtype=np.int64)
    size = buf.shape[0]
    mdays = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)
    i = 0
    line = 0
    while i < size and line < n:
        j = i
        while j < size and buf[j] != 44 and buf[j] != 10:
            j += 1
        if j + 13 >= size or buf[j] != 44 or buf[j + 13] != 44:
            return SCAN_BAD, out
        v = np.int64(0)
        for k in range(j + 1, j + 13):
            c = np.int64(buf[k]) - 48
            if c < 0 or c > 9:
                return SCAN_BAD, out
            v = v * 10 + c
        mi = v % 100
        h = (v // 100) % 100
        d = (v // 10000) % 100
        mo = (v // 1000000) % 100
        y = v // 100000000
        if y < 1000 or mo < 1 or mo > 12 or d < 1 or h > 23 or mi > 59:
            return SCAN_BAD, out
        leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
        if d > mdays[mo] + (1 if (leap and mo == 2) else 0):
            return SCAN_BAD, out
        m_ = (_days_from_civil(y, mo, d) * 24 + h) * 60 + mi
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

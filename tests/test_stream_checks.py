"""EventStream's checks written without full-size temporaries: the order check
(``ts[1:] < ts[:-1]``) and the NaN check (a column sum first) name the same row as before."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from engines.errors import StreamError
from engines.stream import EventStream


def _stream(attrs, ts=None):
    n = len(attrs)
    return EventStream.from_arrays(np.zeros(n, np.int32), np.arange(n, dtype=float) if ts is None
                                   else ts, attrs, ["A"], ["x", "y"], source="s")


def test_first_nan_is_named_and_infinities_are_not_nan():
    rng = np.random.default_rng(3)
    a = rng.random((1000, 2))
    a[10, 1], a[20, 1] = np.inf, -np.inf            # their sum is NaN: still no NaN in y
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _stream(a).require_no_nan([0, 1])
    a[700, 1] = a[900, 1] = np.nan
    with pytest.raises(StreamError, match=r"attribute 'y' is NaN in row 700\b"):
        _stream(a).require_no_nan([0, 1])
    _stream(a).require_no_nan([0])


def test_first_decreasing_timestamp_is_named():
    ts = np.arange(50, dtype=float)
    ts[30] = 28.5
    ts[40] = 1.0
    with pytest.raises(StreamError, match=r"row 30 \(ts=28\.5\) comes after ts=29\.0;"):
        _stream(np.zeros((50, 2)), ts)
    _stream(np.zeros((3, 2)), np.array([1.0, 1.0, 2.0]))


@pytest.mark.parametrize("n", [0, 1, 1000, 23_830, 23_831, 200_001])
def test_new_counters_zeroed_contiguous_and_huge_page_aligned_when_large(n):
    """``new_counters``: the same zeroed C-contiguous int64 matrix at every size; from 4 MiB it
    starts on a 2 MiB boundary (so its transparent huge pages cover all of it)."""
    from engines.counters import N_COUNTERS, new_counters
    c = new_counters(n)
    assert c.shape == (max(n, 1), N_COUNTERS) and c.dtype == np.int64
    assert c.flags.c_contiguous and c.flags.writeable and not c.any()
    if c.nbytes >= 4 << 20:
        assert c.ctypes.data % (2 << 20) == 0
    c[-1, -1] = 7                                   # the whole matrix is writable memory
    assert c.sum() == 7


@pytest.mark.parametrize("n", [10, 200_001])
def test_counters_and_scratch_share_one_block_and_start_zeroed(n):
    """``new_counters_and_scratch``: the matrix as ``new_counters`` gives it and a zeroed int64
    scratch that does not overlap it (writing one leaves the other zero)."""
    from engines.counters import N_COUNTERS, new_counters_and_scratch
    c, s = new_counters_and_scratch(n, n)
    assert c.shape == (n, N_COUNTERS) and s.shape == (n,) and s.dtype == np.int64
    assert not c.any() and not s.any()
    s[:] = -1
    assert not c.any()
    c[:] = 5
    assert (s == -1).all()
    if c.nbytes >= 4 << 20:
        assert c.ctypes.data % (2 << 20) == 0

"""Distinct rows of a 2-D integer array, as ``np.unique(a, axis=0, return_inverse=True)``.

``np.unique`` with ``axis=0`` sorts the rows as structured records: 55 ms on the 10 000 x 16
greedy plan encodings of a 100 000-event stream checked every 10 events
(``benchmarks/bench_adaptive.py``, n = 8), more than half of that controller's time.
``unique_rows`` sorts them with ``np.lexsort`` (first column most significant: the same
lexicographic order of the signed integers) and marks where a sorted row differs from its
predecessor (about 1 ms there).  Same distinct rows, same order, same inverse
(``tests/test_adaptive_pass_equal.py`` compares the two).
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(uniq, inverse)``: the distinct rows of the 2-D integer array ``a`` in lexicographic
    order and, for every row of ``a``, the index of its row in ``uniq`` (``int64[len(a)]``);
    equal to ``np.unique(a, axis=0, return_inverse=True)`` (inverse flattened)."""
    a = np.asarray(a)
    if a.ndim != 2 or (a.size and a.dtype.kind not in "iu"):
        raise CepsimInputError(f"unique_rows: needs a 2-D integer array, got shape {a.shape} "
                               f"dtype {a.dtype}")
    n = a.shape[0]
    if n == 0 or a.shape[1] == 0:
        uniq, inv = np.unique(a, axis=0, return_inverse=True)
        return uniq, np.asarray(inv, np.int64).reshape(-1)
    order = np.lexsort(a.T[::-1])                 # np.lexsort: last key most significant
    srt = a[order]
    new = np.empty(n, np.bool_)
    new[0] = True
    np.any(srt[1:] != srt[:-1], axis=1, out=new[1:])
    inv = np.empty(n, np.int64)
    inv[order] = np.cumsum(new) - 1
    return srt[new], inv

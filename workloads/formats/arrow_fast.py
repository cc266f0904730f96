"""The fast parsing path shared by the Metastock and soccer readers: pyarrow's multithreaded
CSV reader with typed columns, columns to numpy, and type names encoded by first appearance
(from raw bytes or pyarrow's dictionary encoding).  Any failure returns None and the caller
falls back to the precise diagnosis of ``workloads.formats.rawfile``.
"""
from __future__ import annotations

from typing import Any

import numpy as np




def arrow_table(data: bytes, names: list[str], types: dict[str, Any],
                 include: list[str] | None = None):
    """``data`` parsed by pyarrow's CSV reader with fixed column types (only the ``include``
    columns converted, default all), or None when any line does not fit (wrong field count, a
    value that does not convert): the caller then runs the precise diagnosis."""
    import pyarrow as pa
    from pyarrow import csv as pacsv
    try:
        return pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=",", quote_char=False,
                                              newlines_in_values=False,
                                              ignore_empty_lines=False),
            convert_options=pacsv.ConvertOptions(
                column_types=types, null_values=[], strings_can_be_null=False,
                quoted_strings_can_be_null=False, include_columns=include or []))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError):
        return None


def to_numpy(col, dtype) -> np.ndarray:
    """A pyarrow primitive (chunked) array without nulls as a numpy array, read from its data
    buffers (``Array.to_numpy`` would import pandas, about 0.5 s on the ``cepsim match``
    path)."""
    chunks = col.chunks if hasattr(col, "chunks") else [col]
    parts = []
    for ch in chunks:
        if ch.null_count:
            raise ValueError("nulls")
        buf = ch.buffers()[1]
        parts.append(np.frombuffer(buf, dtype=dtype, count=len(ch), offset=ch.offset *
                                   np.dtype(dtype).itemsize))
    if not parts:
        return np.zeros(0, dtype=dtype)
    return parts[0].copy() if len(parts) == 1 else np.concatenate(parts)


def byte_matrix(col) -> tuple[np.ndarray, np.ndarray] | None:
    """The values of a pyarrow string column as a zero-padded ``uint8[n, width]`` matrix and
    their byte lengths, read from the offsets/data buffers (no pyarrow.compute call: those import
    pandas).  None when a value is empty or holds a space/tab (left to the precise path)."""
    arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    n = len(arr)
    if n == 0 or arr.null_count:
        return None
    bufs = arr.buffers()
    offs = np.frombuffer(bufs[1], dtype=np.int32, count=n + 1, offset=arr.offset * 4)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    lens = np.diff(offs)
    if lens.min() <= 0:
        return None
    body = data[offs[0]:offs[-1]]
    if ((body == 32) | (body == 9)).any():
        return None
    width = int(lens.max())
    cols = np.arange(width)
    idx = offs[:-1, None] + cols
    mat = np.where(cols < lens[:, None], data[np.minimum(idx, data.size - 1)], 0).astype(np.uint8)
    return mat, lens


def codes_by_first_appearance(mat: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Codes in order of first appearance and the names of the rows of a byte matrix."""
    keys = np.ascontiguousarray(mat).view(f"S{mat.shape[1]}").ravel()
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # unique values by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inv].astype(np.int32), [uniq[k].decode("utf-8") for k in order]


def all_digits(mat: np.ndarray, lens: np.ndarray) -> bool:
    inside = np.arange(mat.shape[1]) < lens[:, None]
    return bool(((mat >= 48) & (mat <= 57) | ~inside).all())


def dict_codes(col) -> tuple[np.ndarray, list[str]] | None:
    """Codes in order of first appearance and the names of a pyarrow dictionary-encoded string
    column (one dictionary per parsed block, merged here in block order: a name new in a later
    block is appended in its first-appearance order, so the codes equal a global first-appearance
    numbering).  None when a name is empty or holds a space or tab (the precise path strips and
    reports those)."""
    chunks = col.chunks if hasattr(col, "chunks") else [col]
    names: list[str] = []
    index: dict[str, int] = {}
    parts = []
    for ch in chunks:
        if ch.null_count:
            return None
        local = ch.dictionary.to_pylist()
        lut = np.empty(max(len(local), 1), dtype=np.int32)
        for j, name in enumerate(local):
            if not name or " " in name or "\t" in name:
                return None
            if name not in index:
                index[name] = len(names)
                names.append(name)
            lut[j] = index[name]
        idx = to_numpy(ch.indices, np.int32)
        parts.append(lut[idx])
    if not parts:
        return None
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), names

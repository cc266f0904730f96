"""Read real event data files into validated ``EventStream`` objects.

Formats
-------
* **Metastock 7** (``load_metastock``): headerless lines
  ``ticker,YYYYMMDDhhmm,open,high,low,close,volume`` (the OpenCEP NASDAQ samples).  The event
  type is the ticker (type codes in order of first appearance); the attributes are
  ``open, high, low, close, volume``; ``ts`` is seconds since the Unix epoch, reading the stamp as
  UTC.  The stamp is parsed to whole minutes (int64) and multiplied by 60, so ``ts`` is exact.
* **DEBS 2013 soccer** (``load_soccer``): headerless lines ``sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,
  ax,ay,az``.  The type name is the sensor id as written.  Raw stamps are ~1e16 picoseconds,
  too large to hold in float64 seconds with picosecond resolution, so the loader subtracts the
  first stamp in int64 arithmetic and divides by 1e12: ``ts`` is *seconds since the first
  event*; ``load_soccer(path, return_offset=True)`` also returns that first stamp (ps).
  Precision: an offset below 2**53 ps (about 2.5 hours) converts to float64 exactly, and the
  division is correctly rounded, so ``ts`` is within half an ulp of the true value (under
  0.01 ps over the 21 s sample, under 0.5 ps over a whole 90-minute game).  The DARLING
  window of 5e10 ps is 0.05 s; two events *exactly* 5e10 ps apart may compare either way
  against ``0.05`` in float arithmetic, so count-sensitive boundary cases should use the
  integer data.
* **Generic CSV / Parquet** (``load_csv``, ``load_parquet``) described by a schema — a dict or a
  TOML file with these keys (a TOML file may also nest them under a ``[schema]`` table)::

      type_column   = "type"    # column holding the event type (any values; names = str(value))
      ts_column     = "ts"      # numeric column (or a Parquet timestamp column)
      ts_unit       = "s"       # "s" | "ms" | "us" | "ns" | "ps"
      attributes    = ["price", "hist[0]", "hist[1]"]  # default: every other column, file order
      types         = ["A", "B"]   # optional: declared type names = codes; others are an error
      ts_relative   = false     # true: subtract the first timestamp (exactly, for integers)
      allow_missing = false     # true: empty/NaN attribute values become NaN

  A vector attribute ``hist`` of length h is the columns ``hist[0]`` … ``hist[h-1]``.
  CSV files have a header line; line numbers in errors count it (the first event is line 2).
* ``load_stream(path, fmt=None, schema=None)`` dispatches on ``fmt`` or the file extension.

Every file must already be in non-decreasing time order (all the shipped samples are); an
out-of-order line is reported rather than silently re-sorted, because row positions define
counting windows and must match the file.  Every problem raises ``engines.errors.StreamError``
naming the file, the 1-based line (or Parquet row), the field and the fix.

Parsing: Metastock and soccer files are read by pyarrow's multithreaded CSV reader with typed
columns (correctly rounded floats), stamps are validated and converted with integer arithmetic
(a civil-date-to-days formula, no datetime objects; Metastock stamps by one compiled pass over
the raw bytes, ``workloads.metastock_scan``), and tickers/sensors are encoded by first
appearance (Metastock: pyarrow's dictionary encoding while parsing).  Any failure of those fast checks (a field count, a
value that does not convert, a calendar-invalid stamp, NaN) falls back to the slower precise
diagnosis (a numpy pass over the raw bytes for field counts, pandas string columns) that names
the first bad line and field.  Generic CSV uses pandas' C reader with round-trip float
precision.  pandas is imported only on the slow and generic paths.
"""
from __future__ import annotations

import io
import gzip
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engines.errors import StreamError
from engines.stream import EventStream

METASTOCK_ATTRS: tuple[str, ...] = ("open", "high", "low", "close", "volume")
SOCCER_ATTRS: tuple[str, ...] = ("x", "y", "z", "v", "a", "vx", "vy", "vz", "ax", "ay", "az")
TS_UNITS: dict[str, int] = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9, "ps": 10**12}
FORMATS: tuple[str, ...] = ("metastock", "soccer", "csv", "parquet")
PS_PER_SECOND = 10**12

_METASTOCK_HINT = "ticker,YYYYMMDDhhmm,open,high,low,close,volume"
_SOCCER_HINT = "sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,ax,ay,az"
_SCHEMA_KEYS = ("type_column", "ts_column", "ts_unit", "attributes", "types", "ts_relative",
                "allow_missing")
_INT_RE = r"[+-]?\d+"
_NAN_RE = r"(?i)[+-]?nan"
_INT64_MAX = np.iinfo(np.int64).max

PathLike = str | os.PathLike
REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "workloads" / "data"   # bundled real samples (see DATA_DIR/README.md)


# --------------------------------------------------------------------------- raw file checks

def resolve_data_path(path: PathLike) -> Path:
    """``path`` as given when it exists; else, for a relative path, the same path taken from the
    repository root (so configs can name the bundled samples as ``workloads/data/...`` from any
    working directory)."""
    p = Path(path)
    if not p.exists() and not p.is_absolute() and (REPO_ROOT / p).exists():
        return REPO_ROOT / p
    return p


def _read_bytes(path: PathLike, hint: str) -> tuple[Path, bytes]:
    """The file's bytes (gunzipped for ``*.gz``) without trailing blank lines; errors for
    missing/empty files."""
    p = resolve_data_path(path)
    if not p.exists():
        raise StreamError(f"{p}: file not found; check the path (relative paths are taken from "
                          f"{Path.cwd()})")
    if not p.is_file():
        raise StreamError(f"{p}: is not a regular file; pass the path of a data file")
    data = p.read_bytes()
    if p.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise StreamError(f"{p}: not a readable gzip file ({exc}); re-compress it or pass "
                              f"the uncompressed file") from exc
    if not data or data.isspace():
        raise StreamError(f"{p}: file is empty; expected lines like {hint}")
    end = len(data)
    while end and data[end - 1] in b"\r\n":      # trailing blank lines (a short loop)
        end -= 1
    if end == len(data) - 1 and data[end] == 10:    # already ends in exactly one "\n": no copy
        return p, data
    return p, data[:end] + b"\n"


def _check_field_counts(data: bytes, expected: int, path: Path, hint: str) -> int:
    """Check that every line has ``expected`` comma-separated fields; return the line count.

    One vectorised pass: commas per line from a cumulative count over the byte array.
    Assumes one record per line and no quoted commas (callers skip it for quoted CSV)."""
    buf = np.frombuffer(data, dtype=np.uint8)[:-1]          # drop the final "\n" we appended
    nl = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [buf.size]))
    cr = (ends > starts) & (buf[np.maximum(ends - 1, 0)] == 13)
    ends = ends - cr
    commas = np.concatenate(([0], np.cumsum(buf == 44, dtype=np.int64)))
    fields = commas[ends] - commas[starts] + 1
    empty = ends == starts
    bad = np.flatnonzero(empty | (fields != expected))
    if bad.size:
        i = int(bad[0])
        if empty[i]:
            raise StreamError(f"{path}: line {i + 1} is empty; remove blank lines inside the file")
        text = data[starts[i]:ends[i]].decode("utf-8", "replace")
        if len(text) > 80:
            text = text[:77] + "..."
        raise StreamError(f"{path}: line {i + 1} has {int(fields[i])} fields but {expected} are "
                          f"expected ({hint}): {text!r}; fix or remove that line")
    return int(starts.size)


def _fast_csv(data: bytes, **kwargs: Any) -> pd.DataFrame | None:
    """pandas' C reader with exact float parsing; None when a value does not convert."""
    import pandas as pd
    try:
        return pd.read_csv(io.BytesIO(data), engine="c", float_precision="round_trip",
                           skipinitialspace=True, **kwargs)
    except (ValueError, OverflowError, pd.errors.ParserError):
        return None


def _str_csv(data: bytes, **kwargs: Any) -> pd.DataFrame:
    """Every field as a stripped string (no NA conversion) for diagnosing bad values."""
    import pandas as pd
    df = pd.read_csv(io.BytesIO(data), engine="c", dtype=str, keep_default_na=False,
                     na_filter=False, **kwargs)
    return df.apply(lambda s: s.str.strip())


# --------------------------------------------------------------------------- value diagnosis

def _problems(s: pd.Series, integer: bool, allow_missing: bool) -> tuple[int, str] | None:
    """First (row, problem) among string values ``s`` that are not valid numbers."""
    import pandas as pd
    empty = (s == "").to_numpy()
    isnan = s.str.fullmatch(_NAN_RE).to_numpy(dtype=bool)
    if integer:
        ok = s.str.fullmatch(_INT_RE).to_numpy(dtype=bool)
        long = ok & (s.str.len().to_numpy() > 18)
        for i in np.flatnonzero(long):                       # rare: check range exactly
            if abs(int(s.iloc[i])) > _INT64_MAX:
                ok[i] = False
        unparsable = ~ok & ~empty & ~isnan
        nonfinite = isnan
        what = "is not a whole number in int64 range"
    else:
        num = pd.to_numeric(s.where(~empty & ~isnan, "0"), errors="coerce").to_numpy(np.float64)
        unparsable = np.isnan(num) & ~empty & ~isnan
        nonfinite = isnan | np.isinf(num)
        what = "is not a number"
    if allow_missing:
        empty = np.zeros_like(empty)
        nonfinite = nonfinite & ~isnan
    bad = empty | unparsable | nonfinite
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    if empty[i]:
        return i, "is empty; every event needs a value there — fill it in or drop the line"
    if unparsable[i]:
        return i, f"{s.iloc[i]!r} {what}; fix the value"
    return i, f"is {s.iloc[i]!r}; NaN/infinite values are not allowed — clean the data"


def _raise_first_problem(df: pd.DataFrame, checks: list[tuple[str, bool, bool]], path: Path,
                         where: Callable[[int], str], field_label: Callable[[str], str]) -> None:
    """Raise for the earliest bad value (by row, then column order) among ``checks``
    = [(column, integer, allow_missing)]."""
    found: list[tuple[int, int, str, str]] = []
    for order, (col, integer, allow_missing) in enumerate(checks):
        p = _problems(df[col], integer, allow_missing)
        if p is not None:
            found.append((p[0], order, col, p[1]))
    if found:
        row, _, col, msg = min(found)
        raise StreamError(f"{path}: {where(row)}, {field_label(col)} {msg}")


def _check_sorted(values: np.ndarray, path: Path, where: Callable[[int], str],
                  shown: Callable[[int], str]) -> None:
    if values.size > 1:
        dec = np.flatnonzero(np.diff(values) < 0)
        if dec.size:
            i = int(dec[0]) + 1
            raise StreamError(f"{path}: timestamps must be non-decreasing, but {where(i)} "
                              f"({shown(i)}) is earlier than {where(i - 1)} ({shown(i - 1)}); "
                              f"sort the file by time (keep equal stamps in file order)")


# --------------------------------------------------------------------------- fast path

def _arrow_table(data: bytes, names: list[str], types: dict[str, Any],
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


def _to_numpy(col, dtype) -> np.ndarray:
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


def _byte_matrix(col) -> tuple[np.ndarray, np.ndarray] | None:
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


def _codes_by_first_appearance(mat: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Codes in order of first appearance and the names of the rows of a byte matrix."""
    keys = np.ascontiguousarray(mat).view(f"S{mat.shape[1]}").ravel()
    uniq, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")           # unique values by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inv].astype(np.int32), [uniq[k].decode("utf-8") for k in order]


def _all_digits(mat: np.ndarray, lens: np.ndarray) -> bool:
    inside = np.arange(mat.shape[1]) < lens[:, None]
    return bool(((mat >= 48) & (mat <= 57) | ~inside).all())


def _dict_codes(col) -> tuple[np.ndarray, list[str]] | None:
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
        idx = _to_numpy(ch.indices, np.int32)
        parts.append(lut[idx])
    if not parts:
        return None
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), names


def _fast_metastock(data: bytes, p: Path) -> EventStream | None:
    """The Metastock fast path (module docstring); None = diagnose slowly.  Plain files (short
    tickers, numbers of at most 15 digits) are read by one compiled pass over the bytes
    (``workloads.metastock_scan.scan_metastock``, exact float conversion); others by pyarrow's
    CSV reader (tickers dictionary-encoded while parsing, the stamp column not converted) with
    the stamps from a compiled pass."""
    from workloads.metastock_scan import (_POW10, SCAN_OK, SCAN_UNSORTED, scan_metastock,
                                          ticker_names)
    buf = np.frombuffer(data, dtype=np.uint8)
    status, codes, minutes, attrs, keys = scan_metastock(buf, len(METASTOCK_ATTRS), _POW10)
    if status == SCAN_UNSORTED:
        return None                  # the precise path names the out-of-order line
    if status == SCAN_OK:
        names = ticker_names(keys)
        if names is not None:
            return EventStream.from_arrays(codes, minutes.astype(np.float64) * 60.0, attrs,
                                           names, METASTOCK_ATTRS, source=str(p))
    import pyarrow as pa
    names = ["ticker", "stamp", *METASTOCK_ATTRS]
    tab = _arrow_table(data, names, {"ticker": pa.dictionary(pa.int32(), pa.string()),
                                     **{a: pa.float64() for a in METASTOCK_ATTRS}},
                       include=["ticker", *METASTOCK_ATTRS])
    if tab is None:
        return None
    from workloads.metastock_scan import scan_metastock_minutes
    status, minutes = scan_metastock_minutes(buf, tab.num_rows)
    if status != SCAN_OK:
        return None
    attrs = np.column_stack([_to_numpy(tab.column(a), np.float64) for a in METASTOCK_ATTRS])
    if not np.isfinite(attrs).all():
        return None
    coded = _dict_codes(tab.column("ticker"))
    if coded is None:
        return None
    codes, type_names = coded
    return EventStream.from_arrays(codes, minutes.astype(np.float64) * 60.0, attrs, type_names,
                                   METASTOCK_ATTRS, source=str(p))


def _fast_soccer(data: bytes, p: Path) -> tuple[EventStream, int] | None:
    """The soccer fast path (module docstring); None = diagnose slowly."""
    import pyarrow as pa
    names = ["sensor", "ts", *SOCCER_ATTRS]
    tab = _arrow_table(data, names, {"sensor": pa.string(), "ts": pa.string(),
                                     **{a: pa.float64() for a in SOCCER_ATTRS}})
    if tab is None:
        return None
    # plain digits only ("1.06e16" must not be rounded into a stamp); at most 18 of them, so
    # the value fits int64 (longer or signed stamps take the precise path)
    st = _byte_matrix(tab.column("ts"))
    if st is None or st[0].shape[1] > 18 or not _all_digits(*st):
        return None
    mat, lens = st
    w = mat.shape[1]
    # right-align each value's digits, then a dot product with powers of ten
    shift = w - lens
    cols = np.arange(w)
    src = cols[None, :] - shift[:, None]
    digits = np.where(src >= 0, mat[np.arange(mat.shape[0])[:, None], np.maximum(src, 0)], 48)
    ps = (digits.astype(np.int64) - 48) @ (10 ** np.arange(w - 1, -1, -1, dtype=np.int64))
    attrs = np.column_stack([_to_numpy(tab.column(a), np.float64) for a in SOCCER_ATTRS])
    if not np.isfinite(attrs).all():
        return None
    sn = _byte_matrix(tab.column("sensor"))
    if sn is None or not _all_digits(*sn) or (ps.size > 1 and (np.diff(ps) < 0).any()):
        return None
    codes, type_names = _codes_by_first_appearance(sn[0])
    offset = int(ps[0])
    ts = (ps - ps[0]).astype(np.float64) / float(PS_PER_SECOND)
    stream = EventStream.from_arrays(codes, ts, attrs, type_names, SOCCER_ATTRS, source=str(p))
    return stream, offset


# --------------------------------------------------------------------------- Metastock

def load_metastock(path: PathLike) -> EventStream:
    """Load a headerless Metastock 7 file ``ticker,YYYYMMDDhhmm,open,high,low,close,volume``.

    ``ts`` = seconds since 1970-01-01 00:00 UTC (stamps read as UTC, exact whole minutes);
    type = ticker, codes in order of first appearance; attributes ``open..volume``."""
    p, data = _read_bytes(path, _METASTOCK_HINT)
    fast = _fast_metastock(data, p)
    if fast is not None:
        return fast
    import pandas as pd
    _check_field_counts(data, 7, p, _METASTOCK_HINT)
    names = ["ticker", "stamp", *METASTOCK_ATTRS]
    line = lambda i: f"line {i + 1}"                                    # noqa: E731
    label = lambda c: f"field {names.index(c) + 1} ({c})"               # noqa: E731
    df = _fast_csv(data, header=None, names=names, na_filter=False,
                   dtype={"ticker": str, "stamp": str, **{a: np.float64 for a in METASTOCK_ATTRS}})
    if df is None or not np.isfinite(df[list(METASTOCK_ATTRS)].to_numpy()).all():
        raw = _str_csv(data, header=None, names=names)
        _raise_first_problem(raw, [(a, False, False) for a in METASTOCK_ATTRS], p, line, label)
        raise StreamError(f"{p}: could not parse the file as {_METASTOCK_HINT}")  # pragma: no cover
    tickers = df["ticker"].str.strip()
    blank = np.flatnonzero((tickers == "").to_numpy())
    if blank.size:
        raise StreamError(f"{p}: {line(int(blank[0]))}, {label('ticker')} is empty; every line "
                          f"needs a ticker symbol (the event type)")
    stamps = df["stamp"].str.strip()
    well_formed = stamps.str.fullmatch(r"\d{12}").to_numpy(dtype=bool)
    when = pd.to_datetime(stamps.where(well_formed), format="%Y%m%d%H%M", errors="coerce")
    bad = np.flatnonzero(~well_formed | when.isna().to_numpy())
    if bad.size:
        i = int(bad[0])
        raise StreamError(f"{p}: {line(i)}, {label('stamp')}: {stamps.iloc[i]!r} is not a valid "
                          f"YYYYMMDDhhmm timestamp (12 digits, e.g. 200802010900 = 2008-02-01 "
                          f"09:00); fix the value")
    minutes = when.to_numpy().astype("datetime64[m]").astype(np.int64)
    _check_sorted(minutes, p, line, lambda i: f"stamp {stamps.iloc[i]}")
    codes, uniques = pd.factorize(tickers, sort=False)
    return EventStream.from_arrays(codes.astype(np.int32), minutes.astype(np.float64) * 60.0,
                                   df[list(METASTOCK_ATTRS)].to_numpy(np.float64),
                                   [str(u) for u in uniques], METASTOCK_ATTRS, source=str(p))


# --------------------------------------------------------------------------- soccer

def load_soccer(path: PathLike, return_offset: bool = False
                ) -> EventStream | tuple[EventStream, int]:
    """Load a headerless DEBS 2013 soccer file ``sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,ax,ay,az``.

    ``ts`` = seconds since the first event, computed as ``(ps - first_ps) / 1e12`` with the
    subtraction in int64 (see the module docstring for precision).  Type name = sensor id as
    written, codes in order of first appearance.  With ``return_offset=True`` returns
    ``(stream, first_ps)`` where ``first_ps`` is the first raw stamp in picoseconds."""
    p, data = _read_bytes(path, _SOCCER_HINT)
    fast = _fast_soccer(data, p)
    if fast is not None:
        return fast if return_offset else fast[0]
    import pandas as pd
    _check_field_counts(data, 13, p, _SOCCER_HINT)
    names = ["sensor", "ts", *SOCCER_ATTRS]
    line = lambda i: f"line {i + 1}"                                    # noqa: E731
    label = lambda c: f"field {names.index(c) + 1} ({c})"               # noqa: E731
    df = _fast_csv(data, header=None, names=names, na_filter=False,
                   dtype={"sensor": str, "ts": str, **{a: np.float64 for a in SOCCER_ATTRS}})
    ps = None
    if df is not None:
        # pandas' int64 reader accepts "1.06e16"; insist on plain digits so no stamp is rounded
        stamps = df["ts"].str.strip()
        if stamps.str.fullmatch(_INT_RE).all():
            try:
                ps = stamps.astype(np.int64).to_numpy()
            except (ValueError, OverflowError):
                ps = None
    if ps is None or not np.isfinite(df[list(SOCCER_ATTRS)].to_numpy()).all():
        raw = _str_csv(data, header=None, names=names)
        checks = [("sensor", True, False), ("ts", True, False)]
        _raise_first_problem(raw, checks + [(a, False, False) for a in SOCCER_ATTRS],
                             p, line, label)
        raise StreamError(f"{p}: could not parse the file as {_SOCCER_HINT}")  # pragma: no cover
    sensors = df["sensor"].str.strip()
    bad = np.flatnonzero(~sensors.str.fullmatch(r"\d+").to_numpy(dtype=bool))
    if bad.size:
        i = int(bad[0])
        raise StreamError(f"{p}: {line(i)}, {label('sensor')}: {sensors.iloc[i]!r} is not a "
                          f"sensor id (a non-negative integer); fix the value")
    _check_sorted(ps, p, line, lambda i: f"ts {int(ps[i])} ps")
    offset = int(ps[0])
    rel = ps - ps[0]
    ts = rel.astype(np.float64) / float(PS_PER_SECOND)
    codes, uniques = pd.factorize(sensors, sort=False)
    stream = EventStream.from_arrays(codes.astype(np.int32), ts,
                                     df[list(SOCCER_ATTRS)].to_numpy(np.float64),
                                     [str(u) for u in uniques], SOCCER_ATTRS, source=str(p))
    return (stream, offset) if return_offset else stream


# --------------------------------------------------------------------------- generic schema

def load_schema(schema: Mapping[str, Any] | PathLike) -> dict[str, Any]:
    """Validate a generic-data schema (dict or TOML path) and fill in defaults."""
    src = "schema"
    if not isinstance(schema, Mapping):
        sp = Path(schema)
        src = str(sp)
        if not sp.is_file():
            raise StreamError(f"{sp}: schema file not found; pass a TOML file or a dict with "
                              f"keys {list(_SCHEMA_KEYS)}")
        try:
            import tomllib
        except ModuleNotFoundError:  # pragma: no cover - Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            schema = tomllib.loads(sp.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise StreamError(f"{sp}: schema is not valid TOML ({exc})") from None
        if set(schema) == {"schema"} and isinstance(schema["schema"], Mapping):
            schema = schema["schema"]
    unknown = sorted(set(schema) - set(_SCHEMA_KEYS))
    if unknown:
        raise StreamError(f"{src}: unknown schema key(s) {unknown}; allowed keys are "
                          f"{list(_SCHEMA_KEYS)}")
    out = {"type_column": "type", "ts_column": "ts", "ts_unit": "s", "attributes": None,
           "types": None, "ts_relative": False, "allow_missing": False, **dict(schema)}
    for key in ("type_column", "ts_column"):
        if not isinstance(out[key], str) or not out[key]:
            raise StreamError(f"{src}: {key} must be a column name (string), got {out[key]!r}")
    if out["ts_unit"] not in TS_UNITS:
        raise StreamError(f"{src}: ts_unit {out['ts_unit']!r} is not one of {list(TS_UNITS)}")
    for key in ("attributes", "types"):
        v = out[key]
        if v is not None:
            if isinstance(v, str) or not all(isinstance(x, (str, int)) for x in v):
                raise StreamError(f"{src}: {key} must be a list of names, got {v!r}")
            out[key] = [str(x) for x in v]
    for key in ("ts_relative", "allow_missing"):
        if not isinstance(out[key], bool):
            raise StreamError(f"{src}: {key} must be true or false, got {out[key]!r}")
    return out


def _needed_columns(sch: dict[str, Any], columns: list[str], path: Path) -> list[str]:
    """Attribute names (resolving the default) after checking every column exists."""
    attrs = sch["attributes"]
    if attrs is None:
        attrs = [c for c in columns if c not in (sch["type_column"], sch["ts_column"])]
    missing = [c for c in [sch["type_column"], sch["ts_column"], *attrs] if c not in columns]
    if missing:
        raise StreamError(f"{path}: column(s) {missing} named by the schema are not in the file; "
                          f"its columns are {columns} — fix the schema or the header")
    return list(attrs)


def _frame_to_stream(df: pd.DataFrame, sch: dict[str, Any], attrs: list[str], path: Path,
                     where: Callable[[int], str]) -> EventStream:
    """Turn a DataFrame with declared columns into an EventStream (shared by csv/parquet)."""
    import pandas as pd
    tcol, scol = sch["type_column"], sch["ts_column"]
    label = lambda c: f"column {c!r}"                                    # noqa: E731
    if len(df) == 0:
        raise StreamError(f"{path}: contains no events (only a header / no rows)")
    # event types -> strings
    tv = df[tcol]
    missing = np.flatnonzero(tv.isna().to_numpy())
    if missing.size:
        raise StreamError(f"{path}: {where(int(missing[0]))}, {label(tcol)} is empty; every "
                          f"event needs a type")
    if tv.dtype.kind == "f" and np.all(np.mod(tv.to_numpy(), 1) == 0):
        tv = tv.astype(np.int64)
    names = tv.astype(str).str.strip()
    blank = np.flatnonzero((names == "").to_numpy())
    if blank.size:
        raise StreamError(f"{path}: {where(int(blank[0]))}, {label(tcol)} is empty; every "
                          f"event needs a type")
    if sch["types"] is not None:
        type_names = list(sch["types"])
        codes = pd.Categorical(names, categories=type_names).codes.astype(np.int64)
        unknown = np.flatnonzero(codes < 0)
        if unknown.size:
            i = int(unknown[0])
            raise StreamError(f"{path}: {where(i)}, {label(tcol)}: type {names.iloc[i]!r} is not "
                              f"among the schema's types {type_names}; add it or drop the line")
    else:
        codes, uniques = pd.factorize(names, sort=False)
        type_names = [str(u) for u in uniques]
    # timestamps -> seconds
    sv = df[scol]
    unit = sch["ts_unit"]
    if sv.dtype.kind == "M":                          # Parquet/pandas timestamps
        if getattr(sv.dt, "tz", None) is not None:
            sv = sv.dt.tz_convert("UTC").dt.tz_localize(None)
        nat = np.flatnonzero(sv.isna().to_numpy())
        if nat.size:
            raise StreamError(f"{path}: {where(int(nat[0]))}, {label(scol)} is empty (NaT)")
        raw = sv.to_numpy().astype("datetime64[ns]").astype(np.int64)
        unit = "ns"
    elif sv.dtype.kind in "iuf":
        raw = sv.to_numpy()
        nonfinite = np.flatnonzero(~np.isfinite(raw)) if raw.dtype.kind == "f" else []
        if len(nonfinite):
            raise StreamError(f"{path}: {where(int(nonfinite[0]))}, {label(scol)} is empty or "
                              f"not finite; every event needs a timestamp")
        if raw.dtype.kind == "u":
            raw = raw.astype(np.int64)
    else:
        num = pd.to_numeric(sv, errors="coerce")
        i = int(np.flatnonzero(num.isna().to_numpy())[0]) if num.isna().any() else 0
        raise StreamError(f"{path}: {where(i)}, {label(scol)}: {sv.iloc[i]!r} is not a number; "
                          f"timestamps must be numeric in unit {unit!r}")
    _check_sorted(raw, path, where, lambda i: f"{scol}={raw[i].item()!r}")
    if sch["ts_relative"]:
        raw = raw - raw[0]                            # exact for integers
    factor = TS_UNITS[unit]
    ts = raw.astype(np.float64) if factor == 1 else raw.astype(np.float64) / float(factor)
    # attributes
    for a in attrs:
        col = df[a]
        if col.dtype.kind not in "iufb":
            num = pd.to_numeric(col, errors="coerce")
            bad = num.isna() & col.notna()
            if bad.any():
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise StreamError(f"{path}: {where(i)}, {label(a)}: {col.iloc[i]!r} is not a "
                                  f"number; attributes must be numeric")
            df[a] = num
    values = df[attrs].to_numpy(np.float64) if attrs else np.zeros((len(df), 0))
    if not sch["allow_missing"] and values.size and not np.isfinite(values).all():
        r, c = np.argwhere(~np.isfinite(values))[0]
        raise StreamError(f"{path}: {where(int(r))}, {label(attrs[int(c)])} is empty or "
                          f"NaN/infinite; fill it in, drop the line, or set allow_missing = true")
    return EventStream.from_arrays(np.asarray(codes, dtype=np.int32), ts, values, type_names,
                                   attrs, source=str(path))


def load_csv(path: PathLike, schema: Mapping[str, Any] | PathLike) -> EventStream:
    """Load a CSV file with a header line, described by ``schema`` (dict or TOML path)."""
    import pandas as pd
    sch = load_schema(schema)
    p, data = _read_bytes(path, "a header line, then one event per line")
    try:
        header = list(pd.read_csv(io.BytesIO(data), nrows=0).columns)
    except (ValueError, pd.errors.ParserError) as exc:
        raise StreamError(f"{p}: cannot read the CSV header line ({exc})") from None
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    if '"' not in first:
        raw_names = [h.strip() for h in first.split(",")]
        dups = sorted({h for h in raw_names if raw_names.count(h) > 1})
        if dups:
            raise StreamError(f"{p}: line 1 (the header) repeats column name(s) {dups}; "
                              f"rename the duplicates")
    attrs = _needed_columns(sch, header, p)
    if b'"' not in data:                   # quoted fields may hold commas or newlines
        _check_field_counts(data, len(header), p, f"{len(header)} columns as in the header")
    line = lambda i: f"line {i + 2}"                                    # noqa: E731
    tcol, scol = sch["type_column"], sch["ts_column"]
    use = list(dict.fromkeys([tcol, scol, *attrs]))
    df = _fast_csv(data, usecols=use, dtype={tcol: str, **{a: np.float64 for a in attrs}},
                   skip_blank_lines=False)
    if df is not None and df[scol].dtype.kind not in "iuf" and not df[scol].isna().all():
        df = None                          # ts column has non-numbers: diagnose below
    if df is None:
        raw = _str_csv(data, usecols=use)
        checks = [(scol, False, False)] + [(a, False, sch["allow_missing"]) for a in attrs]
        _raise_first_problem(raw, checks, p, line, lambda c: f"column {c!r}")
        raise StreamError(f"{p}: could not parse the CSV values")  # pragma: no cover
    return _frame_to_stream(df, sch, attrs, p, line)


def load_parquet(path: PathLike, schema: Mapping[str, Any] | PathLike) -> EventStream:
    """Load a Parquet file described by ``schema``; errors name 1-based rows."""
    import pandas as pd
    sch = load_schema(schema)
    p = Path(path)
    if not p.is_file():
        raise StreamError(f"{p}: file not found; check the path")
    try:
        import pyarrow.parquet as pq
        columns = list(pq.read_schema(p).names)
    except Exception as exc:  # pyarrow raises several types for non-Parquet input
        raise StreamError(f"{p}: not a readable Parquet file ({exc}); pass --format for other "
                          f"formats") from None
    attrs = _needed_columns(sch, columns, p)
    use = list(dict.fromkeys([sch["type_column"], sch["ts_column"], *attrs]))
    df = pd.read_parquet(p, columns=use)
    return _frame_to_stream(df, sch, attrs, p, lambda i: f"row {i + 1} (1-based)")


# --------------------------------------------------------------------------- dispatcher

def load_stream(path: PathLike, fmt: str | None = None,
                schema: Mapping[str, Any] | PathLike | None = None) -> EventStream:
    """Load ``path`` as ``fmt`` (one of ``FORMATS``); when ``fmt`` is None infer it from the
    extension: ``.parquet``/``.pq`` -> parquet, ``.csv`` -> csv (needs ``schema``)."""
    p = Path(path)
    if fmt is None:
        suffix = p.suffix.lower()
        if suffix in (".parquet", ".pq"):
            fmt = "parquet"
        elif suffix == ".csv":
            fmt = "csv"
        else:
            raise StreamError(f"{p}: cannot tell the data format from the extension "
                              f"{suffix or '(none)'!r}; pass --format one of {list(FORMATS)}")
    if fmt not in FORMATS:
        raise StreamError(f"{p}: unknown format {fmt!r}; use one of {list(FORMATS)}")
    if fmt in ("csv", "parquet"):
        if schema is None:
            raise StreamError(f"{p}: format {fmt!r} needs a schema (--schema FILE.toml) naming "
                              f"type_column, ts_column, ts_unit and attributes; headerless "
                              f"Metastock or soccer files need --format metastock|soccer")
        return load_csv(p, schema) if fmt == "csv" else load_parquet(p, schema)
    if schema is not None:
        raise StreamError(f"{p}: format {fmt!r} has a fixed layout; drop the schema")
    return load_metastock(p) if fmt == "metastock" else load_soccer(p)

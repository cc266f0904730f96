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

Modules: ``workloads/formats/`` holds one module per format (``metastock``, ``soccer``,
``tabular`` for schema-described CSV/Parquet), the shared fast path (``arrow_fast``) and the
raw-file checks and precise diagnosis (``rawfile``); this module is the public entry point.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engines.errors import StreamError
from engines.stream import EventStream
from workloads.formats.metastock import (METASTOCK_ATTRS, load_metastock,
                                         warm_metastock_reader)
from workloads.formats.rawfile import DATA_DIR, PS_PER_SECOND, PathLike, resolve_data_path
from workloads.formats.soccer import SOCCER_ATTRS, load_soccer
from workloads.formats.tabular import TS_UNITS, load_csv, load_parquet, load_schema

__all__ = ["DATA_DIR", "FORMATS", "METASTOCK_ATTRS", "PS_PER_SECOND", "SOCCER_ATTRS", "TS_UNITS",
           "load_csv", "load_metastock", "load_parquet", "load_schema", "load_soccer",
           "load_stream", "resolve_data_path", "warm_reader"]

FORMATS: tuple[str, ...] = ("metastock", "soccer", "csv", "parquet")


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


def warm_reader(fmt: str | None) -> None:
    """Load the compiled parts of format ``fmt``'s reader (Metastock: the one-pass scan) before
    a timed load; nothing for formats read without a compiled kernel."""
    if fmt == "metastock":
        warm_metastock_reader()

"""Metastock 7 files (``load_metastock``): headerless ``ticker,YYYYMMDDhhmm,open,high,low,close,
volume`` lines (the OpenCEP NASDAQ samples); see ``workloads.loaders`` for the format notes."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.errors import StreamError
from engines.stream import EventStream
from workloads.formats.arrow_fast import arrow_table, dict_codes, to_numpy
from workloads.formats.rawfile import (PathLike, check_field_counts, check_sorted, fast_csv,
                                       map_file, raise_first_problem, read_bytes, str_csv)


METASTOCK_ATTRS: tuple[str, ...] = ("open", "high", "low", "close", "volume")
_METASTOCK_HINT = "ticker,YYYYMMDDhhmm,open,high,low,close,volume"


def _fast_metastock(data: bytes, p: Path) -> EventStream | None:
    """The Metastock fast path (``workloads.loaders``, "Parsing"); None = diagnose slowly.  Plain files (short
    tickers, numbers of at most 15 digits) are read by one compiled pass over the bytes
    (``workloads.metastock_scan.scan_metastock``, exact float conversion); others by pyarrow's
    CSV reader (tickers dictionary-encoded while parsing, the stamp column not converted) with
    the stamps from a compiled pass."""
    from workloads.metastock_scan import (POW10, SCAN_OK, SCAN_UNSORTED, scan_metastock,
                                          ticker_names)
    buf = np.frombuffer(data, dtype=np.uint8)
    status, codes, ts, attrs, keys = scan_metastock(buf, len(METASTOCK_ATTRS), POW10)
    if status == SCAN_UNSORTED:
        return None                  # the precise path names the out-of-order line
    if status == SCAN_OK:
        names = ticker_names(keys)
        if names is not None:
            return EventStream.from_arrays(codes, ts, attrs, names, METASTOCK_ATTRS,
                                           source=str(p))
    import pyarrow as pa
    names = ["ticker", "stamp", *METASTOCK_ATTRS]
    tab = arrow_table(data, names, {"ticker": pa.dictionary(pa.int32(), pa.string()),
                                     **{a: pa.float64() for a in METASTOCK_ATTRS}},
                       include=["ticker", *METASTOCK_ATTRS])
    if tab is None:
        return None
    from workloads.metastock_scan import scan_metastock_minutes
    status, minutes = scan_metastock_minutes(buf, tab.num_rows)
    if status != SCAN_OK:
        return None
    attrs = np.column_stack([to_numpy(tab.column(a), np.float64) for a in METASTOCK_ATTRS])
    if not np.isfinite(attrs).all():
        return None
    coded = dict_codes(tab.column("ticker"))
    if coded is None:
        return None
    codes, type_names = coded
    return EventStream.from_arrays(codes, minutes.astype(np.float64) * 60.0, attrs, type_names,
                                   METASTOCK_ATTRS, source=str(p))


def warm_metastock_reader() -> None:
    """Load the compiled reader (``scan_metastock``'s kernels) from the Numba cache, compiling
    them when the cache is cold, by scanning one line.  ``cepsim match`` calls it before the timed load so that
    the load stage measures reading, not the kernel's cache load and Numba's start-up (timed
    apart as ``load_jit``, as the engine's kernel load is timed apart as ``jit``)."""
    from workloads.metastock_scan import (POW10, this_cpu, count_lines, line_start_after,
                                          scan_metastock)
    one = np.frombuffer(b"A,200001010000,1,1,1,1,1\n", dtype=np.uint8)
    scan_metastock(one, len(METASTOCK_ATTRS), POW10, parts=1)   # no thread started here
    count_lines(one, 0, len(one))
    line_start_after(one, 0)
    this_cpu()


def load_metastock(path: PathLike) -> EventStream:
    """Load a headerless Metastock 7 file ``ticker,YYYYMMDDhhmm,open,high,low,close,volume``.

    ``ts`` = seconds since 1970-01-01 00:00 UTC (stamps read as UTC, exact whole minutes);
    type = ticker, codes in order of first appearance; attributes ``open..volume``."""
    mapped = map_file(path)           # no copy of the file when it can be parsed as it is
    if mapped is not None:
        fast = _fast_metastock(mapped[1], mapped[0])
        if fast is not None:
            return fast
    p, data = read_bytes(path, _METASTOCK_HINT)
    fast = _fast_metastock(data, p) if mapped is None else None
    if fast is not None:
        return fast
    import pandas as pd
    check_field_counts(data, 7, p, _METASTOCK_HINT)
    names = ["ticker", "stamp", *METASTOCK_ATTRS]
    line = lambda i: f"line {i + 1}"                                    # noqa: E731
    label = lambda c: f"field {names.index(c) + 1} ({c})"               # noqa: E731
    df = fast_csv(data, header=None, names=names, na_filter=False,
                   dtype={"ticker": str, "stamp": str, **{a: np.float64 for a in METASTOCK_ATTRS}})
    if df is None or not np.isfinite(df[list(METASTOCK_ATTRS)].to_numpy()).all():
        raw = str_csv(data, header=None, names=names)
        raise_first_problem(raw, [(a, False, False) for a in METASTOCK_ATTRS], p, line, label)
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
    check_sorted(minutes, p, line, lambda i: f"stamp {stamps.iloc[i]}")
    codes, uniques = pd.factorize(tickers, sort=False)
    return EventStream.from_arrays(codes.astype(np.int32), minutes.astype(np.float64) * 60.0,
                                   df[list(METASTOCK_ATTRS)].to_numpy(np.float64),
                                   [str(u) for u in uniques], METASTOCK_ATTRS, source=str(p))

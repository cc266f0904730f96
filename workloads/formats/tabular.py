"""Generic CSV and Parquet files described by a schema (``load_schema``, ``load_csv``,
``load_parquet``); the schema keys are documented in ``workloads.loaders``."""
from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engines.errors import StreamError
from engines.stream import EventStream
from workloads.formats.rawfile import (PathLike, check_field_counts, check_sorted, fast_csv,
                                       raise_first_problem, read_bytes, str_csv)


TS_UNITS: dict[str, int] = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9, "ps": 10**12}
_SCHEMA_KEYS = ("type_column", "ts_column", "ts_unit", "attributes", "types", "ts_relative",
                "allow_missing")


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
    check_sorted(raw, path, where, lambda i: f"{scol}={raw[i].item()!r}")
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
    p, data = read_bytes(path, "a header line, then one event per line")
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
        check_field_counts(data, len(header), p, f"{len(header)} columns as in the header")
    line = lambda i: f"line {i + 2}"                                    # noqa: E731
    tcol, scol = sch["type_column"], sch["ts_column"]
    use = list(dict.fromkeys([tcol, scol, *attrs]))
    df = fast_csv(data, usecols=use, dtype={tcol: str, **{a: np.float64 for a in attrs}},
                   skip_blank_lines=False)
    if df is not None and df[scol].dtype.kind not in "iuf" and not df[scol].isna().all():
        df = None                          # ts column has non-numbers: diagnose below
    if df is None:
        raw = str_csv(data, usecols=use)
        checks = [(scol, False, False)] + [(a, False, sch["allow_missing"]) for a in attrs]
        raise_first_problem(raw, checks, p, line, lambda c: f"column {c!r}")
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

"""The columnar event stream of docs/ARCHITECTURE.md, "Streams".

A stream is four aligned pieces: ``types`` (int32 codes), ``ts`` (float64 seconds,
non-decreasing), ``attrs`` (float64 matrix, one column per attribute) and a ``Schema``
mapping type names and attribute names to codes and columns.  A vector attribute such as a
price history ``hist`` of length h is stored as the consecutive columns ``hist[0]`` …
``hist[h-1]``.  Counting windows use an event's position (row index) in the stream.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from engines.errors import StreamError

_VEC_COL = re.compile(r"^(?P<name>.+)\[(?P<i>\d+)\]$")


@dataclass(frozen=True)
class Schema:
    """Names of event types (index = type code) and attribute columns (index = column)."""

    type_names: tuple[str, ...]
    attr_names: tuple[str, ...]

    def type_code(self, name: str) -> int:
        """Code of the type called ``name``; -1 when the stream has no such type."""
        try:
            return self.type_names.index(name)
        except ValueError:
            return -1

    def attr_column(self, name: str) -> int:
        """Column of the scalar attribute ``name``; raises ``KeyError`` when absent."""
        return self.attr_names.index(name)

    def has_attr(self, name: str) -> bool:
        return name in self.attr_names

    def vector(self, name: str) -> tuple[int, int]:
        """(first column, length) of the vector attribute ``name`` (columns ``name[0..]``)."""
        cols = [i for i, a in enumerate(self.attr_names)
                if (m := _VEC_COL.match(a)) and m.group("name") == name]
        if not cols:
            raise KeyError(name)
        start, length = cols[0], len(cols)
        if cols != list(range(start, start + length)):
            raise StreamError(f"vector attribute {name!r} is not stored in consecutive columns")
        return start, length

    def vector_names(self) -> list[str]:
        seen: list[str] = []
        for a in self.attr_names:
            m = _VEC_COL.match(a)
            if m and m.group("name") not in seen:
                seen.append(m.group("name"))
        return seen


@dataclass(frozen=True)
class EventStream:
    """A validated columnar stream.  Build it with ``EventStream.from_arrays`` or
    ``from_pandas``; the arrays are contiguous and of the dtypes the Numba kernels expect."""

    types: np.ndarray          # int32[n]
    ts: np.ndarray             # float64[n], non-decreasing
    attrs: np.ndarray          # float64[n, n_attrs]
    schema: Schema
    source: str = field(default="<memory>", compare=False)

    def __len__(self) -> int:
        return int(self.types.shape[0])

    @property
    def n_attrs(self) -> int:
        return int(self.attrs.shape[1])

    @classmethod
    def from_arrays(cls, types, ts, attrs, type_names, attr_names, source: str = "<memory>",
                    check_nan: bool = False) -> "EventStream":
        """Validate and build a stream; errors name ``source`` and what to fix.

        ``types`` may be integer codes (into ``type_names``) or strings (type names).
        ``check_nan`` rejects NaN in any attribute (the engines call
        ``require_no_nan`` for the columns a pattern actually uses).
        """
        type_names = tuple(str(t) for t in type_names)
        attr_names = tuple(str(a) for a in attr_names)
        if len(set(type_names)) != len(type_names):
            raise StreamError(f"{source}: duplicate event type names {type_names}")
        if len(set(attr_names)) != len(attr_names):
            raise StreamError(f"{source}: duplicate attribute names {attr_names}")
        types = np.asarray(types)
        if types.dtype.kind in "USO":
            lookup = {n: i for i, n in enumerate(type_names)}
            unknown = sorted({str(t) for t in types.tolist()} - set(lookup))
            if unknown:
                raise StreamError(f"{source}: unknown event type(s) {unknown[:5]}; "
                                  f"declare them in the schema's type names {list(type_names)}")
            types = np.array([lookup[str(t)] for t in types.tolist()], dtype=np.int32)
        if types.ndim != 1:
            raise StreamError(f"{source}: 'type' must be one-dimensional, got shape {types.shape}")
        n = types.shape[0]
        if n and (types.min() < 0 or types.max() >= len(type_names)):
            bad = int(types[(types < 0) | (types >= len(type_names))][0])
            raise StreamError(f"{source}: event type code {bad} is unknown; the schema declares "
                              f"{len(type_names)} types (codes 0..{len(type_names) - 1})")
        ts = np.ascontiguousarray(np.asarray(ts, dtype=np.float64))
        if ts.shape != (n,):
            raise StreamError(f"{source}: 'ts' has {ts.shape[0] if ts.ndim else 0} values "
                              f"but there are {n} events")
        if n and not np.all(np.isfinite(ts)):
            i = int(np.flatnonzero(~np.isfinite(ts))[0])
            raise StreamError(f"{source}: timestamp of row {i} is not a finite number")
        if n > 1:
            # ts[i] < ts[i-1] (the same test as diff < 0 for finite values) without the
            # float64 diff temporary: a fresh array's pages cost ~1.5 us each to fault in
            dec = ts[1:] < ts[:-1]
            if dec.any():
                i = int(np.argmax(dec)) + 1
                raise StreamError(f"{source}: timestamps must be non-decreasing; row {i} "
                                  f"(ts={float(ts[i])!r}) comes after ts={float(ts[i - 1])!r}; sort the data by time")
        attrs = np.asarray(attrs, dtype=np.float64)
        if attrs.ndim == 1 and len(attr_names) <= 1:
            attrs = attrs.reshape(n, len(attr_names))
        if attrs.ndim != 2 or attrs.shape[0] != n:
            raise StreamError(f"{source}: attribute matrix has shape {attrs.shape}, expected ({n}, "
                              f"{len(attr_names)})")
        if attrs.shape[1] != len(attr_names):
            raise StreamError(f"{source}: {attrs.shape[1]} attribute columns but the schema names "
                              f"{len(attr_names)} ({list(attr_names)}); fix the column count")
        stream = cls(types=np.ascontiguousarray(types.astype(np.int32, copy=False)), ts=ts,
                     attrs=np.ascontiguousarray(attrs), schema=Schema(type_names, attr_names),
                     source=source)
        if check_nan:
            stream.require_no_nan(range(len(attr_names)))
        return stream

    @classmethod
    def from_pandas(cls, df, type_col: str = "type", ts_col: str = "ts",
                    attr_cols: list[str] | None = None, type_names: list[str] | None = None,
                    source: str = "<DataFrame>") -> "EventStream":
        """Build from a DataFrame with a type column, a ts column (seconds) and attributes."""
        for col in (type_col, ts_col):
            if col not in df.columns:
                raise StreamError(f"{source}: missing column {col!r}; columns are {list(df.columns)}")
        if attr_cols is None:
            attr_cols = [c for c in df.columns if c not in (type_col, ts_col)]
        missing = [c for c in attr_cols if c not in df.columns]
        if missing:
            raise StreamError(f"{source}: missing attribute column(s) {missing}")
        types = df[type_col].to_numpy()
        if type_names is None:
            if types.dtype.kind in "iu":
                type_names = [str(i) for i in range(int(types.max()) + 1 if len(types) else 0)]
            else:
                type_names = list(dict.fromkeys(str(t) for t in types.tolist()))
        try:
            attrs = df[attr_cols].to_numpy(dtype=np.float64) if attr_cols else np.zeros((len(df), 0))
        except (TypeError, ValueError) as exc:
            raise StreamError(f"{source}: attribute columns must be numeric ({exc})") from None
        return cls.from_arrays(types, df[ts_col].to_numpy(dtype=np.float64), attrs,
                               type_names, attr_cols, source=source)

    def to_pandas(self):
        import pandas as pd
        df = pd.DataFrame(self.attrs, columns=list(self.schema.attr_names))
        df.insert(0, "ts", self.ts)
        df.insert(0, "type", [self.schema.type_names[t] for t in self.types])
        return df

    def require_no_nan(self, columns) -> None:
        """Raise a StreamError naming the first NaN found in one of ``columns``."""
        for c in columns:
            col = self.attrs[:, c]
            with np.errstate(invalid="ignore", over="ignore"):
                total = col.sum()
            if not np.isnan(total):
                continue          # no NaN (a NaN makes the sum NaN; so does inf - inf, then
                                  # the search below finds none): one pass, no temporaries
            bad = np.flatnonzero(np.isnan(col))
            if bad.size:
                raise StreamError(f"{self.source}: attribute {self.schema.attr_names[c]!r} is NaN "
                                  f"in row {int(bad[0])}; the pattern uses it, so clean the data "
                                  f"or drop that predicate")

    def slice(self, start: int, stop: int) -> "EventStream":
        return EventStream(self.types[start:stop].copy(), self.ts[start:stop].copy(),
                           self.attrs[start:stop].copy(), self.schema, self.source)

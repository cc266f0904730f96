"""DEBS 2013 soccer files (``load_soccer``): headerless ``sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,
ax,ay,az`` lines, stamps in picoseconds made relative to the first (exact int64 arithmetic); see
``workloads.loaders`` for the precision notes."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.errors import StreamError
from engines.stream import EventStream
from workloads.formats.arrow_fast import (all_digits, arrow_table, byte_matrix,
                                          codes_by_first_appearance, to_numpy)
from workloads.formats.rawfile import (INT_RE, PS_PER_SECOND, PathLike, check_field_counts,
                                       check_sorted, fast_csv, raise_first_problem,
                                       read_bytes, str_csv)


SOCCER_ATTRS: tuple[str, ...] = ("x", "y", "z", "v", "a", "vx", "vy", "vz", "ax", "ay", "az")
_SOCCER_HINT = "sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,ax,ay,az"


def _fast_soccer(data: bytes, p: Path) -> tuple[EventStream, int] | None:
    """The soccer fast path (``workloads.loaders``, "Parsing"); None = diagnose slowly."""
    import pyarrow as pa
    names = ["sensor", "ts", *SOCCER_ATTRS]
    tab = arrow_table(data, names, {"sensor": pa.string(), "ts": pa.string(),
                                     **{a: pa.float64() for a in SOCCER_ATTRS}})
    if tab is None:
        return None
    # plain digits only ("1.06e16" must not be rounded into a stamp); at most 18 of them, so
    # the value fits int64 (longer or signed stamps take the precise path)
    st = byte_matrix(tab.column("ts"))
    if st is None or st[0].shape[1] > 18 or not all_digits(*st):
        return None
    mat, lens = st
    w = mat.shape[1]
    # right-align each value's digits, then a dot product with powers of ten
    shift = w - lens
    cols = np.arange(w)
    src = cols[None, :] - shift[:, None]
    digits = np.where(src >= 0, mat[np.arange(mat.shape[0])[:, None], np.maximum(src, 0)], 48)
    ps = (digits.astype(np.int64) - 48) @ (10 ** np.arange(w - 1, -1, -1, dtype=np.int64))
    attrs = np.column_stack([to_numpy(tab.column(a), np.float64) for a in SOCCER_ATTRS])
    if not np.isfinite(attrs).all():
        return None
    sn = byte_matrix(tab.column("sensor"))
    if sn is None or not all_digits(*sn) or (ps.size > 1 and (np.diff(ps) < 0).any()):
        return None
    codes, type_names = codes_by_first_appearance(sn[0])
    offset = int(ps[0])
    ts = (ps - ps[0]).astype(np.float64) / float(PS_PER_SECOND)
    stream = EventStream.from_arrays(codes, ts, attrs, type_names, SOCCER_ATTRS, source=str(p))
    return stream, offset


def load_soccer(path: PathLike, return_offset: bool = False
                ) -> EventStream | tuple[EventStream, int]:
    """Load a headerless DEBS 2013 soccer file ``sensor_id,ts_ps,x,y,z,v,a,vx,vy,vz,ax,ay,az``.

    ``ts`` = seconds since the first event, computed as ``(ps - first_ps) / 1e12`` with the
    subtraction in int64 (see the module docstring for precision).  Type name = sensor id as
    written, codes in order of first appearance.  With ``return_offset=True`` returns
    ``(stream, first_ps)`` where ``first_ps`` is the first raw stamp in picoseconds."""
    p, data = read_bytes(path, _SOCCER_HINT)
    fast = _fast_soccer(data, p)
    if fast is not None:
        return fast if return_offset else fast[0]
    import pandas as pd
    check_field_counts(data, 13, p, _SOCCER_HINT)
    names = ["sensor", "ts", *SOCCER_ATTRS]
    line = lambda i: f"line {i + 1}"                                    # noqa: E731
    label = lambda c: f"field {names.index(c) + 1} ({c})"               # noqa: E731
    df = fast_csv(data, header=None, names=names, na_filter=False,
                   dtype={"sensor": str, "ts": str, **{a: np.float64 for a in SOCCER_ATTRS}})
    ps = None
    if df is not None:
        # pandas' int64 reader accepts "1.06e16"; insist on plain digits so no stamp is rounded
        stamps = df["ts"].str.strip()
        if stamps.str.fullmatch(INT_RE).all():
            try:
                ps = stamps.astype(np.int64).to_numpy()
            except (ValueError, OverflowError):
                ps = None
    if ps is None or not np.isfinite(df[list(SOCCER_ATTRS)].to_numpy()).all():
        raw = str_csv(data, header=None, names=names)
        checks = [("sensor", True, False), ("ts", True, False)]
        raise_first_problem(raw, checks + [(a, False, False) for a in SOCCER_ATTRS],
                             p, line, label)
        raise StreamError(f"{p}: could not parse the file as {_SOCCER_HINT}")  # pragma: no cover
    sensors = df["sensor"].str.strip()
    bad = np.flatnonzero(~sensors.str.fullmatch(r"\d+").to_numpy(dtype=bool))
    if bad.size:
        i = int(bad[0])
        raise StreamError(f"{p}: {line(i)}, {label('sensor')}: {sensors.iloc[i]!r} is not a "
                          f"sensor id (a non-negative integer); fix the value")
    check_sorted(ps, p, line, lambda i: f"ts {int(ps[i])} ps")
    offset = int(ps[0])
    rel = ps - ps[0]
    ts = rel.astype(np.float64) / float(PS_PER_SECOND)
    codes, uniques = pd.factorize(sensors, sort=False)
    stream = EventStream.from_arrays(codes.astype(np.int32), ts,
                                     df[list(SOCCER_ATTRS)].to_numpy(np.float64),
                                     [str(u) for u in uniques], SOCCER_ATTRS, source=str(p))
    return (stream, offset) if return_offset else stream

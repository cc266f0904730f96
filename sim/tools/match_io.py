"""Write a ``MatchSet``: as rows (``write_matches_jsonl``) or as its events (``write_match_events``).

One line per match, variables in pattern order, only the bound ones: ``{"a": 3, "b": 7}`` with
a Kleene variable as a list (``{"a": 3, "b": [4, 5]}``).  Matches whose columns are all plain and
bound (the common case) are formatted from the int64 arrays with one %-template per chunk;
others go through ``MatchSet.record``.  The file is written to a temporary name beside the
destination and moved into place (``sim.atomic``), so a failed run leaves no half file.

``write_match_events`` (``cepsim match --emit events``) writes each match's events with their
type, timestamp and attributes, as JSON lines or CSV; ``first_matches`` (``--limit N``) keeps
the first N matches in a canonical order.
"""
from __future__ import annotations

import json
import os
from typing import Callable

import numpy as np

from sim.atomic import atomic_write

CHUNK = 65536


def write_matches_jsonl(ms, path: str | os.PathLike, chunk: int = CHUNK,
                        on_chunk: Callable[[int, int], None] | None = None) -> int:
    """Write every match of ``ms`` to ``path``; returns the number written.  ``on_chunk(done,
    total)`` is called after each chunk (progress display)."""
    names = [json.dumps(n) for n in ms.var_names]
    template = "{" + ", ".join(f"{n}: %d" for n in names) + "}\n"
    n = len(ms)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                pos = ms.pos[lo:hi]
                plain = (pos >= 0).all(axis=1) if pos.shape[1] else np.ones(hi - lo, bool)
                if plain.all():
                    fh.write("".join([template % tuple(r) for r in pos.tolist()]))
                    if on_chunk is not None:
                        on_chunk(hi, n)
                    continue
                rows = pos.tolist()
                out = []
                for k in range(hi - lo):
                    if plain[k]:
                        out.append(template % tuple(rows[k]))
                    else:
                        out.append(json.dumps(ms.record(lo + k), separators=(", ", ": ")) + "\n")
                fh.write("".join(out))
                if on_chunk is not None:
                    on_chunk(hi, n)
    atomic_write(path, write)
    return n


EMIT_FORMATS = ("jsonl", "csv")


def emit_format(path: str | os.PathLike) -> str:
    """``csv`` for a ``.csv`` path, else ``jsonl`` (the format ``--emit events`` writes)."""
    return "csv" if str(path).lower().endswith(".csv") else "jsonl"


def first_matches(ms, n: int):
    """The first ``n`` matches of ``ms`` in a canonical order: by the event during whose
    processing each was detected (``MatchSet.detect``), then by the bound rows in pattern order
    (a Kleene column sorts by its first event).  Engines emit a detection's matches in different
    orders; this order is the same for every engine that finds the same matches."""
    from engines.matches import MatchSet

    if n < 0:
        raise ValueError(f"first_matches: n must be >= 0, got {n}")
    idx = _canonical_order(ms)[:n]
    return MatchSet(ms.var_names, ms.kleene, ms.pos[idx], ms.kl_start[idx], ms.kl_len[idx],
                    ms.kl_events, ms.detect[idx])


def _canonical_order(ms) -> np.ndarray:
    cols = ms.pos.copy()
    for j, k in enumerate(ms.kleene):
        if k and len(ms.kl_events):
            has = ms.kl_len[:, j] > 0
            first = ms.kl_events[np.minimum(ms.kl_start[:, j], len(ms.kl_events) - 1)]
            cols[:, j] = np.where(has, first, -1)
    keys = [cols[:, j] for j in range(cols.shape[1] - 1, -1, -1)] + [ms.detect]
    return np.lexsort(keys) if len(ms) else np.zeros(0, np.int64)


def match_events(ms, m: int) -> list[tuple[str, int]]:
    """(variable, event row) of match ``m`` in pattern order, a Kleene variable's events in
    ascending order; unbound variables (another OR branch) are left out."""
    out: list[tuple[str, int]] = []
    for j, name in enumerate(ms.var_names):
        if ms.kleene[j]:
            s, n = int(ms.kl_start[m, j]), int(ms.kl_len[m, j])
            out += [(name, int(e)) for e in ms.kl_events[s:s + n]]
        elif ms.pos[m, j] >= 0:
            out.append((name, int(ms.pos[m, j])))
    return out


def _num(v: float):
    """A JSON-safe attribute value: NaN (a missing value) -> None, integral floats stay floats."""
    return None if v != v else float(v)


def write_match_events(ms, stream, path: str | os.PathLike, fmt: str | None = None,
                       chunk: int = 4096,
                       on_chunk: Callable[[int, int], None] | None = None) -> int:
    """Write every match of ``ms`` as its events: type name, timestamp (the stream's time
    column) and attributes, read from ``stream`` (the stream the matches index into).

    ``fmt`` ``jsonl`` (default from the path, ``emit_format``): one line per match,
    ``{"match": i, "events": [{"var": "a", "row": 3, "type": "AAPL", "timestamp": 6.0,
    "attrs": {"close": 136.2, ...}}, ...]}``, a missing attribute value (NaN) as ``null``.
    ``csv``: one row per event of a match, columns ``match,var,row,type,timestamp`` and one per
    attribute, a missing value empty.  ``match`` numbers the matches from 0 in the written
    order.  Written atomically (``sim.atomic``); returns the number of matches written."""
    import csv
    import io

    fmt = emit_format(path) if fmt is None else fmt
    if fmt not in EMIT_FORMATS:
        raise ValueError(f"write_match_events: fmt must be one of {EMIT_FORMATS}, got {fmt!r}")
    names = stream.schema.type_names
    attr_names = list(stream.schema.attr_names)
    n = len(ms)
    types, ts, attrs = stream.types, stream.ts, stream.attrs

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            if fmt == "csv":
                w = csv.writer(fh, lineterminator="\n")
                w.writerow(["match", "var", "row", "type", "timestamp"] + attr_names)
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                if fmt == "csv":
                    buf = io.StringIO()
                    cw = csv.writer(buf, lineterminator="\n")
                    for m in range(lo, hi):
                        for var, r in match_events(ms, m):
                            cw.writerow([m, var, r, names[types[r]], repr(float(ts[r]))]
                                        + ["" if v != v else repr(float(v))
                                           for v in attrs[r].tolist()])
                    fh.write(buf.getvalue())
                else:
                    lines = []
                    for m in range(lo, hi):
                        evs = [{"var": var, "row": r, "type": names[types[r]],
                                "timestamp": float(ts[r]),
                                "attrs": dict(zip(attr_names, map(_num, attrs[r].tolist())))}
                               for var, r in match_events(ms, m)]
                        lines.append(json.dumps({"match": m, "events": evs}) + "\n")
                    fh.write("".join(lines))
                if on_chunk is not None:
                    on_chunk(hi, n)
    atomic_write(path, write)
    return n

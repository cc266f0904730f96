"""The DEBS'15 lazy-evaluation query (Kolchinsky et al., section 7) over ``workloads.stocks``.

``PATTERN SEQ(Finance a, HiTech b, GOOG c) WHERE corr(a.hist, b.hist) > T AND
corr(b.hist, c.hist) > T WITHIN h minutes`` -- the event type is the sector (the paper's
``a.ticker in Finance`` etc.), the correlations link consecutive variables of the *names*
a, b, c.  ``sequence`` reorders the SEQ (Figure 8 uses ``c,b,a`` and ``a,c,b``) while the
WHERE clause keeps linking a-b and b-c.
"""
from __future__ import annotations

from engines.compile import Program, compile_pattern
from engines.pattern import parse_pattern
from engines.stream import Schema

VAR_TYPES = {"a": "Finance", "b": "HiTech", "c": "GOOG"}


def query_text(sequence: str = "a,b,c", threshold: float = 0.8, h_minutes: float = 10,
               types: dict[str, str] | None = None, pairs: str = "ab,bc") -> str:
    """Pattern text for the given sequence order of the variables a, b, c; ``pairs`` lists the
    correlated variable pairs (the paper: ``"ab,bc"``; ``"ab,bc,ac"`` is a sensitivity variant
    in which every pair is linked)."""
    types = types or VAR_TYPES
    names = [s.strip() for s in sequence.split(",")]
    if sorted(names) != ["a", "b", "c"]:
        raise ValueError(f"sequence {sequence!r} must order the variables a, b, c")
    elems = ", ".join(f"{types[v]} {v}" for v in names)
    plist = [p.strip() for p in pairs.split(",") if p.strip()]
    if not plist or any(len(p) != 2 or set(p) - set("abc") or p[0] == p[1] for p in plist):
        raise ValueError(f"pairs {pairs!r} must list pairs of distinct variables, e.g. 'ab,bc'")
    where = " AND ".join(f"corr({p[0]}.hist, {p[1]}.hist) > {threshold}" for p in plist)
    return f"PATTERN SEQ({elems})\nWHERE {where}\nWITHIN {h_minutes:g} minutes"


def build_program(schema: Schema, sequence: str = "a,b,c", threshold: float = 0.8,
                  h_minutes: float = 10, types: dict[str, str] | None = None,
                  pairs: str = "ab,bc") -> Program:
    """Compile the query against a stream schema (types Finance/HiTech/GOOG or tickers)."""
    text = query_text(sequence, threshold, h_minutes, types, pairs)
    return compile_pattern(parse_pattern(text, source="debs15"), schema, source="debs15")


def corr_pair_selectivity(stream, x_type: str, y_type: str, threshold: float,
                          h_minutes: float = 10, max_pairs: int = 200_000,
                          seed: int = 0) -> tuple[float, int]:
    """Measured selectivity of ``corr(x.hist, y.hist) > threshold`` on this stream: the fraction
    of in-window pairs (an ``x_type`` event at or before a ``y_type`` event, at most
    ``h_minutes`` apart, ``x`` earlier in stream position) whose histories pass, i.e. the pass
    rate a lazy NFA sees when it evaluates the condition over buffered candidates.  Uses every
    pair when there are at most ``max_pairs``, else a seeded uniform sample of that many.
    Pearson as in ``engines.predicates.pearson`` (a zero-variance history gives NaN = fails).
    Returns ``(selectivity, pairs evaluated)``; ``(nan, 0)`` when there is no such pair.

    Why: the correlation threshold T is a free workload parameter the paper does not state; the
    lazy-NFA sensitivity study plots results against this measured selectivity."""
    import numpy as np
    sch = stream.schema
    cx, cy = sch.type_code(x_type), sch.type_code(y_type)
    h0, hl = sch.vector("hist")
    ix = np.flatnonzero(stream.types == cx)
    iy = np.flatnonzero(stream.types == cy)
    if len(ix) == 0 or len(iy) == 0:
        return float("nan"), 0
    tx = stream.ts[ix]
    w = float(h_minutes) * 60.0
    # x candidates of y event j: positions < iy[j] with ts >= ts[iy[j]] - w
    hi = np.searchsorted(ix, iy)                       # x positions before j (ix sorted)
    lo = np.searchsorted(tx, stream.ts[iy] - w, side="left")
    cnt = np.maximum(hi - lo, 0)
    total = int(cnt.sum())
    if total == 0:
        return float("nan"), 0
    if total <= max_pairs:
        flat = np.arange(total)
    else:
        flat = np.sort(np.random.default_rng(seed).choice(total, size=max_pairs, replace=False))
    cum = np.cumsum(cnt)
    j = np.searchsorted(cum, flat, side="right")       # which y event
    k = flat - (cum[j] - cnt[j])                       # offset among its x candidates
    ex = ix[lo[j] + k]
    ey = iy[j]
    hx = stream.attrs[ex, h0:h0 + hl]
    hy = stream.attrs[ey, h0:h0 + hl]
    dx = hx - hx.mean(axis=1, keepdims=True)
    dy = hy - hy.mean(axis=1, keepdims=True)
    sxx = (dx * dx).sum(axis=1)
    syy = (dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (dx * dy).sum(axis=1) / np.sqrt(sxx * syy)
    r[(sxx == 0) | (syy == 0)] = np.nan
    return float(np.mean(r > float(threshold))), len(flat)

"""The DEBS'15 lazy-evaluation query (Kolchinsky et al., section 7) over ``workloads.stocks``.

``PATTERN SEQ(Finance a, HiTech b, GOOG c) WHERE corr(a.hist, b.hist) > T AND
corr(b.hist, c.hist) > T WITHIN h minutes`` -- the event type is the sector (the paper's
``a.ticker in Finance`` etc.), the correlations link consecutive variables of the *names*
a, b, c.  ``sequence`` reorders the SEQ (Figure 8 uses ``c,b,a`` and ``a,c,b``) while the
WHERE clause keeps linking a-b and b-c.
"""
from __future__ import annotations

import numpy as np

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


# ----------------------------------------------------------------------------- regimes
#: Correlation threshold T of the two named regimes (the paper does not state T).
#: ``selective``: T = 0.8, a realistic threshold (the NASDAQ sample passes 5.5-6.9 % of pairs).
#: ``paper_regime``: the pick of the documented search of
#: ``experiments/lazy_nfa/calibrate_regime.toml``: the T of the grid whose chains meet
#: the most of the paper's chain-ranking checks of Figure 7 (best chain c-first; c,a,b the best
#: chain, section 7 observation 4 "the best chain NFA (cab in our case)"; c,a,b / c,b,a in
#: [0.8, 1.25] at every f_c; observation 3, c-first >= 10x below the c-second/third chains;
#: observation 2, c-second/third chains within 3x of eager under operations), ties to the largest
#: T; that experiment's claim re-runs the search and fails when this value is not its pick.
#: On the stock stream with GOOG in the hi-tech sector factor (``workloads.stocks``) -0.9 is the
#: pick at full scale (15/17 checks; -0.9 and -0.95 tie; s_ab ~ 0.99, s_bc ~ 0.985): c,a,b is the
#: best chain only where corr(b, c) barely filters, since c,b,a pays ~s_bc W_a W_b / 2 after a c
#: event and c,a,b ~W_a W_b / 2.  Observations 2 and 3 hold at no T <= 0.8 (obs. 2 only at
#: T = 0.9), so they do not move the pick.  The search gives every T the same stream per f_c
#: (``stream_seed``, common random numbers).
REGIME_T: dict[str, float] = {"paper_regime": -0.9, "selective": 0.8}


def regime_threshold(regime: str) -> float:
    """T of a named regime (``REGIME_T``); ``ValueError`` naming the choices otherwise."""
    if regime not in REGIME_T:
        raise ValueError(f"unknown regime {regime!r}; choose one of {sorted(REGIME_T)}")
    return REGIME_T[regime]


def window_counts_at(stream, at_type: str, count_types: tuple[str, ...],
                     h_minutes: float = 10) -> np.ndarray:
    """For every event of ``at_type``: how many events of each of ``count_types`` precede it
    (stream position) within ``h_minutes`` -- the input-buffer counters a lazy NFA sees when
    the event arrives.  Returns int64[n_at, len(count_types)]."""
    sch = stream.schema
    at = np.flatnonzero(stream.types == sch.type_code(at_type))
    out = np.zeros((len(at), len(count_types)), dtype=np.int64)
    w = float(h_minutes) * 60.0
    for j, ty in enumerate(count_types):
        ix = np.flatnonzero(stream.types == sch.type_code(ty))
        hi = np.searchsorted(ix, at)
        lo = np.searchsorted(stream.ts[ix], stream.ts[at] - w, side="left")
        out[:, j] = np.maximum(hi - lo, 0)
    return out

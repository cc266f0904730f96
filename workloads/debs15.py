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

"""APAM (CIKM'16) section 6.1 synthetic stream and query.

Five event types A..E drawn uniformly and independently, integer attributes ``attr1..attr9``,
the query::

    PATTERN SEQ(A a, B b, C c, D d, E e)
    WHERE a.attr1 < b.attr1 AND b.attr2 < c.attr2 AND c.attr3 < d.attr3 AND d.attr4 < e.attr4
    WITHIN 2000 events

and the three selectivity settings of Table 2.  Predicate k compares ``attr_k`` of its left
type L_k with ``attr_k`` of its right type R_k.  Every attribute is uniform on ``{0..M-1}``
(``M = 10000``) except ``attr_k`` of L_k, which is shifted: ``U + c_k`` with ``U`` uniform on
``{0..M-1}``.  For independent ``U, V`` uniform on ``{0..M-1}``,

    P(U + c < V) = sum_{d=c+1}^{M-1} (M - d) / M^2 = g (g - 1) / (2 M^2),   g = M - c,

so ``g = round((1 + sqrt(1 + 8 s M^2)) / 2)`` gives selectivity ``s`` to within ~1e-6 (the exact
value achieved is ``exact_selectivity``).  That is the *shift* reading (``reading="shift"``).

The paper says selectivities are set "by varying the domain of the relevant event attribute";
the *domain* reading (``reading="domain"``) keeps the left attribute uniform on ``{0..M-1}`` and
draws the right one uniform on ``{0..D-1}``: ``P(U < V) = (D - 1) / (2 M)``, so
``D = 2 s M + 1`` gives Table 2's values exactly (D = 41, 81, 121, 161 for 0.002 ... 0.008).  Timestamps are the event positions in seconds (the
window counts events; arrival times come from the simulator).  The first ``n_warmup`` events
(half, as in the paper) are the optimizer's warm-up.
"""
from __future__ import annotations

import math

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

TYPE_NAMES = ("A", "B", "C", "D", "E")
ATTR_NAMES = tuple(f"attr{i}" for i in range(1, 10))
QUERY = ("PATTERN SEQ(A a, B b, C c, D d, E e) "
         "WHERE a.attr1 < b.attr1 AND b.attr2 < c.attr2 AND c.attr3 < d.attr3 "
         "AND d.attr4 < e.attr4 WITHIN 2000 events")
# Table 2: selectivities of the four predicates and the paper's optimal matching order
SELECTIVITIES: dict[int, tuple[float, float, float, float]] = {
    1: (0.008, 0.006, 0.004, 0.002),
    2: (0.002, 0.004, 0.006, 0.008),
    3: (0.006, 0.002, 0.004, 0.008),
}
PAPER_ORDER = {1: "EDCBA", 2: "ABCDE", 3: "BCDAE"}
DOMAIN = 10_000
N_EVENTS = 100_000


def _check_experiment(experiment) -> int:
    try:
        e = int(experiment)
    except (TypeError, ValueError):
        e = -1
    if e not in SELECTIVITIES:
        raise CepsimInputError(f"apam workload: experiment must be 1, 2 or 3 (Table 2), got "
                               f"{experiment!r}")
    return e


def shift_for(s: float, m: int = DOMAIN) -> int:
    """Shift ``c`` of the left attribute giving ``P(U + c < V)`` closest to ``s``."""
    if not 0 < s < 0.5:
        raise CepsimInputError(f"apam workload: selectivity must be in (0, 0.5), got {s}")
    g = round((1 + math.sqrt(1 + 8 * s * m * m)) / 2)
    return int(m - g)


def exact_selectivity(c: int, m: int = DOMAIN) -> float:
    """``P(U + c < V)`` for independent ``U, V`` uniform on ``{0..m-1}``."""
    g = m - c
    return g * (g - 1) / (2.0 * m * m) if g > 0 else 0.0


def selectivities(experiment: int, m: int = DOMAIN) -> tuple[float, ...]:
    """The selectivities the generator achieves in expectation (analytic)."""
    e = _check_experiment(experiment)
    return tuple(exact_selectivity(shift_for(s, m), m) for s in SELECTIVITIES[e])


READINGS = ("shift", "domain")


def domain_for(s: float, m: int = DOMAIN) -> int:
    """Domain size ``D`` of the right attribute giving ``P(U < V) = (D - 1) / (2 m)`` = ``s``."""
    if not 0 < s < 0.5:
        raise CepsimInputError(f"apam workload: selectivity must be in (0, 0.5), got {s}")
    return int(round(2 * s * m)) + 1


def domain_selectivity(d: int, m: int = DOMAIN) -> float:
    return (d - 1) / (2.0 * m)


def generate(experiment: int, n_events: int = N_EVENTS, seed: int = 0,
             m: int = DOMAIN, reading: str = "shift") -> EventStream:
    """The section 6.1 stream for experiment 1, 2 or 3 (deterministic given ``seed``) under
    the ``shift`` or ``domain`` reading of section 6.1 (module docstring)."""
    e = _check_experiment(experiment)
    if reading not in READINGS:
        raise CepsimInputError(f"apam workload: reading must be one of {READINGS}, got "
                               f"{reading!r}")
    if int(n_events) < 1:
        raise CepsimInputError(f"apam workload: n_events must be >= 1, got {n_events}")
    n = int(n_events)
    rng = np.random.default_rng(seed)
    types = rng.integers(0, len(TYPE_NAMES), n).astype(np.int32)
    attrs = rng.integers(0, m, (n, len(ATTR_NAMES))).astype(np.float64)
    for k, s in enumerate(SELECTIVITIES[e]):
        # predicate k+1: left type k, right type k+1, attribute attr{k+1}
        if reading == "shift":
            c = shift_for(s, m)
            rows = types == k
            attrs[rows, k] += c
        else:
            rows = types == k + 1
            attrs[rows, k] = rng.integers(0, domain_for(s, m), int(rows.sum()))
    ts = np.arange(n, dtype=np.float64)
    return EventStream.from_arrays(types, ts, attrs, TYPE_NAMES, ATTR_NAMES,
                                   source=f"<apam_synthetic exp{e} {reading}>")


def program_for(stream: EventStream):
    """The compiled section 6.1 query against ``stream``'s schema."""
    from engines.compile import compile_pattern
    from engines.pattern import parse_pattern

    return compile_pattern(parse_pattern(QUERY, source="apam query"), stream.schema)


def empirical_selectivities(stream: EventStream) -> tuple[float, ...]:
    """Achieved ``P(left.attr_k < right.attr_k)`` over every (left, right) pair of the stream."""
    out = []
    for k in range(4):
        u = np.sort(stream.attrs[stream.types == k, k])
        v = stream.attrs[stream.types == k + 1, k]
        if not len(u) or not len(v):
            out.append(float("nan"))
            continue
        out.append(float(np.searchsorted(u, v, side="left").sum()) / (len(u) * len(v)))
    return tuple(out)


def _pair_distributions(experiment: int, k: int, reading: str, m: int = DOMAIN):
    """Support and probabilities of predicate k's left and right attribute (module docstring)."""
    s = SELECTIVITIES[_check_experiment(experiment)][k]
    base = np.arange(m, dtype=np.float64)
    if reading == "shift":
        left, right = base + shift_for(s, m), base
    elif reading == "domain":
        left, right = base, np.arange(domain_for(s, m), dtype=np.float64)
    else:
        raise CepsimInputError(f"apam workload: reading must be one of {READINGS}, got "
                               f"{reading!r}")
    return left, right


def selectivity_errors(stream: EventStream, experiment: int, reading: str,
                       m: int = DOMAIN) -> list[tuple[float, float]]:
    """Per predicate: (expected achieved selectivity, its sampling standard error) for a stream
    with ``stream``'s numbers of left and right events.

    The achieved value is the two-sample U-statistic ``(1/(n_u n_v)) Σ_ij 1[u_i < v_j]`` over
    the stream's left (u) and right (v) events, whose attributes are independent draws; its
    variance is ``(s(1-s) + (n_v-1) ζ_u + (n_u-1) ζ_v) / (n_u n_v)`` with ``ζ_u = Var_u P(u <
    V)`` and ``ζ_v = Var_v P(U < v)`` (Hoeffding), computed exactly over the attributes'
    finite supports."""
    out = []
    for k in range(4):
        left, right = _pair_distributions(experiment, k, reading, m)
        nu = int((stream.types == k).sum())
        nv = int((stream.types == k + 1).sum())
        rs = np.sort(right)
        g = 1.0 - np.searchsorted(rs, left, side="right") / len(rs)    # P(V > u) per u
        ls = np.sort(left)
        h = np.searchsorted(ls, right, side="left") / len(ls)          # P(U < v) per v
        s = float(g.mean())
        if nu < 1 or nv < 1:
            out.append((s, math.nan))
            continue
        var = (s * (1 - s) + (nv - 1) * float(g.var()) + (nu - 1) * float(h.var())) / (nu * nv)
        out.append((s, math.sqrt(max(var, 0.0))))
    return out

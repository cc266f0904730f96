"""Seeded streams and pattern sets for the adaptive re-planning experiments (PVLDB'18).

The paper runs on Aarhus CityBench traffic (449 observation points, 13.6 M events; "highly
skewed and stable" statistics with "few but very extreme" changes) and on NASDAQ per-minute
quotes (2,100 tickers; "low skew", "frequent but mostly minor" changes).  Neither data set ships
here, so two generators reproduce those properties (the bundled NASDAQ / soccer samples are only
small case studies):

``traffic_stream``  types = observation points ``P0..``; base rates log-uniform over
    ``rate_span`` (default 100x: about two orders of magnitude); every ``noise_every`` events the
    rates get small multiplicative noise (lognormal, sigma ``noise``); ``n_changes`` regime changes
    (default 3-5, drawn) in which ``change_types`` random points (default a fifth of them) multiply or divide their rate by a
    factor in ``factor_range`` (default [10, 50]) for a sustained period (10-25 % of the stream)
    and shift their count / speed means.  Attributes: ``count`` (vehicles, sd 30 %, rounded) and
    ``speed`` (km/h, sd 20 %).  Model ``"skewed"`` (the default): per-point means
    log-uniform over 5..150 vehicles and 27.5..110 km/h, so that most pairwise selectivities of
    the traffic predicates are near 0 or 1 (the paper: "arrival rates and selectivities ...
    highly skewed"); a regime change multiplies or divides the changing points' count mean by a
    factor in ``shift_range`` (default [2, 5]) and moves their speed the other way by its square
    root (a jam forming or clearing: "changes ... mostly very extreme").  Model ``"uniform"``
    (a variant with little skew): means uniform in 20..30 and 50..70, shifts
    x0.5..2 and x0.6..1.4 (most selectivities near the middle).  Model ``"road"`` (a variant):
    the skewed spans with one road class per point setting both means, so that points visited in
    class order (``pattern_text(..., corridor=True)``) can rise in both attributes
    (docs/reproduction/adaptive.md, "Matches per point").  Drift size = ``factor_range`` /
    ``shift_range``, drift frequency = ``n_changes`` (swept by experiments/adaptive/drift.toml).
``stock_stream``  types = tickers ``S0..``; log rates follow a mean-reverting (Ornstein-Uhlenbeck)
    process around a common mean with small spread (low skew, frequent minor changes), updated
    every ``noise_every`` events (drift frequency) with step sd ``sigma`` (drift size; both swept
    by experiments/adaptive/drift_stocks.toml); attributes ``price`` (per-ticker geometric random walk) and
    ``diff`` = the price change since the ticker's previous event.

Events form one merged Poisson process of total rate ``total_rate`` events/s whose type is drawn
from the current rate shares.  Everything is a deterministic function of the arguments.

Pattern sets (``pattern_text``), each for sizes n = 3..8 over the first n (OR: 3n) types of a
seeded type permutation: ``seq``; ``neg`` (SEQ with one NOT in the middle); ``and``; ``kleene``
(SEQ with the middle variable under Kleene +); ``or`` (OR of three SEQs of size n).  Predicates
chain consecutive variables: traffic "either an increase or a decline in both the number of
vehicles and the average speed" (section 5.1: a violation of the normal speed / density
relation), written as the OR of the increasing pattern (``a.count < b.count AND a.speed <
b.speed``) and the declining one (``>``; ``pattern_text``); stocks ``a.diff < b.diff`` (the
paper's ``A.diff < B.diff < C.diff``).  ``count_base`` (traffic, default 5 vehicles) is the
smallest per-point count mean.
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

PATTERN_SETS = ("seq", "neg", "and", "kleene", "or")
DATASETS = ("traffic", "stocks")


def _merged_stream(rates: np.ndarray, seg_len: int, n_events: int, total_rate: float,
                   rng: np.random.Generator):
    """Types of ``n_events`` events drawn with the piecewise-constant rate shares ``rates``
    ``[n_segments, T]`` (segment = ``seg_len`` events) and exponential gaps at ``total_rate``."""
    T = rates.shape[1]
    types = np.empty(n_events, np.int32)
    for s in range(rates.shape[0]):
        lo, hi = s * seg_len, min(n_events, (s + 1) * seg_len)
        if lo >= hi:
            break
        p = rates[s] / rates[s].sum()
        types[lo:hi] = rng.choice(T, hi - lo, p=p)
    ts = np.cumsum(rng.exponential(1.0 / total_rate, n_events))
    return types, ts


TRAFFIC_MODELS = ("skewed", "uniform", "road")


def traffic_stream(n_events: int, seed: int, *, n_types: int = 40, total_rate: float = 100.0,
                   rate_span: float = 100.0, noise: float = 0.05, noise_every: int = 500,
                   n_changes: int | None = None, change_types: int | None = None,
                   factor_range: tuple[float, float] = (10.0, 50.0), model: str = "skewed",
                   count_span: float = 30.0, speed_span: float = 4.0,
                   shift_range: tuple[float, float] = (2.0, 5.0),
                   count_base: float = 5.0, class_jitter: float = 0.0) -> EventStream:
    """Traffic-like stream (module docstring).  ``model = "skewed"`` (default): per-point
    attribute means log-uniform over ``count_span`` (vehicles: 5 .. 5 * count_span) and
    ``speed_span`` (km/h: 110 / speed_span .. 110), so that the pairwise selectivities of
    ``a.count < b.count AND a.speed < b.speed`` are skewed (near 0 or 1 for most pairs: the
    paper's "arrival rates and selectivities ... highly skewed"), and a regime change moves the
    changing points' count by a factor in ``shift_range`` (up or down) and their speed the other
    way by the square root of it (a jam or its clearing: "changes ... mostly very extreme").
    ``model = "uniform"``: a variant with little skew (means uniform in 20..30 and 50..70,
    shifts x0.5..2 and x0.6..1.4, so most selectivities are near 0.5).  ``model = "road"``: the
    skewed spans, but one road class ``z`` per point (sorted uniform draws: ``P0`` the smallest
    road) sets both means, ``count_base * count_span ** z`` and ``110 / speed_span *
    speed_span ** z``, each times ``exp(N(0, class_jitter))`` (bigger roads carry more vehicles
    at higher speeds; invented, section 5.1 states no such relation), so that points visited in
    class order (``pattern_text(..., corridor=True)``) can rise in both attributes; regime
    changes as in ``"skewed"``."""
    _check(n_events, n_types)
    if model not in TRAFFIC_MODELS:
        raise CepsimInputError(f"adaptive workload: traffic model must be one of "
                               f"{TRAFFIC_MODELS}, got {model!r}")
    rng = np.random.default_rng([seed, 1])
    base = np.exp(rng.uniform(0.0, np.log(rate_span), n_types))
    n_seg = -(-n_events // noise_every)
    mult = np.ones((n_seg, n_types))
    if model == "uniform":
        mean_c = rng.uniform(20, 30, n_types)
        mean_s = rng.uniform(50, 70, n_types)
    elif model == "road":
        z = np.sort(rng.uniform(0.0, 1.0, n_types))
        jc, js = rng.normal(0.0, 1.0, (2, n_types)) * class_jitter
        mean_c = count_base * count_span ** z * np.exp(jc)
        mean_s = 110.0 / speed_span * speed_span ** z * np.exp(js)
    else:
        mean_c = count_base * np.exp(rng.uniform(0.0, np.log(count_span), n_types))
        mean_s = 110.0 * np.exp(-rng.uniform(0.0, np.log(speed_span), n_types))
    shift_c = np.ones((n_seg, n_types))
    shift_s = np.ones((n_seg, n_types))
    k = int(rng.integers(3, 6)) if n_changes is None else int(n_changes)
    n_ch = min(n_types, max(3, n_types // 5) if change_types is None else int(change_types))
    for _ in range(k):
        start = int(rng.integers(0, max(1, n_seg - 1)))
        length = max(1, int(rng.uniform(0.10, 0.25) * n_seg))
        who = rng.choice(n_types, n_ch, replace=False)
        f = rng.uniform(*factor_range, len(who)) ** rng.choice([-1.0, 1.0], len(who))
        mult[start:start + length, who] *= f
        if model == "uniform":
            shift_c[start:start + length, who] *= rng.uniform(0.5, 2.0, len(who))
            shift_s[start:start + length, who] *= rng.uniform(0.6, 1.4, len(who))
        else:
            g = rng.uniform(*shift_range, len(who)) ** rng.choice([-1.0, 1.0], len(who))
            shift_c[start:start + length, who] *= g
            shift_s[start:start + length, who] /= np.sqrt(g)
    rates = base * mult * np.exp(rng.normal(0.0, noise, (n_seg, n_types)))
    types, ts = _merged_stream(rates, noise_every, n_events, total_rate, rng)
    seg = np.arange(n_events) // noise_every
    mc = mean_c[types] * shift_c[seg, types]
    ms = mean_s[types] * shift_s[seg, types]
    count = np.maximum(0.0, np.round(rng.normal(mc, 0.3 * mc)))
    speed = np.maximum(0.0, rng.normal(ms, 0.2 * ms))
    attrs = np.column_stack([count, speed])
    return EventStream.from_arrays(types, ts, attrs, tuple(f"P{i}" for i in range(n_types)),
                                   ("count", "speed"), source=f"<traffic seed={seed}>")


def stock_stream(n_events: int, seed: int, *, n_types: int = 40, total_rate: float = 100.0,
                 spread: float = 0.15, theta: float = 0.05, sigma: float = 0.15,
                 noise_every: int = 100, vol: float = 0.01) -> EventStream:
    """Stock-like stream (module docstring)."""
    _check(n_events, n_types)
    rng = np.random.default_rng([seed, 2])
    mu = rng.normal(0.0, spread, n_types)
    n_seg = -(-n_events // noise_every)
    x = np.empty((n_seg, n_types))
    cur = mu.copy()
    for s in range(n_seg):
        cur = cur + theta * (mu - cur) + sigma * rng.standard_normal(n_types)
        x[s] = cur
    types, ts = _merged_stream(np.exp(x), noise_every, n_events, total_rate, rng)
    ret = rng.normal(0.0, vol, n_events)
    price = np.empty(n_events)
    diff = np.empty(n_events)
    last = np.full(n_types, 100.0)
    for i in range(n_events):   # per-ticker geometric random walk
        t = types[i]
        p = last[t] * np.exp(ret[i])
        diff[i] = p - last[t]
        price[i] = p
        last[t] = p
    return EventStream.from_arrays(types, ts, np.column_stack([price, diff]),
                                   tuple(f"S{i}" for i in range(n_types)), ("price", "diff"),
                                   source=f"<stocks seed={seed}>")


def make_stream(dataset: str, n_events: int, seed: int, **kw) -> EventStream:
    if dataset == "traffic":
        return traffic_stream(n_events, seed, **kw)
    if dataset == "stocks":
        return stock_stream(n_events, seed, **kw)
    raise CepsimInputError(f"adaptive workload: unknown dataset {dataset!r}; use one of "
                           f"{DATASETS}")


def _check(n_events: int, n_types: int) -> None:
    if n_events < 1 or n_types < 3:
        raise CepsimInputError("adaptive workload: need n_events >= 1 and n_types >= 3")


TRAFFIC_DIRECTIONS = ("up", "down")


def _preds(dataset: str, a: str, b: str, direction: str = "up") -> list[str]:
    """The predicates between consecutive variables ``a`` -> ``b``.  Traffic: both the vehicle
    count and the average speed increase (``direction = "up"``) or both decline (``"down"``);
    stocks: ``a.diff < b.diff`` (section 5.1)."""
    if dataset == "traffic":
        op = "<" if direction == "up" else ">"
        return [f"{a}.count {op} {b}.count", f"{a}.speed {op} {b}.speed"]
    return [f"{a}.diff < {b}.diff"]


def pattern_text(dataset: str, pset: str, n: int, type_names, window: float,
                 type_seed: int = 0, directions: tuple = TRAFFIC_DIRECTIONS,
                 corridor: bool = False) -> str:
    """The pattern of set ``pset`` and size ``n`` (module docstring) over ``type_names``.

    Traffic patterns detect "combinations ... of three or more observations with either an
    increase or a decline in both the number of vehicles and the average speed" (PVLDB'18
    section 5.1): the pattern is the OR of the two directed patterns, ``OR(P_up, P_down)``,
    ``P_up`` the set's pattern with every consecutive pair increasing in both attributes and
    ``P_down`` the same types and structure with both declining (the ``or`` set: the OR of its
    three SEQs in each direction, six alternatives).  The direction is one per combination, not
    per pair: WHERE is a conjunction of comparisons (engines/pattern/parser.py), and a
    combination that rises then falls is neither "an increase" nor "a decline".  Stock patterns
    are one direction (``A.diff < B.diff < C.diff``, section 5.1).  ``directions`` (traffic):
    the directions ORed, ``("up", "down")`` by default; ``("up",)`` is the increase-only
    variant (one directed pattern, no OR).  ``corridor = True``: each positive sequence visits
    its drawn points in ascending type index (``_corridor``; with ``traffic_stream(...,
    model="road")`` the road-class order, so that a chain can rise in both attributes; the
    paper does not say how its combinations of observation points were chosen)."""
    if pset not in PATTERN_SETS:
        raise CepsimInputError(f"adaptive: unknown pattern set {pset!r}; use one of {PATTERN_SETS}")
    if not 2 <= n <= 12:
        raise CepsimInputError(f"adaptive: pattern size n must be in 2..12, got {n}")
    need = 3 * n if pset == "or" else n + (1 if pset == "neg" else 0)
    if need > len(type_names):
        raise CepsimInputError(f"adaptive: pattern {pset} n={n} needs {need} types, the stream "
                               f"has {len(type_names)}")
    perm = np.random.default_rng([type_seed, 7]).permutation(len(type_names))
    picked = [int(i) for i in perm[:need]]
    if corridor:
        picked = _corridor(picked, pset, n)
    types = [type_names[i] for i in picked]
    if dataset != "traffic":
        alts, preds = _directed(dataset, pset, n, types, "up", "v")
        body = alts[0] if len(alts) == 1 else f"OR({', '.join(alts)})"
    else:
        dirs = tuple(directions)
        if not dirs or any(d not in TRAFFIC_DIRECTIONS for d in dirs) or len(set(dirs)) < len(dirs):
            raise CepsimInputError(f"adaptive: traffic directions must be distinct values of "
                                   f"{TRAFFIC_DIRECTIONS}, got {directions!r}")
        alts, preds = [], []
        for direction in dirs:
            al, pr = _directed(dataset, pset, n, types, direction,
                               "v" if len(dirs) == 1 else direction[0])
            alts += al
            preds += pr
        body = alts[0] if len(alts) == 1 else f"OR({', '.join(alts)})"
    return f"PATTERN {body}\nWHERE {' AND '.join(preds)}\nWITHIN {window:g} seconds"


def _corridor(picked: list[int], pset: str, n: int) -> list[int]:
    """The drawn points of each positive sequence visited in ascending type index (the
    ``road`` model's road class, ``traffic_stream``): a corridor from the smallest to the
    largest road; the negated point (``neg``: the last drawn) stays where it is."""
    if pset == "or":
        return [i for g in range(3) for i in sorted(picked[g * n:(g + 1) * n])]
    return sorted(picked[:n]) + picked[n:]


def _directed(dataset: str, pset: str, n: int, types: list, direction: str,
              prefix: str) -> tuple[list[str], list[str]]:
    """The alternatives (one, or three for ``or``) and predicates of set ``pset`` over ``types``
    in one ``direction``, variables ``<prefix>0..`` (``x`` for the negated one when
    ``prefix = "v"``, else ``<prefix>x``)."""

    def seq(ts_, off, kleene_mid=False):
        vs = [f"{prefix}{off + i}" for i in range(len(ts_))]
        items = [f"{t}{'+' if kleene_mid and i == len(ts_) // 2 else ''} {v}"
                 for i, (t, v) in enumerate(zip(ts_, vs))]
        preds = [p for a, b in zip(vs, vs[1:]) for p in _preds(dataset, a, b, direction)]
        return items, preds

    if pset in ("seq", "and", "kleene"):
        items, preds = seq(types, 0, pset == "kleene")
        op = "AND" if pset == "and" else "SEQ"
        return [f"{op}({', '.join(items)})"], preds
    if pset == "neg":
        items, preds = seq(types[:n], 0)
        mid = n // 2
        x = "x" if prefix == "v" else f"{prefix}x"
        neg = f"NOT({types[n]} {x})"
        items = items[:mid] + [neg] + items[mid:]
        preds += _preds(dataset, f"{prefix}{mid - 1}", x, direction)
        return [f"SEQ({', '.join(items)})"], preds
    alts, preds = [], []
    for g in range(3):
        it, pr = seq(types[g * n:(g + 1) * n], g * n)
        alts.append(f"SEQ({', '.join(it)})")
        preds += pr
    return alts, preds

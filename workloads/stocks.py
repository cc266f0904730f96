"""Stock-like event streams for the DEBS'15 lazy-evaluation experiments.

The paper runs on per-minute NASDAQ quotes; each event carries the last ``h`` prices of its stock
(``hist[0..h-1]``, oldest first) and the query asks for Finance -> HiTech -> GOOG sequences of
pairwise correlated histories within ``h`` minutes.  We cannot ship that data set, so
``stock_stream`` generates a seeded stand-in with the properties the experiments rely on:

* **Sectors.** Tickers are grouped into ``Finance`` (``n_finance`` tickers), ``HiTech``
  (``n_hitech``) and ``GOOG`` (one ticker).  The event *type* is the sector name, so the paper's
  ``a.ticker in Finance`` becomes the type ``Finance``; the ``ticker`` attribute holds the ticker
  id (0.. for Finance, 1000.. for HiTech, 2000 for GOOG).
* **Prices.** Per-minute log returns are ``w_m * M_t + w_s * S_sector,t + w_i * eps_i,t``
  (market factor, sector factor, idiosyncratic noise; weights normalised to unit variance).  The
  factor weights set how often two histories correlate above a threshold T -- the knob
  ``market_weight`` / ``sector_weight`` controls the rate of "corr > T" pairs.  GOOG is a
  hi-tech stock, so by default (``goog_factor="hitech"``) its returns load on the HiTech sector
  factor: two distinct tickers' returns correlate ``w_m^2 + w_s^2`` when they share a sector
  factor (HiTech-GOOG: 0.5 at the default weights) and ``w_m^2`` otherwise (Finance-HiTech:
  0.25; ``return_correlations``).  Section 7's listing takes ``b`` from Hi-Tech and ``c = GOOG``
  (``WHERE (a.ticker in Finance) AND (b.ticker in Hi-Tech) AND (c.ticker = GOOG)``; its prose
  swaps the sectors of the first two stocks -- we follow the listing), so corr(b, c) is the
  condition of two stocks of one sector and corr(a, b) the one across sectors.
  ``goog_factor="own"`` is the named variant with a third, independent GOOG factor (then
  corr(a, b) and corr(b, c) share only the market factor and pass equally often at every T).
* **Events.** Every minute each Finance / HiTech ticker reports with probability
  ``p_update * (1 +/- w(t))`` (Finance gets ``+``, HiTech ``-``: their frequencies are about
  equal and each is slightly dominant part of the time, as section 7 describes: "a and b share
  approximately equal frequencies, which also fluctuated slightly over time, making each of the
  event types slightly more dominant part of the time").  The *swing* ``w(t)``: the
  paper gives neither its size nor its time scale, so both are readings with a sensitivity axis
  (``experiments/lazy_nfa/swing_sensitivity.toml``): amplitude ``fluctuation`` (0.15 = "slightly")
  and time scale ``fluct_period`` (120 minutes, 12 windows of the paper's h = 10), shape
  ``swing``: ``"sine"`` (default, ``fluctuation * sin(2 pi t / fluct_period)``, the Fig 7 / 8
  stream), ``"random"`` (seeded: ``+/- fluctuation``, the dominant sector switching
  after exponentially distributed stretches of mean ``fluct_period / 2`` minutes drawn from
  ``default_rng([seed, 22])``, so the dominance changes at irregular times) or ``"none"`` (equal
  rates).  GOOG reports every minute.  Events of one minute share the timestamp
  ``60 * t`` and appear in a seeded random order.
* **f_c.** The relative frequency of ``c`` (GOOG) events w.r.t. ``a`` (Finance) events is set as
  the paper does, by filtering out or duplicating GOOG events (``apply_f_c``): each GOOG event is
  kept ``k`` times with ``E[k] = f_c * rate_a / rate_c``.  Duplicates are identical events at
  consecutive positions.

``dynamic_stock_stream`` (Figure 10) uses the same price model but multiplies the update
probability of one sector by ``rare_factor``; the rare sector cycles GOOG -> Finance -> HiTech
every ``period`` events (100,000 in the paper).  All three sectors report with the same base
probability otherwise.

``phased_stock_stream`` (Figure 10, ``experiments/lazy_nfa/fig10.toml``) gives the three sectors
three *distinct* rates in every phase (factors 0.05 / 0.3 / 1 of the base), cycles through all six
orders of them and draws GOOG from ``n_per_sector`` independent feeds; ``dynamic_stock_stream`` is
the simpler variant (two sectors at equal rates, one GOOG ticker reported as identical copies),
kept for reuse (generator ``stocks_dynamic``).

``nasdaq_stock_stream`` turns a Metastock file (e.g. the OpenCEP NASDAQ sample) into the same
schema: the type is the ticker, ``price`` the close, ``hist`` the ticker's last ``h`` closes
(events with fewer than ``h`` predecessors are dropped), via ``add_history``.
"""
from __future__ import annotations

import math

import numpy as np

from engines.stream import EventStream

SECTORS: tuple[str, ...] = ("Finance", "HiTech", "GOOG")


def _attr_names(h: int) -> list[str]:
    return ["price", "ticker"] + [f"hist[{i}]" for i in range(h)]


def _sector_of(n_fin: int, n_tech: int, n_goog: int = 1) -> np.ndarray:
    """Sector index (0 Finance, 1 HiTech, 2 GOOG) of every ticker, in ticker order."""
    return np.array([0] * n_fin + [1] * n_tech + [2] * n_goog, dtype=np.int32)


#: Which sector factor drives GOOG's price: ``"hitech"`` (default: GOOG is a hi-tech stock, so it
#: shares the HiTech sector factor) or ``"own"`` (a third, independent sector factor: the named
#: variant in which corr(HiTech, GOOG) and corr(Finance, HiTech) share only the market factor).
GOOG_FACTORS: tuple[str, ...] = ("hitech", "own")


def _factor_column(goog_factor: str) -> np.ndarray:
    """Sector-factor column (0 Finance, 1 HiTech, 2 own GOOG factor) of each sector index."""
    if goog_factor not in GOOG_FACTORS:
        raise ValueError(f"goog_factor {goog_factor!r} must be one of {list(GOOG_FACTORS)}")
    return np.array([0, 1, 1 if goog_factor == "hitech" else 2], dtype=np.int32)


def return_correlations(market_weight: float = 0.5, sector_weight: float = 0.5,
                        goog_factor: str = "hitech") -> dict[str, float]:
    """Correlation of two tickers' per-minute log returns under ``price_paths``' factor model
    (unit-variance returns ``w_m M + w_s S_sector + w_i eps``): ``w_m^2`` for tickers of
    different sector factors, ``w_m^2 + w_s^2`` for distinct tickers sharing one.  Keys:
    ``finance_hitech``, ``hitech_goog``, ``finance_goog``, ``within_sector``."""
    col = _factor_column(goog_factor)
    wm2, ws2 = float(market_weight) ** 2, float(sector_weight) ** 2

    def rho(x: int, y: int) -> float:
        return wm2 + (ws2 if col[x] == col[y] else 0.0)
    return {"finance_hitech": rho(0, 1), "hitech_goog": rho(1, 2), "finance_goog": rho(0, 2),
            "within_sector": wm2 + ws2}


def price_paths(n_minutes: int, n_fin: int, n_tech: int, rng: np.random.Generator,
                market_weight: float, sector_weight: float, vol: float,
                n_goog: int = 1, goog_factor: str = "hitech") -> np.ndarray:
    """Per-minute prices [n_minutes, n_tickers]; tickers ordered Finance, HiTech, GOOG (``n_goog``
    GOOG feeds, each with its own idiosyncratic noise; with one feed the draws are those of the
    single-GOOG stream).  Log returns ``vol * (w_m M_t + w_s S_f,t + w_i eps_i,t)`` with the
    sector factor ``S_f`` of ``goog_factor`` (``GOOG_FACTORS``) for GOOG; three sector factors
    are drawn either way, so both readings see the same random numbers."""
    n_t = n_fin + n_tech + n_goog
    factor_of = _factor_column(goog_factor)[_sector_of(n_fin, n_tech, n_goog)]
    wm, ws = float(market_weight), float(sector_weight)
    if wm < 0 or ws < 0 or wm * wm + ws * ws > 1:
        raise ValueError(f"market_weight {wm!r} and sector_weight {ws!r} must be >= 0 with "
                         "market_weight^2 + sector_weight^2 <= 1")
    wi = math.sqrt(max(1e-12, 1.0 - wm * wm - ws * ws))
    M = rng.standard_normal(n_minutes)
    S = rng.standard_normal((n_minutes, 3))
    E = rng.standard_normal((n_minutes, n_t))
    r = vol * (wm * M[:, None] + ws * S[:, factor_of] + wi * E)
    start = rng.uniform(20.0, 200.0, n_t)
    return start[None, :] * np.exp(np.cumsum(r, axis=0))


def _assemble(rates: np.ndarray, prices: np.ndarray, n_fin: int, n_tech: int, h: int,
              n_events: int, rng: np.random.Generator, source: str) -> EventStream:
    """Draw per-minute reports with probabilities ``rates[t, ticker]`` (GOOG: expected copies)
    until ``n_events`` events exist; build the stream.  Tickers after the Finance and HiTech
    ones are GOOG feeds (ids 2000, 2001, ...)."""
    n_min, n_t = prices.shape
    n_goog = n_t - n_fin - n_tech
    sector_of = _sector_of(n_fin, n_tech, n_goog)
    ticker_id = np.array(list(range(n_fin)) + [1000 + i for i in range(n_tech)]
                         + [2000 + i for i in range(n_goog)], dtype=np.float64)
    rows_t: list[np.ndarray] = []
    rows_k: list[np.ndarray] = []
    total = 0
    for t in range(h - 1, n_min):
        r = rates[t]
        # Finance/HiTech: Bernoulli; GOOG: floor(r) copies + Bernoulli(frac)
        cnt = (rng.random(n_t) < (r - np.floor(r))).astype(np.int64) + np.floor(r).astype(np.int64)
        uniq = np.flatnonzero(cnt)          # tickers reporting this minute, ascending
        if len(uniq) == 0:
            continue
        # random order within the minute, GOOG duplicates stay adjacent
        shown = uniq[rng.permutation(len(uniq))]
        ks = np.repeat(shown, cnt[shown])
        rows_t.append(np.full(len(ks), t, dtype=np.int64))
        rows_k.append(ks)
        total += len(ks)
        if total >= n_events:
            break
    if total < n_events:
        raise ValueError(f"{source}: price paths too short for {n_events} events; raise n_minutes")
    tm = np.concatenate(rows_t)[:n_events]
    tk = np.concatenate(rows_k)[:n_events]
    hist = np.stack([prices[tm - (h - 1) + i, tk] for i in range(h)], axis=1)
    attrs = np.column_stack([prices[tm, tk], ticker_id[tk], hist])
    return EventStream.from_arrays(sector_of[tk], tm.astype(np.float64) * 60.0, attrs,
                                   SECTORS, _attr_names(h), source=source)


def stock_stream(n_events: int, seed: int, *, h: int = 10, f_c: float = 0.1,
                 n_finance: int = 10, n_hitech: int = 10, p_update: float = 0.5,
                 fluctuation: float = 0.15, fluct_period: int = 120,
                 market_weight: float = 0.5, sector_weight: float = 0.5,
                 vol: float = 0.002, swing: str = "sine",
                 goog_factor: str = "hitech") -> EventStream:
    """The Figure 7-9 workload: Finance/HiTech/GOOG events with ``h``-minute histories and the
    GOOG frequency at ``f_c`` times the Finance frequency, the Finance / HiTech rates swinging
    against each other as ``swing`` says, GOOG's price driven by the sector factor
    ``goog_factor`` names (``GOOG_FACTORS``; see module docstring)."""
    if not 0 < f_c:
        raise ValueError("f_c must be positive")
    rng = np.random.default_rng(seed)
    rate_a = n_finance * p_update
    per_min = rate_a + n_hitech * p_update + f_c * rate_a
    n_min = int(n_events / per_min * 1.3) + h + 50
    prices = price_paths(n_min, n_finance, n_hitech, rng, market_weight, sector_weight, vol,
                         goog_factor=goog_factor)
    wave = ab_swing(n_min, seed, swing, fluctuation, fluct_period)
    rates = np.empty((n_min, n_finance + n_hitech + 1))
    rates[:, :n_finance] = np.clip(p_update * (1 + wave), 0, 1)[:, None]
    rates[:, n_finance:n_finance + n_hitech] = np.clip(p_update * (1 - wave), 0, 1)[:, None]
    rates[:, -1] = apply_f_c_rate(f_c, rate_a)
    return _assemble(rates, prices, n_finance, n_hitech, h, n_events, rng,
                     f"stock_stream(seed={seed}, f_c={f_c})")


SWINGS: tuple[str, ...] = ("sine", "random", "none")


def ab_swing(n_min: int, seed: int, swing: str = "sine", fluctuation: float = 0.15,
             fluct_period: float = 120) -> np.ndarray:
    """Relative swing ``w(t)`` of the Finance (+) / HiTech (-) report rates per minute
    (module docstring, "Events"): ``"sine"``, ``"random"`` (seeded telegraph signal, its own
    generator ``default_rng([seed, 22])``) or ``"none"``."""
    if swing not in SWINGS:
        raise ValueError(f"swing {swing!r} must be one of {list(SWINGS)}")
    if not (0 <= float(fluctuation) < 1) or not float(fluct_period) > 0:
        raise ValueError(f"fluctuation {fluctuation!r} must be in [0, 1) and fluct_period "
                         f"{fluct_period!r} positive")
    t = np.arange(n_min)
    if swing == "none":
        return np.zeros(n_min)
    if swing == "sine":
        return fluctuation * np.sin(2 * np.pi * t / fluct_period)
    r = np.random.default_rng([int(seed), 22])
    # enough stretches to cover n_min minutes (mean length fluct_period / 2)
    k = int(4 * n_min / max(fluct_period / 2, 1e-9)) + 8
    ends = np.cumsum(r.exponential(fluct_period / 2, k))
    sign0 = 1 if r.random() < 0.5 else -1
    seg = np.searchsorted(ends, t, side="right")
    return fluctuation * sign0 * np.where(seg % 2 == 0, 1.0, -1.0)


def apply_f_c_rate(f_c: float, rate_a: float, base_rate_c: float = 1.0) -> float:
    """Expected copies of each GOOG report (base ``base_rate_c`` per minute) that make GOOG's
    frequency ``f_c`` times ``rate_a``: < 1 filters, > 1 duplicates."""
    return f_c * rate_a / base_rate_c


def dynamic_stock_stream(n_events: int, seed: int, *, period: int = 100_000, h: int = 10,
                         rare_factor: float = 0.05, n_finance: int = 10, n_hitech: int = 10,
                         p_update: float = 0.5, market_weight: float = 0.5,
                         sector_weight: float = 0.5, vol: float = 0.002,
                         cycle: tuple[str, ...] = ("GOOG", "Finance", "HiTech"),
                         goog_factor: str = "hitech") -> EventStream:
    """The Figure 10 workload: the rarest sector switches every ``period`` events, cycling
    through ``cycle``; GOOG's base rate equals one sector's (``n_finance * p_update`` per
    minute) and the rare sector's rate is multiplied by ``rare_factor``."""
    rng = np.random.default_rng(seed)
    rate_a = n_finance * p_update
    per_min_min = 2 * rate_a * rare_factor + rate_a
    n_min = int(n_events / per_min_min * 1.3) + h + 50
    prices = price_paths(n_min, n_finance, n_hitech, rng, market_weight, sector_weight, vol,
                         goog_factor=goog_factor)
    sector_of = np.array([0] * n_finance + [1] * n_hitech + [2])
    base = np.where(sector_of == 2, rate_a, p_update)
    # generate segment by segment so that the switch happens after `period` events
    parts: list[EventStream] = []
    made = 0
    seg = 0
    t0 = 0
    while made < n_events:
        rare = SECTORS.index(cycle[seg % len(cycle)])
        r = base * np.where(sector_of == rare, rare_factor, 1.0)
        take = min(period, n_events - made)
        rates = np.tile(r, (n_min, 1))
        sub = _assemble(rates, prices[t0:], n_finance, n_hitech, h, take, rng, "dynamic")
        last_min = int(sub.ts[-1] // 60)
        # shift times: sub minutes are relative to t0
        parts.append(EventStream(sub.types, sub.ts + t0 * 60.0, sub.attrs, sub.schema))
        t0 += last_min + 1 - (h - 1)
        made += take
        seg += 1
    types = np.concatenate([p.types for p in parts])
    ts = np.concatenate([p.ts for p in parts])
    attrs = np.concatenate([p.attrs for p in parts])
    return EventStream.from_arrays(types, ts, attrs, SECTORS, _attr_names(h),
                                   source=f"dynamic_stock_stream(seed={seed})")


# (rare, middle, frequent) sector per phase: all six permutations of the three sectors, ordered
# so that the rarest sector changes at every switch (GOOG, Finance, HiTech, GOOG, ...)
PHASES: tuple[tuple[str, str, str], ...] = (
    ("GOOG", "HiTech", "Finance"), ("Finance", "GOOG", "HiTech"), ("HiTech", "Finance", "GOOG"),
    ("GOOG", "Finance", "HiTech"), ("Finance", "HiTech", "GOOG"), ("HiTech", "GOOG", "Finance"))


#: Default (rare, middle, frequent) rate factors of ``phased_stock_stream``.
PHASE_FACTORS: tuple[float, float, float] = (0.05, 0.3, 1.0)


def phased_stock_stream(n_events: int, seed: int, *, period: int = 100_000, h: int = 10,
                        factors: tuple[float, float, float] = PHASE_FACTORS,
                        phases: tuple[tuple[str, str, str], ...] = PHASES,
                        n_per_sector: int = 10, p_update: float = 0.5,
                        market_weight: float = 0.5, sector_weight: float = 0.5,
                        vol: float = 0.002, goog_factor: str = "hitech") -> EventStream:
    """The Figure 10 workload with three distinct rates in every phase.

    Every sector (Finance, HiTech and GOOG) has ``n_per_sector`` tickers with independent
    idiosyncratic price noise -- GOOG too, so GOOG events are independently generated quotes, not
    copies of one.  In phase ``k`` (``period`` events each, the paper's 100,000) the sectors
    ``phases[k % len(phases)] = (rare, middle, frequent)`` report with per-ticker probability
    ``p_update * factors[0 | 1 | 2]`` per minute; the default cycles through all six orders of
    a, b, c, the rarest sector changing at every switch, so the best chain order changes too."""
    if not (0 < factors[0] < factors[1] < factors[2] <= 1 / max(p_update, 1e-12)):
        raise ValueError(f"factors {factors!r} must be three increasing rates in (0, 1/p_update]")
    for ph in phases:
        if sorted(ph) != sorted(SECTORS):
            raise ValueError(f"phase {ph!r} must order the sectors {SECTORS}")
    rng = np.random.default_rng(seed)
    n_s = int(n_per_sector)
    per_min_min = n_s * p_update * sum(factors)
    n_min = int(n_events / per_min_min * 1.3) + 2 * h * (n_events // max(period, 1) + 2) + 50
    prices = price_paths(n_min, n_s, n_s, rng, market_weight, sector_weight, vol, n_goog=n_s,
                         goog_factor=goog_factor)
    sector_of = _sector_of(n_s, n_s, n_s)
    parts: list[EventStream] = []
    made = 0
    seg = 0
    t0 = 0
    while made < n_events:
        f = np.empty(3)
        for rank, sec in enumerate(phases[seg % len(phases)]):
            f[SECTORS.index(sec)] = factors[rank]
        r = p_update * f[sector_of]
        take = min(period, n_events - made)
        sub = _assemble(np.tile(r, (n_min - t0, 1)), prices[t0:], n_s, n_s, h, take, rng,
                        "phased")
        parts.append(EventStream(sub.types, sub.ts + t0 * 60.0, sub.attrs, sub.schema))
        t0 += int(sub.ts[-1] // 60) + 1 - (h - 1)
        made += take
        seg += 1
    return EventStream.from_arrays(np.concatenate([p.types for p in parts]),
                                   np.concatenate([p.ts for p in parts]),
                                   np.concatenate([p.attrs for p in parts]), SECTORS,
                                   _attr_names(h), source=f"phased_stock_stream(seed={seed})")


def add_history(stream: EventStream, price_attr: str, h: int, group_attr: str | None = None,
                ) -> EventStream:
    """Add ``price`` and ``hist[0..h-1]`` (the group's last ``h`` prices, oldest first) to every
    event; the group is the event type (``group_attr=None``) or an attribute.  Events with fewer
    than ``h - 1`` earlier events in their group are dropped."""
    col = stream.schema.attr_column(price_attr)
    key = stream.types if group_attr is None else stream.attrs[:, stream.schema.attr_column(group_attr)]
    n = len(stream)
    hist = np.full((n, h), np.nan)
    keep = np.zeros(n, dtype=bool)
    for g in np.unique(key):
        idx = np.flatnonzero(key == g)
        vals = stream.attrs[idx, col]
        for j in range(h - 1, len(idx)):
            hist[idx[j]] = vals[j - h + 1:j + 1]
            keep[idx[j]] = True
    attrs = np.column_stack([stream.attrs[:, col], stream.types.astype(np.float64), hist])[keep]
    return EventStream.from_arrays(stream.types[keep], stream.ts[keep], attrs,
                                   stream.schema.type_names, _attr_names(h),
                                   source=f"{stream.source} (+{h}-price history)")


def nasdaq_stock_stream(path: str, h: int = 10, f_c: float | None = None,
                        c_type: str | None = None, a_type: str | None = None,
                        seed: int = 0) -> EventStream:
    """A Metastock file with ``h``-close histories per ticker (type = ticker).  With ``f_c``,
    ``c_type`` events are filtered / duplicated to ``f_c`` times the frequency of ``a_type``."""
    from workloads.loaders import load_metastock
    s = add_history(load_metastock(path), "close", h)
    if f_c is None:
        return s
    return resample_type(s, c_type, f_c * float(np.sum(s.types == s.schema.type_code(a_type)))
                         / max(1, int(np.sum(s.types == s.schema.type_code(c_type)))), seed)


def resample_type(stream: EventStream, type_name: str, copies: float, seed: int) -> EventStream:
    """Keep each event of ``type_name`` ``k`` times, ``E[k] = copies`` (floor + Bernoulli):
    filtering (< 1) or duplicating (> 1) as the paper controls f_c."""
    rng = np.random.default_rng(seed)
    code = stream.schema.type_code(type_name)
    if code < 0:
        raise ValueError(f"{stream.source}: no event type {type_name!r}")
    is_c = stream.types == code
    reps = np.ones(len(stream), dtype=np.int64)
    k = np.floor(copies) + (rng.random(int(is_c.sum())) < copies - np.floor(copies))
    reps[is_c] = k.astype(np.int64)
    idx = np.repeat(np.arange(len(stream)), reps)
    return EventStream(stream.types[idx].copy(), stream.ts[idx].copy(), stream.attrs[idx].copy(),
                       stream.schema, stream.source + f" ({type_name} x{copies:.3g})")

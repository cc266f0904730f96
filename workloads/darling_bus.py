"""Seeded Dublin-bus GPS stand-in for DARLING's bus panels (PVLDB'22 §5.1, Table 1 queries C).

The paper's bus data set is "bus GPS data collected from across Dublin by the Dublin City
Council's traffic control; the data spans a one-month period and covers more than 80 line IDs,
which were used as event types.  This dataset contains 33,097,325 records and each record
includes a timestamp and 11 additional attributes ... We augmented the data with the distance of
the bus from Dublin city center" (§5.1).  cepsim cannot ship it, and the authors' 500,000-event
``darling/experiments/datasets/bus_sample.txt`` is absent from the artifact copy (its blob is
missing), so ``bus_stream`` draws a seeded stand-in:

Taken from the paper and the authors' artifact (koralchapnik/vldb_submission):

* **Lines**: the eight line ids of the authors' bus patterns, in their order ``15, 39, 145, 38,
  25, 46, 40, 27`` (``darling/patterns_examples.txt`` lines 3-8: ``SEQ(15 a, 39 b, 145 c, 38 d,
  25 e, 46 f, 40 g)``; lines 141-164 append ``27 h``), the types of their length-8 data file
  ``bus_145_15_25_27_38_39_40_46.txt`` (``darling/experiments/datasets/data_distributions.json``).
  As in the authors' data files, the stream holds these lines only by default; ``n_lines`` adds
  invented non-pattern lines up to the paper's "more than 80" (they never match a variable).
* **Attributes**: ``dist`` (metres from Dublin's centre, the authors' added attribute) and
  ``delay`` (seconds; negative = early), named as in ``darling/experiments/configurations_map.py``
  lines 41-44 (the other nine attributes are read by no query and left out).
* **Levels**: each line's mean and standard deviation of ``dist`` and of ``delay``
  (``ARTIFACT_STATS``: the ``bus_145_15_25_27_38_39_40_46.txt`` entry of
  ``data_distributions.json``, measured by the authors on their files).
* **Rate**: 33,097,325 records over one month (30 days) and 80 lines is ``BASE_RATE`` = 0.160
  records per line per second (§5.1); every pattern line of lengths 1-5 reports at it.

Invented (the paper and artifact do not pin them):

* lines 46, 40 and 27 (positions 6-8) report at ``low_rate`` x ``BASE_RATE`` (default 0.5): §5.2
  says that for bus pattern lengths above 5 "we appended event types with lower arrival rates",
  without the rates;
* records are a superposition of per-line Poisson processes (``ts`` in seconds from the stream's
  start; no night-time gap);
* a record's ``dist`` is a gamma draw with the line's mean and sd, its ``delay`` a normal draw
  with the line's mean and sd rounded to whole seconds (``configurations_map.py`` types delay as
  int), independent across records: a line's records interleave the reports of its many vehicles
  (the README's sample rows alternate lines every 2 s), so consecutive records of one line are
  treated as unrelated positions;
* invented extra lines (``n_lines`` > 8) are named ``x09, x10, ...`` and draw ``dist`` / ``delay``
  from the mean of the eight lines' levels.
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

#: The authors' bus line ids in the order of their patterns (see module docstring).
LINES: tuple[str, ...] = ("15", "39", "145", "38", "25", "46", "40", "27")

#: (dist mean m, dist sd m, delay mean s, delay sd s) per line: the artifact's
#: ``data_distributions.json`` entry ``bus_145_15_25_27_38_39_40_46.txt``.
ARTIFACT_STATS: dict[str, tuple[float, float, float, float]] = {
    "145": (14750.311, 9457.236, -146.708, 558.335),
    "15": (4833.873, 3058.203, -258.482, 395.613),
    "25": (6700.751, 4785.496, -67.403, 160.060),
    "27": (6395.653, 4151.033, -284.863, 375.590),
    "38": (6397.370, 4755.022, -215.616, 378.327),
    "39": (5256.111, 4131.968, -183.460, 460.026),
    "40": (4477.544, 3240.461, -127.388, 232.828),
    "46": (5190.308, 3942.315, -85.560, 240.822),
}

#: records per line per second of the paper's data: 33,097,325 / (30 days x 86,400 s x 80 lines)
BASE_RATE: float = 33_097_325 / (30 * 86_400 * 80)

#: the lines appended beyond length 5 (§5.2: "event types with lower arrival rates")
LOW_RATE_LINES: tuple[str, ...] = ("46", "40", "27")

ATTRS: tuple[str, ...] = ("dist", "delay")


def line_rates(lines: tuple[str, ...], low_rate: float = 0.5,
               base_rate: float = BASE_RATE) -> np.ndarray:
    """Records per second of each line: ``base_rate``, times ``low_rate`` for
    ``LOW_RATE_LINES``."""
    return np.array([base_rate * (low_rate if ln in LOW_RATE_LINES else 1.0) for ln in lines])


def gamma_params(mean: float, sd: float) -> tuple[float, float]:
    """(shape, scale) of the gamma distribution with this mean and standard deviation."""
    if not mean > 0 or not sd > 0:
        raise CepsimInputError(f"darling_bus: gamma needs mean > 0 and sd > 0, got {mean}, {sd}")
    return (mean / sd) ** 2, sd * sd / mean


def bus_stream(n_events: int, seed: int, *, n_lines: int = len(LINES), low_rate: float = 0.5,
               base_rate: float = BASE_RATE) -> EventStream:
    """``n_events`` bus GPS records (event type = line id; attributes ``dist`` (m), ``delay``
    (s); ``ts`` seconds from the stream's start) of the eight pattern lines and, for ``n_lines``
    > 8, invented non-pattern lines, seeded by ``seed`` (module docstring: what is taken from the
    paper / artifact, what is invented)."""
    n_events = int(n_events)
    if n_events < 1:
        raise CepsimInputError(f"darling_bus: n_events must be >= 1, got {n_events}")
    if int(n_lines) < len(LINES):
        raise CepsimInputError(f"darling_bus: n_lines must be >= {len(LINES)} (the pattern "
                               f"lines), got {n_lines}")
    if not 0 < low_rate <= 1 or not base_rate > 0:
        raise CepsimInputError(f"darling_bus: need 0 < low_rate <= 1 and base_rate > 0, got "
                               f"{low_rate}, {base_rate}")
    extra = tuple(f"x{i:02d}" for i in range(len(LINES) + 1, int(n_lines) + 1))
    names = LINES + extra
    pooled = tuple(float(np.mean([ARTIFACT_STATS[ln][k] for ln in LINES])) for k in range(4))
    stats = [ARTIFACT_STATS.get(ln, pooled) for ln in names]
    rng = np.random.default_rng([int(seed), 56])
    rates = line_rates(names, low_rate, base_rate)
    total = float(rates.sum())
    ts = np.cumsum(rng.exponential(1.0 / total, n_events))
    types = rng.choice(len(names), size=n_events, p=rates / total).astype(np.int32)
    dist = np.empty(n_events)
    delay = np.empty(n_events)
    for k, (dm, dsd, lm, lsd) in enumerate(stats):
        m = types == k
        cnt = int(m.sum())
        if not cnt:
            continue
        shape, scale = gamma_params(dm, dsd)
        dist[m] = rng.gamma(shape, scale, cnt)
        delay[m] = np.round(rng.normal(lm, lsd, cnt))
    return EventStream.from_arrays(types, ts, np.column_stack([dist, delay]), names, ATTRS,
                                   source=f"darling_bus(seed={seed})")

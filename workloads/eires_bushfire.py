"""EIRES (SIGMOD'21) Fig 13a: a seeded stand-in of the satellite / sensor-network stream.

The paper's bushfire case study (section 7.1, section 7.4) matches GOES-16 satellite events of
geographic areas (Listing 3) and fetches temperature and humidity from ground sensors.  The
authors' stream (``data/bushfire_datasets/california_satellite_weather.csv`` read by
``run/run_bushfire.sh``) is not in the mirror (an LFS pointer), so cepsim draws a stand-in.

Taken from the artifact: one event type ``Satellite`` with a channel, a level and a boundary
(``run/bf-7.7_14.16.eql``: ``time, channelID, level, boundary, humidity, temperature``); the
channel codes of its query (6 = C07, 3 = C07 minus C14, 5 = C16) and level code 2 = high; the
weather as one value per hour for the whole region (``data/bushfire_datasets/
generate_streams.py`` ``integrateWeather``: the mean of the hourly humidity / temperature grids)
and the remote key being the scan time of the last event (``cep_match.cpp`` of
``src/EIRES_bushfire``, lines 676-682: the check on entering state 3 with the key in slot 8,
c16.time in the query's sorted attribute map).  Taken from the paper: the 46.51 degC and 23.38
thresholds (Listing 3) and daytime as 6:00-18:00.

Invented here (the defaults of ``generate``, none from the data):

* one scan every ``scan_s`` (300 s: GOES-16's CONUS cadence), ``n_areas`` (300) boundaries;
* an area burns in a given hour with probability ``p_fire`` (0.05), independently per hour;
* per scan and area, each of the query's three channels emits an event with probability
  ``p_emit`` (0.5) and each of ``n_other`` (3) other channels (codes 7, 8, 9) with the same
  probability; an event's level is high (2) with probability ``p_high_fire`` (0.8) in a burning
  area-hour, ``p_high`` (0.05) otherwise, else normal (1);
* the hourly weather: temperature 38 + 10 sin(2 pi (h - 9) / 24) + N(0, 2) degC and humidity
  30 - 12 sin(2 pi (h - 9) / 24) + N(0, 3) %, hour h of the day (the stream starts at
  ``start_hour`` 0:00), so hot dry afternoons pass both thresholds.

Attributes: ``channel``, ``level``, ``boundary`` (1..n_areas), ``hour`` (hour of the day of the
scan, 0-24), ``scan`` (scan index, the remote key: the weather of the scan's hour) and
``scan_h`` (``scan`` + ``HUMIDITY_KEY_OFFSET``: the key of the humidity table in the two-lookup
reading).  ``ts`` is in seconds, events of one scan in (area, channel) order.
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

TYPES = ("Satellite",)
ATTRS = ("channel", "level", "boundary", "hour", "scan", "scan_h")
C07, C07_MINUS_C14, C16 = 6, 3, 5          # the artifact's channel codes (bf-7.7_14.16.eql)
OTHER_CHANNELS = (7, 8, 9)
HIGH, NORMAL = 2, 1
T_MIN, H_MAX = 46.51, 23.38                 # Listing 3's thresholds
HUMIDITY_KEY_OFFSET = 1_000_000


def weather(n_hours: int, seed: int, start_hour: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Hourly (temperature degC, humidity %) of the region for ``n_hours`` hours (module
    docstring), seeded."""
    rng = np.random.default_rng([int(seed), 17, 2])
    h = (start_hour + np.arange(n_hours)) % 24.0
    phase = np.sin(2 * np.pi * (h - 9.0) / 24.0)
    temp = 38.0 + 10.0 * phase + rng.normal(0.0, 2.0, n_hours)
    hum = 30.0 - 12.0 * phase + rng.normal(0.0, 3.0, n_hours)
    return temp, hum


def n_scans(stream: EventStream) -> int:
    """Scans in a stand-in stream (``scan`` runs 0..n-1): the remote key domain."""
    return int(stream.attrs[:, ATTRS.index("scan")].max()) + 1 if len(stream) else 0


def sensor_table(count: int, seed: int, scan_s: float = 300.0, start_hour: float = 0.0,
                 form: str = "margin"):
    """The remote table of the ground sensors for scans 0..``count - 1``, keyed by scan index.

    ``form="margin"`` (the artifact: one fetch returns temperature and humidity and one test
    judges both, ``src/EIRES_bushfire/query/PatternMatcher.cpp`` lines 622 / 642): value =
    min(temperature - 46.51, 23.38 - humidity), >= 0 iff both thresholds hold.
    ``form="two"`` (Listing 3's two lookups): keys ``scan`` -> temperature and ``scan +
    HUMIDITY_KEY_OFFSET`` -> humidity in one table."""
    from engines.remote.table import RemoteTable
    per_h = 3600.0 / scan_s
    n_hours = int(np.ceil(max(count, 1) / per_h)) + 1
    temp, hum = weather(n_hours, seed, start_hour)
    scans = np.arange(count, dtype=np.float64)
    hr = (scans / per_h).astype(np.int64)
    if form == "margin":
        return RemoteTable.from_pairs(scans, np.minimum(temp[hr] - T_MIN, H_MAX - hum[hr]),
                                      "eires_bushfire:weather")
    if form == "two":
        return RemoteTable.from_pairs(np.concatenate([scans, scans + HUMIDITY_KEY_OFFSET]),
                                      np.concatenate([temp[hr], hum[hr]]),
                                      "eires_bushfire:weather2")
    raise CepsimInputError(f"workload eires_bushfire: form {form!r} is unknown; use margin or two")


def generate(n_events: int, seed: int, n_areas: int = 300, scan_s: float = 300.0,
             p_fire: float = 0.05, p_emit: float = 0.5, p_high_fire: float = 0.8,
             p_high: float = 0.05, n_other: int = 3, start_hour: float = 0.0) -> EventStream:
    """The first ``n_events`` events of the stand-in satellite stream (module docstring);
    deterministic given the arguments."""
    if n_events < 0 or n_areas < 1 or scan_s <= 0:
        raise CepsimInputError("workload eires_bushfire: n_events >= 0, n_areas >= 1 and "
                               "scan_s > 0 required")
    for name, p in (("p_fire", p_fire), ("p_emit", p_emit), ("p_high_fire", p_high_fire),
                    ("p_high", p_high)):
        if not 0.0 <= p <= 1.0:
            raise CepsimInputError(f"workload eires_bushfire: {name} must lie in [0, 1], got {p}")
    if not 0 <= n_other <= len(OTHER_CHANNELS):
        raise CepsimInputError("workload eires_bushfire: n_other must lie in "
                               f"0..{len(OTHER_CHANNELS)}")
    rng = np.random.default_rng([int(seed), 17, 1])
    chans = np.array((C07, C07_MINUS_C14, C16) + OTHER_CHANNELS[:n_other], np.float64)
    per_scan = n_areas * len(chans)
    per_h = 3600.0 / scan_s
    out, got, s = [], 0, 0
    fire, cur_h = None, -1
    while got < n_events:
        hour_idx = int(s / per_h)
        if hour_idx != cur_h:                 # a new hour: which areas burn
            fire, cur_h = rng.random(n_areas) < p_fire, hour_idx
        emit = rng.random(per_scan) < p_emit
        ph = np.repeat(np.where(fire, p_high_fire, p_high), len(chans))
        level = np.where(rng.random(per_scan) < ph, HIGH, NORMAL)
        area = np.repeat(np.arange(1, n_areas + 1), len(chans))
        ch = np.tile(chans, n_areas)
        k = np.nonzero(emit)[0]
        hod = (start_hour + s * scan_s / 3600.0) % 24.0
        block = np.empty((len(k), 7))
        block[:, 0] = ch[k]
        block[:, 1] = level[k]
        block[:, 2] = area[k]
        block[:, 3] = hod
        block[:, 4] = s
        block[:, 5] = s + HUMIDITY_KEY_OFFSET
        block[:, 6] = s * scan_s
        out.append(block)
        got += len(k)
        s += 1
    allv = np.concatenate(out)[:n_events] if out else np.zeros((0, 7))
    ts = allv[:, 6].copy()
    return EventStream.from_arrays(np.zeros(len(allv), np.int32), ts,
                                   np.ascontiguousarray(allv[:, :6]), TYPES, ATTRS,
                                   source="eires:bushfire")


def queries(query: str, greedy: bool = True) -> list[str]:
    """Pattern texts of the bushfire case study.

    ``bushfire`` (default) - the query the artifact ran (``run/run_bushfire.sh``: ``-q
    bushfireDay`` of ``run/bf-7.7_14.16.eql``): SEQ of three Satellite events c07,
    c07MinusC14, c16 with [boundary], channels 6 / 3 / 5 at level 2, the sensor thresholds on
    c16.  Window: Listing 3's ``WITHIN 1h`` (the .eql says 2h, but its stream's time column is
    a YYYYMMDDHHMM number, ``data/bushfire_datasets/generate_streams.py`` ``fakeTime``, so a
    window in microseconds there spans no two hours; not traced further).  The remote check
    sits on the last event, keyed by its scan
    (the artifact's key c16.time): one fetch judges both thresholds, ``REMOTE[c.scan] >= 0``
    over ``sensor_table(form="margin")``.

    ``bushfire_l3`` - Listing 3's conditions on the same flat SEQ: adds a.hour >= 6 and
    c.hour < 18 and takes the two REMOTE lookups as written (``REMOTE[c.scan] >= 46.51`` and
    ``REMOTE[c.scan_h] <= 23.38`` over ``sensor_table(form="two")``: two fetches).  Listing
    3's Kleene closure ``(a, b, c)+`` and ``UDF1[a.level, b.level]`` are not run: the remote
    kernel refuses Kleene closure (``engines/remote/kernel.py`` ``_prepare``), and b.level =
    high stands for the UDF (the artifact's reading, level == 2).  ``SAME[OVERLAP(boundary)]``
    is SAME[boundary] (areas are discrete ids; the artifact's [boundary] is equality too).
    """
    pol = "skip-till-any-match" if greedy else "skip-till-next-match"
    seq = "SEQ(Satellite a, Satellite b, Satellite c)"
    local = (f"a.channel = {C07} AND a.level = {HIGH} AND b.channel = {C07_MINUS_C14} AND "
             f"b.level = {HIGH} AND c.channel = {C16} AND c.level = {HIGH}")
    if query == "bushfire":
        return [f"PATTERN {seq} WHERE SAME[boundary] AND {local} AND REMOTE[c.scan] >= 0 AT c "
                f"WITHIN 1 hours POLICY {pol}"]
    if query == "bushfire_l3":
        return [f"PATTERN {seq} WHERE SAME[boundary] AND {local} AND a.hour >= 6 AND "
                f"c.hour < 18 AND REMOTE[c.scan] >= {T_MIN} AT c AND "
                f"REMOTE[c.scan_h] <= {H_MAX} AT c WITHIN 1 hours POLICY {pol}"]
    raise CepsimInputError(f"workload eires_bushfire: query {query!r} is unknown; use bushfire "
                           "or bushfire_l3")

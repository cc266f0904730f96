"""PVLDB'18 section 5.1: the traffic patterns detect "combinations ... of three or more
observations with either an increase or a decline in both the number of vehicles and the average
speed" (``workloads.adaptive.pattern_text``: the OR of the increasing and the declining pattern).
Matches on a tiny seeded stream are counted by hand (enumeration from the definition) and by the
oracle engine; both directions must occur."""
from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from workloads.adaptive import pattern_text, traffic_stream

N_EVENTS, SEED, WINDOW = 200, 5, 0.8


def _stream():
    # 4 observation points at equal rates, 10 events/s (~8 events per window), no regime change,
    # little attribute skew: both directions occur
    return traffic_stream(N_EVENTS, SEED, n_types=4, total_rate=10.0, count_span=1.5,
                          speed_span=1.2, rate_span=1.0, n_changes=0)


def _order(text: str, names, n: int = 3) -> list[int]:
    """The type ids of the increasing alternative's positive variables ``u0..u{n-1}``, in
    pattern order."""
    return [names.index(re.search(rf"(\w+)\+? u{i}[,)]", text).group(1)) for i in range(n)]


def _hand_count(s, order: list[int], ordered: bool, neg=None) -> dict:
    """Matches per direction: one event per type of ``order`` (in time order when ``ordered``),
    the events of consecutive variables (in pattern order) rising in both count and speed
    ("up") or falling in both ("down"), span <= WINDOW; ``neg = (mid, type)``: no event of
    ``type`` strictly between variables mid-1 and mid that rises (falls) in both from variable
    mid-1."""
    types, ts, a = s.types, s.ts, s.attrs
    pos = [np.flatnonzero(types == t) for t in order]
    out = {"up": 0, "down": 0}
    for combo in itertools.product(*pos):
        if ordered and any(x >= y for x, y in zip(combo, combo[1:])):
            continue
        if len(set(combo)) < len(combo) or ts[max(combo)] - ts[min(combo)] > WINDOW:
            continue
        for d, sign in (("up", 1.0), ("down", -1.0)):
            if not all(sign * (a[y, 0] - a[x, 0]) > 0 and sign * (a[y, 1] - a[x, 1]) > 0
                       for x, y in zip(combo, combo[1:])):
                continue
            if neg is not None:
                mid, nt = neg
                x0 = combo[mid - 1]
                if any(types[z] == nt and sign * (a[z, 0] - a[x0, 0]) > 0
                       and sign * (a[z, 1] - a[x0, 1]) > 0 for z in range(x0 + 1, combo[mid])):
                    continue
            out[d] += 1
    return out


@pytest.mark.parametrize("pset", ["seq", "and", "neg"])
def test_traffic_patterns_match_in_both_directions(pset):
    s = _stream()
    names = list(s.schema.type_names)
    text = pattern_text("traffic", pset, 3, names, WINDOW)
    assert text.startswith("PATTERN OR(") and ".count > " in text and ".count < " in text
    order = _order(text, names)
    neg = None
    if pset == "neg":
        nt = names.index(text.split("NOT(", 1)[1].split()[0])
        neg = (1, nt)
    hand = _hand_count(s, order, ordered=pset != "and", neg=neg)
    assert hand["up"] > 0 and hand["down"] > 0, hand
    res = run_oracle(compile_pattern(parse_pattern(text), s.schema), s)
    assert len(res.matches) == hand["up"] + hand["down"]


def test_stock_patterns_are_one_direction():
    names = [f"S{i}" for i in range(8)]
    text = pattern_text("stocks", "seq", 3, names, 1.0)
    assert text.startswith("PATTERN SEQ(") and " > " not in text


def test_increase_only_variant_and_bad_directions():
    from engines.errors import CepsimInputError
    names = [f"P{i}" for i in range(8)]
    text = pattern_text("traffic", "seq", 3, names, 1.0, directions=("up",))
    assert text.startswith("PATTERN SEQ(") and " > " not in text and "v0.count < v1.count" in text
    with pytest.raises(CepsimInputError, match="directions"):
        pattern_text("traffic", "seq", 3, names, 1.0, directions=("sideways",))


@pytest.mark.parametrize("pset", ["seq", "neg", "kleene", "or"])
def test_corridor_visits_points_in_type_order(pset):
    """``corridor=True``: each positive sequence lists its drawn points in ascending type index;
    the drawn set is the default's (same type seed) and the negated point stays the last drawn."""
    names = [f"P{i}" for i in range(24)]
    base = pattern_text("traffic", pset, 5, names, 1.0, type_seed=3, directions=("up",))
    cor = pattern_text("traffic", pset, 5, names, 1.0, type_seed=3, directions=("up",),
                       corridor=True)

    def seqs(text):
        body = text.split("\n")[0]
        return [[int(t) for t in re.findall(r"P(\d+)\+? v\d+", grp)]
                for grp in re.findall(r"SEQ\(([^()]*(?:\([^()]*\)[^()]*)*)\)", body)]

    got, drawn = seqs(cor), seqs(base)
    assert [sorted(g) for g in drawn] == got
    assert any(g != sorted(g) for g in drawn)   # the draw was not already ordered
    if pset == "neg":
        assert cor.split("NOT(", 1)[1].split()[0] == base.split("NOT(", 1)[1].split()[0]


def test_road_model_orders_both_means_by_type_index():
    """``model="road"`` with no jitter, regime change or rate noise: the per-point mean count and
    mean speed both rise with the type index (one road class per point), unlike the default
    model's independent draws on the same seed."""
    kw = dict(n_types=6, total_rate=100.0, rate_span=1.0, n_changes=0, noise=0.0)
    road = traffic_stream(30_000, 11, model="road", **kw)
    skew = traffic_stream(30_000, 11, **kw)

    def means(s):
        return np.array([[s.attrs[s.types == k, j].mean() for k in range(6)] for j in (0, 1)])

    mr, ms = means(road), means(skew)
    assert (np.diff(mr, axis=1) > 0).all(), mr
    assert not ((np.diff(ms, axis=1) > 0).all())


def test_corridor_on_road_stream_matches_where_drawn_order_cannot():
    """On a road-model stream the corridor pattern (points in class order) finds rising chains of
    five points that the drawn order finds far fewer of (oracle counts on the same stream)."""
    s = traffic_stream(3000, 4, n_types=8, total_rate=40.0, model="road", rate_span=1.0,
                       n_changes=0)
    names = list(s.schema.type_names)
    counts = {}
    for cor in (False, True):
        text = pattern_text("traffic", "seq", 5, names, 1.0, type_seed=1, directions=("up",),
                            corridor=cor)
        counts[cor] = len(run_oracle(compile_pattern(parse_pattern(text), s.schema), s).matches)
    assert counts[True] > 10 * max(counts[False], 1), counts

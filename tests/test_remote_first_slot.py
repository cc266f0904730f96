"""EIRES remote kernel: a remote predicate checked at the first variable of the pattern.

Section 7.3 (Fig. 12b) moves Q1's remote evaluation "to be beginning of the pattern sequence",
so that LzEval can postpone it across one to seven succeeding classes.  The kernel checks such a
predicate when a new run starts (``engines/remote/kernel.py``, ``_remote_check`` at class 0):
every strategy and cache must still return the oracle's match set (docs/SEMANTICS.md rule 8),
and the time a check costs must fall where the strategy puts it (hand counts below).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import counters as C
from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.pattern.ast import Attr, Compare, Pattern, Remote, RemoteConst, Window
from engines.remote.config import CACHES, STRATEGIES
from engines.remote.kernel import run_remote
from engines.stream import EventStream
from strategies import assert_same_matches, cases


@st.composite
def first_slot_cases(draw):
    """A plain SEQ of 2-3 variables with a remote predicate checked at the first variable (the
    constant form or a comparison of the first event with its own lookup), sometimes a second
    one checked later, random latencies, workers, caches, spans and costs."""
    pattern, stream = draw(cases(max_events=90, n_types=(2, 4), simple_sequence=True, min_len=2,
                                 max_len=3, max_preds=1, pred_kinds=("same", "const")))
    if len(stream) == 0:
        return draw(first_slot_cases())
    if len(stream) < 20:            # short streams rarely hold a match: extend by repetition
        reps = 20 // len(stream) + 1
        stream = EventStream.from_arrays(
            np.tile(stream.types, reps), np.arange(len(stream) * reps, dtype=float),
            np.tile(stream.attrs, (reps, 1)), stream.schema.type_names, stream.schema.attr_names)
    names = [e.var for e, _ in pattern.events()]
    preds = list(pattern.where)
    a = names[0]
    if draw(st.booleans()):
        op = draw(st.sampled_from(["<=", ">="]))
        c = draw(st.integers(2, 4)) if op == "<=" else draw(st.integers(0, 2))
        preds.append(RemoteConst(Attr(a, "x"), op, float(c), a))
    else:
        preds.append(Compare(Attr(a, "y"), draw(st.sampled_from(["!=", "<=", ">=", "="])),
                             Remote(Attr(a, "x")), 1.0, 0.0, a))
    if draw(st.booleans()):         # a second remote predicate, checked at a later variable
        k = draw(st.integers(0, len(names) - 1))
        at_i = draw(st.integers(max(k, 1), len(names) - 1))
        preds.append(RemoteConst(Attr(names[k], "x"), "<=", float(draw(st.integers(2, 4))),
                                 names[at_i]))
    window = Window(float(draw(st.integers(6, 20))), draw(st.sampled_from(["events", "s"])))
    pat = Pattern(pattern.structure, tuple(preds), window, pattern.policy)
    table = None if draw(st.booleans()) else np.array(draw(st.lists(st.integers(0, 4), min_size=5,
                                                                    max_size=5)), float)
    knobs = dict(cache_size=draw(st.integers(1, 4)), workers=draw(st.integers(1, 3)),
                 latency_unit_us=draw(st.sampled_from([1.0, 10.0, 100.0])),
                 seed=draw(st.integers(0, 2**31)), lookahead=draw(st.integers(0, 2)),
                 lz_span=draw(st.integers(0, 3)), noise=draw(st.sampled_from([0.0, 0.5])),
                 utility_period=draw(st.sampled_from([1, 7])),
                 merge_requests=draw(st.booleans()),
                 in_event_order=draw(st.sampled_from(["class", "arrival"])),
                 fetch_overhead_us=draw(st.sampled_from([0.0, 66.0])),
                 utility=draw(st.sampled_from(["paper", "artifact"])),
                 key_count=draw(st.sampled_from(["fifo", "live", "cumulative"])),
                 lz_block_prob=draw(st.sampled_from([0.0, 0.5])),
                 bl3_fetch=draw(st.sampled_from(["serial", "parallel"])))
    unit = np.full(C.N_COUNTERS, draw(st.sampled_from([1e-8, 1e-6, 2e-5])))
    gap = draw(st.sampled_from([0.0, 1e-5, 1e-4]))
    return pat, stream, table, knobs, unit, gap


def test_first_slot_check_equals_oracle():
    n_with_matches = [0]

    @settings(max_examples=40, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(first_slot_cases())
    def prop(case):
        pat, stream, table, knobs, unit, gap = case
        prog = compile_pattern(pat, stream.schema)
        expected = run_oracle(prog, stream, remote=table)
        n_with_matches[0] += len(expected.matches) > 0
        arrivals = np.arange(len(stream)) * gap
        for strategy in STRATEGIES:
            for cache in CACHES:
                got = run_remote(prog, stream, strategy=strategy, cache=cache, remote=table,
                                 arrivals=arrivals, unit_cost=unit, base_cost=1e-6,
                                 initial_capacity=2, **knobs)
                assert_same_matches(expected, got, (prog, stream, f"{strategy}/{cache} {knobs}"),
                                    labels=("oracle", strategy))
                det = got.matches.detect
                assert np.all(got.info["emit_time"] >= got.info["start"][det] - 1e-15)

    prop()
    assert n_with_matches[0] >= 5, n_with_matches[0]     # the property saw matches


def _abab(keys):
    """A B A B ... with one key per A (v1) and v1 = 0 on every B; one partition."""
    types, v1 = [], []
    for k in keys:
        types += ["A", "B"]
        v1 += [float(k), 0.0]
    attrs = np.stack([np.array(v1), np.zeros(len(v1))], 1)
    return EventStream.from_arrays(types, np.arange(len(types), dtype=float), attrs, ("A", "B"),
                                   ("v1", "id"))


FIRST = ("PATTERN SEQ(A a, B b) WHERE REMOTE[a.v1] <= 5 AT a WITHIN 4 events "
         "POLICY skip-till-next-match")


def _run(text, s, **kw):
    prog = compile_pattern(parse_pattern(text), s.schema)
    base = dict(latency_unit_us=10.0, fetch_overhead_us=0.0, workers=1, seed=7,
                record_matches=True)
    return run_remote(prog, s, **{**base, **kw})


def test_bl1_blocks_at_the_first_event_not_at_the_match():
    """BL1 (no cache): each A blocks for its fetch while it is processed (one blocking fetch per
    A, blocked time in A's service), so every match's latency - from taking up B - holds no
    fetch; keys 9 fail the predicate: no run starts, no match."""
    s = _abab([1, 9, 2, 9])
    r = _run(FIRST, s, strategy="BL1")
    assert r.matches.key_set() == {(("a", 0), ("b", 1)), (("a", 4), ("b", 5))}
    assert r.info["blocking_fetches"] == 4                 # one per A event, hits or not
    svc = r.info["depart"] - r.info["start"]
    lat = r.info["emit_time"] - r.info["start"][r.matches.detect]
    assert np.all(svc[0::2] >= 10e-6 - 1e-12)              # an A blocks >= one latency unit
    assert np.all(svc[1::2] < 1e-9) and np.all(lat < 1e-9)  # a B (and the match) never waits


def test_lzeval_postpones_the_first_slot_check_to_the_match():
    """LzEval with a span of one class (the checking class itself) sends a missing key of a to a
    worker and postpones the check; at b, the accept state, a key still missing blocks (the
    artifact's LzEval at the accept state): the same matches as BL1, no A waits (free
    processing), and the wait falls inside each match's latency."""
    s = _abab([1, 9, 2, 9])
    r = _run(FIRST, s, strategy="LzEval", lz_span=1)
    assert r.matches.key_set() == {(("a", 0), ("b", 1)), (("a", 4), ("b", 5))}
    svc = r.info["depart"] - r.info["start"]
    lat = r.info["emit_time"] - r.info["start"][r.matches.detect]
    assert np.all(svc[0::2] < 1e-9)                        # no A waits
    assert np.all(lat >= 10e-6 - 1e-12)                    # each match waits for its key


def test_bl3_checks_the_first_slot_predicate_at_completion():
    s = _abab([1, 9, 2, 9])
    r = _run(FIRST, s, strategy="BL3")
    assert r.matches.key_set() == {(("a", 0), ("b", 1)), (("a", 4), ("b", 5))}
    svc = r.info["depart"] - r.info["start"]
    assert np.all(svc[0::2] < 1e-9)                        # nothing fetched at A
    assert np.all(svc[1::2] >= 10e-6 - 1e-12)              # each B fetches its run's key


def test_one_event_pattern_with_a_remote_predicate_is_refused():
    s = _abab([1])
    with pytest.raises(CepsimInputError, match="one event"):
        _run("PATTERN SEQ(A a) WHERE REMOTE[a.v1] <= 5 WITHIN 4 events", s)

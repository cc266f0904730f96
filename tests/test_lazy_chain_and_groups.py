"""The lazy chain NFA's AND groups (engines/evaluators/lazy_chain.py, "AND groups"): an AND of
plain events runs as one order-free chain in the given order instead of its n! orders.

Checked here: the matches equal the oracle's (engines/oracle.py, the definition of
docs/SEMANTICS.md) on randomized streams and AND patterns -- a pure AND, an AND nested in a SEQ,
two ANDs in a SEQ, an OR of an AND and a SEQ, members sharing a type -- under time and count
windows (skip-till-any-match: the only policy the lazy chain runs; under skip-till-next-match
the compiler expands every AND and the chain refuses the pattern), AND of 6 included, and the
greedy adaptive engine's AND of 6 (the PVLDB'18 stock and traffic patterns); hand counts of the
counters on tiny streams from their definitions; the group chain's work never exceeds the n!
orders' on the same stream (counted, not timed)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import assert_same_matches, stream_from_seed

from engines import counters as C
from engines.compile import TooManyBranches, compile_pattern
from engines.errors import CepsimInputError
from engines.evaluators.lazy_nfa import run_chain
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream

WORK = (C.EDGE_EVAL, C.PRED_EVAL, C.PM_CREATED, C.PM_REMOVED, C.INSTANCE_WORK, C.BUF_INSERT)


def _prog(text: str, stream: EventStream, **kw):
    return compile_pattern(parse_pattern(text), stream.schema, **kw)


def _stream(types: str, ts=None, x=None) -> EventStream:
    """A hand stream: one letter per event, timestamps 0, 1, ... unless given."""
    n = len(types)
    ts = np.arange(n, dtype=float) if ts is None else np.asarray(ts, dtype=float)
    x = np.zeros(n) if x is None else np.asarray(x, dtype=float)
    return EventStream.from_arrays(list(types), ts, np.stack([x, x], axis=1),
                                   ("A", "B", "C", "D"), ("x", "y"))


def _both(prog, stream, order):
    """(group chain, n! orders) runs of one order."""
    return (run_chain(prog, stream, order=order),
            run_chain(prog, stream, order=order, and_groups="expanded"))


def _check_against(prog, stream, order, ref=None, context=""):
    """The group chain's matches (and detection positions) equal the oracle's and the n!
    orders', and its work is at most theirs: every counter of ``WORK`` summed over the run, the
    LIVE_PM gauge's peak and the peak of transient instances."""
    ref = run_oracle(prog, stream) if ref is None else ref
    g, e = _both(prog, stream, order)
    ctx = (prog, stream, f"{context} order {order}")
    assert_same_matches(ref, g, ctx, labels=("oracle", "group chain"), check_detect=True)
    assert_same_matches(ref, e, ctx, labels=("oracle", "n! orders"), check_detect=True)
    if len(stream):
        gs, es = g.counters.sum(0), e.counters.sum(0)
        for c in WORK:
            assert gs[c] <= es[c], (C.COUNTER_NAMES[c], int(gs[c]), int(es[c]), ctx)
        assert g.counters[:, C.LIVE_PM].max() <= e.counters[:, C.LIVE_PM].max()
    assert g.info["peak_transient_instances"] <= e.info["peak_transient_instances"]
    return ref, g, e


# ----------------------------------------------------------------------------- hand counts
def test_hand_count_and_of_two_over_four_events():
    """AND(A a, B b) over A0 B1 A2 B3 (one second apart, window 10 s), order a, b.  By the
    definitions (DEBS'15 section 7: one condition evaluation per candidate an edge examines):
    the root examines each A event once as a candidate of ``a`` (2); each instance holding an
    ``a`` examines every B event of its window once, the earlier one when it is created or when
    it arrives, the later one when it arrives (2 instances x 2 B events = 4): EDGE_EVAL 6.
    Every candidate passes (no predicate): 2 instances + 4 matches created, 4 emitted and
    removed (the instances stay: an AND member has no bound).  B is stored (it is not first in
    the order): BUF_INSERT 2.  Instances offered each event (the root, the live ones, the ones
    created at that event): event 0: root + new a0 = 2; 1: root + a0 = 2; 2: root + a0 + new
    a2 = 3; 3: root + a0 + a2 = 3: INSTANCE_WORK 10."""
    s = _stream("ABAB")
    prog = _prog("PATTERN AND(A a, B b) WITHIN 10 seconds", s)
    g, e = _both(prog, s, "a,b")
    got = g.counters.sum(0)
    assert int(got[C.EDGE_EVAL]) == 6
    assert int(got[C.PRED_EVAL]) == 0
    assert int(got[C.PM_CREATED]) == 6
    assert int(got[C.MATCH_EMIT]) == 4
    assert int(got[C.PM_REMOVED]) == 4
    assert int(got[C.BUF_INSERT]) == 2
    assert int(got[C.INSTANCE_WORK]) == 10
    assert g.counters[:, C.EDGE_EVAL].tolist() == [1, 1, 2, 2]
    assert g.matches.key_set() == run_oracle(prog, s).matches.key_set()
    assert len(g.matches) == 4
    # the two orders (sequence a < b, then b < a), both in chain order a, b: the first order's
    # instances a0 / a2 examine the B events after them (2 + 1), the second's the B events
    # before them (0 + 1); each order's root examines both A events: 2 + 3 + 2 + 1 = 8
    assert int(e.counters[:, C.EDGE_EVAL].sum()) == 8


def test_hand_count_members_of_one_type_take_distinct_events():
    """AND(A a, A b) over A0 A1 (order a, b): the root examines A0 and A1 (2); the instance
    holding a = A0 skips A0 in its own scope (taken, not a candidate: not charged) and examines
    A1 when it arrives (1); the one holding a = A1 skips A1 and examines A0 (1).  EDGE_EVAL 4,
    matches (a0, b1) and (a1, b0), the oracle's."""
    s = _stream("AA")
    prog = _prog("PATTERN AND(A a, A b) WITHIN 10 seconds", s)
    g = run_chain(prog, s, order="a,b")
    assert int(g.counters[:, C.EDGE_EVAL].sum()) == 4
    assert int(g.counters[:, C.PM_CREATED].sum()) == 4
    ref = run_oracle(prog, s)
    assert g.matches.key_set() == ref.matches.key_set()
    assert len(ref.matches) == 2


def test_and_nested_in_a_sequence():
    """SEQ(A a, AND(B b, C c), D d): b and c lie between a and d in either order; the scope of
    a group member is bounded by a and d only."""
    rng = np.random.default_rng(54)
    n = 120
    s = EventStream.from_arrays(list(rng.choice(list("ABCD"), n)), np.cumsum(rng.random(n)),
                                rng.integers(0, 5, (n, 2)).astype(float), ("A", "B", "C", "D"),
                                ("x", "y"))
    prog = _prog("PATTERN SEQ(A a, AND(B b, C c), D d) WHERE b.x <= c.x WITHIN 4 seconds", s)
    assert len(prog.grouped) == 1 and not prog.grouped[0].is_ordered
    ref = run_oracle(prog, s)
    assert len(ref.matches) > 0
    for order in ("a,b,c,d", "d,c,b,a", "c,a,d,b", "b,d,a,c"):
        _check_against(prog, s, order, ref)


# ----------------------------------------------------------------------------- randomized
_SHAPES = ("and", "seq_and", "and_and", "or")


@st.composite
def and_cases(draw, max_members: int = 4):
    """(pattern text, stream): an AND of 2..``max_members`` plain events (types drawn with
    repeats) alone, nested in a SEQ, beside a second AND in a SEQ, or in an OR with a SEQ; up to
    two predicates; a time or a count window."""
    nt = draw(st.integers(2, 4))
    types = "ABCD"[:nt]
    shape = draw(st.sampled_from(_SHAPES))
    k = draw(st.integers(2, max_members))
    names = iter(f"v{i}" for i in range(20))

    def ev():
        return f"{draw(st.sampled_from(types))} {next(names)}"

    group = "AND(" + ", ".join(ev() for _ in range(k)) + ")"
    if shape == "and":
        body = group
    elif shape == "seq_and":
        body = f"SEQ({ev()}, {group}, {ev()})"
    elif shape == "and_and":
        body = f"SEQ({group}, AND({ev()}, {ev()}))"
    else:
        body = f"OR({group}, SEQ({ev()}, {ev()}))"
    m = body.count(" v")
    var = [f"v{i}" for i in range(m)]
    preds = []
    for _ in range(draw(st.integers(0, 2))):
        a, b = draw(st.sampled_from(var)), draw(st.sampled_from(var))
        op = draw(st.sampled_from(["<", "<=", ">", ">=", "!="]))
        preds.append(f"{a}.y {op} {b}.x" if a != b else f"{a}.x {op} 2")
    if shape == "or" and preds:       # a predicate stays inside one alternative
        preds = [p for p in preds if all(int(v[1:]) < k for v in
                                         (p.split()[0].split(".")[0], p.split()[2].split(".")[0])
                                         if v[0] == "v")]
    if draw(st.booleans()):
        window = f"WITHIN {draw(st.integers(2, 2 * m + 2))} seconds"
    else:
        window = f"WITHIN {draw(st.integers(m, 2 * m + 4))} events"
    text = f"PATTERN {body}" + (" WHERE " + " AND ".join(preds) if preds else "") + f" {window}"
    stream = stream_from_seed(draw(st.integers(0, 2**32 - 1)), nt, draw(st.integers(8, 60)))
    order = draw(st.permutations(var))
    return text, stream, order


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=and_cases())
def test_group_chain_equals_oracle_and_never_works_more(case):
    text, stream, order = case
    prog = _prog(text, stream)
    assert any(not br.is_ordered for br in prog.grouped)
    _check_against(prog, stream, list(order), context=text)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), n_types=st.integers(3, 4), data=st.data())
def test_and_of_six_equals_oracle(seed, n_types, data):
    """AND of 6 plain events (types with repeats), a count window of 7-9 events, one
    predicate; the n! = 720 orders for the work comparison."""
    types = "ABCD"[:n_types]
    rng = np.random.default_rng(seed)
    members = ", ".join(f"{types[int(rng.integers(n_types))]} v{i}" for i in range(6))
    text = f"PATTERN AND({members}) WHERE v0.x <= v5.y WITHIN {int(rng.integers(7, 10))} events"
    stream = stream_from_seed(seed, n_types, 40)
    prog = _prog(text, stream)
    order = data.draw(st.permutations([f"v{i}" for i in range(6)]), label="order")
    _check_against(prog, stream, list(order), context=text)


# ----------------------------------------------------------------------------- greedy, n = 6
def test_greedy_and_of_six_on_stocks_equals_oracle():
    """The PVLDB'18 stock AND set at n = 6 (``workloads.adaptive.pattern_text``) through the
    greedy adaptive engine: its plan switches between orders (epochs of the group chain) and
    its matches are the oracle's."""
    from workloads.adaptive import make_stream, pattern_text
    s = make_stream("stocks", 1500, 3, n_types=8, total_rate=100.0)
    prog = _prog(pattern_text("stocks", "and", 6, s.schema.type_names, 0.2), s)
    ref = run_oracle(prog, s)
    got = run_engine("adaptive", prog, s, planner="greedy")
    assert len(ref.matches) > 0 and got.info["replacements"] > 0
    assert_same_matches(ref, got, (prog, s, "greedy adaptive"), labels=("oracle", "greedy"))


def test_greedy_and_of_six_on_traffic_equals_oracle():
    """The traffic AND set at n = 6 (an OR of the rising and the falling AND, 12 variables; the
    n! expansion would be 1,440 chains) through the greedy adaptive engine, on a stream whose
    counts and speeds rise with time (so the rising AND matches)."""
    from workloads.adaptive import pattern_text
    rng = np.random.default_rng(6)
    n = 400
    ts = np.cumsum(rng.exponential(0.05, n))
    noise = rng.normal(0.0, 0.05, (n, 2))
    names = tuple(f"P{i}" for i in range(6))
    s = EventStream.from_arrays(list(rng.choice(names, n)), ts,
                                np.stack([ts, ts], axis=1) + noise, names, ("count", "speed"))
    prog = _prog(pattern_text("traffic", "and", 6, names, 0.6), s)
    assert len(prog.grouped) == 2
    ref = run_oracle(prog, s)
    got = run_engine("adaptive", prog, s, planner="greedy")
    assert len(ref.matches) > 0
    assert_same_matches(ref, got, (prog, s, "greedy adaptive"), labels=("oracle", "greedy"))


# ----------------------------------------------------------------------------- options
def test_group_chain_needs_no_expansion():
    """AND of 4 compiled with ``max_branches=10``: the n! orders (24) exceed it, the group chain
    runs."""
    s = _stream("ABCDABCD")
    prog = _prog("PATTERN AND(A a, B b, C c, D d) WITHIN 10 seconds", s, max_branches=10)
    assert len(run_chain(prog, s, order="d,c,b,a").matches) == len(run_oracle(prog, s).matches)
    with pytest.raises(TooManyBranches):
        run_chain(prog, s, order="d,c,b,a", and_groups="expanded")


def test_without_groups_both_settings_are_one_run():
    """A pattern without an AND group: ``and_groups`` changes nothing (same counters)."""
    s = _stream("ABCDABCD", x=[0, 1, 2, 3, 1, 2, 3, 4])
    prog = _prog("PATTERN SEQ(A a, B b, C c) WHERE a.x < c.x WITHIN 5 seconds", s)
    g, e = _both(prog, s, "c,a,b")
    assert np.array_equal(g.counters, e.counters)
    assert g.matches.key_set() == e.matches.key_set()


def test_bad_and_groups_and_next_match_policy():
    s = _stream("AB")
    prog = _prog("PATTERN AND(A a, B b) WITHIN 5 seconds", s)
    with pytest.raises(CepsimInputError, match="and_groups"):
        run_chain(prog, s, and_groups="sorted")
    nxt = compile_pattern(parse_pattern("PATTERN AND(A a, B b) WITHIN 5 seconds "
                                        "POLICY skip-till-next-match"), s.schema)
    assert all(br.is_ordered for br in nxt.grouped)     # expanded by the compiler
    with pytest.raises(CepsimInputError, match="skip-till-next-match"):
        run_chain(nxt, s)


def test_greedy_runs_and_at_every_n():
    from sim.studies.adaptive.scenario import support
    for n in range(3, 9):
        assert support("greedy", "and", n) == ""

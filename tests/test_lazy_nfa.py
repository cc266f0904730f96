"""Lazy chain NFA and tree NFA (engines/lazy_nfa.py): exact match sets against the oracle,
the paper's small examples and counters, refusals."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import assert_same_matches, cases, small_cases

from engines.compile import compile_pattern
from engines.counters import BUFFERED, DECISION_CHECK, EDGE_EVAL, INSTANCE_WORK, LIVE_PM, PM_CREATED
from engines.errors import CepsimInputError
from engines.lazy_nfa import run_chain, run_tree
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream

ANY = ("skip-till-any-match",)


def _compile(text, stream):
    return compile_pattern(parse_pattern(text), stream.schema)


def test_chain_and_tree_equal_oracle_simple_sequences(match_rate):
    rate = match_rate("lazy chain + tree, simple sequences")

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=cases(max_events=60, simple_sequence=True, policies=ANY,
                      windows=("time", "count")), data=st.data())
    def prop(case, data):
        pattern, stream = case
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        names = [prog.var_names[v] for v in prog.positive_vars]
        order = data.draw(st.permutations(names), label="order")
        assert_same_matches(ref, run_chain(prog, stream, order=order),
                            (pattern, stream, f"chain {order}"), labels=("oracle", "chain"),
                            check_detect=True)
        assert_same_matches(ref, run_tree(prog, stream), (pattern, stream, "tree"),
                            labels=("oracle", "tree"), check_detect=True)
        rate.add(pattern, len(ref.matches))

    prop()
    rate.check()


def test_every_order_and_branches_equal_oracle(match_rate):
    """All n! orders on simple sequences (incl. no window), and OR/AND/nested-SEQ branches."""
    rate = match_rate("lazy chain, every order")
    checked = orders_run = orders_expected = 0
    sizes = set()
    for seed in range(6):
        for pattern, stream in small_cases(seed, 12, max_events=40, kleene=False, negation=False,
                                           policies=ANY, windows=("time", "count", "none"),
                                           and_or=bool(seed % 2)):
            prog = compile_pattern(pattern, stream.schema)
            ref = run_oracle(prog, stream)
            names = [prog.var_names[v] for v in prog.positive_vars]
            sizes.add(len(names))
            orders_expected += math.factorial(len(names))
            for o in itertools.permutations(names):
                assert_same_matches(ref, run_chain(prog, stream, order=list(o)),
                                    (pattern, stream, f"chain {o}"), check_detect=True)
                orders_run += 1
            assert_same_matches(ref, run_tree(prog, stream), (pattern, stream, "tree"),
                                check_detect=True)
            rate.add(pattern, len(ref.matches))
            checked += 1
    assert checked == 72
    assert orders_run == orders_expected
    assert {4, 5} <= sizes, f"cases must include 4- and 5-variable patterns, got sizes {sizes}"
    rate.check()


def _prices(seq):
    """Stream of (type, price) pairs, one second apart."""
    types = [t for t, _ in seq]
    return EventStream.from_arrays(types, np.arange(len(seq), dtype=float),
                                   np.array([[p] for _, p in seq], dtype=float),
                                   ("A", "B", "C"), ("price",))


EX1 = ("PATTERN SEQ(A a, B b, C c) WHERE a.price < b.price AND b.price < c.price "
       "WITHIN 1 hours")


def test_paper_example_1_matches():
    # a^1_3, a^2_5, a^3_8, b^1_7, b^2_13, c^1_9: matches {a1 b1 c1} and {a2 b1 c1}
    s = _prices([("A", 3), ("A", 5), ("A", 8), ("B", 7), ("B", 13), ("C", 9)])
    prog = _compile(EX1, s)
    want = {(("a", 0), ("b", 3), ("c", 5)), (("a", 1), ("b", 3), ("c", 5))}
    for o in itertools.permutations("abc"):
        assert run_chain(prog, s, order=list(o)).matches.key_set() == want
    assert run_tree(prog, s).matches.key_set() == want


def test_section7_condition_evaluation_count():
    # a, b, c all passing: three edge checks (q1->q2, q2->q3, q3->F)
    s = _prices([("A", 3), ("B", 7), ("C", 9)])
    prog = _compile(EX1, s)
    r = run_chain(prog, s, order="a,b,c")
    assert int(r.counters[:, EDGE_EVAL].sum()) == 3
    assert int(run_engine("eager", prog, s).counters[:, EDGE_EVAL].sum()) == 3
    # the b condition fails: evaluation stops there, two checks
    s2 = _prices([("A", 3), ("B", 2), ("C", 9)])
    assert int(run_chain(prog, s2, order="a,b,c").counters[:, EDGE_EVAL].sum()) == 2


def test_section4_lazy_example_200_evaluations():
    """100 a's, 100 b's, one c; one b below c.  Lazy order c,b,a: 100 checks of b<c plus 100 of
    a<b (plus c's own edge) instead of >= 10,000 for eager."""
    seq = [("A", float(i)) for i in range(100)]           # a prices 0..99
    seq += [("B", 1000.0 + i) for i in range(100)]        # b prices 1000..1099
    seq[100] = ("B", 150.0)                                # the single b below c
    seq += [("C", 200.0)]
    s = _prices(seq)
    prog = _compile(EX1, s)
    lazy = run_chain(prog, s, order="c,b,a")
    eager = run_engine("eager", prog, s)
    assert lazy.matches.key_set() == eager.matches.key_set()
    assert len(lazy.matches) == 100
    assert int(lazy.counters[:, EDGE_EVAL].sum()) == 1 + 100 + 100
    assert int(eager.counters[:, EDGE_EVAL].sum()) >= 10_000
    # memory: the lazy chain holds no instance between events, eager holds ~10,000
    assert int(lazy.counters[:, LIVE_PM].max()) == 0
    assert lazy.info["peak_transient_instances"] == 2     # {c} and {c, b} while c is processed
    assert int(eager.counters[:, LIVE_PM].max()) >= 10_000
    assert int(lazy.counters[:, BUFFERED].max()) == 200
    # tree: b is rarer than a here (50 vs 100), so it routes c -> b -> a by itself
    seq2 = [("A", float(i)) for i in range(100)] + [("B", 1000.0 + i) for i in range(50)]
    seq2[100] = ("B", 150.0)
    seq2 += [("C", 200.0)]
    s2 = _prices(seq2)
    tree = run_tree(prog, s2)
    assert tree.matches.key_set() == run_oracle(prog, s2).matches.key_set()
    # take edges: 1 + 50 + 100 as the c,b,a chain; routing checks (conditions of the tree's
    # store/take edges): the root at each of the 151 events, {c} once, the one {c, b} once
    assert tree.info["routing_checks"] == 151 + 1 + 1
    assert int(tree.counters[:, EDGE_EVAL].sum()) == 1 + 50 + 100 + 153
    assert int(tree.counters[:, DECISION_CHECK].sum()) == 0


def test_instance_work_counts_every_offer():
    """INSTANCE_WORK: each live instance an event is offered to (stored, ignored or taken).
    Section 4's stream: 100 a's (prices 0..99), 100 b's above every a, one c."""
    seq = [("A", float(i)) for i in range(100)] + [("B", 1000.0 + i) for i in range(100)]
    seq += [("C", 2000.0)]
    s = _prices(seq)
    prog = _compile(EX1, s)
    lazy = run_chain(prog, s, order="c,b,a")
    # root offered all 201 events; at c: the {c} instance, then its 100 {c, b} children
    assert int(lazy.counters[:, INSTANCE_WORK].sum()) == 201 + 1 + 100
    eager = run_engine("eager", prog, s)
    # the initial state + every live instance: a_i sees i a-instances, b_j sees 100 a-instances
    # and 100 * j ab-instances, c sees 100 + 10,000
    want = sum(i + 1 for i in range(100)) + sum(1 + 100 + 100 * j for j in range(100))
    want += 1 + 100 + 100 * 100
    assert int(eager.counters[:, INSTANCE_WORK].sum()) == want
    assert len(eager.matches) == len(lazy.matches) == 100 * 100
    # chain a,b,c keeps eager's instances alive between events: eager's offers, plus one for each
    # instance it creates (a child is offered the event that created it, where it waits)
    abc = run_chain(prog, s, order="a,b,c")
    assert int(abc.counters[:, INSTANCE_WORK].sum()) == want + 100 + 100 * 100


def test_window_expires_buffer_and_instances():
    seq = [("A", 1), ("B", 2), ("A", 1), ("B", 2)] * 5
    s = EventStream.from_arrays([t for t, _ in seq], np.arange(len(seq)) * 60.0,
                                np.array([[p] for _, p in seq], float), ("A", "B", "C"), ("price",))
    prog = _compile("PATTERN SEQ(A a, B b, C c) WITHIN 2 minutes", s)
    r = run_tree(prog, s)
    assert int(r.counters[:, BUFFERED].max()) == 3     # events within 120 s of the newest
    e = run_chain(prog, s, order="a,b,c")
    assert int(e.counters[:, LIVE_PM].max()) <= 4
    assert int(e.counters[-1, LIVE_PM]) <= 4
    assert int(e.counters[:, PM_CREATED].sum()) > 0 and len(e.matches) == 0


def test_tree_adapts_on_dynamic_stream_and_stays_exact():
    from workloads.debs15 import build_program
    from workloads.stocks import dynamic_stock_stream
    s = dynamic_stock_stream(4000, 5, period=800, h=5, rare_factor=0.1)
    prog = build_program(s.schema, "a,b,c", threshold=0.5, h_minutes=5)
    ref = run_engine("eager", prog, s)
    tree = run_tree(prog, s)
    assert_same_matches(ref, tree, (prog, s, "tree"), check_detect=True)
    assert len(ref.matches) > 0
    assert int(tree.counters[:, 7].sum()) > 0            # PLAN_GEN: the routing did switch


@pytest.mark.parametrize("text", [
    "PATTERN SEQ(A a, B+ b, C c) WITHIN 10 events",
    "PATTERN SEQ(A a, NOT(B b), C c) WITHIN 10 events",
    "PATTERN SEQ(A a, B b) WITHIN 10 events POLICY skip-till-next-match",
])
def test_refuses_unsupported_with_pointer_to_eager(text):
    s = _prices([("A", 1), ("B", 2), ("C", 3)])
    prog = _compile(text, s)
    for run in (run_chain, run_tree):
        with pytest.raises(CepsimInputError, match="eager"):
            run(prog, s)


def test_bad_order_is_input_error():
    s = _prices([("A", 1)])
    prog = _compile(EX1, s)
    with pytest.raises(CepsimInputError, match="every variable"):
        run_chain(prog, s, order="a,b")
    with pytest.raises(CepsimInputError, match="unknown"):
        run_chain(prog, s, order="a,b,x")


def test_empty_stream():
    s = EventStream.from_arrays(np.zeros(0, np.int32), np.zeros(0), np.zeros((0, 1)),
                                ("A", "B", "C"), ("price",))
    prog = _compile(EX1, s)
    for r in (run_chain(prog, s), run_tree(prog, s)):
        assert len(r.matches) == 0 and r.counters.shape[0] == 0

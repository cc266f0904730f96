"""Lazy chain NFA and tree NFA (engines/evaluators/lazy_nfa.py): exact match sets against the oracle,
the paper's small examples and counters, refusals."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases, small_cases

from engines.compile import compile_pattern
from engines.counters import BUFFERED, DECISION_CHECK, EDGE_EVAL, INSTANCE_WORK, LIVE_PM, PM_CREATED
from engines.errors import CepsimInputError
from engines.evaluators.lazy_nfa import run_chain, run_tree
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.registry import run_engine
from engines.stream import EventStream

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

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


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases(max_events=60, n_types=(3, 3), simple_sequence=True, max_len=3, max_preds=1,
                  policies=ANY, windows=("time", "count")), data=st.data())
def test_chain_and_tree_equal_oracle_dense_three_variable_sequences(case, data):
    """The DEBS'15 shape (three-variable sequences, few types, one predicate, >= 20 events):
    about 3/4 of the examples have matches (the broad test above: about 1/6), so the routing of
    the tree (per-state decisions, coverage inheritance) is exercised on real matches."""
    pattern, stream = case
    assume(len(stream) >= 20)
    prog = compile_pattern(pattern, stream.schema)
    ref = run_oracle(prog, stream)
    names = [prog.var_names[v] for v in prog.positive_vars]
    order = data.draw(st.permutations(names), label="order")
    assert_same_matches(ref, run_chain(prog, stream, order=order), (pattern, stream, f"chain {order}"),
                        labels=("oracle", "chain"), check_detect=True)
    assert_same_matches(ref, run_tree(prog, stream), (pattern, stream, "tree"),
                        labels=("oracle", "tree"), check_detect=True)


@pytest.mark.slow      # 16 s warm; the property tests above draw one order per example by default
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
    # take edges: 1 + 50 + 100 as the c,b,a chain; routing decisions (part of the offer, not
    # condition evaluations; tests/test_lazy_nfa_counts.py): the root at each of the 151 events,
    # {c} once, the one {c, b} once
    assert tree.info["routing_checks"] == 151 + 1 + 1
    assert int(tree.counters[:, EDGE_EVAL].sum()) == 1 + 50 + 100
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
    "PATTERN SEQ(A a, B b) WITHIN 10 events POLICY skip-till-next-match",
    "PATTERN SEQ(A a, B b) WHERE a.price < REMOTE[b.price] WITHIN 10 events",
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


# ----------------------------------------------------------------------------- DEBS'15 workload
def test_phased_stream_three_rates_all_orders_independent_goog():
    from workloads.stocks import PHASES, SECTORS, phased_stock_stream
    s = phased_stock_stream(12000, 3, period=2000, h=5)
    assert len(s) == 12000 and np.all(np.diff(s.ts) >= 0)
    assert np.array_equal(s.attrs, phased_stock_stream(12000, 3, period=2000, h=5).attrs)
    seen = []
    for q in range(6):
        n = np.bincount(s.types[q * 2000:(q + 1) * 2000], minlength=3)
        order = tuple(SECTORS[i] for i in np.argsort(n))          # rare -> frequent
        assert order == PHASES[q]
        # three distinct rates: about 0.05 : 0.3 : 1 of the frequent sector
        f = np.sort(n) / n.max()
        assert 0.02 < f[0] < 0.1 and 0.2 < f[1] < 0.4, (q, n)
        seen.append(order)
    assert len(set(seen)) == 6
    assert all(seen[i][0] != seen[i + 1][0] for i in range(5))     # the rarest switches
    # GOOG events come from several feeds with their own prices, not copies of one event
    g = np.flatnonzero(s.types == 2)
    assert len(np.unique(s.attrs[g, 1])) == 10
    same_minute = g[:-1][np.diff(s.ts[g]) == 0]
    assert len(same_minute) > 0
    assert not np.all(s.attrs[same_minute, 0] == s.attrs[same_minute + 1, 0])


def test_window_counts_at_matches_brute_force():
    from workloads.debs15 import window_counts_at
    from workloads.stocks import stock_stream
    s = stock_stream(1500, 2, h=4, f_c=0.2)
    got = window_counts_at(s, "GOOG", ("Finance", "HiTech"), h_minutes=3)
    want = []
    for p in np.flatnonzero(s.types == 2):
        inwin = (np.arange(len(s)) < p) & (s.ts >= s.ts[p] - 180.0)
        want.append([np.sum(inwin & (s.types == 0)), np.sum(inwin & (s.types == 1))])
    assert np.array_equal(got, np.array(want))


def test_regime_threshold_and_scenario_rows():
    from sim.studies.lazy_nfa.scenario import condition_evaluations, phased_evaluations
    from workloads.debs15 import REGIME_T
    row = condition_evaluations({"n_events": 1500, "f_c": 0.2, "h": 5, "regime": "selective",
                                 "nfas": "eager,cab,cba,tree"}, 1)
    assert row["threshold"] == REGIME_T["selective"] and row["matches_agree"]
    for k in ("eager", "cab", "cba", "tree"):
        assert row[f"ops_{k}"] == row[f"evals_{k}"] + row[f"work_{k}"]
        assert row[f"work_{k}"] >= row["n_stream_events"]          # the root sees every event
    assert row["routing_tree"] > 0
    assert row["evals_route_tree"] == row["evals_tree"] + row["routing_tree"]
    for k in ("eager", "cab", "cba"):
        assert row[f"routing_{k}"] == 0 and row[f"evals_route_{k}"] == row[f"evals_{k}"]
    assert row["swing_kind"] == "sine" and row["swing_amp"] == 0.15
    assert 0 <= row["sel_ab"] <= 1 and 0 <= row["frac_b_rarer"] <= 1
    with pytest.raises(CepsimInputError, match="regime"):
        condition_evaluations({"n_events": 100, "f_c": 0.2, "regime": "nope"}, 1)
    # the a/b rate swing (workloads/stocks.py ab_swing): named in the row, refused when unknown
    # or out of range
    rn = condition_evaluations({"n_events": 600, "f_c": 0.2, "h": 5, "regime": "selective",
                                "nfas": "cab", "swing": "random", "fluctuation": 0.0}, 1)
    assert rn["swing_kind"] == "none" and rn["swing_amp"] == 0.0 and rn["w_absdiff"] >= 0
    with pytest.raises(CepsimInputError, match="swing must be one of"):
        condition_evaluations({"n_events": 100, "f_c": 0.2, "swing": "zigzag"}, 1)
    with pytest.raises(CepsimInputError, match="fluctuation"):
        condition_evaluations({"n_events": 100, "f_c": 0.2, "fluctuation": 1.5}, 1)
    with pytest.raises(CepsimInputError, match="not both"):
        condition_evaluations({"n_events": 100, "f_c": 0.2, "regime": "selective",
                               "threshold": 0.5}, 1)
    # min_c_events lengthens the stream at small f_c
    r2 = condition_evaluations({"n_events": 500, "min_c_events": 5, "f_c": 0.01, "h": 5,
                                "regime": "selective", "nfas": "cab"}, 2)
    assert r2["n_stream_events"] >= 1000 and r2["n_c_events"] >= 1
    ph = phased_evaluations({"n_events": 3000, "period": 500, "bucket": 250, "h": 5,
                             "regime": "paper_regime", "nfas": "cab,cba,tree"}, 3)
    assert ph["matches_agree"] and ph["matches"] > 0
    import json
    for m in ("evals", "ops"):
        per = json.loads(ph[f"{m}_phase_tree"])
        assert len(per) == 6 and sum(per) == ph[f"{m}_tree"]
        assert len(json.loads(ph[f"{m}_series_cab"])) == 12


def test_calibration_claim_picks_largest_passing_threshold():
    import pandas as pd

    from sim.studies.lazy_nfa.claims import claim_calibrated_regime
    from workloads.debs15 import REGIME_T
    want = REGIME_T["paper_regime"]
    rows = []
    # above `want`: c,b,a far ahead (cab/cba = 3); at and below it: cab ~ cba and best
    for thr in (0.8, want + 0.1, want, want - 0.05):
        for fc in (0.001, 1.0):
            cab = 300 if thr > want else 100
            r = {"threshold": thr, "f_c": fc, "sel_bc": 0.5, "evals_cab": cab, "evals_cba": 100}
            r.update({f"evals_{k}": 10_000 for k in ("abc", "acb", "bac", "bca")})
            rows.append(r)
    res = claim_calibrated_regime(pd.DataFrame(rows))
    assert res.passed, res.measured
    # a best chain that is not c-first at one f_c rules a threshold out
    df = pd.DataFrame(rows)
    df.loc[(df["threshold"] == want) & (df["f_c"] == 1.0), "evals_abc"] = 1
    assert not claim_calibrated_regime(df).passed


def test_match_keys_compare_match_sets_not_orders():
    """The scenario's match-set comparison: same rows in any order are equal, one changed row
    is not, and positions too wide for one int64 key fall back to sorted rows."""
    from sim.studies.lazy_nfa.scenario import _match_keys, _same_keys
    rng = np.random.default_rng(3)
    pos = rng.integers(0, 5000, size=(400, 3))
    shuffled = pos[rng.permutation(len(pos))]
    assert _same_keys(_match_keys(pos), _match_keys(shuffled))
    changed = shuffled.copy()
    changed[7, 2] += 1
    assert not _same_keys(_match_keys(pos), _match_keys(changed))
    swapped = pos[:, [1, 0, 2]]            # the same numbers bound to other variables
    assert not _same_keys(_match_keys(pos), _match_keys(swapped))
    wide = pos.copy()
    wide[0, 0] = 1 << 40                   # 3 columns x 41 bits > 62: lexsorted rows
    assert _match_keys(wide).ndim == 2
    assert _same_keys(_match_keys(wide), _match_keys(wide[::-1]))
    assert not _same_keys(_match_keys(wide), _match_keys(np.vstack([wide[1:], wide[:1] + 1])))

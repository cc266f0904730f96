"""The tree-plan evaluator (``engines/evaluators/ztree.py``) must report exactly the oracle's matches.

Property tests draw random patterns and streams from ``tests/strategies.py`` (every operator,
Kleene, negation at start / middle / end, random predicates, time and count windows, sometimes no
window; skip-till-any-match, the only policy the engine evaluates), a random plan shape over the
pattern's variables (random leaf order, random binary splits: left-deep, right-deep and bushy
trees) and both trigger modes; half the runs start every node buffer at capacity 1 so that growth
and compaction run on small cases.  An AND of 8 (no n! expansion; the oracle cannot enumerate
8! flat branches) is checked against an independent brute force over injective bindings.
Each property test reports the fraction of its examples with at least one match (listed at the
end of the run, ``match_rate`` fixture) and asserts it, overall and for 4+-variable patterns.
"""
from __future__ import annotations

import contextlib
import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.compile import compile_pattern
from engines.errors import CapacityError, CepsimInputError
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.stream import EventStream
from engines.evaluators.ztree import run_ztree
from engines.evaluators.ztree_plan import make_plan, parse_plan_text
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

# derandomized: the same examples every run, so the measured match rate is stable
SETTINGS = dict(deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
ANY = ("skip-till-any-match",)


def random_plan(names: list[str], rnd: random.Random):
    """A random binary tree over ``names`` (random order, random split points)."""
    names = list(names)
    rnd.shuffle(names)

    def build(xs):
        if len(xs) == 1:
            return xs[0]
        k = rnd.randint(1, len(xs) - 1)
        return (build(xs[:k]), build(xs[k:]))

    return build(names)


def _check(pattern, stream, rnd: random.Random, tiny: bool, rate) -> None:
    program = compile_pattern(pattern, stream.schema)
    names = [program.var_names[v] for v in program.positive_vars]
    plan = random_plan(names, rnd)
    oracle = run_oracle(program, stream)
    for trig in ("push", "batch"):
        z = run_ztree(program, stream, plan=plan, trigger=trig, _init_cap=1 if tiny else 64)
        assert_same_matches(z, oracle, (program, stream, f"plan {plan} trigger {trig}"),
                            labels=("ztree", "oracle"), check_detect=True)
    rate.add(pattern, len(oracle.matches))


def test_ztree_equals_oracle_all_operators(match_rate):
    rate = match_rate("ztree, all operators")

    @settings(max_examples=70, **SETTINGS)
    @given(cases(max_events=50, policies=ANY), st.randoms(use_true_random=False), st.booleans())
    def prop(case, rnd, tiny):
        _check(*case, rnd, tiny, rate)

    prop()
    rate.check()


def test_ztree_equals_oracle_sequences_random_plans(match_rate):
    rate = match_rate("ztree, sequences, random plans")

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=150, min_len=3, max_len=5, simple_sequence=True, policies=ANY,
                 max_preds=1, n_types=3).filter(lambda c: len(c[1]) >= 20),
           st.randoms(use_true_random=False), st.booleans())
    def prop(case, rnd, tiny):
        _check(*case, rnd, tiny, rate)

    prop()
    rate.check()


def test_ztree_equals_oracle_kleene_negation_windows(match_rate):
    rate = match_rate("ztree, Kleene, negation, windows")

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=80, kleene_max_events=30, and_or=False, policies=ANY,
                 windows=("time", "count", "none")), st.randoms(use_true_random=False),
           st.booleans())
    def prop(case, rnd, tiny):
        _check(*case, rnd, tiny, rate)

    prop()
    rate.check()


@contextlib.contextmanager
def kernel_statuses():
    """The status of every ``_kernel_once`` run inside the block, in order (a list)."""
    import engines.evaluators.ztree as Z
    once = Z._kernel_once
    seen: list[int] = []

    def counted(*a):
        out = once(*a)
        seen.append(out[0])
        return out

    Z._kernel_once = counted
    try:
        yield seen
    finally:
        Z._kernel_once = once


def test_reruns_with_larger_arrays_give_identical_runs():
    """The kernel allocates its arrays once and stops when one is full; ``run_ztree`` then reruns
    it with that array four times larger.  Starting from one-row arrays (every resource runs
    out, several times) must give the same counters, matches and info as large arrays, and
    caps must still be reported as with large arrays."""
    import engines.evaluators.ztree as Z
    tiny = dict(rows=1, kleene=1, parked=1, matches=1)
    big = dict(rows=1 << 14, kleene=1 << 14, parked=1 << 12, matches=1 << 14)

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=80, kleene_max_events=30, policies=ANY,
                 windows=("time", "count", "none")), st.randoms(use_true_random=False))
    def prop(case, rnd):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        names = [program.var_names[v] for v in program.positive_vars]
        plan = random_plan(names, rnd)
        trig = rnd.choice(("push", "batch"))
        outs = []
        for sizes in (big, tiny):
            try:
                r = Z.run_ztree(program, stream, plan=plan, trigger=trig, _init_cap=1,
                                _sizes=sizes, max_partial_matches=400)
                outs.append((r.counters, r.matches.pos, r.matches.detect, r.matches.kl_start,
                             r.matches.kl_len, r.matches.kl_events, r.info))
            except CapacityError as e:
                outs.append(str(e))
        if isinstance(outs[0], str) or isinstance(outs[1], str):
            assert outs[0] == outs[1]
            return
        for x, y in zip(outs[0][:-1], outs[1][:-1]):
            assert np.array_equal(x, y)
        assert outs[0][-1] == outs[1][-1]

    with kernel_statuses() as runs:
        prop()
    reruns = [s for s in runs if s >= Z.ST_SPACE_R]
    assert {Z.ST_SPACE_R, Z.ST_SPACE_M} <= set(reruns), "the tiny arrays never ran out"
    assert Z.ST_SPACE_K in reruns and Z.ST_SPACE_P in reruns, "Kleene / parked reruns untested"


def test_tables_from_kept_alternative_parts_equal_fresh_tables():
    """``build_tables`` assembles a plan's tables from each OR alternative's part, kept per
    (alternative, its tree): after many plans of one program, every plan's tables equal those
    built for a freshly compiled program (nothing kept), array for array."""
    from engines.evaluators.ztree_tables import build_tables
    rng = np.random.default_rng(3)
    stream = EventStream.from_arrays(rng.integers(0, 4, 10), np.arange(10.0),
                                     rng.normal(size=(10, 2)), ("A", "B", "C", "D"), ("x", "y"))
    text = ("PATTERN OR(SEQ(A a, B+ b, C c), SEQ(D d, NOT(C f), A e), AND(B g, D h)) "
            "WHERE SAME[y] AND a.x < c.x AND f.x > d.x WITHIN 5 events")
    warm = compile_pattern(parse_pattern(text), stream.schema)
    names = [warm.var_names[v] for v in warm.positive_vars]
    rnd = random.Random(5)
    for _ in range(60):
        plan = make_plan(random_plan(names, rnd), warm)
        trig = rnd.choice(("push", "batch"))
        ev = frozenset(v for v in names if rnd.random() < 0.5)
        cold = compile_pattern(parse_pattern(text), stream.schema)
        got, want = build_tables(warm, plan, trig, ev), build_tables(cold, plan, trig, ev)
        assert got.keys() == want.keys()
        for k in got:
            assert np.array_equal(got[k], want[k]) if isinstance(got[k], np.ndarray) \
                else got[k] == want[k], k


def test_new_plans_start_with_the_programs_array_sizes():
    """A plan's first run starts with the largest arrays the program's earlier runs needed, and
    with a matches array sized by their densest match rate (every plan finds the same matches on
    the same events): a second plan of a match-heavy pattern runs once, where the first plan's
    first run outgrew its matches array and reran.  Sizes only change allocation: the second
    plan gives the first plan's matches."""
    import engines.evaluators.ztree as Z
    rng = np.random.default_rng(7)
    n = 600
    stream = EventStream.from_arrays(rng.integers(0, 3, n), np.arange(n, dtype=float),
                                     rng.normal(size=(n, 1)), ("A", "B", "C"), ("x",))
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 12 events"),
                              stream.schema)
    with kernel_statuses() as statuses:
        first = Z.run_ztree(program, stream, plan="((a,b),c)")
        first_statuses = list(statuses)
        statuses.clear()
        second = Z.run_ztree(program, stream, plan="(a,(b,c))")
    assert len(first.matches) > 256, "the pattern should outgrow the initial matches array"
    assert Z.ST_SPACE_M in first_statuses
    assert statuses == [0]
    assert_same_matches(first.matches, second.matches)


def test_ztree_mixed_eager_lazy_plans(match_rate):
    """APAM's hybrid on the tree: the eager group (a left-deep subtree in query order) joins on
    arrival, the rest at final events; every split of every order gives the oracle's matches."""
    rate = match_rate("ztree, mixed eager/lazy plans")

    @settings(max_examples=40, **SETTINGS)
    @given(cases(max_events=150, min_len=2, max_len=4, simple_sequence=True, policies=ANY,
                 max_preds=1, n_types=3).filter(lambda c: len(c[1]) >= 20),
           st.randoms(use_true_random=False))
    def prop(case, rnd):
        pattern, stream = case
        program = compile_pattern(pattern, stream.schema)
        names = [program.var_names[v] for v in program.positive_vars]
        eeg = [v for v in names if rnd.random() < 0.5]
        leg = [v for v in names if v not in eeg]
        rnd.shuffle(leg)
        order = eeg + leg
        plan = order[0]
        for v in order[1:]:
            plan = (plan, v)
        oracle = run_oracle(program, stream)
        z = run_ztree(program, stream, plan=plan, trigger="batch", eager_vars=eeg,
                      _init_cap=rnd.choice((1, 64)))
        assert_same_matches(z, oracle, (program, stream, f"plan {plan} eager {eeg}"),
                            labels=("ztree", "oracle"), check_detect=True)
        rate.add(pattern, len(oracle.matches))

    prop()
    rate.check()


# ----------------------------------------------------------------------------- AND of 8
def _and_stream(seed: int, n: int, types: str) -> EventStream:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, len(types), n)
    ts = np.cumsum(rng.integers(0, 2, n)).astype(float)
    x = rng.integers(0, 5, n).astype(float)
    return EventStream.from_arrays(t, ts, x.reshape(-1, 1), tuple(types), ("x",))


def _brute_and(stream, var_types, W, pred=None):
    """Every injective binding of the variables (types given) spanning < W positions."""
    n = len(stream)
    out = set()
    names = list(var_types)
    for lo in range(n):
        # bindings whose first event is lo
        def rec(i, used, acc):
            if i == len(names):
                if min(used) == lo and (pred is None or pred(acc)):
                    out.add(tuple(sorted(acc.items())))
                return
            v = names[i]
            for e in range(lo, min(n, lo + int(W))):
                if e not in used and stream.schema.type_names[stream.types[e]] == var_types[v]:
                    acc[v] = e
                    rec(i + 1, used | {e}, acc)
                    del acc[v]
        rec(0, frozenset(), {})
    return out


@pytest.mark.parametrize("plan", [None, "(((a,b),(c,d)),((e,f),(g,h)))", "(h,(g,(f,(e,(d,(c,(b,a)))))))"])
@pytest.mark.parametrize("trigger", ["push", "batch"])
def test_and_of_8_native(plan, trigger):
    types = "ABCDEFGH"
    var_types = {v: t for v, t in zip("abcdefgh", "AABBCCDE")}
    text = ("PATTERN AND(" + ", ".join(f"{t} {v}" for v, t in var_types.items()) + ") "
            "WHERE a.x < b.x AND g.x >= c.x WITHIN 12 events")
    stream = _and_stream(3, 70, types[:5])
    stream = EventStream.from_arrays(stream.types, stream.ts, stream.attrs, tuple(types),
                                     ("x",))
    program = compile_pattern(parse_pattern(text), stream.schema)
    assert program.branch_error            # every order: 8!/4 > max_branches, never expanded
    oracle = run_oracle(program, stream)   # the oracle searches the AND group natively
    z = run_ztree(program, stream, plan=plan, trigger=trigger)
    x = stream.attrs[:, 0]
    want = _brute_and(stream, var_types, 12,
                      lambda b: x[b["a"]] < x[b["b"]] and x[b["g"]] >= x[b["c"]])
    assert len(want) > 0
    assert z.matches.key_set() == want
    assert oracle.matches.key_set() == want
    assert len(z.matches.keys()) == len(want)


# ----------------------------------------------------------------------------- counters
def test_counters_seq_split_binary_search():
    """SEQ(a,b) with plan (a,b): a new b probes only the stored a's before it (binary search),
    so JOIN_PROBE equals the number of in-window (a, b) pairs in stream order."""
    text = "PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 4 events"
    stream = _and_stream(5, 200, "AB")
    program = compile_pattern(parse_pattern(text), stream.schema)
    z = run_ztree(program, stream)
    t = stream.types
    pairs = sum(1 for i in range(len(t)) for j in range(i + 1, min(len(t), i + 4))
                if t[i] == 0 and t[j] == 1)
    from engines import counters as C
    s = C.summarize(z.counters)
    assert s["join_probe"] == pairs
    assert s["pred_eval"] == pairs
    assert s["search_cmp"] > 0
    assert s["buf_insert"] == len(t)
    assert s["match_emit"] == len(z.matches) == len(run_oracle(program, stream).matches)


# ----------------------------------------------------------------------------- errors
def test_plan_errors_and_policy():
    stream = _and_stream(1, 10, "ABC")
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b, C c) WITHIN 3 events"),
                              stream.schema)
    assert parse_plan_text("((a,b),c)") == (("a", "b"), "c")
    assert parse_plan_text("a,b,c") == (("a", "b"), "c")
    assert str(make_plan(("c", ("a", "b")), program)) == "(c,(a,b))"
    assert str(make_plan(None, program)) == "((a,b),c)"
    for bad, needle in [("((a,b),d)", "not positive variables"), ("((a,b),a)", "more than once"),
                        ("(a,b)", "lacks c"), ("((a,b),c", "missing"), ("((a,,b),c)", "unexpected"),
                        ("(a;b)", "cannot read")]:
        with pytest.raises(CepsimInputError, match=needle):
            run_ztree(program, stream, plan=bad)
    with pytest.raises(CepsimInputError, match="trigger"):
        run_ztree(program, stream, trigger="pull")
    nxt = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WITHIN 3 events "
                                        "POLICY skip-till-next-match"), stream.schema)
    with pytest.raises(CepsimInputError, match="skip-till-any-match"):
        run_ztree(nxt, stream)


def test_capacity_error_names_option():
    stream = _and_stream(2, 300, "AB")
    program = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b, A c) WITHIN 50 events"),
                              stream.schema)
    with pytest.raises(CapacityError, match="max_partial_matches"):
        run_ztree(program, stream, max_partial_matches=10)
    with pytest.raises(CapacityError, match="max_matches"):
        run_ztree(program, stream, max_matches=5)


def test_deterministic_and_modes_agree_on_nasdaq(repo_root):
    from workloads.loaders import load_stream
    stream = load_stream(repo_root / "workloads/data/opencep_nasdaq/NASDAQ_SHORT.txt", "metastock")
    names = stream.schema.type_names
    a, b, c = names[0], names[1], names[2]
    text = (f"PATTERN SEQ({a} x, {b} y, {c} z) WHERE x.close < y.close * 10 "
            "WITHIN 20 events")
    program = compile_pattern(parse_pattern(text), stream.schema)
    r1 = run_ztree(program, stream, plan="(x,(y,z))", trigger="batch")
    r2 = run_ztree(program, stream, plan="(x,(y,z))", trigger="batch")
    assert np.array_equal(r1.counters, r2.counters)
    o = run_oracle(program, stream)
    assert len(o.matches) > 0
    assert_same_matches(r1, o, text, labels=("ztree", "oracle"), check_detect=True)
    _ = itertools

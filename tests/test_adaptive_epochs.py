"""Epoch-based plan replacement (engines/planners/adaptive/epochs.py): random plan schedules over random
patterns emit exactly the oracle's matches, each exactly once."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import GENERATED_PATTERN_WARNINGS, assert_same_matches, cases, small_cases

from engines.planners.adaptive.epochs import earliest_event, run_schedule
from engines.compile import compile_pattern
from engines.evaluators.lazy_nfa import run_chain
from engines.oracle import run_oracle

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

ANY = ("skip-till-any-match",)


OPTS = dict(max_events=60, simple_sequence=True, policies=ANY, windows=("time", "count"),
            n_types=(2, 3), max_len=3, max_preds=2)


def test_random_schedules_equal_oracle_exactly_once(match_rate):
    rate = match_rate("adaptive epochs, random plan schedules")

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=cases(**OPTS), data=st.data())
    def prop(case, data):
        pattern, stream = case
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        rate.add(pattern, len(ref.matches))
        n = len(stream)
        k = data.draw(st.integers(0, min(6, max(0, n - 1))), label="replacements")
        starts = sorted({0} | set(data.draw(st.lists(st.integers(1, max(1, n - 1)), min_size=k,
                                                     max_size=k), label="starts"))) if n > 1 else [0]
        pos = list(prog.positive_vars)
        plans = [tuple(data.draw(st.permutations(pos), label=f"order{e}"))
                 for e in range(len(starts))]
        ms, cnt, info = run_schedule(prog, stream, "order", starts, plans, cache={})
        keys = ms.keys()
        assert len(keys) == len(set(keys)), "a match was emitted twice"
        assert_same_matches(ref, ms, (pattern, stream, f"starts {starts} plans {plans}"),
                            labels=("oracle", "epochs"), check_detect=True)
        assert cnt.shape[0] == n
        if len(starts) == 1:   # one epoch = the plain engine run, counters included
            whole = run_chain(prog, stream, order=[prog.var_names[v] for v in plans[0]])
            np.testing.assert_array_equal(cnt, whole.counters[:n])

    prop()
    rate.check(min_big=0, min_rate_big=0.0)       # OPTS: at most 3 variables


OR_AND = dict(OPTS, simple_sequence=False, and_or=True, kleene=False, negation=False, max_len=4)


@pytest.mark.parametrize("opts", [OPTS, OR_AND], ids=["seq", "and_or"])
def test_deterministic_schedules_and_match_rate(opts, match_rate):
    """Same check on 30 fixed cases of the same generator (also OR / AND / nested patterns);
    reports the match rate."""
    rate = match_rate(f"adaptive epochs, seeded schedules ({'sequences' if opts is OPTS else 'AND/OR'})")
    rng = np.random.default_rng(11)
    for pattern, stream in small_cases(2018, 30, **opts):
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        n = len(stream)
        starts = sorted({0} | set(rng.integers(1, max(2, n), 4).tolist())) if n > 2 else [0]
        pos = list(prog.positive_vars)
        plans = [tuple(rng.permutation(pos).tolist()) for _ in starts]
        ms, _, _ = run_schedule(prog, stream, "order", starts, plans)
        assert len(ms.keys()) == len(ms.key_set())
        assert_same_matches(ref, ms, (pattern, stream, f"starts {starts}"), check_detect=True)
        rate.add(pattern, len(ref.matches))
    rate.check(min_big=0, min_rate_big=0.0)


def test_earliest_event_plain_columns():
    from engines.matches import MatchSet
    ms = MatchSet.from_records(("a", "b"), (False, False), [{"a": 5, "b": 2}, {"a": 1}], [5, 1])
    assert list(earliest_event(ms)) == [2, 1]


def _random_tree(rng, leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = int(rng.integers(1, len(leaves)))
    return (_random_tree(rng, leaves[:k]), _random_tree(rng, leaves[k:]))


def random_schedules(rng, n: int, pool: list, n_cuts: int, n_scheds: int = 4) -> list:
    """``n_scheds`` random ``(starts, plans)`` over ``n`` events: starts from ``n_cuts`` random
    cut positions, each epoch's plan drawn from ``pool``."""
    cuts = sorted(set(rng.integers(1, n, n_cuts).tolist()))
    scheds = []
    for _ in range(n_scheds):
        st_ = sorted({0} | set(rng.choice(cuts, rng.integers(0, len(cuts) + 1),
                                          replace=False).tolist()))
        scheds.append((st_, [pool[int(rng.integers(0, len(pool)))] for _ in st_]))
    return scheds


TREE_OPTS = dict(max_events=50, policies=ANY, windows=("time", "count"), n_types=(2, 3),
                 max_len=4, max_preds=2, kleene=True, negation=True, and_or=True)


def test_tree_plan_schedules_equal_oracle():
    """Epochs of ZStream tree plans (engines/evaluators/ztree.py) on SEQ / NOT / Kleene / AND / OR patterns."""
    from engines.planners.adaptive.planners import planning_groups
    rng = np.random.default_rng(12)
    had = []
    for pattern, stream in small_cases(2019, 30, **TREE_OPTS):
        prog = compile_pattern(pattern, stream.schema)
        ref = run_oracle(prog, stream)
        n = len(stream)
        starts = sorted({0} | set(rng.integers(1, max(2, n), 3).tolist())) if n > 2 else [0]
        groups = planning_groups(prog)
        plans = [tuple(_random_tree(rng, list(g)) for g in groups) for _ in starts]
        ms, _, _ = run_schedule(prog, stream, "tree", starts, plans)
        assert len(ms.keys()) == len(ms.key_set())
        assert_same_matches(ref, ms, (pattern, stream, f"starts {starts} plans {plans}"),
                            check_detect=True)
        had.append(len(ref.matches) > 0)
    rate = float(np.mean(had))
    print(f"tree epoch schedules: {rate:.0%} of cases had >= 1 match")
    assert rate >= 0.5


def _same_matchset(a, b) -> bool:
    """Same matches in the same order with the same detection positions (a shared run's Kleene
    event store may hold more, unreferenced, entries than a short run's)."""
    return (a.records() == b.records() and np.array_equal(a.detect, b.detect)
            and np.array_equal(a.pos, b.pos) and np.array_equal(a.kl_len, b.kl_len))


@pytest.mark.parametrize("kind", ["order", "tree"])
def test_prefix_shared_runs_are_bit_identical(kind, monkeypatch):
    """Schedules drawing plans from a pool of two, evaluated with one shared cache and the
    horizon of all of them (an epoch reuses a longer run of its plan from the same start, unless
    the pattern has a negation), give exactly the counters and matches of evaluating each
    schedule alone; and sharing happens."""
    import engines.planners.adaptive.epochs as E
    from engines.planners.adaptive.planners import planning_groups
    calls = [0]
    real = E.run_plan

    def counting(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(E, "run_plan", counting)
    rng = np.random.default_rng(13)
    opts = TREE_OPTS if kind == "tree" else OR_AND
    shared_calls = alone_calls = 0
    for pattern, stream in small_cases(2020, 15, **opts):
        prog = compile_pattern(pattern, stream.schema)
        n = len(stream)
        if n < 4:
            continue
        if kind == "tree":
            groups = planning_groups(prog)
            pool = [tuple(_random_tree(rng, list(g)) for g in groups) for _ in range(2)]
        else:
            pos = list(prog.positive_vars)
            pool = [tuple(rng.permutation(pos).tolist()) for _ in range(2)]
        scheds = random_schedules(rng, n, pool, 4)
        hor = E.epoch_horizon(prog, stream, [(kind, s, p) for s, p in scheds])
        cache: dict = {}
        calls[0] = 0
        shared = [E.run_schedule(prog, stream, kind, s, p, cache, None, hor) for s, p in scheds]
        shared_calls += calls[0]
        calls[0] = 0
        alone = [E.run_schedule(prog, stream, kind, s, p) for s, p in scheds]
        alone_calls += calls[0]
        for (ms1, c1, i1), (ms2, c2, i2) in zip(shared, alone):
            np.testing.assert_array_equal(c1, c2)
            assert _same_matchset(ms1, ms2), (pattern, scheds)
            arrays = ("live", "dup_sums", "dup_rows")
            for k in arrays:
                np.testing.assert_array_equal(i1[k], i2[k])
            assert {k: v for k, v in i1.items() if k not in arrays} == \
                {k: v for k, v in i2.items() if k not in arrays}
    assert shared_calls < alone_calls, (shared_calls, alone_calls)

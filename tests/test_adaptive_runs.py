"""The lean epoch evaluation of the adaptive scenario (sim/studies/adaptive/runs.py) equals the
straightforward one it replaced: one ``run_schedule`` per method over a shared run cache, dense
counter and charge matrices summed after the warm-up, match sets concatenated and compared in
canonical form, and the headroom oracle reading P0's cached run (``reference_run_methods`` below
is that code, kept as the reference)."""
from __future__ import annotations

import numpy as np
import pytest
from strategies import GENERATED_PATTERN_WARNINGS, small_cases
from test_adaptive_epochs import _random_tree, random_schedules

from engines import counters as C
from engines.compile import compile_pattern
from engines.planners.adaptive import epochs as E
from engines.planners.adaptive.planners import planning_groups
from sim.studies.adaptive import scenario as A
from sim.studies.adaptive.runs import evaluate_methods


def _canonical(ms) -> np.ndarray:
    """The reference canonical form of a method's matches (from a whole ``MatchSet``): plain
    variables, Kleene lengths and the earliest event, rows sorted; equal arrays <=> equal match
    sets."""
    from engines.matches import canonical_rows
    a = (np.concatenate([ms.pos, ms.kl_len, E.earliest_event(ms)[:, None]], axis=1)
         if len(ms) else np.zeros((0, 1), np.int64))
    return canonical_rows(a)

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)


def reference_run_methods(labels, prog, stream, stats, planner, kind, n_events, n_warmup, K,
                          davg, eopts, memo=None, zero_bounds=None, oracle_runs=None,
                          subtree="recompute"):
    """The straightforward evaluation ``sim.studies.adaptive.scenario._run_methods`` is checked
    against: one ``run_controller`` and one ``epochs.run_schedule`` per method over a shared run
    cache, whole ``MatchSet``s and dense counters (same signature; it returns no zero-start sums,
    so the headroom oracle runs P0 afresh)."""
    from engines.planners.adaptive.controller import run_controller
    from engines.planners.adaptive.decision import (InvariantDecision, StaticDecision,
                                                    ThresholdDecision, UnconditionalDecision)
    ref_matches = None
    consistent = True
    memo = {} if memo is None else memo
    cache: dict = {}
    schedules = []
    for lab, mk, par in labels:
        if mk == "static":
            D = StaticDecision()
        elif mk == "uncond":
            D = UnconditionalDecision()
        elif mk == "thr":
            D = ThresholdDecision(par, stats.monitored)
        else:
            D = InvariantDecision(davg if par is None else par, K,
                                  subtree if kind == "tree" else "recompute")
        sch = run_controller(prog, stats, planner, D, n_events, n_warmup, shadow=True,
                             plan_memo=memo)
        sch.charges = A._pack(sch.charges, stats.stat_work)
        schedules.append(sch)
    horizon = E.epoch_horizon(prog, stream, [(kind, s.starts, s.plans) for s in schedules])
    out: dict = {}
    for (lab, _, _), sch in zip(labels, schedules):
        ms, cnt, info = E.run_schedule(prog, stream, kind, sch.starts, sch.plans, cache, eopts,
                                       horizon, n_warmup)
        charges = A._unpack(sch.charges, stats.stat_work)
        total = cnt + charges[:n_events]
        keyset = _canonical(ms)
        if ref_matches is None:
            ref_matches = keyset
        elif not np.array_equal(keyset, ref_matches):
            consistent = False
        after = slice(n_warmup, n_events)
        out[lab] = {
            "n_serv": int(n_events - n_warmup),
            "total_sums": [int(x) for x in total[after].sum(axis=0)],
            "adapt_sums": [int(charges[after, c].sum())
                           for c in (C.DECISION_CHECK, C.PLAN_GEN, C.PLANNER_STEP)],
            "repl": int(sch.n_replacements), "calls": int(sch.n_planner_calls),
            "fn": (sch.false_neg / sch.n_better_available if sch.n_better_available else 0.0),
            "fp": int(sch.false_pos), "matches": int(len(ms)),
            "overlap": int(info["overlap_events"]),
            "dup_sums": [int(x) for x in info["dup_sums"]],
            "plan_events": int(info["live"][after].sum())}
    return out, consistent, {}


BASE = {"window": 1.0, "w_s": 3.0, "n_events": 2500, "n_types": 12, "total_rate": 500.0,
        "check_every": 10, "n_samples": 2, "K": 1, "and_window": 0.25, "kleene_window": 0.1,
        "engine_cap": 2_000_000, "t_values": [0.1, 1.0], "d_values": [0.0, 0.3],
        "headroom_epoch": 400}


@pytest.mark.parametrize("dataset,planner,pset,n", [
    ("traffic", "greedy", "seq", 4), ("stocks", "greedy", "or", 3),
    ("traffic", "greedy", "and", 3), ("traffic", "zstream", "neg", 4),
    ("stocks", "zstream", "kleene", 3), ("traffic", "zstream", "or", 3),
    ("stocks", "zstream", "and", 4)])
def test_point_work_equals_the_straightforward_evaluation(monkeypatch, dataset, planner, pset,
                                                          n):
    params = dict(BASE, dataset=dataset, planner=planner, pset=pset, n=n)
    lean = A._compute_work(params, 3)
    assert lean["status"] == "ok"
    monkeypatch.setattr(A, "_run_methods", reference_run_methods)
    ref = A._compute_work(params, 3)
    assert lean == ref
    assert any(m["repl"] > 0 for m in lean["methods"].values())   # epochs were replaced


TREE_OPTS = dict(max_events=50, policies=("skip-till-any-match",), windows=("time", "count"),
                 n_types=(2, 3), max_len=4, max_preds=2, kleene=True, negation=True,
                 and_or=True)
OR_AND = dict(max_events=60, policies=("skip-till-any-match",), windows=("time", "count"),
              n_types=(2, 3), max_len=4, max_preds=2, simple_sequence=False, and_or=True,
              kleene=False, negation=False)


@pytest.mark.parametrize("kind", ["order", "tree"])
def test_random_schedules_sum_like_run_schedule(kind, monkeypatch):
    """Random schedules over random patterns: every sum, count and the consistency verdict of
    ``evaluate_methods`` equal those built from ``run_schedule``'s dense outputs (with the
    chain, many epochs are taken from a longer run of their plan: ``_derive_from_masters``)."""
    from sim.studies.adaptive import runs as R
    derived = []
    real = R._derive_from_masters

    def spy(need, conv):
        d, ends = real(need, conv)
        derived.append(len(d))
        return d, ends

    monkeypatch.setattr(R, "_derive_from_masters", spy)
    rng = np.random.default_rng(27)
    checked = 0
    for pattern, stream in small_cases(2027, 25, **(TREE_OPTS if kind == "tree" else OR_AND)):
        prog = compile_pattern(pattern, stream.schema)
        n = len(stream)
        if n < 4:
            continue
        if kind == "tree":
            pool = [tuple(_random_tree(rng, list(g)) for g in planning_groups(prog))
                    for _ in range(3)]
        else:
            pool = [tuple(rng.permutation(list(prog.positive_vars)).tolist()) for _ in range(3)]
        scheds = random_schedules(rng, n, pool, 5)
        scheds.append(([0], [pool[0]]))                # a whole-stream run from event 0
        warm = int(rng.integers(0, n))
        bounds = [(lo, min(n, lo + 7)) for lo in range(warm, n, 7)]
        evals, consistent, zero = evaluate_methods(prog, stream, kind, scheds, warm, None,
                                                   bounds)
        hor = E.epoch_horizon(prog, stream, [(kind, s, p) for s, p in scheds])
        cache: dict = {}
        keysets = []
        for (s, p), ev in zip(scheds, evals):
            ms, cnt, info = E.run_schedule(prog, stream, kind, s, p, cache, None, hor, warm)
            np.testing.assert_array_equal(ev["eng_sums"], cnt[warm:n].sum(axis=0))
            np.testing.assert_array_equal(ev["dup_sums"], info["dup_sums"])
            assert ev["plan_events"] == int(info["live"][warm:n].sum())
            assert ev["overlap"] == info["overlap_events"]
            assert ev["matches"] == len(ms)
            keysets.append(_canonical(ms))
        assert consistent == all(np.array_equal(k, keysets[0]) for k in keysets)
        if E.prefix_sharing(prog):
            run = cache[(kind, pool[0], 0)]
            cs = np.vstack([np.zeros((1, C.N_COUNTERS), np.int64), np.cumsum(run[2], axis=0)])
            np.testing.assert_array_equal(zero[pool[0]],
                                          np.stack([cs[h] - cs[lo] for lo, h in bounds])
                                          if bounds else np.zeros((0, C.N_COUNTERS)))
        else:
            assert zero == {}
        checked += 1
    assert checked >= 10
    assert (sum(derived) > 0) == (kind == "order")       # trees never converge


def test_chain_runs_from_two_starts_converge_at_c1():
    """``convergence_row``: a lazy chain run of one order from ``lo2`` and one from an earlier
    ``lo1`` have equal counter rows from ``c1(lo2)`` on and detect the same matches from
    ``c1 - 1`` on (time and count windows, SEQ / OR / AND); one row earlier they may differ."""
    from sim.studies.adaptive.runs import convergence_row
    rng = np.random.default_rng(14)
    checked = differ_before = 0
    for pattern, stream in small_cases(1414, 150, **dict(OR_AND, max_events=90)):
        prog = compile_pattern(pattern, stream.schema)
        n = len(stream)
        conv = convergence_row(prog, stream, "order")
        if n < 8 or conv is None:
            continue
        lo1 = int(rng.integers(0, n // 2))
        lo2 = int(rng.integers(lo1 + 1, n - 2))
        c1 = conv(lo2)
        if c1 >= n:
            continue
        order = tuple(rng.permutation(list(prog.positive_vars)).tolist())
        r1 = E.run_plan(prog, stream.slice(lo1, n), "order", order, {})
        r2 = E.run_plan(prog, stream.slice(lo2, n), "order", order, {})
        c_1, c_2 = np.asarray(r1.counters), np.asarray(r2.counters)
        np.testing.assert_array_equal(c_1[c1 - lo1:], c_2[c1 - lo2:])
        differ_before += not np.array_equal(c_1[c1 - 1 - lo1:], c_2[c1 - 1 - lo2:])

        def late(r, lo):
            pos = np.where(r.matches.pos >= 0, r.matches.pos + lo, -1)
            return sorted(map(tuple, pos[r.matches.detect + lo >= c1 - 1].tolist()))
        assert late(r1, lo1) == late(r2, lo2)
        checked += 1
    assert checked >= 40 and differ_before >= 1


def test_canonical_set_is_a_multiset_form():
    """Equal results exactly for equal row multisets: permutations agree, any changed row
    differs, and forced hash ties (rows equal up to the hash) still compare exactly."""
    from engines.matches import canonical_rows
    from sim.studies.adaptive import runs as R
    rng = np.random.default_rng(5)
    for cols, hi, last_lo in ((3, 50, -1), (12, 100_000, -1), (20, 2**40, -1),
                              (12, 100_000, 0), (19, 3000, 0)):
        rows = rng.integers(-1, hi, (400, cols))
        rows[:, -1] = np.maximum(rows[:, -1], last_lo)          # >= 0: the key leads with it
        rows[::7] = rows[3]                                     # duplicates
        a = R.canonical_set(rows)
        perm = rows[rng.permutation(len(rows))]
        assert np.array_equal(a, R.canonical_set(perm))
        assert R.RowMultiset(rows) == R.RowMultiset(perm)
        for col in (cols - 1, cols // 2):                       # one changed value
            other = rows.copy()
            other[11, col] += 1
            assert not np.array_equal(a, R.canonical_set(other))
            assert not R.RowMultiset(rows) == R.RowMultiset(other)
        assert not R.RowMultiset(rows) == R.RowMultiset(rows[1:])
        assert np.array_equal(canonical_rows(rows), canonical_rows(rows[::-1]))
    rows = rng.integers(0, 10**6, (50, 9))
    rows[:, -1] = 7            # the key's top bits: the last column, equal everywhere
    real = R._MIX
    try:
        R._MIX = np.uint64(0)                                   # every key collides
        a = R.canonical_set(rows)
        assert np.array_equal(a, canonical_rows(rows))
        assert np.array_equal(a, R.canonical_set(rows[::-1]))
        assert R.RowMultiset(rows) == R.RowMultiset(rows[::-1])
        other = rows.copy()
        other[5, 2] += 1
        assert not R.RowMultiset(rows) == R.RowMultiset(other)
    finally:
        R._MIX = real


def _pilot_events(n: int) -> int:
    from sim.studies.adaptive import runs as R
    return min(n, R.SPLIT_PILOT_EVENTS)


@pytest.mark.parametrize("dataset,seed", [("stocks", 1), ("traffic", 2), ("stocks", 3)])
def test_or_of_independent_alternatives_is_evaluated_per_alternative(dataset, seed, monkeypatch):
    """Greedy OR of independent alternatives: ``evaluate_methods`` evaluates each alternative
    with its sub-plans and sums them; every sum, count, the consistency verdict and the
    zero-start sums equal the whole-plan evaluation's, with fewer events run; an alternative
    over its share of the capacity cap sends the evaluation back to whole plans (same result)."""
    from test_branch_runs import _case, _plans
    from engines.planners.adaptive.branch_runs import independent_alternatives
    from sim.studies.adaptive import runs as R
    st, prog = _case(dataset, seed)
    n = len(st)
    rng = np.random.default_rng(seed)
    pool = _plans(prog, "order", rng, 4)
    scheds = random_schedules(rng, n, pool, 8) + [([0], [pool[0]])]
    bounds = [(lo, min(n, lo + 300)) for lo in range(150, n, 300)]
    events = {"alt": 0, "whole": 0}
    real_run = R.run_plan

    def counting(program, sub, kind, plan, opts):
        events["alt" if program is not prog else "whole"] += len(sub)
        return real_run(program, sub, kind, plan, opts)

    monkeypatch.setattr(R, "run_plan", counting)
    # the choice is about time only (a pilot run's work per event, the planned runs' price):
    # below the work threshold the plans run whole ...
    monkeypatch.setattr(R, "SPLIT_MIN_WORK", float("inf"))
    assert evaluate_methods(prog, st, "order", scheds[:1], 150, None, bounds)
    assert events["alt"] == 0 and events["whole"] > 0
    # ... and split when it is expected to pay; forced here
    monkeypatch.setattr(R, "SPLIT_MIN_WORK", 0.0)
    monkeypatch.setattr(R, "_split_pays", lambda *a: True)
    events["alt"] = events["whole"] = 0
    split = evaluate_methods(prog, st, "order", scheds, 150, None, bounds)
    assert events["alt"] > 0 and events["whole"] == _pilot_events(n)
    slices = R._schedule_slices(prog, st, scheds)
    whole = R._evaluate(prog, st, "order", scheds, slices, 150, None, bounds, derive=True)
    assert 0 < events["alt"] < 3 * events["whole"]
    for a, b in zip(split[0], whole[0]):
        np.testing.assert_array_equal(a["eng_sums"], b["eng_sums"])
        assert {k: a[k] for k in ("plan_events", "overlap", "matches")} == \
            {k: b[k] for k in ("plan_events", "overlap", "matches")}
    assert split[1] == whole[1]
    assert split[2].keys() == whole[2].keys() and pool[0] in split[2]
    for plan, z in whole[2].items():
        np.testing.assert_array_equal(split[2][plan], z)
    # an alternative over its share of the capacity cap: the whole plans are evaluated instead
    from engines.errors import CapacityError
    with pytest.raises(CapacityError):
        R._evaluate_by_alternatives(prog, independent_alternatives(prog), st, "order", scheds,
                                    slices, 150,
                                    {"max_partial_matches": 2}, bounds)

    def over(*a, **k):
        raise CapacityError("an alternative over its share")

    monkeypatch.setattr(R, "_evaluate_by_alternatives", over)
    events["alt"] = events["whole"] = 0
    capped = evaluate_methods(prog, st, "order", scheds, 150, None, bounds)
    assert events["whole"] > 0 and events["alt"] == 0
    for a, b in zip(capped[0], whole[0]):
        np.testing.assert_array_equal(a["eng_sums"], b["eng_sums"])

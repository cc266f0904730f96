"""The PVLDB'18 adaptation pass and epoch sums, computed faster, give the same numbers:

* the statistics kernel (engines/planners/adaptive/stats.py: one queue per event type, expiry
  skipped while nothing can expire) equals the frozen one-queue-per-variable kernel
  (engines/planners/adaptive/stats_ref.py) bit for bit: per-event work, counts, selectivities;
* ``unique_rows`` (engines/planners/adaptive/rowkeys.py) equals ``np.unique(axis=0)``;
* ``InvariantDecision.keep``'s K = 1 shortcut equals the sort it stands for;
* a chain run's counters as prefix sums at the epoch bounds (``counter_offsets``) give the
  epoch sums of the per-event matrix (``plan_epoch_sums``, ``epoch_sums_from_prefix``)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.evaluators.lazy_nfa import prefix_sums, run_chain
from engines.pattern import parse_pattern
from engines.planners.adaptive import stats as S
from engines.planners.adaptive.decision import InvariantDecision
from engines.planners.adaptive.headroom import (counter_epoch_sums, epoch_bounds, epoch_offsets,
                                                epoch_sums_from_prefix, plan_epoch_sums)
from engines.planners.adaptive.rowkeys import unique_rows
from engines.planners.adaptive.stats_ref import stats_kernel_ref
from workloads.adaptive import make_stream, pattern_text

N = 4000
SHARED = ("PATTERN SEQ(S0 a, S1 b, S0 c, S2 d) WHERE a.diff < b.diff AND b.diff < c.diff "
          "AND c.diff > d.diff AND a.diff > 0 WITHIN 1 seconds")


def _stats_both(monkeypatch, prog, st, pos, w_s, n_buckets, n_samples):
    """``compute_stats`` with its kernel's outputs compared to the reference kernel's on the
    same arguments; returns the number of kernel calls compared."""
    calls = []
    fast = S._stats_kernel

    def both(*args):
        got = fast(*args)
        want = stats_kernel_ref(*args[:17])
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            assert np.array_equal(g, w)
        calls.append(1)
        return got

    monkeypatch.setattr(S, "_stats_kernel", both)
    S.compute_stats(prog, st, pos, w_s, n_buckets=n_buckets, n_samples=n_samples)
    return len(calls)


@pytest.mark.slow      # a 100k-event run per case against the reference kernel
@pytest.mark.parametrize("dataset,pset,n", [("traffic", "seq", 8), ("stocks", "seq", 5),
                                             ("stocks", "and", 4), ("traffic", "or", 3),
                                             ("stocks", "neg", 4), ("stocks", "kleene", 4)])
@pytest.mark.parametrize("every,w_s,n_buckets,n_samples", [(10, 3.0, 8, 2), (1, 0.7, 3, 4)])
def test_stats_kernel_equals_reference(monkeypatch, dataset, pset, n, every, w_s, n_buckets,
                                       n_samples):
    st = make_stream(dataset, N, 2, n_types=12, total_rate=500.0)
    prog = compile_pattern(parse_pattern(pattern_text(dataset, pset, n, st.schema.type_names,
                                                      1.0)), st.schema)
    assert _stats_both(monkeypatch, prog, st, S.check_positions(N, every), w_s, n_buckets,
                       n_samples) == 1


@pytest.mark.parametrize("n_types", [3, 6])
def test_stats_kernel_equals_reference_with_variables_sharing_a_type(monkeypatch, n_types):
    st = make_stream("stocks", N, 3, n_types=n_types, total_rate=400.0)
    prog = compile_pattern(parse_pattern(SHARED), st.schema)
    assert prog.var_type[0] == prog.var_type[2]          # a and c share one queue
    assert _stats_both(monkeypatch, prog, st, S.check_positions(N, 7), 2.0, 5, 3) == 1


def test_unique_rows_equals_numpy_unique():
    rng = np.random.default_rng(7)
    cases = [rng.integers(-3, 4, size=(500, 4)), rng.integers(0, 2, size=(300, 1)),
             np.array([list(p) for p in itertools.permutations(range(4))] * 3)[::-1],
             rng.integers(0, 9, size=(1, 6)), np.zeros((0, 3), np.int64),
             rng.integers(-2**62, 2**62, size=(200, 3))]
    for a in cases:
        got_u, got_i = unique_rows(a)
        want_u, want_i = np.unique(a, axis=0, return_inverse=True)
        assert np.array_equal(got_u, want_u)
        assert np.array_equal(got_i, np.asarray(want_i).reshape(-1))
        assert got_i.dtype == np.int64 and got_i.shape == (len(a),)


def test_keep_shortcut_equals_the_sort():
    rng = np.random.default_rng(3)
    D1, DK = InvariantDecision(0.1, 1), InvariantDecision(0.1, 2)
    cases = [[0.0, -0.0, 0.0], [-0.0, 0.0], [1.0, 1.0, 0.5, 0.5], [2.0], [float("nan"), 1.0],
             [1.0, float("nan"), 0.5], [float("inf"), 3.0, float("inf")]]
    cases += [list(rng.integers(0, 4, size=int(rng.integers(1, 8))).astype(float))
              for _ in range(200)]
    cases += [list(np.float64(x) for x in rng.normal(size=5)) for _ in range(50)]
    for m in cases:
        want = sorted(sorted(range(len(m)), key=lambda i: (m[i], i))[:1])
        assert D1.keep(m) == want, m
        assert DK.keep(m) == sorted(sorted(range(len(m)), key=lambda i: (m[i], i))[:2])


@pytest.mark.slow      # a 100k-event run per case against the reference kernel
@pytest.mark.parametrize("dataset,pset,n", [("stocks", "seq", 4), ("traffic", "or", 3),
                                             ("stocks", "kleene", 3), ("stocks", "neg", 3)])
def test_epoch_sums_from_counter_offsets_equal_the_matrix(dataset, pset, n):
    st = make_stream(dataset, 1500, 1, n_types=10, total_rate=200.0)
    prog = compile_pattern(parse_pattern(pattern_text(dataset, pset, n, st.schema.type_names,
                                                      0.5)), st.schema)
    bounds = epoch_bounds(1500, 130, 270)
    plan = tuple(int(v) for v in prog.positive_vars[::-1])
    order = [prog.var_names[v] for v in plan]
    cnt = np.asarray(run_chain(prog, st.slice(0, 1500), order=order).counters)
    want = counter_epoch_sums(cnt, bounds)
    # by hand: each epoch's rows summed
    assert np.array_equal(want, np.stack([cnt[lo:hi].sum(axis=0) for lo, hi in bounds]))
    assert np.array_equal(plan_epoch_sums(prog, st, "order", plan, bounds), want)
    at = epoch_offsets(bounds)
    assert np.array_equal(epoch_sums_from_prefix(prefix_sums(cnt, np.asarray(at)), at, bounds),
                          want)
    with pytest.raises(ValueError):
        epoch_sums_from_prefix(prefix_sums(cnt, np.asarray(at[:-1])), at, bounds)

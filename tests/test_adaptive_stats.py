"""Adaptive statistics (engines/planners/adaptive/stats.py) against a from-scratch brute force."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import streams

from engines.planners.adaptive.stats import check_positions, compute_stats, predicate_structure
from engines.compile import compile_pattern
from engines.pattern import parse_pattern
from engines.predicates import eval_pred

PATTERNS = (
    "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.y >= c.y AND a.x > 1 WITHIN 6 seconds",
    "PATTERN AND(A a, B b, C c) WHERE |a.x - c.x| <= 1 AND b.id = c.id WITHIN 4 seconds",
    "PATTERN SEQ(A a, NOT(B b), C c) WHERE a.x < b.x AND c.y > 2 WITHIN 5 seconds",
)


def _brute(prog, stream, positions, w_s, n_buckets, n_samples):
    """Recompute every snapshot from its definition, without incremental state."""
    V = prog.n_vars
    unary, pair, has = predicate_structure(prog)
    ts, types = stream.ts, stream.types
    width = w_s / n_buckets
    pi = prog.pred_i.astype(np.int64)

    def bucket(i):
        return int(np.floor(ts[i] / width))

    def in_window(i, e):  # event i still in the stats window at the arrival of event e
        return not (ts[i] <= ts[e] - w_s)

    counts, sels = [], []
    for p in positions:
        cnt = np.array([sum(1 for i in range(p + 1) if types[i] == prog.var_type[v]
                            and in_window(i, p)) for v in range(V)])
        sel = np.ones((V, V))
        b = bucket(p)
        for a in range(V):
            for c in range(a, V):
                if not has[a, c]:
                    continue
                tests = passes = 0
                for e in range(p + 1):
                    if not (b - n_buckets < bucket(e) <= b):
                        continue
                    if a == c:
                        if types[e] == prog.var_type[a]:
                            tests += 1
                            passes += all(eval_pred(pi, prog.pred_f, q, stream.attrs, e, e)
                                          for q in np.flatnonzero(unary[a]))
                        continue
                    for j, k in ((a, c), (c, a)):
                        if types[e] != prog.var_type[j]:
                            continue
                        cands = [i for i in range(e) if types[i] == prog.var_type[k]
                                 and in_window(i, e)][-n_samples:]
                        for s in cands:
                            ok = True
                            for q in np.flatnonzero(pair[j, k]):
                                e1, e2 = (e, s) if pi[q, 2] == j else (s, e)
                                ok = ok and eval_pred(pi, prog.pred_f, q, stream.attrs, e1, e2)
                            tests += 1
                            passes += ok
                if tests:
                    sel[a, c] = sel[c, a] = passes / tests
        counts.append(cnt)
        sels.append(sel)
    return (np.array(counts, dtype=np.int64).reshape(len(positions), V),
            np.array(sels, dtype=np.float64).reshape(len(positions), V, V))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(stream=streams(n_types=3, max_events=70, min_events=1), pat=st.sampled_from(PATTERNS),
       w_s=st.sampled_from([3.0, 7.5, 20.0]), n_buckets=st.sampled_from([1, 3, 8]),
       n_samples=st.sampled_from([1, 2, 5]), every=st.sampled_from([1, 4]))
def test_stats_equal_brute_force(stream, pat, w_s, n_buckets, n_samples, every):
    prog = compile_pattern(parse_pattern(pat), stream.schema)
    pos = check_positions(len(stream), every)
    got = compute_stats(prog, stream, pos, w_s, n_buckets, n_samples)
    cnt, sel = _brute(prog, stream, pos, w_s, n_buckets, n_samples)
    np.testing.assert_array_equal(got.count, cnt)
    np.testing.assert_allclose(got.sel, sel, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.rate_w, cnt / w_s * prog.window)
    assert got.stat_work.shape == (len(stream),) and got.stat_work.min() >= 1


def test_stats_follow_a_rate_change():
    """A type whose rate drops tenfold is seen dropping within one statistics window."""
    rng = np.random.default_rng(3)
    n = 4000
    ts = np.arange(n, dtype=float) * 0.01
    p_a = np.where(np.arange(n) < n // 2, 0.5, 0.05)
    types = np.where(rng.random(n) < p_a, 0, 1).astype(np.int32)
    attrs = rng.integers(0, 5, (n, 1)).astype(float)
    from engines.stream import EventStream
    stream = EventStream.from_arrays(types, ts, attrs, ("A", "B"), ("x",))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x < b.x WITHIN 1 seconds"),
                           stream.schema)
    got = compute_stats(prog, stream, np.array([n // 2 - 1, n - 1]), 5.0)
    share = got.count[:, 0] / got.count.sum(axis=1)
    assert 0.4 < share[0] < 0.6 and 0.02 < share[1] < 0.1
    assert math.isclose(got.sel[1, 0, 1], got.sel[1, 1, 0])
    assert 0.2 < got.sel[1, 0, 1] < 0.6      # P(a.x < b.x) = 10/25 for uniform 0..4

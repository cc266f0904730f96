"""Generic-study claims (``sim/studies/generic/claims.py``, used by ``experiments/examples``) on
small synthetic result tables built to PASS and built to FAIL, in the style of
``tests/test_claims.py``'s ``CASES``: both verdicts asserted, the numbers of ``measured``
checked, the input never edited, and empty / all-error tables FAIL without raising.

Rows carry exactly the columns the claims read: ``error``, ``engine``, the grid column
(``rate``), the stream identity (``stream_seed``, ``generator``, ``n_events``), ``matches``,
``offered_load`` and the compared metric (``latency_mean``, ``pred_eval``).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import sim.studies.generic.claims as S
from claim_cases import case_params, check_claim_case, configured_claims
from sim.experiments.claims import ClaimResult

REPO = Path(__file__).resolve().parents[1]
EAGER, LAZY = "hybrid plan=a,b,c,d,e/", "hybrid plan=/e,d,c,b,a"


def _rows(spec, junk=True):
    """``spec``: (engine, rate, metrics dict) triples; stream identity fixed; plus a crashed
    point with absurd numbers every claim must ignore."""
    rows = [{"error": None, "engine": e, "rate": r, "stream_seed": 1, "generator": "apam",
             "n_events": 10000, "matches": 7, "offered_load": 0.5, "latency_mean": 1.0,
             "pred_eval": 100, **m} for e, r, m in spec]
    if junk:
        rows.append({**rows[0], "error": "boom", "matches": 999, "offered_load": 50.0,
                     "latency_mean": 1e9, "pred_eval": 10 ** 9})
    return pd.DataFrame(rows)


def _lat(lo_eager, lo_lazy, hi_eager, hi_lazy):
    """Latency of all-eager / all-lazy at rates 2000 and 20000 (two rows each at 2000: the
    claim compares means)."""
    return _rows([(EAGER, 2000, {"latency_mean": lo_eager - 0.1}),
                  (EAGER, 2000, {"latency_mean": lo_eager + 0.1}),
                  (LAZY, 2000, {"latency_mean": lo_lazy}),
                  (EAGER, 20000, {"latency_mean": hi_eager}),
                  (LAZY, 20000, {"latency_mean": hi_lazy})])


def _matches(m_eager, m_tree, seed2_tree=5):
    """Matches per (engine, stream, rate); stream 2 agrees unless told otherwise."""
    spec = [("eager", r, {"matches": m_eager[i]}) for i, r in enumerate((2000, 20000))]
    spec += [("tree", r, {"matches": m_tree[i]}) for i, r in enumerate((2000, 20000))]
    df = _rows(spec)
    two = _rows([("eager", 2000, {"matches": 5}), ("tree", 2000, {"matches": seed2_tree})],
                junk=False).assign(stream_seed=2)
    return pd.concat([df, two], ignore_index=True)


def _streams(col, values, counts):
    """Two engines on streams that differ only in ``col`` (one value per stream); on stream i
    both report ``counts[i]`` matches (so the engines agree per stream, not across streams)."""
    return pd.concat([_rows([(e, 2000, {"matches": c}) for e in ("eager", "tree")], junk=False)
                      .assign(**{col: v}) for v, c in zip(values, counts)], ignore_index=True)


def _bare(eager, tree):
    """Rows without any stream-identity column (only engine and matches): one stream."""
    return pd.DataFrame({"error": [None, None], "engine": ["eager", "tree"],
                         "matches": [eager, tree]})


def _loads(*rho):
    return _rows([("eager", 1000 * (i + 1), {"offered_load": r}) for i, r in enumerate(rho)])


# name -> list of (call, table, expected verdict, regexes that must occur in `measured`)
CASES = {
    "claim_ratio": [
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, factor=1.0,
                                 at=[2000]),
         _lat(1.0, 2.0, 9.0, 3.0), True,
         [r"^latency_mean hybrid plan=a,b,c,d,e/ / hybrid plan=/e,d,c,b,a: rate=2000: 0\.500 "
          r"\(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, factor=1.0,
                                 at=[2000]),
         _lat(2.4, 2.0, 1.0, 3.0), False, [r"rate=2000: 1\.200 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=LAZY, than=EAGER, factor=1.0,
                                 at=[20000]),
         _lat(1.0, 2.0, 9.0, 3.0), True, [r": rate=20000: 0\.333 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, factor=1.0),
         _lat(1.0, 2.0, 9.0, 3.0), False,
         [r"rate=2000: 0\.500, rate=20000: 3\.000 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, factor=3.0),
         _lat(1.0, 2.0, 9.0, 3.0), True, [r"rate=2000: 0\.500, rate=20000: 3\.000 \(limit 3"]),
        (lambda d: S.claim_ratio(d, metric="pred_eval", better=EAGER, than="eager", factor=1.0),
         _rows([(EAGER, 2000, {"pred_eval": 90}), ("eager", 2000, {"pred_eval": 100}),
                (EAGER, 20000, {"pred_eval": 100}), ("eager", 20000, {"pred_eval": 100})]),
         True, [r"^pred_eval .*: rate=2000: 0\.900, rate=20000: 1\.000 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, metric="pred_eval", better=EAGER, than="eager", factor=1.0),
         _rows([(EAGER, 2000, {"pred_eval": 101}), ("eager", 2000, {"pred_eval": 100})]),
         False, [r"rate=2000: 1\.010"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, at=[5000]),
         _lat(1.0, 2.0, 9.0, 3.0), False, [r"^rate value\(s\) \[5000\] not in results$"]),
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than="tree"),
         _lat(1.0, 2.0, 9.0, 3.0), False, [r"^engine 'tree' not in results \(hybrid"]),
        (lambda d: S.claim_ratio(d, metric="latency_p99", better=EAGER, than=LAZY),
         _lat(1.0, 2.0, 9.0, 3.0), False, [r"^no successful rows with 'latency_p99'$"]),
        # a NaN metric is not "no worse"
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY),
         _lat(1.0, 2.0, 1.0, math.nan), False, [r"rate=20000: nan"]),
        # `at` names rates, so a table without the rate column cannot be checked
        (lambda d: S.claim_ratio(d, metric="latency_mean", better=EAGER, than=LAZY, at=[2000]),
         _lat(1.0, 2.0, 1.0, 3.0).drop(columns="rate"), False,
         [r"^no 'rate' column: cannot check at rate = \[2000\]$"]),
        # cases added after the mutation run (docs/TESTING.md): defaults, no rate column, no
        # error column, the full "not in results" text
        (lambda d: S.claim_ratio(d, better=EAGER, than=LAZY, at=[2000]),
         _lat(1.0, 2.0, 9.0, 3.0), True, [r"^latency_mean .*: rate=2000: 0\.500 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, better=EAGER, than=LAZY, at=[20000]),
         _lat(1.0, 2.0, 4.5, 3.0), False, [r"rate=20000: 1\.500 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d), _lat(1.0, 2.0, 9.0, 3.0), False,
         [r"^engine '' not in results \(hybrid plan=/e,d,c,b,a, hybrid plan=a,b,c,d,e/\)$"]),
        (lambda d: S.claim_ratio(d, better=EAGER), _lat(1.0, 2.0, 9.0, 3.0), False,
         [r"^engine '' not in results \("]),
        (lambda d: S.claim_ratio(d, better=EAGER, than=LAZY),
         _lat(1.0, 2.0, 1.0, 3.0).query("rate == 2000").drop(columns="rate"), True,
         [r"^latency_mean hybrid plan=a,b,c,d,e/ / hybrid plan=/e,d,c,b,a: 0\.500 "
          r"\(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, better=EAGER, than=LAZY),
         _lat(5.0, 2.0, 1.0, 3.0).query("rate == 2000").drop(columns="rate"), False,
         [r": 2\.500 \(limit 1\.0\)$"]),
        (lambda d: S.claim_ratio(d, better=EAGER, than=LAZY, at=[2000]),
         _lat(1.0, 2.0, 9.0, 3.0, ).query("error.isna()").drop(columns="error"), True,
         [r"rate=2000: 0\.500"]),
    ],
    "claim_same_matches": [
        (lambda d: S.claim_same_matches(d), _matches((7, 7), (7, 7)), True,
         [r"^0 stream\(s\) where engines disagree; total matches eager: 19, tree: 19$"]),
        (lambda d: S.claim_same_matches(d), _matches((7, 7), (7, 7), seed2_tree=6), False,
         [r"^1 stream\(s\) where engines disagree; total matches eager: 19, tree: 20$"]),
        # the engines agree at the first rate but not at the second one
        (lambda d: S.claim_same_matches(d), _matches((7, 8), (7, 7)), False,
         [r"^1 stream\(s\) where engines disagree; total matches eager: 20, tree: 19$"]),
        # cases added after the mutation run (docs/TESTING.md): every stream-identity column
        # separates streams (different counts on different streams are no disagreement)
        *[(lambda d: S.claim_same_matches(d), _streams(col, vals, (3, 9)), True,
           [r"^0 stream\(s\) where engines disagree; total matches eager: 12, tree: 12$"])
          for col, vals in (("generator", ("apam", "uniform")), ("data", ("a.csv", "b.csv")),
                            ("pattern", ("SEQ(A a, B b)", "SEQ(B b, A a)")),
                            ("pattern_file", ("p1.cep", "p2.cep")), ("n_events", (100, 200)))],
        # ... and so do the parameters filling a pattern's {placeholders}
        (lambda d: S.claim_same_matches(d),
         _streams("window", (10, 20), (3, 9)).assign(pattern="SEQ(A a, B b) WITHIN {window}"),
         True, [r"^0 stream\(s\) where engines disagree; total matches eager: 12, tree: 12$"]),
        (lambda d: S.claim_same_matches(d),
         _streams("window", (10, 20), (3, 9)).assign(pattern="SEQ(A a, B b) WITHIN 30"),
         False, [r"^1 stream\(s\) where engines disagree"]),
        # `by` names one more column that separates streams
        (lambda d: S.claim_same_matches(d, by="variant"), _streams("variant", (1, 2), (3, 9)),
         True, [r"^0 stream\(s\)"]),
        (lambda d: S.claim_same_matches(d), _streams("variant", (1, 2), (3, 9)), False,
         [r"^1 stream\(s\) where engines disagree; total matches eager: 12, tree: 12$"]),
        # a stream with a missing identity value (NaN data) is still checked
        (lambda d: S.claim_same_matches(d),
         _streams("data", ("a.csv", None), (3, 9)).assign(
             matches=lambda t: t["matches"].where(t.index != 3, 8)), False,
         [r"^1 stream\(s\) where engines disagree; total matches eager: 12, tree: 11$"]),
        # a missing count is a disagreement, not "no opinion"
        (lambda d: S.claim_same_matches(d), _matches((7, 7), (7, math.nan)), False,
         [r"^1 stream\(s\) where engines disagree"]),
        # no identity column at all: the whole table is one stream
        (lambda d: S.claim_same_matches(d), _bare(4, 4), True,
         [r"^0 stream\(s\) where engines disagree; total matches eager: 4, tree: 4$"]),
        (lambda d: S.claim_same_matches(d), _bare(4, 5), False,
         [r"^1 stream\(s\) where engines disagree; total matches eager: 4, tree: 5$"]),
        (lambda d: S.claim_same_matches(d), _bare(4, math.nan), False, [r"^1 stream\(s\)"]),
        (lambda d: S.claim_same_matches(d), _bare(4, 4).drop(columns="error"), True,
         [r"^0 stream\(s\)"]),
    ],
    "claim_all_stable": [
        (lambda d: S.claim_all_stable(d), _loads(0.2, 0.9, 0.99), True,
         [r"^0 of 3 points with ρ >= 1 \(max ρ = 0\.990\)$"]),
        (lambda d: S.claim_all_stable(d), _loads(0.2, 1.0, 0.5), False,
         [r"^1 of 3 points with ρ >= 1 \(max ρ = 1\.000\)$"]),
        (lambda d: S.claim_all_stable(d), _loads(0.2, math.nan), False, [r"^1 of 2 points"]),
    ],
}


@pytest.mark.parametrize("name, i", case_params(CASES))
def test_claim_case(name, i):
    call, df, want, patterns = CASES[name][i]
    check_claim_case(call, df, want, patterns, name)


def test_every_example_claim_has_pass_and_fail_cases():
    conf = configured_claims(REPO / "experiments/examples", "generic")
    assert conf, "no example configs found"
    for name in conf:
        assert name in CASES, f"generic:{name} has no cases here"
        assert {w for _, _, w, _ in CASES[name]} == {True, False}, name


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("kind", ["empty", "all_error"])
def test_claim_fails_without_rows(name, kind):
    """No successful row: every claim (with each config's own arguments) FAILS, no raise."""
    _, df, _, _ = next(c for c in CASES[name] if c[2])
    table = df.iloc[:0].copy() if kind == "empty" else df.assign(error="boom")
    before = table.copy()
    for args in configured_claims(REPO / "experiments/examples", "generic")[name]:
        res = getattr(S, name)(table, **args)
        assert res.passed is False, f"{name}({args}) PASSES on a {kind} table: {res.measured}"
        assert re.match(r"no successful rows", res.measured), res.measured
    pd.testing.assert_frame_equal(table, before)

"""Correlation operands centred once per event (engines/corr_prep.py): the same correlations,
matches and counters bit for bit as the per-pair centring of ``engines.predicates.pearson``."""
from __future__ import annotations

import math

import numpy as np
import pytest
from strategies import GENERATED_PATTERN_WARNINGS, small_cases

from engines.compile import PI_C1, PI_C2, PI_KIND, PI_VLEN, PK_CORR, compile_pattern
from engines.corr_prep import corr_operands, prepare_corr
from engines.errors import CepsimInputError
from engines.predicates import pearson, pearson_centred
from engines.registry import get_engine, run_engine
from engines.stream import EventStream
from workloads import debs15
from workloads.stocks import stock_stream

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)


def _vector_stream(rows: list[list[float]]) -> EventStream:
    """Types A, B alternating; one scalar ``x`` and a vector ``h`` of len(rows[0]) values."""
    n = len(rows)
    vl = len(rows[0])
    attrs = np.array([[float(i)] + list(r) for i, r in enumerate(rows)])
    return EventStream.from_arrays(np.arange(n) % 2, np.arange(n, dtype=float), attrs, ["A", "B"],
                                   ["x"] + [f"h[{k}]" for k in range(vl)])


def _program(text: str, stream: EventStream):
    from engines.pattern import parse_pattern
    return compile_pattern(parse_pattern(text), stream.schema)


def test_centred_block_by_hand():
    """One event's block: its values minus their mean, then their sum of squares."""
    st = _vector_stream([[1.0, 2.0, 6.0], [4.0, 4.0, 4.0]])
    prog, pst = prepare_corr(_program("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0", st), st)
    (row,) = prog.pred_i
    assert row[PI_VLEN] == -3 and row[PI_C1] == row[PI_C2] == 4     # after x, h[0..2]
    np.testing.assert_array_equal(pst.attrs[0, 4:], [-2.0, -1.0, 3.0, 14.0])
    np.testing.assert_array_equal(pst.attrs[1, 4:], [0.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(pst.attrs[:, :4], st.attrs)


def test_centred_pearson_equals_pearson_bit_for_bit():
    rng = np.random.default_rng(11)
    for n in (2, 3, 7, 20):
        a = rng.normal(size=(40, n)) * rng.choice([1e-3, 1.0, 1e6], size=(40, 1))
        a[0] = 5.0                                   # zero variance: NaN on both paths
        st = _vector_stream([list(r) for r in a])
        prog = _program("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0", st)
        pp, pst = prepare_corr(prog, st)
        c = int(pp.pred_i[0, PI_C1])
        for e1 in range(40):
            for e2 in range(40):
                want = pearson(st.attrs, e1, 1, e2, 1, n)
                got = pearson_centred(pst.attrs, e1, c, e2, c, n)
                assert (math.isnan(want) and math.isnan(got)) or \
                    np.float64(want).tobytes() == np.float64(got).tobytes()


def test_operands_shared_and_plain_programs_unchanged():
    st = _vector_stream([[1.0, 2.0], [3.0, 1.0], [0.0, 5.0]])
    prog = _program("PATTERN SEQ(A a, B b, A c) WHERE corr(a.h, b.h) > 0 AND corr(b.h, c.h) < 0.5",
                    st)
    assert corr_operands(prog) == [(1, 2)]           # one block serves both predicates
    pp, pst = prepare_corr(prog, st)
    assert pst.attrs.shape[1] == st.attrs.shape[1] + 3
    assert all(r[PI_VLEN] == -2 for r in pp.pred_i if r[PI_KIND] == PK_CORR)
    assert prepare_corr(prog, st)[0] is pp           # memoized per program
    plain = _program("PATTERN SEQ(A a, B b) WHERE a.x < b.x", st)
    assert prepare_corr(plain, st) == (plain, st)


def test_prepared_stream_kept_while_the_stream_lives_and_freed_with_it():
    import gc
    import weakref
    st = _vector_stream([[1.0, 2.0], [3.0, 1.0], [0.0, 5.0]])
    prog = _program("PATTERN SEQ(A a, B b) WHERE corr(a.h, b.h) > 0", st)
    first = prepare_corr(prog, st)[1]
    assert prepare_corr(prog, st)[1] is first        # centred once per stream
    gone = weakref.ref(first)
    del first, st
    gc.collect()
    assert gone() is None


def _same_result(name: str, prog, stream) -> int:
    """``run_engine`` (centred operands) against the engine on the plain program: every output."""
    try:
        plain = get_engine(name)(prog, stream)
    except CepsimInputError:
        return -1                                    # the engine does not run this pattern
    got = run_engine(name, prog, stream)
    assert got.matches.keys() == plain.matches.keys()           # same matches, same order
    np.testing.assert_array_equal(got.matches.detect, plain.matches.detect)
    np.testing.assert_array_equal(got.counters, plain.counters)
    assert (got.info or {}).keys() == (plain.info or {}).keys()
    return len(plain.matches)


@pytest.mark.parametrize("name", ["eager", "chain", "tree", "ztree", "sase"])   # SASE runs ~1/4
def test_engines_same_on_generated_correlation_patterns(name):
    cases = small_cases(4711, 80, max_events=50, kleene=False, negation=False,
                        pred_kinds=("corr",), policies=("skip-till-any-match",))
    ran = matched = 0
    for pattern, stream in cases:
        prog = compile_pattern(pattern, stream.schema)
        if not corr_operands(prog):
            continue
        got = _same_result(name, prog, stream)
        ran += got >= 0
        matched += got > 0
    assert ran >= 10 and matched >= 5


@pytest.mark.parametrize("name", ["eager", "chain", "tree", "hybrid"])
def test_debs15_query_same(name):
    st = stock_stream(1200, 5, f_c=0.3)
    prog = debs15.build_program(st.schema, "a,b,c", threshold=0.3)
    assert _same_result(name, prog, st) > 0

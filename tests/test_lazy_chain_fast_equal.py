"""The lazy chain kernel (engines/evaluators/lazy_chain.py) against the frozen general kernel it
replaces for the chain (engines.evaluators.lazy_nfa.general_kernel): every output compared exactly --
counter matrix, match rows, detection positions, peak transient instances, routing checks,
status and the event at which a cap stopped the run -- on seeded streams for the chain shapes
the configs run (the adaptive SEQ / AND / OR patterns of the stocks and traffic workloads, n = 3
to 8, several orders and stream slices; the DEBS'15 a, b, c correlation query in its sequences
and all six chain orders) and on generated patterns of every predicate kind, window kind and
AND / OR structure.  Larger cases are marked slow."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from strategies import GENERATED_PATTERN_WARNINGS, small_cases

from engines import counters as C
from engines.compile import compile_pattern
from engines.evaluators import lazy_chain as LC
from engines.evaluators.lazy_negkleene import has_neg_or_kleene
from engines.errors import CepsimInputError
from engines.evaluators.lazy_nfa import (ROUTE_FIXED, chain_general_tables, kernel_outputs,
                                         run_chain)
from engines.pattern import parse_pattern
from engines.stream import EventStream
from workloads import debs15
from workloads.adaptive import make_stream, pattern_text
from workloads.stocks import stock_stream

pytestmark = pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS)

NAMES = ("counters", "match rows", "detect", "peak", "routing checks", "status", "event")


def _check(prog, stream, ids, caps=(5_000_000, 20_000_000)) -> tuple:
    """Both kernels on one run; asserts every output equal (dtype, shape, values); returns the
    reference's outputs."""
    ref = kernel_outputs(prog, stream, ROUTE_FIXED, ids, *caps, reference=True)
    new = kernel_outputs(prog, stream, ROUTE_FIXED, ids, *caps)
    assert len(ref) == len(new) == len(NAMES)
    for name, x, y in zip(NAMES, ref, new):
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, (name, ids)
            if not np.array_equal(x, y):
                bad = np.argwhere(x != y)[:3]
                pytest.fail(f"{name} differ at {bad.tolist()} (order {ids}, {len(stream)} "
                            f"events)")
        else:
            assert x == y, (name, ids, x, y)
    if ref[5] == LC.ST_OK:   # the same run with the counters summed at offsets in the kernel
        n = len(stream)
        offs = np.array(sorted({0, n // 3, n // 2, n, n + 5}), dtype=np.int64)
        sums = kernel_outputs(prog, stream, ROUTE_FIXED, ids, *caps, offsets=offs)
        rows = ref[0][:n]
        want = np.array([rows[:min(o, n)].sum(0) for o in offs], dtype=np.int64)
        assert np.array_equal(sums[0], want), ("offsets", ids)
        for x, y in zip(ref[1:], sums[1:]):
            assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
    return ref


def _orders(prog, k: int, seed: int) -> list[list[int]]:
    """The query order, its reverse and up to ``k`` more distinct permutations (seeded)."""
    pos = [int(v) for v in prog.positive_vars]
    out = [pos, pos[::-1]]
    rng = np.random.default_rng(seed)
    for _ in range(4 * k):
        if len(out) >= k + 2:
            break
        o = [int(v) for v in rng.permutation(pos)]
        if o not in out:
            out.append(o)
    return out


def _adaptive_runs(dataset: str, pset: str, n: int, n_events: int, n_orders: int,
                   slices: bool) -> dict:
    st = make_stream(dataset, n_events, 3 + n, n_types=24, total_rate=100.0)
    prog = compile_pattern(parse_pattern(pattern_text(dataset, pset, n, st.schema.type_names,
                                                      1.0)), st.schema)
    tot = np.zeros(C.N_COUNTERS, np.int64)
    for i, ids in enumerate(_orders(prog, n_orders, n)):
        parts = [st]
        if slices:       # the adaptive epochs run slices of the stream
            cut = n_events // 3 + i
            parts += [st.slice(cut, n_events), st.slice(cut // 2, 2 * cut)]
        for s in parts:
            tot += _check(prog, s, ids)[0].sum(0)
    return {"runs": len(parts) * (i + 1), "counters": tot}


@pytest.mark.slow      # whole 100k-event streams against the general kernel
@pytest.mark.parametrize("dataset", ["stocks", "traffic"])
@pytest.mark.parametrize("pset", ["seq", "and", "or"])
@pytest.mark.parametrize("n", [3, 4])
def test_adaptive_shapes(dataset, pset, n):
    got = _adaptive_runs(dataset, pset, n, 3000, 3, slices=True)
    assert got["counters"][C.EDGE_EVAL] > 0 and got["counters"][C.PRED_EVAL] > 0


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["stocks", "traffic"])
@pytest.mark.parametrize("pset,n", [(p, n) for p in ("seq", "and", "or") for n in (5, 6, 7, 8)
                                    if p != "and" or n <= 6])   # AND of 7-8: 5040+ branches
def test_adaptive_shapes_large(dataset, pset, n):
    got = _adaptive_runs(dataset, pset, n, 20_000, 4, slices=True)
    assert got["counters"][C.EDGE_EVAL] > 0


@pytest.mark.parametrize("sequence", ["a,b,c", "c,b,a", "a,c,b"])
def test_debs15_correlation_chains(sequence):
    """The DEBS'15 query (corr(a, b) > T, corr(b, c) > T) in each sequence, all six orders."""
    st = stock_stream(1500, 5, f_c=0.3)
    prog = debs15.build_program(st.schema, sequence, threshold=0.3)
    matches = 0
    for ids in itertools.permutations([int(v) for v in prog.positive_vars]):
        matches += len(_check(prog, st, list(ids))[2])
    assert matches > 0


def test_generated_patterns_every_predicate_kind():
    """Generated patterns without NOT / Kleene (comparisons with and without a constant,
    |x - y|, correlations, a variable against itself; time, count and no windows; AND / OR),
    four orders each.  Every predicate entry kind of ``lazy_chain`` is met."""
    cases = small_cases(5202, 120, max_events=60, kleene=False, negation=False,
                        policies=("skip-till-any-match",), windows=("time", "count", "none"))
    codes: set[int] = set()
    matches = 0
    runs = 0
    for pattern, stream in cases:
        prog = compile_pattern(pattern, stream.schema)
        if has_neg_or_kleene(prog):
            continue
        t = chain_general_tables(prog, ROUTE_FIXED, None)
        for ids in _orders(prog, 2, len(stream)):
            ref = _check(prog, stream, ids)
            matches += len(ref[2])
            runs += 1
            ft = LC.chain_tables(t[10], prog.pred_f, *t[:5],
                                 chain_general_tables(prog, ROUTE_FIXED, ids)[5])
            pe_code, pe_hk, pe_n = ft[4], ft[5], ft[15]
            for b, d in zip(*np.nonzero(pe_n)):
                codes.update((int(c), int(h)) for c, h in zip(pe_code[b, d, :pe_n[b, d]],
                                                              pe_hk[b, d, :pe_n[b, d]]))
    assert runs > 300 and matches > 0
    # every (entry, operand) kind ``chain_tables`` can make
    assert codes == {(LC.E_XH, LC.H_CONST), (LC.E_XH, LC.H_SCALED), (LC.E_XH, LC.H_ATTR),
                     (LC.E_CMP_EX, LC.H_ATTR), (LC.E_ABS_XE, LC.H_ATTR),
                     (LC.E_ABS_EX, LC.H_ATTR), (LC.E_GENERAL, LC.H_NONE)}


@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "=", "!="])
def test_swapped_comparison_on_zeros_infinities_nan(op):
    """``h OP x * 1 + 0`` run as ``x FLIP(OP) h``: the same on -0.0 / 0.0, infinities, NaN and
    ties, in every order (the kernel is called directly: ``run_chain`` refuses NaN)."""
    rng = np.random.default_rng(52)
    vals = np.array([-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf, np.nan, 1.0])
    n = 80
    st = EventStream.from_arrays(rng.choice(["A", "B", "C"], n), np.arange(n, dtype=float),
                                 rng.choice(vals, (n, 2)), ("A", "B", "C"), ("x", "y"))
    prog = compile_pattern(parse_pattern(
        f"PATTERN SEQ(A a, B b, C c) WHERE a.x {op} b.x AND b.y {op} c.y * 1 + 0 "
        f"AND c.x {op} 0 WITHIN 12 seconds"), st.schema)
    passed = 0
    for ids in itertools.permutations([int(v) for v in prog.positive_vars]):
        ref = _check(prog, st, list(ids))
        passed += int(ref[0][:, C.PM_CREATED].sum())
    assert passed > 0


def test_caps_stop_both_kernels_at_the_same_event():
    """A run stopped by the partial-match cap or the match cap: same status, same event, same
    (partial) outputs."""
    st = make_stream("stocks", 3000, 11, n_types=24, total_rate=100.0)
    prog = compile_pattern(parse_pattern(pattern_text("stocks", "seq", 4, st.schema.type_names,
                                                      1.0)), st.schema)
    ids = [int(v) for v in prog.positive_vars]
    full = _check(prog, st, ids)
    assert len(full[2]) > 3
    peak = int(full[3])
    for caps, status in (((max(1, peak // 2), 20_000_000), LC.ST_MAX_PM),
                         ((5_000_000, len(full[2]) // 2), LC.ST_MAX_MATCHES)):
        got = _check(prog, st, ids, caps)
        assert got[5] == status and got[6] >= 0


def test_counter_offsets_are_prefix_sums_of_the_matrix():
    """``run_chain(counter_offsets=...)``: row i = the per-event matrix's rows [0, offsets[i])
    summed (offsets 0, repeated, inside, at and past the end), on a plain pattern (the chain
    kernel) and one with NOT (the extended kernel's matrix, summed after)."""
    st = make_stream("stocks", 3000, 13, n_types=24, total_rate=100.0)
    names = st.schema.type_names
    texts = [pattern_text("stocks", "or", 3, names, 1.0),
             f"PATTERN SEQ({names[1]} a, NOT({names[2]} x), {names[3]} b) "
             f"WHERE a.diff < b.diff WITHIN 1 seconds"]
    offsets = [0, 0, 1, 17, 1500, 1500, 2999, 3000, 4000]
    for text in texts:
        prog = compile_pattern(parse_pattern(text), st.schema)
        whole = run_chain(prog, st).counters
        assert whole.shape == (3000, C.N_COUNTERS) and whole[:, C.EDGE_EVAL].sum() > 0
        got = run_chain(prog, st, counter_offsets=offsets).counters
        want = np.array([whole[:min(o, 3000)].sum(0) for o in offsets], dtype=np.int64)
        assert got.dtype == np.int64 and np.array_equal(got, want)
    assert run_chain(prog, st, counter_offsets=[]).counters.shape == (0, C.N_COUNTERS)
    with pytest.raises(CepsimInputError):
        run_chain(prog, st, counter_offsets=[5, 3])

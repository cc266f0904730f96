"""The compiled probe loop of ``engines/evaluators/ztree.py`` gives, output for output, what the
interpreting reference kernel (``engines/evaluators/ztree_ref.py``: the full binding row merged
per probe, the order-constraint table and ``eval_pred`` per predicate) gives.

Both kernels are called with the same inputs (``ztree.kernel_outputs``) and every output is
compared exactly: the status, the whole counter matrix (every column, every row), the match
rows, the detection positions, the Kleene chain arrays and the peak of live results.  The cases:

* the PVLDB'18 pattern sets the adaptive configs run (``workloads.adaptive.pattern_text``: SEQ,
  SEQ with a NOT, AND, SEQ with a Kleene element, OR of three SEQs) on seeded stocks and
  traffic streams, n = 3..8 (n >= 6 marked slow), under the left-deep plan and random bushy
  plans, both trigger modes (batch with a random eager group);
* random patterns of ``tests/strategies.py`` (every operator, NOT at start / middle / end,
  Kleene, comparisons, constants, ABS, correlation and SAME predicates, time / count / no
  windows) with random plans, with node buffers starting at one row (growth and compaction run)
  and with one-row arrays (every ``ST_SPACE_*`` stop is compared too), and small caps (the
  capacity statuses).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.evaluators.ztree import kernel_outputs
from engines.pattern import parse_pattern
from strategies import GENERATED_PATTERN_WARNINGS, small_cases
from workloads.adaptive import make_stream, pattern_text

# the reference kernel compiles for ~35 s: these comparisons are slow tests (CI runs them);
# tests/test_ztree.py checks the engine against the oracle in the default run
pytestmark = [pytest.mark.filterwarnings(GENERATED_PATTERN_WARNINGS), pytest.mark.slow]

BIG = dict(rows=1 << 16, kleene=1 << 16, parked=1 << 12, matches=1 << 16)
TINY = dict(rows=1, kleene=1, parked=1, matches=1)
NAMES = ("status", "counters", "match rows", "detect", "Kleene events", "Kleene links", "peak")


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


def assert_same_outputs(program, stream, context: str, **kw) -> tuple:
    """Run both kernels on the same inputs and compare every output exactly; returns the
    reference's outputs."""
    ref = kernel_outputs(program, stream, reference=True, **kw)
    new = kernel_outputs(program, stream, **kw)
    assert len(new) == 7 and len(ref) == 8
    for name, a, b in zip(NAMES, ref[:7], new):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and a.shape == b.shape, f"{context}: {name} shape"
            assert np.array_equal(a, b), f"{context}: {name} differ"
        else:
            assert a == b, f"{context}: {name} {a} != {b}"
    return ref


def _adaptive_cases(dataset: str, pset: str, n: int, n_events: int, seed: int) -> int:
    st = make_stream(dataset, n_events, seed, n_types=24, total_rate=500.0)
    window = {"and": 0.25, "kleene": 0.1}.get(pset, 1.0)
    text = pattern_text(dataset, pset, n, st.schema.type_names, window)
    program = compile_pattern(parse_pattern(text), st.schema)
    names = [program.var_names[v] for v in program.positive_vars]
    rnd = random.Random(n * 131 + seed)
    probes = 0
    plans = [None] + [random_plan(names, rnd) for _ in range(2)]
    for i, plan in enumerate(plans):
        for trig in ("push", "batch"):
            ev = tuple(v for v in names if rnd.random() < 0.4) if trig == "batch" else ()
            ref = assert_same_outputs(program, st, f"{dataset} {pset} n={n} plan {plan} {trig}",
                                      plan=plan, trigger=trig, eager_vars=ev, sizes=BIG,
                                      max_partial_matches=2_000_000)
            probes += int(ref[1][:, 6].sum())
    return probes


@pytest.mark.parametrize("pset", ["seq", "neg", "and", "kleene", "or"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_adaptive_pattern_sets_bit_identical(pset, n):
    probes = _adaptive_cases("stocks", pset, n, 3000, 1)
    probes += _adaptive_cases("traffic", pset, n, 2000, 2)
    assert probes > 0, "no probe compared"


@pytest.mark.slow
@pytest.mark.parametrize("pset", ["seq", "neg", "and", "kleene", "or"])
@pytest.mark.parametrize("n", [6, 7, 8])
def test_adaptive_pattern_sets_bit_identical_large(pset, n):
    probes = _adaptive_cases("stocks", pset, n, 6000, 3)
    probes += _adaptive_cases("traffic", pset, n, 2000, 4)
    assert probes > 0, "no probe compared"


def test_random_patterns_bit_identical():
    """Random patterns of every operator and predicate kind, random plans, both triggers; node
    buffers from one row; then one-row arrays (ST_SPACE_* stops) and a small cap."""
    rnd = random.Random(11)
    statuses = set()
    probes = 0
    cases = (small_cases(5, 200, max_events=80, kleene_max_events=30,
                         policies=("skip-till-any-match",), windows=("time", "count", "none"))
             + small_cases(6, 80, max_events=150, min_len=3, max_len=5,
                           policies=("skip-till-any-match",)))
    for pattern, stream in cases:
        program = compile_pattern(pattern, stream.schema)
        names = [program.var_names[v] for v in program.positive_vars]
        plan = random_plan(names, rnd)
        for trig in ("push", "batch"):
            ev = tuple(v for v in names if rnd.random() < 0.5) if trig == "batch" else ()
            ctx = f"{pattern} plan {plan} {trig}"
            for kw in (dict(sizes=BIG, init_cap=1), dict(sizes=TINY, init_cap=1),
                       dict(sizes=BIG, init_cap=2, max_partial_matches=40, max_matches=30)):
                ref = assert_same_outputs(program, stream, ctx, plan=plan, trigger=trig,
                                          eager_vars=ev, **kw)
                statuses.add(int(ref[0]))
                probes += int(ref[1][:, 6].sum())
    assert probes > 1000
    # the cases reach the ordinary end, the capacity stops and the array stops
    assert {0, 1, 4, 7} <= statuses, statuses

"""Checks shared by the DARLING stand-in tests (``test_darling_stock.py``, ``test_darling_bus.py``):
a Table 1 query gives the same matches under the stepped engine, the eager NFA and the oracle,
and a negated variable with a condition vetoes exactly the pairs it should."""
from __future__ import annotations

import numpy as np

from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.oracle import run_oracle
from engines.pattern import parse_pattern
from engines.evaluators.stepper import run_stepped


def assert_stepper_equals_eager_and_oracle(prog, st) -> None:
    """Stepper, eager and oracle match sets of ``prog`` on ``st`` are equal and not empty."""
    ms, _ = run_stepped(prog, st)
    assert ms.key_set() == run_eager(prog, st).matches.key_set()
    assert len(ms) > 0                              # the comparison is not over empty sets
    assert ms.key_set() == run_oracle(prog, st, max_matches=2_000_000).matches.key_set()


def assert_negation_vetoes(none_prog, every_prog, pairs_text: str, st, neg_type: str,
                           first: str, last: str) -> None:
    """``none_prog`` (a condition no negated event meets) matches the plain ``pairs_text``
    sequence; ``every_prog`` (a condition every negated event meets) keeps only the pairs with
    no ``neg_type`` event between ``first`` and ``last``, and fewer of them."""
    none = run_stepped(none_prog, st)[0]
    every = run_stepped(every_prog, st)[0]
    pairs = compile_pattern(parse_pattern(pairs_text), st.schema)
    assert none.key_set() == run_eager(pairs, st).matches.key_set()
    code = st.schema.type_code(neg_type)
    for rec in every.records():
        assert not np.any(st.types[rec[first] + 1:rec[last]] == code)
    assert 0 < len(every) < len(none)

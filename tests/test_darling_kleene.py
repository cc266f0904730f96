"""DARLING's analytic Z(T) (PVLDB'22 Eqs. 5-10) and its Kleene rule, by hand
(engines/shedding/darling_model.py), and the ``model`` budget in a run."""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from engines.shedding.darling import budgets
from engines.shedding.darling_model import selectivities, tree_conditions, z_model
from engines.stream import EventStream


def _prog(text: str):
    st = EventStream.from_arrays(np.array([0, 1, 2], dtype=np.int32), np.arange(3.0),
                                 np.zeros((3, 2)), ("A", "B", "C"), ("x", "v"))
    return compile_pattern(parse_pattern(text), st.schema)


Q = "PATTERN SEQ(A a, B+ b, C c) WHERE a.x > 0 AND b.v < c.v WITHIN 2 seconds"


def test_tree_conditions():
    leaf, node = tree_conditions(_prog(Q))
    assert [len(c) for c in leaf] == [1, 0, 0]          # a.x > 0 at L_0
    assert [len(c) for c in node] == [0, 0, 1]          # b.v < c.v joins at N_2


@pytest.mark.parametrize("rule, want", [
    # R = (1, 2, 0.5), w = 2, SEL(a.x > 0) = 0.5, SEL(b.v < c.v) = 0.25, f = 1, V_n = 10,
    # V_r = 100.  PM(L0) = 1 * 0.5 * 2 = 1, PM(L2) = 0.5 * 2 = 1.
    # paper: PM(L1) = 2^2 * 2 = 8 (Eq. 10), PM(L1, B) = 2^2 * 2 = 8 (Eq. 8); PM(N1) = 8,
    #   Z(A) = 110 * 0.5 [L0] + (1 * PM(L2) + 110) * (0.5 * 8) [N1] + 110 * (0.25 * 4 * 1) [N2]
    #        = 55 + 444 + 110 = 609
    #   Z(B) = 110 * 8 + 111 * 8 + 110 * (0.25 * 8) = 880 + 888 + 220 = 1988
    #   Z(C) = (1 * PM(N1) + 110) * 1 + 110 * (0.25 * 1 * 8) = 118 + 220 = 338
    ("paper", [609.0, 1988.0, 338.0]),
    # subsets: PM(L1) = PM(L1, B) = 2^(2 * 2) = 16, PM(N1) = 16
    #   Z(A) = 55 + 111 * 8 + 110 * 2 = 1163;  Z(B) = 110 * 16 + 111 * 16 + 110 * 4 = 3976
    #   Z(C) = (16 + 110) * 1 + 110 * 4 = 566
    ("subsets", [1163.0, 3976.0, 566.0]),
])
def test_z_model_by_hand(rule, want):
    prog = _prog(Q)
    sel = np.ones(len(prog.pred_i))
    leaf, node = tree_conditions(prog)
    sel[leaf[0][0]] = 0.5
    sel[node[2][0]] = 0.25
    z = z_model(prog, np.array([1.0, 2.0, 0.5]), 2.0, sel, 1.0, 10.0, 100.0, kleene=rule)
    np.testing.assert_allclose(z, want, rtol=1e-12)


def test_z_model_without_kleene_is_eqs_5_to_10():
    """SEQ(A a, B b): PM(L0) = R_A w, PM(L1) = R_B w; no conditions: L_cond = 0.
    Z(A) = (V_n + V_r) * 1 + (V_n + V_r) * PM(L1);  Z(B) = (V_n + V_r) * (1 + PM(L0))."""
    prog = _prog("PATTERN SEQ(A a, B b) WITHIN 3 seconds")
    z = z_model(prog, np.array([2.0, 1.0, 0.0]), 3.0, np.ones(len(prog.pred_i)), 1.0, 1.0, 1.0)
    np.testing.assert_allclose(z, [2 * (1 + 3), 2 * (1 + 6), 0.0])


def test_z_model_refuses_bad_input():
    prog = _prog(Q)
    with pytest.raises(CepsimInputError, match="kleene"):
        z_model(prog, np.ones(3), 1.0, np.ones(2), 1, 1, 1, kleene="other")
    with pytest.raises(CepsimInputError, match="finite window"):
        z_model(_prog("PATTERN SEQ(A a, B b)"), np.ones(3), np.inf, np.ones(0), 1, 1, 1)


def test_selectivities_by_hand():
    # A x = 1, -1, 2, 3 ; B v = 0, 5
    types = np.array([0, 0, 0, 0, 1, 1], dtype=np.int32)
    attrs = np.array([[1, 0], [-1, 0], [2, 0], [3, 0], [0, 0], [0, 5]], dtype=np.float64)
    st = EventStream.from_arrays(types, np.arange(6.0), attrs, ("A", "B", "C"), ("x", "v"))
    prog = compile_pattern(parse_pattern("PATTERN SEQ(A a, B b) WHERE a.x > 0 AND a.x < b.v "
                                         "WITHIN 9 seconds"), st.schema)
    sel = selectivities(prog, attrs, types, n_pairs=20000, seed=1)
    assert sel[0] == 0.75                                # 3 of the 4 A events
    # pairs: b.v = 0 never above a.x in {1,-1,2,3} but -1; b.v = 5 above all: 5/8
    assert abs(sel[1] - 5 / 8) < 0.02


def test_model_budget_uses_the_model_z():
    z = np.array([609.0, 1988.0, 338.0])
    r = np.array([1.0, 2.0, 0.5])
    nt = budgets("model", z, r, 100.0, 0.8)
    np.testing.assert_allclose(nt, z * r / (z * r).sum() * 80.0)


def test_model_budget_in_a_shedding_run():
    import sys
    import os
    sys.path.insert(0, os.path.dirname(__file__))
    from shedding_setup import overload_setup
    from sim.core.shedding_queue import run_shedding
    from sim.studies.darling import scenario as D
    params, prof, stream, prog, arr, n_warm, ref = overload_setup("q3", 3000, 30.0,
                                                                  window_ms=20)
    out = {}
    for rule in ("paper", "subsets"):
        p = dict(params, budget="model", kleene_rule=rule)
        sh = D.make_shedder("darling", p, 20 * ref["z_pre"], seed=11)
        res = run_shedding(stream, prog, arr, prof, sh, n_warm=n_warm)
        out[rule] = sh
        assert res.metrics["matches_measured"] > 0
        assert np.all(np.isfinite(sh.Z_model)) and sh.Z_model.max() > 0
        kt = stream.schema.type_code("13")          # the Kleene type
        # the Kleene rule boosts the Kleene type's Z relative to the others
        assert sh.Z_model[kt] == sh.Z_model.max()
    assert not np.array_equal(out["paper"].N_T, out["subsets"].N_T)


def test_q3_queries_are_the_artifacts_kleene_shape():
    """Q3^B (darling/patterns_examples.txt 198-227): SEQ(Goal, D1+, D2, ..., Dn) WHERE
    D1.v < D2.v AND ... -- the sample's form ``q3`` and the synthetic players' ``q3len``."""
    from engines.evaluators.stepper import Stepper
    from sim.studies.darling import scenario as D
    assert D.query_text("q3", 15) == "PATTERN SEQ(61 a, 13+ b, 8 c) WHERE b.v < c.v WITHIN 15 ms"
    txt = D.query_text("q3len", 20, length=4)
    assert txt.startswith("PATTERN SEQ(61 g, ") and "+ d1" in txt
    assert txt.count(".v < ") == 2
    params = {"query": "q3len", "window_ms": 20, "length": 4, "n_events": 2000}
    stream = D._stream_for(params)
    prog = D._program(params, stream)
    Stepper(prog, stream)                                   # accepted by the shedding engine
    with pytest.raises(CepsimInputError, match="length 2"):
        D.query_text("q3len", 20, length=2)

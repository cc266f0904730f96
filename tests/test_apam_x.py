"""APAM-X (engines.planners.apam_x): its predicted executed work against the tree evaluator's
counters on small streams, and its optimizer switch.

The model gives expectations per stream position; the tree evaluator's counts are one
realization, so the checks are bounds: the parameterized predicates evaluated at the merge
(in-window in-order pairs, one predicate per join here) and the results stored / matches
emitted within 17 % of the prediction, and the executed join probes between the in-window
pairs and ``probes_hi`` (the stored results whose last event is inside the window), with 17 %
slack on each side.  Measured over 8 stream seeds (20k events, window 40): executed / predicted
has mean 0.995-1.001 per candidate (no bias) and standard deviation 2.1-5.6 % (realized counts
share events); 17 % is 3 standard deviations of the noisiest candidate.
"""
from __future__ import annotations

import numpy as np
import pytest

from engines import counters as C
from engines.compile import compile_pattern
from engines.planners.apam_engine import run_hybrid
from engines.pattern import parse_pattern
from engines.planners.apam import candidate_plans, estimate_statistics, evaluate_candidates
from engines.planners.apam_x import node_rates, predict_x
from engines.stream import EventStream

TYPES = ("A", "B", "C", "D", "E")
ATTRS = tuple(f"attr{i}" for i in range(1, 10))
QUERY = ("PATTERN SEQ(A a, B b, C c, D d, E e) WHERE a.attr1 < b.attr1 AND b.attr2 < c.attr2 "
         "AND c.attr3 < d.attr3 AND d.attr4 < e.attr4 WITHIN 40 events")
COSTS = {"t_pe": 1e-6, "t_rc": 4e-6, "t_bi": 5e-7, "base": 1e-5, "t_seq": 1e-6}
N = 20_000


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    types = rng.integers(0, 5, N).astype(np.int32)
    attrs = rng.integers(0, 4, (N, 9)).astype(float)
    st = EventStream.from_arrays(types, np.arange(N, dtype=float), attrs, TYPES, ATTRS,
                                 source="apam-x test")
    prog = compile_pattern(parse_pattern(QUERY, source="apam-x test"), st.schema)
    stats = estimate_statistics(prog, st, warmup=N, arrival_rate=100.0)
    return st, prog, stats


def _plans(stats):
    # the l+1 candidates, the query-order all-lazy tree and a LEG joined final-first
    return [p for p in candidate_plans(stats)] + [([], [0, 1, 2, 3, 4]), ([0, 1, 2], [4, 3])]


def test_statistics_carry_the_window_in_events(small):
    _, _, stats = small
    assert stats.win_events == 40.0


def test_predicted_merge_work_bounds_the_executed_join_probes(small):
    st, prog, stats = small
    final_rows = st.types == 4
    checked = 0
    for eeg, leg in _plans(stats):
        nodes = node_rates(stats, eeg, leg)
        fin = [nd for nd in nodes if nd["charged_to"] == 4]     # merge (and eager root) work
        oth = [nd for nd in nodes if nd["charged_to"] != 4]      # eager work of other types
        plan = ",".join(stats.names[s] for s in eeg) + "/" + ",".join(stats.names[s] for s in leg)
        c = run_hybrid(prog, st, plan=plan).counters
        for rows, group in ((final_rows, fin), (~final_rows, oth)):
            if not group:
                continue
            pairs = N * sum(nd["pairs"] for nd in group)
            hi = N * sum(nd["probes_hi"] for nd in group)
            pe = N * sum(nd["pred_eval"] for nd in group)
            res = N * sum(nd["results"] for nd in group)
            jp = int(c[rows, C.JOIN_PROBE].sum())
            got_pe = int(c[rows, C.PRED_EVAL].sum())
            got_res = int(c[rows, C.PM_CREATED].sum() + c[rows, C.MATCH_EMIT].sum())
            assert got_pe == pytest.approx(pe, rel=0.17), (plan, got_pe, pe)
            assert got_res == pytest.approx(res, rel=0.17), (plan, got_res, res)
            assert 0.83 * pairs <= jp <= 1.17 * hi, (plan, jp, pairs, hi)
            checked += 1
    assert checked >= 8


def test_exact_ordering_probability_not_table1(small):
    """Five events in query order inside one window: 1/5! of the window's 5-tuples (Table 1's
    ISP = 0.5 per pair would give 1/1024)."""
    _, _, stats = small
    root = node_rates(stats, [], [0, 1, 2, 3, 4])[-1]
    f = np.prod(stats.frac)
    sel = np.prod([stats.sp[i, i + 1] for i in range(3)])
    W = stats.win_events
    # C(W-1, 4) combinations before the final event; ~ W^4/4! for a large window
    from math import comb
    assert root["pairs"] == pytest.approx(f * sel * comb(int(W) - 1, 4), rel=1e-9)


def test_predicted_rho_tracks_the_executed_service(small):
    """Mean service time from the counters at the same unit costs vs apam-x's E[ST]: within
    10 % for every candidate (the literal optimizer is reported, not bounded)."""
    from sim.studies.apam.scenario import profile_for

    st, prog, stats = small
    prof = profile_for({"t_pe": COSTS["t_pe"], "t_seq": COSTS["t_seq"], "t_rc": COSTS["t_rc"],
                        "t_bi": COSTS["t_bi"], "base_cost": COSTS["base"]})
    for eeg, leg in candidate_plans(stats):
        pr = predict_x(stats, eeg, leg, COSTS)
        c = run_hybrid(prog, st, plan=pr["plan"]).counters
        assert prof.service_times(c).mean() == pytest.approx(pr["e_st"], rel=0.10), pr["plan"]


def test_optimizer_switch(small):
    st, prog, stats = small
    a = evaluate_candidates(stats, COSTS, optimizer="apam")
    x = evaluate_candidates(stats, COSTS, optimizer="apam-x")
    assert a["optimizer"] == "apam" and x["optimizer"] == "apam-x"
    assert [c["plan"] for c in a["candidates"]] == [c["plan"] for c in x["candidates"]]
    res = run_hybrid(prog, st, warmup=N // 2, arrival_rate=100.0, unit_costs=COSTS,
                     optimizer="apam-x")
    assert res.info["optimizer"] == "apam-x"
    with pytest.raises(Exception, match="optimizer"):
        evaluate_candidates(stats, COSTS, optimizer="nope")
    with pytest.raises(Exception, match="optimizer"):
        run_hybrid(prog, st, optimizer="nope")


def test_scenario_refuses_unknown_optimizer_and_merge_order():
    from engines.errors import CepsimInputError
    from sim.studies.apam.scenario import _check_point

    ok = {"n_events": 100, "n_warmup": 50, "rate": 100.0}
    _check_point({**ok, "optimizer": "apam-x", "merge_order": "plan"})
    with pytest.raises(CepsimInputError, match="params.optimizer"):
        _check_point({**ok, "optimizer": "zstream"})
    with pytest.raises(CepsimInputError, match="params.merge_order"):
        _check_point({**ok, "merge_order": "random"})


def test_completing_final_events_pay_more_than_the_mean(small):
    """A final event with a large attr4 passes d.attr4 < e.attr4 with most D events: it is
    likelier to complete a match and its merge builds more results.  The predicted service of a
    true final event therefore exceeds the mean final event's (and the per-variable-means
    reading, which cannot tell them apart), as the executed counters do."""
    from sim.studies.apam.scenario import profile_for

    st, prog, stats = small
    prof = profile_for({"t_pe": COSTS["t_pe"], "t_seq": COSTS["t_seq"], "t_rc": COSTS["t_rc"],
                        "t_bi": COSTS["t_bi"], "base_cost": COSTS["base"]})
    eeg, leg = candidate_plans(stats)[0]                       # all-lazy
    ev = predict_x(stats, eeg, leg, COSTS)
    mean = predict_x(stats, eeg, leg, COSTS, spread="means")
    res = run_hybrid(prog, st, plan=ev["plan"])
    sv = prof.service_times(res.counters)
    true_f = np.unique(res.matches.detect)
    all_f = np.flatnonzero(st.types == 4)
    assert sv[true_f].mean() > 1.2 * sv[all_f].mean()         # the executed work says so
    assert ev["e_st_fe"] > 1.1 * mean["e_st_fe"]

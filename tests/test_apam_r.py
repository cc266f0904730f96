"""APAM-R (engines.planners.apam_r) and the measurements that state the cause of the APAM
queue-wait misses.

* The shuffle report: on a stream whose service times are correlated inside blocks (a level
  drawn per 200-event block, times an exponential), the same service times shuffled event by
  event wait the Pollaczek-Khinchine value of their moments (independent service is the M/G/1
  premise) within 10 %, and shuffled in whole blocks they wait the stream-order value within
  10 % (the correlation inside a block is kept); the stream-order wait is well above the
  M/G/1 one.  On the section 6.1 stream (experiment 1, 20k events) the all-eager plan's
  service times, shuffled, wait the P-K value within 10 %.
* apam-r's predicted latency of every candidate equals a Lindley run (``sim.core.fastpath``)
  over the same replayed service times: the candidate run on the warm-up prefix, priced by
  the scenario's cost profile, behind the same Poisson arrivals; a run on the prefix counts
  what the first rows of a whole-stream run count (the engine is causal, which the scenario's
  use of cached whole-stream counters relies on).
* ``cepsim compare`` knows the strategy ``apam-r`` and its expansion is the optimizer's plan.
"""
from __future__ import annotations

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from engines.planners.apam import candidate_plans, estimate_statistics
from engines.planners.apam_engine import run_hybrid
from engines.planners.apam_model import plan_text
from engines.planners.apam_r import (autocorrelation, choose_plan_r, pk_wait,
                                     poisson_arrivals, predict_r, service_times,
                                     shuffle_report)
from engines.stream import EventStream
from sim.core.fastpath import lindley as sim_lindley

TYPES = ("A", "B", "C", "D", "E")
ATTRS = tuple(f"attr{i}" for i in range(1, 10))
QUERY = ("PATTERN SEQ(A a, B b, C c, D d, E e) WHERE a.attr1 < b.attr1 AND b.attr2 < c.attr2 "
         "AND c.attr3 < d.attr3 AND d.attr4 < e.attr4 WITHIN 40 events")
COSTS = {"t_pe": 1e-6, "t_rc": 4e-6, "t_bi": 5e-7, "base": 1e-5, "t_seq": 1e-6}
N = 8000


def _blocky(seed: int, n: int = 400_000, block: int = 200):
    """Arrivals at rate 1 and service times level x Exp(1), the level (0.9 with probability
    0.3, else 0.3) drawn per ``block`` events: ρ = 0.48 overall, 0.9 inside a high block."""
    rng = np.random.default_rng(seed)
    level = np.where(rng.random(n // block) < 0.3, 0.9, 0.3)
    service = np.repeat(level, block) * rng.exponential(1.0, n)
    arrivals = np.cumsum(rng.exponential(1.0, n))
    return arrivals - arrivals[0], service


@pytest.mark.parametrize("seed", [1, 2])
def test_shuffle_report_on_block_correlated_service(seed):
    a, s = _blocky(seed)
    r = shuffle_report(a, s, 1.0, 200, measure_from=len(s) // 10, seed=seed)
    m2 = float(np.mean(s * s))
    rho = float(s.mean())
    assert r["wait_pk"] == pytest.approx(m2 / (2 * (1 - rho)))      # P-K by hand, λ = 1
    assert r["wait_shuf"] == pytest.approx(r["wait_pk"], rel=0.10)
    assert r["wait_block"] == pytest.approx(r["wait"], rel=0.10)
    assert r["wait"] > 2 * r["wait_pk"]       # the correlated stream waits beyond M/G/1


def test_shuffle_report_waits_are_lindley_waits():
    rng = np.random.default_rng(3)
    a = np.cumsum(rng.exponential(1.0, 5000))
    s = rng.exponential(0.5, 5000)
    r = shuffle_report(a, s, 1.0, 100, measure_from=1000, seed=0)
    start, _ = sim_lindley(a, s)
    assert r["wait"] == pytest.approx(float((start[1000:] - a[1000:]).mean()))
    with pytest.raises(CepsimInputError):
        shuffle_report(a, s, 1.0, 0)
    with pytest.raises(CepsimInputError):
        shuffle_report(a, s, 1.0, 10, measure_from=5000)
    assert pk_wait(s, 1.0 / float(s.mean())) == float("inf")


def test_autocorrelation_by_hand():
    s = np.array([1.0, 2.0, 1.0, 2.0, 1.0, 2.0])
    ac = autocorrelation(s, (1, 2, 5))
    assert ac[1] == pytest.approx(-1.0)
    assert ac[2] == pytest.approx(1.0)
    assert np.isnan(ac[5])                   # fewer than lag + 2 values
    with pytest.raises(CepsimInputError):
        autocorrelation(s, (0,))


def test_shuffled_apam_stream_waits_the_pk_value():
    from sim.studies.apam.scenario import profile_for, unit_costs
    from workloads import apam_synthetic as W

    st = W.generate(1, 20_000, 1, reading="shift")
    prog = W.program_for(st)
    res = run_hybrid(prog, st, plan="a,b,c,d,e/")
    costs = unit_costs({"t_pe": 7e-7, "t_rc": 3.5e-6, "t_bi": 3.5e-7, "base_cost": 2e-5})
    s = profile_for(costs).service_times(np.asarray(res.counters))
    rate = 0.6 / float(s.mean())
    a = poisson_arrivals(len(s), rate, 11)
    r = shuffle_report(a, s, rate, 2000, measure_from=2000, seed=5)
    assert r["wait_shuf"] == pytest.approx(r["wait_pk"], rel=0.10)
    assert autocorrelation(s, (1,))[1] > 0.05      # consecutive service times correlate


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(7)
    types = rng.integers(0, 5, N).astype(np.int32)
    attrs = rng.integers(0, 4, (N, 9)).astype(float)
    st = EventStream.from_arrays(types, np.arange(N, dtype=float), attrs, TYPES, ATTRS,
                                 source="apam-r test")
    return st, compile_pattern(parse_pattern(QUERY), st.schema)


def test_prefix_run_counts_the_first_rows_of_a_whole_run(small):
    stream, prog = small
    w = N // 2
    whole = run_hybrid(prog, stream, plan="a,b/c,d,e")
    pre = run_hybrid(prog, stream.slice(0, w), plan="a,b/c,d,e")
    np.testing.assert_array_equal(np.asarray(pre.counters)[:w], np.asarray(whole.counters)[:w])


def test_predicted_latency_is_a_lindley_run_over_the_replayed_service(small):
    stream, prog = small
    rate = 20_000.0
    st = estimate_statistics(prog, stream, arrival_rate=rate)
    out = choose_plan_r(prog, stream, st, COSTS, seed=4)
    w = st.n_warmup
    skip = int(min(st.win_events, w // 2))
    arr = poisson_arrivals(w, rate, 4)
    assert [c["plan"] for c in out["candidates"]] == \
        [plan_text(st, e, l) for e, l in candidate_plans(st)]
    for c in out["candidates"]:
        res = run_hybrid(prog, stream.slice(0, w), plan=c["plan"])
        cnt = np.asarray(res.counters)
        s = (COSTS["base"] + COSTS["t_pe"] * cnt[:, 0] + COSTS["t_rc"] * (cnt[:, 2] + cnt[:, 5])
             + COSTS["t_bi"] * cnt[:, 4] + COSTS["t_seq"] * cnt[:, 13])   # by hand
        np.testing.assert_allclose(service_times(cnt, COSTS), s, rtol=1e-12)
        f = np.unique(np.asarray(res.matches.detect))
        f = f[f >= skip]
        start, depart = sim_lindley(arr, s)
        assert c["n_measured"] == f.size > 0
        assert c["e_l"] == pytest.approx(float((depart[f] - arr[f]).mean()), rel=1e-12)
        assert c["e_qwt"] == pytest.approx(float((start[f] - arr[f]).mean()), rel=1e-12)
        assert c["rho"] == pytest.approx(rate * float(s.mean()), rel=1e-12)
    best = min(out["candidates"], key=lambda c: (c["e_l"], -c["k"]))
    assert out["plan"] == best["plan"]
    assert run_hybrid(prog, stream, arrival_rate=rate, unit_costs=COSTS,
                      optimizer="apam-r").info["plan"] == out["plan"]


def test_predict_r_rejects_bad_input():
    with pytest.raises(CepsimInputError):
        predict_r(np.zeros(0), np.zeros(0, dtype=np.int64), 1.0)
    with pytest.raises(CepsimInputError):
        predict_r(np.ones(3), np.array([2]), 0.0)
    with pytest.raises(CepsimInputError):
        predict_r(np.ones(3), np.array([2]), 1.0, arrivals=np.zeros(2))


def test_compare_strategy_apam_r(small):
    from sim.core.costmodel import CostProfile, COUNT_NAMES
    from sim.tools.compare.strategies import STRATEGIES, apam_r_plan

    stream, prog = small
    s = next(x for x in STRATEGIES if x.key == "apam-r")
    assert s.engine == "hybrid" and s.per_rate
    units = {k: 0.0 for k in COUNT_NAMES}
    units.update(pred_eval=1e-6, pm_created=4e-6, match_emit=4e-6, buf_insert=5e-7,
                 search_cmp=1e-6)
    prof = CostProfile(unit_cost=units, base_cost=1e-5, name="t", description="test")
    [(label, opts)] = apam_r_plan(prog, stream, {"rate": 20_000.0, "profile": prof})
    st = estimate_statistics(prog, stream, arrival_rate=20_000.0)
    assert label == "apam-r"
    assert opts["plan"] == choose_plan_r(prog, stream, st, COSTS)["plan"]


def test_cepsim_compare_runs_the_apam_r_plan(small):
    """``cepsim compare --engines apam-r``: one row per rate, the hybrid run with the plan
    apam-r picks at that rate under the comparison's cost profile."""
    from sim import api

    stream, prog = small
    prof = api.load_profile()
    cmp = api.compare(QUERY, stream, rates=[20_000.0], engines=["apam-r"], profile=prof)
    rows = cmp.rows[cmp.rows["eligible"]]
    assert list(rows["strategy"]) == ["apam-r"]
    st = estimate_statistics(prog, stream, arrival_rate=20_000.0)
    want = choose_plan_r(prog, stream, st, {"unit_vector": prof.unit_vector(),
                                            "base": float(prof.base_cost)})["plan"]
    assert rows["engine_spec"].iloc[0] == f"hybrid plan={want}"

"""APAM plan optimizer: candidate plans, Eqs. (2)-(9) by hand, rho >= 1, optimal orders."""
from __future__ import annotations

import math

import numpy as np
import pytest

from engines.planners.apam import (Stats, candidate_plans, estimate_statistics, optimal_order,
                                  predict, select)
from workloads import apam_synthetic as W

COSTS = {"t_pe": 1e-6, "t_rc": 4e-6, "t_bi": 5e-7, "base": 1e-5}


def _chain_stats(sels, nw=10.0, rate=100.0) -> Stats:
    L = len(sels) + 1
    sp = np.ones((L, L))
    np_ = np.zeros((L, L), dtype=np.int64)
    for i, s in enumerate(sels):
        sp[i, i + 1] = sp[i + 1, i] = s
        np_[i, i + 1] = np_[i + 1, i] = 1
    return Stats(names=[chr(97 + i) for i in range(L)], frac=np.full(L, 1.0 / L),
                 nw=np.full(L, nw), np_=np_, n_unary=np.zeros(L, dtype=np.int64), sp=sp,
                 isp=np.full((L, L), 0.5), rate=rate, n_warmup=1000)


def test_candidates_are_l_plus_1_binary_splits_of_the_optimal_order():
    st = _chain_stats([0.3, 0.1, 0.2])         # most selective b-c, then d (0.2), then a
    assert optimal_order(st) == [1, 2, 3, 0]
    cands = candidate_plans(st)
    assert len(cands) == 5
    assert cands[0] == ([], [1, 2, 3, 0])
    assert cands[2] == ([1, 2], [3, 0])
    assert cands[3] == ([1, 2, 3], [0])
    assert cands[4] == ([0, 1, 2, 3], [])      # EEG kept in query order


def test_eqs_by_hand_two_variables():
    st = _chain_stats([0.2], nw=10.0, rate=100.0)
    t_pe, t_rc, t_bi, base = (COSTS[k] for k in ("t_pe", "t_rc", "t_bi", "base"))
    # all-eager a,b: ST_a = T_RC (Eq. 6 with empty prefix); ST_b = 10 x 1 T_PE + 10 x 0.2 T_RC
    p = predict(st, [0, 1], [], COSTS)
    sa, sb = base + t_rc, base + 10 * t_pe + 10 * 0.2 * t_rc
    est = 0.5 * sa + 0.5 * sb
    assert p["e_st"] == pytest.approx(est)
    sigma = math.sqrt(0.5 * (sa - est) ** 2) + math.sqrt(0.5 * (sb - est) ** 2)   # Eq. (5)
    mu = 1 / est
    rho = 100 / mu
    assert p["rho"] == pytest.approx(rho)
    assert p["e_qwt"] == pytest.approx(rho / (2 * mu * (1 - rho)) * (1 + (mu * sigma) ** 2))
    assert p["e_st_fe"] == pytest.approx(sb)
    assert p["e_l"] == pytest.approx(p["e_qwt"] + sb)
    # all-lazy /a,b: ST_a = T_BI; final b: T_BI + merge |DEB_a| x 1 x (1 param + 1 seq) T_PE
    #                 + 10 x 0.2 T_RC (the final event precedes nothing: no ISP factor)
    q = predict(st, [], [0, 1], COSTS)
    assert q["t_m"] == pytest.approx(10 * 2 * t_pe + 10 * 0.2 * t_rc)
    assert q["e_st_fe"] == pytest.approx(base + t_bi + q["t_m"])
    # the sequence predicate priced apart (t_seq; default t_pe = Eq. 9 as printed)
    assert predict(st, [], [0, 1], {**COSTS, "t_seq": t_pe})["t_m"] == pytest.approx(q["t_m"])
    q0 = predict(st, [], [0, 1], {**COSTS, "t_seq": 0.0})
    assert q0["t_m"] == pytest.approx(10 * 1 * t_pe + 10 * 0.2 * t_rc)
    q3 = predict(st, [], [0, 1], {**COSTS, "t_seq": 3e-6})
    assert q3["t_m"] == pytest.approx(10 * (t_pe + 3e-6) + 10 * 0.2 * t_rc)
    # eager plans have no sequence checks: t_seq does not change them
    assert predict(st, [0, 1], [], {**COSTS, "t_seq": 0.0})["e_l"] == pytest.approx(p["e_l"])


def test_overload_is_infinite_and_fastest_mu_wins():
    st = _chain_stats([0.2, 0.2], nw=50.0, rate=1e6)
    preds = [predict(st, e, l, COSTS) for e, l in candidate_plans(st)]
    assert all(p["rho"] >= 1 and math.isinf(p["e_l"]) for p in preds)
    best = select(preds)
    assert preds[best]["mu"] == max(p["mu"] for p in preds)


def test_low_rate_selects_lowest_latency_plan():
    st = _chain_stats([0.05, 0.05], nw=20.0, rate=1.0)
    preds = [predict(st, e, l, COSTS) for e, l in candidate_plans(st)]
    best = select(preds)
    assert preds[best]["e_l"] == min(p["e_l"] for p in preds)
    assert preds[best]["k"] == 3     # nearly idle: all-eager has the cheapest final event


@pytest.mark.parametrize("exp", [1, 2, 3])
def test_warmup_statistics_and_table2_orders(exp):
    stream = W.generate(exp, 50_000, seed=5)
    prog = W.program_for(stream)
    st = estimate_statistics(prog, stream, warmup=25_000, arrival_rate=1000.0)
    want = W.selectivities(exp)
    got = [st.sp[i, i + 1] for i in range(4)]
    # 200k random pairs (binomial s.d. 5% at 0.002) over ~5000 events per type (their own
    # sampling spread of the order of 5%): 25% is ~3.5 combined s.d.
    assert np.allclose(got, want, rtol=0.25), (got, want)
    assert np.allclose(st.nw, 400, rtol=0.05)
    assert abs(st.isp[0, 1] - 0.5) < 0.05
    order = "".join(st.names[s] for s in optimal_order(st)).upper()
    paper = W.PAPER_ORDER[exp]
    # ties between the two variables of the first pair are kept in query order (the paper
    # calls DECBA "another optimal matching order" for experiment 1)
    assert order == paper or order == paper[1] + paper[0] + paper[2:]


def test_literal_merge_prices_the_final_event_first_by_hand():
    """Section 5, Example 1: the final event's DEB joins the EERB first.  SEQ(a, b, c), chain
    predicates a-b (0.3) and b-c (0.1), plan b/a,c: merge EERB_b ⋈ c (final, one event, no ISP
    factor) then ⋈ a; the issue-9 reading ("plan") joins a first.  Eq. (9) per join:
    |PI_X| |PI_y| (NP + NP_seq) T_PE + |PI_X| |PI_y| SP ISP T_RC."""
    st = _chain_stats([0.3, 0.1], nw=10.0, rate=100.0)
    t_pe, t_rc = COSTS["t_pe"], COSTS["t_rc"]
    # final first: EERB_b (10) ⋈ c (1): 10 pairs, 1 param + 1 seq; 10 x 0.1 results
    j1 = 10 * 1 * (1 + 1) * t_pe + 10 * 0.1 * t_rc
    # ⋈ a (10 events): 1 x 10 pairs, 1 param (a-b) + 1 seq (a before b); 10 x 0.3 x 0.5 results
    j2 = 1.0 * 10 * (1 + 1) * t_pe + 1.0 * 10 * 0.3 * 0.5 * t_rc
    ff = predict(st, [1], [0, 2], COSTS)
    assert ff["t_m"] == pytest.approx(j1 + j2)
    # plan order: EERB_b ⋈ a: 10 x 10 pairs, 10 x 10 x 0.3 x 0.5 = 15 results; ⋈ c (final):
    # 15 pairs, 1 param (b-c) + 1 seq (b before c; the final precedes nothing)
    k1 = 100 * 2 * t_pe + 15 * t_rc
    k2 = 15 * 2 * t_pe + 15 * 0.1 * t_rc
    assert predict(st, [1], [0, 2], COSTS, merge_order="plan")["t_m"] == pytest.approx(k1 + k2)
    # the all-lazy plan has no EERB: both readings price its LEG order
    assert predict(st, [], [1, 2, 0], COSTS)["t_m"] == pytest.approx(
        predict(st, [], [1, 2, 0], COSTS, merge_order="plan")["t_m"])
    with pytest.raises(Exception, match="merge_order"):
        predict(st, [1], [0, 2], COSTS, merge_order="nope")

"""Points of the adaptive scenario that differ only in cost parameters share one evaluation.

The calibration (adapt_log2) and the cost-ratio sensitivity study (adapt_rel) price the same
schedules and engine counters at several unit costs; ``sim.studies.adaptive.scenario`` evaluates once
per ``work_key`` and prices per point.  These tests check that the sharing changes nothing but
the price: a served point equals a freshly computed one, and the key ignores exactly the cost
parameters."""
from __future__ import annotations

import math

import pytest

from sim.studies.adaptive import scenario as A

PARAMS = {"dataset": "traffic", "planner": "greedy", "pset": "seq", "n": 3, "window": 1.0,
          "w_s": 3.0, "n_events": 1500, "n_types": 8, "total_rate": 500.0, "check_every": 25,
          "n_samples": 2, "K": 1, "t_values": [0.3], "d_values": [0.1], "davg": False,
          "stream_seed": 1}


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """The scenario with an empty disk cache and a count of real evaluations."""
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(A, "_WORK_MEM", {})
    calls = []
    real = A._compute_work

    def spy(params, stream_seed):
        calls.append(dict(params))
        return real(params, stream_seed)

    monkeypatch.setattr(A, "_compute_work", spy)
    return calls


def test_cost_only_points_share_one_evaluation_and_price_it_apart(counted, monkeypatch):
    cheap = A.point(dict(PARAMS, adapt_log2=-3.0), seed=0)
    dear = A.point(dict(PARAMS, adapt_log2=1.0), seed=0)
    assert len(counted) == 1                                   # one evaluation for both
    assert cheap["supported"] == 1 and dear["supported"] == 1
    assert cheap["uncond_ovh"] < dear["uncond_ovh"]            # a dearer planner costs more
    assert cheap["uncond_thr"] > dear["uncond_thr"]
    for col in ("static_matches", "uncond_repl", "uncond_calls", "thr0.3_fp", "n_checks"):
        assert cheap[col] == dear[col]
    # served from the disk entry by a process that has nothing in memory: the same row
    monkeypatch.setattr(A, "_WORK_MEM", {})
    again = A.point(dict(PARAMS, adapt_log2=1.0), seed=0)
    assert len(counted) == 1
    assert again == dear


def test_a_served_point_equals_a_fresh_one(counted, monkeypatch):
    A.point(dict(PARAMS, adapt_log2=-1.0), seed=0)             # fills the cache
    served = A.point(dict(PARAMS, adapt_log2=-2.0), seed=0)
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", "")             # no disk cache
    monkeypatch.setattr(A, "_WORK_MEM", {})
    fresh = A.point(dict(PARAMS, adapt_log2=-2.0), seed=0)
    assert len(counted) == 2
    assert fresh.keys() == served.keys()
    for k in fresh:
        same = fresh[k] == served[k] or (isinstance(fresh[k], float) and math.isnan(fresh[k])
                                         and math.isnan(served[k]))
        assert same, k


def test_work_key_ignores_cost_keys_only():
    k = A.work_key(PARAMS)
    for key, val in (("adapt_log2", 0.5), ("adapt_rel", 4.0), ("base_cost", 2e-6),
                     ("plan_gen", 1e-5), ("deploy_rel", 10.0), ("overlap_base", "once"),
                     ("switch", "duplicate"), ("adapt_units", "per_call")):
        assert A.work_key(dict(PARAMS, **{key: val})) == k
    for key, val in (("n", 4), ("planner", "zstream"), ("stream_seed", 2), ("d_values", [0.2]),
                     ("gen_n_changes", 8), ("headroom_epoch", 500)):
        assert A.work_key(dict(PARAMS, **{key: val})) != k
    assert A.work_key({k2: v for k2, v in PARAMS.items() if k2 != "stream_seed"}) is None


def test_deploy_and_overlap_prices_share_one_evaluation(counted):
    """deploy_rel, switch and overlap_base only price the work: one evaluation, and the prices
    move the way the charged work says (a dearer deployment, the duplicate reading of a switch or
    a per-plan base cost never speeds up a method that replaced its plan; the static plan is
    unaffected)."""
    base = A.point(dict(PARAMS), seed=0)                 # section 2.2: disjoint, base once
    dear = A.point(dict(PARAMS, deploy_rel=10.0), seed=0)
    per_plan = A.point(dict(PARAMS, overlap_base="per_plan"), seed=0)
    dup = A.point(dict(PARAMS, switch="duplicate"), seed=0)   # OpenCEP: work and base twice
    assert len(counted) == 1
    assert base["uncond_repl"] > 0
    assert dear["uncond_thr"] < base["uncond_thr"]
    assert dup["uncond_thr"] < per_plan["uncond_thr"] < base["uncond_thr"]
    assert dear["static_thr"] == base["static_thr"] == per_plan["static_thr"] == \
        dup["static_thr"]
    assert dear["headroom"] == base["headroom"]          # the oracle pays no deployment


@pytest.mark.parametrize("key,val,needle", [("adapt_rel", -1.0, "adapt_rel"),
                                            ("adapt_rel", 0.0, "adapt_rel"),
                                            ("adapt_log2", "x", "adapt_log2"),
                                            ("base_cost", -1e-6, "base_cost"),
                                            ("deploy_rel", -1.0, "deploy_rel"),
                                            ("overlap_base", "twice", "overlap_base"),
                                            ("switch", "both", "switch"),
                                            ("adapt_units", "free", "adapt_units"),
                                            ("gen_nope", 1, "gen_nope")])
def test_impossible_prices_are_refused_before_running(key, val, needle):
    from engines.errors import CepsimInputError
    with pytest.raises(CepsimInputError, match=needle):
        A.point.check_params(dict(PARAMS, **{key: val}))
    A.point.check_params(dict(PARAMS, adapt_rel=4.0, adapt_log2=-3.0))   # fine values pass


def test_tuning_seeds_only_label_the_row(counted):
    """``tune_seeds`` decides the row's role, never the work: left out of the work key, so a
    point whose stream is a tuning stream elsewhere reads the same evaluation."""
    assert A.work_key(dict(PARAMS, tune_seeds=[1])) == A.work_key(PARAMS)
    tune = A.point(dict(PARAMS, tune_seeds=[1]), seed=0)
    ev = A.point(dict(PARAMS, tune_seeds=[2]), seed=0)
    assert len(counted) == 1
    assert (tune["role"], ev["role"]) == ("tune", "eval")
    assert {k: v for k, v in tune.items() if k != "role"} == \
        {k: v for k, v in ev.items() if k != "role"}


def test_headroom_candidates_are_shared_between_points_of_one_stream(monkeypatch, tmp_path):
    """Points that differ in what only the methods read (here K and the method grid) have
    different work keys but the same headroom candidates: the second point runs none of them
    (``_plan_sums``), and its row equals one computed with no sharing at all."""
    from engines.planners.adaptive import headroom as H
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(A, "_WORK_MEM", {})
    monkeypatch.setattr(A, "_PLAN_SUMS_MEM", {})
    runs = []
    real = H.plan_epoch_sums

    def spy(*args, **kw):
        runs.append(args[3])
        return real(*args, **kw)

    monkeypatch.setattr(H, "plan_epoch_sums", spy)
    base = dict(PARAMS, planner="zstream", n=4, n_events=3000, check_every=10)
    first = A.point(base, seed=0)
    assert first["headroom_cands"] > 1 and runs            # candidates were run here
    other = dict(base, K=2, d_values=[0.1, 0.3])
    assert A.work_key(other) != A.work_key(base)
    del runs[:]
    served = A.point(other, seed=0)
    assert runs == []                                        # every candidate came from the cache
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", "")           # nothing shared at all
    monkeypatch.setattr(A, "_WORK_MEM", {})
    monkeypatch.setattr(A, "_PLAN_SUMS_MEM", {})
    fresh = A.point(other, seed=0)
    assert runs                                              # ... so they ran again
    for k in fresh:
        same = fresh[k] == served[k] or (isinstance(fresh[k], float) and math.isnan(fresh[k])
                                         and math.isnan(served[k]))
        assert same, k

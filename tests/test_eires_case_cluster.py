"""EIRES Fig 13b (section 7.4, cluster monitoring): the stand-in lifecycle stream's stated
properties (``workloads/eires_cluster.py``), the case-study queries on hand-built streams against
hand counts, and the remote kernel's matches equal the oracle's with the remote values resolved,
for every strategy and both caches."""
from __future__ import annotations

import re

import numpy as np
import pytest

from engines.compile import compile_pattern
from engines.errors import CepsimInputError
from engines.pattern import parse_pattern
from engines.remote.config import STRATEGIES
from engines.remote.kernel import run_remote
from engines.stream import EventStream
from remote_oracle import assert_every_strategy_equals_oracle
from workloads import eires_cluster as W

# a prefix of a lifecycle S C (E C)* (F|N), as a word over S(ubmit) C(schedule) E(vict)
# F(ail) N (finish): the stream's end may cut a task anywhere
_LIFE = re.compile(r"^S(C(EC)*(E|[FN])?)?$")
_LETTER = {W.SUBMIT: "S", W.SCHEDULE: "C", W.EVICT: "E", W.FAIL: "F", W.FINISH: "N"}


def _tasks(s):
    col = {a: i for i, a in enumerate(W.ATTRS)}
    out: dict = {}
    for i in range(len(s)):
        out.setdefault(int(s.attrs[i, col["task_id"]]), []).append(i)
    return out, col


def test_generator_lifecycles_machines_and_regions():
    s = W.generate(3000, 4, n_machines=50, n_regions=4, region_seed=9)
    assert len(s) == 3000 and s.schema.type_names == W.TYPES
    assert np.all(np.diff(s.ts) >= 0)
    reg = W.machine_regions(50, 4, 9)
    tasks, col = _tasks(s)
    n_sched = 0
    for tid, idx in tasks.items():
        word = "".join(_LETTER[int(s.types[i])] for i in idx)
        # every task's events, cut by the stream's end or not, are a prefix of a lifecycle
        assert _LIFE.match(word), word
        assert word.count("C") <= 6                          # max_schedules
        m_run = 0
        for i in idx:
            t, m = int(s.types[i]), int(s.attrs[i, col["machine_id"]])
            assert s.attrs[i, col["region"]] == reg[m]
            if t == W.SUBMIT:
                assert m == 0
            elif t == W.SCHEDULE:
                assert 1 <= m <= 50
                m_run = m
                n_sched += 1
            else:                                            # evict / fail / finish: its machine
                assert m == m_run
    assert n_sched > 0
    # deterministic given the arguments; another seed, another stream
    s2 = W.generate(3000, 4, n_machines=50, n_regions=4, region_seed=9)
    assert np.array_equal(s.attrs, s2.attrs) and np.array_equal(s.types, s2.types)
    assert not np.array_equal(W.generate(3000, 5, n_machines=50).attrs, s.attrs)


def test_region_table_is_the_stream_assignment():
    reg = W.machine_regions(30, 3, 2)
    assert reg[0] == 0 and set(reg[1:].tolist()) <= {1, 2, 3}
    tab = W.region_table(30, 3, 2)
    assert np.array_equal(tab.keys, np.arange(1, 31))
    assert np.array_equal(tab.values, reg[1:].astype(float))


def test_bad_input_is_named():
    with pytest.raises(CepsimInputError, match="p_evict"):
        W.generate(10, 1, p_evict=1.5)
    with pytest.raises(CepsimInputError, match="n_machines"):
        W.machine_regions(0, 3, 1)
    with pytest.raises(CepsimInputError, match="cluster_l4"):
        W.queries("P6")


def _hand(tasks):
    """A stream from per-task (machine of b, c, d, e, f, g) lifecycles Su Sc Ev Sc Ev Sc Fa and
    a region table given as {machine: region}."""
    types, attrs = [], []
    for tid, (ms, regions) in enumerate(tasks, 1):
        seq = [W.SUBMIT, W.SCHEDULE, W.EVICT, W.SCHEDULE, W.EVICT, W.SCHEDULE, W.FAIL]
        for t, m in zip(seq, [0] + list(ms)):
            types.append(t)
            attrs.append((tid, m, regions.get(m, 0)))
    n = len(types)
    return EventStream.from_arrays(np.array(types, np.int32), np.arange(n, dtype=float),
                                   np.array(attrs, float), W.TYPES, W.ATTRS)


def _count(text, s, remote, strategy="BL1"):
    prog = compile_pattern(parse_pattern(text), s.schema)
    return len(run_remote(prog, s, remote=remote, strategy=strategy, cache_size=2).matches)


def test_artifact_query_by_hand():
    """The artifact's check: the partial match dies when REMOTE[b.machine] (identity) equals
    d.machine.  Task 1 reschedules on the same machine (no match), task 2 on another (one)."""
    regions = {1: 1, 2: 2, 3: 3}
    s = _hand([((1, 1, 1, 1, 3, 3), regions), ((1, 1, 2, 2, 3, 3), regions)])
    text = W.queries("cluster")[0]
    for st in STRATEGIES:
        assert _count(text, s, None, st) == 1


def test_listing4_by_hand():
    """Listing 4: b.machine = c.machine, d.machine = e.machine, f.machine = g.machine,
    b.region != region(d.machine), d.region != region(f.machine)."""
    reg = {1: 1, 2: 2, 3: 1, 4: 2}
    tab = W.region_table(4, 2, 1)
    tab = type(tab).from_pairs([1, 2, 3, 4], [reg[m] for m in (1, 2, 3, 4)])
    s = _hand([((1, 1, 2, 2, 3, 3), reg),      # regions 1 -> 2 -> 1: a match
               ((1, 1, 3, 3, 2, 2), reg),      # 1 -> 1: d in b's region, no match
               ((1, 1, 2, 2, 4, 4), reg),      # 1 -> 2 -> 2: f in d's region, no match
               ((1, 2, 2, 2, 3, 3), reg)])     # c on another machine than b: no match
    text = W.queries("cluster_l4")[0]
    for st in STRATEGIES:
        assert _count(text, s, tab, st) == 1


@pytest.mark.parametrize("query", ["cluster", "cluster_l4"])
def test_kernel_equals_oracle(query):
    s = W.generate(260, 2, n_machines=4, n_regions=2, task_rate=0.05, p_evict=0.8, p_fail=0.9,
                   region_seed=2)
    tab = None if query == "cluster" else W.region_table(4, 2, 2)
    prog = compile_pattern(parse_pattern(W.queries(query)[0]), s.schema)
    assert_every_strategy_equals_oracle(prog, s, tab, latency_unit_us=1000.0)


@pytest.mark.parametrize("bad, match", [({"query": "Q1"}, "runs query cluster or cluster_l4"),
                                        ({"dataset": "bushfire", "query": "bushfire",
                                          "strategy_flags": "artifact"}, "use 'paper'")])
def test_case_points_are_checked_before_any_run(bad, match):
    """A case-study point with a query or strategy flags its data set does not have is refused
    by the scenario's up-front check (the runner exits 2 before any point runs)."""
    from sim.studies.eires.scenario import point
    with pytest.raises(CepsimInputError, match=match):
        point.check_params({"dataset": "cluster", "query": "cluster", **bad})
    point.check_params({"dataset": "DS1", "query": "Q1"})      # the synthetic points pass

"""EIRES (SIGMOD'21) Fig 13b: a seeded stand-in of the Google cluster task-lifecycle stream.

The paper's case study (section 7.1, section 7.4) runs Listing 4 over the Google Cluster Traces
(Reiss et al., "Google cluster-usage traces: format + schema", v2.1): task events submit (Su),
schedule (Sc), evict (Ev), fail (Fa), finish, each naming a task and, once scheduled, a machine.
The authors' sample of the trace (``data/google_cluster_monitoring_datasets/
sample_event_stream.dat.gz`` in zbjob/EIRES) is not in the mirror (an LFS pointer), so cepsim
draws a stand-in.

Taken from the trace's documented schema and the artifact's event types
(``run/google_cluster.eql``: GSubmit, GSchedule, GEvict, GFail, GFinish with ``task_id`` and
``machine_id``): the event kinds, the lifecycle order (a task is submitted, scheduled on a
machine, and then evicted - after which it is rescheduled on a machine - fails or finishes on
the machine it runs on), one ``task_id`` per task and a ``machine_id`` on every event after the
first schedule.  Taken from the paper: "information on the regions needs to be fetched from a
remote database" (section 7.1) - a remote table machine -> region (``region_table``).

Invented here (the defaults of ``generate``, each a stand-in, none from the trace):

* tasks start as a Poisson process of ``task_rate`` tasks per second;
* submit -> schedule and evict -> reschedule delays exponential, means ``sched_delay_s`` (10 s)
  and ``resched_delay_s`` (30 s); a run on a machine lasts an exponential ``run_s`` (300 s);
* a run ends in an eviction with probability ``p_evict`` (0.6), else in a failure with
  probability ``p_fail`` (0.5), else in a finish; at most ``max_schedules`` (6) schedules per
  task (the last run does not end in an eviction);
* every schedule draws its machine uniformly from 1..``n_machines`` (1,000; the trace has
  about 12,500), machines are assigned to ``n_regions`` (10) regions uniformly at random
  (seeded; the trace publishes no region: the paper's remote table is its own);
* ``region`` on an event is its machine's region (0 on a submit, which has no machine): the
  attribute Listing 4's ``b.region`` reads.

``ts`` is in seconds (the trace's timestamps are microseconds; the query's ``WITHIN 1h`` is a
time window).  Type codes are ``TYPES``' positions.
"""
from __future__ import annotations

import numpy as np

from engines.errors import CepsimInputError
from engines.stream import EventStream

TYPES = ("Submit", "Schedule", "Evict", "Fail", "Finish")
ATTRS = ("task_id", "machine_id", "region")
SUBMIT, SCHEDULE, EVICT, FAIL, FINISH = range(5)


def machine_regions(n_machines: int, n_regions: int, seed: int) -> np.ndarray:
    """``int64[n_machines + 1]``: the region (1..n_regions) of machine m at index m (index 0,
    "no machine", holds 0).  Uniform, seeded by ``seed``."""
    if n_machines < 1 or n_regions < 1:
        raise CepsimInputError("workload eires_cluster: n_machines and n_regions must be >= 1")
    rng = np.random.default_rng([int(seed), 13, 2])
    reg = np.zeros(n_machines + 1, np.int64)
    reg[1:] = rng.integers(1, n_regions + 1, n_machines)
    return reg


def region_table(n_machines: int, n_regions: int, seed: int):
    """The remote table machine_id -> region (``engines.remote.table.RemoteTable``)."""
    from engines.remote.table import RemoteTable
    reg = machine_regions(n_machines, n_regions, seed)
    return RemoteTable.from_pairs(np.arange(1, n_machines + 1, dtype=np.float64),
                                  reg[1:].astype(np.float64), "eires_cluster:regions")


def _lifecycles(rng, n_tasks, t0, p_evict, p_fail, max_schedules, n_machines, sched_delay_s,
                resched_delay_s, run_s):
    """Events (type, ts, task, machine) of ``n_tasks`` tasks started at times ``t0``."""
    typ, ts, task, mach = [], [], [], []
    for k in range(n_tasks):
        t = float(t0[k])
        tid = k + 1
        typ.append(SUBMIT); ts.append(t); task.append(tid); mach.append(0)
        t += rng.exponential(sched_delay_s)
        for s in range(max_schedules):
            m = int(rng.integers(1, n_machines + 1))
            typ.append(SCHEDULE); ts.append(t); task.append(tid); mach.append(m)
            t += rng.exponential(run_s)
            if s + 1 < max_schedules and rng.random() < p_evict:
                typ.append(EVICT); ts.append(t); task.append(tid); mach.append(m)
                t += rng.exponential(resched_delay_s)
                continue
            end = FAIL if rng.random() < p_fail else FINISH
            typ.append(end); ts.append(t); task.append(tid); mach.append(m)
            break
    return (np.array(typ, np.int32), np.array(ts, np.float64), np.array(task, np.float64),
            np.array(mach, np.int64))


def generate(n_events: int, seed: int, n_machines: int = 1000, n_regions: int = 10,
             task_rate: float = 1.0, p_evict: float = 0.6, p_fail: float = 0.5,
             max_schedules: int = 6, sched_delay_s: float = 10.0, resched_delay_s: float = 30.0,
             run_s: float = 300.0, region_seed: int = 1) -> EventStream:
    """The first ``n_events`` events (in time order) of the stand-in lifecycle stream (see the
    module docstring); deterministic given the arguments.  ``region_seed`` seeds the machine ->
    region assignment (``machine_regions``), shared with the remote table."""
    if n_events < 0:
        raise CepsimInputError(f"workload eires_cluster: n_events must be >= 0, got {n_events}")
    if not (0.0 <= p_evict <= 1.0 and 0.0 <= p_fail <= 1.0):
        raise CepsimInputError("workload eires_cluster: p_evict and p_fail must lie in [0, 1]")
    if max_schedules < 1 or task_rate <= 0 or min(sched_delay_s, resched_delay_s, run_s) <= 0:
        raise CepsimInputError("workload eires_cluster: max_schedules must be >= 1, task_rate "
                               "and the delays > 0")
    reg = machine_regions(n_machines, n_regions, region_seed)
    # expected events per task: 1 submit + per run a schedule and an end event
    runs = sum(p_evict ** s for s in range(max_schedules))
    per_task = 1.0 + 2.0 * runs
    n_tasks = int(np.ceil(n_events / per_task * 1.3)) + 10
    while True:
        # only events up to the last task's start are drawn in full: keep those, in time order;
        # too few (a short stream, lifecycles longer than its span) -> twice the tasks, redrawn
        # from the same seed
        rng = np.random.default_rng([int(seed), 13, 1])
        t0 = np.cumsum(rng.exponential(1.0 / task_rate, n_tasks))
        typ, ts, task, mach = _lifecycles(rng, n_tasks, t0, p_evict, p_fail, max_schedules,
                                          n_machines, sched_delay_s, resched_delay_s, run_s)
        order = np.argsort(ts, kind="stable")
        order = order[ts[order] <= t0[-1]][:n_events]
        if len(order) == n_events:
            break
        n_tasks *= 2
    typ, ts, task, mach = typ[order], ts[order], task[order], mach[order]
    attrs = np.stack([task, mach.astype(np.float64), reg[mach].astype(np.float64)], axis=1)
    return EventStream.from_arrays(typ, ts, attrs, TYPES, ATTRS, source="eires:cluster")


def queries(query: str, greedy: bool = True) -> list[str]:
    """Pattern texts of the cluster-monitoring case study.

    ``cluster`` (default) - the query the artifact ran (``run/run_google_cluster.sh``: ``-q
    P7`` of ``run/google_cluster.eql``, SEQ(GSubmit a, GSchedule b, GEvict c, GSchedule d,
    GEvict e, GSchedule f, GFail g) WHERE [task_id] WITHIN 1h) with the remote predicate its
    ``cep_match`` hard-codes (``src/EIRES_google_cluster_monitoring/cep_match/cep_match.cpp``
    lines 631-633: key = partial-match slot 2, compared with slot 3, checked on entering state
    5; P7's sorted attribute map puts b.machine_id at slot 2 and d.machine_id at slot 3;
    ``PatternMatcher.cpp`` lines 563-589 drop the partial match when the fetched value equals
    slot 3, the value being the key itself, line 582): ``d.machine_id != REMOTE[b.machine_id]
    AT e`` over an identity table.

    ``cluster_l4`` - Listing 4 as written: SAME[task_id], b.machine = c.machine, d.machine =
    e.machine, f.machine = g.machine, ``b.region NOT IN REMOTE[d.machine]`` and ``d.region NOT
    IN REMOTE[f.machine]``.  The remote table maps a machine to one region, so NOT IN a
    one-valued set is ``!=``: ``b.region != REMOTE[d.machine_id]`` (checked at d) and
    ``d.region != REMOTE[f.machine_id]`` (checked at f), over ``region_table``.
    Greedy = skip-till-any-match (section 7.4: "under greedy selection").
    """
    pol = "skip-till-any-match" if greedy else "skip-till-next-match"
    seq = "SEQ(Submit a, Schedule b, Evict c, Schedule d, Evict e, Schedule f, Fail g)"
    if query == "cluster":
        return [f"PATTERN {seq} WHERE SAME[task_id] AND d.machine_id != REMOTE[b.machine_id] "
                f"AT e WITHIN 1 hours POLICY {pol}"]
    if query == "cluster_l4":
        return [f"PATTERN {seq} WHERE SAME[task_id] AND b.machine_id = c.machine_id AND "
                "d.machine_id = e.machine_id AND f.machine_id = g.machine_id AND "
                "b.region != REMOTE[d.machine_id] AT d AND d.region != REMOTE[f.machine_id] AT f "
                f"WITHIN 1 hours POLICY {pol}"]
    raise CepsimInputError(f"workload eires_cluster: query {query!r} is unknown; use cluster or "
                           "cluster_l4")

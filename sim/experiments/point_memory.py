"""Memory-aware admission for ``cepsim reproduce``'s shared pool (peak memory).

The pool (``sim.experiments.reproduce_pool``) runs two (or more) points at once.  Most points need a few
hundred MB, but a few need gigabytes (DARLING's ``cap_binding`` on a 4.2M-event stream, the ICDE'20
shedder learning from millions of sampled partial matches), and when two of those meet, the
process tree's peak is the sum.  So the pool admits a point only when the memory it is expected
to need fits in a budget next to what the workers already hold:

    parent RSS + sum over workers of their retained RSS (after their last point)
               + sum over points in flight of their expected growth + this point's growth
    <= budget

A point's *growth* is the worker's peak resident memory during the point minus its resident
memory when the point started (Linux: ``VmHWM`` reset through ``/proc/self/clear_refs``, the same
measure as ``sim/experiments/pointlog.py``).  Expected growths come from

1. the growths measured for the same config in an earlier run, stored beside its results
   (``<root>/<paper>/<name>/point_memory.json``, written atomically when the experiment
   finishes, merged with the stored ones for points this run did not rerun), else
2. the largest growth stored for, or measured so far in this run of, the same experiment
   (points of one experiment are alike; an interrupted run leaves the stored file incomplete),
   else
3. zero: nothing is known yet, so the point is admitted as before.

A point is always admitted when nothing is in flight, so a point larger than the budget runs,
alone.  Rows are unchanged: admission only decides when a point starts.  Machine facts stay out
of the rows (they must be identical across backends); this file is a scheduling hint, not a
result, and a missing or unreadable one only means no hint.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from sim.experiments.worker_memory import rss_mb

FILE = "point_memory.json"
#: ``cepsim reproduce``'s default budget (MB): 0 = no admission rule.  Not on by default: a
#: budget is a fact of the machine, not of the reproduction, and the gate needs stored growths
#: to be useful (without them a 4,096 MB budget holds the pool to one point at a time and still
#: peaks at 6,277 MB).  Use ``--memory-budget-mb`` on a rerun whose results root holds the stored
#: growths, as the committed ``results/full`` does: the full run under 4,096 MB peaks at
#: 3,824 MB (``docs/reproduction/full_timing.md``).
DEFAULT_BUDGET_MB = 0.0
#: Under a budget, workers drop memo entries of this many MB or more after every point, their own
#: paper's included (``sim.experiments.worker_memory.drop_bulky_entries``): the retained memory
#: that keeps a run without stored growths over its budget is DARLING's 4.2M-event stream and its
#: reference runs (about 530 MB per worker); recomputing them costs about 3 s per 4.2M-event point
#: (the stream is generated in a compiled loop and the reference run, a few scalars, is read back
#: from the counter cache: ``sim.studies.darling.scenario.reference``).  The
#: adaptive scenario's shared evaluations and every 50k-event stream are far smaller and stay.
BULKY_ENTRY_MB = 64.0

def start_point() -> Optional[float]:
    """In a worker, before a point: reset the peak-memory mark; return the resident MB now
    (None where the mark cannot be reset)."""
    from sim.experiments.pointlog import reset_peak_rss
    return rss_mb() if reset_peak_rss() else None


def finish_point(rss_start: Optional[float]) -> dict:
    """In a worker, after a point (and after ``sim.experiments.worker_memory`` released what it could):
    ``{"pid", "growth_mb", "retained_mb"}`` (None where not measurable)."""
    from sim.experiments.pointlog import peak_rss_mb
    peak = peak_rss_mb() if rss_start is not None else None
    return {"pid": os.getpid(),
            "growth_mb": None if peak is None else max(0.0, peak - rss_start),
            "retained_mb": rss_mb()}


def _key(point_id: str, rep: int) -> str:
    return f"{point_id}/{int(rep)}"


def read_growths(exp_dir: Path, fingerprint: str) -> dict:
    """``{"point_id/rep": growth MB}`` stored for this config fingerprint; {} when none."""
    try:
        d = json.loads((Path(exp_dir) / FILE).read_text())
        if d.get("config_fingerprint") != fingerprint:
            return {}
        return {str(k): float(v) for k, v in d.get("growth_mb", {}).items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def write_growths(exp_dir: Path, fingerprint: str, measured: dict, commit: str | None) -> None:
    """Store ``measured`` (``{"point_id/rep": MB}``) merged over the stored growths of the same
    fingerprint (points this run resumed keep theirs); atomic."""
    from sim.experiments.results import write_json_atomic
    if not measured:
        return
    merged = read_growths(exp_dir, fingerprint)
    merged.update({k: round(float(v), 1) for k, v in measured.items()})
    write_json_atomic({"config_fingerprint": fingerprint, "commit": commit,
                       "what": "per point: the worker's peak resident memory during the point "
                               "minus its resident memory at the start (MB); a scheduling hint "
                               "for cepsim reproduce (sim/experiments/point_memory.py), not a result",
                       "growth_mb": merged}, Path(exp_dir) / FILE)


class MemoryGate:
    """The admission rule of the module docstring, for one pool.

    ``budget_mb`` <= 0 admits everything.  ``expected(exp, key)`` is a point's expected growth;
    ``admit(growth, in_flight)`` says whether a point of that growth may start now."""

    def __init__(self, budget_mb: float, stored: list[dict], parent_pid: int | None = None):
        self.budget = float(budget_mb)
        self.stored = stored                       # per experiment: {"point_id/rep": MB}
        self.seen: dict[int, float] = {}           # per experiment: largest growth this run
        self.retained: dict[int, float] = {}       # worker pid -> RSS after its last point
        self.measured: dict[int, dict] = {}        # per experiment: growths measured this run
        self.parent_pid = os.getpid() if parent_pid is None else parent_pid

    @property
    def active(self) -> bool:
        return self.budget > 0

    def expected(self, exp: int, point_id: str, rep: int) -> float:
        """The point's stored growth; without one, the largest growth stored for or measured in
        this run of its experiment (with only what this run has measured, a 4.2M-event
        ``cap_binding`` point missing from an incomplete stored file would be expected to grow
        like the 50k-event points measured before it, and two would run at once)."""
        stored = self.stored[exp] if exp < len(self.stored) else {}
        v = stored.get(_key(point_id, rep))
        if v is not None:
            return v
        return max(self.seen.get(exp, 0.0), max(stored.values(), default=0.0))

    def record(self, exp: int, point_id: str, rep: int, facts: dict | None) -> None:
        """A point is back with its worker's ``finish_point`` facts."""
        if not facts:
            return
        g = facts.get("growth_mb")
        if g is not None:
            self.measured.setdefault(exp, {})[_key(point_id, rep)] = g
            self.seen[exp] = max(self.seen.get(exp, 0.0), g)
        if facts.get("retained_mb") is not None and facts.get("pid") is not None:
            self.retained[int(facts["pid"])] = float(facts["retained_mb"])

    def held_mb(self, n_workers: int) -> float:
        """Parent RSS + the workers' retained RSS (workers not yet heard from: the parent's, as
        a worker starts with the modules the parent has imported)."""
        parent = rss_mb(self.parent_pid) or 0.0
        known = list(self.retained.values())[:n_workers]
        return parent + sum(known) + parent * max(0, n_workers - len(known))

    def admit(self, growth: float, in_flight: list[float], n_workers: int) -> bool:
        if not self.active or not in_flight:
            return True
        return self.held_mb(n_workers) + sum(in_flight) + growth <= self.budget

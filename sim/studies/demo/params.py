"""Declared parameters of the demo scenario (``sim.studies.demo.scenario``; checked by
``sim.experiments.params`` before any point runs)."""
from __future__ import annotations

from sim.experiments.params import Declaration, Param

POINT = Declaration("demo:point", params=(
    Param("mu", "float", 0.0, "mean of the normal samples"),
    Param("sigma", "float", 1.0, "standard deviation of the normal samples", low=0),
    Param("n", "int", 100, "number of samples drawn per point", low=1),
    Param("fail_mu", "float", None, "optional: raise RuntimeError at the point whose mu equals "
          "it (failure recording)"),
    Param("sleep_s", "float", 0, "seconds to sleep in the point (slow sweeps to interrupt)",
          low=0),
    Param("work_s", "float", 0, "CPU seconds to burn in a pure-Python loop (backend "
          "benchmarks)", low=0),
    Param("alloc_mb", "float", 0, "MB of memory touched and freed during the point (memory "
          "admission, sim.experiments.point_memory)", low=0),
    Param("label", "any", None, "a row label only: the scenario never reads it"),
    Param("n_events", "int", None, "a stream length for run-time estimates "
          "(sim.experiments.estimate scales by it); the demo scenario never reads it", low=1),
))

DECLARATIONS = {d.scenario: d for d in (POINT,)}

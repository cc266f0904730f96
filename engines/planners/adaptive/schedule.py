"""The plan schedule one decision function produces: epochs, their plans and the adaptation work.

Built by the controller pass (``engines.planners.adaptive.controller``, with the compiled checks
of ``fastctl``) and evaluated by ``engines.planners.adaptive.epochs``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Schedule:
    kind: str                    # "order" | "tree"
    starts: list[int]            # epoch start positions (starts[0] = 0)
    plans: list[tuple]           # plan of each epoch
    charges: np.ndarray          # int64[n, N_COUNTERS] adaptation work
    n_checks: int
    n_planner_calls: int
    n_replacements: int
    false_pos: int
    false_neg: int
    n_better_available: int      # checks at which the shadow A returned a different plan
    d_avg0: float                # d_avg of the initial plan

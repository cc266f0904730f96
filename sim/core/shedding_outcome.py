"""What a shedding queue's server loop (the Python reference or the compiled one) hands back."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class LoopOutcome:
    """What a server loop (Python ``_serve_python`` or compiled
    ``queue_kernel.run_compiled``) hands to ``run_shedding``'s metrics."""

    start: np.ndarray           # float64 per event: service start (NaN if never served)
    depart: np.ndarray          # float64 per event: departure (NaN if never served)
    served: np.ndarray          # bool per event
    lat: np.ndarray             # the measured latencies (``ShedResult.match_latency``)
    keys: np.ndarray | None     # their bindings with ``keep_keys``
    vetoed: int
    peak_mem: int
    peak_bound: int
    peak_live: int
    peak_slots: int             # storage slots, window accounting (``leaf_mask``)
    peak_slots_lazy: int        # storage slots, the artifact's lazy expiry (-1 without a store)
    warm_matches: int
    n_over: int
    ingest_busy: float
    server_shed_s: float
    replication_s: float
    shed_tot: np.ndarray        # int64[N_COUNTERS]: the shedder's work
    totals: np.ndarray          # int64[N_COUNTERS]: the engine's work

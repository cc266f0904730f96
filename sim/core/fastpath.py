"""Fast path: the FIFO single-server queue by the Lindley recursion (docs/ARCHITECTURE.md, "The simulator").

When service times cannot depend on timing (no shedding, no remote fetches) the whole
queue is one pass: ``start_i = max(a_i, depart_{i-1})``, ``depart_i = start_i + s_i``.
This is ~1000x faster than the SimPy process and agrees with it to ~1e-10 relative
(``tests/test_fastpath_vs_simpy.py``).
"""
from __future__ import annotations

from engines.queueing import lindley

__all__ = ["lindley"]

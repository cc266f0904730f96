"""cepsim simulator: virtual-time queueing of engine work (``docs/ARCHITECTURE.md``).

``arrivals`` (arrival processes), ``costmodel`` (counters -> service times), ``fastpath``
(Numba Lindley recursion), ``queue`` (SimPy FIFO server for time-dependent service),
``metrics`` (latency and queue summaries) and ``simulate`` (the facade tying an engine run
to a queue run).  The experiment runner and CLI live beside them.
"""

import engines as _engines  # noqa: E402,F401  (fixes the Numba cache location before numba loads)

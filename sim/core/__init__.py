"""The virtual-time kernel: arrivals, the cost model, the single-server queue and its metrics.

``arrivals`` (arrival processes), ``costmodel`` (counters -> service times, cost profiles in
``profiles/``), ``fastpath`` (the Lindley recursion, compiled), ``queue`` (the SimPy FIFO
server), ``metrics`` (latency and queue summaries), ``simulate`` (engine run -> cost model ->
queue -> metrics), ``remote_queue`` (the SimPy reference of the remote-data kernel) and
``shedding_queue`` (the server that steps the engine one event at a time for load shedders,
compiled in ``shedding_queue_kernel``).  The kernel imports only ``engines``: nothing here knows
about experiments, papers or the command line.
"""

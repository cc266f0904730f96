"""cepsim engines: pure computation over columnar event streams.

Event arrays in, matches and per-event operation counters out. No SimPy, no I/O.
"""

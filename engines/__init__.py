"""cepsim engines: pure computation over columnar event streams.

Event arrays in, matches and per-event operation counters out. No SimPy, no I/O.
Importing the package fixes the Numba kernel cache location first (``engines.jitcache``).
"""
from engines.jitcache import ensure_numba_cache_dir as _ensure_numba_cache_dir

_ensure_numba_cache_dir()

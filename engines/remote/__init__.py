"""Remote data in CEP (EIRES, SIGMOD'21): the remote store model, fetch strategies and caches.

``config`` holds the options and their validation, ``store`` the remote store's numba helpers
(latency RNG, FIFO workers, in-flight heap), ``kernel`` the virtual-time evaluator and
``run_remote`` (registered as engine ``remote``).
"""

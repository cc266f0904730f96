"""Running experiments: configs, grid points, backends, results, claims and reports.

``config`` (TOML -> validated ``ExperimentConfig`` -> points), ``functions`` (where a config's
``study:function`` names live), ``runner`` (one experiment on one backend), ``sweep`` /
``spark_backend`` / ``backends`` (parallel backends), ``reproduce_pool`` / ``spark_reproduce``
(every experiment on one pool or one Spark job), ``estimate`` (``--dry-run``), ``warmup``,
``point_memory`` / ``worker_memory`` / ``pointlog`` (memory admission and per-point resources),
``results`` / ``staleness`` (stored rows and their config fingerprints), ``claims``,
``figures`` (shared figure helpers), ``report`` (HTML), ``inputs``, ``cache``, ``listing``,
``progress``.  It imports the kernel (``sim.core``) and ``engines``; it loads the studies
(``sim.studies``) by name, never by import.
"""

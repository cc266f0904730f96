"""Planners and optimizers: they choose what an evaluator runs, they match nothing themselves.

``apam`` (CIKM'16: per-variable eager/lazy split by the M/G/1 cost model) and ``adaptive``
(PVLDB'18: statistics, greedy and ZStream planners with invariants, decision functions, the
re-planning controller and epochs).
"""

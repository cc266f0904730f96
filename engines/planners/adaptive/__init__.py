"""Adaptive re-planning (Kolchinsky & Schuster, PVLDB 2018): plan-independent statistics,
the greedy-order and ZStream planners with their invariants, decision functions, the controller
that turns a stream into a plan schedule, and the epoch runner that executes the schedule."""

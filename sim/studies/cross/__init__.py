"""The cross-paper strategy matrix: each paper's headline workload x every applicable strategy.

``scenario``, ``claims``, ``figures``.
"""

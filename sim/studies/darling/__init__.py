"""PVLDB'22 DARLING: data-aware load shedding under a latency bound (Figures 6-10).

``scenario``, ``claims``, ``figures``; ``cap`` (whether the paper's 30-minute latency cap binds).
"""

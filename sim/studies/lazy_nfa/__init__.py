"""DEBS'15 lazy evaluation (Kolchinsky et al.): eager vs lazy chain vs tree NFA (Figures 7-10).

``scenario``, ``claims``, ``figures``.
"""

"""SIGMOD'21 EIRES: remote data in CEP (Figures 5-12).

``scenario`` (per-point computation), ``claims`` (the claim functions), ``figures``; ``refs``
(the authors' ``plot/dat`` files, the reference some claims are judged against).
"""

"""SIGMOD'21 EIRES: remote data in CEP (Figures 5-12).

``scenario``, ``claims``, ``figures``; ``refs`` (the paper's text and the authors' ``plot/dat`` as references).
"""

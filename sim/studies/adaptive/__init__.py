"""PVLDB'18 (Kolchinsky & Schuster), adaptive CEP: when to re-plan (Figures 5-7).

``scenario`` (one point), ``runs`` (the epoch evaluation of every decision method),
``claims``, ``analysis`` (the result-table helpers claims and figures share), ``figures``.
"""

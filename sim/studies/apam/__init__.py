"""CIKM'16 APAM: per-event-type eager/lazy plans chosen by an M/G/1 latency model (Figures 4-6).

``scenario``, ``claims``, ``figures``.
"""

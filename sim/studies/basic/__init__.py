"""The simulator checked against queueing theory (M/G/1; APAM CIKM'16 section 4.1 models the engine so).

``scenario``, ``claims``, ``figures``.
"""

"""Evaluators: Numba kernels that run a compiled ``Program`` over a stream.

Each returns matches and the per-event operation counters (``engines.counters``):
``eager`` (eager NFA, native AND; helpers ``eager_tables``, ``eager_preds``, ``eager_out``,
``nfa_buffers``), ``lazy_nfa`` (lazy chain and tree NFA, DEBS'15), ``ztree`` (ZStream tree plans;
plan text and tables in ``ztree_plan``), ``hybrid`` (APAM's eager/lazy split on ``ztree``),
``sase`` (SASE's run loop) and ``stepper`` (the eager NFA one event at a time, for load shedders).
"""

"""``leaf_njit``: ``@njit(cache=True)`` without Numba's reference counting, for helpers that kernels
call in their hot loops.

Why.  A Numba function that takes arrays increments their reference counts on entry and
decrements them on every exit (atomic ``NRT_incref`` / ``NRT_decref``).  Numba's pruning pass
removes these pairs only in simple control flow; a helper with several returns, or one that
calls another non-inlined function (which might raise), keeps them, and then pays four to
twenty atomic operations per call.  Measured with ``perf`` (samples on the two ``lock``
instructions of ``NRT_incref`` / ``NRT_decref``): 26 % of a ZStream AND run, attributed through
the return address on the stack to ``engines.predicates.eval_pred`` (called once per predicate
check), and 44 % of a lazy chain OR run, of which all but about 4 % went once ``eval_pred`` and
the chain's binary search became leaf helpers.

A helper compiled with ``_nrt=False`` (a Numba option) emits no reference counting at all.
That is safe for a function that allocates nothing and keeps no reference to an array beyond
its own call -- it only reads and writes elements of arrays its caller owns -- which is what
every function decorated here does.  (An allocation inside one fails at compile time.)  Results
are bit for bit the same; only time changes.
"""
from __future__ import annotations

from numba import njit


def leaf_njit(fn=None, **options):
    """``@leaf_njit`` or ``@leaf_njit(inline=...)``: ``njit(cache=True, _nrt=False, **options)``."""
    def wrap(f):
        return njit(cache=True, _nrt=False, **options)(f)
    return wrap(fn) if fn is not None else wrap

"""Predicate evaluation, shared by every Numba evaluator.

``eval_pred(pred_i, pred_f, p, attrs, e1, e2)`` evaluates predicate ``p`` of a compiled
``Program`` with event ``e1`` bound to its first variable and ``e2`` to its second (ignored for
one-variable predicates).  A correlation predicate whose vector length is stored negated
(``-n``) reads operands that ``engines.corr_prep`` centred once per event: its columns point at
``n`` centred values followed by their sum of squares (``pearson_centred``, the same
operations as ``pearson`` in the same order, so the same result bit for bit).  ``PK_REMOTE`` predicates are not evaluated here: they need the remote
store of the remote-data engines, and evaluators that meet one must refuse the program before
running (``engines.registry`` does).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from engines.leaf_jit import leaf_njit
from engines.compile import (OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, PK_ABS, PK_CMP, PK_CORR)


@njit(cache=True, inline="always")
def compare(op: int, x: float, y: float) -> bool:
    if op == OP_LT:
        return x < y
    if op == OP_LE:
        return x <= y
    if op == OP_GT:
        return x > y
    if op == OP_GE:
        return x >= y
    if op == OP_EQ:
        return x == y
    return x != y


@leaf_njit
def pearson(attrs: np.ndarray, e1: int, c1: int, e2: int, c2: int, n: int) -> float:
    """Pearson correlation of two vector attributes (two-pass; NaN when a variance is zero)."""
    m1 = 0.0
    m2 = 0.0
    for k in range(n):
        m1 += attrs[e1, c1 + k]
        m2 += attrs[e2, c2 + k]
    m1 /= n
    m2 /= n
    sxy = 0.0
    sxx = 0.0
    syy = 0.0
    for k in range(n):
        dx = attrs[e1, c1 + k] - m1
        dy = attrs[e2, c2 + k] - m2
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    if sxx == 0.0 or syy == 0.0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


@leaf_njit
def pearson_centred(attrs: np.ndarray, e1: int, c1: int, e2: int, c2: int, n: int) -> float:
    """``pearson`` on operands centred once per event (``engines.corr_prep``): ``attrs[e, c:c+n]``
    hold ``x - mean(x)`` and ``attrs[e, c+n]`` their sum of squares, each computed by
    ``pearson``'s own operations, so only the cross-product loop is left per pair."""
    sxy = 0.0
    for k in range(n):
        sxy += attrs[e1, c1 + k] * attrs[e2, c2 + k]
    sxx = attrs[e1, c1 + n]
    syy = attrs[e2, c2 + n]
    if sxx == 0.0 or syy == 0.0:
        return math.nan
    return sxy / math.sqrt(sxx * syy)


@leaf_njit
def eval_pred(pred_i: np.ndarray, pred_f: np.ndarray, p: int, attrs: np.ndarray, e1: int,
              e2: int) -> bool:
    kind = pred_i[p, 0]
    op = pred_i[p, 1]
    c1 = pred_i[p, 3]
    c2 = pred_i[p, 5]
    if kind == PK_CMP:
        if pred_i[p, 4] < 0:
            return compare(op, attrs[e1, c1], pred_f[p, 1])
        return compare(op, attrs[e1, c1], attrs[e2, c2] * pred_f[p, 0] + pred_f[p, 1])
    if kind == PK_ABS:
        return compare(op, abs(attrs[e1, c1] - attrs[e2, c2]), pred_f[p, 1])
    if kind == PK_CORR:
        n = pred_i[p, 6]
        if n < 0:
            return compare(op, pearson_centred(attrs, e1, c1, e2, c2, -n), pred_f[p, 1])
        return compare(op, pearson(attrs, e1, c1, e2, c2, n), pred_f[p, 1])
    return False

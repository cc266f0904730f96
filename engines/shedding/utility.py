"""DARLING's event utility, Eq. (11): the probability that an event passes every condition
that mentions its type, given Normal fits of the other attributes (PVLDB'22 section 4.3).

For each condition ``c`` of the pattern and each variable ``v`` it mentions, an event ``e`` of
``v``'s type gets ``phi_c(e)``:

* a one-variable condition (``b.v > 10``): 1 when ``e`` satisfies it, else 0 ("a failed unary
  predicate gives 0");
* ``x.a OP y.b * s + o`` with ``e`` in the role of ``x``: ``P(e.a OP Y*s + o)`` with
  ``Y ~ N(mu, sigma^2)`` fitted to attribute ``b`` of ``y``'s type (so ``Y*s + o ~ N(mu*s + o,
  (|s| sigma)^2)``); in the role of ``y``: ``P(X OP e.b*s + o)`` with ``X`` fitted to ``x.a``;
* ``|x.a - y.b| <= K`` (``<``): ``P(|e.a - Y| <= K) = Phi((e.a + K - mu)/sigma) -
  Phi((e.a - K - mu)/sigma)`` (the complement for ``>=``/``>``);
* equality / inequality and correlation conditions cannot be priced from Normal fits here:
  they contribute 1 (stated in the docs, not used by the DARLING queries).

``U(e) = prod_c phi_c(e)`` over the conditions mentioning ``e``'s type (both roles when a
condition mentions the type twice).  A zero standard deviation is floored at 1e-12 of the
mean's magnitude (a point mass behaves as a step).  ``n_terms[type]`` is ``|C_type(T)|``, the
number of factors an utility evaluation costs (UTILITY_UPDATE operations per event).
"""
from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from engines.compile import (OP_EQ, OP_GE, OP_GT, OP_LE, OP_LT, OP_NE, PI_C1, PI_C2, PI_KIND,
                             PI_OP, PI_V1, PI_V2, PK_ABS, PK_CMP, Program)


def fit_normals(attrs: np.ndarray, types: np.ndarray, n_types: int) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """Mean and standard deviation of every attribute per type (``float64[n_types, A]``);
    types absent from the sample get mean 0 and std 1."""
    mu = np.zeros((n_types, attrs.shape[1]))
    sd = np.ones((n_types, attrs.shape[1]))
    for t in range(n_types):
        x = attrs[types == t]
        if len(x) >= 2:
            mu[t] = x.mean(axis=0)
            sd[t] = x.std(axis=0)
    sd = np.maximum(sd, 1e-12 * np.maximum(np.abs(mu), 1.0))
    return mu, sd


def _p_less(x: np.ndarray, mu: float, sd: float) -> np.ndarray:
    """P(x < Z) for Z ~ N(mu, sd^2), elementwise."""
    return 1.0 - ndtr((x - mu) / sd)


def utilities(program: Program, attrs: np.ndarray, types: np.ndarray, mu: np.ndarray,
              sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(utility float64[n], n_terms int64[n_types]) for every event (module docstring)."""
    n = len(types)
    nt = mu.shape[0]
    u = np.ones(n)
    n_terms = np.zeros(nt, dtype=np.int64)
    br = program.branches[0]
    for p in (int(x) for x in br.pred_ids):
        kind = int(program.pred_i[p, PI_KIND])
        op = int(program.pred_i[p, PI_OP])
        v1, v2 = int(program.pred_i[p, PI_V1]), int(program.pred_i[p, PI_V2])
        c1, c2 = int(program.pred_i[p, PI_C1]), int(program.pred_i[p, PI_C2])
        sc, of = float(program.pred_f[p, 0]), float(program.pred_f[p, 1])
        t1 = int(program.var_type[v1])
        if v2 < 0 or v2 == v1:
            sel = types == t1
            x = attrs[sel, c1]
            if kind == PK_CMP and v2 < 0:
                phi = _cmp_const(op, x, of)
            else:
                phi = np.ones(len(x))
            u[sel] *= phi
            n_terms[t1] += 1
            continue
        t2 = int(program.var_type[v2])
        for role, t in ((1, t1), (2, t2)):
            sel = types == t
            if not sel.any():
                n_terms[t] += 1
                continue
            if kind == PK_CMP:
                if role == 1:   # e.a OP Y*s + o
                    x = attrs[sel, c1]
                    m_, s_ = mu[t2, c2] * sc + of, sd[t2, c2] * abs(sc)
                    s_ = max(s_, 1e-300)
                    p_lt = _p_less(x, m_, s_)            # P(x < Z)
                    phi = _by_op(op, lt=p_lt, gt=1.0 - p_lt)
                else:           # X OP e.b*s + o
                    z = attrs[sel, c2] * sc + of
                    px_lt = ndtr((z - mu[t1, c1]) / sd[t1, c1])   # P(X < z)
                    phi = _by_op(op, lt=px_lt, gt=1.0 - px_lt)
            elif kind == PK_ABS:
                if role == 1:
                    x = attrs[sel, c1]
                    m_, s_ = mu[t2, c2], sd[t2, c2]
                else:
                    x = attrs[sel, c2]
                    m_, s_ = mu[t1, c1], sd[t1, c1]
                inside = ndtr((x + of - m_) / s_) - ndtr((x - of - m_) / s_)
                phi = inside if op in (OP_LT, OP_LE) else 1.0 - inside
            else:
                phi = np.ones(int(sel.sum()))
            u[sel] *= phi
            n_terms[t] += 1
    return np.clip(u, 0.0, 1.0), n_terms


def _cmp_const(op: int, x: np.ndarray, c: float) -> np.ndarray:
    ok = {OP_LT: x < c, OP_LE: x <= c, OP_GT: x > c, OP_GE: x >= c, OP_EQ: x == c,
          OP_NE: x != c}[op]
    return ok.astype(np.float64)


def _by_op(op: int, lt: np.ndarray, gt: np.ndarray) -> np.ndarray:
    """``lt`` = P(left < right), ``gt`` = P(left > right) (continuous: <= same as <)."""
    if op in (OP_LT, OP_LE):
        return lt
    if op in (OP_GT, OP_GE):
        return gt
    return np.ones_like(lt)

"""Correlation operands centred once per event instead of once per evaluated pair.

``corr(x.h, y.h) OP c`` (``PK_CORR``) is Pearson's correlation of two vector attributes;
``engines.predicates.pearson`` centres both vectors and sums their squares on every call, so an
event that meets a thousand partners is centred a thousand times (the DEBS'15 query: 32.7 ns
per evaluation on 20-value histories, of which the cross-product is a third).  ``prepare_corr``
does that part once per event and operand column: it appends to the stream's attribute matrix,
per distinct (column, length) a correlation reads, ``n`` columns of centred values and one of
their sum of squares, and gives a program whose correlation predicates point at them (their
vector length stored negated, which ``eval_pred`` reads as "centred operands").  The centring
runs ``pearson``'s own operations in the same order (sum, divide, subtract, multiply-add), so
every correlation -- and every match, counter and time -- is the same bit for bit; only the
time per evaluation changes.

``run_engine`` applies it for the compiled evaluators whose kernels read correlations through
``eval_pred`` (``engines.registry``); the oracle and the remote engine keep the plain program.
"""
from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from engines.compile import PI_C1, PI_C2, PI_KIND, PI_VLEN, PK_CORR, Program
from engines.program_memo import program_memo
from engines.stream import EventStream

def corr_operands(program: Program) -> list[tuple[int, int]]:
    """The distinct (first column, length) vector operands of the program's correlation
    predicates, in the order their centred blocks are appended."""
    seen: list[tuple[int, int]] = []
    for row in program.pred_i:
        if int(row[PI_KIND]) != PK_CORR or int(row[PI_VLEN]) <= 0:
            continue
        for c in (int(row[PI_C1]), int(row[PI_C2])):
            op = (c, int(row[PI_VLEN]))
            if op not in seen:
                seen.append(op)
    return seen


def prepared_program(program: Program) -> Program:
    """``program`` with each correlation predicate reading centred operands: its columns point
    at the operand's centred block (appended after the schema's attributes in
    ``corr_operands`` order) and its length is stored as ``-n``.  The program itself when it
    has no correlation predicate; memoized per program."""
    ops = corr_operands(program)
    if not ops:
        return program
    memo = program_memo(program)
    hit = memo.get("corr_prepared")
    if hit is not None:
        return hit
    base = len(program.schema.attr_names)
    start = {}
    for c, n in ops:
        start[(c, n)] = base
        base += n + 1
    pred_i = program.pred_i.copy()
    for p in range(len(pred_i)):
        if int(pred_i[p, PI_KIND]) != PK_CORR or int(pred_i[p, PI_VLEN]) <= 0:
            continue
        n = int(pred_i[p, PI_VLEN])
        pred_i[p, PI_C1] = start[(int(pred_i[p, PI_C1]), n)]
        pred_i[p, PI_C2] = start[(int(pred_i[p, PI_C2]), n)]
        pred_i[p, PI_VLEN] = -n
    prepared = dataclasses.replace(program, pred_i=pred_i)
    memo["corr_prepared"] = prepared
    return prepared


@njit(cache=True)
def _centre_into(attrs: np.ndarray, c: int, n: int, out: np.ndarray, o: int) -> None:
    """``out[e, o:o+n]`` = ``attrs[e, c:c+n]`` minus its mean and ``out[e, o+n]`` their sum of
    squares, for every event ``e``: ``pearson``'s operations in its order."""
    for e in range(attrs.shape[0]):
        m = 0.0
        for k in range(n):
            m += attrs[e, c + k]
        m /= n
        ss = 0.0
        for k in range(n):
            d = attrs[e, c + k] - m
            out[e, o + k] = d
            ss += d * d
        out[e, o + n] = ss


def prepared_stream(program: Program, stream: EventStream) -> EventStream:
    """``stream`` with the centred blocks of ``corr_operands(program)`` appended to its
    attribute matrix (the stream itself when there is none); kept in the stream's memo, so
    engines run one after another on one stream centre it once, and freed with the stream."""
    ops = corr_operands(program)
    if not ops:
        return stream
    memo = program_memo(stream)
    key = ("corr_prepared", tuple(ops))
    hit = memo.get(key)
    if hit is not None:
        return hit
    n_ev, n_attr = stream.attrs.shape
    width = sum(n + 1 for _, n in ops)
    attrs = np.empty((n_ev, n_attr + width), dtype=np.float64)
    attrs[:, :n_attr] = stream.attrs
    o = n_attr
    for c, n in ops:
        _centre_into(stream.attrs, np.int64(c), np.int64(n), attrs, np.int64(o))
        o += n + 1
    memo[key] = out = dataclasses.replace(stream, attrs=attrs)
    return out


def prepare_corr(program: Program, stream: EventStream) -> tuple[Program, EventStream]:
    """(program, stream) whose correlations read operands centred once per event (see the
    module docstring); both unchanged when the program has no correlation predicate."""
    if not corr_operands(program) or stream.attrs.shape[1] != len(program.schema.attr_names):
        return program, stream
    return prepared_program(program), prepared_stream(program, stream)

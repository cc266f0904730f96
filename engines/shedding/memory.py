"""Memory as the DARLING paper accounts it (Section 4.4, Fig. 8) and its artifact measures it.

*Peak memory* (Fig. 8) is the partial-match storage of the tree evaluation mechanism: the
artifact records ``max`` over the processed events after the warm-up of the storage size
(koralchapnik/vldb_submission darling/patterns/plans/tree/tree_evaluation_mechanism.py
lines 130-134), where the storage adds ``instance.size`` = the sum of ``event.size()`` over the
events an instance holds (tree_instance.py lines 24 and 38, tree_instance_storage.py line 23) and
``event.size()`` is ``sys.getsizeof`` of the event's attribute dict (objects/event.py lines
31-32).  The soccer event has 12 attributes (time, x, y, z, v, a, vx, vy, vz, ax, ay, az:
darling/experiments/configurations_map.py), a 12-key dict is 648 bytes in CPython 3.8 (the
artifact's Python, paper Section 5.1).  So peak memory = peak partial-match *event slots* x
``SLOT_BYTES_ARTIFACT``; the input queue (the leaf buffers) is not in that storage and is
reported separately.

Slots of the tree: every processed event that passes its leaf's conditions is stored at its
leaf (a partial match of one event, paper Section 2.1) and every internal-node partial match of
``k`` events holds ``k`` slots.  The shared NFA keeps the first leaf and the internal nodes as
its instances (state ``A_j`` binds ``j`` events: ``LIVE_BOUND``); the leaves of the later
slots are the served events of those slots' types, passing that slot's one-event conditions,
within the window: ``leaf_mask`` marks them and ``run_shedding(leaf_mask=...)`` counts them.
Counted so (``leaf_mask``), instances and leaf events leave when their window closes: the
*window accounting*, a lower bound on the artifact's storage, kept as the named variant
(``peak_pm_slots_window``).  The artifact expires lazily, when a scan from a peer node meets an
expired instance followed by a live one; ``engines.shedding.lazy_store`` keeps its lists
(``leaf_bits`` says which leaves store an event) and gives the default ``peak_pm_slots``.

*Auxiliary memory* (Section 4.4): ``sum_T (N_T + xi_T) x B`` bytes with ``B`` = 8 (a pointer)
over the pattern's event types -- ``aux_bytes``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.compile import KIND_NEG, PI_V1, PI_V2
from engines.predicates import eval_pred

SLOT_BYTES_ARTIFACT = 648     # sys.getsizeof of a 12-key dict, CPython 3.8 (module docstring)
POINTER_BYTES = 8


@njit(cache=True)
def _unary_ok(pred_i, pred_f, p, attrs, idx, out):
    for k in range(idx.shape[0]):
        if out[k]:
            e = idx[k]
            out[k] = eval_pred(pred_i, pred_f, p, attrs, e, e)


def leaf_mask(program, stream) -> np.ndarray:
    """bool[n]: events the tree would store at a leaf of slot >= 1 (type of a positive slot
    after the first, passing that slot's one-variable conditions).  Slot 0's leaf is the NFA's
    ``A_1`` instances, already in ``LIVE_BOUND``."""
    return leaf_bits(program, stream) != 0


def leaf_bits(program, stream) -> np.ndarray:
    """int64[n]: bit ``j`` (``j >= 1``) set when event ``e`` is stored at leaf ``L_j`` (its type
    is slot ``j``'s and it passes that slot's one-variable conditions) -- what
    ``engines.shedding.lazy_store`` stores; ``leaf_mask`` is ``leaf_bits != 0``."""
    br = program.branches[0]
    types = np.asarray(stream.types)
    attrs = np.ascontiguousarray(stream.attrs, dtype=np.float64)
    pred_i = np.ascontiguousarray(program.pred_i, dtype=np.int32)
    pred_f = np.ascontiguousarray(program.pred_f, dtype=np.float64)
    bits = np.zeros(len(types), dtype=np.int64)
    for j, v in enumerate(br.pos_vars):
        if j == 0:
            continue
        idx = np.flatnonzero(types == program.var_type[v]).astype(np.int64)
        ok = np.ones(len(idx), dtype=np.bool_)
        for p in br.pred_ids:
            if pred_i[p, PI_V1] == v and pred_i[p, PI_V2] < 0:
                _unary_ok(pred_i, pred_f, int(p), attrs, idx, ok)
        bits[idx[ok]] |= np.int64(1) << j
    return bits


def pattern_types(program) -> list[int]:
    """Event types of the pattern (positive and negated variables), each once."""
    br = program.branches[0]
    out: list[int] = []
    for v in list(br.pos_vars) + list(br.neg_vars):
        t = int(program.var_type[v])
        if t not in out:
            out.append(t)
    return out


def aux_bytes(n_t, xi: int, types) -> int:
    """Section 4.4: ``sum_{T in types} (N_T + xi_T) * 8`` bytes (``xi_T = xi`` for every T;
    ``N_T`` rounded up to whole buffer slots)."""
    n_t = np.asarray(n_t, dtype=np.float64)
    return int(sum((int(np.ceil(n_t[t])) + int(xi)) * POINTER_BYTES for t in types))


def peak_memory_bytes(peak_slots: int, slot_bytes: int = SLOT_BYTES_ARTIFACT) -> int:
    """Fig. 8's peak memory: peak partial-match event slots x bytes per slot."""
    return int(peak_slots) * int(slot_bytes)

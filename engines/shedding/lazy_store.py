"""The DARLING artifact's partial-match storage with its lazy expiry, kept beside the stepper.

Fig. 8 plots the peak size of the tree evaluation mechanism's instance storage
(``engines.shedding.memory``).  The authors' storage (koralchapnik/vldb_submission,
darling/patterns/plans/tree/) does not expire an instance when its window closes: an instance
leaves its node's list only when a scan of that list meets it expired *and* a live instance
follows it in the list (``tree_evaluation_mechanism.py`` 204-230: a run of expired instances
is deleted when the loop reaches the next live one; a run at the end of the list stays), when a
shedder deletes it (``tree_instance_storage.py`` 32-35), or, at the root, right after the
event that completed it (``get_matches``, 25-30; the event's size is read before that, 130-135,
so an event's matches count in its storage size).  A list is scanned when an instance arrives
at its peer node (``process_event_on_peer_instance_set``): the list of leaf ``L_j`` (the events
of slot ``j`` that passed the leaf's one-event conditions, ``process_new_event`` 118-127) when
an instance of the node left of it is created, and the list of that node when an event is
stored at ``L_j``.  On a left-deep tree for ``SEQ(v_0 .. v_{m-1})`` the node left of ``L_j``
holds the partial matches binding ``v_0 .. v_{j-1}``: the stepper's state ``A_j``
(``A_1`` is leaf ``L_0``).  Without an arrival at a list's peer, the list keeps every instance
stored in it: with a 1 ms window a leaf list can hold thousands of events that left the window
long ago.

``LazyStore`` mirrors those lists: per state ``A_j`` (``j = 1 .. m-1``) the instances in
creation order (first event, arena row), per slot ``j >= 1`` the leaf events in arrival order,
and applies the same deletions at the same arrivals.  ``lazy_step`` runs after each served
event's step (the instances the step created are the stepper's candidates with a row,
``stepper_kernel`` phase 2) and returns the storage size in event slots (``j`` per instance of
``A_j``, one per leaf event, ``m`` per match of this event).  Partial matches a shedder drops
leave the lists at once: ``drop_rows`` tags a dropped row (``a_first = -2 - first``) and counts
drops (``S[S_NDROP]``), and ``lazy_sync`` removes the tagged entries before the next step can
reuse a row.  Negated variables' events are not stored here (the artifact keeps them at the
negation's parent node): the accounting covers the positive slots.  The window accounting
(instances leave when their window closes) is ``peak_pm_slots_window``, the named variant.
A Kleene slot's instances (``A_{sk+1}``, each LOOP clone one more) are stored in ``A_{sk+1}``'s
list like any other and count ``sk + 1`` slots: a Kleene list counts as one slot, as in the
stepper's ``LIVE_BOUND`` (the artifact's instance holds every event of its list,
``tree_instance.py`` 73-77: the storage of a Kleene query is undercounted by the list lengths).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from engines.evaluators.stepper_kernel import S_NC, S_NDROP

#: scalar state of a ``LazyStore`` (``sc``): drops seen so far
SC_NDROP = 0
N_SC = 1


class LazyStore:
    """The lists of the artifact's storage for a stepper with ``m`` positive slots (module
    docstring); ``leaf_bits[e]`` has bit ``j`` set when event ``e`` would be stored at leaf
    ``L_j`` (``engines.shedding.memory.leaf_bits``)."""

    def __init__(self, m: int, leaf_bits: np.ndarray, window: float, cap: int = 256) -> None:
        self.m = int(m)
        self.leaf_bits = np.ascontiguousarray(leaf_bits, dtype=np.int64)
        self.window = float(window)
        self.ent_first = np.zeros((self.m, cap), dtype=np.int64)
        self.ent_row = np.zeros((self.m, cap), dtype=np.int64)
        self.ent_n = np.zeros(self.m, dtype=np.int64)
        self.leaf_ev = np.zeros((self.m, cap), dtype=np.int64)
        self.leaf_head = np.zeros(self.m, dtype=np.int64)
        self.leaf_tail = np.zeros(self.m, dtype=np.int64)
        self.sc = np.zeros(N_SC, dtype=np.int64)

    def grow(self) -> None:
        """Double every list's capacity (entries kept)."""
        cap = 2 * self.ent_first.shape[1]
        for name in ("ent_first", "ent_row", "leaf_ev"):
            old = getattr(self, name)
            new = np.zeros((self.m, cap), dtype=np.int64)
            new[:, :old.shape[1]] = old
            setattr(self, name, new)

    def arrays(self) -> tuple:
        """The arrays ``lazy_room`` / ``lazy_sync`` / ``lazy_step`` take, in their order."""
        return (self.leaf_bits, self.ent_first, self.ent_row, self.ent_n, self.leaf_ev,
                self.leaf_head, self.leaf_tail, self.sc)


@njit(cache=True)
def lazy_room(e, types, el_type, pn, ent_n, leaf_head, leaf_tail, cap):
    """Whether every list has room for what event ``e``'s step can add (at most ``pn[j]``
    new instances of ``A_{j+1}`` per slot ``j`` of ``e``'s type, plus ``pn[j + 1]`` when slot
    ``j`` is a Kleene slot -- its LOOP clones, ``stepper_kernel``; every slot is bounded so,
    one leaf event per slot)."""
    t = types[e]
    m = el_type.shape[0]
    for j in range(m - 1):
        if el_type[j] != t:
            continue
        add = (1 if j == 0 else pn[j]) + pn[j + 1]
        if ent_n[j + 1] + add > cap:
            return False
    for j in range(1, m):
        if el_type[j] == t and leaf_tail[j] - leaf_head[j] + 1 > cap:
            return False
    return True


@njit(cache=True)
def lazy_sync(S, a_first, ent_first, ent_row, ent_n, sc):
    """Remove the entries of partial matches a shedder dropped since the last call
    (``drop_rows`` tags their rows ``a_first = -2 - first``)."""
    if S[S_NDROP] == sc[SC_NDROP]:
        return
    sc[SC_NDROP] = S[S_NDROP]
    for j in range(1, ent_n.shape[0]):
        w = 0
        for k in range(ent_n[j]):
            if a_first[ent_row[j, k]] != -2 - ent_first[j, k]:
                ent_first[j, w] = ent_first[j, k]
                ent_row[j, w] = ent_row[j, k]
                w += 1
        ent_n[j] = w


@njit(cache=True)
def _scan_node(j, now, ts, window, ent_first, ent_row, ent_n):
    """A scan of ``A_j``'s list at time ``now``: every expired entry followed by a live one
    leaves; the expired entries after the last live one stay
    (``tree_evaluation_mechanism.py`` 207-230)."""
    n = ent_n[j]
    last_live = -1
    for k in range(n - 1, -1, -1):
        if not now - ts[ent_first[j, k]] > window:
            last_live = k
            break
    if last_live < 0:
        return
    w = 0
    for k in range(n):
        if k > last_live or not now - ts[ent_first[j, k]] > window:
            ent_first[j, w] = ent_first[j, k]
            ent_row[j, w] = ent_row[j, k]
            w += 1
    ent_n[j] = w


@njit(cache=True)
def _scan_leaf(j, now, ts, window, leaf_ev, leaf_head, leaf_tail):
    """A scan of leaf ``L_j`` at time ``now``: its events arrive in time order, so the expired
    ones are a prefix; it leaves when the last event is live (the same rule as ``_scan_node``)."""
    h = leaf_head[j]
    tl = leaf_tail[j]
    if tl == h or now - ts[leaf_ev[j, tl - 1]] > window:
        return
    while h < tl and now - ts[leaf_ev[j, h]] > window:
        h += 1
    leaf_head[j] = h


@njit(cache=True)
def lazy_step(e, ts, types, window, el_type, a_first, c_slot, c_first, S, n_match,
              leaf_bits, ent_first, ent_row, ent_n, leaf_ev, leaf_head, leaf_tail, sc):
    """After event ``e``'s step (``lazy_room`` held before it): apply its scans and stores and
    return the storage size in event slots, ``n_match`` matches of this event included
    (module docstring)."""
    lazy_sync(S, a_first, ent_first, ent_row, ent_n, sc)
    m = el_type.shape[0]
    t = types[e]
    now = ts[e]
    bits = leaf_bits[e]
    # the event stored at its leaves: each scans the list of the node left of it first
    for j in range(1, m):
        if el_type[j] == t and (bits >> j) & 1:
            _scan_node(j, now, ts, window, ent_first, ent_row, ent_n)
            if leaf_tail[j] == leaf_ev.shape[1]:
                h = leaf_head[j]
                for k in range(leaf_tail[j] - h):
                    leaf_ev[j, k] = leaf_ev[j, h + k]
                leaf_tail[j] -= h
                leaf_head[j] = 0
            leaf_ev[j, leaf_tail[j]] = e
            leaf_tail[j] += 1
    # the instances the step created (candidates whose c_first holds their row), in creation
    # order; a new instance of A_j scans leaf L_j
    scanned = 0
    for ci in range(S[S_NC]):
        r = c_first[ci]
        if r < 0:
            continue
        dst = c_slot[ci] + 1
        if a_first[r] >= 0:          # else a shedder dropped it right after the step
            n = ent_n[dst]
            ent_first[dst, n] = a_first[r]
            ent_row[dst, n] = r
            ent_n[dst] = n + 1
        if not (scanned >> dst) & 1:
            scanned |= 1 << dst
            _scan_leaf(dst, now, ts, window, leaf_ev, leaf_head, leaf_tail)
    slots = n_match * m
    for j in range(1, m):
        slots += ent_n[j] * j + leaf_tail[j] - leaf_head[j]
    return slots

"""A steppable eager NFA: one event at a time, with its state open to a load shedder.

Load shedding (DARLING and its baselines, PVLDB'22) decides in virtual time which events are
processed at all and which partial matches survive, so the engine cannot run over the whole
stream in one call.  ``Stepper(program, stream)`` keeps the eager NFA's state in plain numpy
arrays (no jitclass) and ``step(e)`` processes stream event ``e`` (events must be stepped in
increasing index order; events never stepped simply do not exist for the engine, i.e. count as
shed).  The kernel is the eager NFA of ``engines/evaluators/eager.py`` restricted to what the DARLING
queries need:

* one alternative (``Program.grouped[0]``): a ``SEQ`` of plain events and ``AND`` groups of
  plain events (nested in the SEQ or alone; an AND is kept whole, as the eager NFA evaluates
  it: an instance with ``j`` slots bound sits in pool ``j`` whatever slots of the group it
  holds, ``engines/evaluators/stepper_tables.py``), with predicates, and ``NOT`` at the start,
  in the middle or at the end;
* at most one Kleene closure ``B+ b`` (with its predicates), anywhere but last and not inside
  an AND (every non-empty ordered subset of the qualifying events, docs/SEMANTICS.md rule 5;
  storage in ``engines/evaluators/stepper_kernel.py``);
* a time window (or none); skip-till-any-match.

Anything else (``OR``, a second Kleene variable, a Kleene variable last or inside an AND, a NOT
whose conditions mention the Kleene variable, count windows, skip-till-next-match, ``REMOTE``)
is refused with a ``CepsimInputError``.

Exactness.  Stepping every event gives exactly ``run_eager``'s matches and detection indices
and, per event, the same PRED_EVAL, EDGE_EVAL, PM_CREATED, PM_REMOVED, BUF_INSERT, MATCH_EMIT,
INSTANCE_WORK, LIVE_PM and BUFFERED, Kleene and AND patterns included (the per-event order of
work is the eager kernel's: window
expiry, trailing-NOT flush and kills, negative-event buffer, edges of the live instances,
negation checks / emission / storage).  LIVE_BOUND (events bound by live partial matches: an
instance in state ``A_j`` binds ``j`` events) is only kept here; DECISION_CHECK / STAT_UPDATE
only count the admission checks below.
Stepping a subset ``S`` gives the oracle's matches on ``stream[S]`` (indices mapped back; a
trailing-NOT match pending at the end is detected at ``n_events`` of the full stream).

Shedder interface (state ``j`` = ``j`` slots bound; a Kleene list is one slot):
``live_by_state()``, ``live_bound``, ``pm_snapshot()`` -> (rows, state, first),
``drop_pms(rows)`` (each counted as PM_REMOVED), ``pm_bindings(rows)`` (slot columns: a
Kleene slot shows its last event), and an in-kernel admission check per
(event, partial match) pair: ``set_admission(mode, util, threshold, n_bins)`` makes every pair
look up ``util[state, type, bin]`` (``bin`` = position of the event in the window opened by the
partial match's first event, ``n_bins`` equal time slices of ``W``; mode ``ADM_STATE`` uses the
instance's state, ``ADM_TYPE`` state 0 for every pair) and skip the pair when the utility is
below the threshold; in mode ``ADM_STATE`` (hSPICE) each look-up is one DECISION_CHECK; in mode
``ADM_TYPE`` (eSPICE: one decision per (event, window), the window being the one opened by the
partial match's first event) the caller charges its per-window decisions itself.  Mode ``ADM_COUNT`` never skips: it
adds 1 to ``util[state, type, bin]`` per pair (the pair counts eSPICE/hSPICE learn from during
their warm-up), each one STAT_UPDATE.  The sentinel "start a new partial
match" pair is checked too (state 0, bin 0).

Parts: ``engines/evaluators/stepper_kernel.py`` (the compiled step and state queries, state
layout), ``engines/evaluators/stepper_tables.py`` (the automaton as arrays, supported features);
predicate and negation checks are the eager NFA's (``engines/evaluators/eager_preds.py``).
"""
from __future__ import annotations

import math

import numpy as np

from engines import counters as C
from engines.compile import Program
from engines.errors import CepsimInputError
from engines.evaluators.nfa_buffers import grow_1d, grow_rows, pools_new, pools_reserve
from engines.evaluators.stepper_kernel import (A_ADM, ADM_COUNT, ADM_NONE, ADM_STATE,  # noqa: F401
                                               ADM_TYPE, N_S, S_BOUND, S_KLMAX, S_LAST,
                                               S_LIVE, S_LO,
                                               S_NC, S_NFREE, S_NHEAD, S_NM, S_NTAIL, S_TOP,
                                               ST_GROW, ST_OK, drop_rows, live_rows,
                                               step_kernel)
from engines.evaluators.stepper_kernel import pool_first_weights
from engines.evaluators.stepper_tables import (CHK_TRAILING, TABLE_KEYS,  # noqa: F401
                                               check_supported, pack_tables, stepper_tables)
from engines.matches import MatchSet
from engines.stream import EventStream


class Stepper:
    """The steppable eager NFA over ``stream`` (see the module docstring)."""

    def __init__(self, program: Program, stream: EventStream, capacity: int = 256,
                 source: str = "pattern") -> None:
        check_supported(program, source)
        if (tuple(stream.schema.type_names) != tuple(program.schema.type_names)
                or tuple(stream.schema.attr_names) != tuple(program.schema.attr_names)):
            raise CepsimInputError(f"{stream.source}: the stream's schema differs from the one "
                                   "the pattern was compiled for; compile it against this stream")
        stream.require_no_nan(program.used_columns)
        self.program = program
        self.n_events = len(stream)
        self.types = np.ascontiguousarray(stream.types, dtype=np.int32)
        self.ts = np.ascontiguousarray(stream.ts, dtype=np.float64)
        self.attrs = np.ascontiguousarray(stream.attrs, dtype=np.float64)
        self.pred_i = np.ascontiguousarray(program.pred_i, dtype=np.int32)
        self.pred_f = np.ascontiguousarray(program.pred_f, dtype=np.float64)
        self.window = float(program.window) if math.isfinite(program.window) else np.inf
        tb = stepper_tables(program)
        self.tb = tb
        self.tabs = pack_tables(tb)
        m = len(tb["el_type"])
        self.m = m
        self.n_cols = len(program.positive_vars)
        self.kl_slot = int(tb["kl_slot"][0])
        # row width: the slots, then (Kleene) the list length and KL list events
        self.kl_w = 8 if self.kl_slot >= 0 else 0
        width = m + (1 + self.kl_w if self.kl_slot >= 0 else 0)
        o_width = self.n_cols + (1 + self.kl_w if self.kl_slot >= 0 else 0)
        cap = max(int(capacity), 4)
        self.S = np.zeros(N_S, dtype=np.int64)
        self.S[S_TOP] = 1
        self.S[S_LAST] = -1
        self._Sv = memoryview(self.S)     # scalar reads as Python ints (S is never replaced)
        self.a_first = np.zeros(cap, dtype=np.int64)
        self.a_bind = np.full((cap, width), -1, dtype=np.int32)
        if self.kl_slot >= 0:
            self.a_bind[0, m] = 0           # the initial state's row: an empty Kleene list
        self.free = np.zeros(cap, dtype=np.int64)
        self.pidx, self.poff, self.pcap, self.pn = pools_new(m + 1, cap)
        n = max(self.n_events, 1)
        self.cnt_first = np.zeros(n, dtype=np.int64)
        self.bnd_first = np.zeros(n, dtype=np.int64)
        self.nbuf = np.zeros(cap, dtype=np.int64)
        self.c_row = np.zeros((cap, width), dtype=np.int32)
        self.c_first = np.zeros(cap, dtype=np.int64)
        self.c_slot = np.zeros(cap, dtype=np.int64)
        self.o_pos = np.zeros((cap, o_width), dtype=np.int64)
        self.o_det = np.zeros(cap, dtype=np.int64)
        self.o_last = np.zeros(cap, dtype=np.int64)
        self.adm_mode = ADM_NONE
        self.adm_util = np.ones((1, 1, 1), dtype=np.float64)
        self.adm_thr = 0.0
        self.adm_bins = 1
        self.row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self.row_f = np.zeros(C.N_COUNTERS, dtype=np.float64)   # last row as float64
        self.total = np.zeros(C.N_COUNTERS, dtype=np.int64)     # sum of every step's row
        self.mark = np.zeros(cap, dtype=np.bool_)
        self.finished = False
        self._args = None
        self._entry = None

    # -- admission (eSPICE / hSPICE)
    def set_admission(self, mode: int, util: np.ndarray | None = None, threshold: float = 0.0,
                      n_bins: int = 1) -> None:
        """Per (event, partial match) admission check; ``mode`` ADM_NONE / ADM_STATE / ADM_TYPE;
        ``util`` float64[m, n_types, n_bins] (state, event type, position bin)."""
        if mode not in (ADM_NONE, ADM_STATE, ADM_TYPE, ADM_COUNT):
            raise CepsimInputError(f"admission mode must be 0..3, got {mode}")
        self.adm_mode = int(mode)
        if util is not None:
            u = np.ascontiguousarray(util, dtype=np.float64)
            nt = len(self.program.schema.type_names)
            if u.ndim != 3 or u.shape[0] < self.m or u.shape[1] < nt or u.shape[2] != n_bins:
                raise CepsimInputError(f"admission utility table has shape {u.shape}; need "
                                       f"({self.m}, {nt}, {n_bins})")
            self.adm_util = u
        self.adm_thr = float(threshold)
        self.adm_bins = int(n_bins)
        if self._args is not None:
            # same kernel types (int, float64[:, :, ::1], float, int): update the argument list
            # in place instead of rebuilding it (eSPICE/hSPICE switch every 64 events)
            self._args[A_ADM:A_ADM + 4] = [self.adm_mode, self.adm_util, self.adm_thr,
                                             self.adm_bins]

    # -- growth
    def _widen(self) -> None:
        """Double the Kleene list capacity of the rows (and of the output rows)."""
        old = self.kl_w
        self.kl_w = 2 * old
        for name in ("a_bind", "c_row", "o_pos"):
            a = getattr(self, name)
            b = np.full((a.shape[0], a.shape[1] + self.kl_w - old), -1, dtype=a.dtype)
            b[:, :a.shape[1]] = a
            setattr(self, name, b)
        self._args = None

    def grow(self) -> None:
        """Make room for the step that returned ``ST_GROW``: a wider Kleene list when a list
        could outgrow it, else twice the rows of every buffer."""
        if self.kl_slot >= 0 and int(self.S[S_KLMAX]) + 1 > self.kl_w:
            self._widen()
            return
        cap = 2 * self.a_first.shape[0]
        self.a_first = grow_1d(self.a_first, cap)
        self.a_bind = grow_rows(self.a_bind, cap)
        self.free = grow_1d(self.free, cap)
        self.mark = np.zeros(cap, dtype=np.bool_)
        need = np.full(self.m + 1, self.c_first.shape[0] + 1, dtype=np.int64)
        self.pidx = pools_reserve(self.pidx, self.poff, self.pcap, self.pn, need)
        c2 = 2 * self.c_first.shape[0]
        self.c_row = grow_rows(self.c_row, c2)
        self.c_first = grow_1d(self.c_first, c2)
        self.c_slot = grow_1d(self.c_slot, c2)
        o2 = 2 * self.o_det.shape[0]
        self.o_pos = grow_rows(self.o_pos, o2)
        self.o_det = grow_1d(self.o_det, o2)
        self.o_last = grow_1d(self.o_last, o2)
        self.nbuf = grow_1d(self.nbuf, 2 * self.nbuf.shape[0])
        self._args = None

    # -- stepping
    def _build_args(self) -> list:
        """The kernel's argument list (arrays are mutated in place, so it stays valid until a
        buffer grows) and the compiled entry point for its types: calling the entry point
        directly skips Numba's per-call type dispatch over ~30 arguments (~30 % of a step)."""
        args = [0, self.types, self.ts, self.attrs, self.pred_i, self.pred_f, self.tabs,
                self.window, self.S, self.a_first, self.a_bind, self.free, self.pidx, self.poff,
                self.pcap, self.pn, self.cnt_first, self.bnd_first, self.nbuf, self.c_row,
                self.c_first, self.c_slot, self.o_pos, self.o_det, self.o_last, self.adm_mode,
                self.adm_util, self.adm_thr, self.adm_bins, self.row, self.row_f, self.total]
        assert len(args) == A_ADM + 7
        sig = tuple(step_kernel.typeof_pyval(a) for a in args)
        ov = step_kernel.overloads.get(sig)
        if ov is None:
            step_kernel.compile(sig)
            ov = step_kernel.overloads[sig]
        self._entry = ov.entry_point
        self._args = args
        return args

    def clear_output(self) -> None:
        """Forget the matches emitted so far (their rows are reused): for long runs that only
        need each step's matches (``match_last`` / ``o_pos`` right after the step)."""
        self.S[S_NM] = 0

    def step(self, e: int) -> np.ndarray:
        """Process event ``e`` (> every event stepped before); returns its counter row (a view
        overwritten by the next call; copy it to keep it).  ``row_f`` holds the same row as
        float64, ``total`` the sum of every row returned so far."""
        if e <= self._Sv[S_LAST] or e >= self.n_events or self.finished:
            raise CepsimInputError(f"step({e}): events must be stepped in increasing index order "
                                   f"within 0..{self.n_events - 1}, before finish()")
        args = self._args
        if args is None:
            args = self._build_args()
        args[0] = e
        while True:
            if self._entry(*args) == ST_OK:
                return self.row
            self.grow()
            args = self._build_args()
            args[0] = e

    def finish(self) -> np.ndarray:
        """End of stream: matches waiting for a trailing NOT are final (detect = n_events).
        Returns the counter row of that work (MATCH_EMIT)."""
        row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if self.finished:
            return row
        self.finished = True
        pend = self.m
        k = int(self.pn[pend])
        while self.S[S_NM] + k > self.o_det.shape[0]:
            self.grow()
        m = self.m
        for r in range(k):
            i = int(self.pidx[self.poff[pend] + r])
            nm = int(self.S[S_NM])
            self.o_pos[nm, :] = -1
            for s in range(m):
                self.o_pos[nm, self.tb["col_of_slot"][s]] = self.a_bind[i, s]
            if self.kl_slot >= 0:
                L = int(self.a_bind[i, m])
                self.o_pos[nm, self.n_cols:self.n_cols + L + 1] = self.a_bind[i, m:m + L + 1]
            self.o_det[nm] = self.n_events
            self.o_last[nm] = int(self.a_bind[i, :m].max())
            self.S[S_NM] = nm + 1
        self.pn[pend] = 0
        row[C.MATCH_EMIT] = k
        row[C.LIVE_PM] = self.S[S_LIVE]
        row[C.LIVE_BOUND] = self.S[S_BOUND]
        return row

    # -- state views for shedders
    @property
    def n_matches(self) -> int:
        return self._Sv[S_NM]

    @property
    def live(self) -> int:
        """Live partial matches (exact: expired ones are excluded)."""
        return self._Sv[S_LIVE]

    @property
    def live_bound(self) -> int:
        """Events bound by live partial matches (memory gauge)."""
        return self._Sv[S_BOUND]

    def match_last(self, start: int, stop: int) -> np.ndarray:
        """Last event index of matches ``start..stop-1`` (emission order)."""
        return self.o_last[start:stop]

    def pm_snapshot(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, state, first event) of every live partial match; state ``j`` binds ``j``
        events (slots ``0..j-1``)."""
        n = max(self.live, 0)
        rows = np.empty(n, dtype=np.int64)
        state = np.empty(n, dtype=np.int64)
        first = np.empty(n, dtype=np.int64)
        k = live_rows(self.S, self.a_first, self.pidx, self.poff, self.pn, self.m, rows, state,
                       first)
        return rows[:k], state[:k], first[:k]

    def pm_bindings(self, rows: np.ndarray) -> np.ndarray:
        """Bound event indices of the given rows (``-1`` for unbound slots), slot order; a
        Kleene slot shows its last event."""
        return self.a_bind[np.asarray(rows, dtype=np.int64), :self.m]

    def live_by_state(self) -> np.ndarray:
        """Live partial matches per state ``A_0..A_{m-1}`` (``A_0`` is always 0)."""
        _, state, _ = self.pm_snapshot()
        return np.bincount(state, minlength=self.m)[:self.m].astype(np.int64)

    def drop_pms(self, rows) -> np.ndarray:
        """Remove the given live partial matches; returns a counter row (PM_REMOVED)."""
        rows = np.asarray(rows, dtype=np.int64)
        row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if rows.size == 0:
            return row
        self.mark[rows] = True
        k = drop_rows(self.S, self.a_first, self.pidx, self.poff, self.pn, self.free,
                       self.cnt_first, self.bnd_first, self.m, self.mark)
        self.mark[:] = False
        row[C.PM_REMOVED] = k
        row[C.LIVE_PM] = self.S[S_LIVE]
        row[C.LIVE_BOUND] = self.S[S_BOUND]
        return row

    def matches(self) -> MatchSet:
        """Every match emitted so far (emission order)."""
        nm = self.n_matches
        nc = self.n_cols
        pos = self.o_pos[:nm, :nc].copy()
        z = np.zeros(pos.shape, dtype=np.int64)
        names = tuple(self.program.var_names[v] for v in self.program.positive_vars)
        if self.kl_slot < 0:
            return MatchSet(names, tuple(False for _ in names), pos, z, z.copy(),
                            np.zeros(0, dtype=np.int64), self.o_det[:nm].copy())
        kc = int(self.tb["col_of_slot"][self.kl_slot])
        lens = self.o_pos[:nm, nc].astype(np.int64)
        kl_len = z.copy()
        kl_len[:, kc] = lens
        kl_start = z.copy()
        kl_start[:, kc] = np.concatenate([[0], np.cumsum(lens)[:-1]]) if nm else lens
        cols = np.arange(self.o_pos.shape[1] - nc - 1)
        take = cols[None, :] < lens[:, None]
        events = self.o_pos[:nm, nc + 1:][take].astype(np.int64)     # row-major: match order
        pos[:, kc] = -2
        kleene = tuple(c == kc for c in range(nc))
        return MatchSet(names, kleene, pos, kl_start, kl_len, events, self.o_det[:nm].copy())

    def first_weights(self, t: int, weight: np.ndarray, base: int) -> tuple[int, int]:
        """Before stepping an event of type ``t``: (the live partial matches it will be
        offered to, the sum over them of ``max(weight[first] - base + 1, 0)``).  eSPICE/hSPICE
        (``engines.shedding.spice``) pass each event's window rank: the sum is the number of
        (window, partial match) pairs their per-window matchers would process."""
        return pool_first_weights(int(t), np.asarray(self.tb["el_type"], dtype=np.int64),
                              self.pidx, self.poff, self.pn, self.a_first, weight, int(base))


def run_stepped(program: Program, stream: EventStream, events=None,
                max_partial_matches: int | None = None,
                max_matches: int | None = None) -> tuple[MatchSet, np.ndarray]:
    """Step ``events`` (default: all) and finish; returns (matches, counters[n_events])
    where rows of events never stepped are zero and the end-of-stream work is added to the last
    stepped event's row.  More than ``max_partial_matches`` live partial matches after an event,
    or more than ``max_matches`` matches, raise ``CapacityError`` (buffers stay within 2x)."""
    from engines.errors import CapacityError
    stp = Stepper(program, stream)
    n = len(stream)
    counters = C.new_counters(n)
    idx = np.arange(n) if events is None else np.asarray(events, dtype=np.int64)
    max_pm = int(max_partial_matches) if max_partial_matches is not None else None
    max_m = int(max_matches) if max_matches is not None else None
    for e in idx:
        counters[e] = stp.step(int(e))
        if max_pm is not None and stp.live > max_pm:
            raise CapacityError(f"stepper engine: more than {max_pm} live partial matches at "
                                f"event {int(e)}; raise the cap with --max-partial-matches / "
                                f"max_partial_matches=, or narrow the window")
        if max_m is not None and stp.n_matches > max_m:
            raise CapacityError(f"stepper engine: more than {max_m} matches at event {int(e)}; "
                                f"raise the cap with --max-matches / max_matches=, or narrow "
                                f"the pattern")
    fin = stp.finish()
    if max_m is not None and stp.n_matches > max_m:
        raise CapacityError(f"stepper engine: more than {max_m} matches at the end of the stream; "
                            f"raise the cap with --max-matches / max_matches=")
    if len(idx):
        last = int(idx[-1])
        counters[last, C.MATCH_EMIT] += fin[C.MATCH_EMIT]
    return stp.matches(), counters


def run_stepper(program: Program, stream: EventStream, max_partial_matches: int | None = None,
                max_matches: int | None = None, **ignored):
    """Registry entry (``engine = "stepper"``): every event stepped; same matches as ``eager``."""
    from engines.registry import EngineResult
    ms, counters = run_stepped(program, stream, max_partial_matches=max_partial_matches,
                               max_matches=max_matches)
    return EngineResult(matches=ms, counters=counters, info={"engine": "stepper"})

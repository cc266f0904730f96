"""eSPICE (Slo et al., Middleware'19) and hSPICE (Slo et al., 2020) as the DARLING paper uses
them: utility-based dropping of events *inside windows* (eSPICE) or of (event, partial match)
pairs (hSPICE), checked by the engine per pair (``engines.evaluators.stepper`` admission check).  When the
pattern's slots have distinct types (Q1, the length panel) the state is implied by the type, so
the two drop the same pairs; they differ in cost: hSPICE checks every (event, partial match)
pair (DECISION_CHECK in the engine), eSPICE once per (event, open window).

Learning (warm-up, nothing dropped): the engine counts every (event, partial match) pair it
examines by (state j of the partial match, event type t, position bin b of the event in the
window opened by the partial match's first event; ``n_bins`` slices of W) -- the
*comparisons*; the warm-up matches give the *completions*: a match ``(e_0 .. e_{m-1})`` adds 1
to ``(j, type(e_j), bin(e_j - e_0))`` for every slot j (slot 0: bin 0).

* hSPICE utility ``U[j, t, b] = completions / comparisons`` (probability that processing the
  pair leads to a complete match); the check uses the pair's state.
* eSPICE utility ``U[t, b]`` = the same ratio summed over states (the contribution of an event of
  type t at window position b, state-blind); the check ignores the state, so an event is
  dropped from a whole window (every partial match opened by that window's first event).

Threshold (the CDT of both papers): while overloaded the fraction ``x = 1 - mu / lambda`` of the
pairs must go (``mu = 1 / z_bar``, ``lambda`` over the last 512 arrivals); the threshold is the
utility at which the comparison-weighted cumulative distribution of utilities reaches ``x``
(pairs with a utility up to it are skipped, so ties -- the many pairs of utility 0 -- go
together).  Checked every 64 served events, with ``N_in = Lmax / z_bar`` (the same warm-up
statistics as DARLING):

* queue ``>= beta * N_in`` and ``lambda > mu``: shed, the threshold recomputed for
  ``x = 1 - mu / lambda``;
* queue ``>= beta * N_in`` and ``lambda <= mu``: with ``stop = "bound"`` (default) the current
  state and threshold are kept, so shedding goes on until the queue is back under the bound, as
  the artifact's overload detector does (koralchapnik/vldb_submission
  ``espice/load_shedders/overload_detector.py`` lines 69-85: over the bound it returns without a
  change when the arrival rate is at most the throughput, and calls ``stop_ls`` only when the
  queue is under the bound); with ``stop = "rate"`` (a named variant) shedding stops here;
* queue ``< beta * N_in``: shedding stops.

Every look-up is one DECISION_CHECK in the engine row.

Window replication (default ``replicate=True``), as the public artifacts run it
(koralchapnik/vldb_submission espice|hspice/patterns/plans/tree/tree_evaluation_mechanism.py,
``process``: lines 167-202 in espice): every processed event opens a new window
(``add_new_window_from_event``, any event type of the pattern) and is then processed in every
open window (those opened by the processed events of the last W, itself included), each window
being its own tree matcher over its own events (window.py ``process_new_event``).  A partial
match whose first event is ``f`` therefore lives in every open window opened at or before ``f``
and each of them repeats its join work.  The shared NFA does that work once; before each step
``Stepper.first_weights`` gives ``cnt`` (partial matches the event is offered to) and ``wsum``
(their (window, partial match) pairs: each partial match weighted by the number of open windows
that hold its first event), and ``after_step`` charges the replicated work as counters:

* the step's join counts (EDGE_EVAL, PRED_EVAL, PM_CREATED, MATCH_EMIT, and hSPICE's
  DECISION_CHECK) times ``wsum / cnt - 1`` (rounded),
* INSTANCE_WORK ``wsum - cnt`` (the extra (window, partial match) offers) plus, per extra open
  window, one INSTANCE_WORK and one PM_CREATED (the event's leaf instance in that window),

priced with the cost profile like every other counter (``replicated_*`` in the results; the
server seconds are in ``replication_s``).  ``cnt`` counts the partial matches of the pools whose
next slot has the event's type: with a Kleene closure the LOOP pairs (an event extending a
list) and with an AND group the pairs of its other slots are not in it, so the replicated work
of such patterns is a lower bound.  The per-window join is assumed to cost the same per
partial match as the shared one (the windows' contents differ only by what each window
dropped).  ``replicate=False`` is the shared-window sensitivity.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from engines import counters as C
from engines.errors import CepsimInputError
from engines.evaluators.stepper import ADM_COUNT, ADM_NONE, ADM_STATE, ADM_TYPE
from engines.shedding.base import Shedder
from engines.shedding.rates import recent_rate


REPLICATED = (C.EDGE_EVAL, C.PRED_EVAL, C.PM_CREATED, C.MATCH_EMIT)


class Spice(Shedder):
    def __init__(self, lmax: float, kind: str = "hspice", beta: float = 0.8, n_bins: int = 10,
                 replicate: bool = True, stop: str = "bound", seed: int = 0) -> None:
        if kind not in ("espice", "hspice"):
            raise CepsimInputError(f"spice: kind must be espice or hspice, got {kind!r}")
        if stop not in ("bound", "rate"):
            raise CepsimInputError(f"spice: stop must be 'bound' or 'rate', got {stop!r}")
        self.stop = stop
        self.name = kind
        self.kind = kind
        self.lmax = float(lmax)
        self.beta = float(beta)
        self.n_bins = int(n_bins)
        self.replicate = bool(replicate)
        self.active = False
        self.on = False
        self.n_served = 0
        self.open = deque()          # (timestamp, rank) of the open windows, oldest first
        self.on_events = 0
        self.rank_n = 0
        self._cnt = self._wsum = 0
        self._nw = 1
        self.rep = np.zeros(C.N_COUNTERS, dtype=np.int64)      # replicated work charged

    def attach(self, ctx) -> None:
        super().attach(ctx)
        stp = ctx.stepper
        nt = len(ctx.stream.schema.type_names)
        self.counts = np.zeros((stp.m, nt, self.n_bins))
        stp.set_admission(ADM_COUNT, self.counts, 0.0, self.n_bins)
        self.ts = np.asarray(ctx.stream.ts)
        self.types = np.asarray(ctx.stream.types)
        self._ts_l = self.ts.tolist()          # per-event scalar reads (before_step)
        self._types_l = self.types.tolist()
        self.t0 = int(stp.tb["el_type"][0])
        self.window = stp.window
        self.rank = np.zeros(max(len(self.types), 1), dtype=np.int64)   # window rank per event
        prog = ctx.program
        br = prog.branches[0]
        pt = {int(prog.var_type[v]) for v in list(br.pos_vars) + list(br.neg_vars)}
        self.in_pattern = [int(t) in pt for t in range(nt)]

    def _bin(self, dt: np.ndarray) -> np.ndarray:
        if not np.isfinite(self.window) or self.window <= 0:
            return np.zeros(len(dt), dtype=np.int64)
        return np.minimum((dt / self.window * self.n_bins).astype(np.int64), self.n_bins - 1)

    def end_warmup(self, now: float) -> None:
        ctx = self.ctx
        stp = ctx.stepper
        compar = stp.adm_util.copy()
        comp = np.zeros_like(compar)
        rows = np.concatenate(ctx.warm_matches) if ctx.warm_matches else np.zeros((0, stp.m),
                                                                                  np.int64)
        if len(rows):
            # per slot j, the event the match bound there, binned by its position in the window
            # of the match's first event (a SEQ: slot 0's, bin 0; an AND group's first event
            # may sit at any of its slots; a Kleene slot shows its last event): the pairs the
            # kernel looks up by the slot an event binds (``stepper_kernel``)
            e0 = rows.min(axis=1)
            for j in range(stp.m):
                ej = rows[:, j]
                np.add.at(comp, (np.full(len(ej), j), self.types[ej],
                                 self._bin(self.ts[ej] - self.ts[e0])), 1.0)
        if self.kind == "hspice":
            util = np.divide(comp, compar, out=np.zeros_like(comp), where=compar > 0)
            weight = compar
        else:
            c2 = comp.sum(axis=0)
            p2 = compar.sum(axis=0)
            u2 = np.divide(c2, p2, out=np.zeros_like(c2), where=p2 > 0)
            util = np.zeros_like(comp)
            util[0] = u2
            weight = np.zeros_like(compar)
            weight[0] = p2
        self.util = np.clip(util, 0.0, 1.0)
        order = np.argsort(self.util, axis=None, kind="stable")
        self.u_sorted = self.util.ravel()[order]
        w = weight.ravel()[order]
        self.cdf = np.cumsum(w) / max(w.sum(), 1e-300)
        self.z_bar = ctx.mean_warm_service(self.name)
        self.n_in = self.lmax / self.z_bar
        stp.set_admission(ADM_NONE, self.util, 0.0, self.n_bins)
        self.active = True

    def _threshold(self, x: float) -> float:
        k = int(np.searchsorted(self.cdf, x, side="left"))
        if k >= len(self.u_sorted):
            return np.inf
        # skip every pair whose utility is <= the quantile's utility (the engine skips
        # U < threshold): with ties at the quantile (typically the many pairs of utility 0)
        # at least the fraction x goes
        return float(np.nextafter(self.u_sorted[k], np.inf))

    def before_step(self, i: int, now: float):
        w = self.window
        t = self._ts_l[i]
        op = self.open
        while op and t - op[0][0] > w:
            op.popleft()
        ty = self._types_l[i]
        if self.in_pattern[ty]:
            # the artifact opens a window for every processed event (the generator sends only
            # the pattern's types) and processes the event in every open window
            self.rank_n += 1
            self.rank[i] = self.rank_n
            op.append((t, self.rank_n))
            if self.replicate:
                self._nw = len(op)
                self._cnt, self._wsum = self.ctx.stepper.first_weights(ty, self.rank, op[0][1])
        if not self.active:
            return False, None
        self.n_served += 1
        if self.n_served % 64 == 1:
            q = self.ctx.queue
            lam = recent_rate(self.ctx.arrivals, q.tail - 1)
            mu = 1.0 / self.z_bar
            stp = self.ctx.stepper
            over = q.length >= self.beta * self.n_in
            if over and lam > mu:
                thr = self._threshold(1.0 - mu / lam)
                stp.set_admission(ADM_STATE if self.kind == "hspice" else ADM_TYPE, None, thr,
                                  self.n_bins)
                self.on = True
            elif over and self.stop == "bound":
                pass        # over the bound, rate below capacity: keep the state (docstring)
            elif self.on:
                stp.set_admission(ADM_NONE, None, 0.0, self.n_bins)
                self.on = False
        if self.on:
            self.on_events += 1
            if self.kind == "espice":
                # one utility look-up per open window the event falls into
                row = np.zeros(C.N_COUNTERS, dtype=np.int64)
                row[C.DECISION_CHECK] = max(len(self.open), 1)
                return False, row
        return False, None

    def after_step(self, i: int, row: np.ndarray, now: float):
        """The replicated per-window work of the step just made (module docstring)."""
        nw = self._nw
        if not self.replicate or nw <= 1:
            return None
        cnt = self._cnt
        wsum = self._wsum
        r = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if cnt > 0 and wsum > cnt:
            f = wsum / cnt - 1.0
            for k in REPLICATED:
                if row[k]:
                    r[k] = int(round(f * row[k]))
            if self.kind == "hspice" and row[C.DECISION_CHECK]:
                r[C.DECISION_CHECK] = int(round(f * row[C.DECISION_CHECK]))
        r[C.INSTANCE_WORK] = (wsum - cnt) + (nw - 1)
        r[C.PM_CREATED] += nw - 1
        self._nw = 1
        self.rep += r
        return r

    def replication_seconds(self) -> float:
        """Server seconds of the replicated work charged so far (counters x unit costs)."""
        return float(np.dot(self.rep, self.ctx.unit))

    def info(self) -> dict:
        d = {f"replicated_{C.COUNTER_NAMES[k]}": int(self.rep[k])
             for k in (C.EDGE_EVAL, C.PRED_EVAL, C.PM_CREATED, C.MATCH_EMIT, C.INSTANCE_WORK,
                       C.DECISION_CHECK)}
        d["replication_s"] = self.replication_seconds()
        if self.active:
            d.update({"n_in": self.n_in, "z_bar": self.z_bar, "shedding_events": self.on_events})
        return d

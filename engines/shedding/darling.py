"""DARLING (Chapnik, Kolchinsky, Schuster, PVLDB'22, sections 4.1-4.4) as a shedder.

Warm-up (the first ``n_warm`` arrivals, nothing dropped): the served warm-up events give
``z_bar`` (mean virtual service time) and ``Z(T)`` (mean service time of type T, *measured*, not
Eqs. 5-10: the simulator charges executed work), the warm-up arrivals give ``R(T)``, and the
warm-up events' attributes the Normal fits of Eq. (11) (``engines.shedding.utility``).  Then

* ``N_in = Lmax / z_bar`` (section 4.2.1).  The overload check: ``check="local"`` (default,
  the authors' code) sheds when type T's buffer exceeds its budget ``N_T`` alone
  (koralchapnik/vldb_submission ``darling/patterns/plans/tree/tree_evaluation_mechanism.py``
  lines 232-251: ``to_shed`` = the leaf's buffer ``is_full``, ``objects/event_buffer.py``
  lines 21-24); ``check="global"`` (the paper's text, section 4.2) also needs the queue to hold
  ``>= beta * N_in`` events;
* the budgets: ``budget="rate"`` (default, the authors' code: ``darling/load_shedders/
  overload_detector.py`` lines 45-52 and 82-96) ``N_T = ceil(beta * N_in * R(T) / sum_T' R(T'))``,
  each type's share of ``beta * N_in`` by its arrival rate alone; ``budget="cost"`` (the paper's
  text, section 4.2.2) ``N_T = Z(T) R(T) / sum_T' Z(T') R(T') * N_in * beta``;
  ``budget="equal"`` splits ``beta * N_in`` equally over the types; ``budget="model"`` is the
  ``cost`` rule with Z(T) from the paper's Eqs. (5)-(10) instead of the measured one
  (``engines.shedding.darling_model``: the left-deep tree, selectivities estimated on the
  warm-up events, ``f_i`` / ``V_n`` / ``V_r`` the cost profile's PRED_EVAL / PM_CREATED /
  PM_REMOVED prices, the stream-time rates of the warm-up events) and the paper's Kleene rule
  (section 4.2.3: ``2^{R(T)}`` in Eqs. (8) and (10); ``kleene_rule="subsets"`` the named
  variant ``2^{R(T) w}``);
* an infinite ``Lmax`` (no latency target) gives infinite budgets: nothing is ever dropped;
* per type ``psi = 100`` bucket lists of queued events by ``floor(U * psi)``; when the
  global check holds and type T's buffer exceeds ``N_T``, a victim is taken from the lowest
  non-empty bucket (the arriving event included): the oldest for types in the first half of
  the SEQ and the newest otherwise (``victim="artifact"``, the artifact's rule) or a random one
  (``victim="random"``, the paper's text).  The bucket index of the lowest non-empty bucket is
  found by scanning at most ``psi`` counters (constant time).
* aux structures (section 4.4) are built for type T when its buffer reaches
  ``gamma_T = N_T - ceil(N_T alpha_T / Z(T))`` (utilities of the queued T events computed then)
  and dropped when the buffer falls below ``gamma_T / 2``; before that no utility is computed.

``utility=False`` is *random input dropping* (the ablation): the same budgets and checks, every
event in one bucket, random victims.

Work: each utility evaluation costs ``|C_type(T)|`` UTILITY_UPDATE, each bucket insert, victim
selection and drop one SHED_OP.  Where this per-arrival work runs is the queue's choice
(``run_shedding(ingest_on_server=...)``; the DARLING scenario puts it on the server by default).
Auxiliary memory (``aux_memory_bytes``) is the paper's Section 4.4 formula
``sum_T (N_T + psi) * 8`` over the pattern's types (``engines.shedding.memory.aux_bytes``); the
measured (peak bucket entries + psi * types) pointers are in ``info()`` as ``aux_measured_bytes``.
"""
from __future__ import annotations


import numpy as np

from engines import counters as C
from engines.compile import KIND_NEG
from engines.errors import CepsimInputError
from engines.shedding.memory import aux_bytes, pattern_types
from engines.shedding.base import Shedder
from engines.shedding.utility import fit_normals, utilities

POINTER_BYTES = 8
#: the per-type budget rules (module docstring)
BUDGETS = ("rate", "cost", "equal", "model")


def budgets(rule: str, z: np.ndarray, r: np.ndarray, n_in: float, beta: float) -> np.ndarray:
    """Per-type budgets ``N_T`` (float64[types]) from the per-type mean service times ``z`` and
    arrival rates ``r`` (module docstring: ``rate`` / ``cost`` / ``equal``).  A type that never
    arrived gets 0 under ``rate`` and ``cost``; an infinite ``n_in`` gives infinite budgets."""
    z = np.asarray(z, dtype=np.float64)
    r = np.asarray(r, dtype=np.float64)
    nt = len(z)
    total = n_in * beta
    if not np.isfinite(total):
        return np.full(nt, np.inf)
    if rule == "rate":
        return np.ceil(total * r / r.sum())
    if rule in ("cost", "model"):
        w = z * r
        return w / w.sum() * total
    if rule == "equal":
        return np.full(nt, total / nt)
    raise CepsimInputError(f"darling: budget must be one of {BUDGETS}, got {rule!r}")


class Darling(Shedder):
    name = "darling"

    def __init__(self, lmax: float, beta: float = 0.8, psi: int = 100, budget: str = "rate",
                 check: str = "local", victim: str = "artifact", utility: bool = True,
                 seed: int = 0, kleene_rule: str = "paper") -> None:
        if lmax <= 0 or not 0 < beta <= 1 or psi < 1:
            raise CepsimInputError("darling: need lmax > 0, 0 < beta <= 1, psi >= 1")
        for k, v, ok in (("budget", budget, BUDGETS),
                         ("check", check, ("global", "local")),
                         ("victim", victim, ("artifact", "random"))):
            if v not in ok:
                raise CepsimInputError(f"darling: {k} must be one of {ok}, got {v!r}")
        from engines.shedding.darling_model import KLEENE_RULES
        if kleene_rule not in KLEENE_RULES:
            raise CepsimInputError(f"darling: kleene_rule must be one of {KLEENE_RULES}, got "
                                   f"{kleene_rule!r}")
        self.kleene_rule = kleene_rule
        self.lmax = float(lmax)
        self.beta = float(beta)
        self.psi = int(psi)
        self.budget = budget
        self.check = check
        self.victim = victim if utility else "random"
        self.use_utility = bool(utility)
        self.rng = np.random.default_rng(seed)
        self.active = False
        if not utility:
            self.name = "random_input"

    # ------------------------------------------------------------------ warm-up
    def end_warmup(self, now: float) -> None:
        ctx = self.ctx
        st = ctx.stream
        types = np.asarray(st.types)
        nt = len(st.schema.type_names)
        nw = max(ctx.n_warm, 1)
        if not ctx.warm_service:
            raise CepsimInputError("darling: no event was served during the warm-up; give a "
                                   "longer warm-up (n_warm)")
        ev = np.array([i for i, _ in ctx.warm_service], dtype=np.int64)
        sv = np.array([s for _, s in ctx.warm_service])
        self.z_bar = float(sv.mean())
        zt = np.full(nt, self.z_bar)
        for t in range(nt):
            sel = types[ev] == t
            if sel.any():
                zt[t] = sv[sel].mean()
        dur = max(float(ctx.arrivals[nw - 1] - ctx.arrivals[0]), 1e-300)
        rt = np.bincount(types[:nw], minlength=nt) / dur
        self.Z = zt
        self.R = rt
        self.n_in = self.lmax / self.z_bar
        if self.budget == "model":
            from engines.shedding.darling_model import selectivities, z_model
            prog = ctx.program
            ts = np.asarray(st.ts)
            span = max(float(ts[nw - 1] - ts[0]), 1e-300)
            r_stream = np.bincount(types[:nw], minlength=nt) / span
            sel = selectivities(prog, np.asarray(st.attrs)[:nw], types[:nw])
            u = ctx.unit
            self.Z_model = z_model(prog, r_stream, float(prog.window), sel,
                                   float(u[C.PRED_EVAL]), float(u[C.PM_CREATED]),
                                   float(u[C.PM_REMOVED]), kleene=self.kleene_rule)
            zt_budget = self.Z_model
        else:
            zt_budget = zt
        self.N_T = budgets(self.budget, zt_budget, rt, self.n_in, self.beta)
        mu, sd = fit_normals(np.asarray(st.attrs)[:nw], types[:nw], nt)
        if self.use_utility:
            self.util, self.n_terms = utilities(ctx.program, np.asarray(st.attrs), types, mu, sd)
        else:
            self.util = np.full(len(types), 0.5)
            self.n_terms = np.zeros(nt, dtype=np.int64)
        self.bucket = np.minimum((self.util * self.psi).astype(np.int64), self.psi - 1)
        alpha = self.n_terms * float(ctx.unit[C.UTILITY_UPDATE])
        fin = np.isfinite(self.N_T)
        nt_f = np.where(fin, self.N_T, 0.0)
        self.gamma = np.where(fin, np.maximum(nt_f - np.ceil(nt_f * alpha
                                                             / np.maximum(zt, 1e-300)), 1.0),
                              np.inf)
        # victim rule: oldest for types in the first half of the SEQ, newest otherwise
        prog = ctx.program
        br = prog.branches[0]
        m = len(br.pos_vars)
        self.oldest = np.zeros(nt, dtype=bool)
        seen = set()
        for s, v in enumerate(br.pos_vars):
            t = int(prog.var_type[v])
            if t not in seen:
                self.oldest[t] = s < m / 2.0
                seen.add(t)
        for v in br.neg_vars:
            assert prog.var_kind[v] == KIND_NEG
        self.lists = [[[] for _ in range(self.psi)] for _ in range(nt)]
        self.heads = [[0] * self.psi for _ in range(nt)]     # consumed prefix (oldest side)
        self.cnt = [[0] * self.psi for _ in range(nt)]       # live (queued) entries
        self.low = [self.psi] * nt                           # lowest bucket that may be non-empty
        self.bucket_l = self.bucket.tolist()
        self.types_l = types.tolist()
        self.n_terms_l = [int(x) for x in self.n_terms]
        self.oldest_l = [bool(x) for x in self.oldest]
        self.N_T_l = [float(x) for x in self.N_T]
        self.gamma_l = [float(x) for x in self.gamma]
        self._row = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self.in_bucket = [False] * len(types)     # lists: cheap per-event scalar access
        self.on = [False] * nt
        self.entries = 0
        self.peak_entries = 0
        self.types = types
        self.active = True
        self.drops = 0

    # ------------------------------------------------------------------ buckets
    def _insert(self, i: int) -> None:
        """Bucket event ``i``; returns nothing (one SHED_OP + |C_type| UTILITY_UPDATE, counted
        by the caller)."""
        t = self.types_l[i]
        b = self.bucket_l[i]
        self.lists[t][b].append(i)
        self.cnt[t][b] += 1
        if b < self.low[t]:
            self.low[t] = b
        self.in_bucket[i] = True
        self.entries += 1
        if self.entries > self.peak_entries:
            self.peak_entries = self.entries

    def _activate(self, t: int) -> int:
        """Build type t's buckets from its queued events; returns how many were bucketed."""
        q = self.ctx.queue
        lo, hi = q.head, q.tail
        idx = lo + np.flatnonzero((q.state[lo:hi] == 1) & (self.types[lo:hi] == t))
        for i in idx.tolist():
            self._insert(i)
        self.on[t] = True
        return len(idx)

    def _deactivate(self, t: int) -> None:
        for b in range(self.psi):
            lst = self.lists[t][b]
            for i in lst[self.heads[t][b]:]:
                self.in_bucket[i] = False
            self.entries -= len(lst) - self.heads[t][b]
            self.lists[t][b] = []
            self.heads[t][b] = 0
            self.cnt[t][b] = 0
        self.low[t] = self.psi
        self.on[t] = False

    def _victim(self, t: int) -> int:
        """Remove and return a queued event of the lowest non-empty bucket of type t (-1 if
        none); the scan starts at the lowest bucket that may be non-empty (at most psi steps)."""
        cnt = self.cnt[t]
        q = self.ctx.queue
        b = self.low[t]
        while b < self.psi and cnt[b] == 0:
            b += 1
        self.low[t] = b
        if b >= self.psi:
            return -1
        lst = self.lists[t][b]
        h = self.heads[t][b]
        while True:
            if self.victim == "random":
                k = h + int(self.rng.integers(len(lst) - h))
                i = lst[k]
                lst[k] = lst[-1]
                lst.pop()
            elif self.oldest_l[t]:
                i = lst[h]
                h += 1
            else:
                i = lst.pop()
            self.entries -= 1
            if q.is_queued(i):
                break
        if h > 64 and 2 * h > len(lst):
            del lst[:h]
            h = 0
        self.heads[t][b] = h
        cnt[b] -= 1
        self.in_bucket[i] = False
        return i

    # ------------------------------------------------------------------ hooks
    def on_arrival(self, i: int, now: float):
        if not self.active:
            return None
        q = self.ctx.queue
        t = self.types_l[i]
        n_t = q.count_of_type(t)        # = q.by_type[t], a Python int (cheaper comparisons)
        if not self.on[t]:
            if n_t >= self.gamma_l[t]:
                k = self._activate(t)
            else:
                return None
        else:
            if n_t < self.gamma_l[t] / 2.0:
                self._deactivate(t)
                return None
            self._insert(i)
            k = 1
        shed = k
        glob = q.length >= self.beta * self.n_in if self.check == "global" else True
        if glob and n_t > self.N_T_l[t]:
            shed += 1                       # victim selection
            v = self._victim(t)
            if v >= 0:
                q.drop(v)
                self.drops += 1
                shed += 1                   # the drop
        row = self._row                     # consumed by the queue before the next call
        row[C.SHED_OP] = shed
        row[C.UTILITY_UPDATE] = k * self.n_terms_l[t]
        return row

    def before_step(self, i: int, now: float):
        if self.active and self.in_bucket[i]:
            self.cnt[self.types_l[i]][self.bucket_l[i]] -= 1
            self.in_bucket[i] = False
        return False, None

    def aux_memory_bytes(self) -> int:
        """Section 4.4: sum over the pattern's types of (N_T + psi) pointers."""
        if not self.active or not np.isfinite(self.N_T).all():
            return 0
        return aux_bytes(self.N_T, self.psi, pattern_types(self.ctx.program))

    def aux_measured_bytes(self) -> int:
        """The structures' measured peak: (peak bucket entries + psi * types) pointers."""
        if not self.active:
            return 0
        return int((self.peak_entries + self.psi * len(self.N_T)) * POINTER_BYTES)

    def info(self) -> dict:
        if not self.active:
            return {}
        d = {"z_bar": self.z_bar, "n_in": self.n_in, "drops": self.drops,
             "aux_measured_bytes": self.aux_measured_bytes()}
        names = self.ctx.stream.schema.type_names
        for t, nm in enumerate(names):
            d[f"N_T_{nm}"] = float(self.N_T[t])
            d[f"Z_{nm}"] = float(self.Z[t])
        return d

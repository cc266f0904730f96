"""Zhao et al. (ICDE'20) hybrid state/input shedding, as the DARLING paper runs it ("Zhao et al.").

Warm-up learning (nothing dropped).  Every 32 served warm-up events the live partial matches are
sampled (``pm_snapshot``).  For a sampled partial match in state j (slots ``0..j-1`` bound):

* *contribution* = warm-up matches that extend its bindings (same events in slots ``0..j-1``);
* *consumption* = events of the type of slot j that arrive within its window after its last
  bound event (the comparisons it costs while waiting in state j).

k-means (``k`` classes, Lloyd's algorithm on the two standardised measures, seeded) groups them;
a class's *value* is its mean contribution per unit of mean consumption.  A depth-3 decision tree
(CART, Gini; features: state and the pattern attributes of the first bound event) maps a partial
match to its class; an input event is classified as the single-event partial match it would start
(state 1 with itself as first event).

Shedding.  Every 32 served events: when the mean latency of the recent matches exceeds ``Lmax``,
the *shedding set* is chosen by a knapsack over the classes: remove the fraction
``max(1 - mu / lambda, 1 - Lmax / latency)`` of the consumption at the least contribution,
greedily by ascending value (``mu = 1 / z_bar``, ``lambda`` over the last 512 arrivals; the
latency term covers a backlog that outlives its burst, when the recent rate is below capacity).  The live partial matches whose class
is in the set are dropped (state-based), and while the set is active each arriving event whose
class is in the set is dropped (input-based).  Below ``Lmax`` the set is cleared.
``artifact_knapsack=True`` reproduces the public artifact, whose knapsack returns every class
(everything is shed while the latency is above Lmax).  The artifact's late-bound lambdas (every
class predicate tests the last class) are not reproduced separately: with every class in the set
they have no further effect.

Work: three DECISION_CHECKs per classification (tree depth), one SHED_OP per partial match
examined or dropped event, PM_REMOVED per dropped partial match.
"""
from __future__ import annotations

import numpy as np

from engines import counters as C
from engines.compile import PI_C1, PI_C2, PI_V2
from sim.shedding.queue import Shedder
from sim.shedding.rates import recent_rate

DEPTH = 3


def kmeans(x: np.ndarray, k: int, rng: np.random.Generator, iters: int = 50) -> np.ndarray:
    """Labels of Lloyd's k-means on the rows of ``x`` (k-means++ seeding)."""
    n = len(x)
    k = max(1, min(k, n))
    cent = [x[rng.integers(n)]]
    for _ in range(1, k):
        d = np.min(((x[:, None, :] - np.array(cent)[None]) ** 2).sum(-1), axis=1)
        tot = d.sum()
        cent.append(x[rng.choice(n, p=d / tot)] if tot > 0 else x[rng.integers(n)])
    cent = np.array(cent)
    lab = np.zeros(n, dtype=np.int64)
    for _ in range(iters):
        lab = np.argmin(((x[:, None, :] - cent[None]) ** 2).sum(-1), axis=1)
        new = np.array([x[lab == c].mean(0) if np.any(lab == c) else cent[c] for c in range(k)])
        if np.allclose(new, cent):
            break
        cent = new
    return lab


class Tree:
    """A depth-limited CART classifier (Gini) over float features."""

    def __init__(self, depth: int = DEPTH) -> None:
        self.depth = depth

    def fit(self, x: np.ndarray, y: np.ndarray, n_cls: int) -> "Tree":
        self.n_cls = n_cls
        self.nodes = []          # (feature, threshold, left, right, label)
        self._grow(x, y, 0)
        return self

    def _grow(self, x, y, d) -> int:
        me = len(self.nodes)
        label = int(np.bincount(y, minlength=self.n_cls).argmax()) if len(y) else 0
        self.nodes.append([-1, 0.0, -1, -1, label])
        if d >= self.depth or len(y) < 4 or np.all(y == y[0]):
            return me
        best = (np.inf, -1, 0.0)
        for f in range(x.shape[1]):
            vals = np.unique(np.quantile(x[:, f], np.linspace(0.05, 0.95, 15)))
            for thr in vals:
                left = x[:, f] <= thr
                nl = left.sum()
                if nl == 0 or nl == len(y):
                    continue
                g = (_gini(y[left], self.n_cls) * nl + _gini(y[~left], self.n_cls)
                     * (len(y) - nl)) / len(y)
                if g < best[0]:
                    best = (g, f, float(thr))
        if best[1] < 0:
            return me
        _, f, thr = best
        left = x[:, f] <= thr
        li = self._grow(x[left], y[left], d + 1)
        ri = self._grow(x[~left], y[~left], d + 1)
        self.nodes[me][:4] = [f, thr, li, ri]
        return me

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Class of every row of ``x`` (all rows descend one level per pass)."""
        feat = np.array([nd[0] for nd in self.nodes], dtype=np.int64)
        thr = np.array([nd[1] for nd in self.nodes], dtype=np.float64)
        li = np.array([nd[2] for nd in self.nodes], dtype=np.int64)
        ri = np.array([nd[3] for nd in self.nodes], dtype=np.int64)
        label = np.array([nd[4] for nd in self.nodes], dtype=np.int64)
        k = np.zeros(len(x), dtype=np.int64)
        rows = np.arange(len(x))
        while len(rows):
            rows = rows[feat[k[rows]] >= 0]         # rows still at an inner node
            kr = k[rows]
            k[rows] = np.where(x[rows, feat[kr]] <= thr[kr], li[kr], ri[kr])
        return label[k]


def _gini(y, n_cls) -> float:
    if len(y) == 0:
        return 0.0
    p = np.bincount(y, minlength=n_cls) / len(y)
    return float(1.0 - (p * p).sum())


class Icde20(Shedder):
    name = "icde20"

    def __init__(self, lmax: float, k: int = 4, artifact_knapsack: bool = False,
                 seed: int = 0) -> None:
        self.lmax = float(lmax)
        self.k = int(k)
        self.artifact = bool(artifact_knapsack)
        self.rng = np.random.default_rng(seed)
        self.samples = []      # (state, first, bound rows, time of sample event)
        self.n_served = 0
        self.active = False
        self.shed_set = np.zeros(0, dtype=bool)
        # the rows on_arrival returns (read-only for the queue): a class check, and a drop
        self._row_keep = np.zeros(C.N_COUNTERS, dtype=np.int64)
        self._row_keep[C.DECISION_CHECK] = DEPTH
        self._row_drop = self._row_keep.copy()
        self._row_drop[C.SHED_OP] = 1
        self.pm_dropped = 0
        self.ev_dropped = 0
        self.triggers = 0

    def attach(self, ctx) -> None:
        super().attach(ctx)
        prog = ctx.program
        st = ctx.stream
        self.types = np.asarray(st.types)
        self.ts = np.asarray(st.ts)
        self.attrs = np.asarray(st.attrs)
        # feature columns: the attributes the pattern's predicates read
        cols = set()
        for p in range(len(prog.pred_i)):
            cols.add(int(prog.pred_i[p, PI_C1]))
            if int(prog.pred_i[p, PI_V2]) >= 0:
                cols.add(int(prog.pred_i[p, PI_C2]))
        self.cols = sorted(cols)

    def on_served(self, i, service, row, depart) -> None:
        ctx = self.ctx
        if not ctx.in_warmup:
            return
        self.n_served += 1
        if self.n_served % 32 == 0:
            rows, state, first = ctx.stepper.pm_snapshot()
            if len(rows):
                b = ctx.stepper.pm_bindings(rows).astype(np.int64)
                self.samples.append((state.copy(), first.copy(), b.copy(), i))

    def _features(self, state: np.ndarray, first: np.ndarray) -> np.ndarray:
        return np.column_stack([state.astype(np.float64), self.attrs[first][:, self.cols]])

    def end_warmup(self, now: float) -> None:
        ctx = self.ctx
        stp = ctx.stepper
        sv = np.array([s for _, s in ctx.warm_service])
        self.z_bar = float(sv.mean())
        self.active = True
        if not self.samples:
            self.tree = None
            self.n_cls = 1
            self.value = np.ones(1)
            self.cons = np.ones(1)
            self.shed_set = np.zeros(1, dtype=bool)
            self._classify_events()
            return
        state = np.concatenate([s for s, _, _, _ in self.samples])
        first = np.concatenate([f for _, f, _, _ in self.samples])
        binds = np.concatenate([b for _, _, b, _ in self.samples])
        m = stp.m
        matches = (np.concatenate(ctx.warm_matches) if ctx.warm_matches
                   else np.zeros((0, m), np.int64))
        contrib = np.zeros(len(state))
        # contribution: matches sharing the prefix of length j
        for j in range(1, m):
            sel = np.flatnonzero(state == j)
            if not len(sel) or not len(matches):
                continue
            keyv = np.dtype((np.void, 8 * j))
            mk = np.ascontiguousarray(matches[:, :j]).view(keyv).ravel()
            pk = np.ascontiguousarray(binds[sel, :j]).view(keyv).ravel()
            uniq, cnt = np.unique(mk, return_counts=True)
            pos = np.searchsorted(uniq, pk)
            pos = np.minimum(pos, len(uniq) - 1)
            hit = uniq[pos] == pk
            contrib[sel] = np.where(hit, cnt[pos], 0)
        # consumption: events of slot j's type within the window after the last bound event
        el_type = stp.tb["el_type"]
        w = stp.window
        cons = np.zeros(len(state))
        for j in range(1, m):
            sel = np.flatnonzero(state == j)
            if not len(sel):
                continue
            idx_t = np.flatnonzero(self.types == el_type[j])
            last = binds[sel, j - 1]
            lo = np.searchsorted(idx_t, last, side="right")
            end_t = self.ts[first[sel]] + (w if np.isfinite(w) else np.inf)
            hi = np.searchsorted(self.ts[idx_t], end_t, side="right")
            cons[sel] = np.maximum(hi - lo, 0)
        z = np.column_stack([contrib, cons])
        z = (z - z.mean(0)) / np.maximum(z.std(0), 1e-12)
        lab = kmeans(z, self.k, self.rng)
        self.n_cls = int(lab.max()) + 1
        mc = np.array([contrib[lab == c].mean() for c in range(self.n_cls)])
        mk_ = np.array([max(cons[lab == c].mean(), 1e-9) for c in range(self.n_cls)])
        self.value = mc / mk_
        self.cons = np.array([cons[lab == c].sum() for c in range(self.n_cls)])
        self.tree = Tree().fit(self._features(state, first), lab, self.n_cls)
        self.shed_set = np.zeros(self.n_cls, dtype=bool)
        self._classify_events()

    def _classify_events(self) -> None:
        """Class of every event as the single-event partial match it would start (state 1,
        itself as first event), computed once: ``on_arrival`` looks it up (and still charges
        the tree's DEPTH decisions per arrival)."""
        n = len(self.types)
        self.ev_class = self._classify(np.ones(n, dtype=np.int64),
                                       np.arange(n, dtype=np.int64)).tolist()

    def _choose(self, frac: float) -> np.ndarray:
        if self.artifact:
            return np.ones(self.n_cls, dtype=bool)
        out = np.zeros(self.n_cls, dtype=bool)
        need = frac * self.cons.sum()
        got = 0.0
        for c in np.argsort(self.value, kind="stable"):
            if got >= need:
                break
            out[c] = True
            got += self.cons[c]
        return out

    def _classify(self, state, first) -> np.ndarray:
        if self.tree is None:
            return np.zeros(len(state), dtype=np.int64)
        return self.tree.predict(self._features(state, first))

    @property
    def shed_set(self) -> np.ndarray:
        """bool per class: classes shed now.  Assigning it also sets the Python mirrors that
        ``on_arrival`` reads per event (numpy scalar reads cost ~1 us each); never modify it
        in place."""
        return self._shed_set

    @shed_set.setter
    def shed_set(self, v: np.ndarray) -> None:
        self._shed_set = v
        self._shed_l = v.tolist()
        self._shed_any = bool(v.any())

    def on_arrival(self, i: int, now: float):
        if not self.active or not self._shed_any:
            return None
        if self._shed_l[self.ev_class[i]]:
            self.ctx.queue.drop(i)
            self.ev_dropped += 1
            return self._row_drop          # DEPTH decisions + one SHED_OP
        return self._row_keep              # DEPTH decisions

    def after_step(self, i: int, row, now: float):
        if not self.active:
            return None
        self.n_served += 1
        if self.n_served % 32:
            return None
        ctx = self.ctx
        lat = ctx.recent_mean_latency()
        if lat <= self.lmax:
            self.shed_set = np.zeros(len(self.shed_set), dtype=bool)
            return None
        lam = recent_rate(ctx.arrivals, ctx.queue.tail - 1)
        # the load to remove: what the arrival rate exceeds, or what brings the latency back to
        # Lmax when a backlog outlives the burst (the recent rate is then below capacity)
        frac = max(0.0, 1.0 - (1.0 / self.z_bar) / lam, 1.0 - self.lmax / lat)
        self.shed_set = self._choose(frac)
        self.triggers += 1
        rows, state, first = ctx.stepper.pm_snapshot()
        out = np.zeros(C.N_COUNTERS, dtype=np.int64)
        if len(rows) and self.shed_set.any():
            cls = self._classify(state, first)
            out[C.DECISION_CHECK] += DEPTH * len(rows)
            out[C.SHED_OP] += len(rows)
            kill = rows[self.shed_set[cls]]
            out += ctx.stepper.drop_pms(kill)
            out[C.LIVE_PM] = 0
            out[C.LIVE_BOUND] = 0
            self.pm_dropped += len(kill)
        return out

    def info(self) -> dict:
        return {"z_bar": self.z_bar, "classes": self.n_cls, "pm_dropped": self.pm_dropped,
                "ev_dropped": self.ev_dropped, "triggers": self.triggers} if self.active else {}

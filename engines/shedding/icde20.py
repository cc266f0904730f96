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
from numba import njit

from engines import counters as C
from engines.compile import PI_C1, PI_C2, PI_V2
from engines.shedding.base import Shedder, index_dtype
from engines.shedding.rates import recent_rate
from engines.heap import trim_heap

DEPTH = 3
_CLASSIFY_BLOCK = 1 << 18      # events classified per block (_classify_events)


def kmeans(x: np.ndarray, k: int, rng: np.random.Generator, iters: int = 50) -> np.ndarray:
    """Labels of Lloyd's k-means on the rows of ``x`` (k-means++ seeding)."""
    n = len(x)
    k = max(1, min(k, n))
    cent = [x[rng.integers(n)]]
    for _ in range(1, k):
        d = _nearest(x, np.array(cent))[0]
        tot = d.sum()
        cent.append(x[rng.choice(n, p=d / tot)] if tot > 0 else x[rng.integers(n)])
    cent = np.array(cent)
    lab = np.zeros(n, dtype=np.int64)
    for _ in range(iters):
        lab = _nearest(x, cent)[1]
        new = _class_means(x, lab, cent)
        if np.allclose(new, cent):
            break
        cent = new
    return lab


def _class_means(x: np.ndarray, lab: np.ndarray, cent: np.ndarray) -> np.ndarray:
    """Per class ``c``: ``x[lab == c].mean(0)``, or ``cent[c]`` when no row has label c."""
    if x.dtype == np.float64 and x.ndim == 2 and x.shape[1] >= 2 and x.flags.c_contiguous:
        return _class_means_kernel(x, lab, np.ascontiguousarray(cent, dtype=np.float64))
    return np.array([x[lab == c].mean(0) if np.any(lab == c) else cent[c]
                     for c in range(len(cent))])


@njit(cache=True)
def _class_means_kernel(x, lab, cent):
    """``_class_means`` in one pass: numpy's ``mean(0)`` of a C-contiguous block of two or more
    columns adds the rows in order (from the first row) and divides by the count, and so does
    this (one column is summed pairwise by numpy, and is left to it)."""
    k, f = cent.shape
    s = np.zeros((k, f))
    cnt = np.zeros(k, dtype=np.int64)
    for i in range(x.shape[0]):
        c = lab[i]
        if cnt[c] == 0:
            for j in range(f):
                s[c, j] = x[i, j]
        else:
            for j in range(f):
                s[c, j] += x[i, j]
        cnt[c] += 1
    out = np.empty((k, f))
    for c in range(k):
        for j in range(f):
            out[c, j] = s[c, j] / cnt[c] if cnt[c] else cent[c, j]
    return out


@njit(cache=True)
def _nearest_kernel(x, cent):
    """``_nearest`` for C-contiguous float64 rows of fewer than 8 features: the same
    subtractions, squares and left-to-right sums as numpy's (a reduction of under 8 contiguous
    values adds them in order), so the same distances bit for bit, in one pass over ``x``."""
    n, f = x.shape
    best = np.full(n, np.inf)
    arg = np.zeros(n, dtype=np.int64)
    for c in range(cent.shape[0]):
        for i in range(n):
            d = x[i, 0] - cent[c, 0]
            dist = d * d
            for j in range(1, f):
                d = x[i, j] - cent[c, j]
                dist += d * d
            if dist < best[i]:
                best[i] = dist
                arg[i] = c
    return best, arg


def _nearest(x: np.ndarray, cent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(squared distance of every row of ``x`` to its nearest row of ``cent``, the index of that
    row, the first on ties): the values of ``np.min`` / ``np.argmin`` over axis 1 of the
    broadcast ``((x[:, None, :] - cent[None]) ** 2).sum(-1)`` (each distance is the same
    elementwise operations, each row summed over its own features), one centroid at a time
    and keeping only the running minimum: neither the (n, k, features) temporaries nor the
    (n, k) distances, which took gigabytes on DARLING's long streams (millions of sampled
    partial matches; peak memory)."""
    if (x.dtype == np.float64 and x.ndim == 2 and 0 < x.shape[1] < 8
            and x.flags.c_contiguous and len(cent)):
        return _nearest_kernel(x, np.ascontiguousarray(cent, dtype=np.float64))
    best = np.full(len(x), np.inf)
    arg = np.zeros(len(x), dtype=np.int64)
    diff = np.empty_like(x, dtype=np.float64)
    for c in range(len(cent)):
        np.subtract(x, cent[c], out=diff)
        np.multiply(diff, diff, out=diff)
        dist = diff.sum(-1)
        closer = dist < best          # strict: the first centroid keeps a tie (argmin's rule)
        best[closer] = dist[closer]
        arg[closer] = c
    return best, arg


class Tree:
    """A depth-limited CART classifier (Gini) over float features."""

    def __init__(self, depth: int = DEPTH) -> None:
        self.depth = depth

    def fit(self, x: np.ndarray, y: np.ndarray, n_cls: int) -> "Tree":
        self.n_cls = n_cls
        self.nodes = []          # (feature, threshold, left, right, label)
        # row numbers and labels in the smallest integer types that hold them: the nodes copy
        # both down every path (millions of rows on DARLING's long streams: peak
        # memory); the same values, so the same counts, splits and labels
        rows = np.arange(len(y), dtype=index_dtype(len(y)))
        y = np.asarray(y)
        if len(y) and (y.min() < 0 or y.max() >= n_cls):
            raise ValueError(f"Tree.fit: labels must lie in 0..{n_cls - 1}, got "
                             f"{int(y.min())}..{int(y.max())}")
        if n_cls <= 127:
            y = y.astype(np.int8)
        self._grow(x, rows, y, 0)
        return self

    def _grow(self, x, rows, y, d) -> int:
        """Grow the node of the rows ``rows`` of ``x`` (labels ``y`` = theirs).  A node reads its
        rows' feature columns one at a time (``x[rows, f]``) instead of copying its rows of
        ``x``: the same values in the same order, so the same splits, with one column alive at a
        time (millions of rows on DARLING's long streams; peak memory)."""
        me = len(self.nodes)
        label = int(np.bincount(y, minlength=self.n_cls).argmax()) if len(y) else 0
        self.nodes.append([-1, 0.0, -1, -1, label])
        if d >= self.depth or len(y) < 4 or np.all(y == y[0]):
            return me
        best = (np.inf, -1, 0.0)
        for f in range(x.shape[1]):
            col = x[rows, f]
            vals = np.unique(np.quantile(col, np.linspace(0.05, 0.95, 15)))
            for thr, nl, g in _split_scores(col, y, vals, self.n_cls):
                if g < best[0]:
                    best = (g, f, float(thr))
            del col
        if best[1] < 0:
            return me
        _, f, thr = best
        left = x[rows, f] <= thr
        li = self._grow(x, rows[left], y[left], d + 1)
        ri = self._grow(x, rows[~left], y[~left], d + 1)
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


def _prefix_counts(chunks: list, prefixes: np.ndarray, n: int) -> np.ndarray:
    """Per row of ``prefixes`` (int[p, j]): how many rows of ``chunks`` (each int[k, m]) have it
    as their length-j prefix (how many warm-up matches share each sampled partial match's
    bindings).  A prefix of event indices in ``[0, n)`` is keyed by one int64
    (``sum_c e_c * n**(j-1-c)``) when ``n**j`` fits, else by its bytes; either key is injective,
    so the counts are the exact counts of equal prefixes.  Keys are built chunk by chunk (the
    joined matches are never materialised) and sorted in place (``np.unique`` sorts a copy):
    tens of millions of matches on DARLING's long streams (peak memory)."""
    j = prefixes.shape[1]
    in_range = all(len(c) == 0 or (int(c[:, :j].min()) >= 0 and int(c[:, :j].max()) < n)
                   for c in chunks) and (len(prefixes) == 0 or (int(prefixes.min()) >= 0
                                                               and int(prefixes.max()) < n))
    if in_range and n ** j < 2 ** 63:
        def key(rows):
            out = np.zeros(len(rows), dtype=np.int64)
            for c in range(j):
                out = out * n + rows[:, c].astype(np.int64)
            return out
    else:
        keyv = np.dtype((np.void, 8 * j))

        def key(rows):
            return np.ascontiguousarray(rows[:, :j], dtype=np.int64).view(keyv).ravel()
    keys = np.concatenate([key(c[:, :j]) for c in chunks])
    keys.sort()
    # the distinct keys and their counts, as ``np.unique(keys, return_counts=True)`` (which
    # would sort a copy)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) \
        if len(keys) else np.zeros(0, np.intp)
    uniq = keys[starts]
    cnt = np.diff(np.append(starts, len(keys)))
    del keys
    pk = key(prefixes)
    if not len(uniq):
        return np.zeros(len(pk), np.int64)
    pos = np.minimum(np.searchsorted(uniq, pk), len(uniq) - 1)
    return np.where(uniq[pos] == pk, cnt[pos], 0).astype(np.int64)


def _time_order(rows: np.ndarray) -> np.ndarray:
    """Each row's bound event indices in stream order, unbound (-1) slots last."""
    r = np.where(rows < 0, np.iinfo(np.int64).max, rows.astype(np.int64))
    r.sort(axis=1)
    return np.where(r == np.iinfo(np.int64).max, -1, r).astype(rows.dtype)


def _join_and_clear(parts: list) -> np.ndarray:
    """``np.concatenate(parts)``, emptying ``parts`` (its arrays are freed as soon as joined)."""
    out = np.concatenate(parts)
    parts.clear()
    return out


def _gini(y, n_cls) -> float:
    if len(y) == 0:
        return 0.0
    return _gini_of_counts(np.bincount(y, minlength=n_cls), len(y))


def _gini_of_counts(counts: np.ndarray, n: int) -> float:
    """Gini impurity of class counts ``counts`` (int64) summing to ``n`` > 0."""
    p = counts / n
    return float(1.0 - (p * p).sum())


def _split_scores(col: np.ndarray, y: np.ndarray, vals: np.ndarray, n_cls: int):
    """``(threshold, rows left, weighted Gini)`` of the splits ``col <= thr`` for ``thr`` in
    ``vals`` (ascending) that leave rows on both sides, in ``vals`` order.  The class counts of
    every split come from one pass (each row's bucket among ``vals`` and label, counted, then
    summed bucket by bucket): the same integer counts as masking the rows per threshold, so the
    same Gini values (a mask and two label counts per threshold were a fifth of an ICDE'20
    point on a long stream).  Labels ``y`` lie in ``0..n_cls - 1`` (``Tree.fit`` checks)."""
    n = len(y)
    # a NaN threshold leaves no row on the left (comparisons with NaN are false): no split; a
    # NaN value goes right of every threshold, as searchsorted sorts it after every number
    vals = vals[~np.isnan(vals)]
    bucket = np.searchsorted(vals, col, side="left")      # col <= vals[t]  <=>  bucket <= t
    hist = np.bincount(bucket * n_cls + y.astype(np.int64),
                       minlength=(len(vals) + 1) * n_cls).reshape(len(vals) + 1, n_cls)
    left_counts = np.cumsum(hist, axis=0)
    total = left_counts[-1]
    for t, thr in enumerate(vals):
        cl = left_counts[t]
        nl = int(cl.sum())
        if nl == 0 or nl == n:
            continue
        yield thr, nl, (_gini_of_counts(cl, nl) * nl + _gini_of_counts(total - cl, n - nl)
                        * (n - nl)) / n


class Icde20(Shedder):
    name = "icde20"

    def __init__(self, lmax: float, k: int = 4, artifact_knapsack: bool = False,
                 seed: int = 0) -> None:
        self.lmax = float(lmax)
        self.k = int(k)
        self.artifact = bool(artifact_knapsack)
        self.rng = np.random.default_rng(seed)
        # the sampled partial matches: per snapshot, their states, first events, bound rows
        self.samples: tuple[list, list, list] = ([], [], [])
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
        if not self.ctx.in_warmup:
            return
        self.n_served += 1
        if self.n_served % 32 == 0:
            self.sample()

    def sample(self) -> None:
        """Keep a snapshot of the live partial matches (every 32 served warm-up events; the
        compiled queue counts and calls this, ``engines.shedding.kernel_hooks``)."""
        stp = self.ctx.stepper
        rows, state, first = stp.pm_snapshot()
        if len(rows):
            b = stp.pm_bindings(rows).astype(np.int64)
            # compact copies (the values are unchanged; int64 again where used): millions of
            # samples on DARLING's long streams (peak memory)
            idx = index_dtype(len(self.types))
            for part, v in zip(self.samples, (state.astype(np.int16), first.astype(idx),
                                              b.astype(idx))):
                part.append(v)

    def _features(self, state: np.ndarray, first: np.ndarray) -> np.ndarray:
        # the feature columns of the events first, then the rows (not every attribute of
        # millions of rows: peak memory); the same values
        # np.ix_ gathers only the (row, feature column) elements: ``attrs[:, cols][first]``
        # copied every column of the whole stream first, per call (every 32 served events while
        # shedding: minutes on a 4.2M-event stream)
        return np.column_stack([state.astype(np.float64),
                                self.attrs[np.ix_(np.asarray(first, np.intp), self.cols)]])

    def end_warmup(self, now: float) -> None:
        ctx = self.ctx
        stp = ctx.stepper
        self.z_bar = ctx.mean_warm_service(self.name)
        self.active = True
        if not self.samples[0]:
            self.tree = None
            self.n_cls = 1
            self.value = np.ones(1)
            self.cons = np.ones(1)
            self.shed_set = np.zeros(1, dtype=bool)
            self._classify_events()
            return
        # one part at a time, each snapshot list freed once joined (millions of sampled partial
        # matches on DARLING's long streams: peak memory)
        state, first, binds = (_join_and_clear(part) for part in self.samples)
        m = stp.m
        warm = ctx.warm_matches
        if np.any(stp.tb["el_ghi"] - stp.tb["el_glo"] > 1):
            # an AND group binds its slots in any order: a partial match of state j holds the
            # first j events of its matches in stream order, so both are compared in that order
            binds = _time_order(binds)
            warm = [_time_order(c) for c in warm]
        contrib = np.zeros(len(state))
        # contribution: warm-up matches sharing the prefix of length j (exact counts; a Kleene
        # slot is compared by its last event, the one a match row keeps)
        for j in range(1, m):
            sel = np.flatnonzero(state == j)
            if not len(sel) or not warm:
                continue
            contrib[sel] = _prefix_counts(warm, binds[sel, :j], len(self.types))
        del warm
        # this shedder is the warm-up matches' last reader (the queue clears them after
        # end_warmup anyway): free them before the k-means and the tree, and hand their heap
        # pages back (the many small chunks stay resident otherwise; peak memory)
        ctx.warm_matches.clear()
        trim_heap()
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
        del binds
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
        # in blocks of events: a row's class depends on that row only, and the whole stream's
        # features and descent indices at once took 300 MB on a 4.2M-event stream
        self.ev_class = []
        for a in range(0, n, _CLASSIFY_BLOCK):
            b = min(n, a + _CLASSIFY_BLOCK)
            self.ev_class += self._classify(np.ones(b - a, dtype=np.int64),
                                            np.arange(a, b, dtype=np.int64)).tolist()

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
        return self.trigger()

    def trigger(self):
        """Every 32 served events after the warm-up: above Lmax, choose the shedding set and
        drop the live partial matches of its classes (returns the work row); below, clear the
        set (the compiled queue counts and calls this, ``engines.shedding.kernel_hooks``)."""
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

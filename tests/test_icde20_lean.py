"""The ICDE'20 shedder's memory-lean learning steps (peak memory) compute exactly what
the direct numpy forms compute: distances, prefix counts, the tree's splits."""
import numpy as np
import pytest

from engines.shedding.icde20 import Tree, _nearest, _prefix_counts, kmeans


def _direct_prefix_counts(rows: np.ndarray, prefixes: np.ndarray) -> np.ndarray:
    """Per prefix row: how many rows of ``rows`` start with it (bytes of the prefix as key)."""
    j = prefixes.shape[1]
    keyv = np.dtype((np.void, 8 * j))
    mk = np.ascontiguousarray(rows[:, :j]).view(keyv).ravel()
    pk = np.ascontiguousarray(prefixes.astype(np.int64)).view(keyv).ravel()
    uniq, cnt = np.unique(mk, return_counts=True)
    pos = np.minimum(np.searchsorted(uniq, pk), len(uniq) - 1)
    return np.where(uniq[pos] == pk, cnt[pos], 0)


@pytest.mark.parametrize("n", [7, 50, 3_000_000_000])    # the last: n**j overflows int64
@pytest.mark.parametrize("j", [1, 2, 3])
def test_prefix_counts_equal_the_byte_key_counts(n, j):
    rng = np.random.default_rng(n + j)
    hi = min(n, 9)                       # few distinct values: many shared prefixes
    chunks = [rng.integers(0, hi, size=(k, 4)).astype(dt)
              for k, dt in ((0, np.int64), (40, np.int32), (13, np.int64), (200, np.int32))]
    prefixes = rng.integers(0, hi, size=(120, j)).astype(np.int32)
    prefixes[-1] = hi                    # a prefix no row has (chunk values are < hi)
    got = _prefix_counts(chunks, prefixes, n)
    want = _direct_prefix_counts(np.concatenate(chunks).astype(np.int64), prefixes)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    assert want.sum() > 0 and (want == 0).any()     # the case has hits and misses


def test_nearest_and_kmeans_equal_the_broadcast_form():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 2))
    x[7] = x[3]                          # a tie between two centroids' distances below
    cent = x[[3, 99, 250, 7]]
    dist = ((x[:, None, :] - cent[None]) ** 2).sum(-1)
    best, arg = _nearest(x, cent)
    assert np.array_equal(best, dist.min(axis=1)) and np.array_equal(arg, dist.argmin(axis=1))
    assert arg[3] == 0                   # tie: the first centroid, as argmin
    lab = kmeans(x, 4, np.random.default_rng(1))
    assert lab.shape == (500,) and len(np.unique(lab)) == 4


@pytest.mark.parametrize("f", [1, 2, 3, 7, 9])
def test_nearest_and_class_means_equal_numpy_bit_for_bit(f):
    """The one-pass Numba forms (fewer than 8 features: distances; two or more: class means)
    give numpy's values exactly; other shapes take the numpy path."""
    from engines.shedding.icde20 import _class_means
    rng = np.random.default_rng(f)
    x = rng.normal(size=(20_000, f)) * 1e3 + rng.normal(size=(20_000, f)) * 1e-3
    x[::9] = x[4]
    cent = np.concatenate([x[[4, 10, 77]], rng.normal(size=(2, f))])
    dist = ((x[:, None, :] - cent[None]) ** 2).sum(-1)
    best, arg = _nearest(x, cent)
    assert np.array_equal(best, dist.min(axis=1)) and np.array_equal(arg, dist.argmin(axis=1))
    lab = rng.integers(0, 4, len(x))                    # class 4 has no row: keeps its centroid
    want = np.array([x[lab == c].mean(0) if np.any(lab == c) else cent[c] for c in range(5)])
    assert np.array_equal(_class_means(x, lab, cent), want)


class _CopyTree(Tree):
    """The reference: every node copies its rows of x (the direct form)."""

    def fit(self, x, y, n_cls):
        self.n_cls = n_cls
        self.nodes = []
        self._grow_copy(x, y, 0)
        return self

    def _grow_copy(self, x, y, d):
        from engines.shedding.icde20 import _gini
        me = len(self.nodes)
        label = int(np.bincount(y, minlength=self.n_cls).argmax()) if len(y) else 0
        self.nodes.append([-1, 0.0, -1, -1, label])
        if d >= self.depth or len(y) < 4 or np.all(y == y[0]):
            return me
        best = (np.inf, -1, 0.0)
        for f in range(x.shape[1]):
            for thr in np.unique(np.quantile(x[:, f], np.linspace(0.05, 0.95, 15))):
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
        li = self._grow_copy(x[left], y[left], d + 1)
        ri = self._grow_copy(x[~left], y[~left], d + 1)
        self.nodes[me][:4] = [f, thr, li, ri]
        return me


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_tree_equals_the_row_copying_tree(seed):
    """Splits scored from one pass of bucketed class counts equal per-threshold masks (many
    ties: an integer feature, values on the quantile thresholds)."""
    rng = np.random.default_rng(seed)
    n = 800 if seed < 3 else 20_000
    x = np.column_stack([rng.integers(1, 4, n).astype(float), rng.normal(size=n),
                         rng.exponential(size=n)])
    if seed >= 3:
        x[:, 1] = np.round(x[:, 1], 1)
    if seed == 5:
        x[::11, 2] = np.nan                     # NaN goes right of every threshold
    y = ((x[:, 1] > 0.2).astype(int) + (x[:, 2] > 1.0) + (x[:, 0] == 3)).astype(np.int64)
    lean, ref = Tree().fit(x, y, 4), _CopyTree().fit(x, y, 4)
    assert lean.nodes == ref.nodes
    assert len(lean.nodes) > 3
    assert np.array_equal(lean.predict(x), ref.predict(x))


def test_features_gather_the_same_values_as_the_column_then_row_copy():
    """``Icde20._features`` gathers (row, feature column) elements directly; the values are
    those of the earlier ``attrs[:, cols][first]`` (which copied the whole stream per call)."""
    from types import SimpleNamespace

    from engines.shedding.icde20 import Icde20
    rng = np.random.default_rng(3)
    attrs = rng.normal(size=(500, 6))
    for cols in ([2], [0, 4, 5], []):
        me = SimpleNamespace(attrs=attrs, cols=cols)
        for dt in (np.int16, np.int32, np.int64):
            first = rng.integers(0, 500, size=40).astype(dt)
            state = rng.integers(0, 4, size=40).astype(np.int16)
            got = Icde20._features(me, state, first)
            want = np.column_stack([state.astype(np.float64), attrs[:, cols][first]])
            assert got.dtype == want.dtype and np.array_equal(got, want)
        empty = Icde20._features(me, np.zeros(0, np.int16), np.zeros(0, np.int32))
        assert empty.shape == (0, 1 + len(cols))


def test_events_classified_in_blocks_as_in_one_pass(monkeypatch):
    """``_classify_events`` classifies the stream block by block; every event gets the class the
    single whole-stream pass gives it (a row's class depends on that row only)."""
    import engines.shedding.icde20 as I
    rng = np.random.default_rng(5)
    sh = I.Icde20(lmax=1.0)
    sh.types = rng.integers(0, 3, 1000)
    sh.attrs = rng.normal(size=(1000, 3))
    sh.cols = [0, 2]
    x = sh._features(rng.integers(1, 3, 300), rng.integers(0, 1000, 300))
    sh.tree = Tree().fit(x, (x[:, 1] > 0).astype(np.int64) + (x[:, 2] > 0.5), 3)
    sh._classify_events()
    whole = list(sh.ev_class)
    monkeypatch.setattr(I, "_CLASSIFY_BLOCK", 7)
    sh._classify_events()
    assert sh.ev_class == whole and len(whole) == 1000 and len(set(whole)) > 1

"""sim.experiments.worker_memory: what a pool worker drops between points, and what it keeps."""
from __future__ import annotations

import functools
import sys
import types

import pytest

from sim.experiments import worker_memory as W


def _memo_module(name: str, uses: types.ModuleType | None = None) -> types.ModuleType:
    """A module under sim.studies with one lru_cache memo and one MEMO_DICTS dict."""
    mod = types.ModuleType(name)

    @functools.lru_cache(maxsize=4)
    def stream(n: int) -> list:
        return list(range(n))

    stream.__module__ = name
    mod.stream = stream
    mod._REF = {"k": 1}
    mod.MEMO_DICTS = ("_REF",)
    if uses is not None:
        mod.D = uses
    sys.modules[name] = mod
    return mod


@pytest.fixture
def memo_modules():
    base = _memo_module("sim.studies._memo_base")
    user = _memo_module("sim.studies._memo_user", uses=base)
    other = _memo_module("sim.studies._memo_other")
    for m in (base, user, other):
        m.stream(3)
    yield base, user, other
    for m in (base, user, other):
        sys.modules.pop(m.__name__, None)


def test_used_modules_follow_globals(memo_modules):
    base, user, other = memo_modules
    used = W.memo_modules_used_by(user.__name__)
    assert base.__name__ in used and user.__name__ in used
    assert other.__name__ not in used


def test_clear_memos_keeps_the_running_paper(memo_modules):
    base, user, other = memo_modules
    n = W.clear_memos(keep=W.memo_modules_used_by(user.__name__))
    assert n >= 2
    assert other.stream.cache_info().currsize == 0 and other._REF == {}
    assert base.stream.cache_info().currsize == 1 and base._REF == {"k": 1}
    assert user.stream.cache_info().currsize == 1 and user._REF == {"k": 1}


def test_release_only_above_the_threshold(memo_modules):
    base, user, other = memo_modules
    if W.rss_mb() is None:
        pytest.skip("no /proc on this system: rss_mb() cannot be read")
    assert not W.release_after_point("sim.studies._memo_user:point", threshold_mb=1e9)
    assert other.stream.cache_info().currsize == 1
    assert W.release_after_point("sim.studies._memo_user:point", threshold_mb=0.0)
    assert other.stream.cache_info().currsize == 0
    assert user.stream.cache_info().currsize == 1


def test_released_memo_recomputes_the_same_value(memo_modules):
    _, _, other = memo_modules
    before = other.stream(5)
    W.clear_memos(keep=set(sys.modules) - {other.__name__})
    assert other.stream(5) == before


def test_a_bad_release_limit_is_a_clear_input_error(monkeypatch):
    from engines.errors import CepsimInputError
    monkeypatch.setenv("CEPSIM_WORKER_RELEASE_MB", "lots")
    with pytest.raises(CepsimInputError, match="CEPSIM_WORKER_RELEASE_MB"):
        W._release_limit()
    monkeypatch.setenv("CEPSIM_WORKER_RELEASE_MB", "512")
    assert W._release_limit() == 512.0


def test_array_bytes_counts_owned_arrays_once():
    import numpy as np
    a = np.zeros(1000)                       # 8,000 bytes
    obj = types.SimpleNamespace(x=a, y=a[10:], z=[a, (a, {"k": np.ones(10, np.int32)})])
    assert W.array_bytes(obj) == 8000 + 40
    assert W.array_bytes({"s": "text", "n": 3}) == 0


def test_array_bytes_finds_arrays_among_many_numbers():
    import numpy as np
    a = np.zeros(100)
    assert W.array_bytes([[1, 2.0, None, True, "x"] * 50, (3, a), [4] * 1000]) == 800
    assert W.array_bytes({1: 2.0, "k": [a, 5]}) == 800


def test_drop_bulky_entries_measures_each_entry_once(memo_modules, monkeypatch):
    import numpy as np
    base, user, other = memo_modules
    seen = []
    real = W.array_bytes
    monkeypatch.setattr(W, "array_bytes",
                        lambda obj, *rest: (not rest and seen.append(obj)) or real(obj, *rest))
    user._REF["short"] = small = (np.zeros(10),)
    assert W.drop_bulky_entries(2.0) == 0
    measured = len(seen)
    assert W.drop_bulky_entries(2.0) == 0 and len(seen) == measured   # nothing new: no walk
    user._REF["short"] = (np.zeros(2**20 // 8 * 3),)                   # replaced: measured again
    assert W.drop_bulky_entries(2.0) == 1 and "short" not in user._REF
    assert len(seen) == measured + 1 and small is not None


def test_drop_bulky_entries_drops_only_big_entries_of_every_paper(memo_modules):
    import numpy as np
    base, user, other = memo_modules
    big = np.zeros(2**20 // 8 * 3)           # 3 MB
    user._REF["long"] = types.SimpleNamespace(attrs=big)
    other._REF["long"] = (big.copy(), 1)
    user._REF["short"] = np.zeros(10)
    assert W.drop_bulky_entries(2.0) == 2
    assert "long" not in user._REF and "long" not in other._REF
    assert set(user._REF) == {"k", "short"} and user.stream.cache_info().currsize == 1
    # through release_after_point: only with bulky_mb, the running paper's own entry included
    user._REF["long"] = types.SimpleNamespace(attrs=big)
    W.release_after_point("sim.studies._memo_user:point", threshold_mb=1e9)
    assert "long" in user._REF
    assert W.release_after_point("sim.studies._memo_user:point", threshold_mb=1e9, bulky_mb=2.0)
    assert "long" not in user._REF and user._REF["k"] == 1


def test_darling_continued_stream_memo_is_droppable_and_recomputes_the_same():
    import numpy as np
    from sim.studies.darling import scenario as darling
    a = darling._continued(60000, 1)
    assert darling._continued(60000, 1) is a and (60000, 1) in darling._CONTINUED
    assert W.drop_bulky_entries(W.array_bytes(a) / 2**20) >= 1
    assert (60000, 1) not in darling._CONTINUED
    b = darling._continued(60000, 1)
    assert b is not a and np.array_equal(a.ts, b.ts) and np.array_equal(a.attrs, b.attrs)
    darling._CONTINUED.clear()


def test_release_freezes_survivors_and_still_collects_new_garbage(memo_modules):
    """After a release the survivors are frozen (later collections skip them), a memo that the
    next release clears is still freed, and garbage made after the freeze is still collected."""
    import gc
    import weakref

    class Node:
        pass

    base, user, other = memo_modules
    kept = Node()
    other._REF["x"] = kept           # held by a memo of another paper
    gc.unfreeze()
    try:
        assert W.release_after_point("sim.studies._memo_user:point", threshold_mb=-1.0)
        assert gc.get_freeze_count() > 0
        # the other paper's memo was cleared before the freeze: its entry is gone
        assert "x" not in other._REF
        # a cycle made after the freeze is garbage the next collection finds
        a, b = Node(), Node()
        a.peer, b.peer = b, a
        dead = weakref.ref(a)
        del a, b
        gc.collect()
        assert dead() is None
        # a frozen object that a later release drops (no cycle) is freed by reference counting
        survivor = Node()
        user._REF["y"] = survivor
        W.collect_then_freeze()
        gone = weakref.ref(survivor)
        del survivor
        user._REF.clear()
        assert gone() is None
    finally:
        gc.unfreeze()

"""sim.worker_memory: what a pool worker drops between points, and what it keeps."""
from __future__ import annotations

import functools
import sys
import types

import pytest

from sim import worker_memory as W


def _memo_module(name: str, uses: types.ModuleType | None = None) -> types.ModuleType:
    """A module under sim.scenarios with one lru_cache memo and one MEMO_DICTS dict."""
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
    base = _memo_module("sim.scenarios._memo_base")
    user = _memo_module("sim.scenarios._memo_user", uses=base)
    other = _memo_module("sim.scenarios._memo_other")
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
    assert not W.release_after_point("_memo_user:point", threshold_mb=1e9)
    assert other.stream.cache_info().currsize == 1
    assert W.release_after_point("_memo_user:point", threshold_mb=0.0)
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

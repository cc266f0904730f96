"""``program_memo(program)``: a dict of derived data that lives exactly as long as one compiled
``Program`` (or any other object that takes weak references, e.g. an ``EventStream``);
``kept(program, name, maxsize)``: a bounded map inside it.

Engines derive tables from a program again and again (the tree evaluator's OR alternatives and
plan tables, the chain's per-order tables, once per run; the adaptive scenario runs thousands of
plans of one program).  A ``Program`` holds numpy arrays, so it cannot be a dict key; the memo
is keyed by ``id(program)`` and holds a weak reference to it: the entry is dropped when the
program is collected, and a new program that reuses a dead one's ``id`` never sees the dead
one's memo.  Values must be derived from the program alone (plus the key they are stored under).
A stream's memo holds data derived from that stream (``engines.corr_prep``), freed with it.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict

from engines.compile import Program

_memos: dict[int, tuple[weakref.ref, dict]] = {}


def program_memo(program: Program | object) -> dict:
    """The memo dict of ``program`` (empty at first); any weakly referenceable object works."""
    key = id(program)
    hit = _memos.get(key)
    if hit is not None and hit[0]() is program:
        return hit[1]
    memo: dict = {}
    _memos[key] = (weakref.ref(program, lambda _, k=key: _memos.pop(k, None)), memo)
    return memo


class Kept(OrderedDict):
    """A map that keeps its ``maxsize`` most recently used entries (``find`` / ``keep``)."""

    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = int(maxsize)

    def find(self, key):
        """The value kept under ``key`` (now the most recently used), or None."""
        hit = self.get(key)
        if hit is not None:
            self.move_to_end(key)
        return hit

    def keep(self, key, value):
        """Keep ``value`` under ``key``, dropping the least recently used entry beyond
        ``maxsize``; returns ``value``."""
        self[key] = value
        if len(self) > self.maxsize:
            self.popitem(last=False)
        return value


def kept(program: Program, name: str, maxsize: int) -> Kept:
    """The bounded map ``name`` of ``program``'s memo (created empty at first)."""
    memo = program_memo(program)
    out = memo.get(name)
    if out is None:
        out = memo[name] = Kept(maxsize)
    return out

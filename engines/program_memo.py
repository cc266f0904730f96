"""``program_memo(program)``: a dict of derived data that lives exactly as long as one compiled
``Program``.

Engines derive tables from a program again and again (the tree evaluator's OR alternatives and
plan tables, once per run; the adaptive scenario runs thousands of plans of one program).  A
``Program`` holds numpy arrays, so it cannot be a dict key; the memo is keyed by ``id(program)``
and holds a weak reference to it: the entry is dropped when the program is collected, and a
new program that reuses a dead one's ``id`` never sees the dead one's memo.  Values must be
derived from the program alone (plus the key they are stored under).
"""
from __future__ import annotations

import weakref

from engines.compile import Program

_memos: dict[int, tuple[weakref.ref, dict]] = {}


def program_memo(program: Program) -> dict:
    """The memo dict of ``program`` (empty at first)."""
    key = id(program)
    hit = _memos.get(key)
    if hit is not None and hit[0]() is program:
        return hit[1]
    memo: dict = {}
    _memos[key] = (weakref.ref(program, lambda _, k=key: _memos.pop(k, None)), memo)
    return memo

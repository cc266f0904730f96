"""MatchSet: the matches an engine found, in arrays.

Columns are the program's positive variables (``Program.positive_vars``).  For a match ``m`` and
column ``j``: ``pos[m, j]`` is the event index bound to a plain variable, ``-1`` when the
variable is not bound (another OR branch) and ``-2`` for a Kleene variable, whose events are
``kl_events[kl_start[m, j] : kl_start[m, j] + kl_len[m, j]]`` (ascending).  ``detect[m]`` is the
index of the event during whose processing the match was emitted (``n_events`` when emitted at
end of stream, e.g. a trailing NOT whose window never closed); ``last_event[m]`` is the highest
event index in the match, whose arrival the latency is measured from.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

UNBOUND = -1
KLEENE = -2


@dataclass
class MatchSet:
    var_names: tuple[str, ...]
    kleene: tuple[bool, ...]
    pos: np.ndarray          # int64[m, V]
    kl_start: np.ndarray     # int64[m, V]
    kl_len: np.ndarray       # int64[m, V]
    kl_events: np.ndarray    # int64[K]
    detect: np.ndarray       # int64[m]

    def __len__(self) -> int:
        return int(self.pos.shape[0])

    @property
    def last_event(self) -> np.ndarray:
        """Highest event index of each match."""
        last = self.pos.max(axis=1) if self.pos.shape[1] else np.zeros(len(self), np.int64)
        for j, k in enumerate(self.kleene):
            if k:
                has = self.kl_len[:, j] > 0
                ends = np.where(has, self.kl_events[np.maximum(self.kl_start[:, j] + self.kl_len[:, j]
                                                               - 1, 0)] if len(self.kl_events)
                                else -1, -1)
                last = np.maximum(last, ends)
        return last.astype(np.int64)

    def record(self, m: int) -> dict[str, int | list[int]]:
        rec: dict[str, int | list[int]] = {}
        for j, name in enumerate(self.var_names):
            if self.kleene[j]:
                n = int(self.kl_len[m, j])
                if n:
                    s = int(self.kl_start[m, j])
                    rec[name] = [int(e) for e in self.kl_events[s:s + n]]
            elif self.pos[m, j] >= 0:
                rec[name] = int(self.pos[m, j])
        return rec

    def records(self) -> list[dict[str, int | list[int]]]:
        """One dict per match: variable -> event index (plain) or list of indices (Kleene)."""
        return [self.record(m) for m in range(len(self))]

    def keys(self) -> list[tuple]:
        """Hashable canonical form of every match, for set comparisons in tests."""
        return [tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                             for k, v in self.record(m).items())) for m in range(len(self))]

    def key_set(self) -> set[tuple]:
        return set(self.keys())

    @classmethod
    def empty(cls, var_names, kleene) -> "MatchSet":
        v = len(var_names)
        z = np.zeros((0, v), dtype=np.int64)
        return cls(tuple(var_names), tuple(kleene), z, z.copy(), z.copy(),
                   np.zeros(0, np.int64), np.zeros(0, np.int64))

    @classmethod
    def from_records(cls, var_names, kleene, records, detect) -> "MatchSet":
        """Build from dicts as produced by ``records()`` (used by the oracle)."""
        v = len(var_names)
        m = len(records)
        pos = np.full((m, v), UNBOUND, dtype=np.int64)
        kl_start = np.zeros((m, v), dtype=np.int64)
        kl_len = np.zeros((m, v), dtype=np.int64)
        flat: list[int] = []
        for i, rec in enumerate(records):
            for j, name in enumerate(var_names):
                if name not in rec:
                    continue
                val = rec[name]
                if kleene[j]:
                    pos[i, j] = KLEENE
                    kl_start[i, j] = len(flat)
                    kl_len[i, j] = len(val)
                    flat.extend(int(e) for e in val)
                else:
                    pos[i, j] = int(val)
        return cls(tuple(var_names), tuple(kleene), pos, kl_start, kl_len,
                   np.array(flat, dtype=np.int64), np.asarray(detect, dtype=np.int64).reshape(m))

    @classmethod
    def concat(cls, parts: list["MatchSet"]) -> "MatchSet":
        """Concatenate match sets over the same variables (e.g. one per OR branch)."""
        parts = [p for p in parts]
        if not parts:
            raise ValueError("concat needs at least one MatchSet")
        base = parts[0]
        offsets = np.cumsum([0] + [len(p.kl_events) for p in parts[:-1]])
        return cls(base.var_names, base.kleene,
                   np.concatenate([p.pos for p in parts]),
                   np.concatenate([p.kl_start + off for p, off in zip(parts, offsets)]),
                   np.concatenate([p.kl_len for p in parts]),
                   np.concatenate([p.kl_events for p in parts]),
                   np.concatenate([p.detect for p in parts]))

    def sorted(self) -> "MatchSet":
        """Matches in a canonical order (by detection, then by their keys)."""
        keys = self.keys()
        order = sorted(range(len(self)), key=lambda m: (int(self.detect[m]), keys[m]))
        idx = np.array(order, dtype=np.int64)
        if not len(idx):
            return self
        return MatchSet(self.var_names, self.kleene, self.pos[idx], self.kl_start[idx],
                        self.kl_len[idx], self.kl_events, self.detect[idx])


def canonical_rows(rows: np.ndarray) -> np.ndarray:
    """A canonical sorted form of a set of non-negative int rows (e.g. match positions, one
    column per variable): one int64 key per row when the columns fit into 62 bits, else the rows
    sorted lexicographically.  Two row multisets are equal exactly when their canonical forms are
    (``np.array_equal``).  Sorting one key column is several times cheaper than ``np.lexsort``
    over the columns, which dominated comparing millions of matches."""
    rows = np.asarray(rows)
    if rows.ndim != 2:
        raise ValueError(f"canonical_rows: expected a 2-D array, got shape {rows.shape}")
    if len(rows) == 0:
        return rows.astype(np.int64)
    bits = max(1, int(rows.max()).bit_length())
    if rows.min() >= 0 and bits * rows.shape[1] <= 62:
        key = np.zeros(len(rows), dtype=np.int64)
        for j in range(rows.shape[1]):
            key = (key << bits) | rows[:, j].astype(np.int64, copy=False)
        key.sort()
        return key
    return rows[np.lexsort(rows.T[::-1])]


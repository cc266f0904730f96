"""Remote tables and key factorization for the remote-data engine (EIRES).

Remote keys are whatever the stream's key attribute holds: small integers in the paper's DS1,
Zipf draws up to 9.2e18 in the authors' DS2 generator, customer ids or hashes in real data.  The
kernel never indexes by a key value: ``factorize_keys`` maps the values of every REMOTE key column
to dense ids ``0..K-1`` once per run (``np.unique``), and the kernel's per-key state (cache,
in-flight fetches, utility counts) is sized by the number of distinct keys K.

A remote table maps a key to its value:

* ``None`` - identity (the value is the key itself, as the authors' artifact returns
  ``payload = key``, ``src/EIRES_cost_cache/PatternMatcher.cpp`` line 1075);
* a ``RemoteTable`` (two columns ``key, value``, e.g. from a CSV or Parquet file via
  ``load_remote_table``); a key absent from the table has value NaN, so every comparison with
  it is false (an unknown element satisfies no predicate);
* a 1-d array indexed by the integer key (the older form, kept for existing callers);
* a callable ``key -> value``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engines.errors import CepsimInputError


@dataclass(frozen=True)
class RemoteTable:
    """A key -> value table (both float64, keys sorted and unique)."""

    keys: np.ndarray
    values: np.ndarray
    source: str = "table"

    @staticmethod
    def from_pairs(keys, values, source: str = "table") -> "RemoteTable":
        k = np.asarray(keys, dtype=np.float64).reshape(-1)
        v = np.asarray(values, dtype=np.float64).reshape(-1)
        if k.shape != v.shape:
            raise CepsimInputError(f"{source}: the remote table needs as many values as keys "
                                   f"({len(k)} keys, {len(v)} values)")
        if len(k) and not np.all(np.isfinite(k)):
            raise CepsimInputError(f"{source}: remote table keys must be finite numbers")
        order = np.argsort(k, kind="stable")
        k, v = k[order], v[order]
        dup = np.nonzero(np.diff(k) == 0)[0]
        if len(dup):
            raise CepsimInputError(f"{source}: key {k[dup[0]]!r} appears more than once in the "
                                   "remote table (keys beyond 2^53 that differ only in their low "
                                   "bits collapse to one float64; keep one row per key)")
        return RemoteTable(k, v, source)

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        """Values of ``keys`` (NaN where a key is absent)."""
        keys = np.asarray(keys, dtype=np.float64)
        out = np.full(keys.shape, np.nan)
        if len(self.keys) == 0:
            return out
        pos = np.searchsorted(self.keys, keys)
        pos_c = np.minimum(pos, len(self.keys) - 1)
        hit = self.keys[pos_c] == keys
        out[hit] = self.values[pos_c[hit]]
        return out

    def __call__(self, key: float) -> float:
        """The remote function for one key (the oracle's ``remote=`` callable form)."""
        return float(self.lookup(np.array([key]))[0])

    def __len__(self) -> int:
        return len(self.keys)


def load_remote_table(path: str | Path) -> RemoteTable:
    """Read a remote table from CSV (header ``key,value``) or Parquet (columns key, value)."""
    p = Path(path)
    if not p.exists():
        raise CepsimInputError(f"{p}: remote table file not found; give a CSV or Parquet file with "
                               "columns key,value")
    suffix = p.suffix.lower()
    try:
        import pandas as pd
        if suffix in (".parquet", ".pq"):
            df = pd.read_parquet(p)
        elif suffix in (".csv", ".txt"):
            df = pd.read_csv(p)
        else:
            raise CepsimInputError(f"{p}: remote table format {suffix!r} is unknown; use .csv or "
                                   ".parquet with columns key,value")
    except CepsimInputError:
        raise
    except Exception as exc:                   # unreadable file: name it, no deep traceback
        raise CepsimInputError(f"{p}: cannot read the remote table ({exc})") from None
    cols = {str(c).strip().lower(): c for c in df.columns}
    if "key" not in cols or "value" not in cols:
        raise CepsimInputError(f"{p}: the remote table needs columns 'key' and 'value' (found "
                               f"{list(df.columns)})")
    try:
        k = pd.to_numeric(df[cols["key"]]).to_numpy(np.float64)
        v = pd.to_numeric(df[cols["value"]]).to_numpy(np.float64)
    except (ValueError, TypeError) as exc:
        raise CepsimInputError(f"{p}: remote table keys and values must be numbers ({exc})") \
            from None
    return RemoteTable.from_pairs(k, v, str(p))


def factorize_keys(attrs: np.ndarray, key_cols: list[int], source: str,
                   col_names) -> tuple[np.ndarray, np.ndarray]:
    """Dense key ids: ``(kid int64[n, len(key_cols)], uniq float64[K])`` with
    ``uniq[kid[i, c]] == attrs[i, key_cols[c]]``; K >= 1 (a dummy key when there is none)."""
    n = attrs.shape[0]
    if not key_cols:
        return np.zeros((n, 0), np.int64), np.zeros(1)
    cols = np.ascontiguousarray(attrs[:, key_cols], dtype=np.float64)
    bad = ~np.isfinite(cols)
    if bad.any():
        c = int(np.nonzero(bad.any(axis=0))[0][0])
        raise CepsimInputError(f"{source}: attribute {col_names[key_cols[c]]!r} is a REMOTE key "
                               "and must hold finite numbers (found NaN or infinity)")
    uniq, inv = np.unique(cols.reshape(-1), return_inverse=True)
    if len(uniq) == 0:
        uniq = np.zeros(1)
    return inv.reshape(n, len(key_cols)).astype(np.int64), uniq


def dense_values(remote, uniq: np.ndarray) -> np.ndarray:
    """The remote value of each distinct key ``uniq`` (see the module docstring)."""
    if remote is None:
        return uniq.copy()
    if isinstance(remote, RemoteTable):
        return remote.lookup(uniq)
    if callable(remote):
        return np.array([float(remote(float(k))) for k in uniq], dtype=np.float64)
    tab = np.ascontiguousarray(remote, dtype=np.float64).reshape(-1)
    idx = uniq.astype(np.int64)
    if np.any(idx != uniq) or np.any(idx < 0) or np.any(idx >= len(tab)):
        bad = uniq[(idx != uniq) | (idx < 0) | (idx >= len(tab))][0]
        raise CepsimInputError(f"remote engine: key {bad!r} is not an index of the remote table "
                               f"(length {len(tab)}); make the table cover every key, or give a "
                               "key,value table (RemoteTable / --remote-table FILE)")
    return tab[idx]

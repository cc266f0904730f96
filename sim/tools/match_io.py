"""Write a ``MatchSet`` as JSON lines, streamed in chunks (no per-match Python dict held).

One line per match, variables in pattern order, only the bound ones: ``{"a": 3, "b": 7}`` with
a Kleene variable as a list (``{"a": 3, "b": [4, 5]}``).  Matches whose columns are all plain and
bound (the common case) are formatted from the int64 arrays with one %-template per chunk;
others go through ``MatchSet.record``.  The file is written to a temporary name beside the
destination and moved into place (``sim.atomic``), so a failed run leaves no half file.
"""
from __future__ import annotations

import json
import os
from typing import Callable

import numpy as np

from sim.atomic import atomic_write

CHUNK = 65536


def write_matches_jsonl(ms, path: str | os.PathLike, chunk: int = CHUNK,
                        on_chunk: Callable[[int, int], None] | None = None) -> int:
    """Write every match of ``ms`` to ``path``; returns the number written.  ``on_chunk(done,
    total)`` is called after each chunk (progress display)."""
    names = [json.dumps(n) for n in ms.var_names]
    template = "{" + ", ".join(f"{n}: %d" for n in names) + "}\n"
    n = len(ms)

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            for lo in range(0, n, chunk):
                hi = min(n, lo + chunk)
                pos = ms.pos[lo:hi]
                plain = (pos >= 0).all(axis=1) if pos.shape[1] else np.ones(hi - lo, bool)
                if plain.all():
                    fh.write("".join([template % tuple(r) for r in pos.tolist()]))
                    if on_chunk is not None:
                        on_chunk(hi, n)
                    continue
                rows = pos.tolist()
                out = []
                for k in range(hi - lo):
                    if plain[k]:
                        out.append(template % tuple(rows[k]))
                    else:
                        out.append(json.dumps(ms.record(lo + k), separators=(", ", ": ")) + "\n")
                fh.write("".join(out))
                if on_chunk is not None:
                    on_chunk(hi, n)
    atomic_write(path, write)
    return n

"""The two references of the EIRES claims: the paper's text and the authors' ``plot/dat``.

The artifact's own measurements (experiments/eires/artifact_dat, copied from zbjob/EIRES
``plot/dat``) do not reach the text's magnitudes (e.g. greedy cost BL1/BL2/BL3 over Hybrid:
text 111/6/283x, dat 15/10/16x).  A claim therefore states both references: the ranking of the
strategies first (judged against the dat), the magnitudes second (judged against the dat, the
text's number printed beside it, and a note where the dat itself contradicts the text).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from engines.errors import CepsimInputError

DAT_DIR = Path(__file__).resolve().parents[3] / "experiments" / "eires" / "artifact_dat"
STRATEGY_ROWS = ("BL1", "BL2", "BL3", "PFetch", "LzEval", "Hybrid")
COLS = {"min": 1, "mean": 2, "max": 3, "p5": 4, "p25": 5, "p50": 6, "p75": 7, "p95": 8}


@lru_cache(maxsize=32)
def read_dat(name: str) -> dict:
    """``{label: {stat: microseconds}}`` of one artifact dat file (labels as floats)."""
    path = DAT_DIR / name
    if not path.exists():
        raise CepsimInputError(f"{path}: artifact dat file not found (experiments/eires/"
                               "artifact_dat holds the authors' plot/dat files)")
    out: dict = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 9:
            continue
        out[float(parts[0])] = {k: float(parts[i]) for k, i in COLS.items()}
    return out


def dat_by_strategy(name: str, stat: str = "p50") -> dict[str, float]:
    """The six strategies' ``stat`` from an overall dat file (labels 1..6)."""
    d = read_dat(name)
    return {s: d[float(k + 1)][stat] for k, s in enumerate(STRATEGY_ROWS) if float(k + 1) in d}


def pair_agreement(a: dict[str, float], b: dict[str, float], tie: float = 0.05) -> tuple[float,
                                                                                       list]:
    """Share of strategy pairs ordered alike by ``a`` and ``b`` (a pair within ``tie`` relative
    in either counts as agreeing), and the disagreeing pairs."""
    keys = [k for k in a if k in b and np.isfinite(a[k]) and np.isfinite(b[k])]
    agree, bad = 0, []
    pairs = [(x, y) for i, x in enumerate(keys) for y in keys[i + 1:]]
    for x, y in pairs:
        tie_a = abs(a[x] - a[y]) <= tie * max(a[x], a[y])
        tie_b = abs(b[x] - b[y]) <= tie * max(b[x], b[y])
        if tie_a or tie_b or (a[x] < a[y]) == (b[x] < b[y]):
            agree += 1
        else:
            bad.append(f"{x}{'<' if a[x] < a[y] else '>'}{y}")
    return (agree / len(pairs) if pairs else float("nan")), bad


def order(d: dict[str, float]) -> str:
    return " < ".join(k for k, _ in sorted(d.items(), key=lambda kv: kv[1]))

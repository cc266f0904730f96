"""Rerun the cheapest committed points of every experiment and compare their rows exactly.

A refactoring must not change a stored row.  Rerunning the whole full-scale reproduction takes
about half an hour on two cores; this script reruns, for every experiment with committed rows
under ``--committed`` (default ``results/full``), the ``--per-experiment`` points whose stored
``wall_s`` is smallest, in this process with this checkout's code, and compares each rerun row
with the stored one: every column but ``wall_s``, exactly (NaN equals NaN, arrays by value).

    python3 benchmarks/check_committed_rows.py                       # 2 points per experiment
    python3 benchmarks/check_committed_rows.py --per-experiment 1 --max-wall-s 20

Exit 0 when every rerun row is identical, 1 otherwise, 2 on bad input.  Engine counters are
computed afresh (``CEPSIM_COUNTER_CACHE`` is emptied), so a cached count cannot hide a change.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ["CEPSIM_COUNTER_CACHE"] = ""
# as every cepsim command: one BLAS thread, set before NumPy loads (a BLAS sum split over threads
# rounds differently; the committed rows come from the command line)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _same(u, v) -> bool:
    import numpy as np

    if isinstance(u, float) and isinstance(v, float):
        return u == v or (u != u and v != v)
    if hasattr(u, "__len__") and not isinstance(u, str):
        return repr(np.asarray(u).tolist()) == repr(np.asarray(v).tolist())
    return u == v or (u is None and v is None)


def compare_row(stored: dict, rerun: dict) -> list[str]:
    """Names of the columns whose values differ (``wall_s`` ignored; a column only the rerun
    has must be empty in the stored table's sense: None/NaN)."""
    out = []
    for k in sorted(set(stored) | set(rerun)):
        if k == "wall_s":
            continue
        a, b = stored.get(k), rerun.get(k)
        if k not in rerun and (a is None or (isinstance(a, float) and a != a)):
            continue
        if not _same(a, b):
            out.append(k)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--committed", type=Path, default=REPO / "results" / "full")
    ap.add_argument("--scale", default="full")
    ap.add_argument("--per-experiment", type=int, default=2)
    ap.add_argument("--max-wall-s", type=float, default=60.0,
                    help="skip points whose stored wall time is above this")
    ap.add_argument("configs", nargs="*", help="configs (default: every experiments/*/*.toml)")
    a = ap.parse_args(argv)
    if not a.committed.is_dir():
        print(f"error: {a.committed}: no such directory of committed rows", file=sys.stderr)
        return 2
    import pandas as pd

    from sim.experiments.config import apply_scale, expand_points, load_config
    from sim.experiments.runner import run_point

    paths = [Path(p) for p in a.configs] or sorted((REPO / "experiments").glob("*/*.toml"))
    n_rows = n_bad = n_exp = 0
    t0 = time.perf_counter()
    for path in paths:
        cfg = apply_scale(load_config(path), a.scale)
        stored_path = a.committed / cfg.paper / cfg.name / "points.parquet"
        if not stored_path.is_file():
            continue
        stored = pd.read_parquet(stored_path)
        stored = stored[stored["error"].isna()]
        stored = stored[stored["wall_s"] <= a.max_wall_s].sort_values("wall_s")
        chosen = stored.head(a.per_experiment)
        if chosen.empty:
            print(f"{cfg.key:<34} no stored point under {a.max_wall_s:g} s")
            continue
        points = {(p.point_id, p.rep): p for p in expand_points(cfg)}
        n_exp += 1
        verdicts = []
        for _, srow in chosen.iterrows():
            point = points.get((srow["point_id"], int(srow["rep"])))
            if point is None:
                verdicts.append(f"{srow['point_id']}: not a point of the config")
                n_bad += 1
                continue
            row = run_point(cfg, point)
            diff = compare_row(srow.to_dict(), row)
            n_rows += 1
            if diff:
                n_bad += 1
                verdicts.append(f"{point.point_id}: DIFFER in {', '.join(diff[:6])}")
            else:
                verdicts.append(f"{point.point_id}: identical")
        print(f"{cfg.key:<34} " + "; ".join(verdicts), flush=True)
    print(f"{n_rows} rows of {n_exp} experiments rerun in {time.perf_counter() - t0:.0f} s; "
          f"{n_bad} differ")
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""CPU time and peak memory of one full-scale adaptive point, and whether its row equals the
committed one (exact speedups: rows must stay identical).

Runs ``sim.studies.adaptive.scenario.point`` on the parameters of one point of an experiment at the
given scale, with the work cache off (``CEPSIM_COUNTER_CACHE=``: the evaluation is computed,
not read), in this process; prints the CPU seconds, the process's peak resident memory, and
whether the row equals the row of the same ``point_id`` in ``--committed`` (every column, NaN
where NaN).  Run it once per point (peak memory is per process) and, for a before/after table,
from two checkouts:

    python3 benchmarks/bench_adaptive_point.py fig7 planner=greedy pset=or n=5 stream_seed=2
    python3 benchmarks/bench_adaptive_point.py sensitivity planner=zstream n=6 stream_seed=2 \\
        K=all check_every=1 dataset=traffic
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("experiment",
                    help="adaptive experiment name (the file experiments/adaptive/<name>.toml)")
    ap.add_argument("select", nargs="+", help="KEY=VALUE: the point's grid values")
    ap.add_argument("--scale", default="full")
    ap.add_argument("--committed", default=str(ROOT / "results" / "full"),
                    help="results root holding adaptive/<experiment>/points.parquet")
    a = ap.parse_args()
    os.environ["CEPSIM_COUNTER_CACHE"] = ""
    sys.path.insert(0, str(ROOT))
    from sim.experiments.config import apply_scale, expand_points, load_config
    from sim.studies.adaptive.scenario import point
    want = dict(s.split("=", 1) for s in a.select)
    cfg = apply_scale(load_config(ROOT / "experiments" / "adaptive" / f"{a.experiment}.toml"),
                      a.scale)
    pts = [p for p in expand_points(cfg)
           if all(str(p.params.get(k)) == v for k, v in want.items())]
    if len(pts) != 1:
        sys.exit(f"{len(pts)} points match {want}; name every grid value of one point")
    p = pts[0]
    t = time.process_time()
    row = point(dict(p.params), p.seed)
    cpu = time.process_time() - t
    same = None
    path = Path(a.committed) / "adaptive" / a.experiment / "points.parquet"
    if path.exists():
        import pandas as pd
        ref = pd.read_parquet(path)
        ref = ref[ref["point_id"] == p.point_id]
        if len(ref):
            r = ref.iloc[0]
            same = all((isinstance(v, float) and math.isnan(v) and isinstance(r[k], float)
                        and math.isnan(r[k])) or v == r[k] for k, v in row.items())
    print(json.dumps({"experiment": a.experiment, "point": want, "point_id": p.point_id,
                      "cpu_s": round(cpu, 2),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                                           / 1024),
                      "row_equals_committed": same}))


if __name__ == "__main__":
    main()

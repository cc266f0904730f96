"""Sweep backends side by side: serial vs local process pool vs Spark local[N] on one demo grid.

16 demo points, each burning ``--point-seconds`` of CPU in pure Python (default 5 s).  Prints the
wall time of each backend and its speedup over serial, and checks the rows are identical.

    python benchmarks/bench_sweep.py                    # 16 x 5 s points (~80 s serial)
    python benchmarks/bench_sweep.py --point-seconds 0.5 --workers 2
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--point-seconds", type=float, default=5.0, help="CPU seconds per point")
    ap.add_argument("--workers", type=int, default=2, help="local workers and Spark local[N]")
    ap.add_argument("--backends", default="serial,local,spark")
    args = ap.parse_args()

    from sim.config import load_config
    from sim.runner import run_experiment

    cfg = load_config(REPO / "experiments/demo/basic.toml")
    ov = ["grid.mu=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]", "seeds=1",
          "zip.sleep_s=[0.0, 0.0]", f"params.work_s={args.point_seconds}"]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    times: dict[str, float] = {}
    frames = {}
    spark = None
    with tempfile.TemporaryDirectory() as tmp:
        for b in backends:
            extra = {}
            if b == "spark":
                from sim.spark_backend import get_session
                t_s = time.perf_counter()
                spark, _ = get_session(f"local[{args.workers}]", "cepsim-bench")
                print(f"spark session start: {time.perf_counter() - t_s:.1f} s (not counted)")
            t0 = time.perf_counter()
            s = run_experiment(cfg, out_dir=Path(tmp) / b, backend=b, workers=args.workers,
                               overrides=ov, **extra)
            times[b] = time.perf_counter() - t0
            frames[b] = s.df.drop(columns="wall_s")
            assert s.n_failed == 0, s.failures
    if spark is not None:
        spark.stop()
    base = times.get("serial")
    print(f"\n16 points x {args.point_seconds:g} s CPU, workers={args.workers}, "
          f"cpus={os.cpu_count()}")
    print(f"{'backend':<10}{'wall s':>10}{'speedup vs serial':>20}")
    for b, t in times.items():
        sp = f"{base / t:.2f}x" if base else "-"
        print(f"{b:<10}{t:>10.2f}{sp:>20}")
    names = list(frames)
    same = all(frames[n].equals(frames[names[0]]) for n in names[1:])
    print(f"rows identical across backends: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

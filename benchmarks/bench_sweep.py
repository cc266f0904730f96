"""Sweep backends side by side: serial vs local process pool vs Spark local[N] on one demo grid.

16 demo points, each burning ``--point-seconds`` in a pure-Python busy loop (default 5 s).  Prints
the wall time of each backend and its speedup over serial, the 1-minute load average before and
after each backend (other jobs on the machine share the cores), and checks the rows are identical.

Spark: the SparkSession (JVM) start is timed and printed separately and is NOT in the spark row;
the spark row does include starting the Python workers and their imports (the backend's prime
job) and the warm-up point run in the driver.  ``spark+session`` adds the session start.

``demo:point`` burns ``--point-seconds`` of process CPU time (``time.process_time``), so on a
loaded machine a point takes longer in wall time and the speedups measure real use of the cores.
Measured on 2 cores at load ~1 (16 x 5 s): serial 81.0 s, local 46.0 s (1.76x), spark 49.1 s
(1.65x; 59.2 s = 1.37x with the 10.1 s session start).

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

    from sim.experiments.config import load_config
    from sim.experiments.runner import run_experiment

    cfg = load_config(REPO / "experiments/demo/basic.toml")
    ov = ["grid.mu=[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]", "seeds=1",
          "zip.sleep_s=[0.0, 0.0]", f"params.work_s={args.point_seconds}"]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    times: dict[str, float] = {}
    loads: dict[str, tuple[float, float]] = {}
    frames = {}
    spark = None
    t_session = None
    with tempfile.TemporaryDirectory() as tmp:
        for b in backends:
            extra = {}
            if b == "spark":
                from sim.experiments.spark_backend import get_session
                t_s = time.perf_counter()
                spark, _ = get_session(f"local[{args.workers}]", "cepsim-bench")
                t_session = time.perf_counter() - t_s
                print(f"spark session start: {t_session:.1f} s (reported separately)", flush=True)
            load0 = os.getloadavg()[0]
            t0 = time.perf_counter()
            s = run_experiment(cfg, out_dir=Path(tmp) / b, backend=b, workers=args.workers,
                               overrides=ov, **extra)
            times[b] = time.perf_counter() - t0
            loads[b] = (load0, os.getloadavg()[0])
            print(f"{b}: {times[b]:.2f} s", flush=True)
            frames[b] = s.df.drop(columns="wall_s")
            assert s.n_failed == 0, s.failures
    if spark is not None:
        spark.stop()
    base = times.get("serial")
    n_pts = 16
    ideal = args.point_seconds * (1 + -(-(n_pts - 1) // args.workers))
    print(f"\n{n_pts} points x {args.point_seconds:g} s busy loop (CPU time), "
          f"workers={args.workers}, cpus={os.cpu_count()}")
    print(f"ideal parallel wall with the serial warm-up point: {ideal:.1f} s "
          f"({n_pts * args.point_seconds / ideal:.2f}x)")
    print(f"{'backend':<16}{'wall s':>10}{'speedup vs serial':>20}{'load1 before/after':>22}")
    table = [(b, t, loads[b]) for b, t in times.items()]
    if t_session is not None and "spark" in times:
        table.append(("spark+session", times["spark"] + t_session, loads["spark"]))
    for b, t, (l0, l1) in table:
        sp = f"{base / t:.2f}x" if base else "-"
        print(f"{b:<16}{t:>10.2f}{sp:>20}{f'{l0:.2f} / {l1:.2f}':>22}")
    if t_session is not None:
        print(f"spark session start {t_session:.2f} s: not in 'spark', included in 'spark+session'")
    names = list(frames)
    same = all(frames[n].equals(frames[names[0]]) for n in names[1:])
    print(f"rows identical across backends: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Per-point resource log for benchmarks: CPU seconds and peak resident memory of every point.

A result row keeps only ``wall_s`` (rows must be identical across backends, so machine facts
stay out of them).  When ``$CEPSIM_POINT_LOG`` names a file, ``sim.experiments.runner.run_point`` appends one
JSON line per point to it: the config, point id, rep, wall and CPU seconds of the point in its
worker, and the worker's peak resident set size *during that point* (Linux: the high-water mark
``VmHWM`` is reset through ``/proc/self/clear_refs`` before the point and read after it).
``benchmarks/bench_reproduce.py --pool`` reads the file to report time and memory per experiment.
Lines are short and written with one ``O_APPEND`` write, so workers never interleave them.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, Optional

ENV = "CEPSIM_POINT_LOG"


def peak_rss_mb() -> Optional[float]:
    """This process's resident-memory high-water mark (``VmHWM``, MB); None without ``/proc``."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, IndexError, ValueError):
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset the high-water mark to the resident memory now (``/proc/self/clear_refs``, Linux);
    False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def start() -> Optional[tuple[float, float]]:
    """Before a point: reset the memory high-water mark; return (wall, cpu) clocks, or None when
    no log is asked for."""
    if not os.environ.get(ENV):
        return None
    reset_peak_rss()
    return time.perf_counter(), time.process_time()


def finish(clocks: Optional[tuple[float, float]], config: str, point_id: str, rep: int,
           error: Any) -> None:
    """After a point: append its line to ``$CEPSIM_POINT_LOG`` (no-op when not asked for)."""
    path = os.environ.get(ENV)
    if clocks is None or not path:
        return
    wall0, cpu0 = clocks
    line = json.dumps({"config": config, "point_id": point_id, "rep": int(rep),
                       "pid": os.getpid(), "end": time.time(),
                       "wall_s": round(time.perf_counter() - wall0, 4),
                       "cpu_s": round(time.process_time() - cpu0, 4),
                       "peak_rss_mb": peak_rss_mb(), "failed": error is not None}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)

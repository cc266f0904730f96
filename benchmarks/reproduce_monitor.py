"""Time and memory of one ``cepsim reproduce`` as a user runs it (pool or Spark), per experiment.

Used by ``bench_reproduce.py --pool``.  Starts ``python -m sim.cli reproduce`` as a child with
``$CEPSIM_POINT_LOG`` set (``sim.experiments.pointlog``: one line per point with its CPU seconds and its
worker's peak resident memory during the point), samples the resident memory of the whole
process tree (parent, pool workers, their children) every ``interval`` seconds from ``/proc``,
and then reports per experiment, slowest (most CPU) first: points, failed points, CPU seconds,
the wall span from its first point's start to its last point's end, the longest point and the
largest per-point peak RSS; and in total: wall, CPU, peak RSS of the tree.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = defaultdict(list)
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                rest = f.read().rsplit(")", 1)[1].split()
            kids[int(rest[1])].append(int(d))
        except (OSError, IndexError, ValueError):
            continue
    return kids


def tree_rss_mb(root: int) -> float:
    """Resident memory (MB) of ``root`` and all its descendants now."""
    kids = _children_map()
    todo, total = [root], 0.0
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE_MB
        except (OSError, IndexError, ValueError):
            pass
        todo.extend(kids.get(pid, ()))
    return total


def run_monitored(cmd: list[str], log: Path, interval: float = 0.5) -> dict:
    """Run ``cmd`` with the point log at ``log``; return wall, exit code, peak tree RSS (MB)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    if log.exists():
        log.unlink()
    env = dict(os.environ, CEPSIM_POINT_LOG=str(log))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env)
    peak = {"mb": 0.0, "at_s": 0.0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            mb = tree_rss_mb(proc.pid)
            if mb > peak["mb"]:
                peak.update(mb=mb, at_s=time.perf_counter() - t0)
            stop.wait(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    rc = proc.wait()
    stop.set()
    th.join()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"rc": rc, "wall_s": time.perf_counter() - t0, "peak_tree_rss_mb": peak["mb"],
            "peak_at_s": peak["at_s"], "children_cpu_s": ru.ru_utime + ru.ru_stime,
            "max_process_rss_mb": ru.ru_maxrss / 1024.0}


def per_experiment(log: Path) -> list[dict]:
    """Group the point log by experiment config; most CPU first."""
    groups: dict[str, list[dict]] = defaultdict(list)
    if log.exists():
        for line in log.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                groups[rec["config"]].append(rec)
    rows = []
    for cfg, recs in groups.items():
        starts = [r["end"] - r["wall_s"] for r in recs]
        rss = [r["peak_rss_mb"] for r in recs if r.get("peak_rss_mb") is not None]
        rows.append({"experiment": _key(cfg), "points": len(recs),
                     "failed": sum(bool(r["failed"]) for r in recs),
                     "cpu_s": sum(r["cpu_s"] for r in recs),
                     "span_s": max(r["end"] for r in recs) - min(starts),
                     "longest_point_s": max(r["wall_s"] for r in recs),
                     "peak_point_rss_mb": max(rss) if rss else float("nan")})
    rows.sort(key=lambda r: -r["cpu_s"])
    return rows


def _key(cfg: str) -> str:
    p = Path(cfg)
    return f"{p.parent.name}/{p.stem}" if p.suffix == ".toml" else cfg


def markdown(rows: list[dict], total: dict) -> str:
    """The per-experiment table and the totals as Markdown."""
    out = ["| experiment | points | failed | CPU s | wall span s | longest point s | "
           "peak RSS of one point MB |", "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['experiment']} | {r['points']} | {r['failed']} | {r['cpu_s']:.1f} | "
                   f"{r['span_s']:.1f} | {r['longest_point_s']:.1f} | "
                   f"{r['peak_point_rss_mb']:.0f} |")
    out.append(f"| **total** | {sum(r['points'] for r in rows)} | "
               f"{sum(r['failed'] for r in rows)} | {sum(r['cpu_s'] for r in rows):.1f} | "
               f"{total['wall_s']:.1f} (whole command) | "
               f"{max((r['longest_point_s'] for r in rows), default=0):.1f} | "
               f"{total['peak_tree_rss_mb']:.0f} (process tree) |")
    return "\n".join(out)


def main_pool(scale: str, out: Path, figures: Path | None, workers: int | None,
              log: Path | None, json_out: Path | None, md_out: Path | None,
              memory_budget_mb: float | None = None, fresh: bool = False) -> int:
    """``bench_reproduce.py --pool``: one monitored ``cepsim reproduce`` and its report."""
    log = log or out / ".timing" / "points.jsonl"
    cmd = [sys.executable, "-m", "sim.cli", "reproduce", "--scale", scale, "--out", str(out)]
    if figures is not None:
        cmd += ["--figures-dir", str(figures)]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    if memory_budget_mb is not None:
        cmd += ["--memory-budget-mb", f"{memory_budget_mb:g}"]
    if fresh:
        cmd += ["--fresh"]
    print("running:", " ".join(cmd), flush=True)
    total = run_monitored(cmd, log)
    rows = per_experiment(log)
    md = markdown(rows, total)
    print(md)
    print(f"exit {total['rc']}; wall {total['wall_s']:.1f}s; CPU of all children "
          f"{total['children_cpu_s']:.1f}s; peak RSS of the process tree "
          f"{total['peak_tree_rss_mb']:.0f} MB at {total['peak_at_s']:.0f}s; largest single "
          f"process {total['max_process_rss_mb']:.0f} MB; load average {os.getloadavg()[0]:.2f}")
    if json_out:
        json_out.write_text(json.dumps({"total": total, "experiments": rows}, indent=1))
    if md_out:
        md_out.write_text(md + "\n")
    return 0 if total["rc"] == 0 else 1


def main(argv: list[str] | None = None) -> int:
    """Print the per-experiment table of an existing point log (e.g. of a reproduction that ran
    in several parts, each with ``$CEPSIM_POINT_LOG`` set to the same file)."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    ap.add_argument("log", type=Path)
    ap.add_argument("--wall", type=float, default=float("nan"), help="wall seconds to print")
    ap.add_argument("--peak-tree-mb", type=float, default=float("nan"))
    a = ap.parse_args(argv)
    rows = per_experiment(a.log)
    print(markdown(rows, {"wall_s": a.wall, "peak_tree_rss_mb": a.peak_tree_mb}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

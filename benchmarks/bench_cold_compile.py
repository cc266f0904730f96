"""Cold first-use compile time per engine: ``cepsim match`` with an empty Numba kernel cache.

For every engine, a fresh process runs ``cepsim match`` on the bundled 117-event NASDAQ sample
with ``NUMBA_CACHE_DIR`` pointing at a new empty directory, so every kernel the engine needs
(the Metastock reader's, the pattern compiler's, the engine's own) is compiled from source, as
on a fresh clone.  The same command is then run once more on the now-filled cache (warm).  The
``--stats-json`` of each run splits the time: ``load_jit`` (the reader's kernel), ``jit`` (the
engine's kernels, compiled by a run over the first 64 events), and the wall time of the whole
process.  It prints a Markdown table (``benchmarks/cold_compile.md`` holds the latest one).

    python3 benchmarks/bench_cold_compile.py [--engines eager,chain] [--json rows.json]

Serial and single-threaded: run it alone on the machine (or under a CPU lock) for stable numbers.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "workloads" / "data" / "opencep_nasdaq" / "NASDAQ_SHORT.txt"
PATTERN = "PATTERN SEQ(AAPL a, GOOG b) WHERE a.close < b.close WITHIN 10 minutes"
ENGINES = ("eager", "chain", "tree", "ztree", "sase", "hybrid", "adaptive", "stepper", "remote",
           "oracle")


def _run(engine: str, cache: Path, tmp: Path) -> dict:
    """Wall seconds and the ``--stats-json`` stage seconds of one ``cepsim match`` process."""
    stats = tmp / f"stats_{engine}.json"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))
    cmd = [sys.executable, "-m", "sim.cli", "match", PATTERN, str(DATA), "--format", "metastock",
           "--engine", engine, "--out", str(tmp / f"m_{engine}.jsonl"), "--stats-json",
           str(stats), "--no-progress"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{engine}: cepsim match failed:\n{proc.stderr}")
    s = json.loads(stats.read_text())["seconds"]
    return {"wall": wall, "jit": s["jit"], "load_jit": s["load_jit"],
            "evaluate": s["evaluate"], "matches": json.loads(stats.read_text())["matches"]}


def measure(engines: list[str]) -> list[dict]:
    """One row per engine: cold (empty cache) and warm (same cache, second run) seconds."""
    rows = []
    for e in engines:
        with tempfile.TemporaryDirectory(prefix="cold_compile_") as d:
            tmp = Path(d)
            cold = _run(e, tmp / "numba", tmp)
            warm = _run(e, tmp / "numba", tmp)
        rows.append({"engine": e, "cold": cold, "warm": warm})
        print(f"{e:<9} cold {cold['wall']:6.1f} s (engine kernels {cold['jit']:5.1f} s, reader "
              f"{cold['load_jit']:4.1f} s)   warm {warm['wall']:5.2f} s", flush=True)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| engine | cold wall s | cold engine kernels s | cold reader kernel s | warm wall s |",
             "|---|---|---|---|---|"]
    for r in rows:
        c, w = r["cold"], r["warm"]
        lines.append(f"| {r['engine']} | {c['wall']:.1f} | {c['jit']:.1f} | {c['load_jit']:.1f} "
                     f"| {w['wall']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help="comma-separated engine names (default: every engine)")
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in ENGINES]
    if bad:
        raise SystemExit(f"--engines: unknown {bad}; choose from {', '.join(ENGINES)}")
    rows = measure(engines)
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}\n")
    print(table(rows))
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()

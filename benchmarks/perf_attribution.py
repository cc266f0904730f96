"""Where the CPU of a reproduction goes, by kind of code, per experiment: sampled with ``perf``.

Record the whole benchmark with wall-clock sample times, keep its per-point log, then attribute:

    perf record -F 97 -k CLOCK_REALTIME -o /tmp/full.data -- \\
        python3 benchmarks/bench_reproduce.py --pool --scale full --workers 2 ... --log /tmp/log.jsonl
    perf script -i /tmp/full.data -F pid,tid,time,ip,sym,dso > /tmp/full.txt
    python3 benchmarks/perf_attribution.py /tmp/full.txt /tmp/log.jsonl [--hz 97] [--markdown F]

Each sample is assigned to the point its process was running at that moment (the log gives each
point's process, end time and wall time), else to "outside points (worker)" for a pool worker
between points, else to "other processes" (the parent: shards, consolidation, figures).  Kinds,
from the sampled code's file: ``compiled`` (Numba machine code: perf names it ``[JIT]`` or the
process's ``/tmp/perf-PID.map``), ``python`` (the interpreter, including Numba's typing while it
compiles), ``numpy``, ``blas thread spin`` (OpenBLAS helper threads waiting in
``blas_thread_server``), ``blas``, ``llvm`` (Numba's LLVM compile), ``os`` (the Linux kernel:
mostly zeroing fresh pages of new arrays), ``other``.  CPU seconds = samples / frequency, so
each figure has a sampling error of about its square root in samples.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import json
import sys
from pathlib import Path

KINDS = ("compiled", "python", "numpy", "blas thread spin", "blas", "llvm", "os", "other")


def kind_of(dso: str, sym: str) -> str:
    """The kind of code a sample hit (module docstring)."""
    if dso.startswith("[JIT]") or dso.startswith("/tmp/perf-"):
        return "compiled"
    if "openblas" in dso:
        return "blas thread spin" if sym == "blas_thread_server" else "blas"
    if "libpython" in dso or dso.rsplit("/", 1)[-1].startswith("python"):
        return "python"
    if "llvmlite" in dso:
        return "llvm"
    if "numpy" in dso:
        return "numpy"
    if "kernel" in dso:
        return "os"
    return "other"


def parse_sample(line: str) -> tuple[int, float, str, str] | None:
    """``(pid, time, symbol, dso)`` of one ``perf script -F pid,tid,time,ip,sym,dso`` line."""
    head, _, rest = line.partition(":")
    parts = head.split()
    if len(parts) < 2 or "(" not in rest:
        return None
    try:
        pid = int(parts[0].split("/")[0])
        t = float(parts[-1])
    except ValueError:
        return None
    dso = rest[rest.rfind("(") + 1:].strip().rstrip(")")
    fields = rest[:rest.rfind("(")].split()
    sym = fields[1] if len(fields) > 1 else "?"
    return pid, t, sym, dso


def attribute(samples_path: Path, log_path: Path) -> dict:
    """``{experiment: Counter(kind -> samples)}`` (module docstring)."""
    spans: dict = collections.defaultdict(list)
    for line in log_path.read_text().splitlines():
        r = json.loads(line)
        exp = r["config"].split("experiments/")[-1].removesuffix(".toml")
        spans[r["pid"]].append((r["end"] - r["wall_s"], r["end"], exp))
    for v in spans.values():
        v.sort()
    starts = {pid: [s for s, _, _ in v] for pid, v in spans.items()}
    out: dict = collections.defaultdict(collections.Counter)
    with open(samples_path) as f:
        for line in f:
            got = parse_sample(line)
            if got is None:
                continue
            pid, t, sym, dso = got
            where = "other processes"
            if pid in spans:
                where = "outside points (worker)"
                i = bisect.bisect_right(starts[pid], t) - 1
                if i >= 0 and spans[pid][i][1] >= t:
                    where = spans[pid][i][2]
            out[where][kind_of(dso, sym)] += 1
    return out


def table(counts: dict, hz: float) -> str:
    """Markdown: per experiment (most CPU first) the CPU seconds and the share of every kind."""
    lines = ["| where | CPU s | " + " | ".join(KINDS) + " |",
             "|---|---:|" + "---:|" * len(KINDS)]
    total: collections.Counter = collections.Counter()
    for where, c in sorted(counts.items(), key=lambda kv: -sum(kv[1].values())):
        n = sum(c.values())
        total.update(c)
        lines.append(f"| {where} | {n / hz:.0f} | "
                     + " | ".join(f"{100 * c[k] / n:.0f} %" for k in KINDS) + " |")
    n = sum(total.values())
    lines.append(f"| **total** | {n / hz:.0f} | "
                 + " | ".join(f"{100 * total[k] / n:.0f} %" for k in KINDS) + " |")
    lines.append("")
    lines.append("CPU s by kind: " + ", ".join(f"{k} {total[k] / hz:.0f}" for k in KINDS))
    return "\n".join(lines)


def _fail(message: str) -> None:
    """Bad input: the message on stderr, exit status 2 (as ``cepsim``)."""
    print(message, file=sys.stderr)
    raise SystemExit(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("samples", type=Path, help="perf script -F pid,tid,time,ip,sym,dso output")
    ap.add_argument("log", type=Path, help="bench_reproduce.py --log file (one JSON per point)")
    ap.add_argument("--hz", type=float, default=97.0, help="perf record -F value (default 97)")
    ap.add_argument("--markdown", type=Path, help="also write the table to this file")
    a = ap.parse_args()
    for path, what in ((a.samples, "perf script output"), (a.log, "bench_reproduce.py --log")):
        if not path.is_file():
            _fail(f"error: {path}: no such file (give the {what} file)")
    if a.hz <= 0:
        _fail(f"error: --hz {a.hz}: give the positive rate passed to perf record -F")
    try:
        counts = attribute(a.samples, a.log)
    except (ValueError, KeyError) as exc:
        _fail(f"error: {a.log}: not a bench_reproduce.py --log file (one JSON object "
                         f"per point with config, pid, end, wall_s): {exc}")
    if not counts:
        _fail(f"error: {a.samples}: no samples; record with perf record and dump "
                         f"with perf script -F pid,tid,time,ip,sym,dso")
    text = table(counts, a.hz)
    print(text)
    if a.markdown:
        a.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()

"""Benchmark: ``cepsim match`` against OpenCEP on OpenCEP's own SEQ and AND stock patterns, on the
same 100k-event Metastock file, side by side.

Patterns (OpenCEP's ``test/BasicTests.py`` and README, written in cepsim's language):

* **SEQ** "googleAscend": ``SEQ(GOOG a, GOOG b, GOOG c) WHERE a.peak < b.peak AND b.peak <
  c.peak WITHIN 3 minutes``;
* **AND** "googleAmazonLow": ``AND(AMZN a, GOOG g) WHERE a.peak <= 73 AND g.peak <= 525 WITHIN
  1 minute``.

Data: ``workloads/data/opencep_nasdaq/NASDAQ_AAPL_AMZN_GOOG.txt`` (the file OpenCEP ships as
``test/EventFiles/NASDAQ_AAPL_AMZN_GOOG.txt``: 1,365 per-minute updates of AAPL, AMZN and GOOG)
repeated, each copy shifted by the sample's span so time keeps increasing by whole minutes, to
``--events`` lines (default 100,000).  Real prices, so the AND pattern's thresholds mean what
they mean on OpenCEP's file (the sample has no minute where both hold: 0 matches).

Each measurement is a fresh process (best of ``--repeat``):

* cepsim: ``python -m sim.cli match PATTERN FILE --format metastock --stats-json`` (after one
  warm-up run that fills the Numba cache), its *load* and *evaluate* stages (wall; evaluate
  without the kernel cache load, reported apart as *jit*) - ``bench_match.run_match``;
* OpenCEP: its default configuration (tree-based evaluation, trivial left-deep plan, default
  selection strategy), run by the interpreter ``--opencep-python`` from the OpenCEP checkout
  ``--opencep``: *load* = ``FileInputStream(path)`` (reads the lines), *evaluate* =
  ``CEP([pattern]).run(stream, output, MetastockDataFormatter())`` (parses every line and
  evaluates).  OpenCEP imports ``collections.Callable``, which Python 3.10 removed; the driver
  aliases it to ``collections.abc.Callable`` before importing OpenCEP, so both sides can run on
  the same interpreter version.  Matches are counted by an ``OutputStream`` subclass
  (``OutputStream.count()`` also counts the end-of-stream marker).

The match counts of the two systems are printed side by side and must agree.  Other jobs on
the machine inflate every wall time (the load average is printed); the ratio is the figure.

    python benchmarks/bench_opencep.py --opencep DIR --opencep-python PYTHON
                                       [--opencep-commit SHA] [--events 100000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_match import run_match  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "workloads" / "data" / "opencep_nasdaq" / "NASDAQ_AAPL_AMZN_GOOG.txt"

CEPSIM = {
    "SEQ googleAscend": "PATTERN SEQ(GOOG a, GOOG b, GOOG c) WHERE a.high < b.high AND "
                        "b.high < c.high WITHIN 3 minutes",
    "AND googleAmazonLow": "PATTERN AND(AMZN a, GOOG g) WHERE a.high <= 73 AND g.high <= 525 "
                           "WITHIN 1 minute",
}

# The same two patterns in OpenCEP's Python API, as in its test/BasicTests.py.
OPENCEP_DRIVER = r'''
import collections, collections.abc, json, sys, time
collections.Callable = collections.abc.Callable   # removed in Python 3.10; OpenCEP imports it
sys.path.insert(0, ".")
from datetime import timedelta
from CEP import CEP
from base.Pattern import Pattern
from base.PatternStructure import AndOperator, PrimitiveEventStructure, SeqOperator
from condition.CompositeCondition import AndCondition
from condition.Condition import BinaryCondition, SimpleCondition, Variable
from plugin.stocks.Stocks import MetastockDataFormatter
from stream.FileStream import FileInputStream
from stream.Stream import OutputStream

peak = lambda x: x["Peak Price"]
PATTERNS = {
    "SEQ googleAscend": lambda: Pattern(
        SeqOperator(PrimitiveEventStructure("GOOG", "a"), PrimitiveEventStructure("GOOG", "b"),
                    PrimitiveEventStructure("GOOG", "c")),
        AndCondition(BinaryCondition(Variable("a", peak), Variable("b", peak),
                                     relation_op=lambda x, y: x < y),
                     BinaryCondition(Variable("b", peak), Variable("c", peak),
                                     relation_op=lambda x, y: x < y)),
        timedelta(minutes=3)),
    "AND googleAmazonLow": lambda: Pattern(
        AndOperator(PrimitiveEventStructure("AMZN", "a"), PrimitiveEventStructure("GOOG", "g")),
        AndCondition(SimpleCondition(Variable("a", peak), relation_op=lambda x: x <= 73),
                     SimpleCondition(Variable("g", peak), relation_op=lambda x: x <= 525)),
        timedelta(minutes=1)),
}


class Counting(OutputStream):
    def __init__(self):
        super().__init__()
        self.n = 0

    def add_item(self, item):
        self.n += 1
        super().add_item(item)


name, path = sys.argv[1], sys.argv[2]
pattern = PATTERNS[name]()
t0 = time.perf_counter()
events = FileInputStream(path)
t1 = time.perf_counter()
out = Counting()
CEP([pattern]).run(events, out, MetastockDataFormatter())
t2 = time.perf_counter()
# the part of 'evaluate' that is parsing: OpenCEP's evaluation builds Event(line, formatter) for
# every line (tree/evaluation/TreeBasedEvaluationMechanism.py) before any pattern work
from base.Event import Event
fmt = MetastockDataFormatter()
lines = list(FileInputStream(path))
t3 = time.perf_counter()
for line in lines:
    Event(line, fmt)
t4 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "evaluate": t2 - t1, "parse": t4 - t3, "matches": out.n}))
'''


def write_stock_file(path: Path, n: int) -> None:
    """``SAMPLE`` repeated to ``n`` lines, each copy shifted by the sample's span (module doc)."""
    rows = [ln.rstrip("\n").split(",") for ln in SAMPLE.read_text().splitlines() if ln.strip()]
    fmt = "%Y%m%d%H%M"
    stamps = [datetime.strptime(r[1], fmt) for r in rows]
    span = stamps[-1] - stamps[0] + timedelta(minutes=1)
    with open(path, "w") as fh:
        for i in range(n):
            copy, j = divmod(i, len(rows))
            r = rows[j]
            fh.write(",".join([r[0], (stamps[j] + copy * span).strftime(fmt)] + r[2:]) + "\n")


def run_opencep(python: str, opencep: Path, driver: Path, name: str, data: Path) -> dict:
    t0 = time.perf_counter()
    res = subprocess.run([python, str(driver), name, str(data)], cwd=opencep,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"OpenCEP failed ({res.returncode}): {res.stderr[-2000:]}")
    out = json.loads(res.stdout.strip().splitlines()[-1])
    # the process also ran the parse-only pass after the evaluation: not part of its total
    out["total"] = wall - out["parse"]
    out["import"] = out["total"] - out["load"] - out["evaluate"]
    out["jit"] = 0.0
    return out


def _commit(opencep: Path, given: str | None) -> str:
    if given:
        return given
    try:
        return subprocess.run(["git", "-C", str(opencep), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or "unknown (not a git checkout: " \
                                                                       "pass --opencep-commit)"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _cepsim_stages(r: dict) -> dict:
    """``bench_match.run_match``'s stages as this table's columns: start-up + imports, kernel
    cache loads (the reader's and the engine's), load, evaluate, whole process."""
    return {"import": r["import"], "jit": r.get("load_jit", 0.0) + r["jit"] + r["compile"],
            "load": r["load"], "evaluate": r["evaluate"], "total": r["total"],
            "matches": r["matches"], "write": r["write"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--opencep", type=Path, required=True, help="OpenCEP checkout")
    ap.add_argument("--opencep-python", required=True, help="Python that runs OpenCEP")
    ap.add_argument("--opencep-commit", help="OpenCEP commit (default: git rev-parse in --opencep)")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, help="also write the table (markdown) to this file")
    a = ap.parse_args()
    if not (a.opencep / "CEP.py").is_file():
        raise SystemExit(f"--opencep {a.opencep}: no CEP.py there; give an OpenCEP checkout")
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory(prefix="bench-opencep-") as tmp:
        tmp = Path(tmp)
        data = tmp / "stocks.txt"
        write_stock_file(data, a.events)
        driver = tmp / "opencep_driver.py"
        driver.write_text(OPENCEP_DRIVER)
        ver = subprocess.run([a.opencep_python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
        say(f"events: {a.events} ({SAMPLE.name} repeated); OpenCEP commit "
            f"{_commit(a.opencep, a.opencep_commit)} on Python {ver}; cepsim {head} on Python "
            f"{sys.version.split()[0]}; best of {a.repeat} fresh processes (by load + evaluate); "
            f"load average {os.getloadavg()[0]:.2f} at start")
        say()
        say("| pattern | system | matches | start+import s | kernel load s | load s | "
            "evaluate s | load+eval s | load+eval ev/s | process s | ratio load+eval | "
            "ratio kernel load+load+eval | ratio process |")
        say("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        parse = {}
        for name, pattern in CEPSIM.items():
            run_match(pattern, data, tmp)          # warm-up: fills the Numba cache
            cs = [_cepsim_stages(run_match(pattern, data, tmp)) for _ in range(a.repeat)]
            oc = [run_opencep(a.opencep_python, a.opencep, driver, name, data)
                  for _ in range(a.repeat)]
            c = min(cs, key=lambda r: r["load"] + r["evaluate"])
            o = min(oc, key=lambda r: r["load"] + r["evaluate"])
            parse[name] = (min(r["parse"] for r in oc), o["evaluate"])
            c_le, o_le = c["load"] + c["evaluate"], o["load"] + o["evaluate"]
            c_tot = min(r["total"] for r in cs)
            o_tot = min(r["total"] for r in oc)
            c_kle = c_le + c["jit"]
            for sysname, r, le, tot in (("cepsim", c, c_le, c_tot), ("OpenCEP", o, o_le, o_tot)):
                ratios = (f"{o_le / c_le:.1f}x | {o_le / c_kle:.1f}x | {o_tot / c_tot:.1f}x"
                          if sysname == "cepsim" else " | | ")
                say(f"| {name} | {sysname} | {r['matches']} | {r['import']:.3f} | {r['jit']:.3f} | "
                    f"{r['load']:.4f} | {r['evaluate']:.4f} | {le:.4f} | {a.events / le:,.0f} | "
                    f"{tot:.2f} | {ratios} |")
            if c["matches"] != o["matches"]:
                say(f"  MISMATCH: cepsim {c['matches']} vs OpenCEP {o['matches']} matches")
        say()
        say(f"load average {os.getloadavg()[0]:.2f} at the end.  ratio = OpenCEP / cepsim (wall). "
            "start+import = process wall minus the timed stages (interpreter start, imports); "
            "kernel load = Numba kernels loaded from the cache with Numba's start-up (cepsim's "
            "reader and engine; 'ratio kernel load+load+eval' counts them in, as the load stage "
            "did before the reader's kernel load was timed apart); "
            "OpenCEP's load reads the lines, its evaluate parses and matches them; process = "
            "the whole command (cepsim also writes its matches).")
        for name, (p, ev) in parse.items():
            say(f"OpenCEP {name}: building its Event objects alone (parse, separate pass) takes "
                f"{p:.3f} s of its {ev:.3f} s evaluate ({100 * p / ev:.0f} %).")
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

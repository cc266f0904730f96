"""Which PVLDB'18 traffic stand-in makes every pattern set match at every size: the documented
scan behind ``docs/reproduction/adaptive.md`` ("Matches per point").

Target (the issue's and the claims' precondition, not a tested claim): every (pattern set, n,
stream seed) point of the Fig. 5-6 grid finds at least one match and no ZStream run exceeds the
configs' ``engine_cap``.  For each stand-in variant the script generates the configs' full-scale
traffic streams (100,000 events, 24 points, 500 events/s; ``workloads.adaptive``), writes every
set's pattern (``pattern_text``; AND and Kleene at the configs' ``and_window`` / ``kleene_window``
fractions of the window) and counts its matches with the ZStream tree evaluator (the planner that
runs every set natively), ``-1`` when a run exceeds the cap.  It prints one line per (variant, set,
seed) and, per variant, the zero-match and over-cap points.

    NUMBA_CACHE_DIR=/tmp/nc python3 tools/scan_traffic_matches.py                # every variant
    python3 tools/scan_traffic_matches.py --variant road_corridor --window 1.5 --seeds 1,2

Variants: ``default`` (the configs' stand-in: independent skewed count / speed means, pattern
types in drawn order), ``road_corridor`` (``gen_model = "road"``: one road class sets both means;
``corridor = true``: each sequence visits its points in class order).  ``--kleene-nodes-factor``
sets the Kleene chain-node cap as a multiple of ``engine_cap`` (the nodes are counted
cumulatively over the stream).  Measured, never asserted; the table in the docs is this
script's output.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines.compile import compile_pattern  # noqa: E402
from engines.errors import CapacityError  # noqa: E402
from engines.pattern import parse_pattern  # noqa: E402
from engines.registry import run_engine  # noqa: E402
from workloads.adaptive import PATTERN_SETS, make_stream, pattern_text  # noqa: E402

VARIANTS = {"default": ({}, False), "road_corridor": ({"model": "road"}, True)}


def scan(variant: str, window: float, seeds: list[int], sizes: list[int], sets: list[str],
         and_window: float, kleene_window: float, cap: int, kleene_nodes_factor: float) -> dict:
    """Matches per (set, n, seed) of one variant (``-1``: over the cap); prints as it goes."""
    gen, corridor = VARIANTS[variant]
    frac = {"and": and_window, "kleene": kleene_window}
    out = {}
    for seed in seeds:
        st = make_stream("traffic", 100_000, seed, n_types=24, total_rate=500.0, **gen)
        for pset in sets:
            line = []
            for n in sizes:
                text = pattern_text("traffic", pset, n, st.schema.type_names,
                                    window * frac.get(pset, 1.0), 0, corridor=corridor)
                prog = compile_pattern(parse_pattern(text), st.schema)
                t0 = time.perf_counter()
                try:
                    m = len(run_engine("ztree", prog, st, max_partial_matches=cap,
                                       max_matches=cap,
                                       max_kleene_nodes=int(cap * kleene_nodes_factor)).matches)
                except CapacityError:
                    m = -1
                out[(pset, n, seed)] = m
                line.append(f"n={n}:{m}({time.perf_counter() - t0:.0f}s)")
            print(f"{variant} W={window:g} {pset:6s} seed {seed}: " + " ".join(line), flush=True)
    return out


def summary(out: dict) -> str:
    """The zero-match and over-cap points of one scan, grouped by (set, n)."""
    def points(cond):
        by: dict = {}
        for (pset, n, seed), m in sorted(out.items()):
            if cond(m):
                by.setdefault((pset, n), []).append(seed)
        return "; ".join(f"{p} n={n} (seeds {','.join(map(str, s))})"
                         for (p, n), s in by.items()) or "none"
    return (f"  zero-match points: {points(lambda m: m == 0)}\n"
            f"  over-cap points:   {points(lambda m: m < 0)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", choices=sorted(VARIANTS), action="append")
    ap.add_argument("--window", type=float, action="append",
                    help="pattern window in seconds (repeatable; default 1)")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--sizes", default="3,4,5,6,7,8")
    ap.add_argument("--sets", default=",".join(PATTERN_SETS))
    ap.add_argument("--and-window", type=float, default=0.25)
    ap.add_argument("--kleene-window", type=float, default=0.1)
    ap.add_argument("--cap", type=int, default=2_000_000)
    ap.add_argument("--kleene-nodes-factor", type=float, default=1.0)
    a = ap.parse_args(argv)
    try:
        seeds = [int(x) for x in a.seeds.split(",")]
        sizes = [int(x) for x in a.sizes.split(",")]
    except ValueError:
        ap.error("--seeds and --sizes take comma-separated integers, e.g. --seeds 1,2,3")
    sets = a.sets.split(",")
    bad = [s for s in sets if s not in PATTERN_SETS]
    if bad:
        ap.error(f"--sets: unknown pattern set(s) {bad}; use some of {list(PATTERN_SETS)}")
    for variant in a.variant or list(VARIANTS):
        for window in a.window or [1.0]:
            out = scan(variant, window, seeds, sizes, sets, a.and_window, a.kleene_window,
                       a.cap, a.kleene_nodes_factor)
            print(f"{variant} W={window:g}:\n{summary(out)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

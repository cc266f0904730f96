"""Benchmark: the Numba eager NFA vs a straightforward pure-Python eager NFA.

Workload: a seeded stream of ``--events`` events (default 100,000) of types A, B, C (uniform),
one attribute ``x`` ~ U(0, 1), one event per second; pattern
``SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN W seconds`` under
skip-till-any-match, with ``W`` chosen so that about 1,000 partial matches are live.

The Python baseline implements the same eager algorithm (instances as tuples in per-state lists,
expiry by first timestamp, clone on extension, matches collected as tuples) and runs on a prefix of ``--py-events`` events;
its time per event is extrapolated to the whole stream (printed as such).  Its predicate and
edge counts on the prefix are checked against the Numba engine's counters on that prefix, so
both do the same work.  Speed is printed, never asserted.

    python benchmarks/bench_eager.py [--events 100000] [--window 150] [--py-events 5000]
    python benchmarks/bench_eager.py --c-share 0.05 --window 120   # rare C: few matches

A second table (``--and-only``: only it) compares the native unordered AND (one automaton with a
state per subset of the bound variables, ``engines/evaluators/eager_tables.py``) with the same kernel run
over every order of the AND (``run_eager(..., flat=True)``: n! ordered branches, how AND was
evaluated before) for ``AND(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x`` and its variants on
the same stream: wall and CPU seconds (best of ``--repeat``), their ratios, and the counted work
of the native form relative to the orders (edge evaluations, partial matches created); the match
sets are checked equal.

    python benchmarks/bench_eager.py --and-only --repeat 3
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from engines import counters as C
from engines.compile import compile_pattern
from engines.evaluators.eager import run_eager
from engines.pattern import parse_pattern
from engines.stream import EventStream


def make_stream(n: int, seed: int, c_share: float = 1 / 3) -> EventStream:
    """Types A, B, C with C drawn with probability ``c_share`` (A and B share the rest)."""
    rng = np.random.default_rng(seed)
    ab = (1.0 - c_share) / 2
    types = rng.choice(3, size=n, p=[ab, ab, c_share]).astype(np.int32)
    x = rng.random(n)
    return EventStream.from_arrays(types, np.arange(n, dtype=np.float64), x.reshape(n, 1),
                                   ("A", "B", "C"), ("x",), source=f"<bench seed {seed}>")


def python_eager(types, ts, x, window: float):
    """Pure-Python eager NFA for SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x (any-match).
    Returns (matches as a list of (a, b, c), predicate evaluations, edge evaluations)."""
    wait_b: list[tuple[float, int]] = []          # (first ts, a)
    wait_c: list[tuple[float, int, int]] = []     # (first ts, a, b)
    matches: list[tuple[int, int, int]] = []
    preds = edges = 0
    for e in range(len(types)):
        t, now = types[e], ts[e]
        wait_b = [i for i in wait_b if now - i[0] <= window]
        wait_c = [i for i in wait_c if now - i[0] <= window]
        if t == 1:
            new = []
            for first, a in wait_b:
                edges += 1
                preds += 1
                if x[a] < x[e]:
                    new.append((first, a, e))
            wait_c.extend(new)
        elif t == 2:
            for first, a, b in wait_c:
                edges += 1
                preds += 1
                if x[b] < x[e]:
                    matches.append((a, b, e))
        if t == 0:
            edges += 1
            wait_b.append((now, e))
    return matches, preds, edges


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--window", type=float, default=150.0, help="seconds (= events)")
    ap.add_argument("--c-share", type=float, default=1 / 3,
                    help="probability of a C event (1/3: uniform types; DEBS'15's f_c knob)")
    ap.add_argument("--py-events", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=20150629)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--and-only", action="store_true", help="only the native-AND table")
    args = ap.parse_args()
    if args.and_only:
        bench_and(make_stream(args.events, args.seed, args.c_share), args.window, args.repeat)
        return

    stream = make_stream(args.events, args.seed, args.c_share)
    text = (f"PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x "
            f"WITHIN {args.window:g} seconds")
    program = compile_pattern(parse_pattern(text), stream.schema)

    t0 = time.perf_counter()
    run_eager(program, make_stream(100, 1))           # JIT compile / cache load
    warm = time.perf_counter() - t0
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        res = run_eager(program, stream)
        best = min(best, time.perf_counter() - t0)
    tot = C.summarize(res.counters)
    live = res.counters[:, C.LIVE_PM]
    n = len(stream)

    # pure-Python baseline on a prefix, same work checked against the engine's counters
    k = min(args.py_events, n)
    px = stream.attrs[:k, 0].tolist()
    t0 = time.perf_counter()
    py_matches, py_preds, py_edges = python_eager(stream.types[:k].tolist(), stream.ts[:k].tolist(),
                                                  px, args.window)
    py_time = time.perf_counter() - t0
    pre = run_eager(program, EventStream.from_arrays(stream.types[:k], stream.ts[:k],
                                                     stream.attrs[:k], ("A", "B", "C"), ("x",)))
    same = (len(py_matches) == len(pre.matches)
            and py_preds == int(pre.counters[:, C.PRED_EVAL].sum())
            and py_edges == int(pre.counters[:, C.EDGE_EVAL].sum()))
    py_per_event = py_time / k

    print(f"pattern: {text}")
    print(f"stream: {n} events, seed {args.seed}, C share {args.c_share:.3f}; first call "
          f"(compile or cache load) {warm:.2f} s")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
          "(other jobs on the machine slow the wall-clock figures below)")
    print(f"live partial matches: mean {live.mean():.0f}, peak {live.max()}")
    print(f"matches: {tot['match_emit']}, predicate evaluations: {tot['pred_eval']}, "
          f"edge evaluations: {tot['edge_eval']}")
    print(f"numba eager : {best:.3f} s  -> {n / best:,.0f} events/s, "
          f"{tot['pred_eval'] / best / 1e6:.1f} M predicate evaluations/s "
          f"(best of {args.repeat})")
    print(f"python eager: {py_time:.3f} s on the first {k} events -> "
          f"{1 / py_per_event:,.0f} events/s, "
          f"{py_preds / py_time / 1e6:.2f} M predicate evaluations/s; "
          f"extrapolated to {n} events: {py_per_event * n:.1f} s")
    print(f"same work on the prefix (matches, predicate and edge counts): {same}")
    print(f"speed ratio numba / python (per event): {py_per_event * n / best:.0f}x")
    bench_and(stream, args.window, args.repeat)


def _best(fn, repeat: int):
    """(min wall seconds, min CPU seconds of this process, last result) over ``repeat`` runs."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, out


AND_ROWS = ((3, "WHERE a.x < b.x AND b.x < c.x", 10.0),
            (3, "WHERE a.x < b.x AND b.x < c.x", 30.0), (3, "", 5.0),
            (4, "WHERE a.x < b.x AND b.x < c.x AND c.x < d.x", 10.0))


def bench_and(stream: EventStream, window: float, repeat: int) -> None:
    """Native unordered AND vs the same AND expanded into its orders (side by side, same run).

    Both run the same kernel; the columns ``edges`` and ``PMs`` (edge evaluations and partial
    matches created, from the counters) show how much less work the native automaton does,
    ``wall``/``cpu`` the best of ``repeat`` runs each (CPU seconds are less sensitive to other
    jobs on the machine; the load average is printed before and after)."""
    print()
    print(f"native AND vs its orders (run_eager(..., flat=True)), best of {repeat}; load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'pattern':<44} {'native wall/cpu s':>17} {'orders wall/cpu s':>17} "
          f"{'ratio wall/cpu':>14} {'edges n/o':>9} {'PMs n/o':>7} {'matches':>8}")
    for k, preds, w in AND_ROWS:
        names = ["A a", "B b", "C c", "A d"][:k]
        text = f"PATTERN AND({', '.join(names)}) {preds} WITHIN {w:g} seconds"
        program = compile_pattern(parse_pattern(text), stream.schema)
        run_eager(program, stream.slice(0, 100))
        run_eager(program, stream.slice(0, 100), flat=True)
        w_nat, c_nat, r_nat = _best(lambda: run_eager(program, stream), repeat)
        w_flat, c_flat, r_flat = _best(lambda: run_eager(program, stream, flat=True), repeat)
        same = r_nat.matches.key_set() == r_flat.matches.key_set()
        sn, sf = C.summarize(r_nat.counters), C.summarize(r_flat.counters)
        label = f"AND{k} {'preds' if preds else 'no preds'} W={w:g}"
        print(f"{label:<44} {w_nat:8.3f}/{c_nat:.3f} {w_flat:8.3f}/{c_flat:.3f} "
              f"{w_flat / w_nat:6.1f}x/{c_flat / c_nat:.1f}x "
              f"{sn['edge_eval'] / sf['edge_eval']:9.2f} "
              f"{sn['pm_created'] / sf['pm_created']:7.2f} "
              f"{len(r_nat.matches):>8}{'' if same else '  MATCH SETS DIFFER'}")
    print("patterns: " + "; ".join(
        f"AND{k}: AND({', '.join(['A a', 'B b', 'C c', 'A d'][:k])}) {p}".rstrip()
        for k, p, _ in AND_ROWS[::3]))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""How close each engine kernel runs to the floor of its work: ns per probe of the reference
(interpreting) kernel, of the engine's kernel, and of an evaluation-only replay of the same
evaluations, in one process, on the runs of one experiment point, outputs compared exactly.

One section per engine (``SECTIONS``); a section records the engine runs of a point, times the
kernels on them and returns its table.  Sections so far:

``ztree``  the ZStream tree evaluator on the whole-stream runs of the PVLDB'18 ``fig7`` point
    planner = zstream, pset = or, n = 7 (stocks, 100,000 events; ``--select`` picks another):
    the point runs once with the work cache off and every ``run_ztree`` call over the whole
    stream is recorded (program, plan, trigger, caps).  Each recorded run then runs under
    ``engines.evaluators.ztree_ref.ztree_kernel_ref`` (the full binding row merged per probe,
    the order-constraint table and ``eval_pred`` per predicate) and under the engine's kernel
    (``engines.evaluators.ztree``: predicates and constraints resolved per node, the row merged
    only for a probe that passed), in alternating order, and every output is compared exactly
    (status, counter matrix, match rows, detection positions, Kleene arrays, peak).  ns per
    probe = kernel seconds / ``JOIN_PROBE`` total.  The replay: the scans of stored results of
    each run (up to ``--trace`` rows) written by the reference kernel (per scan the window end,
    the node's first predicate and the new result's event of it; per probe the stored result's
    first event and its event of the predicate), then evaluated alone in a compiled loop (the
    window check and one ``eval_pred`` per probe): what a probe costs without the join's
    bookkeeping, reading 16 bytes of trace per probe.

    NUMBA_CACHE_DIR=/tmp/nc python3 benchmarks/bench_kernel_floor.py [--select n=5 ...]

Measured, never asserted (timings vary with load; the machine's load average is printed).
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from engines.compile import WIN_COUNT  # noqa: E402
from engines.predicates import eval_pred  # noqa: E402

NAMES = ("status", "counters", "match rows", "detect", "Kleene events", "Kleene links", "peak")


def _same(a: tuple, b: tuple) -> bool:
    for x, y in zip(a[:7], b[:7]):
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


# ----------------------------------------------------------------------------- ztree section
@njit(cache=True)
def _replay(trace, m, ts, attrs, pred_i, pred_f, wkind, W):
    """The traced scans (``engines.evaluators.ztree_ref``'s trace): per probe the window check
    and the node's first predicate.  Returns (probes, in window, passed)."""
    probes = 0
    inwin = 0
    passed = 0
    T = 0
    code = -1
    enew = -1
    i = 0
    while i < m:
        first = trace[i, 0]
        if first == -1:
            T = trace[i, 1]
            code = trace[i + 1, 0]
            enew = trace[i + 1, 1]
            i += 2
            continue
        eold = trace[i, 1]
        i += 1
        probes += 1
        if wkind == WIN_COUNT:
            if not T - first < W:
                continue
        elif not ts[T] - ts[first] <= W:
            continue
        inwin += 1
        if code >= 0:
            if code & 1:
                ok = eval_pred(pred_i, pred_f, code >> 1, attrs, enew, eold)
            else:
                ok = eval_pred(pred_i, pred_f, code >> 1, attrs, eold, enew)
            if ok:
                passed += 1
    return probes, inwin, passed


def _record_point(experiment: str, select: dict) -> tuple[list, int]:
    """Run the point once; the ``run_ztree`` calls over its whole stream."""
    os.environ["CEPSIM_COUNTER_CACHE"] = ""
    import engines.evaluators.ztree as Z
    from sim.experiments.config import apply_scale, expand_points, load_config
    from sim.studies.adaptive.scenario import point
    cfg = apply_scale(load_config(ROOT / "experiments" / "adaptive" / f"{experiment}.toml"),
                      "full")
    pts = [p for p in expand_points(cfg)
           if all(str(p.params.get(k)) == v for k, v in select.items())]
    if len(pts) != 1:
        sys.exit(f"{len(pts)} points match {select}; name every grid value of one point")
    p = pts[0]
    n_events = int(p.params["n_events"])
    runs: list = []
    streams: dict = {}
    orig = Z.run_ztree

    @functools.wraps(orig)     # the callers read the caps' defaults from its signature
    def recording(program, stream, plan=None, **kw):
        if len(stream) == n_events:
            key = (stream.ts.tobytes()[:4096], float(stream.ts[-1]), int(stream.types.sum()))
            runs.append((program, streams.setdefault(key, stream), plan, dict(kw)))
        return orig(program, stream, plan=plan, **kw)

    Z.run_ztree = recording
    try:
        t = time.perf_counter()
        point(dict(p.params), p.seed)
        print(f"point {select}: {time.perf_counter() - t:.1f} s wall (new kernel, work cache "
              f"off), {len(runs)} whole-stream ztree runs recorded")
    finally:
        Z.run_ztree = orig
    return runs, n_events


def section_ztree(a) -> list[str]:
    from engines.evaluators.ztree import build_tables, kernel_outputs, make_plan
    select = dict(s.split("=", 1) for s in a.select)
    runs, _ = _record_point(a.experiment, select)
    replay = _replay
    t_ref = t_new = t_rep = 0.0
    probes = rep_probes = rep_in = rep_pass = 0
    mismatches = []
    trace = np.empty((max(a.trace, 0), 2), np.int64)
    for i, (program, stream, plan, kw) in enumerate(runs):
        opts = dict(plan=plan, trigger=kw.get("trigger", "push"),
                    eager_vars=kw.get("eager_vars", ()),
                    max_partial_matches=kw.get("max_partial_matches", 20_000_000),
                    max_matches=kw.get("max_matches", 20_000_000),
                    max_kleene_nodes=kw.get("max_kleene_nodes", 50_000_000))
        sizes = {"rows": 1 << 12, "kleene": 64, "parked": 16, "matches": 1 << 12}
        while True:      # array sizes that need no rerun (untimed)
            out = kernel_outputs(program, stream, sizes=sizes, **opts)
            if out[0] < 4:
                break
            key = {4: "rows", 5: "kleene", 6: "parked", 7: "matches"}[int(out[0])]
            sizes[key] *= 4
        if i == 0:       # load (or compile) the reference kernel before timing it
            kernel_outputs(program, stream.slice(0, min(len(stream), 1000)), reference=True,
                           **opts)
        order = ("ref", "new") if i % 2 == 0 else ("new", "ref")
        got = {}
        for which in order:
            t = time.perf_counter()
            got[which] = kernel_outputs(program, stream, sizes=sizes,
                                        reference=which == "ref", **opts)
            dt = time.perf_counter() - t
            if which == "ref":
                t_ref += dt
            else:
                t_new += dt
        if not _same(got["ref"], got["new"]):
            mismatches.append(i)
        probes += int(got["ref"][1][:, 6].sum())
        if a.trace > 0:
            m = kernel_outputs(program, stream, sizes=sizes, reference=True, trace=trace,
                               **opts)[7]
            tab = build_tables(program, make_plan(plan, program), opts["trigger"],
                               frozenset(opts["eager_vars"]))
            args = (trace, m, stream.ts, stream.attrs, tab["pred_i"], tab["pred_f"],
                    int(program.window_kind), float(program.window))
            if i == 0:
                replay(*args)                  # compile (or load) before timing
            t = time.perf_counter()
            nprobe, inwin, passed = replay(*args)
            t_rep += time.perf_counter() - t
            rep_probes += nprobe
            rep_in += inwin
            rep_pass += passed
    ns = lambda s, k: 1e9 * s / max(k, 1)  # noqa: E731
    rows = [f"ztree, {a.experiment} {' '.join(a.select)}: {len(runs)} whole-stream runs, "
            f"{probes:,} probes; outputs identical in {len(runs) - len(mismatches)} of "
            f"{len(runs)} runs" + (f" (DIFFER: runs {mismatches})" if mismatches else ""),
            f"  reference kernel   {t_ref:8.2f} s  {ns(t_ref, probes):6.2f} ns/probe",
            f"  engine kernel      {t_new:8.2f} s  {ns(t_new, probes):6.2f} ns/probe   "
            f"speedup {t_ref / max(t_new, 1e-9):.2f}x"]
    if a.trace > 0:
        rows.append(f"  replay (floor)     {t_rep:8.2f} s  {ns(t_rep, rep_probes):6.2f} ns/probe   "
                    f"on {rep_probes:,} traced probes ({100 * rep_probes / max(probes, 1):.0f} %; "
                    f"{rep_in:,} in window, {rep_pass:,} passed the first predicate)")
    return rows


SECTIONS = {"ztree": section_ztree}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--experiment", default="fig7", help="adaptive experiment (ztree section)")
    ap.add_argument("--select", nargs="+",
                    default=["planner=zstream", "pset=or", "n=7", "stream_seed=1"],
                    help="KEY=VALUE grid values of one point (ztree section)")
    ap.add_argument("--trace", type=int, default=40_000_000,
                    help="trace rows per run for the evaluation-only replay (16 bytes each; "
                         "0: no replay)")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name in a.sections.split(","):
        for line in SECTIONS[name](a):
            print(line)


if __name__ == "__main__":
    main()

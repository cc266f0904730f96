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

``chain``  the lazy chain NFA on the whole-stream runs of the PVLDB'18 ``fig7`` point
    planner = greedy, pset = or, n = 7 (``--chain-select`` picks another): the point runs once
    with the work cache off and every ``run_chain`` call over the whole stream is recorded
    (program, order, caps).  Each recorded run then runs under
    ``engines.evaluators.lazy_nfa.general_kernel`` (the general kernel: the predicate
    table interpreted per candidate through ``eval_pred``, the scope recomputed per visit) and
    under the engine's ``engines.evaluators.lazy_chain.chain_kernel`` (tables resolved per
    (branch, depth)), in alternating order, and every output is compared exactly (counter
    matrix, match rows, detection positions, peak, routing checks, status, stop event).  ns per
    evaluation = kernel seconds / ``EDGE_EVAL`` total.  The replay: the condition evaluations
    of each run (up to ``--chain-trace`` rows) written by a traced copy of the reference kernel
    (per evaluation the candidate and the instance's first and last events, per predicate check
    the predicate and its two events), then evaluated alone in a compiled loop (the window check
    and one ``eval_pred`` per traced predicate check): what the evaluations cost without the
    automaton's bookkeeping, reading 24 bytes of trace per row (memory-bound, so an upper bound
    on the floor).

    NUMBA_CACHE_DIR=/tmp/nc python3 benchmarks/bench_kernel_floor.py [--sections chain] ...

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


# ----------------------------------------------------------------------------- chain section
@njit(cache=True)
def _replay_chain(trace, m, ts, attrs, pred_i, pred_f, wkind, W):
    """The traced condition evaluations of the lazy chain (``_traced_chain_ref``'s trace): per
    evaluation the window check of the instance plus the candidate, then each traced predicate
    check (``eval_pred``).  Returns (evaluations, in window, predicate checks passed)."""
    evals = 0
    inwin = 0
    passed = 0
    for i in range(m):
        c0 = trace[i, 0]
        if c0 >= 0:
            evals += 1
            x = c0
            imin = trace[i, 1]
            imax = trace[i, 2]
            mn = x if (imin < 0 or x < imin) else imin
            mx = x if (imin < 0 or x > imax) else imax
            if wkind == WIN_COUNT:
                if mx - mn >= W:
                    continue
            elif ts[mx] - ts[mn] > W:
                continue
            inwin += 1
        elif eval_pred(pred_i, pred_f, -1 - c0, attrs, trace[i, 1], trace[i, 2]):
            passed += 1
    return evals, inwin, passed


@functools.lru_cache(maxsize=1)
def _traced_chain_ref():
    """``engines.evaluators.lazy_nfa.general_kernel`` with a trace: its source with one
    more argument ``trace`` (rows of 3 int64) and, per condition evaluation, the row (candidate,
    instance's first event, its last event; -1, -1 for a root) and per predicate check the row
    (-1 - predicate, e1, e2), up to ``trace``'s length; returns the rows written as an eighth
    output.  Compiled here, uncached (the engine module stays as it is)."""
    import inspect
    import textwrap
    import engines.evaluators.lazy_nfa as R
    src = textwrap.dedent(inspect.getsource(R.general_kernel))
    src = src.replace("@njit(cache=True)\n", "", 1)
    src = src.replace("def _lazy_kernel(", "def lazy_kernel_traced(", 1)
    src = src.replace("max_pm, max_matches):", "max_pm, max_matches, trace):", 1)
    src = src.replace("    n_m = 0\n", "    n_m = 0\n    nt = 0\n", 1)
    for a, b in (("ST_OK, -1", "ST_OK, -1, nt"), ("ST_MAX_PM, p", "ST_MAX_PM, p, nt"),
                 ("ST_MAX_MATCHES, p", "ST_MAX_MATCHES, p, nt")):
        assert a in src
        src = src.replace(a, b)
    lines = []
    for line in src.split("\n"):
        lines.append(line)
        ind = line[:len(line) - len(line.lstrip())]
        if line.strip() == "cnt[p, _EDGE_EVAL] += 1":
            lines += [ind + "if nt < trace.shape[0]:",
                      ind + "    trace[nt, 0] = x",
                      ind + "    trace[nt, 1] = -1 if k < B else i_min[k]",
                      ind + "    trace[nt, 2] = -1 if k < B else i_max[k]",
                      ind + "    nt += 1"]
        elif line.strip() == "cnt[p, _PRED_EVAL] += 1":
            lines += [ind + "if nt < trace.shape[0]:",
                      ind + "    trace[nt, 0] = -1 - pr",
                      ind + "    trace[nt, 1] = e1",
                      ind + "    trace[nt, 2] = e2",
                      ind + "    nt += 1"]
    ns = dict(vars(R))
    exec(compile("\n".join(lines), "<lazy_kernel_traced>", "exec"), ns)
    return njit(ns["lazy_kernel_traced"])


def _record_chain_point(experiment: str, select: dict) -> list:
    """Run the adaptive point once; the ``run_chain`` calls over its whole stream."""
    os.environ["CEPSIM_COUNTER_CACHE"] = ""
    import engines.evaluators.lazy_nfa as L
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
    orig = L.run_chain

    @functools.wraps(orig)     # the callers read the caps' defaults from its signature
    def recording(program, stream, order=None, **kw):
        if len(stream) == n_events:
            key = (stream.ts.tobytes()[:4096], float(stream.ts[-1]), int(stream.types.sum()))
            runs.append((program, streams.setdefault(key, stream), order, dict(kw)))
        return orig(program, stream, order=order, **kw)

    L.run_chain = recording
    try:
        t = time.perf_counter()
        point(dict(p.params), p.seed)
        print(f"point {select}: {time.perf_counter() - t:.1f} s wall (engine kernel, work cache "
              f"off), {len(runs)} whole-stream chain runs recorded")
    finally:
        L.run_chain = orig
    return runs


def section_chain(a) -> list[str]:
    from engines.counters import EDGE_EVAL
    from engines.evaluators.lazy_nfa import (DEFAULT_MAX_MATCHES, DEFAULT_MAX_PARTIAL_MATCHES,
                                             ROUTE_FIXED, kernel_outputs)
    select = dict(s.split("=", 1) for s in a.chain_select)
    runs = _record_chain_point(a.experiment, select)
    t_ref = t_new = t_rep = 0.0
    evals = rep_evals = rep_in = rep_pass = 0
    mismatches = []
    trace = np.empty((max(a.chain_trace, 0), 3), np.int64)
    for i, (program, stream, order, kw) in enumerate(runs):
        ids = [program.var_id(s) for s in order] if order is not None \
            else list(program.positive_vars)
        caps = (int(kw.get("max_partial_matches", DEFAULT_MAX_PARTIAL_MATCHES)),
                int(kw.get("max_matches", DEFAULT_MAX_MATCHES)))
        if i == 0:       # load (or compile) both kernels before timing them
            head = stream.slice(0, min(len(stream), 1000))
            for ref in (True, False):
                kernel_outputs(program, head, ROUTE_FIXED, ids, *caps, reference=ref)
        order_run = ("ref", "new") if i % 2 == 0 else ("new", "ref")
        got = {}
        for which in order_run:
            t = time.perf_counter()
            got[which] = kernel_outputs(program, stream, ROUTE_FIXED, ids, *caps,
                                        reference=which == "ref")
            dt = time.perf_counter() - t
            if which == "ref":
                t_ref += dt
            else:
                t_new += dt
        if not _same(got["ref"], got["new"]):
            mismatches.append(i)
        evals += int(got["ref"][0][:, EDGE_EVAL].sum())
        if a.chain_trace > 0:
            traced = _traced_chain_ref()
            t_args = _ref_args(program, stream, ids, caps)
            m = traced(*t_args, trace)[7]
            args = (trace, m, stream.ts, stream.attrs, t_args[3], t_args[4],
                    int(program.window_kind), float(program.window))
            if i == 0:
                _replay_chain(*args)          # compile (or load) before timing
            t = time.perf_counter()
            ne, inwin, passed = _replay_chain(*args)
            t_rep += time.perf_counter() - t
            rep_evals += ne
            rep_in += inwin
            rep_pass += passed
    ns = lambda s, k: 1e9 * s / max(k, 1)  # noqa: E731
    rows = [f"chain, {a.experiment} {' '.join(a.chain_select)}: {len(runs)} whole-stream runs, "
            f"{evals:,} condition evaluations; outputs identical in "
            f"{len(runs) - len(mismatches)} of {len(runs)} runs"
            + (f" (DIFFER: runs {mismatches})" if mismatches else ""),
            f"  reference kernel   {t_ref:8.2f} s  {ns(t_ref, evals):6.2f} ns/evaluation",
            f"  engine kernel      {t_new:8.2f} s  {ns(t_new, evals):6.2f} ns/evaluation   "
            f"speedup {t_ref / max(t_new, 1e-9):.2f}x"]
    if a.chain_trace > 0:
        rows.append(f"  replay (floor)     {t_rep:8.2f} s  {ns(t_rep, rep_evals):6.2f} "
                    f"ns/evaluation   on {rep_evals:,} traced evaluations "
                    f"({100 * rep_evals / max(evals, 1):.0f} %; {rep_in:,} in window, "
                    f"{rep_pass:,} predicate checks passed)")
    return rows


def _ref_args(program, stream, ids, caps) -> tuple:
    """The reference kernel's arguments for one chain run (``lazy_nfa.kernel_outputs``'s)."""
    from engines.evaluators.lazy_nfa import ROUTE_FIXED, chain_general_tables
    br_vars, br_len, br_slot, br_preds, br_npred, br_order, var_type, var_buf, buf_stored, \
        n_buf, pred_i = chain_general_tables(program, ROUTE_FIXED, ids)
    return (np.ascontiguousarray(stream.types.astype(np.int64)), stream.ts, stream.attrs,
            pred_i, program.pred_f, var_type, var_buf, buf_stored, n_buf, br_vars, br_len,
            br_slot, br_preds, br_npred, br_order, np.int64(ROUTE_FIXED),
            int(program.window_kind), float(program.window), caps[0], caps[1])


SECTIONS = {"ztree": section_ztree, "chain": section_chain}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sections", default=",".join(SECTIONS),
                    help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--experiment", default="fig7",
                    help="adaptive experiment (ztree and chain sections)")
    ap.add_argument("--select", nargs="+",
                    default=["planner=zstream", "pset=or", "n=7", "stream_seed=1"],
                    help="KEY=VALUE grid values of one point (ztree section)")
    ap.add_argument("--chain-select", nargs="+",
                    default=["planner=greedy", "pset=or", "n=7", "stream_seed=1"],
                    help="KEY=VALUE grid values of one point (chain section)")
    ap.add_argument("--trace", type=int, default=40_000_000,
                    help="trace rows per run for the evaluation-only replay (16 bytes each; "
                         "0: no replay)")
    ap.add_argument("--chain-trace", type=int, default=20_000_000,
                    help="trace rows per run for the chain's evaluation-only replay (24 bytes "
                         "each; 0: no replay)")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for name in a.sections.split(","):
        for line in SECTIONS[name](a):
            print(line)


if __name__ == "__main__":
    main()

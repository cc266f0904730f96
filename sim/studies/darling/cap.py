"""DARLING (PVLDB'22): does the paper's latency cap bind?

The paper counts a match only if it is detected within 30 minutes with Lmax = 1.5 s (Section 5.1:
"we did not consider matches whose latency exceeded 30 minutes"), i.e. within 1,200 x Lmax
(``sim.studies.darling.scenario.latency_cap``).  A baseline that never drops an event (random
partial-match dropping, eSPICE / hSPICE) builds a backlog during the load peaks; on the 50k-event
soccer sample that backlog stays far below 1,200 x Lmax, so every late match counts.  This
experiment runs the window panel's points (``darling.point``: the authors' Q1, the same overload
shape, Lmax and shedders) on the sample followed by a synthetic continuation fitted to it
(``stream = "continued"``, ``workloads.soccer_synth.continue_sample``), long enough for a
baseline's backlog to reach the cap, beside the sample itself.

Each row adds to ``darling.point``'s row the slowest backlog after the warm-up: ``backlog_max_s``
= max over the served events from the warm-up on of (departure - arrival), the latency any match
detected by that event has, and ``backlog_max_cap`` = that / the cap.  ``latency_max`` is the
slowest *counted* match (<= the cap); ``matches_over_cap`` the matches the cap cut.

``python3 -m sim.studies.darling.cap search ...`` is the length search: it runs the slowest
baselines at a few stream lengths, fits ``backlog_max_cap`` linearly in the length and prints the
length at which it reaches 1 (docs/reproduction/darling.md, "Stream length").
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sim.experiments.claims import ClaimResult
from sim.studies.darling import claims as DC
from sim.studies.darling import scenario as D

SAMPLE_EVENTS = 50000      # the bundled sample's length (workloads/data/darling_soccer)


def point(params: dict, seed: int) -> dict:
    """``darling.point``'s row plus the slowest backlog after the warm-up (module doc)."""
    row, res, arr, n_warm, cap = D.run_point(params, seed)
    sel = res.served.copy()
    sel[:n_warm] = False
    back = float(np.max(res.depart[sel] - arr[sel])) if sel.any() else 0.0
    row["backlog_max_s"] = back
    row["backlog_max_cap"] = back / cap if cap > 0 else float("nan")
    return row


# ----------------------------------------------------------------------------- claims
def _split(df):
    """(rows of the longest stream, rows of the shortest, each per window, and a label naming the
    lengths): every window may run its own long length (the config zips them)."""
    d = DC.valid_rows(df)
    by = d.groupby("window_ms")["n_events"] if "window_ms" in d.columns else None
    n_max = by.transform("max") if by is not None else d["n_events"].max()
    n_min = by.transform("min") if by is not None else d["n_events"].min()
    long_df, short_df = d[d["n_events"] == n_max], d[d["n_events"] == n_min]

    def label(part):
        if "window_ms" not in part.columns or part["window_ms"].nunique() <= 1:
            return f"{int(part['n_events'].max())} events"
        return ", ".join(f"W={w:g}ms: {int(n)} events"
                         for w, n in part.groupby("window_ms")["n_events"].max().items())
    return long_df, short_df, label


def on_streams(df, claim: str, x: str = "window_ms", metric: str | None = None,
               factor_at_max: float | None = None, tol: float | None = None,
               paper: str | None = None) -> ClaimResult:
    """The darling claim ``claim`` (a function name in ``sim.studies.darling.claims``) on the longest
    stream of every window, which gives the verdict, with the same claim on the shortest stream
    (the sample) printed beside it; the other arguments go to that claim (those left None are
    not passed)."""
    args = {k: v for k, v in dict(x=x, metric=metric, factor_at_max=factor_at_max, tol=tol,
                                  paper=paper).items() if v is not None}
    fn = getattr(DC, claim, None)
    if not callable(fn) or not claim.startswith("claim_"):
        return ClaimResult(False, f"no darling claim {claim!r}")
    long_df, short_df, label = _split(df)
    if long_df.empty:
        return ClaimResult(False, "no valid rows")
    r_long = fn(long_df, **args)
    if short_df.empty or (short_df["n_events"].to_numpy() == long_df["n_events"].max()).all():
        return ClaimResult(r_long.passed, f"{label(long_df)}: {r_long.measured}")
    r_short = fn(short_df, **args)
    return ClaimResult(r_long.passed,
                       f"{label(long_df)}: {r_long.measured} || beside it, {label(short_df)} "
                       f"(sample): [{'PASS' if r_short.passed else 'FAIL'}] {r_short.measured}")


def claim_cap_report(df) -> ClaimResult:
    """REPORT (no verdict): per stream length, peak factor, window and shedder, the slowest
    backlog (the latency the slowest match would have) as a multiple of the cap, the matches
    the cap cut, and kept_pct; then which shedders the cap cut on each stream."""
    d = DC.valid_rows(df)
    if d.empty:
        return ClaimResult(False, "no rows")
    keys = ["n_events", "peak_factor", "window_ms"]
    parts = []
    for k, g in d.groupby(keys, sort=True):
        cap_l = float(g["latency_cap_lmax"].median()) if "latency_cap_lmax" in g.columns \
            else 1200.0
        cells = []
        for m in D.METHODS:
            r = g[g["method"] == m]
            if r.empty:
                continue
            cells.append(f"{m} {r['backlog_max_cap'].mean():.3g}x/{int(r['matches_over_cap'].sum())}"
                         f"/{r['kept_pct'].mean():.1f}%")
        parts.append(f"[n={k[0]} peak={k[1]:g} W={k[2]:g}ms cap={cap_l:g}xLmax="
                     f"{float(g['latency_cap_s'].median()):.3g}s] " + ", ".join(cells))
    cut = d[d["matches_over_cap"] > 0].groupby("n_events")["method"].unique()
    summary = "; ".join(f"n={n}: cap cut matches of {', '.join(sorted(v))}" for n, v in cut.items())
    uncut = sorted(set(int(v) for v in d["n_events"]) - set(int(v) for v in cut.index))
    if uncut:
        summary += ("; " if summary else "") + ", ".join(f"n={n}" for n in uncut) + \
            ": the cap cut no match (stream too short for it to bind)"
    return ClaimResult(True, "REPORT per shedder: slowest backlog / cap, matches cut by the cap, "
                       "kept_pct. " + " ".join(parts) + ". " + summary)


# ----------------------------------------------------------------------------- length search
def length_search(windows, factors, lengths, methods, base: dict | None = None) -> list[dict]:
    """Run ``point`` for every (window, factor, method, length) on the continued stream and
    return the rows (cheap probe: one arrival seed)."""
    p0 = {"arrival_seed": 1, "query": "q1", "stream": "continued", "synth_seed": 1,
          "warm_frac": 0.1, "shape": "peaks", "n_in_target": 1000, "ref_window_ms": 50,
          "beta": 0.8}
    p0.update(base or {})
    rows = []
    for w in windows:
        for f in factors:
            for m in methods:
                for n in lengths:
                    p = dict(p0, window_ms=w, peak_factor=f, method=m, n_events=n)
                    t = time.process_time()
                    r = point(p, 20220301)
                    r.update(window_ms=w, peak_factor=f, method=m, n_events=n,
                             cpu_s=time.process_time() - t)
                    rows.append(r)
    return rows


def length_needed(lengths, fracs) -> float:
    """The length at which the least-squares line through (length, backlog / cap) reaches 1;
    inf when it does not grow."""
    x = np.asarray(lengths, dtype=float)
    y = np.asarray(fracs, dtype=float)
    if len(x) < 2:
        return float("nan")
    b, a = np.polyfit(x, y, 1)
    # a slope that adds under 1e-9 of the cap over the probed range is no growth
    return float((1.0 - a) / b) if b * float(x.max()) > 1e-9 else float("inf")


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m sim.studies.darling.cap",
                                 description="DARLING latency-cap length search (module doc)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("search", help="backlog / cap at a few lengths, extrapolated to 1")
    s.add_argument("--window", type=float, nargs="+", default=[50.0])
    s.add_argument("--factor", type=float, nargs="+", default=[3.0, 500.0])
    s.add_argument("--n", type=int, nargs="+", default=[100000, 200000, 400000])
    s.add_argument("--method", nargs="+", default=["random_pm", "espice", "icde20"])
    a = ap.parse_args(argv)
    rows = length_search(a.window, a.factor, a.n, a.method)
    print("| W ms | peak factor | method | " + " | ".join(f"n={n}" for n in a.n)
          + " | length for backlog = cap | CPU s per 10^5 events |")
    print("|---|---|---|" + "---|" * len(a.n) + "---|---|")
    for w in a.window:
        for f in a.factor:
            for m in a.method:
                rs = [r for r in rows if r["window_ms"] == w and r["peak_factor"] == f
                      and r["method"] == m]
                fr = [r["backlog_max_cap"] for r in rs]
                cut = [r["matches_over_cap"] for r in rs]
                cpu = sum(r["cpu_s"] for r in rs) / sum(r["n_events"] for r in rs) * 1e5
                need = length_needed([r["n_events"] for r in rs], fr)
                print(f"| {w:g} | {f:g} | {m} | "
                      + " | ".join(f"{v:.3g} ({c} cut)" for v, c in zip(fr, cut))
                      + f" | {need:.3g} | {cpu:.2f} |")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":      # pragma: no cover
    raise SystemExit(_main())

"""Claims of the cross-paper strategy matrix (functions ``claim(df, **args) -> ClaimResult``) on
the rows of ``sim.studies.cross.scenario.point``: every strategy finds the same matches, and each
paper's own strategy against the matrix's best on its own workload (our matrix, no paper's
figure)."""
from __future__ import annotations

import math

from sim.experiments.claims import ClaimResult
from sim.studies.cross.scenario import col, in_order, strategy_columns


def _ok(df):
    return df[df["error"].isna()] if "error" in df.columns else df


def claim_same_matches(df) -> ClaimResult:
    """Every strategy finds the same matches on each workload (``sim.tools.compare.core`` compares the
    match sets, not only their sizes); a failed point counts as a failure."""
    bad = []
    df = in_order(df)
    for _, r in df.iterrows():
        if isinstance(r.get("error"), str):
            bad.append(f"{r['workload']}: point failed ({r['error'][:120]})")
        elif int(r.get("same_matches", 0)) != 1:
            bad.append(f"{r['workload']}: {r.get('mismatch', '')}")
    ok = _ok(df)
    counts = ", ".join(f"{r['workload']} {int(r['matches'])} ({int(r['n_runs'])} runs)"
                       for _, r in ok.iterrows() if r.get("same_matches") == 1)
    return ClaimResult(not bad and len(ok) > 0, ("; ".join(bad) + "; ") * bool(bad) +
                       f"same match set per workload: {counts}")


def standings(r, metric: str) -> list[tuple[str, float]]:
    """[(strategy, value)] best first: largest ``lsr`` or smallest ``lat``."""
    vals = [(k, float(r.get(f"{metric}_{col(k)}", math.nan))) for k in strategy_columns()]
    vals = [(k, v) for k, v in vals if math.isfinite(v)]
    return sorted(vals, key=lambda kv: -kv[1] if metric == "lsr" else kv[1])


def claim_own_winner_near_best(df, factor: float = 1.1) -> ClaimResult:
    """Each paper's own strategy is, on its own workload, within ``factor`` of the matrix's best
    (throughput: best / own; latency: own / best), else the row says which strategy beats it
    and by how much, and the own strategy's rank."""
    parts, passed, n = [], True, 0
    for _, r in in_order(_ok(df)).iterrows():
        own, metric = r.get("own") or "", r.get("own_metric") or ""
        if not own or r.get("same_matches") != 1:
            continue
        table = standings(r, metric)
        if not table:
            continue
        n += 1
        mine = [(i, k, v) for i, (k, v) in enumerate(table) if k in own.split("|")]
        if not mine:
            passed = False
            parts.append(f"{r['workload']}: {own} did not run")
            continue
        _, key, v = mine[0]
        best_k, best_v = table[0]
        rank = sum(1 for _, x in table if (x > v if metric == "lsr" else x < v))
        ratio = best_v / v if metric == "lsr" else v / best_v
        ok = ratio <= factor
        passed &= ok
        unit = "ev/s" if metric == "lsr" else "s"
        what = "stable rate" if metric == "lsr" else "latency"
        parts.append(f"{r['workload']}: {key} rank {rank + 1}/{len(table)}, {what} {v:.3g} {unit}"
                     + ("" if best_k == key else f"; best {best_k} {best_v:.3g} ({ratio:.2f}x)")
                     + ("" if ok else " FAIL"))
    return ClaimResult(passed and n > 0, "; ".join(parts) or "no workload with an own winner")

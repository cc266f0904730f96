"""Claims that compare two readings of one mechanism side by side (named variants), for the
adaptive study's configs that put the reading on a grid axis.

``claim_subtree_reading_report``: ZStream invariants with their sides recomputed at every
check (``zs_subtree = "recompute"``, OpenCEP's ``ZStreamTreeInvariants``) against section 4.2's
constant-time reading (``"constant"``: subtree costs and cardinalities fixed at plan time),
each tuned on its own (``analysis.tuned``).
"""
from __future__ import annotations

from sim.experiments.claims import ClaimResult
from sim.studies.adaptive.analysis import supported_rows, tuned, tuning_text


def claim_subtree_reading_report(df) -> ClaimResult:
    """Per data set and reading: the tuned invariant method's throughput over static and over
    the tuned threshold method, its plan replacements and false-negative share, per n (a
    report: passes when both readings have rows)."""
    d = supported_rows(df)
    if d.empty or "zs_subtree" not in d.columns:
        return ClaimResult(False, "no rows with a zs_subtree column")
    parts = []
    for (ds, reading), g in d.groupby(["dataset", "zs_subtree"]):
        t = tuned(g, ds, "zstream")
        if t is None:
            continue
        inv = t["per_n"]
        fn_col = f"{t['best_inv']}_fn"
        ev = t["eval"]
        fn = (f"; inv false-negative share {ev[fn_col].mean():.2f}"
              if fn_col in ev.columns else "")
        parts.append(
            f"{ds}/{reading} ({tuning_text(t)}): inv / static "
            + ", ".join(f"n={n} {v['inv']['thr'] / v['static']['thr']:.2f}" for n, v in inv.items())
            + "; inv / thr "
            + ", ".join(f"n={n} {v['inv']['thr'] / v['thr']['thr']:.2f}" for n, v in inv.items()
                        if "thr" in v)
            + "; inv replacements "
            + ", ".join(f"n={n} {v['inv']['repl']:.1f}" for n, v in inv.items()) + fn)
    ok = len({p.split(" ")[0] for p in parts}) == 2 * d["dataset"].nunique()
    return ClaimResult(ok, "; ".join(parts) or "no tuned rows")

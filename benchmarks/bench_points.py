"""Points of any experiments under an older git revision and under this checkout, side by side.

For exact speedups: runs the selected points of each config in one fresh
process per side (``--backend serial`` semantics: ``sim.experiments.runner.run_point`` in order), with the
per-point log of ``sim/experiments/pointlog.py`` (CPU s and peak resident memory of each point), and
prints per experiment the CPU seconds (sum over its points), the largest point's peak RSS, the
ratio, and whether every result row is identical (every column but ``wall_s``, NaN = NaN,
``pandas.testing.assert_frame_equal(check_exact=True)``).  ``--committed DIR`` also compares
this checkout's rows with the stored rows of the same points (``DIR/<paper>/<name>/
points.parquet``, e.g. ``results/full``); with ``--cheapest K`` only the K stored points of
each config with the smallest stored ``wall_s`` run (a refactoring's check that stored rows do
not change, in minutes instead of a full reproduction):

    python benchmarks/bench_points.py --scale full --rounds 1 --committed results/full \
        --cheapest 2 experiments/*/*.toml

The old side is ``git archive REV`` unpacked in a temporary directory (no worktree is added),
with its own Numba cache; the first round fills both caches, so use ``--rounds 2`` (the best
CPU per experiment is printed).  Heavy: run it through ``/work/tools/heavy`` on a shared machine.

    python benchmarks/bench_points.py --baseline 3696b53 --scale quick \\
        experiments/darling/fig678_window.toml experiments/darling/fig9_overload.toml
    python benchmarks/bench_points.py --baseline 3696b53 --scale full --every 30 \\
        --committed results/full experiments/darling/fig678_window.toml
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Runs in a fresh process with cwd = the tree under test: every selected point of each config,
# rows to <out>/<i>.parquet, one JSON line {config: [cpu_s, max peak_rss_mb, points]}.
SNIPPET = r"""
import json, os, sys
from pathlib import Path
import pandas as pd
sys.path.insert(0, os.getcwd())
from sim.experiments.config import load_config
from sim.experiments.runner import resolve_run, run_point
scale, select, every, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
wanted = json.loads(sys.argv[5])      # {config: [[point_id, rep], ...]} or {} for every point
log = out / "points.jsonl"
os.environ["CEPSIM_POINT_LOG"] = str(log)
res = {}
for i, path in enumerate(sys.argv[6:]):
    cfg, points = resolve_run(load_config(path), scale or None)
    sel = [p for p in points if not select or eval(select, {}, dict(p.params))][::every]
    if path in wanted:
        keep = {tuple(k) for k in wanted[path]}
        sel = [p for p in sel if (p.point_id, p.rep) in keep]
    if log.exists():
        log.unlink()
    rows = [run_point(cfg, p) for p in sel]
    for r in rows:
        r.pop("wall_s", None)
    pd.DataFrame(rows).to_parquet(out / f"{i}.parquet")
    lines = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    res[path] = [sum(x["cpu_s"] for x in lines),
                 max([x["peak_rss_mb"] or 0.0 for x in lines] or [0.0]), len(sel),
                 sum(r["error"] is not None for r in rows)]
print(json.dumps(res))
"""


def same_rows(a_path: Path, b_path: Path) -> str:
    """'identical' or the first difference of two row files (sorted by point_id, rep)."""
    import pandas as pd
    from pandas.testing import assert_frame_equal

    a, b = pd.read_parquet(a_path), pd.read_parquet(b_path)
    if a.empty:
        return ("no point ran: no stored point is in the config at this --scale (the stored "
                "rows' scale, e.g. --scale full for results/full?)")
    a = a.drop(columns=[c for c in ("wall_s",) if c in a.columns])
    b = b.drop(columns=[c for c in ("wall_s",) if c in b.columns])
    key = ["point_id", "rep"]
    b = b.merge(a[key], on=key)                  # stored rows: only the points that ran
    if len(a) != len(b):
        return f"{len(a)} rows vs {len(b)} stored"
    # a subset of a stored table lacks the columns only other points fill (NaN / None here)
    extra = [c for c in b.columns if c not in a.columns]
    if any(b[c].notna().any() for c in extra) or set(a.columns) - set(b.columns):
        return f"columns differ: {sorted(set(a.columns) ^ set(b.columns))}"
    b = b.drop(columns=extra)
    a = a.sort_values(key).reset_index(drop=True)
    b = b.sort_values(key).reset_index(drop=True)[list(a.columns)]
    try:
        assert_frame_equal(a, b, check_exact=True, check_dtype=False)
    except AssertionError as exc:
        return "DIFFER: " + " ".join(str(exc).split())[:300]
    return f"identical ({len(a)} rows x {a.shape[1]} columns)"


def _stored_rows(committed: str, cfg_path: str, scale: str) -> Path | None:
    from sim.experiments.config import apply_scale, load_config
    cfg = apply_scale(load_config(cfg_path), scale or None)
    p = Path(committed) / cfg.paper / cfg.name / "points.parquet"
    return p if p.exists() else None


def cheapest_points(committed: str, configs: list[str], scale: str, k: int) -> dict:
    """``{config: [[point_id, rep], ...]}``: the ``k`` error-free stored rows of each config with
    the smallest ``wall_s`` (configs without stored rows are left out)."""
    import pandas as pd

    out = {}
    for c in configs:
        stored = _stored_rows(committed, c, scale)
        if stored is None:
            continue
        d = pd.read_parquet(stored, columns=["point_id", "rep", "error", "wall_s"])
        d = d[d["error"].isna()].sort_values("wall_s").head(k)
        out[c] = [[pid, int(rep)] for pid, rep in zip(d["point_id"], d["rep"])]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("configs", nargs="+")
    ap.add_argument("--baseline", metavar="REV", help="git revision to compare with")
    ap.add_argument("--scale", default="quick")
    ap.add_argument("--select", default="", help="Python expression over a point's params")
    ap.add_argument("--every", type=int, default=1, help="every k-th selected point")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--committed", metavar="DIR", help="stored rows to compare with")
    ap.add_argument("--cheapest", type=int, metavar="K",
                    help="with --committed: only the K stored points of each config with the "
                         "smallest wall_s (a quick check that a refactoring keeps stored rows)")
    a = ap.parse_args()
    if a.cheapest and not a.committed:
        ap.error("--cheapest needs --committed DIR")
    sys.path.insert(0, str(REPO))        # --committed reads the configs with this checkout's sim
    configs = [str(Path(c).resolve()) for c in a.configs]
    wanted = cheapest_points(a.committed, configs, a.scale, a.cheapest) if a.cheapest else {}
    configs = [c for c in configs if not a.cheapest or wanted.get(c)]
    with tempfile.TemporaryDirectory(prefix="bench_points_") as tmp:
        trees = {"new": REPO}
        if a.baseline:
            old = Path(tmp) / "old"
            old.mkdir()
            arch = subprocess.run(["git", "-C", str(REPO), "archive", a.baseline],
                                  capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=arch, check=True)
            trees = {"old": old, "new": REPO}
        best: dict = {}
        for _ in range(a.rounds):
            for tag, root in trees.items():
                out = Path(tmp) / f"rows_{tag}"
                out.mkdir(exist_ok=True)
                # one BLAS thread, as every cepsim command (rows stored by the CLI compare equal)
                env = dict(os.environ, PYTHONPATH=str(root), OPENBLAS_NUM_THREADS="1",
                           NUMBA_CACHE_DIR=str(Path(tmp) / f"numba_{tag}"),
                           CEPSIM_COUNTER_CACHE="")   # memory only: every side computes its work
                proc = subprocess.run([sys.executable, "-c", SNIPPET, a.scale, a.select,
                                       str(a.every), str(out), json.dumps(wanted), *configs],
                                      env=env, cwd=root,
                                      capture_output=True, text=True)
                if proc.returncode != 0:
                    raise SystemExit(f"{tag} failed:\n{proc.stderr[-3000:]}")
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                for c, v in res.items():
                    prev = best.setdefault(tag, {}).get(c)
                    best[tag][c] = v if prev is None or v[0] < prev[0] else prev
        print(f"{'experiment':<34} {'points':>6} {'old CPU s':>10} {'new CPU s':>10} {'ratio':>6} "
              f"{'old MB':>7} {'new MB':>7}  rows")
        for i, c in enumerate(configs):
            n = best["new"][c]
            name = "/".join(Path(c).with_suffix("").parts[-2:])
            if "old" in best:
                o = best["old"][c]
                ident = same_rows(Path(tmp) / "rows_old" / f"{i}.parquet",
                                  Path(tmp) / "rows_new" / f"{i}.parquet")
                print(f"{name:<34} {n[2]:>6} {o[0]:>10.2f} {n[0]:>10.2f} {o[0] / n[0]:>6.2f} "
                      f"{o[1]:>7.0f} {n[1]:>7.0f}  old vs new: {ident}")
            else:
                print(f"{name:<34} {n[2]:>6} {'':>10} {n[0]:>10.2f} {'':>6} {'':>7} {n[1]:>7.0f}")
            if n[3]:
                print(f"  {n[3]} point(s) failed (error column)")
            if a.committed:
                stored = _stored_rows(a.committed, c, a.scale)
                print("  new vs stored: " + (same_rows(Path(tmp) / "rows_new" / f"{i}.parquet",
                                                        stored) if stored else "no stored rows"))


if __name__ == "__main__":
    main()

"""Compare every ``points.parquet`` row of two result roots, all columns except ``wall_s``,
exactly (NaN equals NaN; array cells by their repr).  Used for refactorings that must not change
a single stored row, e.g. a module split:

    (checkout at REV)  python3 -m sim.cli reproduce --scale quick --backend serial --out /tmp/before
    (checkout at HEAD) python3 -m sim.cli reproduce --scale quick --backend serial --out /tmp/after
    python3 benchmarks/compare_results.py /tmp/before /tmp/after
"""
import sys
from pathlib import Path
import pandas as pd
a, b = Path(sys.argv[1]), Path(sys.argv[2])
fa = sorted(p.relative_to(a) for p in a.rglob("points.parquet"))
fb = sorted(p.relative_to(b) for p in b.rglob("points.parquet"))
assert fa == fb, (set(fa) ^ set(fb))
rows = diffs = 0
for rel in fa:
    x = pd.read_parquet(a / rel).drop(columns=["wall_s"])
    y = pd.read_parquet(b / rel).drop(columns=["wall_s"])
    rows += len(x)
    if list(x.columns) != list(y.columns) or list(x.dtypes) != list(y.dtypes) or len(x) != len(y):
        print("SHAPE", rel); diffs += 1; continue
    for c in x.columns:
        sx, sy = x[c], y[c]
        same = [(u == v) or (u != u and v != v) if not hasattr(u, "__len__") or isinstance(u, str)
                else repr(u) == repr(v) for u, v in zip(sx, sy)]
        if not all(same):
            k = same.index(False)
            print("DIFF", rel, c, "row", k, repr(sx.iloc[k])[:80], repr(sy.iloc[k])[:80]); diffs += 1
print(f"{len(fa)} files, {rows} rows, {sum(len(pd.read_parquet(a/r).columns) - 1 for r in fa)} columns compared; {diffs} differing columns")

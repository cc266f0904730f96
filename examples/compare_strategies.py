"""Which evaluation strategy for my pattern on my data? ``api.compare`` as a script (CI runs it:
``python examples/compare_strategies.py``).

1. load the bundled NASDAQ sample (Metastock format) and state a pattern;
2. compare every strategy that can evaluate it at three arrival rates (the same match set is
   checked, the work priced with the default cost profile, queued with Poisson arrivals);
3. print the table and read the rows: the largest stable rate of each engine run, and which run
   has the lowest latency at each rate.

Pass an output directory as the first argument to also write rows.parquet, the two figures and
compare.md there (what ``cepsim compare --out DIR`` writes).
"""
from __future__ import annotations

import sys
from pathlib import Path

from sim import api

DATA = "workloads/data/opencep_nasdaq/NASDAQ_MEDIUM.txt"
PATTERN = "PATTERN SEQ(MSFT a, DRIV b, ORLY c) WHERE a.close < b.close WITHIN 30 minutes"


def main(out_dir: Path | None) -> int:
    stream = api.load_stream(DATA, "metastock")
    cmp = api.compare(PATTERN, stream, rates=[2000, 6000, 12000], seed=1)
    print(cmp.table())
    rows = cmp.rows
    ran = rows[rows["eligible"]]
    if ran["matches"].nunique() != 1:        # compare raises on a mismatch; belt and braces
        print("engines disagree!", file=sys.stderr)
        return 1
    print(f"\n{ran['engine_spec'].nunique()} engine runs, {int(ran['matches'].iloc[0])} matches "
          f"each")
    lsr = ran.groupby("engine_spec")["lsr"].first().sort_values(ascending=False)
    print("largest stable rate (events/s):")
    for spec, v in lsr.head(3).items():
        print(f"  {spec:<32} {v:10.0f}")
    for rate, best in ran[ran["best"]].groupby("rate")["engine_spec"].first().items():
        print(f"best at {rate:g} ev/s: {best}")
    if out_dir is not None:
        from sim.tools.compare.report import write_out
        for p in write_out(cmp, out_dir):
            print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else None))

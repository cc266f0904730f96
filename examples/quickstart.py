"""cepsim quick start as a script (CI runs it: ``python examples/quickstart.py``).

1. generate a stream and compile a pattern;
2. run three strategies, check they find the same matches, compare their work;
3. queue each strategy's work at three arrival rates (counters are reused: engines are pure);
4. run a generic-scenario config from Python and print its claims.

Run from the repository root or anywhere else; pass an output directory as the first argument
(default: a temporary directory).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sim import api
from sim.experiments.claims import check_experiment
from sim.experiments.config import load_config

PATTERN = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events"


def main(out_dir: Path) -> int:
    stream = api.generate_stream("uniform", n_events=2000, seed=1, types="A,B,C", attrs="x")
    program = api.compile_pattern(PATTERN, stream)
    print(f"stream: {len(stream)} events, types {stream.schema.type_names}")

    results = {spec: api.run_engine(spec, program, stream)
               for spec in ("eager", "chain order=c,b,a", "tree")}
    n_matches = {spec: len(r.matches) for spec, r in results.items()}
    print("matches:", n_matches)
    if len(set(n_matches.values())) != 1:
        print("engines disagree!", file=sys.stderr)
        return 1
    print(f"{'engine':<20}{'pred_eval':>12}{'pm_created':>12}")
    for spec, r in results.items():
        t = api.counter_totals(r)
        print(f"{spec:<20}{t['pred_eval']:>12}{t['pm_created']:>12}")

    profile = api.load_profile()
    print(f"\n{'engine':<20}{'rate':>8}{'rho':>8}{'latency_mean (s)':>18}")
    from sim.core.simulate import simulate_counters
    for spec, r in results.items():
        for rate in (1e4, 5e4, 2e5):
            arr = api.arrivals(len(stream), rate=rate, seed=3)
            m = simulate_counters(r.counters, arr, profile, match_last_event=r.matches.last_event,
                                  match_detect=r.matches.detect, rate=rate).metrics
            flag = "" if m["stable"] else "  (overloaded)"
            print(f"{spec:<20}{rate:>8.0f}{m['offered_load']:>8.2f}{m['latency_mean']:>18.3g}{flag}")

    cfg_path = Path(__file__).resolve().parents[1] / "experiments/examples/engines_vs_rate.toml"
    df = api.run_config(cfg_path, scale="quick", out=out_dir,
                        overrides=["params.n_events=1500"])
    print(f"\nconfig run: {len(df)} rows, {int(df['error'].notna().sum())} failed")
    cfg = load_config(cfg_path)
    for name, res in check_experiment(cfg, df):
        print(f"  {'PASS' if res.passed else 'FAIL'}  {name}: {res.measured}")
    return 0 if df["error"].isna().all() else 1


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(main(Path(sys.argv[1])))
    with tempfile.TemporaryDirectory() as tmp:
        sys.exit(main(Path(tmp)))

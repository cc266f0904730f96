"""Cross-check cepsim's EIRES model against the authors' artifact, case by case.

For Q1 (the artifact's query P2) on DS1, policies x caches x the six strategies, prints p50 / p95
(us) and the ranking of the strategies side by side for

* cepsim (``sim.scenarios.eires.point``: profile ``eires_artifact``, utility ``artifact``, the
  artifact's metric ``lat_*``),
* the authors' committed measurements (``experiments/eires/artifact_dat``, always), and
* optionally a live run of the artifact: ``--artifact-dir`` = a checkout of zbjob/EIRES whose
  ``src/EIRES_{LRU,cost}_cache`` (and ``src/EIRES_BL3_{greedy,non-greedy}``) were built with
  their own Makefiles (``bin/cep_match``), ``--stream`` = its DS1 CSV
  (``data/synthetic_datasets/Stream_uniform_500K.csv``).  Each case runs with the flags of the
  artifact's ``run/run_synthetic.sh`` (``-q P2 -f 5 -L 10 -u 2000 -s``, ``-C 1 -Z 0`` for BL1,
  ``-C 2000`` otherwise, ``-Z 100 -A`` / ``-B`` / ``-A -B`` for PFetch / LzEval / Hybrid, ``-g``
  for greedy) on the first ``--events`` events, and its ``latency_<name>.csv`` (latency,count
  rows) is summarized as ``run/process-latency.py`` does.  The artifact needs about 7 threads.

The artifact is not a dependency of the package or of CI; nothing here is asserted.  The live
path was written against the artifact's scripts but has not been run in the session that wrote
it (the DS1 CSV is not in the stored snapshot).

    PYTHONPATH=$PWD python benchmarks/eires_crosscheck.py [--events 30000]
        [--artifact-dir /path/EIRES --stream /path/Stream_uniform_500K.csv]
"""
from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from sim.scenarios.eires import point
from sim.scenarios.eires_refs import STRATEGY_ROWS, dat_by_strategy, order

CASES = [("nongreedy", "cost"), ("nongreedy", "lru"), ("greedy", "cost"), ("greedy", "lru")]
DAT = {("nongreedy", "cost"): "result_latency_cost_non_greedy.dat",
       ("nongreedy", "lru"): "result_latency_LRU_non_greedy.dat",
       ("greedy", "cost"): "result_latency_cost_greedy.dat",
       ("greedy", "lru"): "result_latency_LRU_greedy.dat"}


def _artifact_cmd(root: Path, stream: Path, policy: str, cache: str, strategy: str,
                  events: int, name: str) -> list[str]:
    """The artifact's command line for one case (run/run_synthetic.sh)."""
    if strategy == "BL3":
        binary = root / "src" / ("EIRES_BL3_greedy" if policy == "greedy" else
                                 "EIRES_BL3_non-greedy") / "bin" / "cep_match"
    elif strategy == "BL1":
        binary = root / "src" / "EIRES_LRU_cache" / "bin" / "cep_match"
    else:
        binary = root / "src" / ("EIRES_cost_cache" if cache == "cost" else
                                 "EIRES_LRU_cache") / "bin" / "cep_match"
    cmd = [str(binary), "-F", str(stream), "-c", str(root / "run" / "synthetic.eql"), "-q", "P2",
           "-n", name, "-D", str(events), "-f", "5", "-L", "10", "-u", "2000", "-s",
           "-p", f"throughput_{name}.csv"]
    cmd += ["-C", "1", "-Z", "0"] if strategy in ("BL1", "BL3") else ["-C", "2000"]
    cmd += {"BL2": ["-Z", "0"], "PFetch": ["-Z", "100", "-A"], "LzEval": ["-Z", "100", "-B"],
            "Hybrid": ["-Z", "100", "-A", "-B"]}.get(strategy, [])
    if policy == "greedy" and strategy != "BL3":     # the BL3 binaries fix their policy
        cmd.append("-g")
    return cmd


def _latency_file_stats(path: Path) -> tuple[float, float]:
    """p50 / p95 of an artifact latency file (rows 'latency,count'), as process-latency.py."""
    data = np.loadtxt(path, delimiter=",", ndmin=2)
    lat = np.repeat(data[:, 0], data[:, 1].astype(int))
    return float(np.percentile(lat, 50)), float(np.percentile(lat, 95))


def run_artifact(root: Path, stream: Path, policy: str, cache: str, strategy: str,
                 events: int) -> tuple[float, float]:
    name = f"{strategy}_{policy}_{cache}"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = _artifact_cmd(root, stream, policy, cache, strategy, events, name)
        subprocess.run(cmd, cwd=tmp, check=True, capture_output=True, timeout=3600)
        return _latency_file_stats(Path(tmp) / f"latency_{name}.csv")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=30_000)
    ap.add_argument("--artifact-dir", type=Path, default=None)
    ap.add_argument("--stream", type=Path, default=None)
    a = ap.parse_args()
    if (a.artifact_dir is None) != (a.stream is None):
        ap.error("--artifact-dir and --stream go together")
    for policy, cache in CASES:
        ours = {}
        for st in STRATEGY_ROWS:
            row = point(dict(dataset="DS1", query="Q1", policy=policy, cache=cache, strategy=st,
                             n_events=a.events, bl3_greedy_events=a.events, v1_max=10_000,
                             cache_share=0.2, profile="eires_artifact", utility="artifact"), 1)
            ours[st] = (row["lat_p50"], row["lat_p95"])
        dat50 = dat_by_strategy(DAT[(policy, cache)], "p50")
        dat95 = dat_by_strategy(DAT[(policy, cache)], "p95")
        live = {}
        if a.artifact_dir is not None:
            for st in STRATEGY_ROWS:
                live[st] = run_artifact(a.artifact_dir, a.stream, policy, cache, st, a.events)
        print(f"\nQ1 DS1 {policy} {cache}, first {a.events} events (p50 / p95, us)")
        head = f"{'strategy':8s} {'cepsim':>20s} {'artifact dat':>20s}"
        print(head + (f" {'artifact live':>20s}" if live else ""))
        for st in STRATEGY_ROWS:
            line = (f"{st:8s} {ours[st][0]:9.1f} / {ours[st][1]:8.1f} "
                    f"{dat50[st]:9.1f} / {dat95[st]:8.1f}")
            if live:
                line += f" {live[st][0]:9.1f} / {live[st][1]:8.1f}"
            print(line)
        print("ranking cepsim:", order({k: v[0] for k, v in ours.items()}))
        print("ranking dat:   ", order(dat50))
        if live:
            print("ranking live:  ", order({k: v[0] for k, v in live.items()}))


if __name__ == "__main__":
    main()

"""The EIRES cross-check's live path without the artifact: the authors' stream format is read
as they read it, cepsim on such a file equals cepsim on the same events generated, and the
artifact's command lines and output files are built and parsed as its scripts do (a stand-in
``cep_match`` writes the two files the real one writes)."""
from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

from engines.errors import CepsimInputError
from sim.studies.eires.scenario import point
from workloads.eires import generate, load_artifact_csv

REPO = Path(__file__).resolve().parents[1]


def _crosscheck():
    spec = importlib.util.spec_from_file_location(
        "eires_crosscheck", REPO / "benchmarks" / "eires_crosscheck.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write_artifact_csv(path: Path, stream) -> None:
    """``stream`` in the artifact's row format: type,timestamp,id,v1,v2 (timestamp 1..N)."""
    names = stream.schema.type_names
    a = stream.attrs
    with path.open("w") as fh:
        for i in range(len(stream)):
            t = names[int(stream.types[i])]
            fh.write(f"{t},{i + 1},{int(a[i, 0])},{int(a[i, 1])},{int(a[i, 2])}\n")


def test_load_artifact_csv_reads_the_authors_columns(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("A,1,76,1316,0\nB,2,22,5328,0\nD,3,6,3836,0\nC,4,9,12,0\n")
    s = load_artifact_csv(f, 3)
    assert len(s) == 3
    assert [s.schema.type_names[int(t)] for t in s.types] == ["A", "B", "D"]
    np.testing.assert_array_equal(s.attrs[:, 0], [76, 22, 6])          # id = 3rd column
    np.testing.assert_array_equal(s.attrs[:, 1], [1316, 5328, 3836])   # v1 = 4th column
    np.testing.assert_array_equal(s.ts, [0, 1, 2])
    with pytest.raises(CepsimInputError, match="has 4 events, 5 asked"):
        load_artifact_csv(f, 5)
    (tmp_path / "bad.csv").write_text("A,1,76,1316,0\nE,2,1,1,0\n")
    with pytest.raises(CepsimInputError, match="bad.csv:2"):
        load_artifact_csv(tmp_path / "bad.csv", 2)
    with pytest.raises(CepsimInputError, match="not found"):
        load_artifact_csv(tmp_path / "none.csv", 1)


def test_point_on_the_stream_file_equals_point_on_the_same_events(tmp_path):
    n = 2500
    f = tmp_path / "ds1.csv"
    _write_artifact_csv(f, generate("DS1", n, 1, v1_max=10_000))
    base = dict(dataset="DS1", query="Q1", policy="nongreedy", cache="lru", strategy="BL1",
                n_events=n, v1_max=10_000, cache_share=0.2, profile="eires_artifact")
    a = point(base, 1)
    b = point(dict(base, stream_csv=str(f)), 1)
    assert a["n_matches"] > 0
    for k in ("n_matches", "blocking_fetches", "lat_p50", "lat_p95", "throughput"):
        assert a[k] == b[k], k
    # a different stream file gives a different run (the file is really read)
    f2 = tmp_path / "other.csv"
    _write_artifact_csv(f2, generate("DS1", n, 2, v1_max=10_000))
    c = point(dict(base, stream_csv=str(f2)), 1)
    assert (c["blocking_fetches"], c["lat_p50"]) != (a["blocking_fetches"], a["lat_p50"])


def _fake_build(root: Path) -> None:
    """Artifact variant directories whose cep_match writes what the real one writes."""
    script = f"""#!{sys.executable}
import sys
a = sys.argv[1:]
name = a[a.index("-n") + 1]
d = int(a[a.index("-D") + 1])
open("latency_" + name + ".csv", "w").write("10,3\\n20,1\\n400,1\\n")
open("results_" + name + ".txt", "w").write(
    "perform, 0loadshedding\\neventCn, %d\\n#FM, 5\\nexe-time-in-ms, 30\\n#block-fetch, 7\\n"
    % (d + 1))
"""
    for v in ("EIRES_LRU_cache", "EIRES_cost_cache", "EIRES_BL3_greedy", "EIRES_BL3_non-greedy"):
        b = root / v / "bin" / "cep_match"
        b.parent.mkdir(parents=True)
        b.write_text(script)
        b.chmod(b.stat().st_mode | stat.S_IEXEC)


def test_artifact_command_lines_follow_run_synthetic(tmp_path):
    cc = _crosscheck()
    _fake_build(tmp_path)
    s, e = tmp_path / "s.csv", tmp_path / "q.eql"

    def cmd(pol, cache, st):
        return cc.artifact_cmd(tmp_path, s, e, pol, cache, st, 30000, "x")

    c = cmd("greedy", "cost", "BL1")
    assert "EIRES_LRU_cache" in c[0] and c[c.index("-C") + 1] == "1" and "-g" in c
    assert c[c.index("-D") + 1] == "29999"        # the reader takes D+1 rows
    c = cmd("greedy", "lru", "BL3")
    assert "EIRES_BL3_greedy" in c[0] and "-g" not in c       # its getopt has no 'g'
    c = cmd("nongreedy", "cost", "Hybrid")
    assert "EIRES_cost_cache" in c[0] and "-A" in c and "-B" in c and "-g" not in c
    assert c[c.index("-Z") + 1] == "100" and c[c.index("-C") + 1] == "2000"
    c = cmd("nongreedy", "lru", "BL2")
    assert "EIRES_LRU_cache" in c[0] and c[c.index("-Z") + 1] == "0"
    with pytest.raises(FileNotFoundError, match="make"):
        cc.artifact_cmd(tmp_path / "none", s, e, "greedy", "cost", "BL2", 10, "x")


def test_run_artifact_parses_its_output_files(tmp_path):
    cc = _crosscheck()
    _fake_build(tmp_path)
    r = cc.run_artifact(tmp_path, tmp_path / "s.csv", tmp_path / "q.eql", "nongreedy", "lru",
                        "PFetch", 3000)
    assert r["p50"] == 10.0 and r["matches"] == 5 and r["blocking"] == 7
    assert r["events"] == 3000 and r["us_per_event"] == pytest.approx(30e3 / 3000)
    assert r["p95"] == pytest.approx(np.percentile([10, 10, 10, 20, 400], 95))


def test_free_fetches_mean_no_fetch_time_in_cepsim(tmp_path):
    """``--fetch-latency 0``: the artifact's sleep_for(0) returns at once, so cepsim's side has
    no latency and no overshoot - BL1's blocking fetches then cost nothing but their counter."""
    cc = _crosscheck()
    f = tmp_path / "ds1.csv"
    _write_artifact_csv(f, generate("DS1", 2500, 1, v1_max=10_000))
    free = cc.run_cepsim("nongreedy", "lru", "BL1", 2500, "eires_artifact", f, 0)
    paid = cc.run_cepsim("nongreedy", "lru", "BL1", 2500, "eires_artifact", f, 10)
    assert free["blocking"] == paid["blocking"] > 0
    assert free["p50"] < 10.0 < 66.0 < paid["p50"]
    assert free["us_per_event"] < paid["us_per_event"] / 5


def test_rankings_leave_out_runs_without_a_result():
    cc = _crosscheck()
    from sim.studies.eires.refs import order
    d = {"BL1": 12178.5, "BL3": float("nan"), "Hybrid": 120.0, "LzEval": 93.0}
    assert order(cc.finite(d)) == "LzEval < Hybrid < BL1"


def test_median_run_picks_the_middle_blocking_count():
    """Four runs with 5, 1, 3, 9 blocking fetches and a timed-out one (-1): the median run is the
    lower middle of the four finished ones (3); every run is kept under ``runs``."""
    runs = [{"p50": float(b), "p95": 0.0, "p99": 0.0, "blocking": b, "matches": 7}
            for b in (5, 1, -1, 3, 9)]
    m = _crosscheck().median_run(runs)
    assert m["blocking"] == 3 and m["p50"] == 3.0
    assert [r["blocking"] for r in m["runs"]] == [5, 1, -1, 3, 9]

"""``benchmarks/bench_reproduce.py`` refuses options that its mode would ignore (exit 2, the
flags named and the fix), before any work."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_reproduce.py"


@pytest.mark.parametrize("args, says", [
    (["--fresh", "--memory-budget-mb", "4096"],
     "--memory-budget-mb, --fresh: only with --pool"),
    (["--pool", "darling/seeds"], "paper/name keys select experiments of the serial pass only"),
])
def test_mode_mismatch_is_refused(tmp_path, args, says):
    out = tmp_path / "res"
    r = subprocess.run([sys.executable, str(BENCH), "--out", str(out)] + args,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert says in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()                  # nothing run, nothing written

"""benchmarks/perf_attribution.py: perf samples go to the point their process was running."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "perf_attribution.py"
_spec = importlib.util.spec_from_file_location("perf_attribution", _PATH)
PA = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(PA)

LIBPY = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0"
BLAS = "/x/numpy.libs/libscipy_openblas64_-32a4b2a6.so"


def _line(pid: int, tid: int, t: float, sym: str, dso: str) -> str:
    return f"{pid}/{tid} {t:.6f}:      7f00deadbeef {sym} ({dso})\n"


def test_samples_are_attributed_to_points_by_process_and_time(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in [
        {"config": "experiments/adaptive/fig7.toml", "pid": 10, "end": 110.0, "wall_s": 10.0},
        {"config": "experiments/apam/exp1.toml", "pid": 11, "end": 105.0, "wall_s": 5.0},
    ]) + "\n")
    samples = tmp_path / "s.txt"
    samples.write_text(
        _line(10, 10, 101.0, "[unknown]", "/tmp/perf-10.map")      # fig7, compiled code
        + _line(10, 10, 109.5, "_PyEval_EvalFrameDefault", LIBPY)  # fig7, interpreter
        + _line(10, 10, 111.0, "gc_collect_main", LIBPY)           # worker between points
        + _line(11, 12, 101.0, "blas_thread_server", BLAS)         # exp1, a spinning BLAS thread
        + _line(11, 11, 104.0, "clear_page_erms", "[kernel.kallsyms]")
        + _line(9, 9, 104.0, "deflate", "/usr/lib/libz.so.1")      # the parent
        + "not a sample line\n")
    got = PA.attribute(samples, log)
    assert got["adaptive/fig7"] == {"compiled": 1, "python": 1}
    assert got["outside points (worker)"] == {"python": 1}
    assert got["apam/exp1"] == {"blas thread spin": 1, "os": 1}
    assert got["other processes"] == {"other": 1}
    text = PA.table(got, hz=1.0)
    assert "| **total** | 6 |" in text
    assert "compiled 1, python 2" in text


def test_kinds():
    assert PA.kind_of("[JIT] tid 5", "x") == "compiled"
    assert PA.kind_of(BLAS, "dgemv_kernel_4x4") == "blas"
    assert PA.kind_of("/x/llvmlite/binding/libllvmlite.so", "x") == "llvm"
    assert PA.kind_of("/x/numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
                      "x") == "numpy"
    assert PA.kind_of("/usr/lib/x86_64-linux-gnu/libc.so.6", "memcpy") == "other"
    assert PA.kind_of("/root/.pyenv/versions/3.11.7/bin/python3.11", "x") == "python"


def test_bad_input_is_a_clear_error(tmp_path):
    import subprocess
    import sys
    missing = subprocess.run([sys.executable, str(_PATH), str(tmp_path / "none.txt"),
                              str(tmp_path / "log.jsonl")], capture_output=True, text=True)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    assert "Traceback" not in missing.stderr
    (tmp_path / "s.txt").write_text(_line(1, 1, 1.0, "x", LIBPY))
    (tmp_path / "log.jsonl").write_text("{not json\n")
    bad = subprocess.run([sys.executable, str(_PATH), str(tmp_path / "s.txt"),
                          str(tmp_path / "log.jsonl")], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a bench_reproduce.py --log file" in bad.stderr
    assert "Traceback" not in bad.stderr

"""The Python API's docstring examples (doctest) and the example script CI executes."""
from __future__ import annotations

import doctest
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCTEST_MODULES = ("sim.api", "sim.core.metrics", "sim.experiments.staleness", "workloads.generators",
                   "sim.studies.generic.scenario")


@pytest.mark.parametrize("name", DOCTEST_MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", "")
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0, f"{name} has no docstring examples"
    assert res.failed == 0


def test_example_script_runs(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               CEPSIM_COUNTER_CACHE="")
    r = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py"), str(tmp_path)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "matches:" in r.stdout and "config run: 8 rows, 0 failed" in r.stdout
    assert (tmp_path / "examples" / "engines_vs_rate@params.n_events=1500" / "points.parquet").is_file()


def test_api_doc_example_runs(tmp_path, monkeypatch):
    """The code block of docs/API.md runs as written (from another directory, results under a
    temporary root instead of /tmp/res)."""
    import re

    text = (REPO / "docs" / "API.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "docs/API.md has no python example"
    code = blocks[0].replace('"/tmp/res"', repr(str(tmp_path / "res")))
    monkeypatch.setenv("CEPSIM_COUNTER_CACHE", "")
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(code, "docs/API.md", "exec"), ns)
    assert ns["res"].metrics["matches"] == len(ns["eager"].matches) > 0
    assert len(ns["df"]) == 8

"""What keeps cepsim working on every Python that ``pyproject.toml`` names (>= 3.10): the standard
library's TOML reader only exists from 3.11, so every reader falls back to ``tomli``; pools never
fork by default; CI runs the oldest and the newest supported version."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _python_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard",
                          "*.py"], cwd=REPO, capture_output=True, check=True).stdout
    return [REPO / n for n in out.decode().split("\0") if n and (REPO / n).is_file()]


def _guarded(tree: ast.Module, node: ast.AST) -> bool:
    """``node`` (an ``import tomllib``) sits in a ``try`` whose handler imports ``tomli``."""
    for t in ast.walk(tree):
        if isinstance(t, ast.Try) and any(node is n for b in t.body for n in ast.walk(b)):
            for h in t.handlers:
                names = [a.name for n in ast.walk(h) if isinstance(n, ast.Import) for a in n.names]
                if "tomli" in names:
                    return True
    return False


def test_every_tomllib_import_falls_back_to_tomli():
    """``import tomllib`` fails on Python 3.10; each one must sit in a ``try`` that imports
    ``tomli`` (the conditional dependency in pyproject.toml) instead."""
    bad = []
    for path in _python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                    else [node.module] if isinstance(node, ast.ImportFrom) else [])
            if "tomllib" in mods and not _guarded(tree, node):
                bad.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not bad, "tomllib imported without the tomli fallback (Python 3.10):\n" + "\n".join(bad)


def test_pyproject_declares_tomli_for_the_versions_without_tomllib():
    text = (REPO / "pyproject.toml").read_text()
    oldest = re.search(r'requires-python\s*=\s*">=\s*3\.(\d+)"', text)
    assert oldest, "pyproject.toml names no requires-python lower bound"
    if int(oldest.group(1)) < 11:
        assert re.search(r'"tomli[^"]*;\s*python_version\s*<\s*\'3\.11\'"', text), \
            "pyproject.toml supports Python < 3.11 but does not depend on tomli there"


def test_ci_runs_the_oldest_supported_python():
    oldest = re.search(r'requires-python\s*=\s*">=\s*(3\.\d+)"',
                       (REPO / "pyproject.toml").read_text()).group(1)
    assert f"python{oldest}" in (REPO / ".ci" / "run").read_text()


def test_no_module_starts_a_pool_with_an_explicit_fork():
    """Pools take their start method from ``sim.experiments.sweep.pool_context`` (forkserver or
    spawn; fork only when the user asks for it), never a hard-coded ``"fork"``."""
    bad = []
    for path in _python_files():
        if path.parts[-2] == "tests":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""get_context\(\s*["']fork["']|set_start_method\(\s*["']fork["']|"""
                         r"""os\.fork\(""", line):
                bad.append(f"{path.relative_to(REPO)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the fallback path runs on Python 3.10")
def test_configs_read_with_tomli_on_this_python():
    from sim.experiments.config import load_config
    cfg = load_config(REPO / "experiments" / "demo" / "basic.toml")
    assert cfg.name == "basic"

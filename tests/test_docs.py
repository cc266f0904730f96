"""The docs are self-contained: every repository path that docs, docstrings, comments and
configs mention exists, and nothing points outside the repository (a clone has nothing else)."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOP = ("engines", "sim", "workloads", "experiments", "paper_figs", "benchmarks", "docs",
       "examples", "tests")
PATH_RE = re.compile(r"(?<![\w./-])((?:%s)/[\w./\[\]-]*)" % "|".join(TOP))
LINK_RE = re.compile(r"\]\(([^)#\s]+)")
# assembled so that this file does not match itself
OUTSIDE = ("../" + "shared", "DESIGN" + " section", "DESIGN" + ".md")
SKIP_DIRS = {".git", "results", "__pycache__", ".numba_cache", ".cepsim_cache", ".pytest_cache",
             ".hypothesis", "build", "dist", ".venv", "venv"}


def _repository_files() -> list[Path]:
    """The repository's own files: tracked ones plus new files git does not ignore (``git
    ls-files``), so a virtual environment, a results run or a Numba cache in the checkout is never
    read.  Outside a git checkout (an unpacked archive) the tree is walked without ``SKIP_DIRS``."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=REPO, capture_output=True, check=True).stdout
        return [REPO / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in REPO.rglob("*")
                if not SKIP_DIRS & set(p.relative_to(REPO).parts[:-1])]


def _files() -> list[Path]:
    out = []
    for p in _repository_files():
        if p.suffix not in (".md", ".py", ".toml") or not p.is_file():
            continue
        if SKIP_DIRS & set(p.relative_to(REPO).parts[:-1]) or p.name == Path(__file__).name:
            continue
        out.append(p)
    return sorted(out)


def _refs(text: str, code: bool = False) -> set[str]:
    refs = set()
    for m in PATH_RE.finditer(text):
        if text[m.end():m.end() + 1] in ("<", "*", "{"):  # a template or glob, not a path
            continue
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end())]
        if code and "tmp" in line:  # a path a test builds under its temporary directory
            continue
        ref = m.group(1).split("...")[0].rstrip(".,;:)'\"`]")
        refs.add(ref)
    return refs


def _exists(ref: str) -> bool:
    p = REPO / ref
    if p.exists():
        return True
    # a config named the CLI way, <paper>/<name> (e.g. examples/engines_vs_rate)
    if (REPO / "experiments" / f"{ref}.toml").is_file():
        return True
    # a module reference written without its extension, e.g. engines/registry
    return p.with_suffix(".py").exists()


def test_no_reference_outside_the_repository():
    bad = [f"{p.relative_to(REPO)}: {needle!r}" for p in _files()
           for needle in OUTSIDE if needle in p.read_text(encoding="utf-8", errors="replace")]
    assert not bad, "references to files a clone does not have:\n" + "\n".join(bad)


def test_every_mentioned_repository_path_exists():
    missing = []
    # test modules build throw-away experiment trees under tmp_path; their paths are not docs
    for p in (f for f in _files() if f.relative_to(REPO).parts[0] != "tests"):
        text = p.read_text(encoding="utf-8", errors="replace")
        for ref in _refs(text, code=p.suffix == ".py"):
            if not _exists(ref):
                missing.append(f"{p.relative_to(REPO)}: {ref}")
        if p.suffix == ".md":
            for link in LINK_RE.findall(text):
                if "://" in link or link.startswith("mailto:"):
                    continue
                if not (p.parent / link).exists() and not (REPO / link).exists():
                    missing.append(f"{p.relative_to(REPO)}: link {link}")
    assert not missing, "paths that do not exist:\n" + "\n".join(sorted(missing))


@pytest.mark.parametrize("doc", ["ARCHITECTURE.md", "SEMANTICS.md", "COST_MODEL.md",
                                 "EXPERIMENTS.md", "EXTENDING.md", "API.md", "ENGINEERING.md"])
def test_docs_index_documents_exist_and_are_linked(doc):
    assert (REPO / "docs" / doc).is_file()
    assert f"docs/{doc}" in (REPO / "docs" / "ARCHITECTURE.md").read_text()


def test_checker_catches_a_missing_path():
    assert "engines/no_such_engine.py" in _refs("see `engines/no_such_engine.py` for details")
    assert not _exists("engines/no_such_engine.py") and _exists("engines/registry")


def test_readme_claims_table_matches_the_claims_file():
    """The README's claims table is generated from docs/reproduction/claims_quick.md."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, str(REPO / "tools" / "readme_claims_table.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr

"""Run one timing snippet under an older git revision and under this checkout, side by side.

A benchmark passes a self-contained Python ``snippet`` that prints one JSON object on stdout.
``against_revision`` checks ``rev`` out into a temporary worktree (its own Numba cache), runs the
snippet there and here in fresh processes, alternating ``rounds`` times (the first round also
fills the caches), and returns both sides' outputs of every round, so the caller can keep the
best time per case.  Used by ``bench_match.py --baseline`` and ``bench_lazy.py --baseline``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def against_revision(rev: str, snippet: str, args: list[str], rounds: int = 2
                     ) -> dict[str, list[dict]]:
    """``{"old": [json per round], "new": [...]}`` of ``snippet`` run with ``args``."""
    out: dict[str, list[dict]] = {"old": [], "new": []}
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", "--quiet",
                       f"{rev}^{{commit}}"], capture_output=True).returncode != 0:
        raise SystemExit(f"--baseline {rev!r}: not a commit of this repository ({REPO}); give a "
                         f"commit id or branch name, e.g. --baseline 908e87c")
    with tempfile.TemporaryDirectory() as tmp:
        wt = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-f", str(wt), rev],
                       check=True, capture_output=True)
        try:
            for _ in range(rounds):
                for tag, root in (("old", wt), ("new", REPO)):
                    env = dict(os.environ, PYTHONPATH=str(root),
                               NUMBA_CACHE_DIR=str(Path(tmp) / f"numba_{tag}"))
                    proc = subprocess.run([sys.executable, "-c", snippet, *args], env=env,
                                          cwd=root, capture_output=True, text=True)
                    if proc.returncode != 0:
                        raise RuntimeError(f"{tag} ({rev if tag == 'old' else 'checkout'}) "
                                           f"failed:\n{proc.stderr[-2000:]}")
                    out[tag].append(json.loads(proc.stdout.strip().splitlines()[-1]))
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(wt)],
                           capture_output=True)
    return out


def best_of(runs: dict[str, list[dict]], case: str) -> tuple[float, float]:
    """Best (smallest) CPU seconds of ``case`` under the revision and under this checkout, for
    snippets whose JSON maps each case to ``[cpu_s, ...]``."""
    return (min(r[case][0] for r in runs["old"]), min(r[case][0] for r in runs["new"]))

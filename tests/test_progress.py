"""Progress display: a live bar under a pseudo-terminal (rich, present on a fresh install as a
typer dependency), one summary line when stderr is not a terminal."""
from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time

from sim.progress import Progress


def test_summary_line_when_not_a_terminal():
    buf = io.StringIO()
    with Progress(5, desc="exp/x", stream=buf) as p:
        for _ in range(5):
            p.update(1)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("exp/x: 5/5 points in ")


def test_silent_when_disabled():
    buf = io.StringIO()
    with Progress(3, desc="x", enabled=False, stream=buf) as p:
        p.update(3)
    assert buf.getvalue() == ""


def test_bar_under_a_pseudo_terminal(tmp_path, repo_root):
    """`cepsim run` with stderr on a pty draws a bar (terminal control codes and N/N)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(repo_root), COLUMNS="100", TERM="xterm")
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "run", "demo/basic", "--scale",
                             "quick", "--out", str(tmp_path / "res"), "--figures-dir",
                             str(tmp_path / "figs")], cwd=repo_root, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    deadline = time.time() + 300
    while time.time() < deadline:
        r, _, _ = select.select([master], [], [], 1.0)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    os.close(master)
    text = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, text
    assert "demo/basic" in text and "\x1b[" in text      # drawn with terminal control codes
    assert "━" in text and "points" in text

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

from sim.experiments.progress import Progress


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


def _run_on_pty(args: list[str], repo_root) -> tuple[int, str]:
    """Run ``python -m sim.cli ARGS`` with stderr on a pseudo-terminal; (exit code, stderr)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(repo_root), COLUMNS="100", TERM="xterm")
    proc = subprocess.Popen([sys.executable, "-m", "sim.cli", *args], cwd=repo_root, env=env,
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
    return proc.returncode, text


def test_bar_under_a_pseudo_terminal(tmp_path, repo_root):
    """`cepsim run` with stderr on a pty draws a bar (terminal control codes and N/N)."""
    code, text = _run_on_pty(["run", "demo/basic", "--scale", "quick", "--out",
                              str(tmp_path / "res"), "--figures-dir", str(tmp_path / "figs")],
                             repo_root)
    assert code == 0, text
    assert "demo/basic" in text and "\x1b[" in text      # drawn with terminal control codes
    assert "━" in text and "points" in text


def _stream_files(tmp_path):
    from csv_streams import write_abc_csv
    return write_abc_csv(tmp_path, n=400, seed=3)


_MATCH_PAT = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x AND b.x < c.x WITHIN 20 events"


def test_match_progress_under_a_pseudo_terminal(tmp_path, repo_root):
    """`cepsim match --progress` on a terminal draws stage progress on stderr; the output file
    holds only the matches."""
    data, schema = _stream_files(tmp_path)
    out = tmp_path / "m.jsonl"
    code, text = _run_on_pty(["match", _MATCH_PAT, str(data), "--format", "csv", "--schema",
                              str(schema), "--out", str(out), "--progress"], repo_root)
    assert code == 0, text
    assert "\x1b[" in text and "stages" in text and "match: " in text
    lines = out.read_text().splitlines()
    assert lines and all(ln.startswith("{") and ln.endswith("}") for ln in lines)


def test_match_progress_off_a_terminal(tmp_path):
    """Off a terminal: silent by default (small input), one line per stage with --progress."""
    from typer.testing import CliRunner

    from sim.cli import app
    data, schema = _stream_files(tmp_path)
    args = ["match", _MATCH_PAT, str(data), "--format", "csv", "--schema", str(schema), "--out",
            str(tmp_path / "m.jsonl")]
    quiet = CliRunner().invoke(app, args)
    assert quiet.exit_code == 0 and "match: " not in quiet.stderr
    loud = CliRunner().invoke(app, args + ["--progress"])
    assert loud.exit_code == 0
    for stage in ("loading", "compiling", "evaluating", "writing"):
        assert f"match: {stage}" in loud.stderr
    assert "match: " not in loud.stdout
    assert (tmp_path / "m.jsonl").read_text() == _rerun_output(args, tmp_path)


def _rerun_output(args, tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app
    out2 = tmp_path / "m2.jsonl"
    CliRunner().invoke(app, args[:-1] + [str(out2), "--no-progress"])
    return out2.read_text()

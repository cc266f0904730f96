"""The README's commands stay runnable.

Every ``cepsim`` command line in a fenced ``bash`` block of ``README.md`` must name an existing
command and only options that command's ``--help`` lists; the one-example-per-command lines
(``match``, ``run``, ``sweep``, ``report``) are run for real, in-process, with their outputs
redirected under the test's temporary directory (``--out``), one worker for the sweep."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _readme_commands() -> list[list[str]]:
    """Every ``cepsim ...`` command of the README's bash blocks, as argument lists."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    cmds = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" # ")[0].strip()
            for part in line.split("&&"):
                words = shlex.split(part.strip())
                if words and words[0] == "cepsim":
                    cmds.append(words[1:])
    return cmds


COMMANDS = _readme_commands()


def test_readme_has_one_example_per_command():
    named = {c[0] for c in COMMANDS}
    assert {"reproduce", "match", "run", "sweep", "report"} <= named, named


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:60])
def test_readme_command_uses_known_options(args):
    top = runner.invoke(app, ["--help"])
    assert top.exit_code == 0 and re.search(rf"^\s+{args[0]}\s", top.stdout, re.M), args[0]
    sub = runner.invoke(app, [args[0], "--help"])
    assert sub.exit_code == 0, sub.output
    for opt in (a.split("=")[0] for a in args[1:] if a.startswith("--")):
        assert re.search(rf"(^|[\s,/]){re.escape(opt)}([\s,/=]|$)", sub.stdout, re.M), \
            f"README: `cepsim {' '.join(args)}`: {opt} is not an option of `cepsim {args[0]}`"


def _redirect(args: list[str], tmp: Path) -> list[str]:
    """The command with its outputs under ``tmp`` (and one worker)."""
    out = list(args)
    if "--workers" in out:
        out[out.index("--workers") + 1] = "1"
    target = str(tmp / "matches.jsonl") if out[0] == "match" else str(tmp / "results")
    if "--out" in out:
        out[out.index("--out") + 1] = target
    else:
        out += ["--out", target]
    return out


def test_readme_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    order = {"match": 0, "run": 1, "sweep": 2, "report": 3}
    ran = []
    for args in sorted((c for c in COMMANDS if c[0] in order), key=lambda c: order[c[0]]):
        r = runner.invoke(app, _redirect(args, tmp_path))
        assert r.exit_code == 0, f"README: `cepsim {' '.join(args)}` failed:\n{r.output}"
        ran.append(args[0])
    assert ran == ["match", "run", "sweep", "report"], ran
    assert (tmp_path / "matches.jsonl").stat().st_size > 0
    assert (tmp_path / "results" / "report" / "index.html").is_file()

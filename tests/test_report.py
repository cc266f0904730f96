"""``cepsim report``: the HTML page lists every claim row and every figure, and (with Debian's
chromium, which .ci/run installs) every figure actually renders in a headless browser."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def report(tmp_path_factory, repo_root):
    tmp = tmp_path_factory.mktemp("report")
    res, figs = tmp / "res", tmp / "figs"
    for name in ("demo/basic", "demo/strict"):
        r = runner.invoke(app, ["run", name, "--scale", "quick", "--out", str(res),
                                "--figures-dir", str(figs)])
        assert r.exit_code in (0, 1), r.output + r.stderr
    r = runner.invoke(app, ["report", "--out", str(res), "--figures-dir", str(figs)])
    assert r.exit_code == 0, r.output + r.stderr
    return tmp, res / "report" / "index.html", figs


def test_report_lists_every_claim_and_figure(report, repo_root):
    from sim.experiments.config import load_config
    _, page, figs = report
    text = page.read_text()
    n_claims = n_figs = 0
    for name in ("basic", "strict"):
        cfg = load_config(repo_root / f"experiments/demo/{name}.toml")
        n_claims += len(cfg.claims)
        n_figs += len(cfg.figures)
        for c in cfg.claims:
            assert c.name in text
    assert text.count('class="claim-row"') == n_claims
    imgs = re.findall(r'<img src="([^"]+)"', text)
    assert len(imgs) == n_figs > 0
    for src in imgs:
        assert (page.parent / src).stat().st_size > 0          # images beside the page
    assert "FAIL" in text and "PASS" in text                  # strict fails, basic passes
    md = (page.parent / "reproduction.md").read_text()
    assert "`demo/basic`" in md and "`demo/strict`" in md


def test_report_on_empty_results_exits_2(tmp_path):
    r = runner.invoke(app, ["report", "--out", str(tmp_path / "none")])
    assert r.exit_code == 2 and "no stored results" in r.stderr


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium (.ci/run installs it)")
def test_report_renders_in_headless_chromium(report, tmp_path):
    _, page, _ = report
    out = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                          "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    dom = out.stdout
    loaded = re.search(r'data-images-loaded="(\d+)"', dom)
    total = re.search(r'data-images-total="(\d+)"', dom)
    assert loaded and total, out.stderr[-2000:]
    assert int(total.group(1)) > 0 and loaded.group(1) == total.group(1)
    assert dom.count('class="claim-row"') == page.read_text().count('class="claim-row"')


def test_full_scale_roots_and_report_beside_quick(tmp_path, repo_root, monkeypatch):
    """``--scale full`` defaults to results/full and paper_figs/full (beside, never over, the
    quick roots); ``report --scale full`` shows the quick verdicts and figures next to them."""
    (tmp_path / "experiments" / "demo").mkdir(parents=True)
    shutil.copy(repo_root / "experiments/demo/basic.toml", tmp_path / "experiments/demo/")
    monkeypatch.chdir(tmp_path)
    for scale in ("quick", "full"):
        r = runner.invoke(app, ["run", "demo/basic", "--scale", scale])
        assert r.exit_code in (0, 1), r.output + r.stderr
    assert (tmp_path / "results/demo/basic/points.parquet").is_file()
    assert (tmp_path / "results/full/demo/basic/points.parquet").is_file()
    assert (tmp_path / "paper_figs/demo/basic_mean.png").is_file()
    assert (tmp_path / "paper_figs/full/demo/basic_mean.png").is_file()
    r = runner.invoke(app, ["report", "--scale", "full"])
    assert r.exit_code == 0, r.output + r.stderr
    page = tmp_path / "results/full/report/index.html"
    text = page.read_text()
    assert "paper claims passed (quick)" in text
    imgs = re.findall(r'<img src="([^"]+)"', text)
    assert sorted(imgs) == ["img/demo/basic_mean.png", "img/quick/demo/basic_mean.png"]
    assert "basic_mean (full)" in text and "basic_mean (quick)" in text
    assert text.count('class="claim-row"') == 2 and text.count("<th>quick</th>") == 1
    r = runner.invoke(app, ["report", "--scale", "huge"])
    assert r.exit_code == 2 and "--scale" in r.stderr


def test_figures_link_to_full_size_and_configs_are_toml(report, repo_root):
    """Every figure is wrapped in a link to its own full-size file (the page caps the width);
    every experiment's config is shown as TOML that parses back to the stored config's
    name, paper and claims."""
    import html
    import json
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    _, page, _ = report
    text = page.read_text()
    imgs = re.findall(r'<img src="([^"]+)"', text)
    links = re.findall(r'<a href="([^"]+)" title="full-size image"><img src="([^"]+)"', text)
    assert len(links) == len(imgs) > 0 and all(a == b for a, b in links)
    blocks = re.findall(r"<summary>config as run \(TOML\)</summary><pre>(.*?)</pre>", text,
                        re.S)
    assert len(blocks) == 2
    res = page.parent.parent
    for block in blocks:
        conf = tomllib.loads(html.unescape(block))
        meta = json.loads((res / conf["paper"] / conf["name"] / "meta.json").read_text())
        assert conf["title"] == meta["config"]["title"]
        assert [c["name"] for c in conf["claims"]] == [c["name"] for c in meta["config"]["claims"]]


def test_dirty_commit_names_its_files(tmp_path):
    """A ``+dirty`` commit is shown with the modified files meta.json recorded; a clean one
    alone; ``git_dirty_files`` lists exactly the tracked files changed in a throwaway repo."""
    from sim.experiments.report import _commit_cell
    from sim.experiments.results import git_commit, git_dirty_files
    assert _commit_cell({"git_commit": "abc"}) == "abc"
    assert _commit_cell({"git_commit": "abc+dirty", "git_dirty_files": ["a.py", "b.md"]}) == \
        "abc+dirty (modified: a.py, b.md)"
    if shutil.which("git") is None:
        pytest.skip("needs git")
    env = ["-c", "user.email=t@t", "-c", "user.name=t"]
    for cmd in (["init", "-q"], ["add", "."], [*env, "commit", "-q", "-m", "x"]):
        if cmd == ["add", "."]:
            (tmp_path / "a.txt").write_text("1")
            (tmp_path / "b.txt").write_text("1")
        subprocess.run(["git", *cmd], cwd=tmp_path, check=True, capture_output=True)
    assert git_dirty_files(tmp_path) == [] and not git_commit(tmp_path).endswith("+dirty")
    (tmp_path / "b.txt").write_text("2")
    (tmp_path / "new.txt").write_text("untracked")
    assert git_dirty_files(tmp_path) == ["b.txt"] and git_commit(tmp_path).endswith("+dirty")

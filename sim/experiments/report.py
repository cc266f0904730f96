"""``cepsim report``: a browsable reproduction report from stored results.

Writes ``<report_dir>/index.html`` (one self-contained page: inline CSS, no network) with the
images copied beside it (``img/<paper>/<figure>.png``) and ``reproduction.md`` (the README's
reproduction table, generated from the same data).  Per paper and experiment: its figures, the
claims table (PASS/FAIL with the measured numbers next to the paper's, as each claim prints
them), the config as resolved by the run (as TOML), scale, base seed, backend, rows, package
versions and git commit (from ``meta.json``; a ``+dirty`` commit with the modified files it
recorded).  Each figure links to its full-size image (the page shows it at most 520 px
wide).  Everything is read from the results root; nothing runs.

A *companion* reproduction (``cepsim report --scale full`` shows the quick-scale results beside
the full ones) adds, per experiment it also has: its figures next to the main ones, its verdict
and measured numbers in the claims table, and its claim count in the summary.

A small inline script counts the images that loaded and writes the count into
``<body data-images-loaded=... data-images-total=...>`` so a headless browser test can check
that every figure rendered.
"""
from __future__ import annotations

import html
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from sim.atomic import atomic_write_text

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:.25em .5em;
vertical-align:top;text-align:left}th{background:#f3f3f3}.PASS{color:#16701f;font-weight:bold}
.FAIL{color:#b00020;font-weight:bold}figure{display:inline-block;margin:.5em}
figure img{max-width:520px;border:1px solid #ddd}pre{background:#f7f7f7;padding:.6em;
overflow:auto;font-size:.85em}.meta td:first-child{font-weight:bold}
.REPORT{color:#555;font-style:italic}.quote{color:#555;font-size:.9em;margin-top:.2em}
"""

_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; }
  document.body.setAttribute('data-images-loaded', ok);
  document.body.setAttribute('data-images-total', imgs.length);
});
"""


def _e(x) -> str:
    return html.escape(str(x))


@dataclass
class Companion:
    """A second reproduction shown beside the report's own (e.g. quick beside full)."""
    label: str              # its name in headers and captions, e.g. "quick"
    found: list             # [(cfg, df)] with stored results
    figs_root: Path         # where its figures are
    out_root: Path          # its results root (meta.json)


def _figure(src: Path, img_dir: Path, report_dir: Path, sub: str, caption: str) -> Optional[str]:
    """Copy one figure beside the page; its ``<figure>`` element, or None when not drawn."""
    if not src.exists():
        return None
    dst = img_dir / sub / src.name
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)
    rel = dst.relative_to(report_dir).as_posix()
    return (f'<figure><a href="{_e(rel)}" title="full-size image"><img src="{_e(rel)}" '
            f'alt="{_e(caption)}"></a>'
            f'<figcaption>{_e(caption)} (<a href="{_e(rel)}">full size</a>)</figcaption></figure>')


def config_toml(conf: dict) -> str:
    """The config as TOML (the form it is written in); values TOML cannot hold (None) are left
    out, as a TOML config leaves them out.  Falls back to JSON when the dict is not TOML
    (e.g. a list mixing tables and values)."""
    import tomli_w

    def clean(v):
        if isinstance(v, dict):
            return {str(k): clean(x) for k, x in v.items() if x is not None}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v if x is not None]
        if isinstance(v, (str, int, float, bool)):
            return v
        return str(v)
    try:
        return tomli_w.dumps(clean(conf))
    except (TypeError, ValueError):
        return json.dumps(conf, indent=2, default=str)


def _commit_cell(meta: dict) -> str:
    """``git commit`` cell: the commit, and for a ``+dirty`` one the modified files recorded."""
    commit = meta.get("git_commit")
    files = meta.get("git_dirty_files")
    if commit and str(commit).endswith("+dirty") and files:
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        return f"{commit} (modified: {shown})"
    return str(commit)


def build_report(found, figs_root: Path, report_dir: Path, out_root: Path,
                 companion: Optional[Companion] = None, label: str = "") -> Path:
    """Write the report for ``found`` = [(cfg, df)] (configs with stored results); with a
    ``companion``, its results of the same experiments are shown beside them."""
    from sim.experiments import results
    from sim.experiments.claims import KIND_ORDER, claim_rows, kind_counts

    report_dir = Path(report_dir)
    img_dir = report_dir / "img"
    if img_dir.exists():
        shutil.rmtree(img_dir)
    other = {cfg.key: (cfg, df) for cfg, df in companion.found} if companion else {}
    body: list[str] = []
    summary: list[tuple] = []
    by_paper: dict[str, list] = {}
    for cfg, df in found:
        by_paper.setdefault(cfg.paper, []).append((cfg, df))
    commit = versions = python = None
    for paper in sorted(by_paper):
        body.append(f'<h2 id="{_e(paper)}">{_e(paper)}</h2>')
        for cfg, df in by_paper[paper]:
            meta = results.read_meta(out_root, cfg) or {}
            commit = commit or meta.get("git_commit")
            versions = versions or meta.get("versions")
            python = python or meta.get("python")
            claims = claim_rows(cfg, df)
            paper_rows = [r for r in claims if r.kind == "paper"]
            n_pass = sum(1 for r in paper_rows if r.result.passed)
            twin = other.get(cfg.key)
            twin_rows = claim_rows(twin[0], twin[1]) if twin else []
            twin_claims = {r.claim: r for r in twin_rows}
            twin_paper = [r for r in twin_rows if r.kind == "paper"]
            twin_count = (f"{sum(r.result.passed for r in twin_paper)} of {len(twin_paper)}"
                          if twin else "")
            others = kind_counts(claims, KIND_ORDER[1:]) or "-"
            summary.append((cfg.key, cfg.title, meta.get("scale"), meta.get("rows", len(df)),
                            meta.get("failed_rows", 0), n_pass, len(paper_rows), twin_count,
                            others))
            body.append(f'<h3 id="{_e(cfg.key)}">{_e(cfg.key)}: {_e(cfg.title)}</h3>')
            body.append('<table class="meta">' + "".join(
                f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in (
                    ("config", meta.get("config_path") or cfg.path),
                    ("scale", meta.get("scale")), ("base seed", meta.get("base_seed", cfg.seed)),
                    ("backend", meta.get("backend")), ("rows", meta.get("rows")),
                    ("failed rows", meta.get("failed_rows")),
                    ("git commit", _commit_cell(meta)))) + "</table>")
            figs = []
            for f in cfg.figures:
                mine = _figure(Path(figs_root) / cfg.paper / f"{f.name}.png", img_dir,
                               report_dir, cfg.paper, f"{f.name} ({label})" if twin else f.name)
                if mine is None:
                    figs.append(f'<p class="missing">figure {_e(f.name)} not drawn yet '
                                f"(run <code>cepsim figures {_e(cfg.name)}</code>)</p>")
                    continue
                figs.append(mine)
                if twin:
                    theirs = _figure(Path(companion.figs_root) / cfg.paper / f"{f.name}.png",
                                     img_dir, report_dir, f"{companion.label}/{cfg.paper}",
                                     f"{f.name} ({companion.label})")
                    figs.append(theirs or "")
            body.extend(figs)
            if claims:
                head_twin = (f"<th>{_e(companion.label)}</th><th>measured "
                             f"({_e(companion.label)})</th>") if twin else ""
                mine_label = f" ({_e(label)})" if twin else ""
                body.append(f"<table class=\"claims\"><tr><th>kind</th><th>claim</th>"
                            f"<th>result{mine_label}</th><th>measured{mine_label} (paper)</th>"
                            f"{head_twin}</tr>")
                specs = {c.name: c for c in cfg.claims}
                for row in claims:
                    verdict = row.verdict
                    cells = ""
                    if twin:
                        t = twin_claims.get(row.claim)
                        tv = "" if t is None else t.verdict
                        cells = (f'<td class="{tv}">{tv or "-"}</td>'
                                 f"<td>{_e(t.result.measured) if t is not None else ''}</td>")
                    spec = specs.get(row.claim)
                    quote = (f'<div class="quote">&ldquo;{_e(spec.quote)}&rdquo; '
                             f"({_e(spec.section)})</div>" if spec and spec.quote else "")
                    body.append(f'<tr class="claim-row"><td>{_e(row.kind)}</td>'
                                f"<td>{_e(row.claim)}{quote}</td>"
                                f'<td class="{verdict}">{verdict}</td>'
                                f"<td>{_e(row.result.measured)}</td>{cells}</tr>")
                body.append("</table>")
            conf = meta.get("config") or cfg.to_dict()
            body.append("<details><summary>config as run (TOML)</summary><pre>"
                        + _e(config_toml(conf)) + "</pre></details>")
    extra = f" paper claims passed ({companion.label}) |" if companion else ""
    table_md = ["| experiment | title | scale | rows | failed rows | paper claims passed | "
                "other claims |" + extra, "|---|---|---|---|---|---|---|" + ("---|" if companion else "")]
    table_md += [f"| `{k}` | {t} | {s} | {r} | {f} | {p} of {n} | {o} |"
                 + (f" {c} |" if companion else "")
                 for k, t, s, r, f, p, n, c, o in summary]
    n_paper = sum(x[6] for x in summary)
    n_paper_pass = sum(x[5] for x in summary)
    head = ["<h1>cepsim reproduction report</h1>",
            f"<p>git commit <code>{_e(commit)}</code>, Python {_e(python)}; packages: "
            + ", ".join(f"{_e(k)} {_e(v)}" for k, v in sorted((versions or {}).items()))
            + "</p>",
            f"<p>Paper claims (sentences of the papers, quoted, in their regime and metric): "
            f"<b>{n_paper_pass} of {n_paper} PASS</b>. Extension, calibration and report claims "
            f"are counted apart; a report is printed, never judged.</p>",
            '<table class="summary"><tr><th>experiment</th><th>title</th><th>scale</th>'
            "<th>rows</th><th>failed rows</th><th>paper claims passed</th><th>other claims</th>"
            + (f"<th>paper claims passed ({_e(companion.label)})</th>" if companion else "")
            + "</tr>"]
    head += [f'<tr><td><a href="#{_e(k)}">{_e(k)}</a></td><td>{_e(t)}</td><td>{_e(s)}</td>'
             f"<td>{_e(r)}</td><td>{_e(f)}</td><td>{p} of {n}</td><td>{_e(o)}</td>"
             + (f"<td>{_e(c)}</td>" if companion else "") + "</tr>"
             for k, t, s, r, f, p, n, c, o in summary]
    head.append("</table>")
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cepsim report</title>"
            f"<style>{_CSS}</style><script>{_SCRIPT}</script></head><body>"
            + "\n".join(head + body) + "</body></html>\n")
    report_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(report_dir / "reproduction.md", "\n".join(table_md) + "\n")
    return atomic_write_text(report_dir / "index.html", page)

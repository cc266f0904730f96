"""``cepsim report``: a browsable reproduction report from stored results.

Writes ``<report_dir>/index.html`` (one self-contained page: inline CSS, no network) with the
images copied beside it (``img/<paper>/<figure>.png``) and ``reproduction.md`` (the README's
reproduction table, generated from the same data).  Per paper and experiment: its figures, the
claims table (PASS/FAIL with the measured numbers next to the paper's, as each claim prints
them), the config as resolved by the run, scale, base seed, backend, rows, package versions and
git commit (from ``meta.json``).  Everything is read from the results root; nothing runs.

A small inline script counts the images that loaded and writes the count into
``<body data-images-loaded=... data-images-total=...>`` so a headless browser test can check
that every figure rendered.
"""
from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

from sim.atomic import atomic_write_text

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:.25em .5em;
vertical-align:top;text-align:left}th{background:#f3f3f3}.PASS{color:#16701f;font-weight:bold}
.FAIL{color:#b00020;font-weight:bold}figure{display:inline-block;margin:.5em}
figure img{max-width:520px;border:1px solid #ddd}pre{background:#f7f7f7;padding:.6em;
overflow:auto;font-size:.85em}.meta td:first-child{font-weight:bold}
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


def build_report(found, figs_root: Path, report_dir: Path, out_root: Path) -> Path:
    """Write the report for ``found`` = [(cfg, df)] (configs with stored results)."""
    from sim import results
    from sim.claims import check_experiment

    report_dir = Path(report_dir)
    img_dir = report_dir / "img"
    if img_dir.exists():
        shutil.rmtree(img_dir)
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
            claims = check_experiment(cfg, df)
            n_pass = sum(1 for _, r in claims if r.passed)
            summary.append((cfg.key, cfg.title, meta.get("scale"), meta.get("rows", len(df)),
                            meta.get("failed_rows", 0), n_pass, len(claims)))
            body.append(f'<h3 id="{_e(cfg.key)}">{_e(cfg.key)}: {_e(cfg.title)}</h3>')
            body.append('<table class="meta">' + "".join(
                f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in (
                    ("config", meta.get("config_path") or cfg.path),
                    ("scale", meta.get("scale")), ("base seed", meta.get("base_seed", cfg.seed)),
                    ("backend", meta.get("backend")), ("rows", meta.get("rows")),
                    ("failed rows", meta.get("failed_rows")),
                    ("git commit", meta.get("git_commit")))) + "</table>")
            figs = []
            for f in cfg.figures:
                src = Path(figs_root) / cfg.paper / f"{f.name}.png"
                if src.exists():
                    dst = img_dir / cfg.paper / src.name
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
                    rel = dst.relative_to(report_dir).as_posix()
                    figs.append(f'<figure><img src="{_e(rel)}" alt="{_e(f.name)}">'
                                f"<figcaption>{_e(f.name)}</figcaption></figure>")
                else:
                    figs.append(f'<p class="missing">figure {_e(f.name)} not drawn yet '
                                f"(run <code>cepsim figures {_e(cfg.name)}</code>)</p>")
            body.extend(figs)
            if claims:
                body.append("<table class=\"claims\"><tr><th>claim</th><th>result</th>"
                            "<th>measured (paper)</th></tr>")
                for name, r in claims:
                    verdict = "PASS" if r.passed else "FAIL"
                    body.append(f'<tr class="claim-row"><td>{_e(name)}</td>'
                                f'<td class="{verdict}">{verdict}</td><td>{_e(r.measured)}</td>'
                                "</tr>")
                body.append("</table>")
            conf = meta.get("config") or cfg.to_dict()
            body.append("<details><summary>config as run</summary><pre>"
                        + _e(json.dumps(conf, indent=2, default=str)) + "</pre></details>")
    table_md = ["| experiment | title | scale | rows | failed rows | claims passed |",
                "|---|---|---|---|---|---|"]
    table_md += [f"| `{k}` | {t} | {s} | {r} | {f} | {p} of {n} |"
                 for k, t, s, r, f, p, n in summary]
    head = ["<h1>cepsim reproduction report</h1>",
            f"<p>git commit <code>{_e(commit)}</code>, Python {_e(python)}; packages: "
            + ", ".join(f"{_e(k)} {_e(v)}" for k, v in sorted((versions or {}).items()))
            + "</p>",
            '<table class="summary"><tr><th>experiment</th><th>title</th><th>scale</th>'
            "<th>rows</th><th>failed rows</th><th>claims passed</th></tr>"]
    head += [f'<tr><td><a href="#{_e(k)}">{_e(k)}</a></td><td>{_e(t)}</td><td>{_e(s)}</td>'
             f"<td>{_e(r)}</td><td>{_e(f)}</td><td>{p} of {n}</td></tr>"
             for k, t, s, r, f, p, n in summary]
    head.append("</table>")
    page = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>cepsim report</title>"
            f"<style>{_CSS}</style><script>{_SCRIPT}</script></head><body>"
            + "\n".join(head + body) + "</body></html>\n")
    report_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(report_dir / "reproduction.md", "\n".join(table_md) + "\n")
    return atomic_write_text(report_dir / "index.html", page)

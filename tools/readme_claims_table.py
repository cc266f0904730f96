"""Regenerate the README's claims table from a claims file (``cepsim reproduce`` writes one).

    python3 tools/readme_claims_table.py                 # print the table
    python3 tools/readme_claims_table.py --write         # replace it in README.md
    python3 tools/readme_claims_table.py --check         # exit 1 if README.md differs

Two claims files, side by side: ``results/full/claims.md`` (written by ``cepsim reproduce
--scale full``, committed with its rows; its provenance line names the commit) and
``docs/reproduction/claims_quick.md`` (a committed copy of ``results/claims.md`` from one
quick-scale reproduce, with the commit it ran at on its first line).  First a summary per
paper: its ``paper`` claims (quoted sentences of the paper, the reproduction) PASS / total at
both scales, then the ``extension`` and ``calibration`` claims PASS / total and the number of
``report`` claims (printed, never judged), each apart.  Then one row per experiment: its paper,
its config, the first sentence of the config's comment as the description, its paper claims
PASS / total at full and at quick scale ("-" where a file has none) and its other claims.  The README's table lies between the markers
``<!-- claims-table:start -->`` and ``<!-- claims-table:end -->``.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
START, END = "<!-- claims-table:start -->", "<!-- claims-table:end -->"
PAPERS = {"basic": "simulator check", "lazy_nfa": "DEBS'15", "apam": "CIKM'16 APAM",
          "adaptive": "PVLDB'18", "eires": "SIGMOD'21 EIRES", "darling": "PVLDB'22 DARLING",
          "cross": "all five", "examples": "examples"}


def parse_claims(path: Path) -> dict[str, list[tuple[str, str]]]:
    """``{experiment: [(kind, result), ...]}`` in file order (``measured`` may hold escaped
    pipes; the columns are experiment | kind | claim | result | measured)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith(("| experiment", "|---")):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) >= 5:
            out.setdefault(cells[0], []).append((cells[1], cells[3]))
    return out


def description(experiment: str) -> str:
    """First sentence of the leading comment block of ``experiments/<experiment>.toml``."""
    cfg = REPO / "experiments" / f"{experiment}.toml"
    words: list[str] = []
    for line in cfg.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        words += line.lstrip("#").split()
    text = " ".join(words).replace("|", "/")
    for m in re.finditer(r"\.(\s+(?=[A-Z(])|$)", text):     # a sentence end, not "Fig. 4"
        if not re.search(r"\b(Fig|Figs|Eq|Eqs|Sec|al|e\.g|i\.e)$", text[:m.start()]):
            text = text[:m.start() + 1]
            break
    return text if len(text) <= 170 else text[:169].rsplit(" ", 1)[0] + " …"


KINDS = ("paper", "extension", "calibration", "report")


def _of_kind(results: list[tuple[str, str]] | None, kind: str) -> list[str]:
    return [r for k, r in (results or []) if k == kind]


def _count(results: list[str]) -> str:
    return "-" if not results else f"{sum(r == 'PASS' for r in results)} of {len(results)}"


def _others(results: list[tuple[str, str]] | None) -> str:
    """Extension and calibration PASS / total and the number of reports, e.g.
    ``extension 2 of 3; report 1``."""
    parts = []
    for kind in KINDS[1:]:
        rs = _of_kind(results, kind)
        if rs:
            parts.append(f"{kind} {len(rs)}" if kind == "report" else f"{kind} {_count(rs)}")
    return "; ".join(parts) or "-"


def _paper_of(exp: str) -> str:
    return PAPERS.get(exp.split("/")[0], exp.split("/")[0])


def summary(f: dict, q: dict) -> list[str]:
    """Per paper: its paper claims PASS / total at both scales, then the other kinds apart."""
    rows = ["| paper | paper claims PASS, full scale | quick scale | extension PASS, full | "
            "calibration PASS, full | reports (not judged), full |", "|---|---|---|---|---|---|"]
    papers: dict[str, list[str]] = {}
    for exp in list(f) + [e for e in q if e not in f]:
        papers.setdefault(_paper_of(exp), []).append(exp)
    every = list(f) + [e for e in q if e not in f]
    for paper, exps in list(papers.items()) + [("**all**", every)]:
        def pool(d, kind):
            return [r for e in exps for r in _of_kind(d.get(e), kind)]
        rep = pool(f, "report")
        rows.append(f"| {paper} | {_count(pool(f, 'paper'))} | {_count(pool(q, 'paper'))} | "
                    f"{_count(pool(f, 'extension'))} | {_count(pool(f, 'calibration'))} | "
                    f"{len(rep) if rep else '-'} |")
    return rows


def table(full: Path, quick: Path) -> str:
    """The README tables: the per-paper summary, then one row per experiment of either file
    (full-scale order first) with its paper claims apart from the other kinds."""
    f, q = parse_claims(full), parse_claims(quick)
    rows = summary(f, q) + ["", "| paper | config | what | paper claims PASS, full scale | "
                                "quick scale | other claims, full scale |",
                            "|---|---|---|---|---|---|"]
    for exp in list(f) + [e for e in q if e not in f]:
        rows.append(f"| {_paper_of(exp)} | `experiments/{exp}.toml` | {description(exp)} | "
                    f"{_count(_of_kind(f.get(exp), 'paper'))} | "
                    f"{_count(_of_kind(q.get(exp), 'paper'))} | {_others(f.get(exp))} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", type=Path, default=REPO / "results" / "full" / "claims.md")
    ap.add_argument("--quick", type=Path,
                    default=REPO / "docs" / "reproduction" / "claims_quick.md")
    ap.add_argument("--readme", type=Path, default=REPO / "README.md")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true")
    g.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    for path, how in ((a.full, "`cepsim reproduce --scale full` writes it"),
                      (a.quick, "run `cepsim reproduce --scale quick` and copy results/claims.md "
                                "there")):
        if not path.is_file():
            print(f"error: {path}: no claims file; {how}", file=sys.stderr)
            return 2
    new = table(a.full, a.quick)
    if not (a.write or a.check):
        print(new)
        return 0
    text = a.readme.read_text(encoding="utf-8")
    if START not in text or END not in text:
        print(f"error: {a.readme}: markers {START} / {END} not found", file=sys.stderr)
        return 2
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    updated = f"{head}{START}\n{new}\n{END}{tail}"
    if a.check:
        if updated != text:
            print("README.md's claims table differs from the claims file; run "
                  "python3 tools/readme_claims_table.py --write", file=sys.stderr)
            return 1
        return 0
    a.readme.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

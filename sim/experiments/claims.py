"""Claims as checks on results: ``ClaimResult``, evaluation, table and Markdown output.

A claim function lives in a study's ``claims`` module (``sim/studies/<study>/claims.py``) and is
called as ``fn(df, **args)`` with every row of its experiment; it returns
``ClaimResult(passed, measured)`` where ``measured`` shows the numbers the verdict rests on
(honest numbers, whichever way the verdict goes).

Every claim has a kind (``sim.experiments.config.CLAIM_KINDS``): ``paper`` (a sentence of the
paper, quoted with its section, checked in the paper's regime and metric), ``extension`` (our own
regime, metric or series), ``calibration`` (a documented search for a parameter the paper does
not state) and ``report`` (numbers printed, never judged: its verdict shows as ``REPORT`` and
never counts as a pass or a failure).  Only ``paper`` claims count as the reproduction; the
tables count each kind apart.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from sim.atomic import atomic_write_text
from sim.experiments.config import CLAIM_KINDS

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from sim.experiments.config import ExperimentConfig


@dataclass(frozen=True)
class ClaimResult:
    """Verdict of one claim plus the measured numbers behind it."""

    passed: bool
    measured: str


@dataclass(frozen=True)
class ClaimRow:
    """One line of the claims table."""

    experiment: str  # paper/name
    claim: str
    result: ClaimResult
    kind: str            # one of sim.experiments.config.CLAIM_KINDS

    @property
    def judged(self) -> bool:
        """False for a ``report``: its numbers are printed, its verdict never counts."""
        return self.kind != "report"

    @property
    def verdict(self) -> str:
        """``PASS`` / ``FAIL`` for a judged claim, ``REPORT`` for a report."""
        if not self.judged:
            return "REPORT"
        return "PASS" if self.result.passed else "FAIL"

    @property
    def failed(self) -> bool:
        return self.judged and not self.result.passed


KIND_ORDER = CLAIM_KINDS      # the table order of the kinds


def kind_counts(rows: list[ClaimRow], kinds: tuple = KIND_ORDER) -> str:
    """One line: ``paper claims 3 of 5 PASS; extension 2 of 2 PASS; report 4 (...)`` over
    ``kinds`` (the paper count always shown when ``kinds`` has it, the others when present)."""
    parts = []
    for kind in kinds:
        ks = [r for r in rows if r.kind == kind]
        if not ks and kind != "paper":
            continue
        if kind == "report":
            parts.append(f"report {len(ks)} (printed, not judged)")
        else:
            n_pass = sum(1 for r in ks if r.result.passed)
            label = "paper claims" if kind == "paper" else kind
            parts.append(f"{label} {n_pass} of {len(ks)} PASS")
    return "; ".join(parts)


def check_claim_args(cfg: "ExperimentConfig") -> None:
    """Every claim's ``args`` fit its function's signature; otherwise a config error naming the
    claim and the accepted arguments (a misspelled argument is the user's mistake, not a failed
    claim)."""
    import inspect

    from engines.errors import CepsimInputError
    from sim.experiments.functions import resolve

    src = str(cfg.path or cfg.key)
    for i, c in enumerate(cfg.claims):
        fn = resolve(c.fn, "claims", src, f"claims[{i}].fn")
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):  # pragma: no cover - builtins
            continue
        try:
            sig.bind(None, **c.args)
        except TypeError as exc:
            accepted = [n for n in list(sig.parameters)[1:]]
            raise CepsimInputError(f"{src}: claims[{i}] ({c.name!r}): args {sorted(c.args)} do "
                                   f"not fit {c.fn} ({exc}); it accepts {accepted}") from None


def claim_rows(cfg: "ExperimentConfig", df: "pd.DataFrame") -> list[ClaimRow]:
    """Every claim of ``cfg`` evaluated on ``df``, as table rows carrying the claim's kind."""
    kinds = [c.kind for c in cfg.claims]
    return [ClaimRow(cfg.key, name, res, kind)
            for (name, res), kind in zip(check_experiment(cfg, df), kinds)]


def check_experiment(cfg: "ExperimentConfig", df: "pd.DataFrame") -> list[tuple[str, ClaimResult]]:
    """Evaluate every claim of ``cfg`` on ``df``; a claim that raises counts as failed (claim
    arguments that do not fit the function are a ``CepsimInputError``)."""
    from sim.experiments.functions import resolve

    check_claim_args(cfg)
    out: list[tuple[str, ClaimResult]] = []
    for i, c in enumerate(cfg.claims):
        try:
            fn = resolve(c.fn, "claims", str(cfg.path or cfg.key), f"claims[{i}].fn")
            res = fn(df.copy(), **c.args)
            if not isinstance(res, ClaimResult):
                res = ClaimResult(False, f"claim function returned {type(res).__name__}, "
                                         f"not ClaimResult")
        except Exception as exc:  # report, do not crash the whole table
            res = ClaimResult(False, f"error: {type(exc).__name__}: {exc}")
        out.append((c.name, res))
    return out


def format_table(rows: list[ClaimRow]) -> str:
    """Plain-text claims table: experiment | kind | claim | PASS/FAIL/REPORT | measured, then the
    counts per kind."""
    if not rows:
        return "no claims checked"
    heads = ("experiment", "kind", "claim", "result", "measured")
    data = [(r.experiment, r.kind, r.claim, r.verdict, r.result.measured) for r in rows]
    widths = [max(len(h), *(len(d[i]) for d in data)) for i, h in enumerate(heads[:4])]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads[:4], widths)) + "  " + heads[4]]
    lines.append("  ".join("-" * w for w in widths) + "  " + "-" * len(heads[4]))
    for d in data:
        lines.append("  ".join(x.ljust(w) for x, w in zip(d[:4], widths)) + "  " + d[4])
    n_fail = sum(1 for r in rows if r.failed)
    n_judged = sum(1 for r in rows if r.judged)
    lines.append(f"{n_judged - n_fail} passed, {n_fail} failed; {kind_counts(rows)}")
    return "\n".join(lines)


def print_table(rows: list[ClaimRow], file: TextIO | None = None) -> None:
    print(format_table(rows), file=file)


def _md_cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def format_markdown(rows: list[ClaimRow], provenance: str | None = None) -> str:
    """Markdown version of the claims table (written to ``results/claims.md``); ``provenance``
    (scale and commit of the rows) goes under the title, the counts per kind at the end."""
    lines = ["# Claims", ""] + ([provenance, ""] if provenance else [])
    lines += ["| experiment | kind | claim | result | measured |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {_md_cell(r.experiment)} | {r.kind} | {_md_cell(r.claim)} | "
                     f"{r.verdict} | {_md_cell(r.result.measured)} |")
    n_fail = sum(1 for r in rows if r.failed)
    n_judged = sum(1 for r in rows if r.judged)
    lines += ["", f"{n_judged - n_fail} passed, {n_fail} failed; {kind_counts(rows)}", ""]
    return "\n".join(lines)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (see ``sim.atomic``)."""
    atomic_write_text(path, text)


def write_markdown(rows: list[ClaimRow], path: Path, provenance: str | None = None) -> Path:
    write_text_atomic(Path(path), format_markdown(rows, provenance))
    return Path(path)


def provenance_line(metas: dict[str, dict]) -> str:
    """``{experiment: meta.json}`` -> one line naming the scale(s) and the git commit(s) the rows
    were produced at (a claims file states where its numbers come from)."""
    by_commit: dict[str, list[str]] = {}
    scales = sorted({str(m.get("scale")) for m in metas.values()})
    for exp, m in sorted(metas.items()):
        by_commit.setdefault(str(m.get("git_commit") or "unknown")[:12], []).append(exp)
    parts = [f"commit {c} ({len(e)} experiment{'s' if len(e) != 1 else ''}"
             + ("" if len(by_commit) == 1 else ": " + ", ".join(e)) + ")"
             for c, e in sorted(by_commit.items(), key=lambda kv: -len(kv[1]))]
    return f"Rows at scale {', '.join(scales)}, produced at " + "; ".join(parts) + "."

"""``cepsim compare``: every eligible evaluation strategy on the user's pattern and data.

Options only; the work is ``sim.tools.compare.core.run_command`` (docs/COMPARE.md).
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sim.cli.commands.common import guard
from sim.cli.commands.match import pattern_text


def compare_help() -> str:
    """The command's help: what it does and which strategy applies to which pattern feature."""
    from sim.tools.compare.strategies import help_text
    return ("Run every evaluation strategy that can evaluate PATTERN on DATA, check they find "
            "the same matches, price their work with the cost profile and queue it at each "
            "rate: one table (engine, plan, matches, work, service time, largest stable rate, "
            "latency p50/p99 per rate, best marked *, runs tied with it within the measured "
            "spread marked ~), where the cost profile's prices come from, and a "
            "recommendation (none for a stream too short to measure the spread).  --out DIR writes "
            "rows.parquet, latency_vs_rate.png, work_per_engine.png and compare.md.  Patterns "
            "with REMOTE[...] compare the EIRES strategies instead.\n\nStrategies (--engines "
            "takes these keys or engine names) and the pattern features they cannot "
            "evaluate:\n\n" + "\n\n".join(help_text().splitlines()))


@guard
def compare(pattern: str = typer.Argument(..., help="pattern text, or a file holding it"),
            data: Path = typer.Argument(..., help="event data file"),
            fmt: Optional[str] = typer.Option(None, "--format", help="metastock, soccer, csv or "
                                              "parquet (default: from the extension)"),
            schema: Optional[Path] = typer.Option(None, "--schema",
                                                  help="schema file for csv / parquet data"),
            rates: Optional[str] = typer.Option(None, "--rates", help="arrival rates in events/s, "
                                                "comma-separated (default: 4 rates spanning the "
                                                "engines' largest stable rates)"),
            engines: Optional[str] = typer.Option(None, "--engines", help="comma-separated "
                                                  "strategy keys or engine names (default all)"),
            profile: Optional[Path] = typer.Option(None, "--profile", help="cost profile TOML "
                                                   "(default: the packaged default profile; "
                                                   "`cepsim calibrate` writes one)"),
            out: Optional[Path] = typer.Option(None, "--out", help="directory for rows.parquet, "
                                               "two figures and compare.md"),
            seed: int = typer.Option(0, "--seed", help="seed of the Poisson arrivals"),
            n_events: Optional[int] = typer.Option(None, "--n-events",
                                                   help="use the first N events only"),
            progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                                    help="stage progress on stderr (default: "
                                                         "on a terminal)")):
    from sim.tools.compare.core import run_command
    text, source = pattern_text(pattern)
    printed, code = run_command(text, source, data, fmt, schema, rates, engines, profile, out,
                                seed, n_events, progress)
    typer.echo(printed, err=code != 0)
    if code:
        raise typer.Exit(code)

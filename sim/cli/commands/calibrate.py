"""``cepsim calibrate``: measure this machine's unit costs of engine operations."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from sim.cli.commands.common import check_output_path, guard, write_output


@guard
def calibrate(out: Optional[Path] = typer.Option(None, "--out", help="cost profile TOML to write"),
              quick: bool = typer.Option(False, "--quick", help="short calibration run")):
    """Measure unit costs of engine operations on this machine -> cost profile TOML."""
    from sim.tools.calibrate import calibrate as do_calibrate

    if out is not None:                     # before the measurement, not after it
        check_output_path(out, "--out")
        write_output("--out", out, lambda: out.parent.mkdir(parents=True, exist_ok=True))

    profile, report = do_calibrate(out, quick)
    typer.echo(report if isinstance(report, str) else json.dumps(report, indent=2, default=str))

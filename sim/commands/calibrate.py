"""``cepsim calibrate``: measure this machine's unit costs of engine operations."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from sim.commands.common import guard


@guard
def calibrate(out: Optional[Path] = typer.Option(None, "--out", help="cost profile TOML to write"),
              quick: bool = typer.Option(False, "--quick", help="short calibration run")):
    """Measure unit costs of engine operations on this machine -> cost profile TOML."""
    from sim.calibrate import calibrate as do_calibrate

    profile, report = do_calibrate(out, quick)
    typer.echo(report if isinstance(report, str) else json.dumps(report, indent=2, default=str))

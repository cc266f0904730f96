"""``cepsim list``: what the project holds (experiments, engines, scenarios, claims, figures,
profiles, generators)."""
from __future__ import annotations

import typer

from engines.errors import CepsimInputError
from sim.cli.commands.common import all_config_paths, guard


_LIST_HELP = "what to list: " + ", ".join(
    ("experiments", "engines", "scenarios", "claims", "figures", "profiles", "generators"))


@guard
def list_(what: str = typer.Argument("experiments", help=_LIST_HELP)):
    """List experiments (default), engines, scenarios (with their declared parameters), claims,
    figures, profiles or generators."""
    from sim.experiments import listing

    if what not in listing.KINDS:
        raise CepsimInputError(f"cepsim list: unknown kind {what!r}; choose one of "
                               f"{', '.join(listing.KINDS)}")
    if what != "experiments":
        rows = listing.listing(what)
        width = max([len(n) for n, _ in rows] + [8])
        for name, desc in rows:
            typer.echo(f"{name:<{width}}  {desc}")
            if what == "scenarios" and not name.endswith(":*"):
                # the declared parameters: name, type, default, meaning [accepted range]
                for line in listing.scenario_parameters(name):
                    typer.echo(line)
        if not rows:
            typer.echo(f"no {what} found")
        return
    _list_experiments()


def _list_experiments() -> None:
    from sim.experiments.config import load_config

    paths = all_config_paths()
    if not paths:
        typer.echo("no experiment configs found under experiments/")
        return
    for p in paths:
        try:
            cfg = load_config(p, check_functions=False)
            typer.echo(f"{cfg.key:<28} {cfg.paper:<10} {cfg.title}  ({p})")
        except CepsimInputError as exc:
            typer.echo(f"{str(p):<28} INVALID: {exc}")

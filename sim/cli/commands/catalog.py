"""``cepsim list``: what the project holds (experiments, engines, scenarios, claims, figures,
profiles, generators)."""
from __future__ import annotations

import typer

from engines.errors import CepsimInputError
from sim.cli.commands.common import all_config_paths, guard


_LIST_HELP = "what to list: " + ", ".join(
    ("experiments", "engines", "scenarios", "claims", "figures", "profiles", "generators"))


@guard
def list_(what: str = typer.Argument("experiments", help=_LIST_HELP),
          coverage: bool = typer.Option(False, "--coverage", help=(
              "with 'engines': run every engine on one probe pattern per operator and print "
              "which operators each evaluates exactly as the oracle does, and each refusal "
              "(compiles every engine: minutes from a cold Numba cache)"))):
    """List experiments (default), engines, scenarios (with their declared parameters), claims,
    figures, profiles or generators."""
    from sim.experiments import listing

    if what not in listing.KINDS:
        raise CepsimInputError(f"cepsim list: unknown kind {what!r}; choose one of "
                               f"{', '.join(listing.KINDS)}")
    if coverage and what != "engines":
        raise CepsimInputError("cepsim list: --coverage goes with 'engines' "
                               "(cepsim list engines --coverage)")
    if coverage:
        _list_coverage()
        return
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
        if what == "engines":
            typer.echo("\nWhich operators each engine evaluates: cepsim list engines --coverage "
                       "(measured against the oracle; docs/OPERATORS.md)")
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


def _list_coverage() -> None:
    """The engine x operator table of ``engines.coverage``, measured now, and the refusals."""
    from engines import coverage as C

    typer.echo("Probing every engine on one pattern per operator (engines/coverage.py) ...")
    cov = C.coverage()
    typer.echo(C.markdown_table(cov))
    typer.echo("\nyes = exactly the oracle's matches; no = refused (below); MISMATCH = a bug\n")
    for line in C.refusals(cov):
        typer.echo(line)

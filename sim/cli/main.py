"""``cepsim``: the one command-line entry point (``docs/ARCHITECTURE.md``, "Command line").

Exit codes: 0 ok, 1 a point or figure failed (or a claim, for ``run`` / ``check`` and
``reproduce --strict``), 2 bad input or missing results
(``CepsimInputError`` -> ``error: <message>`` on stderr).  The commands live in one module per
group under ``sim/cli/commands/``: ``experiments`` (run, sweep, reproduce), ``results`` (figures,
check, report), ``catalog`` (list), ``calibrate``, ``match``, ``compare``, ``warmup``; ``common`` holds what they
share.
This module only registers them (in the order ``cepsim --help`` lists them) and runs the app.
"""
from __future__ import annotations

from typing import Optional

from sim.cli.blas_threads import use_one_blas_thread

use_one_blas_thread()   # before anything loads NumPy (sim.cli.blas_threads: spinning BLAS threads)

import typer  # noqa: E402

from sim.cli.commands import (calibrate, catalog, compare, experiments, match, results,  # noqa: E402
                              warmup)
from sim.cli.commands.common import FAST_EXIT, REPO_ROOT  # noqa: F401,E402  (REPO_ROOT: public)

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,  # plain help: importing rich costs ~0.2 s per call
                  help="cepsim: complex event processing research simulator.")

app.command()(experiments.run)
app.command()(experiments.sweep)
app.command("list")(catalog.list_)
app.command()(results.figures)
app.command()(results.check)
app.command()(experiments.reproduce)
app.command()(results.report)
app.command()(calibrate.calibrate)
app.command()(match.match)
app.command(help=compare.compare_help())(compare.compare)
app.command()(warmup.warmup)


def main(argv: Optional[list[str]] = None) -> None:
    """Console-script entry point (``cepsim = "sim.cli:main"``)."""
    if argv is not None:
        app(args=argv, prog_name="cepsim")
        return
    try:
        app(prog_name="cepsim")
    except SystemExit as exc:
        if FAST_EXIT["requested"]:
            _exit_now(exc.code)
        raise


def _exit_now(code) -> None:
    """Flush stdout/stderr and end the process with ``code`` (SystemExit semantics)."""
    import os
    import sys

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    main()

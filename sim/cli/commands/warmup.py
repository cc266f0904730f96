"""``cepsim warmup``: compile the Numba kernels ahead of their first use (``sim.experiments.warmup``)."""
from __future__ import annotations

from typing import Optional

import typer

from sim.cli.commands.common import guard


@guard
def warmup(engines: Optional[str] = typer.Option(
        None, "--engines",
        help="comma-separated targets: engine names, 'reader' (the Metastock reader), 'queue' "
             "(the simulator's queue); default all")):
    """Compile the kernels ahead of first use (once per checkout: 4.5 min on 2 cores with a cold
    cache, benchmarks/cold_compile.md; a second call loads them from the cache in a few
    seconds).  Prints the seconds per target."""
    import time

    from engines.jitcache import numba_cache_dir
    from sim.experiments.warmup import warm

    targets = [e.strip() for e in engines.split(",") if e.strip()] if engines else None
    echo = lambda msg: typer.echo(f"warmup: {msg}", err=True)  # noqa: E731
    t0 = time.perf_counter()
    secs = warm(targets, echo=echo)
    for name, s in secs.items():
        typer.echo(f"{name:<9} {s:7.1f} s")
    typer.echo(f"kernels ready in {time.perf_counter() - t0:.1f} s (cache: {numba_cache_dir()})")

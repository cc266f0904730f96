"""Progress display for long work: a live bar on an interactive stderr, one summary line
otherwise.

The bar is drawn with ``rich`` (a dependency of typer, so present on every install; imported only
when a bar is shown).  When stderr is not a terminal (CI logs, pipes) nothing is redrawn; closing
prints one line ``<desc>: <done>/<total> <unit> in <seconds>s``.  ``enabled=False`` silences
both.

The bar is redrawn on each ``update`` only (no refresh thread): a bar adds no thread to the
process that starts a local sweep's workers (``sim.experiments.sweep``).
"""
from __future__ import annotations

import sys
import time
from typing import Any


class Progress:
    """``with Progress(total, desc) as p: p.update(1)``."""

    def __init__(self, total: int, desc: str = "", enabled: bool | None = None,
                 unit: str = "points", stream=None):
        self.total = int(total)
        self.desc = desc
        self.unit = unit
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._t0 = time.perf_counter()
        self._quiet = enabled is False
        self._live: Any = None
        self._task = None
        interactive = enabled if enabled is not None else is_tty(self._stream)
        if interactive and not self._quiet:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress,
                                       TextColumn, TimeElapsedColumn, TimeRemainingColumn)
            console = Console(file=self._stream, force_terminal=True)
            self._live = RichProgress(TextColumn("{task.description}"), BarColumn(),
                                      MofNCompleteColumn(), TextColumn(unit),
                                      TimeElapsedColumn(), TimeRemainingColumn(),
                                      console=console, transient=False, auto_refresh=False)
            self._live.start()
            self._task = self._live.add_task(desc or "working", total=self.total)
            self._live.refresh()

    def stage(self, text: str) -> None:
        """Name the part of the work now running: the bar's label on a terminal, otherwise one
        line ``<text> (<seconds>s)`` (silent when disabled)."""
        self.desc = text
        if self._live is not None:
            self._live.update(self._task, description=text)
            self._live.refresh()      # no refresh thread: redraw now
        elif not self._quiet and self._stream is not None:
            dt = time.perf_counter() - self._t0
            print(f"{text} ({dt:.1f}s)", file=self._stream, flush=True)

    def update(self, n: int = 1) -> None:
        self.done += n
        if self._live is not None:
            self._live.update(self._task, advance=n)
            self._live.refresh()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        elif not self._quiet and self._stream is not None:
            dt = time.perf_counter() - self._t0
            print(f"{self.desc or 'done'}: {self.done}/{self.total} {self.unit} in {dt:.1f}s",
                  file=self._stream, flush=True)
        self._quiet = True        # close() is idempotent

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def is_tty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False

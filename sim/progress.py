"""Progress display for long work: a tqdm bar on an interactive stderr, silence otherwise."""
from __future__ import annotations

import sys
from typing import Any


class Progress:
    """``with Progress(total, desc) as p: p.update(1)``; a no-op when stderr is not a terminal."""

    def __init__(self, total: int, desc: str = "", enabled: bool | None = None):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self._bar: Any = None
        if enabled:
            try:
                from tqdm import tqdm
                self._bar = tqdm(total=total, desc=desc, file=sys.stderr, unit="pt",
                                 dynamic_ncols=True)
            except ImportError:  # pragma: no cover - tqdm ships with the dev env
                self._bar = None

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

"""Atomic file writes: results, profiles and reports are never left half-written.

Every writer goes to a temporary file in the destination's directory, then ``os.replace``
moves it into place (atomic on POSIX within one file system); on any error the temporary file
is removed and the old destination, if any, is untouched.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, writer: Callable[[str], None]) -> Path:
    """Call ``writer(tmp_path)`` to produce the file, then move it onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # hidden name ending in ".tmp": never mistaken for a finished file (e.g. by "*.parquet")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        writer(tmp)
        # mkstemp creates 0600; give the file the mode a plain open() would (0666 & ~umask)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
    return atomic_write(path, write)

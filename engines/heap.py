"""Give free heap pages back to the operating system (glibc ``malloc_trim``).

Long-lived processes that free many small chunks (a shedder's partial matches, a pool worker's
memos) keep those pages resident until the allocator is asked to trim.
"""
from __future__ import annotations

import ctypes


def trim_heap() -> bool:
    """Ask glibc to return free heap pages to the system; False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.malloc_trim(0))
    except (OSError, AttributeError):
        return False

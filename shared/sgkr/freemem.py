"""Giving the memory of freed objects back to the system, where the C library allows it.

A large build frees its facts once the graph is made, but CPython's allocator
and the C library keep the pages they held; the stages after it (writing
graph.json, making the lexical index) then add their own pages on top, and the
process peaks higher than it ever holds at once. :func:`give_back` asks glibc
to return the pages that hold nothing (``malloc_trim``); elsewhere (another C
library, another system) it does nothing. What is still in use is never
touched, so what the process computes is the same either way.

Examples
--------
>>> give_back() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from functools import cache

__all__ = ["give_back"]


def give_back() -> bool:
    """Return the free pages of the heap to the system; whether it could be asked."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim

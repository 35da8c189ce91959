"""Pausing the cyclic garbage collector around bulk work that makes no cycles.

Building or loading a large graph allocates millions of small objects; each
allocation burst triggers collector passes that walk every live object, which
can cost as much as the work itself. The objects made here hold no reference
cycles, so nothing is lost by pausing: reference counting frees them.

Left alone, the first young collection after the pause still walks every
object the block made (a graph of the standard library: 400,000 of them, a
tenth of a second), and then the middle generation walks them again. What the
block made is long-lived, so ``long_lived=True`` moves it straight to the
oldest generation, which full collections walk as they would have anyway.

Examples
--------
>>> import gc
>>> with paused_gc():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc(*, long_lived: bool = False) -> Iterator[None]:
    """Disable the cyclic collector inside the block; restore its state after.

    Parameters
    ----------
    long_lived
        What the block made outlives it (a graph): on leaving, every object
        the collector tracks is moved to its oldest generation instead of
        being walked by the next young collection. Skipped when the program
        froze objects itself (:func:`gc.freeze`), whose frozen set this
        would release.

    Examples
    --------
    >>> with paused_gc(long_lived=True):
    ...     kept = [[n] for n in range(1000)]
    >>> gc.get_count()[0] < 1000
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if long_lived and not gc.get_freeze_count():
                # freeze() moves every generation to the permanent one and unfreeze()
                # moves that to the oldest: no object is walked, none stays frozen.
                gc.freeze()
                gc.unfreeze()
            gc.enable()

"""A build's progress on a terminal: its stages and files, on standard error, from the start.

:class:`ProgressBar` is the ``progress(stage, done, total)`` callback of a build
(:func:`sgkr.build_graph`). On a terminal it shows a line from ``delay`` seconds
after it was made, whichever stage the build is in (``find`` while the sources are
listed, then ``read``, ``parse``, ``assemble``, ``save``), its clock ticking while no
file is done; a build that ends sooner shows nothing. Nothing at all is written when
the stream is not a terminal or the bar is made with ``enabled=False`` (``--quiet``).
A terminal that reports no width (a pseudo-terminal made without one) is drawn
80 columns wide: such a terminal would otherwise show nothing.

Examples
--------
>>> import io
>>> bar = ProgressBar(io.StringIO())  # not a terminal: silent
>>> bar("parse", 10, 20); bar.close()
>>> bar.enabled
False
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["ProgressBar", "FIRST_STAGE", "DEFAULT_COLUMNS", "DEFAULT_LINES"]

#: The stage shown before a build reports its first: its sources being listed.
FIRST_STAGE = "find"
#: The width and height drawn on a terminal that reports none.
DEFAULT_COLUMNS, DEFAULT_LINES = 80, 24
_CLOCK_ONLY = "{desc}: {elapsed}"  # a stage of no files: its name and its time


class ProgressBar:
    """Draw a build's ``progress(stage, done, total)`` on a terminal (see the module).

    Parameters
    ----------
    stream
        Where to draw (default: standard error); nothing is drawn unless it is a terminal.
    delay
        Seconds from this bar's making before anything is drawn, so that a short build
        leaves the screen as it was.
    tick
        Seconds between redraws while no file is done (the clock moves).
    enabled
        False: draw nothing (``--quiet``).
    """

    def __init__(self, stream: TextIO | None = None, *, delay: float = 0.1,
                 tick: float = 0.25, enabled: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and self.stream.isatty()
        self.delay = delay
        self.tick = tick
        self._started = time.monotonic()
        self._bar: tqdm[Any] | None = None
        self._stage: str | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticking: threading.Thread | None = None
        if self.enabled:
            self(FIRST_STAGE, 0, 0)
            self._ticking = threading.Thread(target=self._tick, name="sgkr-progress",
                                             daemon=True)
            self._ticking.start()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self._lock:
            if stage != self._stage or self._bar is None:
                self._close_bar()
                self._stage = stage
                self._bar = self._open(stage, total)
            self._bar.update(done - self._bar.n)
            if self._due():
                self._bar.refresh()

    def _open(self, stage: str, total: int) -> tqdm[Any]:
        from tqdm import tqdm  # here: only a build on a terminal draws

        sized = _sized(self.stream)
        return tqdm(total=total or None, desc=stage, unit="file", file=self.stream,
                    leave=False, delay=max(0.0, self._until_due()),
                    dynamic_ncols=sized, ncols=None if sized else DEFAULT_COLUMNS,
                    nrows=None if sized else DEFAULT_LINES,
                    bar_format=None if total > 1 else _CLOCK_ONLY)

    def _due(self) -> bool:
        return self._until_due() <= 0

    def _until_due(self) -> float:
        """Seconds left before the first line is drawn."""
        return self._started + self.delay - time.monotonic()

    def _tick(self) -> None:
        """Redraw the open bar now and then: its clock moves while nothing is done."""
        while not self._stop.wait(self.tick if self._due() else self._until_due()):
            with self._lock:
                if self._bar is not None and self._due():
                    self._bar.refresh()

    def close(self) -> None:
        """Take the bar off the screen and stop redrawing it."""
        self._stop.set()
        if self._ticking is not None:
            self._ticking.join()
        with self._lock:
            self._close_bar()
        self._ticking = None

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
        self._bar, self._stage = None, None


def _sized(stream: TextIO) -> bool:
    """Whether the terminal reports its size (one made without reports 0 by 0)."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return size.columns > 0 and size.lines > 0

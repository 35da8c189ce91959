"""Work done beside this process, in a forked child that shares its memory.

A large build hands work on what it holds in memory (the extractions of
every file) to a forked child: forking shares memory copy-on-write, so
nothing is pickled on the way in, and another core does the work while this
process goes on. Only the result comes back, pickled. Where processes are
not started by forking (Windows, macOS's default, or a start method chosen
with :func:`multiprocessing.set_start_method`), or when the child dies, the
work runs in this process when its result is asked for: the result is the
same either way, so the work must be a pure function of what it reads.

Examples
--------
>>> job = Background(lambda: sum(range(10)), fork=False)
>>> job.result()
45
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Generic, TypeVar, cast

__all__ = ["Background", "can_fork", "lower_priority"]

T = TypeVar("T")


def can_fork() -> bool:
    """Whether worker processes are started by forking this one (as on Linux by default).

    Examples
    --------
    >>> isinstance(can_fork(), bool)
    True
    """
    return multiprocessing.get_context().get_start_method() == "fork"


def lower_priority() -> None:
    """Let the other processes of this user go first (``nice``; nothing where there is none)."""
    nice = getattr(os, "nice", None)  # not on Windows
    if nice is not None:
        try:
            nice(10)
        except OSError:
            pass


class Background(Generic[T]):
    """``work()`` computed in a forked child, started now; :meth:`result` waits for it.

    Parameters
    ----------
    work
        A function of what this process holds; its result must be picklable.
    fork
        Start a child (when :func:`can_fork`); False: compute in this process,
        on :meth:`result`.
    """

    def __init__(self, work: Callable[[], T], *, fork: bool = True) -> None:
        self._work = work
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None
        if fork and can_fork():
            context = multiprocessing.get_context("fork")
            ours, theirs = context.Pipe(duplex=False)
            self._process = context.Process(target=_run, args=(theirs, work), daemon=True)
            self._process.start()
            theirs.close()
            self._connection = ours

    def result(self) -> T:
        """The value of ``work()``: the child's, or computed here if there is no child or it died.

        Raises
        ------
        Exception
            What ``work()`` raises (computed again in this process, so that the
            error comes with its own traceback).
        """
        if self._connection is not None:
            try:
                status, value = self._connection.recv()
            except (EOFError, OSError):
                status, value = "died", None
            finally:
                self._end(stop=False)
            if status == "ok":
                return cast(T, value)
        return self._work()

    def cancel(self) -> None:
        """Stop the child, if it still runs; :meth:`result` then computes in this process."""
        self._end(stop=True)

    def _end(self, *, stop: bool) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._process is not None:
            if stop and self._process.is_alive():
                self._process.terminate()
            self._process.join()
            self._process.close()
            self._process = None


def _run(connection: Connection, work: Callable[[], object]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles an interrupt
    try:
        answer: tuple[str, object] = ("ok", work())
    except BaseException:
        answer = ("failed", None)  # the parent computes again and raises it there
    try:
        connection.send(answer)
    except Exception:  # the value cannot be pickled: the parent computes it
        connection.send(("failed", None))
    connection.close()

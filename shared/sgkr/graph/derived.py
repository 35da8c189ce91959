"""Files derived from a graph and saved beside it, written and read with it as one.

A graph file (graph.json) may have files made from it beside it, so that a
loaded graph need not make them again: the lexical index and the summary of
:mod:`sgkr.algorithms.lexicalfile`. They are made by a higher layer than this
one, so this module declares what such a file does (:class:`DerivedFile`) and
keeps those :func:`register`-ed; :meth:`~sgkr.graph.KnowledgeGraph.save` and
:meth:`~sgkr.graph.KnowledgeGraph.load` write and read every one of them with
the graph (:func:`save_with`, :func:`load_with`), with no import upward.

The pair is kept consistent two ways:

- each derived file holds the SHA-256 digest of the graph file's bytes that
  its writer wrote itself (never read back: another writer may have replaced
  them since), and is used only with a graph file of that digest;
- a writer holds an exclusive lock, and a reader a shared one, on the graph
  file's folder from the graph file's write to the last derived file's
  (:func:`pair_lock`), so that two writers never leave one's graph file with
  the other's index, and a reader never reads one's graph with the other's.
  Where locks are not to be had (no ``fcntl``, or after :data:`LOCK_WAIT`
  seconds), the digest alone keeps a mismatched pair from being used.

A derived file is data, never trusted: a reader refuses what is malformed
with a :class:`~sgkr.errors.GraphFormatError`; :func:`load_with` reports it
to ``warn`` and the graph loads without it (what it held is made again on
first use).

Examples
--------
>>> from pathlib import Path
>>> with pair_lock(Path("."), exclusive=False) as locked:
...     isinstance(locked, bool)
True
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..errors import GraphFormatError, InvalidArgumentError

__all__ = ["DerivedFile", "register", "registered", "pair_lock", "save_with", "load_with",
           "when_copied", "copied", "LOCK_WAIT", "PROVIDERS"]

#: Seconds a save or load waits for the lock on the pair before going on without it.
LOCK_WAIT = 60.0
_POLL = 0.02

G = TypeVar("G")
G_contra = TypeVar("G_contra", contravariant=True)


class DerivedFile(Protocol[G_contra]):
    """A file made from a graph, saved beside its graph file and read back with it."""

    def path(self, graph_file: Path) -> Path:
        """Where the file derived from ``graph_file`` is."""

    def write(self, graph: G_contra, graph_file: Path, digest: str) -> None:
        """Make the file from ``graph``, whose graph file's bytes have SHA-256 ``digest``."""

    def read(self, graph_file: Path) -> Any:
        """What the file beside ``graph_file`` holds, read and checked on its own (the
        pair's lock held); None if there is none.

        Raises GraphFormatError naming the file if it is malformed.
        """

    def attach(self, graph: G_contra, found: Any, digest: str) -> None:
        """Give ``graph`` (loaded from a graph file of SHA-256 ``digest``) what
        :meth:`read` found, once checked against it.

        Raises GraphFormatError naming the file if it does not belong to ``graph``.
        """


_REGISTERED: list[DerivedFile[Any]] = []
#: The modules that register a derived file when imported, by name: a higher layer's, so
#: not imported here at the top. The first save or load imports them, whatever route
#: reached the graph, and importing sgkr costs nothing until then (``sgkr --version``).
PROVIDERS = ("sgkr.algorithms.lexicalfile", "sgkr.algorithms.taskfile")


def register(derived: DerivedFile[Any]) -> None:
    """Save and load ``derived`` with every graph from now on (once, however often called)."""
    if derived not in _REGISTERED:
        _REGISTERED.append(derived)


def registered() -> tuple[DerivedFile[Any], ...]:
    """The derived files saved and loaded with a graph (:data:`PROVIDERS` imported first)."""
    for name in PROVIDERS:
        importlib.import_module(name)  # registers its file; at once if already imported
    return tuple(_REGISTERED)


_COPIED: list[Callable[[Any, Any], None]] = []


def when_copied(hook: Callable[[Any, Any], None]) -> None:
    """Call ``hook(graph, copy)`` whenever a graph is copied
    (:meth:`~sgkr.graph.KnowledgeGraph.copy`), once however often registered: a table made
    of a graph can then be patched for its copy rather than made again."""
    if hook not in _COPIED:
        _COPIED.append(hook)


def copied(graph: Any, copy: Any) -> None:
    """Tell every :func:`when_copied` hook that ``copy`` was copied from ``graph``."""
    for hook in _COPIED:
        hook(graph, copy)


@contextlib.contextmanager
def pair_lock(graph_file: Path, *, exclusive: bool, wait: float = LOCK_WAIT) -> Iterator[bool]:
    """Hold the lock of ``graph_file``'s folder while the pair is written (``exclusive``)
    or read; yield whether it was had.

    The lock is the operating system's (``flock``) on the folder itself: no file is
    made for it, and a process that dies frees it.
    """
    try:
        import fcntl
    except ImportError:  # no POSIX locks: the digests keep pairs apart
        yield False
        return
    try:
        fd = os.open(graph_file.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        yield False
        return
    try:
        yield _flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, wait)
    finally:
        os.close(fd)  # frees the lock


def _flock(fd: int, kind: int, wait: float) -> bool:
    import fcntl

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, kind | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        except OSError:  # a file system without locks
            return False


def save_with(graph: G, path: str | os.PathLike[str], write: Callable[[Path], str]) -> None:
    """Write the graph file ``path`` with ``write`` (which returns the SHA-256 digest of the
    bytes it wrote), then every registered derived file, under the pair's lock."""
    file = _path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    with pair_lock(file, exclusive=True):
        digest = write(file)
        for derived in registered():
            derived.write(graph, file, digest)


def load_with(path: str | os.PathLike[str], read: Callable[[Path], bytes],
              parse: Callable[[bytes, Path], Any], make: Callable[[Any, Path], G], *,
              derived: bool = True, warn: Callable[[str], None] | None = None) -> G:
    """The graph ``make`` makes of what ``parse`` reads of the bytes ``read`` reads of
    ``path``, and, with ``derived``, what each registered derived file beside it holds,
    all read under the pair's lock.

    The graph file's bytes are let go once parsed, and the parse once the graph is
    made, before a derived file is read: a load's peak memory is the largest of
    these, not their sum. A derived file that is malformed or not the graph's is
    reported to ``warn`` (default: :func:`warnings.warn`) and left out: the graph
    never fails to load for it.
    """
    file = _path(path)
    found: list[tuple[DerivedFile[Any], Any]] = []
    problems: list[str] = []
    with pair_lock(file, exclusive=False):
        raw = read(file)
        wanted = [each for each in (registered() if derived else ())
                  if os.path.lexists(each.path(file))]
        digest = hashlib.sha256(raw).hexdigest() if wanted else ""
        data = parse(raw, file)
        del raw
        graph = make(data, file)
        del data
        for each in wanted:
            try:
                found.append((each, each.read(file)))
            except Exception as exc:  # noqa: BLE001 - never a reason to refuse the graph
                problems.append(_problem(each, file, exc))
    for each, data in found:
        if data is None:
            continue
        try:
            each.attach(graph, data, digest)
        except Exception as exc:  # noqa: BLE001 - never a reason to refuse the graph
            problems.append(_problem(each, file, exc))
    for problem in problems:
        (warn or _warn)(f"{problem}; it is made again when needed")
    return graph


def _problem(derived: DerivedFile[Any], file: Path, exc: Exception) -> str:
    """One line naming the derived file of ``file`` and what is wrong with it."""
    if isinstance(exc, GraphFormatError):
        return " ".join(str(exc).split())
    text = " ".join(str(exc).split())
    return f"{derived.path(file)}: cannot be used ({type(exc).__name__}: {text})"


def _warn(text: str) -> None:
    warnings.warn(text, stacklevel=4)


def _path(path: object) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    return Path(path)

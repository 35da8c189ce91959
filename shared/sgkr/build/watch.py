"""Changes to files and folders, as batches: what a watch loop updates its graph after.

:func:`changes` follows paths with ``watchfiles`` (the operating system's
notifications). A folder is watched with everything under it. A file is
watched through its folder, by its name: an editor or a writer that saves by
renaming a new file over the old one (as SGKR writes graph.json) replaces the
file's inode, and a watch on the file itself would see no later change. Each
batch gathers the changes of ``debounce`` seconds; with ``retry``, an empty
batch comes after that many quiet seconds, so that a loop whose last update
failed tries again even when nothing changes.

Examples
--------
>>> import pathlib, tempfile, threading
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> stop = threading.Event()
>>> batches = changes([folder / "graph.json"], stop=stop, retry=0.1)
>>> next(batches)  # nothing changed within 0.1 s
set()
>>> stop.set()
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["changes", "watched_groups"]

Keep = Callable[[str], bool]


def watched_groups(paths: Sequence[str | os.PathLike[str]]
                   ) -> tuple[list[str], list[str], set[str]]:
    """The folders to watch with everything under them, the folders of the files to
    watch (alone), and those files' paths (absolute)."""
    folders: list[str] = []
    parents: list[str] = []
    files: set[str] = set()
    for path in paths:
        absolute = os.path.abspath(path)
        if os.path.isdir(absolute):
            folders.append(absolute)
        else:
            files.add(absolute)
            parents.append(os.path.dirname(absolute))
    return list(dict.fromkeys(folders)), list(dict.fromkeys(parents)), files


def changes(paths: Sequence[str | os.PathLike[str]], *, keep: Keep | None = None,
            debounce: float = 0.4, stop: threading.Event | None = None,
            retry: float | None = None) -> Iterator[set[str]]:
    """Batches of changed paths under ``paths`` that ``keep`` keeps (default: all).

    Ends when ``stop`` is set. Raises what the watcher raises (a folder that
    went missing, say) on the next batch.
    """
    folders, parents, files = watched_groups(paths)

    # A change may be told by the real path of what was named through a link.
    files |= {os.path.realpath(f) for f in files}
    under = tuple(f.rstrip(os.sep) + os.sep for f in {*folders, *map(os.path.realpath, folders)})

    def kept(path: str) -> bool:
        inside = path in files or path.startswith(under)
        return inside and (keep is None or keep(path))

    stop = stop if stop is not None else threading.Event()
    found: queue.Queue[set[str] | BaseException] = queue.Queue()
    groups = [(group, recursive) for group, recursive in ((folders, True), (parents, False))
              if group]
    threads = [threading.Thread(target=_follow, args=(group, recursive, kept, debounce, stop,
                                                      found),
                                name="sgkr-watch", daemon=True) for group, recursive in groups]
    for thread in threads:
        thread.start()
    try:
        yield from _batches(found, stop, retry)
    finally:
        stop.set()


def _batches(found: queue.Queue[set[str] | BaseException], stop: threading.Event,
             retry: float | None) -> Iterator[set[str]]:
    while not stop.is_set():
        try:
            batch = found.get(timeout=retry if retry is not None else 0.5)
        except queue.Empty:
            if retry is not None:
                yield set()
            continue
        if isinstance(batch, BaseException):
            raise batch
        yield batch


def _follow(paths: list[str], recursive: bool, kept: Keep, debounce: float,
            stop: threading.Event, found: queue.Queue[set[str] | BaseException]) -> None:
    """Put the batches of one ``watchfiles`` watch in ``found`` until ``stop``."""
    import watchfiles

    def relevant(_change: Any, path: str) -> bool:
        return kept(path)

    try:
        for batch in watchfiles.watch(*paths, watch_filter=relevant, recursive=recursive,
                                      debounce=max(1, int(debounce * 1000)), step=50,
                                      stop_event=stop, raise_interrupt=False):
            found.put({path for _, path in batch})
    except BaseException as exc:  # handed to the loop, which says so
        found.put(exc)

"""Extracting many files: through the content-hash cache, across worker processes.

Files found in the cache are not parsed again; the others are parsed by
``jobs`` processes (default: every core): this one and ``jobs - 1`` workers.
Parsing also derives each definition's knowledge and inferred tags
(:func:`sgkr.knowledge.annotate`), so that the graph is assembled from
precomputed values. Workers take batches of the largest files, this process
the smallest ones, so that it rebuilds only the workers' share. Results
come back in the order of the files: a parallel build makes exactly the
graph a serial one makes.

A worker hands its extractions back in the cache's JSON form
(:func:`~sgkr.cache.extract_to_json`: lists, strings and numbers), which it
needs for its cache entries anyway: pickled without a memo, that form takes
a sixth of the time that pickling the records takes.

Cache entries are written by the workers once every result is handed back:
their own, and those of what this process parsed, which it encodes as it
goes and sends them (forking a writer instead would copy every page that
either process then touches). Inside :func:`extracting`, they are written
while the caller goes on with the results (a build assembles its graph), and
leaving the block waits for them.

Examples
--------
>>> mods, stats = extract_files([("a.py", "def f():\\n    pass\\n")], jobs=1)
>>> [d.qualname for d in mods[0].definitions], stats.parsed, stats.cached
(['a.f'], 1, 0)
"""

from __future__ import annotations

import io
import multiprocessing
import os
import pickle
import signal
import sqlite3
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, cast

from .cache import (
    ExtractCache,
    cache_key,
    entry_bytes,
    extract_from_json,
    extract_to_json,
    json_entry_bytes,
)
from .errors import InvalidArgumentError
from .forked import lower_priority
from .gcpause import paused_gc
from .knowledge import annotate
from .notebook import extract_source
from .records import ModuleExtract

__all__ = ["extract_files", "extracting", "ExtractStats", "default_jobs", "uses_processes",
           "MIN_PARALLEL_FILES"]

Progress = Callable[[str, int, int], None]
#: With ``jobs=None`` (automatic), fewer files to parse than this are parsed in-process.
MIN_PARALLEL_FILES = 64
# A worker's batch is this share of the text left to parse, per process.
_BATCHES_PER_JOB = 4
# Batches handed to a worker ahead, so that it never waits for the next one.
_AHEAD = 2
# A file to parse: its path, its text and its cache key (None without a cache).
_Item = tuple[str, str, "str | None"]


@dataclass(frozen=True)
class ExtractStats:
    """How the files of a build were obtained: parsed, or read from the cache."""

    files: int
    parsed: int
    cached: int
    jobs: int


def default_jobs() -> int:
    """The number of cores this process may use.

    Examples
    --------
    >>> default_jobs() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def uses_processes(jobs: int | None, count: int) -> bool:
    """Whether work on ``count`` files is shared with other processes under ``jobs``.

    Examples
    --------
    >>> uses_processes(1, 1000), uses_processes(4, 1000), uses_processes(None, 3)
    (False, True, False)
    """
    return _processes(jobs, count) > 1


def extract_files(
    files: Sequence[tuple[str, str]],
    *,
    jobs: int | None = None,
    cache: ExtractCache | str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> tuple[list[ModuleExtract], ExtractStats]:
    """Extract ``(path, text)`` files, in order, using the cache and worker processes.

    Parameters
    ----------
    files
        Relative paths and decoded texts.
    jobs
        Processes that parse, this one included; ``None`` uses every core
        when there are at least :data:`MIN_PARALLEL_FILES` files to parse,
        ``1`` parses in this process only.
    cache
        A cache folder (or :class:`~sgkr.cache.ExtractCache`); ``None`` for none.
    progress
        Called as ``progress("parse", done, total)``.

    Returns
    -------
    modules, stats
        One extraction per file, in the order given, annotated
        (:func:`sgkr.knowledge.annotate`), and how they were obtained. The
        cache entries of the parsed files are written when this returns.

    Raises
    ------
    InvalidArgumentError
        If ``jobs`` is not a positive integer or ``cache`` is not a folder.
    """
    with extracting(files, jobs=jobs, cache=cache, progress=progress) as result:
        return result


@contextmanager
def extracting(
    files: Sequence[tuple[str, str]],
    *,
    jobs: int | None = None,
    cache: ExtractCache | str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> Iterator[tuple[list[ModuleExtract], ExtractStats]]:
    """:func:`extract_files`, with the workers' cache writes going on inside the block.

    Leaving the block waits for the writes to end (or, on an interrupt, stops
    them: an entry is written whole or not at all).

    Examples
    --------
    >>> with extracting([("a.py", "x = f()\\n")], jobs=1) as (mods, stats):
    ...     [c.name for c in mods[0].definitions[0].calls]
    ['f']
    """
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer or None, got {jobs!r}")
    store = cache if isinstance(cache, ExtractCache) or cache is None else ExtractCache(cache)
    total = len(files)
    results: list[ModuleExtract | None] = [None] * total
    keys: list[str | None] = [None] * total
    hits: dict[str, ModuleExtract] = {}
    if store is not None:
        hashed = [cache_key(path, text) for path, text in files]
        hits = store.get_many(hashed)
        store.close()  # workers open their own connections: none is carried into them
        keys = list(hashed)
    todo: list[int] = []
    for index, key in enumerate(keys):
        found = hits.get(key) if key is not None else None
        if found is not None and found.path == files[index][0]:
            results[index] = found
        else:
            todo.append(index)
    cached = total - len(todo)
    if progress is not None and cached:
        progress("cache", cached, total)
    processes = _processes(jobs, len(todo))
    items: list[_Item] = [(*files[i], keys[i]) for i in todo]
    pool = _Pool(items, processes - 1, store) if processes > 1 else None
    try:
        done = cached
        for position, module in pool.run() if pool is not None else _serial(items):
            results[todo[position]] = module
            done += 1
            if progress is not None and (done % 50 == 0 or done == total):
                progress("parse", done, total)
    except BaseException:
        if pool is not None:
            pool.close(stop=True)
        raise
    if store is not None:
        if pool is None:
            _store(store, [(key, entry_bytes(key, module)) for (_, _, key), module
                           in zip(items, (results[i] for i in todo), strict=True)
                           if key is not None and module is not None])
        else:
            store.writes += len(todo)  # by the workers
    final = [r for r in results if r is not None]
    try:
        yield final, ExtractStats(total, len(todo), cached, processes)
    except BaseException as exc:
        if pool is not None:  # an interrupt stops the writes; an error lets them end
            pool.close(stop=not isinstance(exc, Exception))
        raise
    if pool is not None:
        pool.close(stop=False)


def _processes(jobs: int | None, count: int) -> int:
    """Processes that parse, this one included."""
    if count < 2:
        return 1
    if jobs is None:
        return min(default_jobs(), count) if count >= MIN_PARALLEL_FILES else 1
    return min(jobs, count)


def _serial(items: list[_Item]) -> Iterator[tuple[int, ModuleExtract]]:
    for position, (path, text, _) in enumerate(items):
        yield position, annotate(extract_source(path, text))


class _Pool:
    """This process and ``workers`` worker processes parsing ``items`` together.

    Workers take batches of the largest files, this process takes the
    smallest files one at a time, and between two files it hands each worker
    whose batch came back the next one: the processes meet in the middle of
    the list at about the same time, and this process never rebuilds what it
    parsed itself. The cache entries are written by the workers once the
    results are handed back, while the build goes on with them; this process
    encodes the entries of its own extractions and sends them to the workers.
    """

    def __init__(self, items: list[_Item], workers: int, store: ExtractCache | None) -> None:
        self.items = items
        # Largest files first: workers take from the front, this process from the back.
        self.order = deque(sorted(range(len(items)), key=lambda i: -len(items[i][1])))
        self.left = sum(len(item[1]) for item in items)
        self.share = (workers + 1) * _BATCHES_PER_JOB
        context = multiprocessing.get_context()
        self.processes: list[BaseProcess] = []
        self.connections: list[Connection] = []
        self.given: dict[Connection, deque[list[int]]] = {}
        # The encoded cache entries of the files this process parses, for the workers to write.
        self.own: list[tuple[str, bytes]] | None = [] if store is not None else None
        self.folder = str(store.folder) if store is not None else None
        try:
            for _ in range(workers):
                ours, theirs = context.Pipe()
                # Forked workers share ``items`` with this process; spawned ones get a copy.
                process = context.Process(target=_work, args=(theirs, items, self.folder),
                                          daemon=True)
                process.start()
                theirs.close()
                self.processes.append(process)
                self.connections.append(ours)
                self.given[ours] = deque()
        except BaseException:
            self.close(stop=True)
            raise

    def run(self) -> Iterator[tuple[int, ModuleExtract]]:
        """``(position in items, module)`` of every item, in the order they are ready."""
        for _ in range(_AHEAD):
            for connection in self.connections:
                self._give(connection)
        while self.order:
            yield from self._collect(timeout=0)
            if not self.order:  # the workers took the last ones
                break
            position = self.order.pop()
            self.left -= len(self.items[position][1])
            path, text, key = self.items[position]
            module = annotate(extract_source(path, text))
            if self.own is not None and key is not None:
                self.own.append((key, entry_bytes(key, module)))
            yield position, module
        while any(self.given.values()):
            yield from self._collect(timeout=None)
        own = self.own or []
        for index, connection in enumerate(self.connections):
            share = own[index :: len(self.connections)]
            if share:
                connection.send(tuple(share))
            connection.send(None)  # no more work: write the entries, then exit

    def _give(self, connection: Connection) -> None:
        """Send a worker its next batch, or the end of work if there is none and it is idle."""
        if self.order:
            # A part of what is left, so that batches shrink towards the end and the
            # processes finish together.
            quantum = self.left // self.share
            batch = [self.order.popleft()]
            size = len(self.items[batch[0]][1])
            while self.order and size + len(self.items[self.order[0]][1]) <= quantum:
                size += len(self.items[self.order[0]][1])
                batch.append(self.order.popleft())
            self.left -= size
            connection.send(batch)
            self.given[connection].append(batch)

    def _collect(self, timeout: float | None) -> Iterator[tuple[int, ModuleExtract]]:
        busy = [c for c, batches in self.given.items() if batches]
        for ready in wait(busy, timeout) if busy else ():
            connection = cast(Connection, ready)
            batch = self.given[connection].popleft()
            modules = self._receive(connection)
            self._give(connection)
            yield from zip(batch, modules, strict=True)

    def _receive(self, connection: Connection) -> list[ModuleExtract]:
        try:
            answer = connection.recv()
        except EOFError:
            codes = [p.exitcode for p in self.processes]
            raise RuntimeError(f"a parsing worker process died (exit codes {codes})") from None
        if isinstance(answer, BaseException):
            raise answer
        return [extract_from_json(form) for form in answer]

    def close(self, *, stop: bool) -> None:
        """Wait for the workers to write their entries and exit; ``stop``: end them now."""
        for process in self.processes:
            if stop and process.is_alive():
                process.terminate()
        for connection in self.connections:
            connection.close()
        for process in self.processes:
            process.join()
            process.close()
        self.processes = []
        self.connections = []
        self.given = {}


def _work(connection: Connection, items: list[_Item], folder: str | None) -> None:
    """Worker: parse the batches sent, send back their results, then write cache entries.

    A message is a batch (a list of positions in ``items``), cache entries to
    write (a tuple of ``(key, encoded entry)`` of what the build's process
    parsed), or None: the end.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the build handles an interrupt
    done: list[tuple[str | None, dict[str, Any]]] = []
    sent: list[tuple[str, bytes]] = []
    with paused_gc():
        try:
            while (message := connection.recv()) is not None:
                if isinstance(message, tuple):
                    sent.extend(message)
                    continue
                try:
                    forms = [extract_to_json(annotate(extract_source(*items[i][:2])))
                             for i in message]
                except Exception as exc:  # handed to the build, which raises it
                    _send_error(connection, exc)
                    return
                connection.send_bytes(_plain_pickle(forms))
                done.extend((items[i][2], f) for i, f in zip(message, forms, strict=True))
        except (EOFError, OSError):  # the build stopped early: nothing waits for us
            return
        connection.close()
        if folder is not None:
            # Background work now, beside the build assembling its graph: yield the CPU to it.
            lower_priority()
            _store(ExtractCache(folder),
                   [(k, json_entry_bytes(k, f)) for k, f in done if k is not None], sent)


def _send_error(connection: Connection, exc: Exception) -> None:
    try:
        connection.send(exc)
    except Exception:  # it cannot be pickled: send its story instead
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        connection.send(RuntimeError(f"a parsing worker failed:\n{text}"))


def _plain_pickle(value: object) -> bytes:
    """``value``, made of lists, dicts, strings and numbers only, pickled without a memo.

    Several times as fast as with the memo, which records every string; an
    object met twice is written twice (there is no cycle in such a value).
    """
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    try:
        pickler.fast = True  # documented as deprecated, and kept in every Python 3
    except AttributeError:  # a Python without it pickles with the memo
        pass
    pickler.dump(value)
    return buffer.getvalue()


def _store(store: ExtractCache, *encoded: Sequence[tuple[str, bytes]]) -> None:
    """Write the encoded entries, all of them in one transaction."""
    try:
        store.put_entries([row for rows in encoded for row in rows])
    except (sqlite3.Error, OSError):
        pass  # a cache that cannot be written only costs speed next time
    finally:
        store.close()

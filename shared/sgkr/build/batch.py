"""Extracting many files: through the content-hash cache, across worker processes.

Files found in the cache are not parsed again; the others are parsed by
``jobs`` processes, this one and ``jobs - 1`` workers
(:class:`concurrent.futures.ProcessPoolExecutor`), or in this process alone for
``jobs=1`` and small builds. Parsing also derives each
definition's knowledge and inferred tags (:func:`sgkr.tags.infer.annotate`), so
that the graph is assembled from precomputed values. Workers hand their
extractions back as cache entries (:func:`~sgkr.ingest.cache.entry_bytes`), which the
cache then stores as they are. Results come in the order of the files:
a parallel build makes exactly the graph a serial one makes.

Examples
--------
>>> mods, stats = extract_files([("a.py", "def f():\\n    pass\\n")], jobs=1)
>>> [d.qualname for d in mods[0].definitions], stats.parsed, stats.cached
(['a.f'], 1, 0)
"""

from __future__ import annotations

import os
import sqlite3
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from ..errors import InvalidArgumentError, SourceError
from ..gcpause import paused_gc
from ..ingest.cache import ExtractCache, Shared, cache_key, entry_bytes, entry_extract
from ..ingest.facts import extract_source
from ..records import ModuleExtract
from ..tags.infer import annotate

__all__ = ["extract_files", "ExtractStats", "default_jobs", "uses_processes",
           "MIN_PARALLEL_FILES"]

Progress = Callable[[str, int, int], None]
#: With ``jobs=None`` (automatic), fewer files to parse than this are parsed in-process.
MIN_PARALLEL_FILES = 64
# Batches per worker: enough that the workers finish together, few enough that
# handing them out costs little.
_BATCHES_PER_JOB = 4


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
        Processes that parse; ``None`` uses every core when there are at
        least :data:`MIN_PARALLEL_FILES` files to parse, ``1`` parses in this
        process only.
    cache
        A cache folder (or :class:`~sgkr.ingest.cache.ExtractCache`); ``None`` for none.
    progress
        Called as ``progress("cache", found, total)`` for what the cache holds, then
        ``progress("parse", done, total)`` from the start of parsing on.

    Returns
    -------
    modules, stats
        One extraction per file, in the order given, annotated
        (:func:`sgkr.tags.infer.annotate`), and how they were obtained. The
        cache entries of the parsed files are written when this returns.

    Raises
    ------
    InvalidArgumentError
        If ``jobs`` is not a positive integer or ``cache`` is not a folder.
    """
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer or None, got {jobs!r}")
    store = cache if isinstance(cache, ExtractCache) or cache is None else ExtractCache(cache)
    keys = [cache_key(path, text) for path, text in files] if store is not None else []
    results = _cached(files, keys, store)
    todo = [index for index, found in enumerate(results) if found is None]
    cached = len(files) - len(todo)
    if progress is not None and cached:
        progress("cache", cached, len(files))
    processes = _processes(jobs, len(todo))
    entries: list[tuple[str, bytes]] = []
    done = cached
    if progress is not None and todo:  # the bar shows while the first files are parsed
        progress("parse", done, len(files))
    for index, module, entry in _extract(files, keys, todo, processes):
        results[index] = module
        if entry is not None:
            entries.append((keys[index], entry))
        done += 1
        if progress is not None and (done % 50 == 0 or done == len(files)):
            progress("parse", done, len(files))
    if store is not None:
        _store(store, entries)
    return [r for r in results if r is not None], ExtractStats(len(files), len(todo), cached,
                                                               processes)


def _cached(files: Sequence[tuple[str, str]], keys: Sequence[str],
            store: ExtractCache | None) -> list[ModuleExtract | None]:
    """The cached extraction of each file, or None."""
    hits = store.get_many(keys) if store is not None else {}
    found = [hits.get(key) for key in keys] if keys else [None] * len(files)
    return [m if m is not None and m.path == path else None
            for m, (path, _) in zip(found, files, strict=True)]


def _processes(jobs: int | None, count: int) -> int:
    """Processes that parse."""
    if count < 2:
        return 1
    if jobs is None:
        return min(default_jobs(), count) if count >= MIN_PARALLEL_FILES else 1
    return min(jobs, count)


def _extract(files: Sequence[tuple[str, str]], keys: Sequence[str], todo: list[int],
             processes: int) -> Iterator[tuple[int, ModuleExtract, bytes | None]]:
    """``(index, module, cache entry or None without keys)`` of each file of ``todo``.

    This process is one of the ``processes``: it takes a batch whenever none of the
    workers' is done, the smallest first, and what it extracts is neither encoded for
    another process nor decoded again.
    """
    if processes == 1:
        yield from _here(files, keys, todo)
        return
    workers = processes - 1
    pool = ProcessPoolExecutor(max_workers=workers)
    shared = Shared()  # one object for equal names of all the files
    batches = deque(_batches(files, todo, processes * _BATCHES_PER_JOB))
    running: dict[Future[list[bytes]], list[int]] = {}
    try:
        while batches or running:
            while batches and len(running) < 2 * workers:  # one at work, one waiting
                batch = batches.popleft()
                running[pool.submit(_parse, [(*files[i], keys[i] if keys else "")
                                             for i in batch])] = batch
            done = [future for future in running if future.done()]
            for future in done:
                batch = running.pop(future)
                for index, entry in zip(batch, future.result(), strict=True):
                    yield index, entry_extract(entry, shared), entry if keys else None
            if batches and not done:
                yield from _here(files, keys, batches.pop())
            elif not done:
                wait(running, return_when=FIRST_COMPLETED)
    except BrokenProcessPool as exc:
        raise SourceError(f"a process parsing the sources died (killed, or out of memory?): "
                          f"{exc}; nothing of this build was kept") from exc
    finally:
        # On an error or an interrupt, the batches not started are dropped.
        pool.shutdown(wait=True, cancel_futures=True)


def _here(files: Sequence[tuple[str, str]], keys: Sequence[str],
          todo: Iterable[int]) -> Iterator[tuple[int, ModuleExtract, bytes | None]]:
    """:func:`_extract` of ``todo`` in this process."""
    for index in todo:
        module = annotate(extract_source(*files[index]))
        yield index, module, entry_bytes(keys[index], module) if keys else None


def _batches(files: Sequence[tuple[str, str]], todo: list[int], count: int) -> list[list[int]]:
    """``todo`` in about ``count`` batches of similar size in text, largest files first."""
    order = sorted(todo, key=lambda i: -len(files[i][1]))
    quantum = sum(len(files[i][1]) for i in order) // count + 1
    batches: list[list[int]] = [[]]
    size = 0
    for index in order:
        if size >= quantum:
            batches.append([])
            size = 0
        batches[-1].append(index)
        size += len(files[index][1])
    return batches


def _parse(files: list[tuple[str, str, str]]) -> list[bytes]:
    """Worker: the cache entries of ``(path, text, key)`` files (see :func:`entry_bytes`)."""
    with paused_gc():
        return [entry_bytes(key, annotate(extract_source(path, text)))
                for path, text, key in files]


def _store(store: ExtractCache, entries: Sequence[tuple[str, bytes]]) -> None:
    """Write the encoded entries, all of them in one transaction."""
    try:
        store.put_entries(entries)
    except (sqlite3.Error, OSError):
        pass  # a cache that cannot be written only costs speed next time
    finally:
        store.close()

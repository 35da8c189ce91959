"""Extracting many files: through the content-hash cache, across worker processes.

Files found in the cache are not parsed again; the others are parsed in a
pool of processes (``jobs``; default: every core), each worker writing its
own cache entries. Results come back in the order of the files, so a
parallel build makes exactly the graph a serial one makes.

Examples
--------
>>> mods, stats = extract_files([("a.py", "def f():\\n    pass\\n")], jobs=1)
>>> [d.qualname for d in mods[0].definitions], stats.parsed, stats.cached
(['a.f'], 1, 0)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from .cache import ExtractCache, cache_key, write_entry
from .errors import InvalidArgumentError
from .extract import extract_module
from .gcpause import paused_gc
from .records import ModuleExtract

__all__ = ["extract_files", "ExtractStats", "default_jobs", "MIN_PARALLEL_FILES"]

Progress = Callable[[str, int, int], None]
#: With ``jobs=None`` (automatic), fewer files to parse than this are parsed in-process.
MIN_PARALLEL_FILES = 64
# Batches per worker: enough to even out files of very different sizes.
_BATCHES_PER_JOB = 6


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
        Worker processes; ``None`` uses every core when there are at least
        :data:`MIN_PARALLEL_FILES` files to parse, ``1`` parses in-process.
    cache
        A cache folder (or :class:`~sgkr.cache.ExtractCache`); ``None`` for none.
    progress
        Called as ``progress("parse", done, total)``.

    Returns
    -------
    modules, stats
        One extraction per file, in the order given, and how they were obtained.

    Raises
    ------
    InvalidArgumentError
        If ``jobs`` is not a positive integer or ``cache`` is not a folder.
    """
    if jobs is not None and (not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer or None, got {jobs!r}")
    store = cache if isinstance(cache, ExtractCache) or cache is None else ExtractCache(cache)
    total = len(files)
    results: list[ModuleExtract | None] = [None] * total
    keys: list[str | None] = [None] * total
    todo: list[int] = []
    for index, (path, text) in enumerate(files):
        if store is not None:
            key = cache_key(path, text)
            keys[index] = key
            found = store.get(key)
            if found is not None and found.path == path:
                results[index] = found
                continue
        todo.append(index)
    cached = total - len(todo)
    if progress is not None and cached:
        progress("cache", cached, total)
    workers = _workers(jobs, len(todo))
    folder = str(store.folder) if store is not None else None
    if workers <= 1:
        for done, index in enumerate(todo, 1):
            results[index] = _extract_one(files[index], keys[index], folder)
            if progress is not None and (done % 200 == 0 or done == len(todo)):
                progress("parse", cached + done, total)
    else:
        _parallel(files, keys, todo, results, workers, folder, progress, cached)
    if store is not None:
        store.writes += len(todo)
    final = [r for r in results if r is not None]
    return final, ExtractStats(total, len(todo), cached, workers)


def _workers(jobs: int | None, count: int) -> int:
    if count < 2:
        return 1
    if jobs is None:
        return min(default_jobs(), count) if count >= MIN_PARALLEL_FILES else 1
    return min(jobs, count)


def _parallel(files: Sequence[tuple[str, str]], keys: list[str | None], todo: list[int],
              results: list[ModuleExtract | None], workers: int, folder: str | None,
              progress: Progress | None, cached: int) -> None:
    # Largest files first, dealt round-robin, so batches end at about the same time.
    order = sorted(todo, key=lambda i: -len(files[i][1]))
    count = min(len(order), workers * _BATCHES_PER_JOB)
    batches = [order[b::count] for b in range(count)]
    done = cached
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_extract_batch, [(files[i], keys[i]) for i in batch], folder)
                   for batch in batches]
        for batch, future in zip(batches, futures, strict=True):
            for index, module in zip(batch, future.result(), strict=True):
                results[index] = module
            done += len(batch)
            if progress is not None:
                progress("parse", done, len(files))


def _extract_batch(items: list[tuple[tuple[str, str], str | None]],
                   folder: str | None) -> list[ModuleExtract]:
    """Worker: extract a batch of files and write their cache entries."""
    with paused_gc():
        return [_extract_one(file, key, folder) for file, key in items]


def _extract_one(file: tuple[str, str], key: str | None, folder: str | None) -> ModuleExtract:
    path, text = file
    module = extract_module(path, text)
    if key is not None and folder is not None:
        entry = ExtractCache(folder).entry_path(key)
        try:
            write_entry(entry, key, module)
        except OSError:
            pass  # a cache that cannot be written only costs speed next time
    return module

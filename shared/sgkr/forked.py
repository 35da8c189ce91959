"""Resolving a build's calls in two processes at once.

Calls are resolved after every file is extracted, against the tables of all
of them (:class:`~sgkr.resolve.CallResolver`), in one process. A forked child
process starts with those tables already in its memory (shared until written),
so it can resolve the last modules while this process does other work of the
assembly and resolves the first ones, and hand back its call and reference
maps as JSON. A definition resolves alike whichever definitions were resolved
before it (:meth:`~sgkr.resolve.CallResolver.resolve_modules`), and modules that share a
qualified name stay in this process, in order: the maps are those one process
makes, entry for entry and in the same order.

The child is forked only on Linux (macOS's system libraries are not safe to
use in a forked child), from a process running one thread (a lock another
thread holds would never be released in the child), for at least
:data:`MIN_FORKED_MODULES` modules; otherwise, and when the child fails, this
process resolves every module.

Examples
--------
>>> from sgkr.extract import extract_module
>>> modules = [extract_module("a.py", "import b\\ndef f():\\n    b.g()\\n"),
...            extract_module("b.py", "def g():\\n    pass\\n")]
>>> refs = {}
>>> resolve_all(CallResolver(modules), modules, refs, jobs=2, meanwhile=lambda: "done")
({'a.f': {'b.g': 'exact'}}, 'done')
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .batch import default_jobs
from .errors import InvalidArgumentError
from .records import ModuleExtract, Resolution
from .resolve import CallResolver

__all__ = ["resolve_all", "MIN_FORKED_MODULES"]

Calls = dict[str, dict[str, Resolution]]
T = TypeVar("T")
#: Fewer modules than this are resolved in one process: forking would cost more.
MIN_FORKED_MODULES = 64
# The child's share of the call sites: this process does other work meanwhile.
_CHILD_SHARE = 0.6
# One string for each resolution, however many maps hold it.
_RESOLUTIONS: dict[str, Resolution] = {"exact": "exact", "inferred": "inferred", "name": "name"}


def resolve_all(resolver: CallResolver, modules: Sequence[ModuleExtract], refs: Calls, *,
                jobs: int | None, meanwhile: Callable[[], T]) -> tuple[Calls, T]:
    """``resolver.resolve_modules(modules, refs)`` and ``meanwhile()``, in two processes
    where this one may fork.

    Parameters
    ----------
    resolver
        The tables of the build (of ``modules`` and any others).
    modules
        The modules whose definitions are resolved, in build order.
    refs
        Receives the reference maps, as :meth:`~sgkr.resolve.CallResolver.resolve_modules`
        fills them.
    jobs
        Processes the build may use; ``None``: every core. Below 2, one process.
    meanwhile
        Work of this process that does not need the maps: run first, in this process.

    Returns
    -------
    calls, result
        The call maps (``resolver.depends`` is filled for every module) and what
        ``meanwhile`` returned.

    Raises
    ------
    InvalidArgumentError
        If ``jobs`` is not a positive integer or None.
    """
    if jobs is not None and (type(jobs) is not int or jobs < 1):
        raise InvalidArgumentError(f"jobs must be a positive integer or None, got {jobs!r}")
    if not _may_fork(jobs, len(modules)):
        result = meanwhile()
        return resolver.resolve_modules(modules, refs), result
    return _resolve_forked(resolver, modules, refs, _split(resolver, modules), meanwhile)


def _may_fork(jobs: int | None, count: int) -> bool:
    return (sys.platform == "linux" and (jobs if jobs is not None else default_jobs()) > 1
            and count >= MIN_FORKED_MODULES and threading.active_count() == 1)


def _split(resolver: CallResolver, modules: Sequence[ModuleExtract]) -> int:
    """Where the child's modules begin: :data:`_CHILD_SHARE` of the call sites in them,
    and none of them sharing a qualified name with another module."""
    weights = [1 + sum(len(d.calls) + len(d.uses) for d in m.definitions) for m in modules]
    head, total, split = sum(weights) * (1 - _CHILD_SHARE), 0, len(modules)
    for index, weight in enumerate(weights):
        if total >= head:
            split = index
            break
        total += weight
    shared = resolver.shared
    for index in range(len(modules) - 1, split - 1, -1):
        m = modules[index]
        if m.module in shared or any(d.qualname in shared for d in m.definitions):
            return index + 1
    return split


def _resolve_forked(resolver: CallResolver, modules: Sequence[ModuleExtract], refs: Calls,
                    split: int, meanwhile: Callable[[], T]) -> tuple[Calls, T]:
    """Resolve ``modules[:split]`` here, after ``meanwhile()``, and the others in a forked
    child."""
    head, tail = modules[:split], modules[split:]
    if not tail:
        result = meanwhile()
        return resolver.resolve_modules(head, refs), result
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: write its maps and leave without running any exit handler
        os.close(read)
        _child(resolver, tail, write)
    os.close(write)
    try:
        # On an error here the pipe is closed first: a child blocked writing to it ends.
        with os.fdopen(read, "rb") as pipe:
            result = meanwhile()
            calls = resolver.resolve_modules(head, refs)
            answer = pipe.read()
    finally:
        _, status = os.waitpid(pid, 0)
    if status != 0 or not answer:
        calls.update(resolver.resolve_modules(tail, refs))
        return calls, result
    return _merge(json.loads(answer), resolver, calls, refs), result


def _child(resolver: CallResolver, tail: Sequence[ModuleExtract], write: int) -> None:
    status = 1
    try:
        tail_refs: Calls = {}
        calls = resolver.resolve_modules(tail, tail_refs)
        depends = {m.module: sorted(resolver.depends[m.module]) for m in tail}
        data = json.dumps([calls, tail_refs, depends], separators=(",", ":")).encode()
        with os.fdopen(write, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)


def _merge(answer: list[Any], resolver: CallResolver, calls: Calls, refs: Calls) -> Calls:
    """Add the child's maps and what its modules depend on to this process's."""
    tail_calls, tail_refs, depends = answer
    for source, target in ((tail_calls, calls), (tail_refs, refs)):
        for caller, callees in source.items():
            target[caller] = {callee: _RESOLUTIONS[how] for callee, how in callees.items()}
    for module, read in depends.items():
        resolver.depends[module] = set(read)
    return calls

"""Building the knowledge–code graph from sources, a sidecar file and examples.

The pipeline: read files (:mod:`sgkr.ingest.sources`) → extract definitions and
calls (:mod:`sgkr.ingest.extract`, :mod:`sgkr.build.batch`) → assemble the graph
(:mod:`sgkr.build.assembly`: resolve calls with :mod:`sgkr.analysis.resolve`, merge
identical functions with :mod:`sgkr.analysis.merge`, write the I/O tags that
:mod:`sgkr.tags` gives) → :class:`~sgkr.graph.KnowledgeGraph`.

Examples
--------
>>> g = build_graph([("fees.py", "def fee(amount):\\n    return 0.1 + rate() * amount\\n"
...                              "def rate():\\n    return 0.2\\n")], infer_tags=False)
>>> [(e.source, e.target, e.resolution) for e in g.edges()]
[('fn:fees.fee', 'fn:fees.rate', 'exact')]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import InvalidArgumentError
from ..gcpause import paused_gc
from ..graph.model import KnowledgeGraph
from ..ingest.cache import ExtractCache, cache_key
from ..ingest.sources import SourceFile, SourceInput, nothing_read, read_sources
from ..records import Problem
from .assembly import Assembly, Plan, make_plan
from .batch import extract_files
from .options import DEFAULT_MERGE, BuildOptions
from .reuse import find_resolved, resolve, resolved_key, store_resolved

__all__ = ["build_graph", "BuildOptions", "DEFAULT_MERGE", "PreparedBuild", "prepare_build",
           "build_prepared", "assemble"]

Progress = Callable[[str, int, int], None]


def build_graph(
    sources: Iterable[SourceInput] = (),
    options: BuildOptions | None = None,
    *,
    progress: Progress | None = None,
    **kwargs: Any,
) -> KnowledgeGraph:
    """Build a knowledge–code graph.

    Parameters
    ----------
    sources
        Python files, folders, or in-memory ``(relative path, text)`` pairs.
    options
        How to build (see :class:`~sgkr.build.options.BuildOptions`; default: its defaults).
    progress
        Called as ``progress(stage, done, total)`` during long work, the
        stages in order: ``read`` (files), ``cache`` and ``parse`` (files),
        ``assemble`` (one step).
    **kwargs
        Options by name (``knowledge=``, ``examples=``, ``merge=``,
        ``infer_tags=``, ``root=``, ``max_file_bytes=``, ``exclude=``,
        ``jobs=``, ``cache=``), overriding those in ``options``.

    Returns
    -------
    KnowledgeGraph
        With ``graph.report`` holding what was read and skipped.

    Raises
    ------
    SourceError
        A path does not exist, or no Python source was found at all.
    KnowledgeFormatError
        The sidecar or the examples file is malformed.
    InvalidArgumentError
        An unknown option, merge policy or a wrong argument type.
    """
    opts = BuildOptions.from_kwargs(options, **kwargs)
    with paused_gc(long_lived=True):
        return build_prepared(prepare_build(sources, opts, progress=progress), opts,
                              progress=progress)


class PreparedBuild:
    """A build whose sources are read and whose plan is made, not yet extracted.

    :func:`build_prepared` assembles it, once: it takes the texts out of
    :attr:`files` as it extracts them, so that they are not held past extraction.

    Attributes
    ----------
    plan : Plan
    files : list of SourceFile
        The sources read, in path order.
    problems : list of Problem
        What was skipped while reading.
    started : float
        When the build began (:func:`time.perf_counter`).
    """

    __slots__ = ("plan", "files", "problems", "started")

    def __init__(self, plan: Plan, files: list[SourceFile], problems: list[Problem],
                 started: float) -> None:
        self.plan = plan
        self.files = files
        self.problems = problems
        self.started = started


def prepare_build(sources: Iterable[SourceInput], options: BuildOptions, *,
                  progress: Progress | None = None) -> PreparedBuild:
    """Check the options, make the plan and read the sources of a build.

    Raises
    ------
    SourceError, KnowledgeFormatError, InvalidArgumentError
        As :func:`build_graph`.
    """
    started = time.perf_counter()
    plan = make_plan(sources, options)
    files, problems = read_sources(plan.inputs, root=plan.base,
                                   max_file_bytes=plan.max_file_bytes, exclude=plan.exclude,
                                   gitignore=plan.gitignore, progress=progress)
    if not files:
        raise nothing_read(plan.where, problems)
    return PreparedBuild(plan, files, problems, started)


def build_prepared(prepared: PreparedBuild, options: BuildOptions, *,
                   progress: Progress | None = None) -> KnowledgeGraph:
    """Extract and assemble a prepared build (its texts are dropped once extracted).

    Raises
    ------
    InvalidArgumentError
        If the build was assembled already.
    """
    if not prepared.files:
        raise InvalidArgumentError("this build was assembled already: prepare it again")
    pairs = [(f.path, f.text) for f in prepared.files]
    prepared.files = []  # the texts are not needed past extraction: let them go
    graph = assemble(prepared.plan, pairs, prepared.problems, options,
                     started=prepared.started, progress=progress).graph
    if progress is not None:
        progress("assemble", 1, 1)
    return graph


def assemble(plan: Plan, files: list[tuple[str, str]], problems: list[Problem],
             options: BuildOptions, *, started: float,
             progress: Progress | None = None) -> Assembly:
    """Extract ``files`` (``(path, text)``, emptied once extracted) and assemble them.

    With a cache (``options.cache``), the calls of the last build with this plan are
    kept for the modules a change cannot reach (:mod:`sgkr.build.reuse`), and this
    build's are kept for the next.
    """
    cache = options.cache
    store = cache if isinstance(cache, ExtractCache) or cache is None else ExtractCache(cache)
    keys = {path: cache_key(path, text) for path, text in files} if store is not None else {}
    modules, _ = extract_files(files, jobs=options.jobs, cache=store, progress=progress)
    files.clear()  # the texts are not needed past extraction: let them go
    if progress is not None:  # one step: calls resolved, knowledge and tags attached
        progress("assemble", 0, 1)
    slot = resolved_key(str(plan.base), (plan.exclude, plan.gitignore, plan.max_file_bytes))
    previous = find_resolved(store, slot) if store is not None else None
    resolution = resolve(modules, keys, previous, store)
    assembly = Assembly.add(plan, modules, problems, started=started, resolution=resolution)
    if store is not None:
        store_resolved(store, slot, resolution.kept(modules, keys))
        store.close()
    return assembly

"""Keeping a served graph up to date: sources built on start and rebuilt as they change.

:class:`Sources` is what a server was asked to serve besides a store: source
files and folders it builds (with a knowledge file and examples), or a graph
file it loads. :class:`Watcher` follows their changes with `watchfiles` (the
operating system's notifications, polling where there are none) in a thread of
its own; after a change it updates the graph (only the files that changed are
read again), makes the new version ready, and only then puts it in the library,
so requests running meanwhile finish on the version they started with. An update
that fails (files half-written during a checkout) is reported once; the last
version stays and the next change tries again.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "fees.py").write_text("def fee(amount):\\n    return amount\\n")
>>> sources = Sources([folder], infer_tags=False)
>>> library = Library(Snapshot.of(sources.build()))
>>> _ = (folder / "fees.py").write_text("def fee(amount):\\n    return rate()\\n"
...                                     "def rate():\\n    return 0.2\\n")
>>> Watcher(library, sources).apply({str(folder / "fees.py")})
True
>>> library.current.names().resolve("rate")
['fn:fees.rate']
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..algorithms.lexicalfile import load_graph
from ..build.incremental import GraphBuilder
from ..build.options import BuildOptions
from ..errors import SGKRError
from ..graph.model import KnowledgeGraph
from .serving import Library, Snapshot

__all__ = ["Sources", "Watcher"]


def _say(text: str) -> None:
    print(f"sgkr mcp: {text}", file=sys.stderr, flush=True)


class Sources:
    """Source paths to build a graph from, or one graph file to load.

    Parameters
    ----------
    paths
        Python files, notebooks and folders; or one graph file (``graph=True``).
    options, **kwargs
        The build's options, as for :func:`~sgkr.build.build_graph`.
    graph
        ``paths`` is one graph.json to load (and load again when it changes).
    """

    def __init__(self, paths: Sequence[str | os.PathLike[str]],
                 options: BuildOptions | None = None, *, graph: bool = False,
                 **kwargs: Any) -> None:
        self.paths = [Path(p) for p in paths]
        self.graph_file = graph
        self.options = BuildOptions.from_kwargs(options, **kwargs)
        self._builder: GraphBuilder | None = None

    def watched(self) -> list[Path]:
        """The files and folders whose changes make a new version."""
        return [*self.paths, *self._side_files()]

    def _side_files(self) -> list[Path]:
        """The knowledge and examples files: read once by a build, so a change rebuilds."""
        return [Path(f) for f in (self.options.knowledge, self.options.examples)
                if isinstance(f, (str, os.PathLike))]

    def build(self) -> KnowledgeGraph:
        """The graph: built from every source, or loaded."""
        if self.graph_file:
            return load_graph(self.paths[0])
        self._builder = GraphBuilder(self.paths, self.options)
        return self._builder.build()

    def update(self, changed: Collection[str]) -> KnowledgeGraph | None:
        """The next version after the files ``changed`` changed, or None if the graph did not.

        A changed knowledge or examples file, or a graph file, means a new build (or
        load); otherwise only the sources that changed are read again.
        """
        if self.graph_file or self._builder is None or _touches(changed, self._side_files()):
            return self.build()
        graph = self._builder.update()
        report = self._builder.last_update
        return graph if report is not None and (report.changed or report.added
                                                or report.removed) else None


def _touches(changed: Iterable[str], files: Sequence[Path]) -> bool:
    wanted = {os.path.realpath(f) for f in files}
    return any(os.path.realpath(c) in wanted for c in changed)


class Watcher:
    """Puts a new version of ``sources``' graph in ``library`` whenever they change.

    Parameters
    ----------
    library
        Where the served snapshot is replaced.
    sources
        What the graph is made from.
    options
        The retriever's default options (those of every snapshot).
    say
        Where progress and problems are told (default: one line on stderr).
    """

    def __init__(self, library: Library, sources: Sources, *,
                 options: dict[str, Any] | None = None,
                 say: Callable[[str], None] = _say) -> None:
        self.library, self.sources = library, sources
        self.options = dict(options or {})
        self.say = say
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing = False

    def start(self) -> None:
        """Watch in a daemon thread until :meth:`stop`."""
        self._thread = threading.Thread(target=self._run, name="sgkr-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop watching (within a few tenths of a second)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        import watchfiles

        ignored = [os.fspath(c) for c in (self.sources.options.cache,)
                   if isinstance(c, (str, os.PathLike))]
        for changes in watchfiles.watch(*self.sources.watched(), stop_event=self._stop,
                                        watch_filter=watchfiles.DefaultFilter(
                                            ignore_paths=ignored),
                                        debounce=400, raise_interrupt=False):
            self.apply({path for _, path in changes})

    def apply(self, changed: Collection[str]) -> bool:
        """Make the next version after ``changed`` and serve it; whether there was one."""
        try:
            graph = self.sources.update(changed)
            if graph is None:
                return False
            snapshot = Snapshot.of(graph, **self.options)
        except (SGKRError, OSError) as exc:
            if not self._failing:
                self.say(f"update failed, still serving the last graph: {exc}")
            self._failing = True
            return False
        self.library.replace(snapshot)
        self._failing = False
        stats = graph.stats()
        self.say(f"graph updated; functions: {stats['functions']}")
        return True

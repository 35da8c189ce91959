"""Keeping a served graph up to date: sources built on start and rebuilt as they change.

:class:`Sources` is what a server was asked to serve besides a store: source
files and folders it builds (with a knowledge file and examples), or a graph
file it loads. :class:`Watcher` follows their changes with `watchfiles` (the
operating system's notifications, polling where there are none) in a thread of
its own; after a change it updates the graph (only the files that changed are
read again), makes the new version ready, and only then puts it in the library,
so requests running meanwhile finish on the version they started with. Files
are followed through their folders (:func:`sgkr.build.watch.changes`), so a graph
file replaced by renaming (as ``sgkr build`` writes it) is seen every time. Any
failure of an update (files half-written during a checkout, a parsing process
killed, a graph file malformed) is reported once; the last version stays served,
nothing read is lost, and the work is tried again at the next change or after
:data:`RETRY_SECONDS`.

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

from ..build.incremental import GraphBuilder
from ..build.options import BuildOptions
from ..build.watch import changes
from ..errors import SGKRError
from ..graph.model import KnowledgeGraph
from .serving import Library, Snapshot

__all__ = ["Sources", "Watcher", "RETRY_SECONDS"]

#: Seconds between tries while an update keeps failing and nothing changes.
RETRY_SECONDS = 5.0


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
        self._rebuild = False  # a new build is owed (a side file changed, or it failed)

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
            return KnowledgeGraph.load(self.paths[0])
        builder = GraphBuilder(self.paths, self.options)
        graph = builder.build()
        self._builder, self._rebuild = builder, False
        return graph

    def update(self, changed: Collection[str]) -> KnowledgeGraph | None:
        """The next version after the files ``changed`` changed, or None if the graph did not.

        A changed knowledge or examples file, or a graph file, means a new build (or
        load), owed until one succeeds; otherwise only the sources that changed are
        read again.
        """
        self._rebuild = self._rebuild or _touches(changed, self._side_files())
        if self.graph_file or self._builder is None or self._rebuild:
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

        # watchfiles' default filter (version control, caches, swap files) and the cache.
        default = watchfiles.DefaultFilter(ignore_paths=[
            os.fspath(c) for c in (self.sources.options.cache,)
            if isinstance(c, (str, os.PathLike))])

        def keep(path: str) -> bool:
            return default(watchfiles.Change.modified, path)

        try:
            for changed in changes(self.sources.watched(), keep=keep, stop=self._stop,
                                   retry=RETRY_SECONDS):
                if changed or self._failing:
                    self.apply(changed)
        except Exception as exc:  # the watch itself failed (a folder removed): say so, serve on
            self.say(f"watching stopped, still serving the last graph: {exc}")

    def apply(self, changed: Collection[str]) -> bool:
        """Make the next version after ``changed`` and serve it; whether there was one."""
        try:
            graph = self.sources.update(changed)
            if graph is None:
                self._failing = False
                return False
            snapshot = Snapshot.of(graph, **self.options)
        except Exception as exc:  # every failure: the last version stays served
            if not self._failing:
                self.say(f"update failed, still serving the last graph: {_line(exc)}")
            self._failing = True
            return False
        self.library.replace(snapshot)
        self._failing = False
        stats = graph.stats()
        self.say(f"graph updated; functions: {stats['functions']}")
        return True


def _line(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if isinstance(exc, (SGKRError, OSError)) else f"{type(exc).__name__}: {text}"

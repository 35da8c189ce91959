"""What a server serves: one version of a graph at a time, ready to answer, swapped whole.

A :class:`Snapshot` is a graph with everything its answers read made in advance
(the retriever's tables, the path search's moves, the table of names), so that
the first question is answered as fast as the next; or a graph store, read at
each question. A :class:`Library` holds the current snapshot; a new version of
the graph replaces it in one assignment, after it is ready: a request reads the
snapshot once and answers from it to the end, whatever replaces it meanwhile.

Examples
--------
>>> from sgkr import build_graph
>>> library = Library(Snapshot.of(build_graph([("m.py", "def f():\\n    return 1\\n")])))
>>> first = library.current
>>> library.replace(Snapshot.of(build_graph([("m.py", "def g():\\n    return 1\\n")])))
>>> first.names().resolve("f"), library.current.names().resolve("g")
(['fn:m.f'], ['fn:m.g'])
"""

from __future__ import annotations

import secrets
import threading
from typing import Any

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..retrieval.retriever import Retriever
from ..stores import (
    GraphReader,
    GraphStore,
    MemoryStore,
    NamesReader,
    RankingReader,
    listed_phrases,
    version_of,
)
from .answer import graph_summary
from .names import NameTable

__all__ = ["Snapshot", "Library"]


class Snapshot:
    """One version of a graph (or a graph store), ready to answer.

    Parameters
    ----------
    retriever
        The retriever with the server's default options, over a graph in memory
        or a store.
    names
        The table of the graph's names (for a store: read at the first need,
        and again when the store's graph changes).

    Attributes
    ----------
    token
        Different for every snapshot: cursors of another one are refused.
    """

    def __init__(self, retriever: Retriever, names: NameTable | None = None) -> None:
        self.retriever = retriever
        self.token = secrets.token_hex(8)
        self._names: tuple[str, NameTable] | None = ("", names) if names is not None else None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, graph: KnowledgeGraph, **options: Any) -> Snapshot:
        """A snapshot of ``graph``, every table made; ``options`` are the retriever's defaults.

        Raises
        ------
        InvalidArgumentError
            If an option is not one of :class:`~sgkr.retrieval.options.RetrieverOptions`.
        """
        retriever = Retriever(graph, **options)
        retriever.prepare()
        store = retriever.store
        if isinstance(store, MemoryStore):  # explain_dependency walks calls forward only
            store.index.prepare(reverse_calls=False, connect=True)
        names = NameTable.of(graph)
        names.suggest("")  # the table of spellings, made now
        return cls(retriever, names)

    @classmethod
    def of_store(cls, store: GraphStore | str, **options: Any) -> Snapshot:
        """A snapshot of the graph store at ``store`` (a URL or a store), reached now.

        Raises
        ------
        StoreError
            If the store cannot be reached.
        """
        snapshot = cls(Retriever(store=store, **options))
        snapshot.names()
        return snapshot

    @property
    def reader(self) -> GraphReader:
        """The graph's current version, for one request."""
        return self.retriever.store.reader()

    def version(self, reader: GraphReader) -> str:
        """This snapshot and the version of the graph ``reader`` reads (a store's changes)."""
        return f"{self.token}:{version_of(reader)}"

    def names(self, reader: GraphReader | None = None) -> NameTable:
        """The names of the graph ``reader`` reads (default: the current version)."""
        names = self._names
        if names is not None and isinstance(self.retriever.store, MemoryStore):
            return names[1]
        reader = reader or self.reader
        seen = version_of(reader)
        if names is None or names[0] != seen:
            if not isinstance(reader, NamesReader):
                raise InvalidArgumentError(
                    f"the graph store {self.retriever.store.url} cannot list its names")
            with self._lock:
                self._names = names = (seen, NameTable.of_reader(reader))
        return names[1]

    def summary(self) -> dict[str, object]:
        """Counts, build metadata, most-called functions and tag labels (the stats resource)."""
        store = self.retriever.store
        if isinstance(store, MemoryStore):
            return graph_summary(store.graph)
        reader = store.reader()
        ranking = reader if isinstance(reader, RankingReader) else None
        labels = {t.label for tags in (listed_phrases(reader) or {}).values() for t in tags}
        return {"store": store.url, "version": version_of(reader),
                "functions": ranking.function_count() if ranking is not None else None,
                "most_called": [{"id": i} for i in ranking.most_called(10)]
                if ranking is not None else [],
                "tag_labels": sorted(labels)}


class Library:
    """The snapshot a server answers from, replaced whole when the graph changes.

    Parameters
    ----------
    first
        The snapshot served until :meth:`replace` is called.
    """

    def __init__(self, first: Snapshot) -> None:
        self._current = first
        self._lock = threading.Lock()

    @property
    def current(self) -> Snapshot:
        """The snapshot to answer a new request from (read it once per request)."""
        return self._current

    def replace(self, snapshot: Snapshot) -> None:
        """Serve ``snapshot`` from now on; requests already running keep theirs."""
        with self._lock:
            self._current = snapshot

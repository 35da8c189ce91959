"""What a server serves: one version of a graph at a time, ready to answer, swapped whole.

A :class:`Snapshot` is a graph with everything its answers read made in advance
(the retriever's tables, the path search's moves, the table of names), so that
the first question is answered as fast as the next. A :class:`Library` holds the
current snapshot; a new version of the graph replaces it in one assignment, after
it is ready: a request reads the snapshot once and answers from it to the end,
whatever replaces it meanwhile.

Examples
--------
>>> from sgkr import build_graph
>>> library = Library(Snapshot.of(build_graph([("m.py", "def f():\\n    return 1\\n")])))
>>> first = library.current
>>> library.replace(Snapshot.of(build_graph([("m.py", "def g():\\n    return 1\\n")])))
>>> first.names.resolve("f"), library.current.names.resolve("g")
(['fn:m.f'], ['fn:m.g'])
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass
from typing import Any

from ..graph.model import KnowledgeGraph
from ..retrieval.retriever import Retriever
from ..stores import GraphReader, MemoryStore
from .answer import graph_summary
from .names import NameTable

__all__ = ["Snapshot", "Library"]


@dataclass(frozen=True)
class Snapshot:
    """One version of a graph, ready: its retriever, its names, and a token naming it.

    Attributes
    ----------
    retriever
        The retriever with the server's default options.
    names
        The table of the graph's function and tag names.
    version
        Different for every snapshot (cursors of another version are refused).
    """

    retriever: Retriever
    names: NameTable
    version: str

    @classmethod
    def of(cls, graph: KnowledgeGraph, **options: Any) -> Snapshot:
        """A snapshot of ``graph``; ``options`` are the retriever's defaults.

        Raises
        ------
        InvalidArgumentError
            If an option is not one of :class:`~sgkr.retrieval.retriever.RetrieverOptions`.
        """
        retriever = Retriever(graph, **options)
        retriever.prepare()
        store = retriever.store
        if isinstance(store, MemoryStore):  # explain_dependency walks calls forward only
            store.index.prepare(reverse_calls=False, connect=True)
        names = NameTable.of(graph)
        names.suggest("")  # the table of spellings, made now
        return cls(retriever, names, secrets.token_hex(8))

    @property
    def reader(self) -> GraphReader:
        """The graph, as one consistent version for one request."""
        return self.retriever.store.reader()

    def summary(self) -> dict[str, object]:
        """Counts, build metadata, most-called functions and tag labels (the stats resource)."""
        return graph_summary(self.retriever.graph)


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

"""The :class:`GraphStore` protocol: what retrieval reads from a graph, and nothing more.

A retriever asks a store for a :meth:`~GraphStore.reader`, one consistent
version of the graph for one question, and reads through it only: the tags
whose labels or aliases fold to some phrases of the question, the records of
a batch of nodes, the neighbours of a batch of nodes along one edge type, and
the bounded path search between tags. Every call takes a batch, so a store on
a server answers a question in a few round trips, and the retrieving process
holds what the question reached, never the graph.

Two stores implement it: :class:`~sgkr.stores.memory.MemoryStore`, the
networkx graph in this process (the default), and
:class:`~sgkr.stores.falkordb.FalkorDBStore`, a graph pushed to a FalkorDB
server. Both give the same answers to every question.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import as_store
>>> code = "def f():\\n    return g()\\ndef g():\\n    return 1\\n"
>>> store = as_store(build_graph([("m.py", code)]))
>>> isinstance(store, GraphStore), store.url
(True, 'memory:')
>>> store.reader().neighbours(["fn:m.f"], "calls", "out")
{'fn:m.f': ('fn:m.g',)}
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal, Protocol, runtime_checkable

from ..records import EdgeType, FunctionNode, Resolution, SolvedTask
from ..tags.vocabulary import PhraseWords, TagInfo

__all__ = ["GraphStore", "GraphReader", "NamesReader", "RankingReader", "TagInfo", "NodeKind",
           "Side", "Path", "FunctionName", "EdgeKind", "PhrasesReader", "VersionedReader",
           "TasksReader"]

#: What a node is: ``tag``, or the kind of a function node.
NodeKind = Literal["tag", "function", "method", "module"]
#: Which end of an edge a node is on: ``out`` follows edges from it, ``in`` to it.
Side = Literal["out", "in"]
Path = tuple[str, ...]
#: A function node's id, bare name and qualified names.
FunctionName = tuple[str, str, tuple[str, ...]]
#: An edge's type and, for calls and references, how it was resolved.
EdgeKind = tuple[EdgeType, Resolution | None]


@runtime_checkable
class GraphReader(Protocol):
    """One consistent version of a graph, read by one question (see the module docs).

    Ids a method does not know are left out of what it returns; every
    method raises :class:`~sgkr.errors.StoreError` when the store cannot
    answer, never returns part of an answer.
    """

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias (0 for a graph without tags)."""
        ...

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags named by each phrase, a phrase being folded words joined by spaces.

        Tags of one phrase are sorted by id; phrases naming none are left out.
        """
        ...

    def tags(self, ids: Collection[str]) -> dict[str, TagInfo]:
        """The tag nodes among ``ids``."""
        ...

    def kinds(self, ids: Collection[str]) -> dict[str, NodeKind]:
        """What each node among ``ids`` is (``tag`` or a function kind)."""
        ...

    def functions(self, ids: Collection[str]) -> dict[str, FunctionNode]:
        """The function records among ``ids``."""
        ...

    def neighbours(self, ids: Collection[str], edge_type: EdgeType,
                   side: Side) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one ``edge_type`` edge away from each of ``ids`` (every id known)."""
        ...

    def find_paths(self, inputs: Sequence[str], outputs: Sequence[str], *, max_depth: int,
                   max_paths: int, reverse_calls: bool) -> list[Path]:
        """:func:`sgkr.algorithms.paths.find_paths` on this graph."""
        ...

    def connect_paths(self, nodes: Sequence[str], *, max_depth: int,
                      max_paths: int) -> list[Path]:
        """:func:`sgkr.algorithms.paths.connect_paths` on this graph."""
        ...


@runtime_checkable
class NamesReader(GraphReader, Protocol):
    """A reader that also lists the names of its functions and tells its edges apart, for an
    agent that names functions and asks how two of them are joined (both built-in stores).
    """

    def function_names(self) -> list[FunctionName]:
        """The id, bare name and qualified names of every function node, sorted by id."""
        ...

    def edge_kinds(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], EdgeKind]:
        """The type and resolution of the edge ``a -> b`` of each pair that is an edge."""
        ...


@runtime_checkable
class RankingReader(GraphReader, Protocol):
    """A reader with what SGKR's graph stage reads beyond tags and paths (both built-in
    stores): the first stage's BM25 hits, names, every edge of a node, call counts.
    """

    def curated_tags(self) -> bool:
        """Whether the graph's tags may be curated (its meta ``curated_tags``, default true)."""
        ...

    def function_count(self) -> int:
        """The number of function nodes."""
        ...

    def calling_count(self) -> int:
        """How many function nodes call some function."""
        ...

    def most_called(self, n: int) -> list[str]:
        """The ``n`` function ids with the most callers, ties by id."""
        ...

    def callers_and_sizes(self, ids: Collection[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers, and its text's length."""
        ...

    def around(self, ids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one edge of any type away from each of ``ids``, either way."""
        ...

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        ...

    def lexical_search(self, question: str, k: int, *,
                       scaled: bool = True) -> list[tuple[str, float]]:
        """The ``k`` best BM25 hits of ``question`` (:mod:`sgkr.algorithms.lexical`)."""
        ...


@runtime_checkable
class GraphStore(Protocol):
    """Where a retriever's graph lives: in this process, or on a graph database server."""

    @property
    def url(self) -> str:
        """Where the graph is, for messages (``memory:``, ``falkordb://host:port/name``)."""
        ...

    def reader(self) -> GraphReader:
        """The current version of the graph, for one question."""
        ...


@runtime_checkable
class PhrasesReader(GraphReader, Protocol):
    """A reader that lists its whole tag vocabulary at once (both built-in stores), for
    the matchers that compare a question with every tag phrase."""

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase of a tag label or alias, with the tags it names."""
        ...

    def phrase_words(self) -> PhraseWords:
        """Each word of those phrases, with the phrases holding it."""
        ...


@runtime_checkable
class TasksReader(GraphReader, Protocol):
    """A reader of a graph built from solved tasks: the earlier questions and what their
    solutions use (both built-in stores; none for a graph built from code alone)."""

    def tasks(self) -> tuple[SolvedTask, ...]:
        """The graph's solved tasks (:attr:`sgkr.graph.KnowledgeGraph.tasks`)."""
        ...


@runtime_checkable
class VersionedReader(GraphReader, Protocol):
    """A reader of one version among those a store keeps (FalkorDB's: a push writes the
    next while questions read the current one); a graph in memory has one version."""

    version: str

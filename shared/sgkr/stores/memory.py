"""The default graph store: the networkx graph in this process.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import TagNode
>>> g = KnowledgeGraph()
>>> g.add_tag(TagNode("tag:card scheme", "card scheme", ("scheme",)))
>>> MemoryStore(g).phrase_tags(["scheme", "fee"])
{'scheme': [TagInfo(id='tag:card scheme', label='card scheme', role='input', weight=1.0)]}
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence

from ..algorithms.paths import SearchIndex, connect_paths, find_paths
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import EdgeType, FunctionNode, Role, TagNode
from ..text import fold
from .base import EdgeKind, FunctionName, NodeKind, Path, Side, TagInfo

__all__ = ["MemoryStore"]


class MemoryStore:
    """A :class:`~sgkr.stores.base.GraphStore` over a :class:`~sgkr.graph.KnowledgeGraph`.

    It is its own reader: the graph must not change while it retrieves.
    The phrase table and the search's tables are made on first use, once.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    """

    url = "memory:"

    def __init__(self, graph: KnowledgeGraph) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        self.graph = graph
        self.index = SearchIndex(graph)
        self._phrases: dict[str, list[TagInfo]] | None = None
        self._names: dict[str, list[str]] | None = None
        self._longest = 0
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, KnowledgeGraph]:
        return {"graph": self.graph}  # the lock cannot be pickled; the tables are a cache

    def __setstate__(self, state: dict[str, KnowledgeGraph]) -> None:
        self.__init__(state["graph"])  # type: ignore[misc]

    def reader(self) -> MemoryStore:
        """This store: a graph in memory is one version."""
        return self

    def _phrase_table(self) -> dict[str, list[TagInfo]]:
        table = self._phrases
        if table is None:
            with self._lock:
                table = self._phrases
                if table is None:
                    table = {}
                    for tag in self.graph.tags():
                        info = self._info(tag)
                        for phrase in (tag.label, *tag.aliases):
                            key = " ".join(fold(phrase))
                            if key and info not in table.setdefault(key, []):
                                table[key].append(info)
                    self._longest = max((k.count(" ") + 1 for k in table), default=0)
                    self._phrases = table
        return table

    def _info(self, tag: TagNode) -> TagInfo:
        return TagInfo(tag.id, tag.label, _role(self.graph, tag.id), tag.weight)

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase of a tag label or alias, with the tags it names."""
        return {p: list(tags) for p, tags in self._phrase_table().items()}

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias."""
        self._phrase_table()
        return self._longest

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags each phrase names, sorted by id."""
        table = self._phrase_table()
        return {p: list(table[p]) for p in phrases if p in table}

    def tags(self, ids: Collection[str]) -> dict[str, TagInfo]:
        """The tag nodes among ``ids``."""
        records = {i: self.graph.get(i) for i in ids}
        return {i: self._info(r) for i, r in records.items() if isinstance(r, TagNode)}

    def kinds(self, ids: Collection[str]) -> dict[str, NodeKind]:
        """``tag`` or the function kind of each node among ``ids``."""
        found: dict[str, NodeKind] = {}
        for i in ids:
            record = self.graph.get(i)
            if record is not None:
                found[i] = "tag" if isinstance(record, TagNode) else record.kind
        return found

    def functions(self, ids: Collection[str]) -> dict[str, FunctionNode]:
        """The function records among ``ids``."""
        records = {i: self.graph.get(i) for i in ids}
        return {i: r for i, r in records.items() if isinstance(r, FunctionNode)}

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        table = self._names
        if table is None:
            found: dict[str, list[str]] = {}
            for f in self.graph.functions():
                if f.kind != "module":
                    found.setdefault(f.name, []).append(f.id)
            table = self._names = {n: sorted(ids) for n, ids in found.items()}
        return {n: list(table[n]) for n in names if n in table}

    def neighbours(self, ids: Collection[str], edge_type: EdgeType,
                   side: Side) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one ``edge_type`` edge away from each of ``ids``."""
        succ, pred = self.graph.adjacency()
        adjacency = succ if side == "out" else pred
        return {i: tuple(sorted(n for n, data in adjacency[i].items()
                                if data["type"] == edge_type))
                for i in ids if i in adjacency}

    def find_paths(self, inputs: Sequence[str], outputs: Sequence[str], *, max_depth: int,
                   max_paths: int, reverse_calls: bool) -> list[Path]:
        """:func:`sgkr.algorithms.paths.find_paths` with this store's shared index."""
        return find_paths(self.graph, inputs, outputs, max_depth=max_depth,
                          max_paths=max_paths, reverse_calls=reverse_calls, index=self.index)

    def connect_paths(self, nodes: Sequence[str], *, max_depth: int,
                      max_paths: int) -> list[Path]:
        """:func:`sgkr.algorithms.paths.connect_paths` with this store's shared index."""
        return connect_paths(self.graph, nodes, max_depth=max_depth, max_paths=max_paths,
                             index=self.index)

    def function_names(self) -> list[FunctionName]:
        """The id, bare name and qualified names of every function node, sorted by id."""
        return [(f.id, f.name, f.qualnames) for f in self.graph.functions()]

    def edge_kinds(self, pairs: Collection[tuple[str, str]]) -> dict[tuple[str, str], EdgeKind]:
        """The type and resolution of the edge ``a -> b`` of each pair that is an edge."""
        succ, _ = self.graph.adjacency()
        found: dict[tuple[str, str], EdgeKind] = {}
        for a, b in pairs:
            data = succ.get(a, {}).get(b)
            if data is not None:
                found[(a, b)] = (data["type"], data.get("resolution"))  # type: ignore[assignment]
        return found

    def prepare(self, *, reverse_calls: bool = True, connect: bool = True) -> None:
        """Make now the tables a retriever with these options will use (first-use cost)."""
        self._phrase_table()
        self.named(())
        self.index.prepare(reverse_calls=reverse_calls, connect=connect)


def _role(graph: KnowledgeGraph, tag: str) -> Role:
    succ, pred = graph.adjacency()
    consumed, produced = bool(succ[tag]), bool(pred[tag])
    if consumed and produced:
        return "both"
    return "output" if produced else "input"

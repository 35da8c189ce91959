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

from ..algorithms.lexical import attached, index_of
from ..algorithms.paths import SearchIndex, connect_paths, find_paths
from ..algorithms.walk import call_counts
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
        self._callers: dict[str, int] | None = None
        self._central: list[str] | None = None
        self._calling = 0
        self._sizes: dict[str, int] = {}
        self._files: dict[str, list[tuple[str, int, int]]] | None = None
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
                    for tag in self.graph.tags():  # by id: each list is sorted
                        info = self._info(tag)
                        # Each phrase of a tag once (a label and an alias may fold alike);
                        # no look into the list, which thousands of tags may share.
                        for key in dict.fromkeys(" ".join(fold(p))
                                                 for p in (tag.label, *tag.aliases)):
                            if key:
                                table.setdefault(key, []).append(info)
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

    def around(self, ids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one edge of any type away from each of ``ids``, either way."""
        succ, pred = self.graph.adjacency()
        return {n: tuple(sorted({*succ[n], *pred[n]})) for n in ids if n in succ}

    def _call_tables(self) -> tuple[dict[str, int], list[str]]:
        """Each function's callers, the functions most-called first, and how many call."""
        if self._callers is None or self._central is None:
            with self._lock:
                if self._callers is None:
                    succ, _ = self.graph.adjacency()
                    callers = call_counts(self.graph)
                    self._calling = sum(1 for n in callers if any(
                        d["type"] == "calls" for d in succ[n].values()))
                    self._central = sorted(callers, key=lambda n: (-callers[n], n))
                    self._callers = callers
        assert self._callers is not None and self._central is not None
        return self._callers, self._central

    def callers_and_sizes(self, ids: Collection[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers, and its text's length (each measured once)."""
        callers, _ = self._call_tables()
        sizes = self._sizes
        if not sizes:  # the lexical index, when the graph has one, knows most of them
            index = attached(self.graph)
            if index is not None:
                sizes.update(index.length_of())
        for node in ids:
            if node not in sizes:
                sizes[node] = max(len(self.graph.function(node).text), 1)
        return {n: callers[n] for n in ids}, {n: sizes[n] for n in ids}

    def most_called(self, n: int) -> list[str]:
        """The ``n`` function ids with the most callers, ties by id."""
        return self._call_tables()[1][:n]

    def calling_count(self) -> int:
        """How many function nodes call some function."""
        self._call_tables()
        return self._calling

    def function_count(self) -> int:
        """The number of function nodes."""
        return len(self._call_tables()[0])

    def curated_tags(self) -> bool:
        """Whether the graph's tags may be curated (its meta ``curated_tags``, default true)."""
        return bool(self.graph.meta.get("curated_tags", True))

    def lexical_search(self, question: str, k: int, *,
                       scaled: bool = True) -> list[tuple[str, float]]:
        """The ``k`` best BM25 hits of ``question`` in the graph's lexical index (the one
        persisted with it, or one made on first use: :func:`~sgkr.algorithms.lexical.index_of`).
        """
        return index_of(self.graph).search(question, k, scaled=scaled)

    def in_files(self, paths: Collection[str]) -> dict[str, list[tuple[str, int, int]]]:
        """The functions (module bodies aside) defined in the file each path names, with
        their first and last lines: the graph's file that ends the path (an absolute path
        or one with backslashes names a graph file relative to the sources' root)."""
        table = self._files
        if table is None:
            found: dict[str, list[tuple[str, int, int]]] = {}
            for f in self.graph.functions():
                if f.kind != "module":
                    for s in f.sources:
                        found.setdefault(s.file, []).append((f.id, s.start_line, s.end_line))
            table = self._files = {k: sorted(v) for k, v in found.items()}
        out: dict[str, list[tuple[str, int, int]]] = {}
        for path in paths:
            parts = tuple(p for p in path.replace("\\", "/").split("/") if p not in ("", "."))
            for size in range(min(len(parts), 32), 0, -1):
                hit = table.get("/".join(parts[-size:]))
                if hit is not None:
                    out[path] = list(hit)
                    break
        return out

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

    def prepare(self, *, reverse_calls: bool = True, connect: bool = True,
                paths: bool = True) -> None:
        """Make now the tables a retriever with these options will use (first-use cost):
        the path search's only if it searches ``paths``."""
        self._phrase_table()
        self.named(())
        self._call_tables()
        if paths:
            self.index.prepare(reverse_calls=reverse_calls, connect=connect)


def _role(graph: KnowledgeGraph, tag: str) -> Role:
    succ, pred = graph.adjacency()
    consumed, produced = bool(succ[tag]), bool(pred[tag])
    if consumed and produced:
        return "both"
    return "output" if produced else "input"

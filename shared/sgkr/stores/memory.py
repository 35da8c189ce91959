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

from collections.abc import Collection, Sequence

from ..algorithms.lexical import attached, index_of
from ..algorithms.paths import SearchIndex, connect_paths, find_paths
from ..algorithms.summary import GraphSummary, PhraseWords, summary_of
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import EdgeType, FunctionNode, SolvedTask, TagNode
from .base import EdgeKind, FunctionName, NodeKind, Path, Side, TagInfo

__all__ = ["MemoryStore"]


class MemoryStore:
    """A :class:`~sgkr.stores.base.GraphStore` over a :class:`~sgkr.graph.KnowledgeGraph`.

    It is its own reader: the graph must not change while it retrieves.
    Its tables are the graph's summary (:func:`~sgkr.algorithms.summary.summary_of`:
    persisted with a saved graph, else made on first use, once) and the search's
    tables (made on first use).

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
        self._infos: dict[str, TagInfo] = {}
        self._kinds: dict[str, NodeKind] = {}
        self._around: dict[str, tuple[str, ...]] = {}
        self._central: list[str] | None = None
        self._sizes: dict[str, int] = {}
        self._files: dict[str, list[tuple[str, int, int]]] | None = None

    def __getstate__(self) -> dict[str, KnowledgeGraph]:
        return {"graph": self.graph}  # the tables are a cache, made again

    def __setstate__(self, state: dict[str, KnowledgeGraph]) -> None:
        self.__init__(state["graph"])  # type: ignore[misc]

    def reader(self) -> MemoryStore:
        """This store: a graph in memory is one version."""
        return self

    def _summary(self) -> GraphSummary:
        return summary_of(self.graph)

    def _info(self, tag_id: str) -> TagInfo:
        info = self._infos.get(tag_id)
        if info is None:  # made when first asked: most tags never are
            tag = self.graph.tag(tag_id)
            info = self._infos[tag_id] = TagInfo(tag_id, tag.label,
                                                 self._summary().roles[tag_id], tag.weight)
        return info

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase of a tag label or alias, with the tags it names."""
        return {p: [self._info(t) for t in ids] for p, ids in self._summary().phrases.items()}

    def phrase_words(self) -> PhraseWords:
        """Each word of the folded phrases, with the phrases holding it."""
        return self._summary().words

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias."""
        return self._summary().longest

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags each phrase names, sorted by id."""
        table = self._summary().phrases
        return {p: [self._info(t) for t in table[p]] for p in phrases if p in table}

    def tags(self, ids: Collection[str]) -> dict[str, TagInfo]:
        """The tag nodes among ``ids``."""
        return {i: self._info(i) for i in ids if isinstance(self.graph.get(i), TagNode)}

    def kinds(self, ids: Collection[str]) -> dict[str, NodeKind]:
        """``tag`` or the function kind of each node among ``ids``."""
        known = self._kinds
        # Each node's kind is read off its record once (a question asks of every node
        # its walk reached: hundreds, most of them asked again by the next question).
        for i in ids:
            if i not in known:
                record = self.graph.get(i)
                if record is not None:
                    known[i] = "tag" if isinstance(record, TagNode) else record.kind
        return {i: known[i] for i in ids if i in known}

    def functions(self, ids: Collection[str]) -> dict[str, FunctionNode]:
        """The function records among ``ids``."""
        records = {i: self.graph.get(i) for i in ids}
        return {i: r for i, r in records.items() if isinstance(r, FunctionNode)}

    def named(self, names: Collection[str]) -> dict[str, list[str]]:
        """The ids of the function nodes (module bodies aside) of each bare name, sorted."""
        table = self._summary().named
        return {n: list(table[n]) for n in names if n in table}

    def around(self, ids: Collection[str]) -> dict[str, tuple[str, ...]]:
        """Sorted nodes one edge of any type away from each of ``ids``, either way."""
        known = self._around
        missing = [n for n in ids if n not in known]
        if missing:  # each node's once: the walks of most questions pass the same nodes
            succ, pred = self.graph.adjacency()
            known.update((n, tuple(sorted({*succ[n], *pred[n]}))) for n in missing
                         if n in succ)
        return {n: known[n] for n in ids if n in known}

    def callers_and_sizes(self, ids: Collection[str]) -> tuple[dict[str, int], dict[str, int]]:
        """Each function's number of callers, and its text's length (each measured once)."""
        callers = self._summary().callers
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
        if self._central is None:
            callers = self._summary().callers
            self._central = sorted(callers, key=lambda f: (-callers[f], f))
        return self._central[:n]

    def calling_count(self) -> int:
        """How many function nodes call some function."""
        return self._summary().calling

    def function_count(self) -> int:
        """The number of function nodes."""
        return len(self._summary().callers)

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

    def tasks(self) -> tuple[SolvedTask, ...]:
        """The graph's solved tasks."""
        return self.graph.tasks

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
        self._summary()
        self.most_called(0)
        if paths:
            self.index.prepare(reverse_calls=reverse_calls, connect=connect)


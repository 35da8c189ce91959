"""The knowledge–code graph: function nodes, tag nodes, and calls/consumes/produces edges.

A thin, typed wrapper over a :class:`networkx.DiGraph`. Each node carries
its record (:class:`~sgkr.records.FunctionNode` or
:class:`~sgkr.records.TagNode`) under the attribute ``record``; each edge its
``type`` and, for calls, its ``resolution``.

Examples
--------
>>> from sgkr.records import FunctionNode, SourceSpan, TagNode, Edge
>>> g = KnowledgeGraph()
>>> g.add_function(FunctionNode("fn:f", "f", ("m.f",), "def f(): ...", "Does f.",
...                             (SourceSpan("m.py", 1, 1),), "function"))
>>> g.add_tag(TagNode(tag_id("Fees"), "fees"))
>>> g.add_edge(Edge("fn:f", "tag:fee", "produces"))
>>> g.stats()["functions"], [t.label for t in g.tags()]
(1, ['fees'])
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import networkx as nx

from .errors import InvalidArgumentError, NodeNotFoundError
from .records import BuildReport, Edge, FunctionNode, TagNode
from .text import fold

__all__ = ["KnowledgeGraph", "tag_id"]


def tag_id(label: str) -> str:
    """The node id of a tag: ``tag:`` and its folded words.

    Examples
    --------
    >>> tag_id("Fee IDs")
    'tag:fee id'
    """
    folded = fold(label)
    if not folded:
        raise InvalidArgumentError(f"tag label {label!r} has no words")
    return "tag:" + " ".join(folded)


class KnowledgeGraph:
    """A knowledge–code dependency graph.

    Parameters
    ----------
    graph
        An existing :class:`networkx.DiGraph` whose nodes carry ``type`` and
        ``record`` attributes, as this class makes them. Default: empty.
    meta
        Free-form build information kept in graph.json (merge policy, root, ...).
    """

    def __init__(self, graph: nx.DiGraph | None = None, *,
                 meta: Mapping[str, Any] | None = None) -> None:
        self._g: nx.DiGraph = graph if graph is not None else nx.DiGraph()
        self.meta: dict[str, Any] = dict(meta or {})
        self.report: BuildReport | None = None

    # -- building --------------------------------------------------------------

    def add_function(self, node: FunctionNode) -> None:
        """Add a function node, replacing one with the same id."""
        self._g.add_node(node.id, type="function", record=node)

    def add_tag(self, node: TagNode) -> None:
        """Add a tag node, or merge its aliases into the tag of the same id."""
        if node.id in self._g:
            old = self.tag(node.id)
            aliases = tuple(dict.fromkeys((*old.aliases, *node.aliases)))
            aliases = tuple(a for a in aliases if a != old.label)
            node = TagNode(old.id, old.label, aliases)
        self._g.add_node(node.id, type="tag", record=node)

    def add_edge(self, edge: Edge) -> None:
        """Add an edge between existing nodes; an ``exact`` call wins over a ``name`` one."""
        self.add_edges([edge])

    def add_edges(self, edges: Iterable[Edge]) -> None:
        """Add many edges as :meth:`add_edge` would one by one, in one batch (builds use it)."""
        batch: dict[tuple[str, str], dict[str, str]] = {}
        for edge in edges:
            for end in (edge.source, edge.target):
                if end not in self._g:
                    raise NodeNotFoundError(
                        f"edge {edge.source} -> {edge.target}: no node {end!r}")
            key = (edge.source, edge.target)
            old = batch.get(key) or self._g.get_edge_data(*key)
            if old is not None and old.get("resolution") == "exact":
                continue
            attrs: dict[str, str] = {"type": edge.type}
            if edge.resolution is not None:
                attrs["resolution"] = edge.resolution
            batch[key] = attrs
        self._g.add_edges_from((s, t, attrs) for (s, t), attrs in batch.items())

    def remove_nodes(self, node_ids: Iterable[str]) -> None:
        """Remove nodes and their edges; ids not in the graph are ignored (rebuilds use it)."""
        self._g.remove_nodes_from(list(node_ids))

    def remove_edges(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Remove edges given as ``(source, target)``; missing ones are ignored."""
        self._g.remove_edges_from(list(pairs))

    # -- reading ---------------------------------------------------------------

    @property
    def nx(self) -> nx.DiGraph:
        """The underlying networkx graph (do not mutate it while retrieving)."""
        return self._g

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._g

    def __len__(self) -> int:
        return int(self._g.number_of_nodes())

    def node_type(self, node_id: str) -> str:
        """``function`` or ``tag``."""
        if node_id not in self._g:
            raise NodeNotFoundError(f"no node {node_id!r} in the graph")
        return str(self._g.nodes[node_id]["type"])

    def function(self, node_id: str) -> FunctionNode:
        """The function node with this id."""
        record = self._g.nodes[node_id]["record"] if node_id in self._g else None
        if not isinstance(record, FunctionNode):
            raise NodeNotFoundError(f"no function node {node_id!r} in the graph")
        return record

    def tag(self, node_id: str) -> TagNode:
        """The tag node with this id."""
        record = self._g.nodes[node_id]["record"] if node_id in self._g else None
        if not isinstance(record, TagNode):
            raise NodeNotFoundError(f"no tag node {node_id!r} in the graph")
        return record

    def functions(self) -> Iterator[FunctionNode]:
        """Function nodes, sorted by id."""
        for node_id in sorted(self._g):
            record = self._g.nodes[node_id]["record"]
            if isinstance(record, FunctionNode):
                yield record

    def tags(self) -> Iterator[TagNode]:
        """Tag nodes, sorted by id."""
        for node_id in sorted(self._g):
            record = self._g.nodes[node_id]["record"]
            if isinstance(record, TagNode):
                yield record

    def edges(self) -> Iterator[Edge]:
        """Edges, sorted by (source, target)."""
        for source, target in sorted(self._g.edges()):
            data = self._g.edges[source, target]
            yield Edge(source, target, data["type"], data.get("resolution"))

    def find(self, name: str) -> list[str]:
        """Ids of function nodes whose id, bare name or a qualname (or its tail) is ``name``."""
        if name in self._g and self._g.nodes[name]["type"] == "function":
            return [name]
        suffix = "." + name
        return [
            f.id for f in self.functions()
            if f.name == name or any(q == name or q.endswith(suffix) for q in f.qualnames)
        ]

    def _require(self, node_id: str) -> None:
        if node_id not in self._g:
            raise NodeNotFoundError(f"no node {node_id!r} in the graph")

    def callees(self, node_id: str) -> list[str]:
        """Function ids that ``node_id`` calls, sorted."""
        self._require(node_id)
        return sorted(t for t in self._g.successors(node_id)
                      if self._g.edges[node_id, t]["type"] == "calls")

    def callers(self, node_id: str) -> list[str]:
        """Function ids that call ``node_id``, sorted."""
        self._require(node_id)
        return sorted(s for s in self._g.predecessors(node_id)
                      if self._g.edges[s, node_id]["type"] == "calls")

    def consumers(self, tag: str) -> list[str]:
        """Function ids that consume the tag ``tag`` (an id)."""
        return sorted(self._g.successors(tag)) if tag in self._g else []

    def producers(self, tag: str) -> list[str]:
        """Function ids that produce the tag ``tag`` (an id)."""
        return sorted(self._g.predecessors(tag)) if tag in self._g else []

    def stats(self) -> dict[str, Any]:
        """Counts of nodes and edges, by kind and by resolution."""
        # One pass over networkx's plain dicts: this runs after every build.
        records = [attrs["record"] for attrs in self._g._node.values()]
        kinds = Counter(r.kind for r in records if isinstance(r, FunctionNode))
        edge_types: Counter[str] = Counter()
        resolutions: Counter[str] = Counter()
        for targets in self._g._succ.values():
            for data in targets.values():
                edge_types[data["type"]] += 1
                if data["type"] == "calls":
                    resolutions[data.get("resolution", "exact")] += 1
        return {
            "functions": sum(kinds.values()),
            "kinds": dict(sorted(kinds.items())),
            "tags": sum(1 for r in records if isinstance(r, TagNode)),
            "edges": dict(sorted(edge_types.items())),
            "call_edges": dict(sorted(resolutions.items())),
        }

    def most_called(self, n: int = 10) -> list[tuple[str, int]]:
        """The ``n`` function ids with the most callers, with their caller counts."""
        counts = [(f.id, len(self.callers(f.id))) for f in self.functions()]
        counts.sort(key=lambda item: (-item[1], item[0]))
        return [c for c in counts[:n] if c[1] > 0]

    # -- persistence -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The graph.json document (see :mod:`sgkr.store`)."""
        from .store import graph_to_dict

        return graph_to_dict(self)

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "graph") -> KnowledgeGraph:
        """Validate a graph.json document and build the graph from it."""
        from .store import graph_from_dict

        return graph_from_dict(data, where=where)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write graph.json atomically (a crash never leaves a half-written file)."""
        from .store import save_graph

        save_graph(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> KnowledgeGraph:
        """Read and validate graph.json; refuse what is malformed, naming the problem."""
        from .store import load_graph

        return load_graph(path)

    def __repr__(self) -> str:
        s = self.stats()
        return f"KnowledgeGraph(functions={s['functions']}, tags={s['tags']}, edges={s['edges']})"

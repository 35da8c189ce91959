"""The knowledge–code graph: function nodes, tag nodes, and calls/references/consumes/produces
edges.

A thin, typed wrapper over a :class:`networkx.DiGraph`. Each node carries
its record (:class:`~sgkr.records.FunctionNode` or
:class:`~sgkr.records.TagNode`) under the attribute ``record``; each edge its
``type`` and, for calls and references, its ``resolution`` (``exact``,
``inferred`` or ``name``): plain edge attributes.

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

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from operator import attrgetter
from pathlib import Path
from typing import Any

import networkx as nx

from ..errors import NodeNotFoundError
from ..gcpause import paused_gc
from ..records import BuildReport, Edge, EdgeRow, FunctionNode, SolvedTask, TagNode
from ..tags.labels import tag_id
from . import batch, derived, jsonfile, jsonlines, queries, tasks
from .views import Neighbours

__all__ = ["KnowledgeGraph", "EdgeRow", "tag_id"]

_by_id = attrgetter("id")


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
        self.tasks: tuple[SolvedTask, ...] = ()
        self._revision = 0

    @property
    def revision(self) -> int:
        """How many changes were made to this graph: tables made of it are kept with the
        revision they were made at, and made again once it differs."""
        return self._revision

    # -- building --------------------------------------------------------------

    def add_function(self, node: FunctionNode) -> None:
        """Add a function node, replacing one with the same id."""
        self.add_functions([node])

    def add_functions(self, nodes: Iterable[FunctionNode]) -> None:
        """Add many function nodes as :meth:`add_function` would, in one batch (builds use it)."""
        self._revision += 1
        batch.add_functions(self._g, nodes)

    def set_tasks(self, found: Iterable[SolvedTask], *, where: str = "graph") -> None:
        """Keep the solved tasks ``found`` (checked: :func:`sgkr.graph.tasks.check_tasks`)."""
        self.tasks, self._revision = tasks.check_tasks(found, self._g._node, where), \
            self._revision + 1

    def add_tag(self, node: TagNode) -> None:
        """Add a tag node, or merge its aliases into the tag of the same id."""
        self.add_tags([node])

    def add_tags(self, nodes: Iterable[TagNode]) -> None:
        """Add many tag nodes as :meth:`add_tag` would one by one, in one batch (builds use it).

        A tag whose id is a function's refuses the whole batch.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tags([TagNode("tag:fee", "fee"), TagNode("tag:fee", "fee", ("charge",))])
        >>> g.tag("tag:fee").aliases
        ('charge',)
        """
        self._revision += 1
        batch.add_tags(self._g, nodes)

    def set_tag_label(self, node_id: str, label: str) -> None:
        """Give the tag ``node_id`` the label ``label``, keeping its other aliases."""
        old = self.tag(node_id)
        aliases = tuple(a for a in old.aliases if a != label)
        self._revision += 1
        batch.replace_records(self._g, [TagNode(node_id, label, aliases, old.weight)])

    def set_tag_weights(self, weights: Mapping[str, float]) -> None:
        """Give each tag in ``weights`` (ids) its weight; tags whose weight is unchanged are
        left as they are (a build weighs every tag, an update those it may change).

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tag(TagNode("tag:fee", "fee"))
        >>> g.set_tag_weights({"tag:fee": 0.25})
        >>> g.tag("tag:fee").weight
        0.25
        """
        self._revision += 1
        batch.replace_records(self._g, batch.reweighed(self._g, weights))

    def add_edge(self, edge: Edge) -> None:
        """Add an edge between existing nodes; a call wins over a reference, then ``exact``
        over ``inferred`` over ``name``."""
        self.add_edges([edge])

    def add_edges(self, edges: Iterable[Edge]) -> None:
        """Add many edges as :meth:`add_edge` would one by one, in one batch."""
        self.add_edge_rows((e.source, e.target, e.type, e.resolution) for e in edges)

    def add_edge_rows(self, rows: Iterable[EdgeRow]) -> None:
        """:meth:`add_edges` for ``(source, target, type, resolution)`` tuples.

        Builds use it: they add tens of thousands of edges, and need no
        :class:`~sgkr.records.Edge` record for each. A row with a missing node
        refuses the whole batch.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tag(TagNode("tag:fee", "fee"))
        >>> g.add_function(FunctionNode("fn:f", "f", ("m.f",), "", "", (), "function"))
        >>> g.add_edge_rows([("fn:f", "tag:fee", "produces", None)])
        >>> g.producers("tag:fee")
        ['fn:f']
        """
        self._revision += 1
        batch.add_edge_rows(self._g, rows)

    def remove_nodes(self, node_ids: Iterable[str]) -> None:
        """Remove nodes, their edges and the tasks' uses of them; ids not there are ignored."""
        self._revision += 1
        self._g.remove_nodes_from(gone := set(node_ids))
        self.tasks = tasks.without(self.tasks, gone)

    def remove_edges(self, pairs: Iterable[tuple[str, str]]) -> None:
        """Remove edges given as ``(source, target)``; missing ones are ignored."""
        self._revision += 1
        self._g.remove_edges_from(list(pairs))

    def copy(self) -> KnowledgeGraph:
        """An independent copy (records are immutable and shared): changing one leaves the other.

        Node and edge order are kept, so that the copy retrieves as the original does.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tag(TagNode("tag:fee", "fee"))
        >>> c = g.copy()
        >>> c.remove_nodes(["tag:fee"])
        >>> len(g), len(c)
        (1, 0)
        """
        copy = KnowledgeGraph(batch.copied(self._g), meta=self.meta)
        copy.report, copy.tasks = self.report, self.tasks
        derived.copied(self, copy)
        return copy

    @classmethod
    def from_rows(cls, records: Iterable[FunctionNode | TagNode], rows: Iterable[EdgeRow], *,
                  meta: Mapping[str, Any] | None = None) -> KnowledgeGraph:
        """A graph of these nodes and edges, as a graph file holds them (loads use it).

        Node ids must be unique, and each pair of nodes have one edge at most
        (a later row would replace an earlier one); an edge with a missing
        node is refused.

        Examples
        --------
        >>> g = KnowledgeGraph.from_rows([TagNode("tag:fee", "fee")], [])
        >>> [t.label for t in g.tags()]
        ['fee']
        """
        graph = cls(meta=meta)
        batch.fill(graph._g, records, rows)
        return graph

    # -- reading ---------------------------------------------------------------

    @property
    def nx(self) -> nx.DiGraph:
        """A read-only networkx view of the graph, for networkx's algorithms (SGKR's own code
        reads the graph through this class's methods; changing the view raises)."""
        return self._g.copy(as_view=True)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._g

    def __len__(self) -> int:
        return int(self._g.number_of_nodes())

    def get(self, node_id: str) -> FunctionNode | TagNode | None:
        """The record of the node ``node_id``, or None if there is none."""
        attrs = self._g._node.get(node_id)
        return None if attrs is None else attrs["record"]

    def node_type(self, node_id: str) -> str:
        """``function`` or ``tag``."""
        attrs = self._g._node.get(node_id)
        if attrs is None:
            raise NodeNotFoundError(f"no node {node_id!r} in the graph")
        return str(attrs["type"])

    def function(self, node_id: str) -> FunctionNode:
        """The function node with this id."""
        record = self.get(node_id)
        if not isinstance(record, FunctionNode):
            raise NodeNotFoundError(f"no function node {node_id!r} in the graph")
        return record

    def tag(self, node_id: str) -> TagNode:
        """The tag node with this id."""
        record = self.get(node_id)
        if not isinstance(record, TagNode):
            raise NodeNotFoundError(f"no tag node {node_id!r} in the graph")
        return record

    def functions(self) -> Iterator[FunctionNode]:
        """Function nodes, sorted by id."""
        nodes = self._g._node
        for node_id in sorted(nodes):
            record = nodes[node_id]["record"]
            if isinstance(record, FunctionNode):
                yield record

    def tags(self) -> Iterator[TagNode]:
        """Tag nodes, sorted by id."""
        nodes = self._g._node
        for node_id in sorted(nodes):
            record = nodes[node_id]["record"]
            if isinstance(record, TagNode):
                yield record

    def edges(self) -> Iterator[Edge]:
        """Edges, sorted by (source, target)."""
        for source, target in sorted(self._g.edges()):
            data = self._g.edges[source, target]
            yield Edge(source, target, data["type"], data.get("resolution"))

    def records(self) -> Iterator[FunctionNode | TagNode]:
        """Every node's record, in the order the nodes were added (not sorted: fast)."""
        for attrs in self._g._node.values():
            yield attrs["record"]

    def edge_rows(self) -> Iterator[EdgeRow]:
        """Every edge as a ``(source, target, type, resolution)`` row, sorted."""
        succ = self._g._succ
        for source in sorted(succ):
            targets = succ[source]
            for target in sorted(targets):
                data = targets[target]
                yield source, target, data["type"], data.get("resolution")

    def edges_of(self, nodes: Iterable[str], direction: str = "out") -> list[EdgeRow]:
        """The edges out of (``out``), into (``in``) or at either end of (``both``) ``nodes``.

        Nodes not in the graph have none.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tag(TagNode("tag:fee", "fee"))
        >>> g.add_function(FunctionNode("fn:f", "f", ("m.f",), "", "", (), "function"))
        >>> g.add_edge_rows([("fn:f", "tag:fee", "produces", None)])
        >>> g.edges_of(["tag:fee"], "in")
        [('fn:f', 'tag:fee', 'produces', None)]
        """
        return queries.edges_of(self._g, nodes, direction)

    def adjacency(self) -> tuple[Neighbours, Neighbours]:
        """Each node's successors and predecessors with their edges' attributes: read-only
        views (:class:`~sgkr.graph.views.Neighbours`) of the graph as it is.

        Retrieval makes its look-up tables from these: networkx's views cost
        more than the search itself.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_tag(TagNode("tag:fee", "fee"))
        >>> g.add_function(FunctionNode("fn:f", "f", ("m.f",), "", "", (), "function"))
        >>> g.add_edge_rows([("fn:f", "tag:fee", "produces", None)])
        >>> succ, pred = g.adjacency()
        >>> dict(succ["fn:f"]), list(pred["tag:fee"])
        ({'tag:fee': {'type': 'produces'}}, ['fn:f'])
        """
        return Neighbours(self._g._succ), Neighbours(self._g._pred)

    def find(self, name: str) -> list[str]:
        """Ids of function nodes whose id, bare name or a qualname (or its tail) is ``name``."""
        return self.find_many([name])[name]

    def find_many(self, names: Iterable[str]) -> dict[str, list[str]]:
        """:meth:`find` of each of ``names``, in one pass over the functions.

        A sidecar names thousands of functions: one pass looks each function's
        names up among them (a tail of a qualname only as deep as the deepest
        name asked), instead of a pass per name.

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_function(FunctionNode("fn:m.C.f", "f", ("m.C.f",), "", "", (), "function"))
        >>> g.find_many(["f", "C.f", "m.C.f", "fn:m.C.f", "B.f", "C"])
        {'f': ['fn:m.C.f'], 'C.f': ['fn:m.C.f'], 'm.C.f': ['fn:m.C.f'], \
'fn:m.C.f': ['fn:m.C.f'], 'B.f': [], 'C': []}
        """
        return queries.find_many(self._g, names)

    def finds(self, name: str, node_id: str) -> bool:
        """Whether :meth:`find` of ``name`` includes the function ``node_id`` (one node looked at).

        Examples
        --------
        >>> g = KnowledgeGraph()
        >>> g.add_function(FunctionNode("fn:m.f", "f", ("m.f",), "", "", (), "function"))
        >>> g.finds("m.f", "fn:m.f"), g.finds("g", "fn:m.f")
        (True, False)
        """
        attrs = self._g._node.get(name)
        if attrs is not None and attrs["type"] == "function":
            return name == node_id
        return queries.named(self.function(node_id), name)

    def has_edge(self, source: str, target: str) -> bool:
        """Whether an edge (of any type) goes from ``source`` to ``target``."""
        return target in self._g._succ.get(source, ())

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

    def tagged_functions(self) -> set[str]:
        """Ids of the function nodes that consume or produce some tag."""
        return queries.tagged_functions(self._g)

    def stats(self) -> dict[str, Any]:
        """Counts of nodes and edges, by kind and by resolution."""
        return queries.stats(self._g)

    def most_called(self, n: int = 10) -> list[tuple[str, int]]:
        """The ``n`` function ids with the most callers, with their caller counts."""
        return queries.most_called(self._g, n)

    # -- persistence -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The graph.json document (see :mod:`sgkr.graph.jsonfile`), nodes and edges sorted."""
        records = sorted(self.records(), key=_by_id)
        return jsonfile.to_document(self.meta, records, self.edge_rows(), self.tasks)

    @classmethod
    def from_dict(cls, data: Any, *, where: str = "graph") -> KnowledgeGraph:
        """Validate a graph.json document (or one in the record form,
        :func:`sgkr.graph.jsonrecords.records_of`) and build the graph from it."""
        meta, records, rows = jsonfile.read_document(data, where=where)
        graph = cls.from_rows(records, rows, meta=meta)
        graph.set_tasks(jsonfile.read_tasks(data, where=where), where=where)
        return graph

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write graph.json atomically (a crash never leaves a half-written file) and, as one
        pair with it, the lexical index and summary (:mod:`sgkr.graph.derived`).

        Raises InvalidArgumentError if ``path`` is not a path, OSError naming it if it
        cannot be written.
        """
        with paused_gc(long_lived=True):  # a save makes no cycles; its tables outlive it
            derived.save_with(self, path, lambda file: jsonlines.write(self, file))

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, max_bytes: int = jsonfile.MAX_GRAPH_BYTES,
             index: bool = True, warn: Callable[[str], None] | None = None) -> KnowledgeGraph:
        """Read and validate graph.json; refuse what is malformed, naming the problem.

        With ``index``, the lexical index and summary :meth:`save` wrote come too when
        they are the graph's, so a retriever makes nothing on its first question; one
        missing or stale is made again when needed, one malformed is reported to
        ``warn`` (default: :func:`warnings.warn`): never a reason to refuse the graph.

        Raises
        ------
        GraphFormatError
            If the file is missing, larger than ``max_bytes``, not JSON or not
            a valid SGKR graph; the message names the file.
        InvalidArgumentError
            If ``path`` is not a path.
        """
        return _loaded(cls, path, max_bytes, index, warn)

    def __repr__(self) -> str:
        s = self.stats()
        return f"KnowledgeGraph(functions={s['functions']}, tags={s['tags']}, edges={s['edges']})"


def _loaded(cls: type[KnowledgeGraph], path: str | os.PathLike[str], max_bytes: int,
            index: bool, warn: Callable[[str], None] | None) -> KnowledgeGraph:
    """:meth:`KnowledgeGraph.load`: the graph file and the files derived from it, read."""
    graph = derived.load_with(path, lambda file: jsonfile.read_bytes(file, max_bytes=max_bytes),
                              _parsed, lambda data, file: _made(cls, data, file),
                              derived=index, warn=warn)
    # The collector's first full pass over the millions of objects a load makes (which
    # also stops tracking the dicts of plain values), made here: left to the first
    # question, it cost that question 0.6 s on a graph of 57,000 functions.
    gc.collect()
    return graph


def _parsed(raw: bytes, file: Path) -> Any:
    """The JSON of a graph file's bytes."""
    with paused_gc(long_lived=True):
        return jsonfile.parse_graph_json(raw, str(file))


def _made(cls: type[KnowledgeGraph], data: Any, file: Path) -> KnowledgeGraph:
    """The graph of a graph file's JSON."""
    with paused_gc(long_lived=True):
        return cls.from_dict(data, where=str(file))

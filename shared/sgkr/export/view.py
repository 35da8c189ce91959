"""What a picture shows: the nodes and edges to draw and which of them a retrieval highlights.

Every format (HTML, Mermaid, DOT, GraphML) draws a :class:`View`. A view is
the whole graph, or the neighbourhood of some nodes (``around``, ``depth``),
or the subgraph a retrieval touched (``focus``); with a
:class:`~sgkr.records.RetrievalResult` its matched tags, retrieved functions
and path edges carry a role and everything else is faded.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                 infer_tags=False)
>>> v = subgraph(g, around=["g"], depth=1)
>>> label = {n.id: n.label for n in v.nodes}
>>> sorted(label.values()), [(label[e.source], label[e.target]) for e in v.edges]
(['f', 'g'], [('f', 'g')])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidArgumentError, NodeNotFoundError
from ..graph.model import KnowledgeGraph, tag_id
from ..ingest.sources import name_in_module
from ..records import FunctionNode, RetrievalResult, SourceSpan

__all__ = ["View", "ViewNode", "ViewEdge", "NodeRole", "EdgeRole", "subgraph"]

#: ``input``/``output``/``tag``: a matched tag (``tag`` when its role is neither);
#: ``retrieved``: a returned function; ``path``: on a found path but cut by the budget;
#: ``asked``: an earlier question whose solution used a returned function.
NodeRole = Literal["input", "output", "tag", "retrieved", "path", "asked"]
#: ``path``: an edge of a found path; ``retrieved``: a call between two retrieved functions.
EdgeRole = Literal["path", "retrieved"]
NodeKind = Literal["function", "method", "module", "tag", "task"]


@dataclass(frozen=True)
class ViewNode:
    """A node to draw: a function (``kind`` function, method or module), a tag, or a solved
    task (an earlier question the graph was built with: ``label`` its question, cut)."""

    id: str
    kind: NodeKind
    label: str
    role: NodeRole | None = None
    qualnames: tuple[str, ...] = ()
    knowledge: str = ""
    code: str = ""
    sources: tuple[SourceSpan, ...] = ()
    aliases: tuple[str, ...] = ()
    score: float | None = None

    @property
    def is_tag(self) -> bool:
        """Whether this is a tag node."""
        return self.kind == "tag"


@dataclass(frozen=True)
class ViewEdge:
    """An edge to draw; ``type`` is ``calls``, ``references``, ``consumes``, ``produces`` or
    ``uses`` (a solved task to a function its solution uses)."""

    source: str
    target: str
    type: str
    resolution: str | None = None
    role: EdgeRole | None = None


@dataclass(frozen=True)
class View:
    """The nodes (sorted by id) and edges (sorted) of a picture, with the highlight.

    ``highlighted`` is true when a retrieval result was given: then nodes and
    edges without a role are drawn faded.
    """

    nodes: tuple[ViewNode, ...]
    edges: tuple[ViewEdge, ...]
    question: str | None = None
    highlighted: bool = False

    def node(self, node_id: str) -> ViewNode:
        """The node with this id."""
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise NodeNotFoundError(f"no node {node_id!r} in the view")


def subgraph(graph: KnowledgeGraph, result: RetrievalResult | None = None, *,
             around: Iterable[str] = (), depth: int = 1, focus: bool = False) -> View:
    """The part of ``graph`` to draw, with the highlight of ``result``.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    result
        A retrieval on this graph; its matched tags, retrieved functions and
        path edges get a role, the rest is faded. ``None``: no highlight.
    around
        Names of nodes to centre on: a function's id, bare name or qualname
        (as :meth:`~sgkr.graph.KnowledgeGraph.find`), or a tag's id or label.
        Empty: no limit from this option.
    depth
        With ``around`` or ``focus``: keep nodes within this many edges
        (either direction) of the centres.
    focus
        Centre on the nodes ``result`` highlights (needs ``result``).

    Returns
    -------
    View
        Nodes and edges to draw. Without ``around`` and ``focus``, the whole graph.

    Raises
    ------
    InvalidArgumentError
        If ``depth`` is negative, ``graph`` is not a graph, or ``focus`` is set
        without a result.
    NodeNotFoundError
        If a name in ``around`` matches no node.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return h()\\n"
    ...                            "def h():\\n    return 1\\n")], infer_tags=False)
    >>> len(subgraph(g).nodes), len(subgraph(g, around=["h"], depth=1).nodes)
    (3, 2)
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    if result is not None and not isinstance(result, RetrievalResult):
        raise InvalidArgumentError(f"result must be a RetrievalResult, got {type(result)}")
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise InvalidArgumentError(f"depth must be a non-negative integer, got {depth!r}")
    if isinstance(around, str):
        around = [around]
    names = list(around)
    if focus and result is None:
        raise InvalidArgumentError("focus needs a retrieval result (a question)")
    node_roles, edge_roles = _highlight(graph, result) if result is not None else ({}, {})
    centres = [node for name in names for node in _resolve(graph, name)]
    if focus:
        centres += sorted(node_roles)
    keep = _neighbourhood(graph, centres, depth) if names or focus \
        else {r.id for r in graph.records()}
    nodes = [_view_node(graph, n, node_roles.get(n), result) for n in sorted(keep)]
    edges = [
        ViewEdge(e.source, e.target, e.type, e.resolution, edge_roles.get((e.source, e.target)))
        for e in graph.edges() if e.source in keep and e.target in keep
    ]
    if not names and not focus:  # the whole graph: its solved tasks too
        tasks, uses = _tasks(graph, keep, result)
        nodes, edges = sorted([*nodes, *tasks], key=lambda n: n.id), [*edges, *uses]
    return View(tuple(nodes), tuple(edges), result.question if result is not None else None,
                result is not None)


def _tasks(graph: KnowledgeGraph, keep: set[str], result: RetrievalResult | None
           ) -> tuple[list[ViewNode], list[ViewEdge]]:
    """The solved tasks that use a function of the picture, and their ``uses`` edges; with a
    result, those its documents name (``used_by``) have the role ``asked``."""
    named = {t for d in result.documents for t, _ in d.used_by or ()} if result else set()
    nodes: list[ViewNode] = []
    edges: list[ViewEdge] = []
    for task in graph.tasks:
        used = [f for f in task.uses if f in keep]
        if used:
            label = task.question if len(task.question) <= 60 else task.question[:57] + "..."
            nodes.append(ViewNode(task.id, "task", label, "asked" if task.id in named else None,
                                  knowledge=task.question))
            edges += [ViewEdge(task.id, f, "uses") for f in used]
    return nodes, edges


def _resolve(graph: KnowledgeGraph, name: str) -> list[str]:
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError(f"around: a node name must be a non-empty string, got {name!r}")
    if name in graph:
        return [name]
    found = graph.find(name)
    try:
        tag = tag_id(name)
    except InvalidArgumentError:
        tag = ""
    if tag in graph and graph.node_type(tag) == "tag":
        found.append(tag)
    if not found:
        raise NodeNotFoundError(f"around: no function or tag named {name!r} in the graph")
    return found


def _neighbourhood(graph: KnowledgeGraph, centres: Sequence[str], depth: int) -> set[str]:
    seen = set(centres)
    frontier = list(seen)
    for _ in range(depth):
        step = {end for row in graph.edges_of(frontier, "both") for end in row[:2]} - seen
        seen |= step
        frontier = list(step)
    return seen


def _highlight(graph: KnowledgeGraph, result: RetrievalResult
               ) -> tuple[dict[str, NodeRole], dict[tuple[str, str], EdgeRole]]:
    """The role of each node and edge ``result`` highlights (see :data:`NodeRole`)."""
    nodes, edges = _path_roles(graph, result.paths)
    retrieved = [d.id for d in result.documents if d.id in graph]
    for node in retrieved:
        nodes[node] = "retrieved"
    for a in retrieved:
        for b in retrieved:
            if graph.has_edge(a, b) and (a, b) not in edges:
                edges[(a, b)] = "retrieved"
    inputs, outputs = set(result.inputs), set(result.outputs)
    for match in result.tags:
        if match.tag_id in graph:
            nodes[match.tag_id] = ("input" if match.label in inputs else
                                   "output" if match.label in outputs else "tag")
    return nodes, edges


def _path_roles(graph: KnowledgeGraph, paths: Iterable[Sequence[str]]
                ) -> tuple[dict[str, NodeRole], dict[tuple[str, str], EdgeRole]]:
    """The functions and edges on ``paths``, each with the role ``path``."""
    nodes: dict[str, NodeRole] = {}
    edges: dict[tuple[str, str], EdgeRole] = {}
    for path in paths:
        for node in path:
            if isinstance(graph.get(node), FunctionNode):
                nodes[node] = "path"
        for a, b in zip(path, path[1:], strict=False):
            # Paths may walk a call edge against its direction: colour the edge that exists.
            for edge in ((a, b), (b, a)):
                if graph.has_edge(*edge):
                    edges[edge] = "path"
    return nodes, edges


def _view_node(graph: KnowledgeGraph, node_id: str, role: NodeRole | None,
               result: RetrievalResult | None) -> ViewNode:
    record = graph.get(node_id)
    if isinstance(record, FunctionNode):
        score = None
        if result is not None:
            score = next((d.score for d in result.documents if d.id == node_id), None)
        label = name_in_module(record.qualnames, [s.file for s in record.sources], record.name)
        return ViewNode(record.id, record.kind, label, role, record.qualnames,
                        record.knowledge, record.code, record.sources, score=score)
    tag = graph.tag(node_id)
    return ViewNode(tag.id, "tag", tag.label, role, aliases=tag.aliases)

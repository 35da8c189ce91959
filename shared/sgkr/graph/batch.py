"""Batch writes into a graph's adjacency: the nodes and edges a build adds by the ten thousand.

:class:`~sgkr.graph.model.KnowledgeGraph` keeps its nodes and edges in a
:class:`networkx.DiGraph`; these functions write networkx's own dicts
(``_node``, ``_succ``, ``_pred``) directly, without networkx's checks per
item: ``add_edges_from`` alone costs as much as the rest of a build. They
keep networkx's invariants (one attribute mapping per edge, shared by both
directions) and never change a node's attribute dict in place: they put a new
one, so copies (:func:`copied`) may share the old. An edge's attributes are
read-only, shared by every edge of its type and resolution.

Only :mod:`sgkr.graph` uses this module.

Examples
--------
>>> import networkx as nx
>>> from sgkr.records import TagNode
>>> g = nx.DiGraph()
>>> add_tags(g, [TagNode("tag:fee", "fee"), TagNode("tag:fee", "fee", ("charge",))])
>>> g.nodes["tag:fee"]["record"].aliases
('charge',)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NoReturn

import networkx as nx

from ..errors import NodeNotFoundError
from ..records import EdgeRow, FunctionNode, TagNode
from ..tags.labels import merge_tag

__all__ = ["EdgeAttributes", "edge_attributes", "add_functions", "add_tags", "add_edge_rows",
           "fill", "replace_records", "reweighed", "copied", "changed"]

# Of two edges between the same nodes the higher ranked stays: a call over a reference,
# then exact over inferred over a bare-name guess.
_RANK: dict[tuple[str, str | None], int] = {
    ("calls", "exact"): 6, ("calls", "inferred"): 5, ("calls", "name"): 4,
    ("references", "exact"): 3, ("references", "inferred"): 2, ("references", "name"): 1}


class EdgeAttributes(dict[str, str]):
    """The attributes of every edge of one type and resolution: one read-only dict shared
    by tens of thousands of edges (a dict per edge would hold most of a graph's memory).

    A pickled or copied one is the shared one again.

    Examples
    --------
    >>> attrs = edge_attributes("calls", "exact")
    >>> attrs, attrs is edge_attributes("calls", "exact")
    ({'type': 'calls', 'resolution': 'exact'}, True)
    >>> attrs["type"] = "references"
    Traceback (most recent call last):
        ...
    TypeError: an edge's attributes cannot be changed
    """

    __slots__ = ()

    def _refused(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("an edge's attributes cannot be changed")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refused
    __ior__ = _refused

    def __reduce__(self) -> tuple[Any, tuple[str, str | None]]:
        return edge_attributes, (self["type"], self.get("resolution"))

    def __copy__(self) -> EdgeAttributes:
        return self

    def __deepcopy__(self, memo: object) -> EdgeAttributes:
        return self


def edge_attributes(kind: str, resolution: str | None) -> EdgeAttributes:
    """An edge's attributes: its ``type`` and, for calls and references, ``resolution``
    (one object for each pair)."""
    found = _SHARED.get((kind, resolution))
    if found is None:
        found = _SHARED[(kind, resolution)] = EdgeAttributes(
            {"type": kind} if resolution is None else {"type": kind, "resolution": resolution})
    return found


_SHARED: dict[tuple[str, str | None], EdgeAttributes] = {}


def _checked(g: nx.DiGraph, rows: Iterable[EdgeRow]) -> list[tuple[str, str, EdgeAttributes]]:
    """``rows`` with their attribute dicts; a row with a missing node refuses them all."""
    succ = g._succ
    batch: list[tuple[str, str, EdgeAttributes]] = []
    for source, target, kind, resolution in rows:
        if source not in succ or target not in succ:
            raise _no_end(succ, source, target)
        batch.append((source, target, edge_attributes(kind, resolution)))
    return batch


def _no_end(succ: Mapping[str, object], source: str, target: str) -> NodeNotFoundError:
    """The error of an edge ``source -> target`` one of whose ends is not a node."""
    end = source if source not in succ else target
    return NodeNotFoundError(f"edge {source} -> {target}: no node {end!r}")


def _put(g: nx.DiGraph, node_id: str, kind: str, record: FunctionNode | TagNode) -> None:
    """Make ``node_id`` a node of ``kind`` holding ``record``, keeping its edges if it is one."""
    attrs = g._node
    if node_id in attrs:
        # A new dict, never a change to the old one: copies share them (copied()).
        attrs[node_id] = {**attrs[node_id], "type": kind, "record": record}
    else:
        g._succ[node_id] = {}
        g._pred[node_id] = {}
        attrs[node_id] = {"type": kind, "record": record}


def add_functions(g: nx.DiGraph, nodes: Iterable[FunctionNode]) -> None:
    """Add function nodes, each replacing the record of a node with its id."""
    for node in nodes:
        _put(g, node.id, "function", node)
    changed(g)


def add_tags(g: nx.DiGraph, nodes: Iterable[TagNode]) -> None:
    """Add tag nodes; a tag already there keeps its label and takes the new aliases.

    A tag whose id is a function's refuses the whole batch, before anything is added.
    """
    attrs = g._node
    nodes = list(nodes)
    for node in nodes:
        found = attrs.get(node.id)
        if found is not None and not isinstance(found["record"], TagNode):
            raise NodeNotFoundError(f"no tag node {node.id!r} in the graph")
    for node in nodes:
        found = attrs.get(node.id)
        if found is None:
            _put(g, node.id, "tag", node)
            continue
        # A tag: checked above, or added by this batch.
        _put(g, node.id, "tag", merge_tag(found["record"], node))
    changed(g)


def replace_records(g: nx.DiGraph, records: Iterable[FunctionNode | TagNode]) -> None:
    """Give each record's node (there) that record, in a new dict of attributes."""
    attrs = g._node
    for record in records:
        attrs[record.id] = {**attrs[record.id], "record": record}
    changed(g)


def reweighed(g: nx.DiGraph, weights: Mapping[str, float]) -> Iterator[TagNode]:
    """The tags of ``weights`` (ids) whose weight changes, with their new weight."""
    attrs = g._node
    for node_id, weight in weights.items():
        found = attrs.get(node_id)
        old = found["record"] if found is not None else None
        if not isinstance(old, TagNode):  # read directly: updates weigh every tag
            raise NodeNotFoundError(f"no tag node {node_id!r} in the graph")
        if old.weight != weight:
            yield TagNode(node_id, old.label, old.aliases, weight)


def add_edge_rows(g: nx.DiGraph, rows: Iterable[EdgeRow]) -> None:
    """Add ``(source, target, type, resolution)`` rows between existing nodes.

    Of two edges between the same nodes, a call wins over a reference, then
    ``exact`` over ``inferred`` over ``name``; any other type is replaced. A
    row with a missing node refuses the whole batch.
    """
    succ, pred = g._succ, g._pred
    for source, target, attrs in _checked(g, rows):
        old = succ[source].get(target)
        if old is None:
            succ[source][target] = pred[target][source] = attrs
        elif _RANK.get((attrs["type"], attrs.get("resolution")), 0) > \
                _RANK.get((old["type"], old.get("resolution")), 0) \
                or old["type"] not in ("calls", "references"):
            # One new dict both directions share, as networkx keeps them; the old
            # one is not changed: copies share it (copied()).
            succ[source][target] = pred[target][source] = attrs
    changed(g)


def fill(g: nx.DiGraph, records: Iterable[FunctionNode | TagNode],
         rows: Iterable[EdgeRow]) -> None:
    """Put these nodes and edges into the empty graph ``g``, as a graph file holds them.

    Node ids must be unique, and each pair of nodes have one edge at most (a
    later row replaces an earlier one); an edge with a missing node is refused,
    leaving ``g`` part filled (a load discards it).
    """
    attrs, succ, pred = g._node, g._succ, g._pred
    for record in records:
        node_id = record.id
        attrs[node_id] = {"type": "function" if isinstance(record, FunctionNode) else "tag",
                          "record": record}
        succ[node_id] = {}
        pred[node_id] = {}
    # One pass over the rows, each end's membership checked by its dict's own lookup: a
    # load puts tens of thousands of edges, and a second pass cost a sixth of it.
    for source, target, kind, resolution in rows:
        try:
            targets, sources = succ[source], pred[target]
        except KeyError:
            raise _no_end(succ, source, target) from None
        targets[target] = sources[source] = edge_attributes(kind, resolution)  # both ways
    changed(g)


def copied(src: nx.DiGraph) -> nx.DiGraph:
    """An independent copy of ``src``, its node and edge order kept.

    The attribute dicts of nodes and edges are shared: this module replaces
    them and never changes one in place, nor does networkx when removing.
    """
    g = nx.DiGraph()
    g.graph.update(src.graph)
    g._node.update(src._node)
    g._succ.update((node_id, targets.copy()) for node_id, targets in src._succ.items())
    g._pred.update((node_id, sources.copy()) for node_id, sources in src._pred.items())
    return g


def changed(g: nx.DiGraph) -> None:
    """Drop what networkx caches about ``g`` (converted graphs), as its own mutators do."""
    nx._clear_cache(g)

"""graph.json written again after an update: only the lines of what changed are encoded.

A graph kept up to date by :class:`~sgkr.build.incremental.GraphBuilder` (``sgkr
build --watch``) is saved after each update, and an update changes a few
files' functions in a copy of the graph. The copy's saves keep the line each
node and each source's edges were written as (:class:`SavedLines`, carried
from a graph to its copies through :func:`sgkr.graph.derived.when_copied`); a
later save encodes again only a node whose record is not the one written, and
only the edges of a source whose targets are not those written. The bytes are
those :func:`sgkr.graph.jsonfile.write_graph` writes, always.

A graph that will be updated and saved again keeps its lines from its first
save on (:func:`keep_lines`: :class:`~sgkr.build.incremental.GraphBuilder`'s
graphs), so that already the first save after an update encodes only what
changed. Another graph never copied keeps no lines: a one-off ``sgkr build``
writes its graph.json a few hundred lines at a time, and holds none of it after.

Examples
--------
>>> import tempfile, os
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import TagNode
>>> g = KnowledgeGraph()
>>> g.add_tag(TagNode("tag:fee", "fee"))
>>> copy = g.copy()
>>> path = os.path.join(tempfile.mkdtemp(), "graph.json")
>>> digest = write(copy, path)
>>> len(lines_of(copy).nodes)
1
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, cast

from ..errors import InvalidArgumentError
from ..records import EdgeRow, FunctionNode, TagNode
from . import derived, jsonfile

__all__ = ["SavedLines", "write", "lines_of", "keep_lines"]

_by_id = attrgetter("id")


@dataclass
class SavedLines:
    """The line each node (by id, with the record written) and each source's edges (with
    its targets written) were last written as."""

    nodes: dict[str, tuple[FunctionNode | TagNode, str]] = field(default_factory=dict)
    edges: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)


# The lines kept for each graph that was copied (a graph an update made), by graph.
_KEPT: weakref.WeakKeyDictionary[Any, SavedLines] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def lines_of(graph: Any) -> SavedLines | None:
    """The lines kept for ``graph``: None unless it was copied from another graph."""
    return _KEPT.get(graph)


def keep_lines(graph: Any, previous: Any = None) -> None:
    """Keep the lines of ``graph``'s saves from its next save on, sharing those kept for
    ``previous`` (the version it replaces) if any: a line is reused only for a record or
    targets equal to those it was written for, so sharing never changes what is written.

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a graph.

    Examples
    --------
    >>> from sgkr.graph import KnowledgeGraph
    >>> g = KnowledgeGraph()
    >>> keep_lines(g)
    >>> lines_of(g).nodes
    {}
    """
    if not callable(getattr(graph, "adjacency", None)):
        raise InvalidArgumentError(f"keep_lines takes a KnowledgeGraph, got {type(graph)}")
    with _LOCK:
        if graph not in _KEPT:
            found = _KEPT.get(previous) if previous is not None else None
            _KEPT[graph] = found if found is not None else SavedLines()


def write(graph: Any, path: str | os.PathLike[str]) -> str:
    """Write ``graph``'s graph.json to ``path`` (as :func:`~sgkr.graph.jsonfile.write_graph`
    does, the same bytes) and return the SHA-256 digest of the bytes written; reuse and
    keep the lines of a graph an update made."""
    kept = lines_of(graph)
    records = sorted(graph.records(), key=_by_id)
    if kept is None:
        return jsonfile.write_graph(graph.meta, records, graph.edge_rows(), path, graph.tasks)
    succ, _ = graph.adjacency()
    fresh = SavedLines()
    digest = jsonfile.write_lines(graph.meta, _node_lines(records, kept, fresh),
                                  _edge_lines(succ, kept, fresh), path, graph.tasks)
    with _LOCK:  # the lines of what was written, and nothing of what is gone
        kept.nodes, kept.edges = fresh.nodes, fresh.edges
    return digest


def _node_lines(records: list[FunctionNode | TagNode], kept: SavedLines,
                fresh: SavedLines) -> Iterator[str]:
    old, new = kept.nodes, fresh.nodes
    for record in records:
        found = old.get(record.id)
        line = found[1] if found is not None and (found[0] is record or found[0] == record) \
            else jsonfile.node_line(record)
        new[record.id] = (record, line)
        yield line


def _edge_lines(succ: Mapping[str, Mapping[str, Mapping[str, str]]], kept: SavedLines,
                fresh: SavedLines) -> Iterator[str]:
    old, new = kept.edges, fresh.edges
    for source in sorted(succ):
        targets = succ[source]
        if not targets:
            continue
        found = old.get(source)
        if found is not None and found[0] == targets:
            new[source] = found
            yield found[1]
            continue
        line = jsonfile.edge_line(cast(EdgeRow, (source, target, data["type"],
                                                 data.get("resolution")))
                                  for target, data in sorted(targets.items()))
        new[source] = (dict(targets), line)
        yield line


def _carry(graph: Any, copy: Any) -> None:
    with _LOCK:
        _KEPT[copy] = _KEPT.get(graph) or SavedLines()


derived.when_copied(_carry)

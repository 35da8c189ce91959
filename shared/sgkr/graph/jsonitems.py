"""graph.json's node and edge lines (version 3), read into records and rows and checked.

Each node line is checked in one expression, its left-out fields filled in
as :mod:`sgkr.graph.jsonfile` documents them, and made into its record; each
edge line is checked a list of targets at a time with set operations (every
target a node of the right type, none twice from one source). Only these
checks decide what is accepted. A line they refuse is looked at again field
by field, in the order the file format lists them, only to name the first
wrong one in the :class:`~sgkr.errors.GraphFormatError` (``file: nodes[3]:
'code' must be a string``).

A load reads tens of thousands of lines: a check made of calls per field
cost a load of the standard library's graph a third of its time.

Examples
--------
>>> records = read_nodes([{"id": "fn:m.f", "sources": [["m.py", 1, 2]], "knowledge": "",
...                        "code": "def f(): pass"}, {"id": "tag:x", "type": "tag"}], "g")
>>> records[0].qualnames, records[1].label
(('m.f',), 'x')
>>> read_edges([{"source": "tag:x", "consumes": ["fn:m.f"]}], records, "g")
[('tag:x', 'fn:m.f', 'consumes', None)]
>>> read_edges([{"source": "tag:x", "produces": ["fn:m.f"]}], records, "g")
Traceback (most recent call last):
...
sgkr.errors.GraphFormatError: g: edges[0]: a produces edge goes function -> tag, not tag -> function
"""

from __future__ import annotations

from typing import Any

from ..errors import GraphFormatError
from ..records import EdgeRow, EdgeType, FunctionKind, FunctionNode, SourceSpan, TagNode
from .jsonrecords import (
    EDGE_TYPES,
    RESOLUTIONS,
    EdgeChecker,
    Where,
    kind_of,
    location,
    span_of,
    text,
    texts,
    weight,
)

__all__ = ["read_nodes", "read_edges", "implied"]

_KINDS: dict[str, FunctionKind] = {"function": "function", "method": "method",
                                   "module": "module"}
_LEFT_OUT: Any = object()  # a field a node line does not write (its default is implied)
_NO_ALIASES: list[str] = []


def implied(node_id: str) -> tuple[str, str]:
    """The name and the qualified name a function's id says (see :mod:`sgkr.graph.jsonfile`).

    Examples
    --------
    >>> implied("fn:fees.Schedule.fee")
    ('fee', 'fees.Schedule.fee')
    """
    prefix, colon, qualname = node_id.partition(":")
    qualname = qualname if colon else prefix
    return qualname.rpartition(".")[2], qualname


def read_nodes(nodes: list[Any], where: str) -> list[FunctionNode | TagNode]:
    """The records of graph.json's node lines (``where``: the file, as errors name it).

    Raises
    ------
    GraphFormatError
        Naming the first node that is malformed and its first wrong field.
    """
    return [_node(raw, where, index) for index, raw in enumerate(nodes)]


def _node(raw: Any, where: str, index: int) -> FunctionNode | TagNode:
    if type(raw) is dict:
        node_id, kind = raw.get("id"), raw.get("type", "function")
        if type(node_id) is str and node_id and kind == "function":
            name, qualname = implied(node_id)
            name, qualnames = raw.get("name", name), raw.get("qualnames", _LEFT_OUT)
            code, knowledge = raw.get("code"), raw.get("knowledge")
            fkind, sources = raw.get("kind", "function"), raw.get("sources")
            fkind = _KINDS.get(fkind) if type(fkind) is str else None
            if type(name) is str and name and fkind is not None and type(code) is str \
                    and type(knowledge) is str and type(sources) is list and (
                        qualnames is _LEFT_OUT or type(qualnames) is list
                        and all([type(q) is str for q in qualnames])):
                return FunctionNode(
                    node_id, name, (qualname,) if qualnames is _LEFT_OUT else tuple(qualnames),
                    code, knowledge, _spans(sources, where, index), fkind)
        elif type(node_id) is str and node_id and kind == "tag":
            label = raw.get("label", node_id.removeprefix("tag:"))
            aliases, value = raw.get("aliases", _NO_ALIASES), raw.get("weight", 1.0)
            if type(label) is str and label and type(aliases) is list \
                    and all([type(a) is str for a in aliases]) \
                    and (type(value) is float or type(value) is int) and 0 <= value <= 1:
                return TagNode(node_id, label, tuple(aliases), float(value))
    raise _node_refused(raw, (where, "nodes", index))


def _spans(sources: list[Any], where: str, index: int) -> tuple[SourceSpan, ...]:
    # Most are [file, start_line, end_line]: checked in one expression each.
    return tuple([SourceSpan(s[0], s[1], s[2]) if type(s) is list and len(s) == 3
                  and type(s[0]) is str and type(s[1]) is int and type(s[2]) is int
                  and s[1] >= 1 and s[2] >= 1 else _span(s, (where, "nodes", index, n))
                  for n, s in enumerate(sources)])


def _span(raw: Any, at: Where) -> SourceSpan:
    """A source that is not ``[file, start_line, end_line]`` of a positive start and end:
    a notebook's, or refused."""
    if type(raw) is not list or len(raw) not in (3, 5):
        raise GraphFormatError(f"{location(at)}: must be [file, start_line, end_line] "
                               "or [file, start_line, end_line, cell, end_cell]")
    return span_of(raw[0], raw[1], raw[2], tuple(raw[3:]), at)


def _node_refused(raw: Any, at: Where) -> GraphFormatError:
    """The error of a node line :func:`_node` refused, naming its first wrong field."""
    if type(raw) is not dict:
        return GraphFormatError(f"{location(at)}: must be an object")
    node_id = text(raw, "id", at, empty=False)
    kind = raw.get("type", "function")
    if kind == "tag":
        text(raw, "label", at, empty=False, default=node_id.removeprefix("tag:"))
        texts(raw, "aliases", at, [])
        weight(raw, at)
    elif kind != "function":
        return GraphFormatError(
            f"{location(at)}: unknown node type {kind!r}; expected function or tag")
    else:
        name, qualname = implied(node_id)
        kind_of(raw, at, "function")
        if type(raw.get("sources")) is not list:
            return GraphFormatError(f"{location(at)}: 'sources' must be a list")
        text(raw, "name", at, empty=False, default=name)
        texts(raw, "qualnames", at, [qualname])
        text(raw, "code", at)
        text(raw, "knowledge", at)
    return GraphFormatError(f"{location(at)}: malformed node")  # the checks above name it


def read_edges(edges: list[Any], records: list[FunctionNode | TagNode],
               where: str) -> list[EdgeRow]:
    """The edge rows of graph.json's edge lines, between the nodes ``records``.

    Raises
    ------
    GraphFormatError
        Naming the first edge line that is malformed and what is wrong with it
        (two nodes of one id are refused first).
    """
    functions = {r.id for r in records if type(r) is FunctionNode}
    tags = {r.id for r in records if type(r) is TagNode}
    if len(functions) + len(tags) != len(records) or not functions.isdisjoint(tags):
        EdgeChecker(records, where)  # names the first id that is there twice
    try:
        found = _rows(edges, functions, tags)
    except (KeyError, TypeError):  # a key missing or unknown, an unhashable end
        found = None
    if found is None:
        raise _edges_refused(edges, records, where)
    return found


def _rows(edges: list[Any], functions: set[str], tags: set[str]) -> list[EdgeRow] | None:
    """The rows of the edge lines ``edges``, or None if a check refuses them.

    Each line is read into rows as it stands; the ends are checked after, all at
    once: each edge's source and its targets among the nodes of their type, and no
    pair of nodes twice (among the targets of each line, and, if a source has
    several lines, among all rows).
    """
    rows: list[EdgeRow] = []
    # The sources of edges from functions and from tags, and the targets to each.
    from_functions: list[str] = []
    from_tags: list[str] = []
    to_functions: list[str] = []
    to_tags: list[str] = []
    sources: list[str] = []
    for raw in edges:
        source = raw["source"]
        if type(source) is not str or not source:
            return None
        start = len(rows)
        for key, value in raw.items():
            if key == "source":
                continue
            kind = EDGE_TYPES[key]
            if kind == "calls" or kind == "references":
                from_functions.append(source)
                if not _resolved(source, kind, value, rows, to_functions):
                    return None
                continue
            if type(value) is not list:
                return None
            if kind == "produces":
                from_functions.append(source)
                to_tags += value
            else:
                from_tags.append(source)
                to_functions += value
            rows += [(source, end, kind, None) for end in value]
        if len(rows) - start > 1 and len({row[1] for row in rows[start:]}) != len(rows) - start:
            return None
        sources.append(source)
    if not (functions.issuperset(from_functions) and tags.issuperset(from_tags)
            and functions.issuperset(to_functions) and tags.issuperset(to_tags)):
        return None
    if len(set(sources)) != len(sources) and len({row[:2] for row in rows}) != len(rows):
        return None
    return rows


def _resolved(source: str, kind: EdgeType, value: Any, rows: list[EdgeRow],
              targets: list[str]) -> bool:
    """Add to ``rows`` the ``kind`` edges of ``source`` by resolution, ``value`` (their
    targets to ``targets``); False if ``value`` is not an object of lists.

    Raises KeyError for an unknown resolution."""
    if type(value) is not dict:
        return False
    for resolution, ends in value.items():
        resolved = RESOLUTIONS[resolution]
        if type(ends) is not list:
            return False
        targets += ends
        rows += [(source, end, kind, resolved) for end in ends]
    return True


def _edges_refused(edges: list[Any], records: list[FunctionNode | TagNode],
                   where: str) -> GraphFormatError:
    """The error of edge lines :func:`_rows` refused: every line checked again an edge at
    a time (:meth:`EdgeChecker.add <sgkr.graph.jsonrecords.EdgeChecker.add>`), to name
    the first that is wrong."""
    check = EdgeChecker(records, where)
    for index, raw in enumerate(edges):
        at = (where, "edges", index)
        if type(raw) is not dict:
            return GraphFormatError(f"{location(at)}: must be an object")
        source = text(raw, "source", at, empty=False)
        for key, targets in raw.items():
            if key == "source":
                continue
            kind = EDGE_TYPES.get(key)
            if kind is None:
                return GraphFormatError(
                    f"{location(at)}: unknown edge type {key!r}; expected {tuple(EDGE_TYPES)}")
            if kind not in ("calls", "references"):
                _add(check, source, targets, kind, None, at, key)
                continue
            if type(targets) is not dict:
                return GraphFormatError(
                    f"{location(at)}: '{key}' must be an object of resolution: [node ids]")
            for resolution, ends in targets.items():
                if resolution not in RESOLUTIONS:
                    return GraphFormatError(
                        f"{location(at)}: a {kind} edge needs resolution 'exact', 'inferred' "
                        f"or 'name', not {resolution!r}")
                _add(check, source, ends, kind, resolution, at, f"{key}.{resolution}")
    return GraphFormatError(f"{where}: malformed edges")  # the checks above name the line


def _add(check: EdgeChecker, source: str, targets: Any, kind: EdgeType, resolution: Any,
         at: Where, what: str) -> None:
    """:meth:`EdgeChecker.add` of each edge of the list ``what`` of an edge line."""
    if type(targets) is not list or not all(type(t) is str and t for t in targets):
        raise GraphFormatError(f"{location(at)}: '{what}' must be a list of node ids")
    for target in targets:
        check.add(source, target, kind, resolution, at)

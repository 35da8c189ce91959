"""Nodes and edges as whole JSON objects: the record form, and its checks.

The record form writes every field out::

    {"id", "type": "function", "name", "kind", "qualnames",
     "sources": [{"file", "start_line", "end_line"[, "cell", "end_cell"]}],
     "knowledge", "code"}
    {"id", "type": "tag", "label", "aliases", "weight"}
    {"source", "target", "type", "resolution" (calls and references only)}

It is what graph.json held up to version 2 (:func:`read_records` reads those
files), what a graph store keeps as a node's ``record`` (:func:`node_object`,
:func:`read_node`) and what the LlamaIndex property graph adapter reads back.
graph.json version 3 (:mod:`sgkr.graph.jsonfile`) writes the same records
shorter (:mod:`sgkr.graph.jsonitems` reads them). The record form is checked
here, an item at a time, with a :class:`~sgkr.errors.GraphFormatError` naming
the file and the item; so is a version 3 line found wrong, to name its problem.

Examples
--------
>>> from sgkr.records import TagNode
>>> node_object(TagNode("tag:fee", "fee"))
{'id': 'tag:fee', 'type': 'tag', 'label': 'fee', 'aliases': [], 'weight': 1.0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import Any, Protocol

from ..errors import GraphFormatError
from ..records import (
    EdgeRow,
    EdgeType,
    FunctionKind,
    FunctionNode,
    Resolution,
    SolvedTask,
    SourceSpan,
    TagNode,
)

__all__ = ["RECORD_VERSION", "records_of", "record_document", "node_object", "edge_object",
           "read_node", "read_records", "Where", "location", "text", "texts", "weight",
           "kind_of", "span_of", "EdgeChecker", "EDGE_TYPES", "RESOLUTIONS", "task_object",
           "read_task"]

#: The schema version of a document in the record form (graph.json's version 2).
RECORD_VERSION = 2
KINDS: tuple[FunctionKind, ...] = ("function", "method", "module")
EDGE_TYPES: dict[str, EdgeType] = {"calls": "calls", "references": "references",
                                   "consumes": "consumes", "produces": "produces"}
RESOLVED = ("calls", "references")  # the edge types that have a resolution
RESOLUTIONS: dict[Any, Resolution] = {"exact": "exact", "inferred": "inferred", "name": "name"}
_EDGE_ENDS = {"calls": ("function", "function"), "references": ("function", "function"),
              "consumes": ("tag", "function"), "produces": ("function", "tag")}


class _Graph(Protocol):
    """What :func:`records_of` reads of a :class:`~sgkr.graph.KnowledgeGraph`."""

    @property
    def meta(self) -> dict[str, Any]: ...

    def records(self) -> Iterable[FunctionNode | TagNode]: ...

    def edge_rows(self) -> Iterable[EdgeRow]: ...

    @property
    def tasks(self) -> tuple[SolvedTask, ...]: ...


def records_of(graph: _Graph) -> dict[str, Any]:
    """The document of ``graph`` in the record form, nodes and edges sorted: what graph
    stores keep (every field written out, as graph.json's version 2), and its solved
    tasks when it has some (:mod:`sgkr.graph.tasks`)."""
    records = sorted(graph.records(), key=attrgetter("id"))
    document = record_document(graph.meta, records, graph.edge_rows())
    if graph.tasks:
        document["tasks"] = [task_object(t) for t in graph.tasks]
    return document


def record_document(meta: Mapping[str, Any], records: Iterable[FunctionNode | TagNode],
                    rows: Iterable[EdgeRow]) -> dict[str, Any]:
    """The document of these nodes and edges in the record form, in the order given."""
    return {"schema_version": RECORD_VERSION, "meta": dict(sorted(meta.items())),
            "nodes": [node_object(r) for r in records],
            "edges": [edge_object(row) for row in rows]}


def node_object(record: FunctionNode | TagNode) -> dict[str, Any]:
    """A node's record, every field written out (see the module docs)."""
    if isinstance(record, FunctionNode):
        return {"id": record.id, "type": "function", "name": record.name, "kind": record.kind,
                "qualnames": list(record.qualnames),
                "sources": [s.to_dict() for s in record.sources],
                "knowledge": record.knowledge, "code": record.code}
    return {"id": record.id, "type": "tag", "label": record.label,
            "aliases": list(record.aliases), "weight": record.weight}


def edge_object(row: EdgeRow) -> dict[str, Any]:
    """An edge row as an object; ``resolution`` only where the edge has one."""
    source, target, kind, resolution = row
    item: dict[str, Any] = {"source": source, "target": target, "type": kind}
    if resolution is not None:
        item["resolution"] = resolution
    return item


def read_node(raw: Any, where: str, name: str) -> FunctionNode | TagNode:
    """One node object in the record form, checked.

    Raises
    ------
    GraphFormatError
        Naming ``where``, ``name`` (the node, as the message shows it) and the problem.

    Examples
    --------
    >>> read_node({"id": "tag:fee", "type": "tag", "label": "fee", "aliases": []}, "x", "0")
    TagNode(id='tag:fee', label='fee', aliases=(), weight=1.0)
    """
    return _node(raw, (where, "node", name))


def read_records(nodes: list[Any], edges: list[Any], where: str
                 ) -> tuple[list[FunctionNode | TagNode], list[EdgeRow]]:
    """The nodes and edges of a document in the record form (graph.json versions 1 and 2)."""
    records = [_node(raw, (where, "nodes", index)) for index, raw in enumerate(nodes)]
    check = EdgeChecker(records, where)
    for index, raw in enumerate(edges):
        at = (where, "edges", index)
        if type(raw) is not dict:
            raise GraphFormatError(f"{location(at)}: must be an object")
        given = raw.get("type")
        kind = EDGE_TYPES.get(given) if isinstance(given, str) else None
        if kind is None:
            raise GraphFormatError(
                f"{location(at)}: unknown edge type {given!r}; expected {tuple(EDGE_TYPES)}")
        resolution = raw.get("resolution")
        if kind not in RESOLVED and resolution is not None:
            raise GraphFormatError(
                f"{location(at)}: only calls and references edges have a resolution")
        check.add(text(raw, "source", at, empty=False), text(raw, "target", at, empty=False),
                  kind, resolution, at)
    return records, check.rows


#: Where an item is, made into text only for an error: (file, "nodes" or "edges", index,
#: and a node's source number).
Where = tuple[Any, ...]


def location(at: Where) -> str:
    """``at`` as an error message names it: ``file: nodes[3].sources[0]``."""
    where, part, index, *span = at
    return f"{where}: {part}[{index}]" + (f".sources[{span[0]}]" if span else "")


def text(raw: dict[str, Any], key: str, at: Where, *, empty: bool = True,
         default: Any = None) -> str:
    """``raw[key]`` (``default`` where it is left out), a string (``empty=False``: a
    non-empty one)."""
    value = raw.get(key, default)
    if type(value) is not str or (not empty and not value):
        what = "string" if empty else "non-empty string"
        raise GraphFormatError(f"{location(at)}: '{key}' must be a {what}")
    return value


def texts(raw: dict[str, Any], key: str, at: Where, default: Any = None) -> tuple[str, ...]:
    """``raw[key]`` (``default`` where it is left out), a list of strings."""
    value = raw.get(key, default)
    if type(value) is not list or not all(type(v) is str for v in value):
        raise GraphFormatError(f"{location(at)}: '{key}' must be a list of strings")
    return tuple(value)


def weight(raw: dict[str, Any], at: Where) -> float:
    """A tag's weight, a number in [0, 1]; 1 where it is left out."""
    value = raw.get("weight", 1.0)
    if type(value) not in (int, float) or not 0 <= value <= 1:
        raise GraphFormatError(f"{location(at)}: 'weight' must be a number from 0 to 1")
    return float(value)


def kind_of(raw: dict[str, Any], at: Where, default: Any = None) -> FunctionKind:
    """A function's kind: function, method or module."""
    given = raw.get("kind", default)
    for kind in KINDS:
        if given == kind:
            return kind
    raise GraphFormatError(f"{location(at)}: unknown function kind {given!r}; expected {KINDS}")


def _node(raw: Any, at: Where) -> FunctionNode | TagNode:
    if type(raw) is not dict:
        raise GraphFormatError(f"{location(at)}: must be an object")
    node_id = text(raw, "id", at, empty=False)
    kind = raw.get("type")
    if kind == "tag":
        return TagNode(node_id, text(raw, "label", at, empty=False), texts(raw, "aliases", at),
                       weight(raw, at))
    if kind != "function":
        raise GraphFormatError(
            f"{location(at)}: unknown node type {kind!r}; expected function or tag")
    fkind = kind_of(raw, at)
    sources = raw.get("sources")
    if type(sources) is not list:
        raise GraphFormatError(f"{location(at)}: 'sources' must be a list")
    return FunctionNode(
        id=node_id, name=text(raw, "name", at, empty=False),
        qualnames=texts(raw, "qualnames", at), code=text(raw, "code", at),
        knowledge=text(raw, "knowledge", at),
        sources=tuple(_span(span, (*at, n)) for n, span in enumerate(sources)),
        kind=fkind,
    )


def _span(raw: Any, at: Where) -> SourceSpan:
    if type(raw) is not dict:
        raise GraphFormatError(f"{location(at)}: must be an object")
    return span_of(raw.get("file"), raw.get("start_line"), raw.get("end_line"),
                   _cells(raw), at)


def _cells(span: dict[str, Any]) -> tuple[Any, ...]:
    """The ``cell`` and ``end_cell`` of a notebook's span, or nothing for another file's."""
    if "cell" not in span and "end_cell" not in span:
        return ()
    return span.get("cell"), span.get("end_cell")


def span_of(file: Any, start: Any, end: Any, cells: tuple[Any, ...], at: Where) -> SourceSpan:
    """A source span of these values, checked: a file name, positive lines and cells."""
    if type(file) is not str:
        raise GraphFormatError(f"{location(at)}: 'file' must be a string")
    if type(start) is not int or type(end) is not int or start < 1 or end < 1:
        raise GraphFormatError(
            f"{location(at)}: start_line and end_line must be positive integers")
    if not cells:
        return SourceSpan(file, start, end)
    first, last = cells
    if type(first) is not int or type(last) is not int or first < 1 or last < 1:
        raise GraphFormatError(f"{location(at)}: cell and end_cell must be positive integers")
    return SourceSpan(file, start, end, first, last)


class EdgeChecker:
    """The edge rows of a document, each checked as it is added: both ends are nodes of
    the right types, a pair of nodes has one edge, an edge between functions has a
    resolution."""

    def __init__(self, records: list[FunctionNode | TagNode], where: str) -> None:
        self.types: dict[str, str] = {}
        for index, record in enumerate(records):
            if record.id in self.types:
                raise GraphFormatError(
                    f"{location((where, 'nodes', index))}: duplicate node id {record.id!r}")
            self.types[record.id] = "function" if isinstance(record, FunctionNode) else "tag"
        self.seen: dict[str, set[str]] = {}  # each source's targets so far
        self.rows: list[EdgeRow] = []

    def add(self, source: str, target: str, kind: EdgeType, resolution: Any,
            at: Where) -> None:
        """Check the edge ``source → target`` (at ``at``) and keep its row."""
        if kind in RESOLVED and (type(resolution) is not str or resolution not in RESOLUTIONS):
            raise GraphFormatError(
                f"{location(at)}: a {kind} edge needs resolution 'exact', 'inferred' or 'name'")
        types = self.types
        for end in (source, target):
            if end not in types:
                raise GraphFormatError(f"{location(at)}: refers to missing node {end!r}")
        seen = self.seen.setdefault(source, set())
        if target in seen:
            raise GraphFormatError(f"{location(at)}: duplicate edge {source} -> {target}")
        seen.add(target)
        expected, found = _EDGE_ENDS[kind], (types[source], types[target])
        if found != expected:
            raise GraphFormatError(
                f"{location(at)}: a {kind} edge goes {expected[0]} -> {expected[1]}, not "
                f"{found[0]} -> {found[1]}")
        self.rows.append((source, target, kind, RESOLUTIONS.get(resolution)))


_LISTS = ("uses", "inputs", "outputs")


def task_object(task: SolvedTask) -> dict[str, Any]:
    """The JSON object of a solved task (empty fields left out).

    Examples
    --------
    >>> t = SolvedTask("task:1", "Average fee?", ("fn:fee",), (), ("tag:fee",), "s.py")
    >>> task_object(t)
    {'id': 'task:1', 'question': 'Average fee?', 'uses': ['fn:fee'], 'outputs': ['tag:fee'], \
'source': 's.py'}
    >>> read_task(task_object(t), ("graph", "tasks", 0)) == t
    True
    """
    item: dict[str, Any] = {"id": task.id, "question": task.question}
    for key in _LISTS:
        if value := getattr(task, key):
            item[key] = list(value)
    if task.source:
        item["source"] = task.source
    if task.answer is not None:
        item["answer"] = task.answer
    return item


def read_task(raw: Any, at: Where) -> SolvedTask:
    """The solved task of a graph.json object, checked field by field.

    Raises
    ------
    GraphFormatError
        Naming the item and the field.
    """
    if type(raw) is not dict:
        raise GraphFormatError(f"{location(at)}: must be an object")
    unknown = set(raw) - {"id", "question", "source", "answer", *_LISTS}
    if unknown:
        raise GraphFormatError(f"{location(at)}: unknown key(s) {sorted(unknown)}")
    ident = text(raw, "id", at, empty=False)
    if not ident.startswith("task:"):
        raise GraphFormatError(f"{location(at)}: a task id starts with 'task:'")
    lists = []
    for key in _LISTS:
        value = raw.get(key, [])
        if type(value) is not list or not all(type(v) is str and v for v in value):
            raise GraphFormatError(f"{location(at)}: '{key}' must be a list of node ids")
        lists.append(tuple(value))
    answer = raw.get("answer")
    if answer is not None and type(answer) is not str:
        raise GraphFormatError(f"{location(at)}: 'answer' must be a string")
    return SolvedTask(ident, text(raw, "question", at), lists[0], lists[1], lists[2],
                      text(raw, "source", at, default=""), answer)

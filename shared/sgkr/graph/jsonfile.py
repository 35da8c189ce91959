"""graph.json: a versioned JSON document, validated on load, written atomically.

Schema (version 2)::

    {"schema_version": 2, "meta": {...},
     "nodes": [{"id", "type": "function", "name", "kind", "qualnames", "sources",
                "knowledge", "code"} | {"id", "type": "tag", "label", "aliases", "weight"}],
     "edges": [{"source", "target", "type": "calls"|"references"|"consumes"|"produces",
                "resolution": "exact"|"inferred"|"name" (calls and references only)}]}

Edges point the way a path walks them: a ``consumes`` edge from the tag to the
function that takes it as input (``tag → function``: the tag is an input of the
function), a ``produces`` edge from the function to the tag it outputs, a
``calls`` or ``references`` edge from the caller to the callee.

Version 1 (no ``references`` edges, no ``inferred`` resolution) is still read.
A tag's ``weight`` (how specific it is, from 0 to 1, see
:func:`sgkr.graph.tagging.tag_weights`) is 1 in files written before tags had one.

Loading refuses a truncated, malformed, wrong-schema or inconsistent file with
a :class:`~sgkr.errors.GraphFormatError` naming the problem; nothing is
executed and no pickle is read. This module works on records and rows only;
:class:`~sgkr.graph.KnowledgeGraph` (``to_dict``, ``from_dict``, ``save``,
``load``) calls it.

Examples
--------
>>> read_document({"schema_version": 99, "nodes": [], "edges": []})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.GraphFormatError: graph: schema_version 99 is newer than ... upgrade sgkr
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..atomic import remove_orphans, write_atomic
from ..errors import GraphFormatError, InvalidArgumentError
from ..ingest.files import FileRefused, opened, parse_json
from ..records import EdgeRow, EdgeType, FunctionNode, Resolution, SourceSpan, TagNode

__all__ = ["SCHEMA_VERSION", "MAX_GRAPH_BYTES", "to_document", "read_document", "read_node",
           "read_bytes", "parse_graph_json", "write_document", "write_graph", "remove_orphans"]

SCHEMA_VERSION = 2
MAX_GRAPH_BYTES = 2_000_000_000
_KINDS = ("function", "method", "module")
_TYPES: dict[str, EdgeType] = {"calls": "calls", "references": "references",
                               "consumes": "consumes", "produces": "produces"}
_RESOLVED = ("calls", "references")  # the edge types that have a resolution
_RESOLUTIONS: dict[Any, Resolution] = {"exact": "exact", "inferred": "inferred", "name": "name"}
_EDGE_ENDS = {"calls": ("function", "function"), "references": ("function", "function"),
              "consumes": ("tag", "function"), "produces": ("function", "tag")}


def to_document(meta: Mapping[str, Any], records: Iterable[FunctionNode | TagNode],
                rows: Iterable[EdgeRow]) -> dict[str, Any]:
    """The graph.json document of these nodes and edges, in the order given."""
    return {"schema_version": SCHEMA_VERSION, "meta": dict(sorted(meta.items())),
            "nodes": [_node_object(r) for r in records],
            "edges": [_edge_object(row) for row in rows]}


def _node_object(record: FunctionNode | TagNode) -> dict[str, Any]:
    if isinstance(record, FunctionNode):
        return {"id": record.id, "type": "function", "name": record.name, "kind": record.kind,
                "qualnames": list(record.qualnames),
                "sources": [s.to_dict() for s in record.sources],
                "knowledge": record.knowledge, "code": record.code}
    return {"id": record.id, "type": "tag", "label": record.label,
            "aliases": list(record.aliases), "weight": record.weight}


def _edge_object(row: EdgeRow) -> dict[str, Any]:
    source, target, kind, resolution = row
    item: dict[str, Any] = {"source": source, "target": target, "type": kind}
    if resolution is not None:
        item["resolution"] = resolution
    return item


def read_document(data: Any, *, where: str = "graph"
                  ) -> tuple[dict[str, Any], list[FunctionNode | TagNode], list[EdgeRow]]:
    """Validate a parsed graph.json document: its meta, node records and edge rows.

    Raises
    ------
    GraphFormatError
        Naming the first problem (``where`` and the item).
    """
    if not isinstance(data, dict):
        raise GraphFormatError(f"{where}: top level must be a JSON object")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise GraphFormatError(f"{where}: missing or non-integer schema_version")
    if version > SCHEMA_VERSION:
        raise GraphFormatError(
            f"{where}: schema_version {version} is newer than this SGKR understands "
            f"({SCHEMA_VERSION}); upgrade sgkr"
        )
    if version < 1:
        raise GraphFormatError(f"{where}: unknown schema_version {version}")
    nodes, edges = data.get("nodes"), data.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise GraphFormatError(f"{where}: 'nodes' and 'edges' must be lists")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise GraphFormatError(f"{where}: 'meta' must be an object")
    types: dict[str, str] = {}
    records: list[FunctionNode | TagNode] = []
    for index, raw in enumerate(nodes):
        at = (where, "nodes", index)
        record = _node(raw, at)
        if record.id in types:
            raise GraphFormatError(f"{_loc(at)}: duplicate node id {record.id!r}")
        types[record.id] = "function" if isinstance(record, FunctionNode) else "tag"
        records.append(record)
    return meta, records, _edges(edges, types, where)


def read_node(raw: Any, where: str, name: str) -> FunctionNode | TagNode:
    """One node object of a graph.json document, validated as :func:`read_document` does.

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


def read_bytes(file: Path, *, max_bytes: int = MAX_GRAPH_BYTES) -> bytes:
    """The bytes of the graph file ``file``, if it is at most ``max_bytes`` long.

    The size is checked before anything is read, and the text as it is read,
    a chunk at a time: a file whose first character does not open a JSON
    object, or holding a NUL byte (a sparse or binary file), is refused at the
    first chunk that shows it, without reading the rest.

    Raises
    ------
    GraphFormatError
        If the file is missing, too large, or does not start as JSON; the
        message names the file.
    """
    chunks: list[bytes] = []
    try:
        with opened(file, max_bytes) as handle:  # a regular file, its size checked first
            while chunk := handle.read(_CHUNK):
                if not chunks and not chunk.lstrip(b" \t\r\n").startswith((b"{", b"\xef")):
                    raise GraphFormatError(f"{file}: {_INVALID}: it does not start with a "
                                           "JSON object")
                if b"\0" in chunk:
                    raise GraphFormatError(f"{file}: {_INVALID}: it holds NUL bytes (a sparse "
                                           "or binary file?)")
                chunks.append(chunk)
        if sum(map(len, chunks)) > max_bytes:
            raise FileRefused(f"file too large (over {max_bytes} bytes when read)")
    except FileRefused as exc:
        raise GraphFormatError(f"{file}: {exc}") from exc
    except OSError as exc:
        raise GraphFormatError(f"{file}: cannot read graph file: {exc.strerror or exc}") from exc
    return b"".join(chunks)


def parse_graph_json(raw: bytes, where: str) -> Any:
    """The JSON of a graph file's bytes; refused (truncated, corrupted, nested too deep)
    with a :class:`~sgkr.errors.GraphFormatError` naming ``where``."""
    return parse_json(raw, where, GraphFormatError, invalid=_INVALID)


_INVALID = "not valid JSON (truncated or corrupted?)"
_CHUNK = 1 << 22


def write_document(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write graph.json atomically, never through a symlink (:func:`sgkr.atomic.write_atomic`)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    head = {k: v for k, v in doc.items() if k not in ("nodes", "edges")}
    write_atomic(path, _pieces(head, doc["nodes"], doc["edges"]))


def write_graph(meta: Mapping[str, Any], records: Iterable[FunctionNode | TagNode],
                rows: Iterable[EdgeRow], path: str | os.PathLike[str]) -> None:
    """Write the graph.json of these nodes and edges as :func:`write_document` writes
    :func:`to_document`'s, the same bytes, a few hundred lines at a time: the whole
    document is never held in memory, as objects or as text.

    Examples
    --------
    >>> import tempfile, os, json
    >>> path = os.path.join(tempfile.mkdtemp(), "graph.json")
    >>> write_graph({}, [TagNode("tag:fee", "fee")], [], path)
    >>> json.load(open(path))["nodes"]
    [{'id': 'tag:fee', 'type': 'tag', 'label': 'fee', 'aliases': [], 'weight': 1.0}]
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    head = {"schema_version": SCHEMA_VERSION, "meta": dict(sorted(meta.items()))}
    write_atomic(path, _pieces(head, map(_node_object, records), map(_edge_object, rows)))


def _pieces(head: Mapping[str, Any], nodes: Iterable[dict[str, Any]],
            edges: Iterable[dict[str, Any]]) -> Iterator[str]:
    """graph.json's text: compact JSON, one node or edge a line (diffable), through the C
    encoder, in pieces of at most :data:`_LINES` nodes or edges.

    ``indent`` would make :mod:`json` fall back to its pure-Python encoder,
    several times slower on a large graph.
    """
    yield _ENCODE(dict(head))[:-1] + ("," if head else "")
    for opening, items in (('\n"nodes":[\n', nodes), ('\n],\n"edges":[\n', edges)):
        yield opening
        batch: list[str] = []
        first = True
        for item in items:
            batch.append(_ENCODE(item))
            if len(batch) == _LINES:
                yield ("" if first else ",\n") + ",\n".join(batch)
                batch, first = [], False
        if batch:
            yield ("" if first else ",\n") + ",\n".join(batch)
    yield "\n]}\n"


_LINES = 500


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


#: Where an item is, made into text only for an error: (file, "nodes" or "edges", index,
#: and a node's source number).
_Where = tuple[Any, ...]


def _loc(at: _Where) -> str:
    where, part, index, *span = at
    return f"{where}: {part}[{index}]" + (f".sources[{span[0]}]" if span else "")


def _text(raw: dict[str, Any], key: str, at: _Where, *, empty: bool = True) -> str:
    value = raw.get(key)
    if type(value) is not str or (not empty and not value):
        what = "string" if empty else "non-empty string"
        raise GraphFormatError(f"{_loc(at)}: '{key}' must be a {what}")
    return value


def _texts(raw: dict[str, Any], key: str, at: _Where) -> tuple[str, ...]:
    value = raw.get(key)
    if type(value) is not list or not all(type(v) is str for v in value):
        raise GraphFormatError(f"{_loc(at)}: '{key}' must be a list of strings")
    return tuple(value)


def _node(raw: Any, at: _Where) -> FunctionNode | TagNode:
    if type(raw) is not dict:
        raise GraphFormatError(f"{_loc(at)}: must be an object")
    node_id = _text(raw, "id", at, empty=False)
    kind = raw.get("type")
    if kind == "tag":
        return TagNode(node_id, _text(raw, "label", at, empty=False), _texts(raw, "aliases", at),
                       _weight(raw, at))
    if kind != "function":
        raise GraphFormatError(f"{_loc(at)}: unknown node type {kind!r}; expected function or tag")
    fkind = raw.get("kind")
    if fkind not in _KINDS:
        raise GraphFormatError(f"{_loc(at)}: unknown function kind {fkind!r}; expected {_KINDS}")
    sources = raw.get("sources")
    if type(sources) is not list:
        raise GraphFormatError(f"{_loc(at)}: 'sources' must be a list")
    return FunctionNode(
        id=node_id, name=_text(raw, "name", at, empty=False),
        qualnames=_texts(raw, "qualnames", at), code=_text(raw, "code", at),
        knowledge=_text(raw, "knowledge", at),
        sources=tuple(_span(span, (*at, n)) for n, span in enumerate(sources)),
        kind=fkind,
    )


def _weight(raw: dict[str, Any], at: _Where) -> float:
    """A tag's weight, a number in [0, 1]; 1 in files written before tags had one."""
    value = raw.get("weight", 1.0)
    if type(value) not in (int, float) or not 0 <= value <= 1:
        raise GraphFormatError(f"{_loc(at)}: 'weight' must be a number from 0 to 1")
    return float(value)


def _span(raw: Any, at: _Where) -> SourceSpan:
    if type(raw) is not dict:
        raise GraphFormatError(f"{_loc(at)}: must be an object")
    start, end = raw.get("start_line"), raw.get("end_line")
    if type(start) is not int or type(end) is not int or start < 1 or end < 1:
        raise GraphFormatError(f"{_loc(at)}: start_line and end_line must be positive integers")
    return SourceSpan(_text(raw, "file", at), start, end, *_cells(raw, at))


def _cells(span: dict[str, Any], at: _Where) -> tuple[int, int] | tuple[()]:
    """The ``cell`` and ``end_cell`` of a notebook's span, or nothing for another file's."""
    if "cell" not in span and "end_cell" not in span:
        return ()
    first, last = span.get("cell"), span.get("end_cell")
    if type(first) is not int or type(last) is not int or first < 1 or last < 1:
        raise GraphFormatError(f"{_loc(at)}: cell and end_cell must be positive integers")
    return first, last


def _edges(edges: list[Any], types: dict[str, str], where: str) -> list[EdgeRow]:
    rows: list[EdgeRow] = []
    pairs: set[tuple[str, str]] = set()
    for index, raw in enumerate(edges):
        at = (where, "edges", index)
        if type(raw) is not dict:
            raise GraphFormatError(f"{_loc(at)}: must be an object")
        given = raw.get("type")
        kind = _TYPES.get(given) if isinstance(given, str) else None
        if kind is None:
            raise GraphFormatError(
                f"{_loc(at)}: unknown edge type {given!r}; expected {tuple(_TYPES)}")
        resolution = raw.get("resolution")
        resolved = kind in _RESOLVED
        if resolved and (type(resolution) is not str or resolution not in _RESOLUTIONS):
            raise GraphFormatError(
                f"{_loc(at)}: a {kind} edge needs resolution 'exact', 'inferred' or 'name'")
        if not resolved and resolution is not None:
            raise GraphFormatError(f"{_loc(at)}: only calls and references edges have a resolution")
        source = _text(raw, "source", at, empty=False)
        target = _text(raw, "target", at, empty=False)
        for end in (source, target):
            if end not in types:
                raise GraphFormatError(f"{_loc(at)}: refers to missing node {end!r}")
        if (source, target) in pairs:
            raise GraphFormatError(f"{_loc(at)}: duplicate edge {source} -> {target}")
        pairs.add((source, target))
        expected, found = _EDGE_ENDS[kind], (types[source], types[target])
        if found != expected:
            raise GraphFormatError(
                f"{_loc(at)}: a {kind} edge goes {expected[0]} -> {expected[1]}, not "
                f"{found[0]} -> {found[1]}")
        rows.append((source, target, kind, _RESOLUTIONS.get(resolution)))
    return rows

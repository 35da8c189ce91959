"""graph.json: a versioned JSON document, validated on load, written atomically.

Schema (version 3): compact JSON, one node, or the edges leaving one node, a line::

    {"schema_version":3,"meta":{...},
    "nodes":[
    {"id":"fn:fees.Schedule.fee","kind":"method","sources":[["fees.py",9,11]],"knowledge":"...","code":"..."},
    {"id":"fn:ISEOF","qualnames":["lib2to3.pgen2.token.ISEOF","token.ISEOF"],"sources":[...],...},
    {"id":"tag:fee","type":"tag","weight":0.5}
    ],
    "edges":[
    {"source":"fn:fees.Schedule.fee","calls":{"exact":["fn:fees.rate"],"name":["fn:round"]},"produces":["tag:fee"]},
    {"source":"tag:amount","consumes":["fn:fees.Schedule.fee"]}
    ]}

A node writes out only what its id does not already say; a field left out is:

- ``type``: ``function`` (a tag says ``"type":"tag"``);
- ``name``: the id's last dotted part, ``fee`` for ``fn:fees.Schedule.fee``;
- ``qualnames``: the id less its prefix (``fn:``, ``mod:``), ``["fees.Schedule.fee"]``;
- ``kind``: ``function`` (else ``method`` or ``module``);
- a tag's ``label``: the id less ``tag:``; its ``aliases``: none; its ``weight``: 1.

``sources`` are ``[file, start_line, end_line]`` (a notebook's: ``[file, start_line,
end_line, cell, end_cell]``); ``knowledge`` and ``code`` are always written. Each edge
line holds the edges leaving its ``source`` by type: ``calls`` and ``references`` by
resolution (``exact``, ``inferred``, ``name``), ``consumes`` and ``produces`` as lists.
Edges point the way a path walks them: a ``consumes`` edge from the tag to the
function that takes it as input (``tag → function``: the tag is an input of the
function), a ``produces`` edge from the function to the tag it outputs, a
``calls`` or ``references`` edge from the caller to the callee.

A graph built from solved tasks (earlier questions with their solutions) keeps them
after the edges, one a line (:mod:`sgkr.graph.tasks`); such a file is version 4,
which an older SGKR refuses rather than drop them. Versions 1 and 2 (every field
written out, one edge an object: the record form of :mod:`sgkr.graph.jsonrecords`)
are still read; saving writes version 3, or 4 with solved tasks.

Loading refuses a truncated, malformed, wrong-schema or inconsistent file with
a :class:`~sgkr.errors.GraphFormatError` naming the file, the item and the problem;
nothing is executed and no pickle is read. This module works on records and rows only;
:class:`~sgkr.graph.KnowledgeGraph` (``to_dict``, ``from_dict``, ``save``,
``load``) calls it.

Examples
--------
>>> read_document({"schema_version": 99, "nodes": [], "edges": []})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.GraphFormatError: graph: schema_version 99 is newer than ... upgrade sgkr
>>> from sgkr.records import SourceSpan
>>> to_document({}, [FunctionNode("fn:m.f", "f", ("m.f",), "def f(): pass", "F.",
...                               (SourceSpan("m.py", 1, 1),), "function")], [])["nodes"]
[{'id': 'fn:m.f', 'sources': [['m.py', 1, 1]], 'knowledge': 'F.', 'code': 'def f(): pass'}]
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..atomic import hashed, remove_orphans, write_atomic
from ..errors import GraphFormatError, InvalidArgumentError
from ..ingest.files import FileRefused, opened, parse_large_json
from ..records import EdgeRow, FunctionNode, SolvedTask, TagNode
from .jsonitems import implied, read_edges, read_nodes
from .jsonrecords import EDGE_TYPES, RESOLUTIONS, read_node, read_records, read_task, task_object

__all__ = ["SCHEMA_VERSION", "MAX_GRAPH_BYTES", "to_document", "read_document", "read_node",
           "read_bytes", "parse_graph_json", "write_document", "write_graph", "write_lines",
           "node_line", "edge_line", "remove_orphans",
           "read_tasks", "TASKS_VERSION"]

SCHEMA_VERSION = 3
#: The version of a file that keeps solved tasks (the newest this SGKR reads).
TASKS_VERSION = 4
MAX_GRAPH_BYTES = 2_000_000_000


def to_document(meta: Mapping[str, Any], records: Iterable[FunctionNode | TagNode],
                rows: Iterable[EdgeRow], tasks: Iterable[SolvedTask] = ()) -> dict[str, Any]:
    """The graph.json document of these nodes, edges and solved tasks, in the order given
    (edges sorted by source keep one line for each source)."""
    doc = {"schema_version": SCHEMA_VERSION, "meta": dict(sorted(meta.items())),
           "nodes": [_node_object(r) for r in records], "edges": list(_edge_objects(rows))}
    if objects := [task_object(t) for t in tasks]:
        doc["schema_version"], doc["tasks"] = TASKS_VERSION, objects
    return doc


def _node_object(record: FunctionNode | TagNode) -> dict[str, Any]:
    if isinstance(record, FunctionNode):
        name, qualname = implied(record.id)
        item: dict[str, Any] = {"id": record.id}
        if record.name != name:
            item["name"] = record.name
        if record.kind != "function":
            item["kind"] = record.kind
        if record.qualnames != (qualname,):
            item["qualnames"] = list(record.qualnames)
        item["sources"] = [[s.file, s.start_line, s.end_line] if s.cell is None
                           or s.end_cell is None else
                           [s.file, s.start_line, s.end_line, s.cell, s.end_cell]
                           for s in record.sources]
        item["knowledge"], item["code"] = record.knowledge, record.code
        return item
    item = {"id": record.id, "type": "tag"}
    if record.label != record.id.removeprefix("tag:"):
        item["label"] = record.label
    if record.aliases:
        item["aliases"] = list(record.aliases)
    if record.weight != 1:
        item["weight"] = record.weight
    return item


def _edge_objects(rows: Iterable[EdgeRow]) -> Iterator[dict[str, Any]]:
    """One object for each run of rows with the same source."""
    group: dict[str, Any] = {}
    for source, target, kind, resolution in rows:
        if group.get("source") != source:
            if group:
                yield _in_order(group)
            group = {"source": source}
        if resolution is None:
            group.setdefault(kind, []).append(target)
        else:
            group.setdefault(kind, {}).setdefault(resolution, []).append(target)
    if group:
        yield _in_order(group)


def _in_order(group: dict[str, Any]) -> dict[str, Any]:
    """``group`` with its edge types, and their resolutions, in the documented order."""
    ordered: dict[str, Any] = {"source": group["source"]}
    for kind in EDGE_TYPES:
        if (targets := group.get(kind)) is not None:
            ordered[kind] = targets if type(targets) is list else {
                resolution: targets[resolution] for resolution in RESOLUTIONS
                if resolution in targets}
    return ordered


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
    if type(version) is float and version.is_integer() and version >= 2**63:
        version = int(version)  # an integer over 64 bits, which the parser reads as a float
    if not isinstance(version, int) or isinstance(version, bool):
        raise GraphFormatError(f"{where}: missing or non-integer schema_version")
    if version > TASKS_VERSION:
        raise GraphFormatError(
            f"{where}: schema_version {version} is newer than this SGKR understands "
            f"({TASKS_VERSION}); upgrade sgkr"
        )
    if version < 1:
        raise GraphFormatError(f"{where}: unknown schema_version {version}")
    nodes, edges = data.get("nodes"), data.get("edges")
    if not isinstance(nodes, list) or not isinstance(edges, list):
        raise GraphFormatError(f"{where}: 'nodes' and 'edges' must be lists")
    meta = data.get("meta", {})
    if not isinstance(meta, dict):
        raise GraphFormatError(f"{where}: 'meta' must be an object")
    if version < SCHEMA_VERSION:
        return meta, *read_records(nodes, edges, where)
    records = read_nodes(nodes, where)
    return meta, records, read_edges(edges, records, where)


def read_tasks(data: Any, *, where: str = "graph") -> list[SolvedTask]:
    """The solved tasks of a parsed graph.json document (version 4, or the record form that
    stores keep); each checked alone (:func:`sgkr.graph.tasks.check_tasks` checks them
    against the nodes).

    Raises
    ------
    GraphFormatError
        Naming the first problem.
    """
    raw = data.get("tasks", []) if isinstance(data, dict) else []
    if type(raw) is not list:
        raise GraphFormatError(f"{where}: 'tasks' must be a list")
    return [read_task(item, (where, "tasks", index)) for index, item in enumerate(raw)]


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
    return parse_large_json(raw, where, GraphFormatError, invalid=_INVALID)


_INVALID = "not valid JSON (truncated or corrupted?)"
_CHUNK = 1 << 22


def write_document(doc: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write graph.json atomically, never through a symlink (:func:`sgkr.atomic.write_atomic`)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    head = {k: v for k, v in doc.items() if k not in ("nodes", "edges", "tasks")}
    write_atomic(path, _pieces(head, map(_ENCODE, doc["nodes"]), map(_ENCODE, doc["edges"]),
                               map(_ENCODE, doc.get("tasks", ()))))


def write_graph(meta: Mapping[str, Any], records: Iterable[FunctionNode | TagNode],
                rows: Iterable[EdgeRow], path: str | os.PathLike[str],
                tasks: Iterable[SolvedTask] = ()) -> str:
    """Write the graph.json of these nodes and edges as :func:`write_document` writes
    :func:`to_document`'s, the same bytes, a few hundred lines at a time: the whole
    document is never held in memory, as objects or as text.

    Returns the SHA-256 digest of the bytes written (hashed as they are written: a
    file read back may be another writer's already).

    Examples
    --------
    >>> import tempfile, os, json, hashlib
    >>> path = os.path.join(tempfile.mkdtemp(), "graph.json")
    >>> digest = write_graph({}, [TagNode("tag:fee", "fee")], [], path)
    >>> json.load(open(path))["nodes"]
    [{'id': 'tag:fee', 'type': 'tag'}]
    >>> digest == hashlib.sha256(open(path, "rb").read()).hexdigest()
    True
    """
    return write_lines(meta, map(node_line, records), map(_ENCODE, _edge_objects(rows)), path,
                       tasks)


def write_lines(meta: Mapping[str, Any], nodes: Iterable[str], edges: Iterable[str],
                path: str | os.PathLike[str], tasks: Iterable[SolvedTask] = ()) -> str:
    """:func:`write_graph` of the lines of the nodes (:func:`node_line`) and of the edges
    leaving each source (:func:`edge_line`), in order; the digest of the bytes written."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    objects = [task_object(t) for t in tasks]
    head = {"schema_version": TASKS_VERSION if objects else SCHEMA_VERSION,
            "meta": dict(sorted(meta.items()))}
    digest = hashlib.sha256()
    write_atomic(path, hashed(_pieces(head, nodes, edges, map(_ENCODE, objects)), digest))
    return digest.hexdigest()


def node_line(record: FunctionNode | TagNode) -> str:
    """The line of graph.json that holds ``record`` (less the comma between lines)."""
    return _ENCODE(_node_object(record))


def edge_line(rows: Iterable[EdgeRow]) -> str:
    """The line of graph.json that holds ``rows``, the edges leaving one source, sorted."""
    return _ENCODE(next(_edge_objects(rows)))


def _pieces(head: Mapping[str, Any], nodes: Iterable[str], edges: Iterable[str],
            tasks: Iterable[str] = ()) -> Iterator[str]:
    """graph.json's text: compact JSON, one node or edge line a line (diffable), each line
    encoded by the C encoder, in pieces of at most :data:`_LINES` lines.

    ``indent`` would make :mod:`json` fall back to its pure-Python encoder,
    several times slower on a large graph.
    """
    yield _ENCODE(dict(head))[:-1] + ("," if head else "")
    sections = [('\n"nodes":[\n', nodes), ('\n],\n"edges":[\n', edges)]
    tasks = list(tasks)
    if tasks:  # a graph without solved tasks is written as before, to the byte
        sections.append(('\n],\n"tasks":[\n', tasks))
    for opening, lines in sections:
        yield opening
        batch: list[str] = []
        first = True
        for line in lines:
            batch.append(line)
            if len(batch) == _LINES:
                yield ("" if first else ",\n") + ",\n".join(batch)
                batch, first = [], False
        if batch:
            yield ("" if first else ",\n") + ",\n".join(batch)
    yield "\n]}\n"


_LINES = 500


_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

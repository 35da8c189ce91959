"""graph.json: a versioned JSON document, validated on load, written atomically.

Schema (version 1)::

    {"schema_version": 1, "meta": {...},
     "nodes": [{"id", "type": "function", "name", "kind", "qualnames", "sources",
                "knowledge", "code"} | {"id", "type": "tag", "label", "aliases"}],
     "edges": [{"source", "target", "type": "calls"|"consumes"|"produces",
                "resolution": "exact"|"name" (calls only)}]}

Loading refuses a truncated, malformed, wrong-schema or inconsistent file with
a :class:`~sgkr.errors.GraphFormatError` naming the problem; nothing is
executed and no pickle is read.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> graph_from_dict({"schema_version": 99, "nodes": [], "edges": []})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.GraphFormatError: graph: schema_version 99 is newer than ... upgrade sgkr
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from .errors import GraphFormatError
from .gcpause import paused_gc
from .records import Edge, FunctionNode, SourceSpan, TagNode

if TYPE_CHECKING:
    from .graph import KnowledgeGraph

__all__ = ["SCHEMA_VERSION", "graph_to_dict", "graph_from_dict", "save_graph", "load_graph",
           "MAX_GRAPH_BYTES"]

SCHEMA_VERSION = 1
MAX_GRAPH_BYTES = 2_000_000_000
_KINDS = ("function", "method", "module")
_EDGE_TYPES = ("calls", "consumes", "produces")


def graph_to_dict(graph: KnowledgeGraph) -> dict[str, Any]:
    """The JSON document of ``graph``, nodes and edges sorted for stable output."""
    g = graph.nx
    nodes: list[dict[str, Any]] = []
    for node_id in sorted(g._node):
        record = g._node[node_id]["record"]
        if isinstance(record, FunctionNode):
            nodes.append({
                "id": record.id, "type": "function", "name": record.name, "kind": record.kind,
                "qualnames": list(record.qualnames),
                "sources": [{"file": s.file, "start_line": s.start_line, "end_line": s.end_line}
                            if s.cell is None else s.to_dict() for s in record.sources],
                "knowledge": record.knowledge, "code": record.code,
            })
        else:
            nodes.append({"id": record.id, "type": "tag", "label": record.label,
                          "aliases": list(record.aliases)})
    edges: list[dict[str, Any]] = []
    succ = g._succ
    for source in sorted(succ):
        targets = succ[source]
        for target in sorted(targets):
            data = targets[target]
            item: dict[str, Any] = {"source": source, "target": target, "type": data["type"]}
            resolution = data.get("resolution")
            if resolution is not None:
                item["resolution"] = resolution
            edges.append(item)
    return {"schema_version": SCHEMA_VERSION, "meta": dict(sorted(graph.meta.items())),
            "nodes": nodes, "edges": edges}


def graph_from_dict(data: Any, *, where: str = "graph") -> KnowledgeGraph:
    """Validate a parsed graph.json document and build the graph; never half-loads."""
    from .graph import KnowledgeGraph

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
    g = _fast_graph(nodes, edges)
    if g is None:
        # Something is wrong: the careful pass finds it and names it.
        node_rows, edge_rows = _checked_rows(nodes, edges, where)
        g = nx.DiGraph()
        g.add_nodes_from(node_rows)
        g.add_edges_from(edge_rows)
    return KnowledgeGraph(g, meta=meta)


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> None:
    """Write graph.json atomically: a temporary file in the same folder, then a rename."""
    target = Path(path)
    text = _dumps(graph_to_dict(graph))
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; a graph file is not
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def load_graph(path: str | os.PathLike[str], *, max_bytes: int = MAX_GRAPH_BYTES) -> KnowledgeGraph:
    """Read and validate graph.json.

    Raises
    ------
    GraphFormatError
        If the file is missing, too large, not JSON (truncated, corrupted,
        nested too deep) or not a valid SGKR graph; the message names the file.
    """
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > max_bytes:
            raise GraphFormatError(f"{file}: {size} bytes is over the limit of {max_bytes}")
        raw = file.read_bytes()
    except OSError as exc:
        raise GraphFormatError(f"{file}: cannot read graph file: {exc.strerror or exc}") from exc
    with paused_gc(long_lived=True):
        return _parse(file, raw)


def _parse(file: Path, raw: bytes) -> KnowledgeGraph:
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise GraphFormatError(f"{file}: not UTF-8 text: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise GraphFormatError(
            f"{file}: not valid JSON (truncated or corrupted?): {exc.msg} at line {exc.lineno}"
        ) from exc
    except RecursionError as exc:
        raise GraphFormatError(f"{file}: JSON nested too deeply") from exc
    return graph_from_dict(data, where=str(file))


# -- writing -------------------------------------------------------------------------

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _dumps(doc: dict[str, Any]) -> str:
    """Compact JSON, one node or edge a line (diffable), through the C encoder.

    ``indent`` would make :mod:`json` fall back to its pure-Python encoder,
    several times slower on a large graph.
    """
    head = {k: v for k, v in doc.items() if k not in ("nodes", "edges")}
    parts = [_ENCODE(head)[:-1], ',\n"nodes":[\n', ",\n".join(map(_ENCODE, doc["nodes"])),
             '\n],\n"edges":[\n', ",\n".join(map(_ENCODE, doc["edges"])), "\n]}\n"]
    if not head:
        parts[1] = parts[1][1:]
    return "".join(parts)


# -- loading ---------------------------------------------------------------------------

NodeRows = list[tuple[str, dict[str, Any]]]
EdgeRows = list[tuple[str, str, dict[str, str]]]


def _fast_rows(nodes: list[Any], edges: list[Any]) -> tuple[NodeRows, EdgeRows] | None:
    """Validate and convert in one tight pass; None when anything is off.

    It accepts nothing :func:`_checked_rows` refuses except a repeated edge,
    which :func:`_fast_graph` finds from the edge count; on None the caller
    runs that careful pass, which names the first problem.
    """
    try:
        return _fast_rows_unchecked(nodes, edges)
    except (KeyError, TypeError, _Invalid):
        return None


def _fast_graph(nodes: list[Any], edges: list[Any]) -> nx.DiGraph | None:
    """The networkx graph of a valid document; else None."""
    rows = _fast_rows(nodes, edges)
    if rows is None:
        return None
    g = nx.DiGraph()
    # Written into networkx's dicts as add_nodes_from and add_edges_from would, without
    # their checks per item: the rows are checked, and the checks cost as much again.
    attrs_of, succ, pred = g._node, g._succ, g._pred
    for node_id, attrs in rows[0]:
        attrs_of[node_id] = attrs
        succ[node_id] = {}
        pred[node_id] = {}
    for source, target, attrs in rows[1]:
        following = succ[source]
        if target in following:
            return None  # a repeated (source, target): the careful pass names it
        following[target] = pred[target][source] = dict(attrs)  # one dict, both directions
    g.add_nodes_from(())  # lets networkx drop what it caches about the graph
    return g


class _Invalid(Exception):
    pass


# Frozen dataclass ``__init__`` sets each field through ``object.__setattr__``; filling the
# instance ``__dict__`` in one step gives an equal record at half the cost. The keys are in
# field order, as ``__init__`` would set them.
_new = object.__new__
_set = object.__setattr__
_join = "".join  # raises TypeError on a non-string item: a fast list-of-strings check
_CALLS = {"exact": {"type": "calls", "resolution": "exact"},
          "name": {"type": "calls", "resolution": "name"}}
_OTHER = {"consumes": {"type": "consumes"}, "produces": {"type": "produces"}}


def _fast_rows_unchecked(nodes: list[Any], edges: list[Any]) -> tuple[NodeRows, EdgeRows]:
    # Subscripts raise KeyError / TypeError on a missing key or a non-object item.
    types: dict[str, str] = {}
    node_rows: NodeRows = []
    add_node = node_rows.append
    for raw in nodes:
        if type(raw) is not dict:
            raise _Invalid
        node_id = raw["id"]
        kind = raw["type"]
        if type(node_id) is not str or not node_id or node_id in types:
            raise _Invalid
        record: FunctionNode | TagNode
        if kind == "function":
            name, fkind, qualnames = raw["name"], raw["kind"], raw["qualnames"]
            sources, knowledge, code = raw["sources"], raw["knowledge"], raw["code"]
            if (type(name) is not str or not name or type(fkind) is not str
                    or fkind not in _KINDS or type(qualnames) is not list
                    or type(sources) is not list or type(knowledge) is not str
                    or type(code) is not str):
                raise _Invalid
            _join(qualnames)
            spans: list[SourceSpan] = []
            for span in sources:
                if type(span) is not dict:
                    raise _Invalid
                file, start, end = span["file"], span["start_line"], span["end_line"]
                if (type(file) is not str or type(start) is not int or type(end) is not int
                        or start < 1 or end < 1):
                    raise _Invalid
                item = _new(SourceSpan)
                _set(item, "__dict__", {"file": file, "start_line": start, "end_line": end})
                if len(span) > 3:  # a notebook's cells: the careful pass checks them
                    raise _Invalid
                spans.append(item)
            record = _new(FunctionNode)
            _set(record, "__dict__", {
                "id": node_id, "name": name, "qualnames": tuple(qualnames), "code": code,
                "knowledge": knowledge, "sources": tuple(spans), "kind": fkind})
        elif kind == "tag":
            label, aliases = raw["label"], raw["aliases"]
            if type(label) is not str or not label or type(aliases) is not list:
                raise _Invalid
            _join(aliases)
            record = _new(TagNode)
            _set(record, "__dict__", {"id": node_id, "label": label, "aliases": tuple(aliases)})
        else:
            raise _Invalid
        types[node_id] = kind
        add_node((node_id, {"type": kind, "record": record}))
    edge_rows: EdgeRows = []
    add_edge = edge_rows.append
    get_type = types.get  # a non-string end is never a key: it is refused as missing
    calls, other = _CALLS, _OTHER
    for raw in edges:
        if type(raw) is not dict:
            raise _Invalid
        source, target, kind = raw["source"], raw["target"], raw["type"]
        ends = (get_type(source), get_type(target))
        if kind == "calls":
            attrs = calls[raw["resolution"]]
            if ends != _CALL_ENDS:
                raise _Invalid
        else:
            if ends != _EDGE_ENDS.get(kind) or (len(raw) != 3 and "resolution" in raw):
                raise _Invalid
            attrs = other[kind]
        add_edge((source, target, attrs))
    return node_rows, edge_rows


def _checked_rows(nodes: list[Any], edges: list[Any], where: str) -> tuple[NodeRows, EdgeRows]:
    """Validate item by item, raising a GraphFormatError that names the first problem."""
    types: dict[str, str] = {}
    node_rows: NodeRows = []
    for index, raw in enumerate(nodes):
        at = f"{where}: nodes[{index}]"
        node = _node(raw, at)
        if node.id in types:
            raise GraphFormatError(f"{at}: duplicate node id {node.id!r}")
        kind = "function" if isinstance(node, FunctionNode) else "tag"
        types[node.id] = kind
        node_rows.append((node.id, {"type": kind, "record": node}))
    edge_rows: EdgeRows = []
    pairs: set[tuple[str, str]] = set()
    for index, raw in enumerate(edges):
        at = f"{where}: edges[{index}]"
        edge = _edge(raw, at)
        for end in (edge.source, edge.target):
            if end not in types:
                raise GraphFormatError(f"{at}: refers to missing node {end!r}")
        if (edge.source, edge.target) in pairs:
            raise GraphFormatError(f"{at}: duplicate edge {edge.source} -> {edge.target}")
        pairs.add((edge.source, edge.target))
        _check_edge_ends(types, edge, at)
        attrs: dict[str, str] = {"type": edge.type}
        if edge.resolution is not None:
            attrs["resolution"] = edge.resolution
        edge_rows.append((edge.source, edge.target, attrs))
    return node_rows, edge_rows


# -- validation ---------------------------------------------------------------------


def _text(raw: dict[str, Any], key: str, at: str, *, empty: bool = True) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise GraphFormatError(f"{at}: '{key}' must be a {'' if empty else 'non-empty '}string")
    return value


def _texts(raw: dict[str, Any], key: str, at: str) -> tuple[str, ...]:
    value = raw.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GraphFormatError(f"{at}: '{key}' must be a list of strings")
    return tuple(value)


def _node(raw: Any, at: str) -> FunctionNode | TagNode:
    if not isinstance(raw, dict):
        raise GraphFormatError(f"{at}: must be an object")
    node_id = _text(raw, "id", at, empty=False)
    kind = raw.get("type")
    if kind == "tag":
        return TagNode(node_id, _text(raw, "label", at, empty=False), _texts(raw, "aliases", at))
    if kind != "function":
        raise GraphFormatError(f"{at}: unknown node type {kind!r}; expected function or tag")
    fkind = raw.get("kind")
    if fkind not in _KINDS:
        raise GraphFormatError(f"{at}: unknown function kind {fkind!r}; expected {_KINDS}")
    sources = raw.get("sources")
    if not isinstance(sources, list):
        raise GraphFormatError(f"{at}: 'sources' must be a list")
    spans: list[SourceSpan] = []
    for number, span in enumerate(sources):
        where = f"{at}.sources[{number}]"
        if not isinstance(span, dict):
            raise GraphFormatError(f"{where}: must be an object")
        lines = (span.get("start_line"), span.get("end_line"))
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in lines):
            raise GraphFormatError(f"{where}: start_line and end_line must be positive integers")
        start, end = lines
        assert isinstance(start, int) and isinstance(end, int)
        spans.append(SourceSpan(_text(span, "file", where), start, end, *_cells(span, where)))
    return FunctionNode(
        id=node_id, name=_text(raw, "name", at, empty=False),
        qualnames=_texts(raw, "qualnames", at), code=_text(raw, "code", at),
        knowledge=_text(raw, "knowledge", at), sources=tuple(spans), kind=fkind,
    )


def _cells(span: dict[str, Any], where: str) -> tuple[int, int] | tuple[()]:
    """The ``cell`` and ``end_cell`` of a notebook's span, or nothing for another file's."""
    if "cell" not in span and "end_cell" not in span:
        return ()
    cells = (span.get("cell"), span.get("end_cell"))
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in cells):
        raise GraphFormatError(f"{where}: cell and end_cell must be positive integers")
    first, last = cells
    assert isinstance(first, int) and isinstance(last, int)
    return first, last


def _edge(raw: Any, at: str) -> Edge:
    if not isinstance(raw, dict):
        raise GraphFormatError(f"{at}: must be an object")
    kind = raw.get("type")
    if kind not in _EDGE_TYPES:
        raise GraphFormatError(f"{at}: unknown edge type {kind!r}; expected {_EDGE_TYPES}")
    resolution = raw.get("resolution")
    if kind == "calls" and resolution not in ("exact", "name"):
        raise GraphFormatError(f"{at}: a calls edge needs resolution 'exact' or 'name'")
    if kind != "calls" and resolution is not None:
        raise GraphFormatError(f"{at}: only calls edges have a resolution")
    return Edge(_text(raw, "source", at, empty=False), _text(raw, "target", at, empty=False),
                kind, resolution)


_EDGE_ENDS = {"calls": ("function", "function"), "consumes": ("tag", "function"),
              "produces": ("function", "tag")}
_CALL_ENDS = _EDGE_ENDS["calls"]


def _check_edge_ends(types: dict[str, str], edge: Edge, at: str) -> None:
    expected = _EDGE_ENDS[edge.type]
    found = (types[edge.source], types[edge.target])
    if found != expected:
        raise GraphFormatError(
            f"{at}: a {edge.type} edge goes {expected[0]} -> {expected[1]}, not "
            f"{found[0]} -> {found[1]}"
        )

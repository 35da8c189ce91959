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

from .errors import GraphFormatError
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
    nodes: list[dict[str, Any]] = []
    for f in graph.functions():
        nodes.append({
            "id": f.id, "type": "function", "name": f.name, "kind": f.kind,
            "qualnames": list(f.qualnames), "sources": [s.to_dict() for s in f.sources],
            "knowledge": f.knowledge, "code": f.code,
        })
    for t in graph.tags():
        nodes.append({"id": t.id, "type": "tag", "label": t.label, "aliases": list(t.aliases)})
    nodes.sort(key=lambda n: str(n["id"]))
    edges: list[dict[str, Any]] = []
    for e in graph.edges():
        item: dict[str, Any] = {"source": e.source, "target": e.target, "type": e.type}
        if e.resolution is not None:
            item["resolution"] = e.resolution
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
    graph = KnowledgeGraph(meta=meta)
    # Validated first, then added to networkx in two batches: loading stays linear and fast.
    types: dict[str, str] = {}
    node_rows: list[tuple[str, dict[str, Any]]] = []
    for index, raw in enumerate(nodes):
        at = f"{where}: nodes[{index}]"
        node = _node(raw, at)
        if node.id in types:
            raise GraphFormatError(f"{at}: duplicate node id {node.id!r}")
        kind = "function" if isinstance(node, FunctionNode) else "tag"
        types[node.id] = kind
        node_rows.append((node.id, {"type": kind, "record": node}))
    edge_rows: list[tuple[str, str, dict[str, str]]] = []
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
    graph.nx.add_nodes_from(node_rows)
    graph.nx.add_edges_from(edge_rows)
    return graph


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> None:
    """Write graph.json atomically: a temporary file in the same folder, then a rename."""
    target = Path(path)
    text = json.dumps(graph_to_dict(graph), ensure_ascii=False, indent=1)
    folder = target.parent if str(target.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
        spans.append(SourceSpan(_text(span, "file", where), start, end))
    return FunctionNode(
        id=node_id, name=_text(raw, "name", at, empty=False),
        qualnames=_texts(raw, "qualnames", at), code=_text(raw, "code", at),
        knowledge=_text(raw, "knowledge", at), sources=tuple(spans), kind=fkind,
    )


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


def _check_edge_ends(types: dict[str, str], edge: Edge, at: str) -> None:
    expected = _EDGE_ENDS[edge.type]
    found = (types[edge.source], types[edge.target])
    if found != expected:
        raise GraphFormatError(
            f"{at}: a {edge.type} edge goes {expected[0]} -> {expected[1]}, not "
            f"{found[0]} -> {found[1]}"
        )

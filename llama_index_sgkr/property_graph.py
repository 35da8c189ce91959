"""The knowledge–code graph in a LlamaIndex ``PropertyGraphStore``, and back.

:func:`to_property_graph_store` writes every function and tag of a graph as
an ``EntityNode`` and every edge as a ``Relation`` into any property graph
store (the in-memory ``SimplePropertyGraphStore``, Neo4j, ...), so the graph
stands beside a GraphRAG index's entities and can be browsed with the store's
tools. :func:`from_property_graph_store` reads it back into an equal
:class:`~sgkr.KnowledgeGraph`, leaving the store's other data alone.

Entity names are the graph's node ids (``fn:...``, ``tag:...``), so they do
not merge with other entities; properties are strings and lists of strings
or integers, as every store can hold them:

- functions (label :data:`FUNCTION_LABEL`): ``name``, ``kind``,
  ``qualnames``, ``knowledge``, ``code`` and the ``files``,
  ``start_lines`` and ``end_lines`` of their sources (and, for a notebook's
  definitions, the ``cells`` and ``end_cells`` those lines are in);
- tags (label :data:`TAG_LABEL`): ``tag_label``, ``aliases`` and ``weight``;
- relations ``CALLS`` and ``REFERENCES`` (with their ``resolution``),
  ``CONSUMES`` and ``PRODUCES``;
- one entity ``sgkr:graph`` (label :data:`GRAPH_LABEL`) holds the graph's
  build information as JSON.

Every SGKR entity has the property ``sgkr_node`` (``function``, ``tag`` or
``graph``) and its node id as ``sgkr_id``. A store holds one SGKR graph:
writing another replaces the records of the same ids.

Examples
--------
>>> from llama_index.core.graph_stores import SimplePropertyGraphStore
>>> from sgkr import build_graph
>>> graph = build_graph([("m.py", "def f():\\n    return g()\\ndef g():\\n    return 1\\n")],
...                    infer_tags=False)
>>> store = SimplePropertyGraphStore()
>>> to_property_graph_store(graph, store)
>>> [(s.id, r.label, t.id) for s, r, t in store.get_triplets(entity_names=["fn:m.f"])]
[('fn:m.f', 'CALLS', 'fn:m.g')]
>>> from_property_graph_store(store).to_dict() == graph.to_dict()
True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from llama_index.core.graph_stores import SimplePropertyGraphStore
from llama_index.core.graph_stores.types import (
    EntityNode,
    LabelledNode,
    PropertyGraphStore,
    Relation,
)

from sgkr.errors import GraphFormatError, InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.graph.jsonrecords import RECORD_VERSION, records_of

__all__ = ["FUNCTION_LABEL", "TAG_LABEL", "GRAPH_LABEL", "RELATION_LABELS",
           "to_property_graph_store", "from_property_graph_store"]

FUNCTION_LABEL = "sgkr_function"
TAG_LABEL = "sgkr_tag"
GRAPH_LABEL = "sgkr_graph"
#: The relation label of each edge type. Relations keep the graph's direction:
#: ``CONSUMES`` goes from the tag to the function that takes it as input (read "is input
#: of"), ``PRODUCES`` from the function to its output tag.
RELATION_LABELS = {"calls": "CALLS", "references": "REFERENCES", "consumes": "CONSUMES",
                   "produces": "PRODUCES"}
_GRAPH_ID = "sgkr:graph"
# The properties holding a function's spans, a list each, one item a span.
_SPAN_COLUMNS = ("files", "start_lines", "end_lines", "cells", "end_cells")
_WHERE = "property graph store"


def to_property_graph_store(graph: KnowledgeGraph, store: PropertyGraphStore) -> None:
    """Write ``graph`` into ``store``: functions and tags as entities, edges as relations.

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a :class:`~sgkr.KnowledgeGraph` or ``store`` not a
        LlamaIndex ``PropertyGraphStore``, or if the store would merge two of
        its records (nothing is written then): LlamaIndex reads ``"`` in an
        entity name as a space, so ids ``a"b`` and ``a b`` name one entity, and
        its in-memory store keys a relation by its ends and label joined by ``_``.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph).__name__}")
    _check_store(store)
    data = records_of(graph)
    nodes: list[LabelledNode] = [_entity(node) for node in data["nodes"]]
    graph_entity = {"sgkr_node": "graph", "sgkr_id": _GRAPH_ID, "meta": json.dumps(data["meta"])}
    if "tasks" in data:  # the solved tasks the graph was built with, as graph.json keeps them
        graph_entity["tasks"] = json.dumps(data["tasks"])
    nodes.append(EntityNode(name=_GRAPH_ID, label=GRAPH_LABEL, properties=graph_entity))
    relations = [
        Relation(label=RELATION_LABELS[edge["type"]], source_id=EntityNode(name=edge["source"]).id,
                 target_id=EntityNode(name=edge["target"]).id,
                 properties={"resolution": edge["resolution"]} if "resolution" in edge else {})
        for edge in data["edges"]]
    _check_distinct(nodes, relations, store)
    store.upsert_nodes(nodes)
    store.upsert_relations(relations)


def from_property_graph_store(store: PropertyGraphStore) -> KnowledgeGraph:
    """Read the graph :func:`to_property_graph_store` wrote into ``store``.

    Entities and relations that SGKR did not write are left out.

    Raises
    ------
    InvalidArgumentError
        If ``store`` is not a LlamaIndex ``PropertyGraphStore``.
    GraphFormatError
        If the store holds no SGKR graph, or its records are malformed (the
        message names the record), as for a graph.json file.
    """
    _check_store(store)
    found = {kind: store.get(properties={"sgkr_node": kind})
             for kind in ("graph", "function", "tag")}
    if not found["graph"]:
        raise GraphFormatError(f"{_WHERE}: holds no SGKR graph (no {_GRAPH_ID!r} entity)")
    try:
        meta = json.loads(found["graph"][0].properties["meta"])
        tasks = json.loads(found["graph"][0].properties.get("tasks", "[]"))
    except (KeyError, TypeError, json.JSONDecodeError) as error:
        raise GraphFormatError(f"{_WHERE}: {_GRAPH_ID!r} has no valid 'meta' or 'tasks'"
                               ) from error
    ids = {node.id: node.properties.get("sgkr_id") for kind in ("function", "tag")
           for node in found[kind]}
    nodes = [_function(n) for n in found["function"]] + [_tag(n) for n in found["tag"]]
    types = {label: kind for kind, label in RELATION_LABELS.items()}
    edges: list[dict[str, Any]] = []
    for source, relation, target in store.get_triplets(relation_names=list(types)):
        if relation.label in types and source.id in ids and target.id in ids:
            edge = {"source": ids[source.id], "target": ids[target.id],
                    "type": types[relation.label]}
            if relation.properties.get("resolution") is not None:
                edge["resolution"] = relation.properties["resolution"]
            edges.append(edge)
    data = {"schema_version": RECORD_VERSION, "meta": meta,
            "nodes": sorted(nodes, key=lambda n: str(n["id"])),
            "edges": sorted(edges, key=lambda e: (str(e["source"]), str(e["target"]))),
            "tasks": tasks}
    return KnowledgeGraph.from_dict(data, where=_WHERE)


def _check_distinct(nodes: list[LabelledNode], relations: list[Relation],
                    store: PropertyGraphStore) -> None:
    """Refuse a graph two of whose records would be one in ``store``."""
    _one_each((n.id for n in nodes), "entity", lambda i: f"{i!r}")
    if isinstance(store, SimplePropertyGraphStore):
        _one_each((f"{r.source_id}_{r.label}_{r.target_id}" for r in relations),
                  "relation", lambda key: f"key {key!r}")


def _one_each(keys: Iterable[str], what: str, shown: Callable[[str], str]) -> None:
    seen: set[str] = set()
    for key in keys:
        if key in seen:
            raise InvalidArgumentError(
                f"{_WHERE}: two records of the graph would be the one {what} {shown(key)} "
                "(LlamaIndex reads '\"' in a name as a space; its in-memory store joins a "
                "relation's ends with '_'); nothing was written")
        seen.add(key)


def _check_store(store: object) -> None:
    if not isinstance(store, PropertyGraphStore):
        raise InvalidArgumentError(
            f"store must be a LlamaIndex PropertyGraphStore, got {type(store).__name__}")


def _entity(node: dict[str, Any]) -> EntityNode:
    if node["type"] == "tag":
        return EntityNode(name=node["id"], label=TAG_LABEL, properties={
            "sgkr_node": "tag", "sgkr_id": node["id"], "tag_label": node["label"],
            "aliases": node["aliases"], "weight": node["weight"]})
    sources = node["sources"]
    properties = {
        "sgkr_node": "function", "sgkr_id": node["id"], "name": node["name"],
        "kind": node["kind"], "qualnames": node["qualnames"],
        "knowledge": node["knowledge"], "code": node["code"],
        "files": [s["file"] for s in sources],
        "start_lines": [s["start_line"] for s in sources],
        "end_lines": [s["end_line"] for s in sources]}
    if any("cell" in s for s in sources):  # a notebook's: 0 where a span has no cell
        properties["cells"] = [s.get("cell", 0) for s in sources]
        properties["end_cells"] = [s.get("end_cell", 0) for s in sources]
    return EntityNode(name=node["id"], label=FUNCTION_LABEL, properties=properties)


def _function(node: LabelledNode) -> dict[str, Any]:
    p = node.properties
    columns = [list(p.get(key) or []) for key in _SPAN_COLUMNS[:3]]
    cells = [list(p[key]) for key in _SPAN_COLUMNS[3:] if p.get(key) is not None]
    if len({len(c) for c in columns + cells}) > 1:
        raise GraphFormatError(
            f"{_WHERE}: entity {node.id!r}: {', '.join(_SPAN_COLUMNS)} differ in length")
    sources: list[dict[str, Any]] = [
        {"file": f, "start_line": s, "end_line": e} for f, s, e in zip(*columns, strict=True)]
    if cells:
        for span, first, last in zip(sources, *cells, strict=False):
            if first or last:  # 0: the span is not a notebook's
                span.update(cell=first, end_cell=last)
    return {"id": p.get("sgkr_id"), "type": "function", "name": p.get("name"),
            "kind": p.get("kind"), "qualnames": list(p.get("qualnames") or []),
            "knowledge": p.get("knowledge", ""), "code": p.get("code", ""),
            "sources": sources}


def _tag(node: LabelledNode) -> dict[str, Any]:
    p = node.properties
    return {"id": p.get("sgkr_id"), "type": "tag", "label": p.get("tag_label"),
            "aliases": list(p.get("aliases") or []), "weight": p.get("weight", 1.0)}

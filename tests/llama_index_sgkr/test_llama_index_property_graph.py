"""The graph in a LlamaIndex PropertyGraphStore (SimplePropertyGraphStore) and back."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from llama_index.core.graph_stores import SimplePropertyGraphStore
from llama_index.core.graph_stores.types import EntityNode, Relation

from llama_index_sgkr import from_property_graph_store, to_property_graph_store
from llama_index_sgkr.property_graph import FUNCTION_LABEL, RELATION_LABELS, TAG_LABEL
from sgkr import GraphFormatError, InvalidArgumentError, KnowledgeGraph, Retriever
from tests.graph_strategies import knowledge_graphs


def graphrag_data() -> tuple[list[EntityNode], list[Relation]]:
    """Entities and relations as a GraphRAG extractor leaves them, one label shared."""
    nodes = [EntityNode(name="Acme", label="COMPANY", properties={"sector": "payments"}),
             EntityNode(name="MCC", label="CONCEPT")]
    return nodes, [Relation(label="CALLS", source_id="Acme", target_id="MCC")]


def test_round_trip_gives_an_equal_graph(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    to_property_graph_store(payments_graph, store)
    back = from_property_graph_store(store)
    assert back.to_dict() == payments_graph.to_dict()  # nodes, edges and build information
    assert Retriever(back).retrieve(case_question) == Retriever(payments_graph).retrieve(
        case_question)


def test_entities_and_relations(payments_graph) -> None:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    to_property_graph_store(payments_graph, store)
    functions = store.get(properties={"sgkr_node": "function"})
    tags = store.get(properties={"sgkr_node": "tag"})
    stats = payments_graph.stats()
    assert len(functions) == stats["functions"] and len(tags) == stats["tags"]
    assert {n.label for n in functions} == {FUNCTION_LABEL} and {n.label for n in tags} == {
        TAG_LABEL}
    fee = next(n for n in functions if n.id == "fn:calculate_fee")
    record = payments_graph.function("fn:calculate_fee")
    assert fee.properties["name"] == "calculate_fee" and fee.properties["code"] == record.code
    assert fee.properties["files"] == [s.file for s in record.sources]
    triplets = store.get_triplets(relation_names=list(RELATION_LABELS.values()))
    counts: dict[str, int] = {}
    for _, relation, _ in triplets:
        counts[relation.label] = counts.get(relation.label, 0) + 1
    assert counts == {RELATION_LABELS[t]: n for t, n in stats["edges"].items()}
    # browsable as any property graph: the relations around a function
    (average,) = store.get(ids=["fn:average_fee"])
    around = {(s.id, r.label, t.id) for s, r, t in store.get_rel_map([average], limit=1000,
                                                                     depth=1)}
    assert around == {(e.source, RELATION_LABELS[e.type], e.target)
                      for e in payments_graph.edges() if "fn:average_fee" in (e.source, e.target)}
    assert {label for _, label, _ in around} == {"CALLS", "CONSUMES", "PRODUCES"}


def test_beside_other_data(payments_graph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    nodes, relations = graphrag_data()
    store.upsert_nodes(nodes)
    store.upsert_relations(relations)
    to_property_graph_store(payments_graph, store)
    path = tmp_path / "store.json"
    store.persist(str(path))  # every property is plain JSON data
    loaded = SimplePropertyGraphStore.from_persist_path(str(path))
    assert from_property_graph_store(loaded).to_dict() == payments_graph.to_dict()
    assert [n.name for n in loaded.get(ids=["Acme", "MCC"])] == ["Acme", "MCC"]
    assert [r.label for _, r, _ in loaded.get_triplets(entity_names=["Acme"])] == ["CALLS"]


def test_bad_arguments_are_named(payments_graph) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgumentError, match="graph must be a KnowledgeGraph, got dict"):
        to_property_graph_store({}, SimplePropertyGraphStore())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="store must be a LlamaIndex PropertyGraph"):
        to_property_graph_store(payments_graph, {})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="store must be"):
        from_property_graph_store(None)  # type: ignore[arg-type]


def test_a_store_without_a_graph_is_refused() -> None:
    store = SimplePropertyGraphStore()
    store.upsert_nodes(graphrag_data()[0])
    with pytest.raises(GraphFormatError, match="holds no SGKR graph"):
        from_property_graph_store(store)


@pytest.mark.parametrize(("change", "message"), [
    ({"kind": "lambda"}, "property graph store"),
    ({"start_lines": [1, 2, 3]}, "differ in length"),
    ({"name": None}, "property graph store"),
])
def test_malformed_entities_are_refused(payments_graph, change, message) -> None:  # type: ignore[no-untyped-def]
    store = SimplePropertyGraphStore()
    to_property_graph_store(payments_graph, store)
    (fee,) = store.get(ids=["fn:calculate_fee"])
    fee.properties.update(change)
    store.upsert_nodes([fee])
    with pytest.raises(GraphFormatError, match=message):
        from_property_graph_store(store)


def test_references_and_their_resolution_survive_the_round_trip() -> None:
    from sgkr import build_graph

    graph = build_graph([("fees.py", "def fee(row):\n    return 1\n"
                          "def fees(df):\n    return df.apply(fee, axis=1)\n")])
    assert graph.stats()["reference_edges"] == {"exact": 1}
    store = SimplePropertyGraphStore()
    to_property_graph_store(graph, store)
    assert from_property_graph_store(store).to_dict() == graph.to_dict()


def test_notebook_cells_survive_the_round_trip() -> None:
    from sgkr import build_graph

    notebook = ('{"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Fees"]},'
                ' {"cell_type": "code", "metadata": {}, "source": ["x = 1"], "outputs": [],'
                ' "execution_count": null},'
                ' {"cell_type": "code", "metadata": {}, "source": ["def fee(amount):\\n",'
                ' "    return amount * 2\\n"], "outputs": [], "execution_count": null}],'
                ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    graph = build_graph([("fees.ipynb", notebook)])
    spans = [s for f in graph.functions() for s in f.sources]
    assert spans and all(s.cell is not None for s in spans)  # a notebook's spans have cells
    store = SimplePropertyGraphStore()
    to_property_graph_store(graph, store)
    assert from_property_graph_store(store).to_dict() == graph.to_dict()


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(knowledge_graphs())
def test_any_graph_survives_the_round_trip_or_is_refused_whole(graph: KnowledgeGraph) -> None:
    store = SimplePropertyGraphStore()
    try:
        to_property_graph_store(graph, store)
    except InvalidArgumentError as refused:
        assert "would be the one" in str(refused)
        assert store.get() == []  # nothing written
        return
    assert from_property_graph_store(store).to_dict() == graph.to_dict()


@pytest.mark.parametrize("ids, pairs", [
    (('fn:a"b', "fn:a b"), [(0, 1)]),
    (("sgkr:graph", "fn:x"), [(0, 1)]),
    # (a_CALLS_b)_CALLS_(a) and (a)_CALLS_(b_CALLS_a): one key in the in-memory store
    (("a_CALLS_b", "a", "b_CALLS_a"), [(0, 1), (1, 2)]),
])
def test_ids_the_store_would_merge_are_refused(ids: tuple[str, ...],
                                               pairs: list[tuple[int, int]]) -> None:
    nodes = [{"id": i, "type": "function", "name": "f", "kind": "function", "qualnames": [],
              "code": "", "knowledge": "", "sources": []} for i in ids]
    edges = [{"source": ids[a], "target": ids[b], "type": "calls", "resolution": r}
             for (a, b), r in zip(pairs, ["exact", "name"], strict=False)]
    graph = KnowledgeGraph.from_dict({"schema_version": 2, "meta": {}, "nodes": nodes,
                                      "edges": edges})
    store = SimplePropertyGraphStore()
    with pytest.raises(InvalidArgumentError, match="would be the one"):
        to_property_graph_store(graph, store)
    assert store.get() == []

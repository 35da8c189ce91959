"""llama_index_sgkr.nodes: SGKR records as LlamaIndex TextNode / NodeWithScore."""

from __future__ import annotations

import pytest
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from llama_index_sgkr import (
    EXCLUDED_EMBED_METADATA_KEYS,
    EXCLUDED_LLM_METADATA_KEYS,
    METADATA_KEYS,
    graph_nodes,
    to_node,
    to_node_with_score,
)
from sgkr import InvalidArgumentError, Retriever
from sgkr.records import FunctionNode, RetrievedFunction, SourceSpan

DOC = RetrievedFunction(
    id="fn:fee", name="fee", qualnames=("a.fee", "b.fee"),
    knowledge="Fee = fixed + rate * amount / 10000.",
    code="def fee(rule, amount):\n    return rule['fixed'] + rule['rate'] * amount / 10000\n",
    sources=(SourceSpan("a.py", 3, 4), SourceSpan("b.py", 9, 10)), kind="function",
    score=0.25, matched_tags=("amount", "fee"),
    paths=(("tag:amount", "fn:fee", "tag:fee"), ("tag:amount", "fn:x", "fn:fee")),
    qualname="Rules.fee",
)


def test_node_carries_id_text_and_metadata() -> None:
    node = to_node(DOC)
    assert isinstance(node, TextNode)
    assert node.node_id == "fn:fee"
    assert node.text == DOC.knowledge + "\n\n" + DOC.code
    assert tuple(node.metadata) == METADATA_KEYS
    assert node.metadata == DOC.metadata() == {
        "id": "fn:fee", "name": "fee", "qualname": "Rules.fee", "location": "a.py:3",
        "qualnames": ["a.fee", "b.fee"], "kind": "function",
        "file": "a.py", "start_line": 3, "end_line": 4,
        "sources": [{"file": "a.py", "start_line": 3, "end_line": 4},
                    {"file": "b.py", "start_line": 9, "end_line": 10}],
        "score": 0.25,
        "matched_tags": ["amount", "fee"], "path": ["tag:amount", "fn:fee", "tag:fee"],
    }


def test_long_fields_stay_out_of_embeddings_and_llm_text() -> None:
    node = to_node(DOC)
    embed = node.get_content(metadata_mode=MetadataMode.EMBED)
    llm = node.get_content(metadata_mode=MetadataMode.LLM)
    assert embed.startswith("qualname: Rules.fee\n")
    for key in EXCLUDED_EMBED_METADATA_KEYS:
        assert f"\n{key}: " not in embed and not embed.startswith(f"{key}: ")
    assert llm.startswith("qualname: Rules.fee\nlocation: a.py:3\n"
                          "matched_tags: ['amount', 'fee']\n")
    for key in EXCLUDED_LLM_METADATA_KEYS:
        assert f"\n{key}: " not in llm and not llm.startswith(f"{key}: ")
    assert DOC.code.strip() in embed and DOC.code.strip() in llm


def test_an_llm_is_not_shown_empty_fields() -> None:
    """Issue 40: a function no tag led to shows no ``matched_tags: []`` to the model."""
    plain = RetrievedFunction("fn:f", "f", ("m.C.f",), "", "def f(self): ...",
                              (SourceSpan("m.py", 2, 2),), "method", 0.5, qualname="C.f")
    llm = to_node(plain).get_content(metadata_mode=MetadataMode.LLM)
    assert llm == "qualname: C.f\nlocation: m.py:2\n\ndef f(self): ..."


def test_node_with_score_keeps_the_score() -> None:
    hit = to_node_with_score(DOC)
    assert isinstance(hit, NodeWithScore)
    assert hit.score == 0.25 and hit.node.node_id == "fn:fee"


def test_function_without_knowledge_or_sources() -> None:
    node = to_node(FunctionNode("mod:m", "m", ("m",), "x = 1\n", "", (), "module"))
    assert node.text == "x = 1\n"
    assert node.metadata["file"] is None and node.metadata["start_line"] is None
    assert node.metadata["matched_tags"] == [] and node.metadata["path"] == []
    assert node.metadata["kind"] == "module" and node.metadata["score"] == 0.0


def test_node_survives_llama_index_serialisation() -> None:
    node = to_node(DOC)
    back = TextNode.model_validate_json(node.model_dump_json())
    assert back.node_id == node.node_id and back.hash == node.hash
    assert back.excluded_llm_metadata_keys == list(EXCLUDED_LLM_METADATA_KEYS)
    assert back.get_content(metadata_mode=MetadataMode.LLM) == node.get_content(
        metadata_mode=MetadataMode.LLM)


def test_graph_nodes_cover_every_function_once(payments_graph) -> None:  # type: ignore[no-untyped-def]
    nodes = graph_nodes(payments_graph)
    ids = [n.node_id for n in nodes]
    assert ids == sorted(f.id for f in payments_graph.functions())
    assert len(set(ids)) == len(ids) == payments_graph.stats()["functions"]
    fee = next(n for n in nodes if n.node_id == "fn:calculate_fee")
    assert fee.text == payments_graph.function("fn:calculate_fee").text
    assert fee.metadata["matched_tags"] == [] and fee.metadata["path"] == []


def test_retrieved_and_graph_nodes_share_ids_and_text(payments_graph, case_question) -> None:  # type: ignore[no-untyped-def]
    by_id = {n.node_id: n for n in graph_nodes(payments_graph)}
    docs = Retriever(payments_graph, k=5).retrieve(case_question).documents
    assert docs
    for doc in docs:
        assert to_node(doc).text == by_id[doc.id].text


@pytest.mark.parametrize("bad", [None, "fn:fee", {"id": "fn:fee"}])
def test_bad_records_are_refused(bad: object) -> None:
    with pytest.raises(InvalidArgumentError, match="record must be"):
        to_node(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="doc must be"):
        to_node_with_score(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="graph must be"):
        graph_nodes(bad)  # type: ignore[arg-type]


def test_the_file_is_the_source_document(payments_graph) -> None:  # type: ignore[no-untyped-def]
    from llama_index.core.schema import NodeRelationship, ObjectType
    from llama_index.core.storage.docstore import SimpleDocumentStore

    node = to_node(DOC)
    assert node.ref_doc_id == "a.py"  # the first of a merged function's files
    source = node.relationships[NodeRelationship.SOURCE]
    assert source.node_type == ObjectType.DOCUMENT  # type: ignore[union-attr]
    # LlamaIndex's docstore groups the functions by their file, as it groups a document's chunks
    nodes = graph_nodes(payments_graph)
    store = SimpleDocumentStore()
    store.add_documents(nodes)
    groups = store.get_all_ref_doc_info()
    assert groups is not None
    for file, info in groups.items():
        assert {n.node_id for n in nodes if n.metadata["file"] == file} == set(info.node_ids)
    assert len(groups) == len({n.metadata["file"] for n in nodes}) > 1

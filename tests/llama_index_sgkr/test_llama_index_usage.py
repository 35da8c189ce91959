"""SGKRRetriever where LlamaIndex users put a retriever: query engine, fusion, tool, vectors."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import MetadataMode
from llama_index.core.tools import RetrieverTool
from llama_index.retrievers.bm25 import BM25Retriever

from llama_index_sgkr import SGKRRetriever, graph_nodes, retriever_fallback
from sgkr import InvalidArgumentError


@pytest.fixture(scope="module")
def bm25(payments_graph) -> BM25Retriever:  # type: ignore[no-untyped-def]
    """BM25 over the same function nodes (same ids) as SGKR."""
    return BM25Retriever.from_defaults(nodes=graph_nodes(payments_graph), similarity_top_k=4)


def names(hits: list[Any]) -> list[str]:
    return [h.node.metadata["name"] for h in hits]


# -- query engine -------------------------------------------------------------------------


def test_query_engine_shows_the_llm_knowledge_and_code(retriever, case_question) -> None:  # type: ignore[no-untyped-def]
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query(case_question)
    expected = retriever.retrieve(case_question)
    assert [n.node.node_id for n in response.source_nodes] == [n.node.node_id for n in expected]
    prompt = str(response)  # MockLLM answers with the prompt it was given
    assert case_question in prompt
    for hit in expected:
        assert hit.node.text.strip() in prompt
        assert f"name: {hit.node.metadata['name']}" in prompt
    assert "qualnames:" not in prompt and "path:" not in prompt and "start_line:" not in prompt


async def test_query_engine_async(retriever, case_question) -> None:  # type: ignore[no-untyped-def]
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = await engine.aquery(case_question)
    assert names(response.source_nodes) == names(retriever.retrieve(case_question))


def test_query_engine_with_no_tags_answers_without_context(paper, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    response = RetrieverQueryEngine.from_args(paper, llm=MockLLM()).query(no_tag_question)
    assert response.source_nodes == []


# -- hybrid: fusion with BM25 -------------------------------------------------------------


def _fusion(*retrievers: Any, use_async: bool = False) -> QueryFusionRetriever:
    return QueryFusionRetriever(list(retrievers), llm=MockLLM(), num_queries=1,
                                mode="reciprocal_rerank", similarity_top_k=10,
                                use_async=use_async)


def test_fusion_bm25_covers_questions_without_tags(paper, bm25, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    assert paper.retrieve(no_tag_question) == []
    fused = _fusion(paper, bm25).retrieve(no_tag_question)
    assert fused and names(fused) == names(bm25.retrieve(no_tag_question))
    assert "load_mcc_codes" in names(fused)


@pytest.mark.parametrize("use_async", [False, True])
def test_fusion_keeps_sgkr_paths_and_adds_bm25(retriever, bm25, case_question,  # type: ignore[no-untyped-def]
                                               use_async: bool) -> None:
    sgkr_ids = [h.node.node_id for h in retriever.retrieve(case_question)]
    bm25_ids = [h.node.node_id for h in bm25.retrieve(case_question)]
    fused = [h.node.node_id for h in _fusion(retriever, bm25, use_async=use_async).retrieve(
        case_question)]
    assert len(fused) == len(set(fused)), "same function from both retrievers kept twice"
    assert set(fused) == set(sgkr_ids) | set(bm25_ids)
    assert fused[0] in (sgkr_ids[0], bm25_ids[0])


# -- tool ---------------------------------------------------------------------------------


def test_retriever_tool(retriever, case_question, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    tool = RetrieverTool.from_defaults(
        retriever, name="payments_functions",
        description="Domain knowledge and example functions for payment-fee questions.")
    output = tool.call(case_question)
    hits = retriever.retrieve(case_question)
    assert output.tool_name == "payments_functions"
    assert [h.node.node_id for h in output.raw_output] == [h.node.node_id for h in hits]
    for hit in hits:
        assert hit.node.text.strip() in output.content
    assert "qualnames:" not in output.content
    assert "def load_mcc_codes" in tool.call(no_tag_question).content


@pytest.mark.parametrize("query", ["", "   "])
def test_retriever_tool_with_an_empty_query(retriever, paper, query) -> None:  # type: ignore[no-untyped-def]
    # The tool hands the retriever "input=" for an empty query: words, which the default
    # retriever answers by name; the paper's retriever, with no tag, answers nothing.
    tool = RetrieverTool.from_defaults(paper, name="payments", description="Payments.")
    output = tool.call(input=query)
    assert not output.is_error and output.raw_output == [] and output.content == ""
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    assert engine.query(query).source_nodes == []


async def test_retriever_tool_async(retriever, case_question) -> None:  # type: ignore[no-untyped-def]
    tool = RetrieverTool.from_defaults(retriever, name="sgkr")
    output = await tool.acall(case_question)
    assert names(output.raw_output) == names(retriever.retrieve(case_question))


# -- vector index over the same nodes, fallback -------------------------------------------


class _RecordingEmbedding(MockEmbedding):
    """MockEmbedding that remembers the texts it embedded."""

    texts: list[str] = []

    def _get_text_embedding(self, text: str) -> list[float]:
        self.texts.append(text)
        return super()._get_text_embedding(text)


def test_vector_index_embeds_knowledge_code_and_qualified_name_only(payments_graph, retriever,  # type: ignore[no-untyped-def]
                                                          case_question) -> None:
    embed = _RecordingEmbedding(embed_dim=8, texts=[])
    index = VectorStoreIndex(graph_nodes(payments_graph), embed_model=embed)
    assert sorted(embed.texts) == sorted(
        n.get_content(metadata_mode=MetadataMode.EMBED) for n in graph_nodes(payments_graph))
    assert all(t.startswith("qualname: ") for t in embed.texts)
    assert not any("qualnames:" in t or "path:" in t or "file:" in t or "location:" in t
                   for t in embed.texts)
    vector = index.as_retriever(similarity_top_k=3)
    fused = [h.node.node_id for h in _fusion(retriever, vector).retrieve(case_question)]
    assert len(fused) == len(set(fused))
    assert set(h.node.node_id for h in retriever.retrieve(case_question)) <= set(fused)


def test_bm25_as_sgkr_fallback(payments_graph, bm25, case_question, no_tag_question) -> None:  # type: ignore[no-untyped-def]
    r = SGKRRetriever.from_defaults(payments_graph, k=3, fallback=retriever_fallback(bm25))
    hits = r.retrieve(no_tag_question)
    assert names(hits) == names(bm25.retrieve(no_tag_question))[:3]
    assert [h.score for h in hits] == [1.0, 0.5, 0.333333]
    plain = SGKRRetriever.from_defaults(payments_graph, k=3)
    assert names(r.retrieve(case_question)) == names(plain.retrieve(case_question))


def test_fallback_wants_a_retriever() -> None:
    with pytest.raises(InvalidArgumentError, match="BaseRetriever, got dict"):
        retriever_fallback({})  # type: ignore[arg-type]

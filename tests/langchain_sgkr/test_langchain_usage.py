"""SGKRRetriever where LangChain users put a retriever, each with a fake chat model.

An LCEL chain (retriever | format_docs into a prompt and a model), a retriever
tool called by a (fake) tool-calling model, an ensemble beside a BM25
retriever (langchain-classic's EnsembleRetriever, langchain-community's
BM25Retriever on rank-bm25; skipped where they are not installed) and
langchain-classic's MultiQueryRetriever.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, format_document
from langchain_core.runnables import Runnable, RunnablePassthrough
from langchain_core.tools import create_retriever_tool

from langchain_sgkr import DOCUMENT_PROMPT, SGKRRetriever, graph_documents

CASE_STUDY = "What is the most expensive MCC for a transaction of 5 euros, in general?"
NO_TAG = "How do I read a json file?"
PROMPT = ChatPromptTemplate.from_template(
    "Write Python that answers the question, reusing these functions:\n\n{context}\n\n"
    "Question: {question}")


def format_docs(docs: list[Document]) -> str:
    return "\n\n".join(format_document(doc, DOCUMENT_PROMPT) for doc in docs)


def context_chain(retriever: Any) -> Runnable[str, str]:
    """The chain of LangChain's RAG tutorial; the parrot model answers with its prompt."""
    return (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | ParrotFakeChatModel()
        | StrOutputParser()
    )


@pytest.fixture
def retriever(payments_graph: Any) -> SGKRRetriever:
    return SGKRRetriever(graph=payments_graph, k=6)


def test_lcel_chain_puts_retrieved_functions_in_the_prompt(retriever: SGKRRetriever) -> None:
    docs = retriever.invoke(CASE_STUDY)
    prompt = context_chain(retriever).invoke(CASE_STUDY)
    assert prompt.startswith("Write Python that answers the question")
    assert prompt.endswith(f"Question: {CASE_STUDY}")
    positions = [prompt.index(doc.page_content) for doc in docs]
    assert positions == sorted(positions)  # best first, as retrieved
    for doc in docs:
        assert f"## {doc.metadata['qualname']} ({doc.metadata['location']})\n" in prompt


def test_lcel_chain_with_an_answering_model(retriever: SGKRRetriever) -> None:
    seen: list[list[Any]] = []
    model = GenericFakeChatModel(messages=iter(["def answer(): ..."]))
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | (lambda value: seen.append(value.to_messages()) or value)
        | model
        | StrOutputParser()
    )
    assert chain.invoke(CASE_STUDY) == "def answer(): ..."
    (message,) = seen[0]
    assert message.content.endswith(CASE_STUDY)
    assert all(d.page_content in message.content for d in retriever.invoke(CASE_STUDY))


async def test_lcel_chain_async_and_batch(retriever: SGKRRetriever) -> None:
    chain = context_chain(retriever)
    sync = chain.invoke(CASE_STUDY)
    assert await chain.ainvoke(CASE_STUDY) == sync
    assert chain.batch([CASE_STUDY, CASE_STUDY]) == [sync, sync]


def test_retriever_tool_called_by_a_fake_model(retriever: SGKRRetriever) -> None:
    tool = create_retriever_tool(
        retriever, "payments_functions",
        "Domain knowledge and code of the payments functions needed to answer a question.",
        document_prompt=DOCUMENT_PROMPT)
    call = {"name": "payments_functions", "args": {"query": CASE_STUDY}, "id": "call_1",
            "type": "tool_call"}
    model = GenericFakeChatModel(messages=iter([
        AIMessage(content="", tool_calls=[call]), AIMessage(content="The answer is [5411]."),
    ]))
    messages: list[Any] = [HumanMessage(CASE_STUDY)]
    request = model.invoke(messages)
    assert request.tool_calls and request.tool_calls[0]["name"] == tool.name
    result = tool.invoke(request.tool_calls[0])
    assert isinstance(result, ToolMessage) and result.tool_call_id == "call_1"
    for doc in retriever.invoke(CASE_STUDY):
        knowledge, code = doc.page_content.split("\n\n", 1)
        assert f"## {doc.metadata['name']} ({doc.metadata['file']}" in result.content
        assert knowledge in result.content and code in result.content
    final = model.invoke([*messages, request, result])
    assert final.content == "The answer is [5411]."


def test_retriever_tool_with_documents_as_artifact(retriever: SGKRRetriever) -> None:
    tool = create_retriever_tool(retriever, "payments_functions", "Payments functions.",
                                 document_prompt=DOCUMENT_PROMPT,
                                 response_format="content_and_artifact")
    message = tool.invoke({"name": tool.name, "args": {"query": CASE_STUDY}, "id": "c",
                           "type": "tool_call"})
    assert [d.id for d in message.artifact] == [d.id for d in retriever.invoke(CASE_STUDY)]


def test_retriever_tool_with_an_empty_query(retriever: SGKRRetriever) -> None:
    tool = create_retriever_tool(retriever, "payments_functions", "Payments functions.",
                                 response_format="content_and_artifact")
    message = tool.invoke({"name": tool.name, "args": {"query": " "}, "id": "c",
                           "type": "tool_call"})
    assert isinstance(message, ToolMessage) and message.status == "success"
    assert message.content == "" and message.artifact == []


def _ensemble_classes() -> tuple[Any, Any]:
    with warnings.catch_warnings():  # langchain-community announces its sunset on import
        warnings.simplefilter("ignore", DeprecationWarning)
        ensemble = pytest.importorskip(
            "langchain_classic.retrievers",
            reason="EnsembleRetriever needs langchain-classic (pip install langchain-classic)")
        bm25 = pytest.importorskip(
            "langchain_community.retrievers",
            reason="BM25Retriever needs langchain-community (pip install langchain-community)")
        pytest.importorskip("rank_bm25", reason="BM25Retriever needs rank-bm25")
    return ensemble.EnsembleRetriever, bm25.BM25Retriever


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


@pytest.fixture
def ensemble_parts(payments_graph: Any) -> tuple[Any, SGKRRetriever, Any]:
    ensemble_class, bm25_class = _ensemble_classes()
    # the paper's mode (paths only), which answers nothing without a tag: BM25 covers those
    sgkr = SGKRRetriever(graph=payments_graph, k=4, fill="none", lexical=False)
    bm25 = bm25_class.from_documents(graph_documents(payments_graph), k=4,
                                     preprocess_func=_words)
    ensemble = ensemble_class(retrievers=[sgkr, bm25], weights=[0.6, 0.4], id_key="id")
    return ensemble, sgkr, bm25


def test_ensemble_with_bm25_fuses_both(ensemble_parts: tuple[Any, SGKRRetriever, Any]) -> None:
    ensemble, sgkr, bm25 = ensemble_parts
    from_sgkr = [d.id for d in sgkr.invoke(CASE_STUDY)]
    from_bm25 = [d.id for d in bm25.invoke(CASE_STUDY)]
    fused = [d.id for d in ensemble.invoke(CASE_STUDY)]
    assert set(from_sgkr) != set(from_bm25)  # else the test shows no fusion
    assert len(fused) == len(set(fused))  # one document per function
    assert set(fused) == set(from_sgkr) | set(from_bm25)
    # Weighted reciprocal rank fusion (c = 60): a function both find comes first.
    score: dict[str, float] = {}
    for ids, weight in ((from_sgkr, 0.6), (from_bm25, 0.4)):
        for rank, node_id in enumerate(ids, start=1):
            score[node_id] = score.get(node_id, 0.0) + weight / (60 + rank)
    assert fused == sorted(dict.fromkeys(from_sgkr + from_bm25), key=lambda i: -score[i])


def test_ensemble_answers_what_sgkr_has_no_tag_for(
        ensemble_parts: tuple[Any, SGKRRetriever, Any]) -> None:
    ensemble, sgkr, bm25 = ensemble_parts
    assert sgkr.invoke(NO_TAG) == []
    assert [d.id for d in ensemble.invoke(NO_TAG)] == [d.id for d in bm25.invoke(NO_TAG)] != []


async def test_ensemble_in_an_async_chain(ensemble_parts: tuple[Any, SGKRRetriever, Any]) -> None:
    ensemble, _, _ = ensemble_parts
    fused = await ensemble.ainvoke(CASE_STUDY)
    assert [d.id for d in fused] == [d.id for d in ensemble.invoke(CASE_STUDY)]
    prompt = await context_chain(ensemble).ainvoke(CASE_STUDY)
    assert all(doc.page_content in prompt for doc in fused)


SUB_QUESTIONS = ["What is the most expensive MCC for a transaction of 5 euros?",
                 "Which MCC has the highest average fee?"]


def test_multi_query_retriever_keeps_one_document_per_function(
        retriever: SGKRRetriever) -> None:
    multi_query = pytest.importorskip(
        "langchain_classic.retrievers.multi_query",
        reason="MultiQueryRetriever needs langchain-classic (pip install langchain-classic)")
    model = FakeListChatModel(responses=["\n".join(SUB_QUESTIONS)])
    multi = multi_query.MultiQueryRetriever.from_llm(retriever=retriever, llm=model)
    docs = multi.invoke(CASE_STUDY)
    per_question = [retriever.invoke(q) for q in SUB_QUESTIONS]
    first = {d.id: d for d in per_question[0]}
    shared = [d for d in per_question[1] if d.id in first]
    # The same function, found for both sub-questions with other tags, paths or scores.
    assert any(d.metadata["matched_tags"] != first[d.id].metadata["matched_tags"]
               for d in shared)
    ids = [d.id for d in docs]
    assert len(ids) == len(set(ids))  # one document per function
    assert ids == list(dict.fromkeys(d.id for q in per_question for d in q))
    for doc in docs:  # the first retrieval of each function is the one kept
        assert doc.metadata == next(d for q in per_question for d in q
                                    if d.id == doc.id).metadata


def test_documents_of_a_function_are_equal_across_questions(
        retriever: SGKRRetriever, payments_graph: Any) -> None:
    one, two = (retriever.invoke(q)[0] for q in SUB_QUESTIONS)
    assert one.id == two.id and one.metadata["matched_tags"] != two.metadata["matched_tags"]
    assert one == two and two == one
    corpus = {d.id: d for d in graph_documents(payments_graph)}
    assert corpus[one.id] == one  # the corpus document of the same function too
    other = retriever.invoke(SUB_QUESTIONS[0])[1]
    assert one != other
    changed = one.model_copy(update={"metadata": {**one.metadata, "name": "x"}})
    assert changed != one  # only the per-question metadata is left out
    assert Document(id=one.id, page_content=one.page_content, metadata=one.metadata) == one

"""Conversion of SGKR records into LangChain documents, and the fallback adapter."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.prompts import format_document
from langchain_core.retrievers import BaseRetriever

from langchain_sgkr import (
    DOCUMENT_PROMPT,
    PER_QUESTION_KEYS,
    SGKRDocument,
    SGKRRetriever,
    graph_documents,
    retriever_fallback,
    to_document,
    to_documents,
)
from sgkr import InvalidArgumentError, RetrievedFunction, Retriever, SourceSpan
from sgkr.text import without_docstring

RECORD = RetrievedFunction(
    id="fn:calculate_fee", name="calculate_fee", qualnames=("a.calculate_fee", "b.calculate_fee"),
    knowledge="fee = fixed_amount + rate * transaction_value / 10000",
    code="def calculate_fee(rule, value):\n    return rule['fixed_amount'] + rule['rate'] * value",
    sources=(SourceSpan("a.py", 3, 5), SourceSpan("b.py", 10, 12)), kind="function", score=0.5,
    matched_tags=("transaction value",), paths=(("tag:transaction value", "fn:calculate_fee"),),
)


def test_to_document_fields() -> None:
    doc = to_document(RECORD)
    assert doc.id == "fn:calculate_fee"
    assert doc.page_content == RECORD.knowledge + "\n\n" + RECORD.code
    assert doc.metadata["name"] == "calculate_fee"
    assert doc.metadata["qualnames"] == ["a.calculate_fee", "b.calculate_fee"]
    assert (doc.metadata["file"], doc.metadata["start_line"], doc.metadata["end_line"]) == (
        "a.py", 3, 5)
    assert doc.metadata["matched_tags"] == ["transaction value"]
    assert doc.metadata["path"] == ["tag:transaction value", "fn:calculate_fee"]
    assert doc.metadata["score"] == 0.5
    assert len(doc.metadata["sources"]) == 2


def test_to_document_without_knowledge_or_sources() -> None:
    record = RetrievedFunction("fn:f", "f", ("m.f",), "", "def f(): ...", (), "function", 1.0)
    doc = to_document(record)
    assert doc.page_content == "def f(): ..."
    assert doc.metadata["file"] is None and doc.metadata["path"] == []


def test_to_document_refuses_other_records() -> None:
    with pytest.raises(InvalidArgumentError, match="RetrievedFunction"):
        to_document(Document(page_content="x"))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        to_documents([RECORD, "fn:f"])  # type: ignore[list-item]
    assert [d.id for d in to_documents([RECORD, RECORD])] == ["fn:calculate_fee"] * 2


def test_document_prompt_shows_place_knowledge_and_code() -> None:
    text = format_document(to_document(RECORD), DOCUMENT_PROMPT)
    assert text.splitlines()[0] == "## calculate_fee (a.py:3)"
    assert RECORD.knowledge in text and RECORD.code in text
    assert text.index(RECORD.knowledge) < text.index(RECORD.code)


def test_graph_documents_cover_every_function(payments_graph: Any) -> None:
    docs = graph_documents(payments_graph)
    functions = {f.id: f for f in payments_graph.functions()}
    assert sorted(d.id for d in docs) == sorted(functions)
    for doc in docs:
        assert doc.page_content == functions[doc.id].text
        assert doc.metadata["score"] == 0.0 and doc.metadata["path"] == []


def test_graph_documents_match_retrieved_ones(payments_graph: Any) -> None:
    corpus = {d.id: d for d in graph_documents(payments_graph)}
    for doc in SGKRRetriever(graph=payments_graph, k=8).invoke("average fee for an account type"):
        twin = corpus[doc.id]
        assert twin.page_content == doc.page_content
        assert set(twin.metadata) == set(doc.metadata)


def test_graph_documents_code_only(payments_graph: Any) -> None:
    docs = graph_documents(payments_graph, include_knowledge=False)
    for doc in docs:
        node = payments_graph.function(doc.id)
        assert doc.page_content == without_docstring(node.code, node.knowledge)
        assert not node.knowledge or node.knowledge not in doc.page_content


def test_graph_documents_validate_input(payments_graph: Any) -> None:
    with pytest.raises(InvalidArgumentError, match="graph"):
        graph_documents({})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="include_knowledge"):
        graph_documents(payments_graph, include_knowledge="no")  # type: ignore[arg-type]


class _Fixed(BaseRetriever):
    docs: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return self.docs


def test_retriever_fallback_returns_ids(payments_graph: Any) -> None:
    names = ["load_fees", "calculate_fee", "matches_field"]
    ids = [payments_graph.find(n)[0] for n in names]
    docs = [Document(id=ids[0], page_content="a"),
            Document(page_content="b", metadata={"id": ids[1]}),
            Document(page_content="no id"),
            Document(id=ids[2], page_content="c")]
    fallback = retriever_fallback(_Fixed(docs=docs))
    assert fallback("q", 2) == ids[:2]
    assert fallback("q", 10) == ids
    sgkr = Retriever(payments_graph, fallback=fallback)
    result = sgkr.retrieve("How do I read a json file?", k=3)
    assert result.fallback_used and [d.name for d in result.documents] == names


def test_retriever_fallback_refuses_non_retrievers() -> None:
    with pytest.raises(InvalidArgumentError, match="BaseRetriever"):
        retriever_fallback(lambda q: [])  # type: ignore[arg-type]


def test_documents_serialise_as_plain_documents() -> None:
    import warnings

    from langchain_core.load import dumps, loads

    doc = to_document(RECORD)
    assert isinstance(doc, SGKRDocument) and isinstance(doc, Document)
    with warnings.catch_warnings():  # loads() is in beta
        warnings.simplefilter("ignore")
        back = loads(dumps(doc), allowed_objects=[Document])
    assert type(back) is Document
    assert (back.id, back.page_content, back.metadata) == (doc.id, doc.page_content, doc.metadata)
    assert back == doc
    assert {"score", "matched_tags", "path"} < set(doc.metadata)
    # and, on a graph of solved tasks, the earlier questions that used it
    assert {"used_by", "variants"} < set(PER_QUESTION_KEYS)

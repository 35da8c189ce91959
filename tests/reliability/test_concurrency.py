"""One retriever shared by many threads and tasks answers exactly as sequential calls,
and queries never change the graph."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sgkr.graph import KnowledgeGraph
from sgkr.retriever import Retriever

from ..conftest import PAYMENTS


def _questions() -> list[str]:
    with open(PAYMENTS / "heldout.jsonl", encoding="utf-8") as handle:
        found = [json.loads(line)["question"] for line in handle if line.strip()]
    return (found + ["What is the average fee?", "merchant", "nothing matches here"]) * 2


QUESTIONS = _questions()


def _key(result: Any) -> Any:
    return result.to_dict() if hasattr(result, "to_dict") else result


def test_retriever_from_16_threads(payments_graph: KnowledgeGraph) -> None:
    before = payments_graph.to_dict()
    r = Retriever(payments_graph)
    expected = [r.retrieve(q).to_dict() for q in QUESTIONS]
    with ThreadPoolExecutor(max_workers=16) as pool:
        got = list(pool.map(lambda q: r.retrieve(q).to_dict(), QUESTIONS))
    assert got == expected
    assert payments_graph.to_dict() == before


def test_aretrieve_from_100_tasks(payments_graph: KnowledgeGraph) -> None:
    before = payments_graph.to_dict()
    r = Retriever(payments_graph, k=5)
    questions = (QUESTIONS * 3)[:100]
    expected = [r.retrieve(q).to_dict() for q in questions]

    async def run() -> list[dict[str, object]]:
        results = await asyncio.gather(*(r.aretrieve(q) for q in questions))
        return [x.to_dict() for x in results]

    assert asyncio.run(run()) == expected
    assert payments_graph.to_dict() == before


def _node_key(nodes: list[Any]) -> list[tuple[str, float | None, str]]:
    return [(n.node.node_id, n.score, n.node.get_content()) for n in nodes]


def _doc_key(docs: list[Any]) -> list[tuple[str | None, str, str]]:
    return [(d.id, d.page_content, json.dumps(d.metadata, sort_keys=True, default=str))
            for d in docs]


def test_llama_index_adapter_from_threads_and_tasks(payments_graph: KnowledgeGraph) -> None:
    adapter = pytest.importorskip("llama_index_sgkr")
    before = payments_graph.to_dict()
    retriever = adapter.SGKRRetriever(Retriever(payments_graph))
    expected = [_node_key(retriever.retrieve(q)) for q in QUESTIONS]
    with ThreadPoolExecutor(max_workers=16) as pool:
        got = list(pool.map(lambda q: _node_key(retriever.retrieve(q)), QUESTIONS))
    assert got == expected
    questions = (QUESTIONS * 3)[:100]

    async def run() -> list[Any]:
        return list(await asyncio.gather(*(retriever.aretrieve(q) for q in questions)))

    assert [_node_key(x) for x in asyncio.run(run())] == [
        expected[QUESTIONS.index(q)] for q in questions]
    assert payments_graph.to_dict() == before


def test_langchain_adapter_from_threads_and_tasks(payments_graph: KnowledgeGraph) -> None:
    adapter = pytest.importorskip("langchain_sgkr")
    before = payments_graph.to_dict()
    retriever = adapter.SGKRRetriever(graph=payments_graph, k=6)
    expected = [_doc_key(retriever.invoke(q)) for q in QUESTIONS]
    with ThreadPoolExecutor(max_workers=16) as pool:
        got = list(pool.map(lambda q: _doc_key(retriever.invoke(q)), QUESTIONS))
    assert got == expected
    assert retriever.batch(QUESTIONS, config={"max_concurrency": 16}) is not None
    questions = (QUESTIONS * 3)[:100]

    async def run() -> list[Any]:
        return list(await asyncio.gather(*(retriever.ainvoke(q) for q in questions)))

    assert [_doc_key(x) for x in asyncio.run(run())] == [
        expected[QUESTIONS.index(q)] for q in questions]
    assert payments_graph.to_dict() == before

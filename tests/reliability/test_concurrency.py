"""One retriever shared by many threads and tasks answers exactly as sequential calls,
and queries never change the graph."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from sgkr.graph import KnowledgeGraph
from sgkr.retrieval.retriever import Retriever

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


@pytest.mark.slow
def test_readers_keep_their_version_while_an_update_races(tmp_path: Any) -> None:
    """Item 12 of issue 23: ``GraphBuilder.update`` in one thread, ``retrieve`` in six."""
    import shutil
    import threading

    from sgkr.build.incremental import GraphBuilder

    src = tmp_path / "src"
    shutil.copytree(PAYMENTS / "solutions", src)
    builder = GraphBuilder([src], knowledge=PAYMENTS / "knowledge.json", jobs=1)
    builder.build()
    stop = threading.Event()
    errors: list[BaseException] = []
    seen: list[tuple[KnowledgeGraph, str, dict[str, Any]]] = []

    def read(offset: int) -> None:
        turn = offset
        while not stop.is_set():
            graph = builder.graph  # the version this reader keeps
            question = QUESTIONS[turn % len(QUESTIONS)]
            turn += 1
            try:
                seen.append((graph, question, Retriever(graph).retrieve(question).to_dict()))
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    readers = [threading.Thread(target=read, args=(i,)) for i in range(6)]
    for thread in readers:
        thread.start()
    try:
        files = sorted(src.glob("*.py"))
        for turn in range(12):  # add, change and remove functions the readers walk
            path = files[turn % len(files)]
            path.write_text(path.read_text() + f"\n\ndef extra_{turn}(amount):\n"
                            f"    return calculate_fee(amount) + {turn}\n")
            builder.update()
            if turn % 3 == 2:
                (src / f"gone_{turn}.py").write_text("def gone(x):\n    return x\n")
            elif turn % 3 == 0 and turn:
                (src / f"gone_{turn - 1}.py").unlink(missing_ok=True)
    finally:
        stop.set()
        for thread in readers:
            thread.join()
    assert not errors, errors[:3]
    versions = {id(g): g for g, _, _ in seen}
    assert len(versions) > 1  # the readers saw several versions
    for graph, question, got in seen[:: max(1, len(seen) // 200)]:
        assert Retriever(graph).retrieve(question).to_dict() == got  # each version intact

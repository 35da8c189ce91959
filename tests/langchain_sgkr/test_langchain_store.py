"""SGKRRetriever(store=...): the graph read from a FalkorDB server, the same documents."""

from __future__ import annotations

import pickle

import pytest
from pydantic import ValidationError

from langchain_sgkr import SGKRRetriever
from sgkr import KnowledgeGraph
from sgkr.stores.falkor import FalkorDBStore, push_graph
from tests.falkordb_server import Server

pytestmark = [pytest.mark.falkordb, pytest.mark.server]
QUESTION = "What is the average fee for account type H and a transaction of 100 euros?"


def test_store_gives_the_documents_of_the_graph(falkordb: Server,
                                                payments_graph: KnowledgeGraph) -> None:
    url = falkordb.url("langchain")
    push_graph(payments_graph, url)
    expected = SGKRRetriever(graph=payments_graph, k=4).invoke(QUESTION)
    assert expected
    by_url = SGKRRetriever(store=url, k=4)
    assert by_url.invoke(QUESTION) == expected
    assert SGKRRetriever(store=FalkorDBStore(url)).invoke(QUESTION, k=4) == expected
    assert pickle.loads(pickle.dumps(by_url)).invoke(QUESTION) == expected
    assert by_url.model_copy(update={"k": 1}).invoke(QUESTION) == expected[:1]
    assert '"store":"falkordb://' in by_url.model_dump_json()


def test_graph_or_store_exactly_one(payments_graph: KnowledgeGraph) -> None:
    with pytest.raises(ValidationError, match="exactly one"):
        SGKRRetriever()
    with pytest.raises(ValidationError, match="exactly one"):
        SGKRRetriever(graph=payments_graph, store="falkordb://127.0.0.1:1/g")

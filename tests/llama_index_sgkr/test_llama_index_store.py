"""SGKRRetriever.from_defaults(store=...): the graph read from a FalkorDB server."""

from __future__ import annotations

import pytest

from llama_index_sgkr import SGKRRetriever
from sgkr import KnowledgeGraph
from sgkr.errors import InvalidArgumentError
from sgkr.stores.falkor import push_graph
from tests.falkordb_server import Server

pytestmark = [pytest.mark.falkordb, pytest.mark.server]
QUESTION = "What is the average fee for account type H and a transaction of 100 euros?"


def test_store_gives_the_nodes_of_the_graph(falkordb: Server,
                                            payments_graph: KnowledgeGraph) -> None:
    url = falkordb.url("llama")
    push_graph(payments_graph, url)
    expected = SGKRRetriever.from_defaults(payments_graph, similarity_top_k=5).retrieve(QUESTION)
    assert expected
    got = SGKRRetriever.from_defaults(store=url, similarity_top_k=5).retrieve(QUESTION)
    assert [(n.node.node_id, n.score, n.node.get_content()) for n in got] == [
        (n.node.node_id, n.score, n.node.get_content()) for n in expected]
    with pytest.raises(InvalidArgumentError, match="got graph and store"):
        SGKRRetriever.from_defaults(payments_graph, store=url)

"""llama_index_sgkr.filters: LlamaIndex MetadataFilters, held to LlamaIndex's own semantics."""

from __future__ import annotations

from typing import Any

import pytest
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
from llama_index.core.vector_stores.utils import build_metadata_filter_fn

from llama_index_sgkr import SGKRRetriever, graph_nodes, to_sgkr_filter
from sgkr.retrieval.filters import compile_filter, filter_values


@pytest.mark.parametrize("filters", [
    [MetadataFilter(key="start_line", value=75, operator=">")],
    [MetadataFilter(key="start_line", value=75, operator=">=")],
    [MetadataFilter(key="end_line", value=76, operator="<")],
    [MetadataFilter(key="end_line", value=76, operator="<=")],
    [MetadataFilter(key="start_line", value=50, operator=">="),
     MetadataFilter(key="end_line", value=270, operator="<=")],
    [MetadataFilter(key="name", value="fee", operator="text_match")],
    [MetadataFilter(key="name", value="FEE", operator="text_match_insensitive"),
     MetadataFilter(key="name", value="merchant", operator="text_match")],
    [MetadataFilter(key="name", value="FEE", operator="text_match_insensitive")],
    [MetadataFilter(key="file", value="task_13", operator="text_match")],
    [MetadataFilter(key="name", value="get", operator=">")],
])
def test_operators_select_what_llamaindex_selects(payments_graph: Any,
                                                  filters: list[MetadataFilter]) -> None:
    spec = to_sgkr_filter(MetadataFilters(filters=filters))
    rule = compile_filter(spec)
    # LlamaIndex's own evaluation of its filters (its in-memory vector store's), on the
    # metadata of the nodes SGKR returns; a function found in one place has one of each.
    nodes = {n.node_id: n for n in graph_nodes(payments_graph)
             if len(payments_graph.function(n.node_id).sources) == 1}
    reference = build_metadata_filter_fn(lambda i: nodes[i].metadata,
                                         MetadataFilters(filters=filters))
    ours = {i for i in nodes if rule(filter_values(payments_graph.function(i)))}
    theirs = {i for i in nodes if reference(i)}
    assert ours == theirs and 0 < len(ours) < len(nodes)


def test_a_range_filter_spends_k_on_what_passes(payments_graph: Any, case_question: str) -> None:
    late = MetadataFilters(filters=[MetadataFilter(key="start_line", value=10, operator=">")])
    hits = SGKRRetriever.from_defaults(payments_graph, similarity_top_k=5,
                                       filters=late).retrieve(case_question)
    assert len(hits) == 5
    assert all(any(s["start_line"] > 10 for s in h.node.metadata["sources"]) for h in hits)

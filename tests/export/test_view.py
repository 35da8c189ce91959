"""The subgraph to draw: whole graph, neighbourhoods, and the highlight of a retrieval."""

from __future__ import annotations

import pytest

from sgkr import (
    InvalidArgumentError,
    KnowledgeGraph,
    NodeNotFoundError,
    RetrievalResult,
    build_graph,
)
from sgkr.export import subgraph

CHAIN = ("m.py", "def a():\n    return b()\ndef b():\n    return c()\n"
                 "def c():\n    return d()\ndef d():\n    return 1\n")


def test_whole_graph_has_every_node_and_edge(payments_graph: KnowledgeGraph) -> None:
    view = subgraph(payments_graph)
    # and its solved tasks, with a uses edge to each function their solution uses
    assert len(view.nodes) == len(payments_graph) + len(payments_graph.tasks)
    uses = sum(len(t.uses) for t in payments_graph.tasks)
    assert sum(e.type == "uses" for e in view.edges) == uses
    assert len(view.edges) == payments_graph.nx.number_of_edges() + uses
    assert not view.highlighted and all(n.role is None for n in view.nodes)
    kinds = {n.kind for n in view.nodes}
    assert kinds == {"function", "module", "tag", "task"}


@pytest.mark.parametrize(("depth", "expected"), [
    (0, {"c"}), (1, {"b", "c", "d"}), (2, {"a", "b", "c", "d"}),
])
def test_around_keeps_the_neighbourhood_both_ways(depth: int, expected: set[str]) -> None:
    graph = build_graph([CHAIN], infer_tags=False)
    view = subgraph(graph, around=["c"], depth=depth)
    assert {n.label for n in view.nodes} == expected
    ids = {n.id for n in view.nodes}
    assert all(e.source in ids and e.target in ids for e in view.edges)
    assert len(view.edges) == len(expected) - 1


def test_around_accepts_tag_labels_and_several_names(payments_graph: KnowledgeGraph) -> None:
    view = subgraph(payments_graph, around=["mcc", "load_fees"], depth=0)
    assert {n.id for n in view.nodes} == {"tag:mcc", *payments_graph.find("load_fees")}


def test_highlight_marks_tags_retrieved_functions_and_path_edges(
        payments_graph: KnowledgeGraph, case_result: RetrievalResult) -> None:
    view = subgraph(payments_graph, case_result)
    roles = {n.id: n.role for n in view.nodes if n.role is not None}
    retrieved = {d.id for d in case_result.documents}
    assert {n for n, r in roles.items() if r == "retrieved"} == retrieved
    assert {n for n, r in roles.items() if r in ("input", "output", "tag")} == {
        m.tag_id for m in case_result.tags}
    assert roles["tag:mcc"] == "input"
    on_paths = {n for p in case_result.paths for n in p}
    assert {n for n, r in roles.items() if r == "path"} == on_paths - retrieved - {
        m.tag_id for m in case_result.tags}
    path_edges = {(e.source, e.target) for e in view.edges if e.role == "path"}
    for path in case_result.paths:
        for a, b in zip(path, path[1:], strict=False):
            assert (a, b) in path_edges or (b, a) in path_edges
    assert view.highlighted and view.question == case_result.question
    scores = {n.id: n.score for n in view.nodes if n.score is not None}
    assert scores == {d.id: d.score for d in case_result.documents}


def test_focus_keeps_only_the_highlight_at_depth_zero(
        payments_graph: KnowledgeGraph, case_result: RetrievalResult) -> None:
    view = subgraph(payments_graph, case_result, focus=True, depth=0)
    assert view.nodes and all(n.role is not None for n in view.nodes)
    wider = subgraph(payments_graph, case_result, focus=True, depth=1)
    assert {n.id for n in view.nodes} < {n.id for n in wider.nodes}


def test_invalid_input_is_refused_by_name(payments_graph: KnowledgeGraph) -> None:
    with pytest.raises(NodeNotFoundError, match="no_such_function"):
        subgraph(payments_graph, around=["no_such_function"])
    with pytest.raises(InvalidArgumentError, match="depth"):
        subgraph(payments_graph, around=["load_fees"], depth=-1)
    with pytest.raises(InvalidArgumentError, match="focus"):
        subgraph(payments_graph, focus=True)
    with pytest.raises(InvalidArgumentError, match="graph"):
        subgraph("graph.json")  # type: ignore[arg-type]

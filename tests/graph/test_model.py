"""The graph wrapper: batch additions behave as one-by-one additions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgkr.errors import NodeNotFoundError
from sgkr.graph import KnowledgeGraph
from sgkr.records import Edge, FunctionNode, SourceSpan, TagNode


def _fn(name: str, code: str = "") -> FunctionNode:
    return FunctionNode(f"fn:{name}", name, (f"m.{name}",), code, "", (SourceSpan("m.py", 1, 1),),
                        "function")


@pytest.fixture
def graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_functions([_fn("a"), _fn("b"), _fn("c")])
    g.add_tag(TagNode("tag:fee", "fee"))
    return g


def test_an_exact_call_wins_over_a_name_match_in_any_order(graph: KnowledgeGraph) -> None:
    graph.add_edges([Edge("fn:a", "fn:b", "calls", "name"), Edge("fn:a", "fn:b", "calls", "exact"),
                     Edge("fn:a", "fn:c", "calls", "exact")])
    graph.add_edge(Edge("fn:a", "fn:c", "calls", "name"))
    assert [(e.target, e.resolution) for e in graph.edges()] == [("fn:b", "exact"),
                                                                  ("fn:c", "exact")]
    assert graph.callers("fn:b") == ["fn:a"] and graph.callees("fn:a") == ["fn:b", "fn:c"]


def test_an_edge_to_a_missing_node_is_refused_and_none_of_its_batch_added(
        graph: KnowledgeGraph) -> None:
    with pytest.raises(NodeNotFoundError, match="no node 'fn:z'"):
        graph.add_edges([Edge("fn:a", "fn:b", "calls", "exact"), Edge("fn:a", "fn:z", "calls")])
    assert list(graph.edges()) == []


@pytest.mark.parametrize("row", [("fn:z", "fn:a", "calls", "exact"),
                                 ("fn:a", "fn:z", "calls", "name"),
                                 ("tag:fee", "fn:z", "consumes", None)])
def test_rows_with_a_missing_end_are_refused_naming_it(row: tuple[str, str, str, str | None]
                                                      ) -> None:
    records = [_fn("a"), _fn("b"), TagNode("tag:fee", "fee")]
    good = [("fn:a", "fn:b", "calls", "exact"), ("tag:fee", "fn:a", "consumes", None)]
    built = KnowledgeGraph.from_rows(records, good)
    assert [(e.source, e.target, e.type, e.resolution) for e in built.edges()] == [
        ("fn:a", "fn:b", "calls", "exact"), ("tag:fee", "fn:a", "consumes", None)]
    assert built.callers("fn:b") == ["fn:a"] and built.consumers("tag:fee") == ["fn:a"]
    with pytest.raises(NodeNotFoundError, match="no node 'fn:z'"):
        KnowledgeGraph.from_rows(records, [*good, row])  # type: ignore[list-item]


def test_adding_a_function_again_replaces_it_and_keeps_its_edges(graph: KnowledgeGraph) -> None:
    graph.add_edges([Edge("fn:a", "fn:b", "calls", "exact"), Edge("tag:fee", "fn:a", "consumes")])
    graph.add_functions([_fn("a", "def a(): ...")])
    assert graph.function("fn:a").code == "def a(): ..."
    assert graph.callees("fn:a") == ["fn:b"] and graph.consumers("tag:fee") == ["fn:a"]
    assert graph.stats()["functions"] == 3


def test_tagged_functions_consume_or_produce_a_tag(graph: KnowledgeGraph) -> None:
    assert graph.tagged_functions() == set()
    graph.add_edges([Edge("tag:fee", "fn:a", "consumes"), Edge("fn:b", "tag:fee", "produces"),
                     Edge("fn:c", "fn:a", "calls", "exact")])
    assert graph.tagged_functions() == {"fn:a", "fn:b"}


def test_stats_count_nodes_and_edges_by_kind(graph: KnowledgeGraph) -> None:
    graph.add_edges([Edge("fn:a", "fn:b", "calls", "exact"), Edge("fn:a", "fn:c", "calls", "name"),
                     Edge("fn:b", "tag:fee", "produces")])
    stats = graph.stats()
    assert (stats["functions"], stats["tags"]) == (3, 1)
    assert stats["edges"] == {"calls": 2, "produces": 1}
    assert stats["call_edges"] == {"exact": 1, "name": 1}


def test_adding_a_tag_again_merges_its_aliases_and_keeps_its_edges(
        graph: KnowledgeGraph) -> None:
    graph.add_edge(Edge("tag:fee", "fn:a", "consumes"))
    _ = graph.nx.nodes["tag:fee"]  # networkx caches its views: the next additions must show
    graph.add_tag(TagNode("tag:fee", "fees", ("charge", "fee")))
    graph.add_tag(TagNode("tag:fee", "fee", ("cost", "charge")))
    graph.add_tag(TagNode("tag:rate", "rate"))
    assert graph.tag("tag:fee") == TagNode("tag:fee", "fee", ("charge", "cost"))
    assert graph.consumers("tag:fee") == ["fn:a"]
    assert graph.nx.nodes["tag:rate"]["type"] == "tag" and "tag:rate" in graph.nx.pred
    assert [t.id for t in graph.tags()] == ["tag:fee", "tag:rate"]
    with pytest.raises(NodeNotFoundError, match="no tag node 'fn:a'"):
        graph.add_tag(TagNode("fn:a", "a"))


def test_tags_added_in_a_batch_are_those_added_one_by_one(graph: KnowledgeGraph) -> None:
    tags = [TagNode("tag:fee", "fees", ("charge",)), TagNode("tag:rate", "rate"),
            TagNode("tag:rate", "rate", ("ratio",)), TagNode("tag:fee", "fee", ("cost",))]
    one_by_one = KnowledgeGraph()
    one_by_one.add_functions([_fn("a"), _fn("b"), _fn("c")])
    one_by_one.add_tag(TagNode("tag:fee", "fee"))
    for tag in tags:
        one_by_one.add_tag(tag)
    graph.add_tags(tags)
    assert list(graph.tags()) == list(one_by_one.tags())
    assert graph.tag("tag:fee").aliases == ("charge", "cost")
    assert list(graph.nx.nodes) == list(one_by_one.nx.nodes)


def test_a_batch_of_tags_with_a_functions_id_is_refused_whole(graph: KnowledgeGraph) -> None:
    with pytest.raises(NodeNotFoundError, match="no tag node 'fn:a'"):
        graph.add_tags([TagNode("tag:rate", "rate"), TagNode("fn:a", "a")])
    assert [t.id for t in graph.tags()] == ["tag:fee"]


_PARTS = st.sampled_from(["m", "n", "C", "f", "g", "run", "__init__"])


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(_PARTS, min_size=1, max_size=5), min_size=1, max_size=12),
       st.lists(st.lists(_PARTS, min_size=1, max_size=4).map(".".join), max_size=10))
def test_find_many_finds_what_find_finds_one_name_at_a_time(
        qualnames: list[list[str]], names: list[str]) -> None:
    g = KnowledgeGraph()
    for i, parts in enumerate(qualnames):
        g.add_function(FunctionNode(f"fn:{i}", parts[-1], (".".join(parts),), "", "", (),
                                    "function"))
    names += ["fn:0", "fn:none", ""]
    found = g.find_many(names)
    for name in names:
        # The rule itself: a node id names that node; else a bare name, a qualname or its tail.
        expected = [name] if name in g and g.node_type(name) == "function" else sorted(
            f.id for f in g.functions() if f.name == name or any(
                q == name or q.endswith("." + name) for q in f.qualnames))
        assert found[name] == expected == g.find(name)
        assert all(g.finds(name, node) for node in expected)


def test_every_change_moves_the_revision_and_a_copy_starts_anew(graph: KnowledgeGraph) -> None:
    seen = [graph.revision]
    changes = [
        lambda: graph.add_tag(TagNode("tag:rate", "rate")),
        lambda: graph.set_tag_label("tag:rate", "fee rate"),
        lambda: graph.set_tag_weights({"tag:rate": 0.5}),
        lambda: graph.add_function(FunctionNode("fn:x.f", "f", ("x.f",), "", "", (), "function")),
        lambda: graph.add_edge_rows([("fn:x.f", "tag:rate", "produces", None)]),
        lambda: graph.remove_edges([("fn:x.f", "tag:rate")]),
        lambda: graph.remove_nodes(["fn:x.f"]),
    ]
    for change in changes:
        change()
        assert graph.revision > seen[-1]
        seen.append(graph.revision)
    copy = graph.copy()
    assert copy.revision == 0 and copy.to_dict() == graph.to_dict()

"""Path search on small hand-made graphs: exact node sets, cycles, bounds, determinism."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph
from sgkr.errors import InvalidArgumentError, NodeNotFoundError
from sgkr.records import Edge, FunctionNode, TagNode
from sgkr.search import connect_paths, find_paths


def make(calls: list[tuple[str, str]], consumes: list[tuple[str, str]] = (),  # type: ignore[assignment]
         produces: list[tuple[str, str]] = ()) -> KnowledgeGraph:  # type: ignore[assignment]
    g = KnowledgeGraph()
    names = {n for pair in calls for n in pair} | {f for _, f in consumes} | {
        f for f, _ in produces}
    for name in sorted(names):
        g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    for tag in sorted({t for t, _ in consumes} | {t for _, t in produces}):
        g.add_tag(TagNode(f"tag:{tag}", tag))
    for a, b in calls:
        g.add_edge(Edge(f"fn:{a}", f"fn:{b}", "calls", "exact"))
    for t, f in consumes:
        g.add_edge(Edge(f"tag:{t}", f"fn:{f}", "consumes"))
    for f, t in produces:
        g.add_edge(Edge(f"fn:{f}", f"tag:{t}", "produces"))
    return g


def test_forward_chain() -> None:
    g = make([("a", "b"), ("b", "c")], consumes=[("in", "a")], produces=[("c", "out")])
    assert find_paths(g, ["tag:in"], ["tag:out"]) == [
        ("tag:in", "fn:a", "fn:b", "fn:c", "tag:out")]


def test_shared_helper_needs_reverse_calls() -> None:
    # main1 consumes x and calls helper; main2 calls helper and produces y.
    g = make([("main1", "helper"), ("main2", "helper")], consumes=[("x", "main1")],
             produces=[("main2", "y")])
    assert find_paths(g, ["tag:x"], ["tag:y"]) == [
        ("tag:x", "fn:main1", "fn:helper", "fn:main2", "tag:y")]
    assert find_paths(g, ["tag:x"], ["tag:y"], reverse_calls=False) == []


def test_all_shortest_paths_and_no_longer_ones() -> None:
    g = make([("a", "b1"), ("a", "b2"), ("b1", "c"), ("b2", "c"), ("a", "d"), ("d", "e"),
              ("e", "c")], consumes=[("in", "a")], produces=[("c", "out")])
    paths = find_paths(g, ["tag:in"], ["tag:out"], reverse_calls=False)
    assert paths == [("tag:in", "fn:a", "fn:b1", "fn:c", "tag:out"),
                     ("tag:in", "fn:a", "fn:b2", "fn:c", "tag:out")]


def test_cycles_terminate() -> None:
    g = make([("a", "b"), ("b", "a"), ("b", "b"), ("b", "c")], consumes=[("in", "a")],
             produces=[("c", "out")])
    assert find_paths(g, ["tag:in"], ["tag:out"]) == [
        ("tag:in", "fn:a", "fn:b", "fn:c", "tag:out")]


def test_no_path_and_depth_bound() -> None:
    g = make([("a", "b"), ("b", "c"), ("c", "d")], consumes=[("in", "a")],
             produces=[("d", "out"), ("a", "other")])
    assert find_paths(g, ["tag:other"], ["tag:in"]) == []
    assert find_paths(g, ["tag:in"], ["tag:out"], max_depth=4) == []
    assert len(find_paths(g, ["tag:in"], ["tag:out"], max_depth=5)[0]) == 6


def test_path_count_bound_on_a_lattice() -> None:
    # 2^10 shortest paths through a ladder; only max_paths are enumerated.
    calls = []
    for i in range(10):
        for a in ("l", "r"):
            for b in ("l", "r"):
                calls.append((f"{a}{i}", f"{b}{i + 1}"))
    g = make(calls, consumes=[("in", "l0")], produces=[("l10", "out")])
    paths = find_paths(g, ["tag:in"], ["tag:out"], max_paths=7, max_depth=20,
                       reverse_calls=False)
    assert len(paths) == 7 and len({len(p) for p in paths}) == 1
    assert paths == sorted(paths)


def test_deterministic_order_and_pairs() -> None:
    g = make([("a", "c"), ("b", "c")], consumes=[("x", "a"), ("y", "b")],
             produces=[("c", "out")])
    first = find_paths(g, ["tag:y", "tag:x"], ["tag:out"])
    assert first == find_paths(g, ["tag:x", "tag:y"], ["tag:out"])
    assert first == [("tag:x", "fn:a", "fn:c", "tag:out"), ("tag:y", "fn:b", "fn:c", "tag:out")]


def test_connect_ignores_directions() -> None:
    g = make([("f", "h"), ("g", "h")], consumes=[("x", "f"), ("y", "g")])
    assert find_paths(g, ["tag:x"], ["tag:y"]) == []
    assert connect_paths(g, ["tag:x", "tag:y"]) == [
        ("tag:x", "fn:f", "fn:h", "fn:g", "tag:y")]


def test_errors() -> None:
    g = make([("a", "b")], consumes=[("in", "a")])
    with pytest.raises(NodeNotFoundError, match="tag:nope"):
        find_paths(g, ["tag:nope"], ["tag:in"])
    with pytest.raises(InvalidArgumentError, match="positive"):
        find_paths(g, ["tag:in"], ["tag:in"], max_depth=0)

"""The layered layout: callers above callees, tags in the outer rows, no overlaps."""

from __future__ import annotations

import random

import networkx as nx

from sgkr import KnowledgeGraph
from sgkr.export import layout, subgraph
from sgkr.export.layout import NODE_HEIGHT
from sgkr.graph import KnowledgeGraph as Graph
from sgkr.records import Edge, FunctionNode, TagNode


def _check(graph: KnowledgeGraph) -> None:
    view = subgraph(graph)
    box = layout(view)
    assert set(box.x) == {n.id for n in view.nodes}
    cyclic = {n for c in nx.simple_cycles(graph.nx) for n in c}
    for e in view.edges:
        if e.type == "calls" and not {e.source, e.target} & cyclic:
            assert box.y[e.source] < box.y[e.target], (e.source, e.target)
    rows: dict[float, list[str]] = {}
    for node, y in box.y.items():
        rows.setdefault(y, []).append(node)
    for row in rows.values():
        row.sort(key=lambda n: box.x[n])
        for left, right in zip(row, row[1:], strict=False):
            gap = box.x[right] - box.x[left]
            assert gap >= (box.width_of[left] + box.width_of[right]) / 2, (left, right)
    for n in view.nodes:
        assert 0 <= box.x[n.id] - box.width_of[n.id] / 2
        assert box.x[n.id] + box.width_of[n.id] / 2 <= box.width
        assert box.y[n.id] + NODE_HEIGHT / 2 <= box.height
    tag_rows = {box.y[n.id] for n in view.nodes if n.is_tag}
    fn_rows = {box.y[n.id] for n in view.nodes if not n.is_tag}
    assert not tag_rows & fn_rows


def test_payments_layout_is_layered_without_overlaps(payments_graph: KnowledgeGraph) -> None:
    _check(payments_graph)


def test_random_graph_with_cycles_is_layered(payments_graph: KnowledgeGraph) -> None:
    rng = random.Random(7)
    g = Graph()
    for i in range(300):
        g.add_function(FunctionNode(f"fn:f{i}", f"f{i}", (f"m.f{i}",), "", "", (), "function"))
    for i in range(40):
        g.add_tag(TagNode(f"tag:t{i}", f"t{i}"))
    for _ in range(600):
        a, b = rng.sample(range(300), 2)
        g.add_edge(Edge(f"fn:f{min(a, b)}", f"fn:f{max(a, b)}", "calls", "exact"))
    for name in ("x", "y"):
        g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    g.add_edge(Edge("fn:f0", "fn:x", "calls", "exact"))
    g.add_edge(Edge("fn:x", "fn:y", "calls", "exact"))
    g.add_edge(Edge("fn:y", "fn:x", "calls", "exact"))  # recursion
    for i in range(40):
        f = f"fn:f{rng.randrange(300)}"
        edge = Edge(f"tag:t{i}", f, "consumes") if i % 2 else Edge(f, f"tag:t{i}", "produces")
        g.add_edge(edge)
    _check(g)
    box = layout(subgraph(g))
    assert box.width < 4 * box.height  # wide layers are wrapped

"""Random and adversarial knowledge graphs for the search tests and the campaign."""

from __future__ import annotations

import random

from sgkr.graph import KnowledgeGraph
from sgkr.records import Edge, FunctionNode, TagNode

__all__ = ["random_graph", "hub_scc_graph", "WORDS"]

WORDS = ("fee", "merchant", "amount", "card scheme", "country", "rate", "volume", "account",
         "fraud", "month")


def _function(name: str, kind: str = "function") -> FunctionNode:
    return FunctionNode(f"fn:{name}", name, (f"m.{name}",), f"def {name}(): ...", "", (),
                        kind)  # type: ignore[arg-type]


def random_graph(seed: int, functions: int, calls: int, links: int,
                 order_seed: int | None = None) -> KnowledgeGraph:
    """A random graph; ``order_seed`` shuffles only the order nodes and edges are added in."""
    rng = random.Random(seed)
    names = [f"f{i}" for i in range(functions)]
    tags = list(WORDS[: rng.randint(2, len(WORDS))])
    edges: set[tuple[str, str, str]] = set()
    for _ in range(calls):
        a, b = rng.choice(names), rng.choice(names)
        if a != b:
            edges.add((f"fn:{a}", f"fn:{b}", "calls"))
    for _ in range(links):
        t, f = f"tag:{rng.choice(tags)}", f"fn:{rng.choice(names)}"
        edges.add((t, f, "consumes") if rng.random() < 0.5 else (f, t, "produces"))
    nodes: list[FunctionNode | TagNode] = [
        _function(n, "module" if rng.random() < 0.15 else "function") for n in names]
    nodes += [TagNode(f"tag:{t}", t) for t in tags]
    ordered = sorted(edges)
    if order_seed is not None:
        shuffle = random.Random(order_seed)
        shuffle.shuffle(nodes)
        shuffle.shuffle(ordered)
    graph = KnowledgeGraph()
    for node in nodes:
        if isinstance(node, TagNode):
            graph.add_tag(node)
        else:
            graph.add_function(node)
    pairs = {(s, t) for s, t, _ in ordered}
    for s, t, kind in ordered:
        if kind == "calls" or (t, s) not in pairs:
            graph.add_edge(Edge(s, t, kind, "exact" if kind == "calls" else None))  # type: ignore[arg-type]
    return graph


def hub_scc_graph(functions: int = 5000, scc: int = 2000, hub_callers: int = 3000,
                  seed: int = 0) -> KnowledgeGraph:
    """A large graph with one big strongly connected component and a hub called from
    ``hub_callers`` functions; ``amount`` and ``fee`` tags hang off opposite ends."""
    rng = random.Random(seed)
    graph = KnowledgeGraph()
    names = [f"f{i}" for i in range(functions)]
    for n in names:
        graph.add_function(_function(n))
    graph.add_function(_function("hub"))
    for t in ("amount", "fee", "merchant"):
        graph.add_tag(TagNode(f"tag:{t}", t))
    for i in range(scc):  # a ring plus random chords: one big SCC
        graph.add_edge(Edge(f"fn:f{i}", f"fn:f{(i + 1) % scc}", "calls", "exact"))
        graph.add_edge(Edge(f"fn:f{i}", f"fn:f{rng.randrange(scc)}", "calls", "name"))
    for _ in range(hub_callers):
        graph.add_edge(Edge(f"fn:f{rng.randrange(functions)}", "fn:hub", "calls", "exact"))
    for i in range(scc, functions):
        graph.add_edge(Edge(f"fn:f{i}", f"fn:f{rng.randrange(functions)}", "calls", "name"))
    for i in rng.sample(range(functions), 40):
        graph.add_edge(Edge("tag:amount", f"fn:f{i}", "consumes"))
        graph.add_edge(Edge("tag:merchant", f"fn:f{(i * 7) % functions}", "consumes"))
    for i in rng.sample(range(functions), 40):
        graph.add_edge(Edge(f"fn:f{i}", "tag:fee", "produces"))
    graph.add_edge(Edge("fn:hub", "tag:fee", "produces"))
    return graph

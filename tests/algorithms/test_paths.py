"""Path search on small hand-made graphs: exact node sets, cycles, bounds, determinism."""

from __future__ import annotations

import pytest

from sgkr import KnowledgeGraph
from sgkr.algorithms.paths import MAX_DEPTH, MAX_PATHS, connect_paths, find_paths, search_pairs
from sgkr.errors import InvalidArgumentError, NodeNotFoundError
from sgkr.records import Edge, FunctionNode, TagNode


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
    with pytest.raises(InvalidArgumentError, match="max_depth must be an integer from 1"):
        find_paths(g, ["tag:in"], ["tag:in"], max_depth=0)
    with pytest.raises(InvalidArgumentError, match=f"from 1 to {MAX_DEPTH}, got {MAX_DEPTH + 1}"):
        find_paths(g, ["tag:in"], ["tag:in"], max_depth=MAX_DEPTH + 1)
    with pytest.raises(InvalidArgumentError, match=f"max_paths must be .* to {MAX_PATHS}"):
        connect_paths(g, ["tag:in", "b"], max_paths=MAX_PATHS + 1)
    with pytest.raises(InvalidArgumentError, match="max_paths"):
        search_pairs(lambda f, b: ({}, {}), [("a", "b")], max_paths=True)


# -- the shared-tree search is the per-pair search it replaced ------------------------


def _reference_paths(graph: KnowledgeGraph, pairs: list[tuple[str, str]], mode: str,
                     max_depth: int, max_paths: int) -> list[tuple[str, ...]]:
    """The search as first written: one bidirectional BFS per pair, parents kept eagerly."""
    g = graph.nx

    def moves(node: str, backward: bool) -> list[str]:
        if mode == "any":
            return sorted(set(g.succ[node]) | set(g.pred[node]))
        succ, pred = (g.pred, g.succ) if backward else (g.succ, g.pred)
        following = set(succ[node])
        if mode == "reverse":
            following.update(n for n, d in pred[node].items() if d["type"] == "calls")
        return sorted(following)

    def layer(front: list[str], backward: bool, dist: dict[str, int],
              parents: dict[str, list[str]]) -> list[str]:
        depth, out = dist[front[0]] + 1, []
        for node in front:
            for nxt in moves(node, backward):
                if nxt not in dist:
                    dist[nxt], parents[nxt] = depth, [node]
                    out.append(nxt)
                elif dist[nxt] == depth:
                    parents[nxt].append(node)
        return out

    def walk(start: str, parents: dict[str, list[str]]) -> list[tuple[str, ...]]:
        out: list[tuple[str, ...]] = []
        stack = [(start, (start,))]
        while stack and len(out) < max_paths:
            node, path = stack.pop()
            if not parents[node]:
                out.append(path)
                continue
            stack.extend((p, path + (p,)) for p in reversed(parents[node]))
        return out

    # Paths of one length: the pairs in order, each adding what is left of max_paths.
    by_length: dict[int, list[list[tuple[str, ...]]]] = {}
    for s, t in pairs:
        fpar: dict[str, list[str]] = {s: []}
        bpar: dict[str, list[str]] = {t: []}
        fdist, bdist, ff, bf, meet = {s: 0}, {t: 0}, [s], [t], []
        while ff and bf and fdist[ff[0]] + bdist[bf[0]] < max_depth:
            if len(ff) <= len(bf):
                ff = layer(ff, False, fdist, fpar)
                meet = [n for n in ff if n in bdist]
            else:
                bf = layer(bf, True, bdist, bpar)
                meet = [n for n in bf if n in fdist]
            if meet:
                break
        if not meet:
            continue
        best = min(fdist[n] + bdist[n] for n in meet)
        paths: list[tuple[str, ...]] = []
        for middle in sorted(n for n in meet if fdist[n] + bdist[n] == best):
            for head in walk(middle, fpar):
                for tail in walk(middle, bpar):
                    if len(paths) < max_paths:
                        paths.append(tuple(reversed(head)) + tail[1:])
        by_length.setdefault(best, []).append(paths)
    found: set[tuple[str, ...]] = set()
    for length in sorted(by_length):
        for paths in by_length[length]:
            found.update(paths[: max(max_paths - len(found), 0)])
    return sorted(found, key=lambda p: (len(p), p))[:max_paths]


def _random_graph(seed: int) -> KnowledgeGraph:
    """Layers of functions with many equal-length paths, some back calls, tags at all depths."""
    import random

    rng = random.Random(seed)
    layers = [[f"f{rng.randrange(10**6)}x{d}{i}" for i in range(7)] for d in range(5)]
    calls = [(a, b) for upper, lower in zip(layers, layers[1:], strict=False) for a in upper
             for b in rng.sample(lower, 3)]
    every = [f for layer in layers for f in layer]
    calls += [(rng.choice(every), rng.choice(every)) for _ in range(4)]
    consumes = [(f"t{rng.randrange(3)}", rng.choice(layers[0] + layers[1])) for _ in range(6)]
    produces = [(rng.choice(layers[-1]), f"t{rng.randrange(3, 6)}") for _ in range(6)]
    return make([c for c in calls if c[0] != c[1]], consumes, produces)


@pytest.mark.parametrize("seed", range(12))
def test_search_matches_the_per_pair_reference(seed: int) -> None:
    from sgkr.algorithms.paths import SearchIndex

    g = _random_graph(seed)
    index = SearchIndex(g)
    tags = sorted(t.id for t in g.tags())
    inputs, outputs = tags[:3], tags[3:]
    pairs = [(s, t) for s in inputs for t in outputs]
    for depth, limit in ((8, 32), (4, 4), (6, 2), (8, 1)):
        for reverse in (True, False):
            expected = _reference_paths(g, pairs, "reverse" if reverse else "forward",
                                        depth, limit)
            assert find_paths(g, inputs, outputs, max_depth=depth, max_paths=limit,
                              reverse_calls=reverse, index=index) == expected
        every = [(a, b) for i, a in enumerate(tags) for b in tags[i + 1:]]
        assert connect_paths(g, tags, max_depth=depth, max_paths=limit,
                             index=index) == _reference_paths(g, every, "any", depth, limit)


def test_search_index_of_another_graph_is_not_used() -> None:
    from sgkr.algorithms.paths import SearchIndex

    g = make([("a", "b")], [("in", "a")], [("b", "out")])
    other = SearchIndex(make([("a", "c")], [("in", "a")], [("c", "out")]))
    assert find_paths(g, ["tag:in"], ["tag:out"], index=other) == [
        ("tag:in", "fn:a", "fn:b", "tag:out")]
    with pytest.raises(InvalidArgumentError, match="direction"):
        other.moves("sideways")


@pytest.mark.parametrize("seed", range(12))
def test_fetched_search_is_the_search_in_memory(seed: int) -> None:
    """A store's search, fetching each round's moves in batches, finds the same paths."""
    from sgkr.algorithms.paths import SearchIndex, connect_pairs, path_pairs, search_pairs

    g = _random_graph(seed)
    index = SearchIndex(g)
    tags = sorted(t.id for t in g.tags())
    inputs, outputs = tags[:3], tags[3:]
    batches: list[tuple[list[str], list[str]]] = []

    def fetch(ahead: str, behind: str, reverse: bool = True):  # type: ignore[no-untyped-def]
        forward = index.moves(ahead, reverse_calls=reverse)
        backward = index.moves(behind, reverse_calls=reverse)

        def batch(fnodes: list[str], bnodes: list[str]):  # type: ignore[no-untyped-def]
            batches.append((fnodes, bnodes))
            return {n: forward[n] for n in fnodes}, {n: backward[n] for n in bnodes}
        return batch

    for depth, limit in ((8, 32), (4, 4), (6, 2), (8, 1)):
        for reverse in (True, False):
            assert search_pairs(fetch("forward", "backward", reverse),
                                path_pairs(inputs, outputs), max_depth=depth,
                                max_paths=limit) == find_paths(
                g, inputs, outputs, max_depth=depth, max_paths=limit, reverse_calls=reverse,
                index=index)
        assert search_pairs(fetch("any", "any"), connect_pairs(tags), symmetric=True,
                            max_depth=depth, max_paths=limit) == connect_paths(
            g, tags, max_depth=depth, max_paths=limit, index=index)
    # A node's moves are fetched once per search, in one batch per round.
    assert all(len(set(f)) == len(f) and len(set(b)) == len(b) for f, b in batches)
    assert max(len(f) + len(b) for f, b in batches) > 1
    assert any(f and b for f, b in batches)

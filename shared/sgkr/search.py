"""Dependency paths between input and output tag nodes: bounded breadth-first search.

For each pair of a matched input tag and a matched output tag, a
bidirectional, layer-complete BFS finds the shortest distance; the shortest
paths are then read off the BFS predecessor layers, at most ``max_paths`` of
them. Moves follow ``consumes`` (tag → function), ``produces`` (function →
tag) and ``calls`` (caller → callee) edges, and, when ``reverse_calls`` is
set, calls against their direction (callee → caller). Work is polynomial:
each BFS visits a node once, path enumeration stops at ``max_paths``, and
depth is capped by ``max_depth``, so cycles and hubs cannot make it hang.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import Edge, FunctionNode, TagNode
>>> g = KnowledgeGraph()
>>> for n in ("f", "g"):
...     g.add_function(FunctionNode(f"fn:{n}", n, (n,), "", "", (), "function"))
>>> for t in ("a", "b"):
...     g.add_tag(TagNode(f"tag:{t}", t))
>>> g.add_edge(Edge("tag:a", "fn:g", "consumes"))
>>> g.add_edge(Edge("fn:f", "fn:g", "calls", "exact"))
>>> g.add_edge(Edge("fn:f", "tag:b", "produces"))
>>> find_paths(g, ["tag:a"], ["tag:b"])
[('tag:a', 'fn:g', 'fn:f', 'tag:b')]
>>> find_paths(g, ["tag:a"], ["tag:b"], reverse_calls=False)
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import networkx as nx

from .errors import InvalidArgumentError, NodeNotFoundError
from .graph import KnowledgeGraph

__all__ = ["find_paths", "connect_paths", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_PATHS"]

DEFAULT_MAX_DEPTH = 8
DEFAULT_MAX_PATHS = 32
Path = tuple[str, ...]


def find_paths(
    graph: KnowledgeGraph,
    inputs: Sequence[str],
    outputs: Sequence[str],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_paths: int = DEFAULT_MAX_PATHS,
    reverse_calls: bool = True,
) -> list[Path]:
    """Shortest dependency paths from any of ``inputs`` to any of ``outputs``.

    Parameters
    ----------
    graph
        The knowledge–code graph.
    inputs, outputs
        Node ids (usually tag nodes) to start from and to reach.
    max_depth
        Longest path, in edges.
    max_paths
        Most paths returned, over all pairs.
    reverse_calls
        Whether a call edge may be walked from callee to caller.

    Returns
    -------
    list of paths
        Each a tuple of node ids from an input to an output; shortest first,
        then in lexicographic order. Pairs of a node with itself are skipped.

    Raises
    ------
    NodeNotFoundError
        If an input or output is not in the graph.
    InvalidArgumentError
        If ``max_depth`` or ``max_paths`` is not positive.
    """
    _check(graph, (*inputs, *outputs), max_depth, max_paths)
    g = graph.nx
    forward = _mover(g, reverse_calls, backward=False)
    backward = _mover(g, reverse_calls, backward=True)
    pairs = [(s, t) for s in dict.fromkeys(inputs) for t in dict.fromkeys(outputs) if s != t]
    return _all_pairs(forward, backward, pairs, max_depth, max_paths)


def connect_paths(
    graph: KnowledgeGraph,
    nodes: Sequence[str],
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> list[Path]:
    """Shortest paths joining every pair of ``nodes``, walking every edge either way.

    The fallback when a question's tags have no input-to-output path (or
    only inputs, or only outputs, match): it connects what the question
    mentions through the functions they share. Same bounds and order as
    :func:`find_paths`.
    """
    _check(graph, nodes, max_depth, max_paths)
    g = graph.nx

    memo: dict[str, list[str]] = {}

    def moves(node: str) -> list[str]:
        found = memo.get(node)
        if found is None:
            found = memo[node] = sorted(set(g._succ[node]) | set(g._pred[node]))
        return found

    unique = list(dict.fromkeys(nodes))
    pairs = [(a, b) for i, a in enumerate(unique) for b in unique[i + 1 :]]
    return _all_pairs(moves, moves, pairs, max_depth, max_paths)


def _check(graph: KnowledgeGraph, nodes: Sequence[str], max_depth: int, max_paths: int) -> None:
    if max_depth < 1 or max_paths < 1:
        raise InvalidArgumentError(
            f"max_depth and max_paths must be positive, got {max_depth}, {max_paths}"
        )
    for node in nodes:
        if node not in graph:
            raise NodeNotFoundError(f"search endpoint {node!r} is not in the graph")


Mover = Callable[[str], list[str]]


def _all_pairs(forward: Mover, backward: Mover, pairs: Sequence[tuple[str, str]],
               max_depth: int, max_paths: int) -> list[Path]:
    found: set[Path] = set()
    for source, target in pairs:
        found.update(_pair_paths(forward, backward, source, target, max_depth, max_paths))
    return sorted(found, key=lambda p: (len(p), p))[:max_paths]


def _mover(g: nx.DiGraph, reverse_calls: bool, *, backward: bool) -> Mover:
    # networkx's plain adjacency dicts: its views cost more than the search itself.
    succ, pred = (g._pred, g._succ) if backward else (g._succ, g._pred)
    memo: dict[str, list[str]] = {}

    def moves(node: str) -> list[str]:
        found = memo.get(node)
        if found is None:
            following = set(succ[node])
            if reverse_calls:
                # The reverse of a call edge, seen from the side we walk on.
                following.update(n for n, data in pred[node].items() if data["type"] == "calls")
            found = memo[node] = sorted(following)
        return found

    return moves


def _pair_paths(forward: Mover, backward: Mover, source: str, target: str,
                max_depth: int, limit: int) -> list[Path]:
    fpred: dict[str, list[str]] = {source: []}
    bsucc: dict[str, list[str]] = {target: []}
    fdist, bdist = {source: 0}, {target: 0}
    ffront, bfront = [source], [target]
    meet: list[str] = []
    while ffront and bfront and fdist[ffront[0]] + bdist[bfront[0]] < max_depth:
        if len(ffront) <= len(bfront):
            ffront = _layer(ffront, forward, fdist, fpred)
            meet = [n for n in ffront if n in bdist]
        else:
            bfront = _layer(bfront, backward, bdist, bsucc)
            meet = [n for n in bfront if n in fdist]
        if meet:
            break
    if not meet:
        return []
    best = min(fdist[n] + bdist[n] for n in meet)
    paths: list[Path] = []
    for middle in sorted(n for n in meet if fdist[n] + bdist[n] == best):
        for head in _walk(middle, fpred, limit):
            for tail in _walk(middle, bsucc, limit):
                paths.append(tuple(reversed(head)) + tail[1:])
                if len(paths) >= limit:
                    return paths
    return paths


def _layer(front: list[str], moves: Mover, dist: dict[str, int],
           parents: dict[str, list[str]]) -> list[str]:
    depth = dist[front[0]] + 1
    layer: list[str] = []
    for node in front:
        for nxt in moves(node):
            if nxt not in dist:
                dist[nxt] = depth
                parents[nxt] = [node]
                layer.append(nxt)
            elif dist[nxt] == depth:
                parents[nxt].append(node)
    return layer


def _walk(start: str, parents: dict[str, list[str]], limit: int) -> Iterator[Path]:
    """Paths from ``start`` back along ``parents`` to the BFS root, at most ``limit``."""
    count = 0
    stack: list[tuple[str, Path]] = [(start, (start,))]
    while stack:
        node, path = stack.pop()
        if not parents[node]:
            yield path
            count += 1
            if count >= limit:
                return
            continue
        for parent in reversed(parents[node]):
            stack.append((parent, path + (parent,)))

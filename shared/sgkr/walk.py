"""Personalized PageRank over the knowledge–code graph, and the call graph's centrality.

The retriever fills what the dependency paths leave of its budget with the
function nodes a random walk from the question's seeds (its matched tags, the
functions on its paths, the functions that match it lexically) visits most,
as HippoRAG does over its knowledge graph. The walk moves along every edge in
either direction (calls, consumes, produces, references) and jumps back to a
seed with probability ``alpha`` at each step.

It is computed by *forward push* (Andersen, Chung and Lang, 2006): mass is
pushed from a node only while its residual is at least ``epsilon`` times its
degree, so the work depends on ``epsilon`` and ``max_pushes``, not on the size
of the graph. A node with more than ``max_degree`` neighbours (a helper every
function calls, a tag every function consumes) keeps what reaches it instead
of spreading it thinly over all of them. The order of pushes is fixed (seeds
in the order given, neighbours in sorted order), so the result is
deterministic.

Examples
--------
>>> moves = {"a": ("b",), "b": ("a", "c"), "c": ("b",)}
>>> scores = personalized_pagerank(moves, {"a": 1.0})
>>> sorted(scores, key=scores.get, reverse=True)
['a', 'b', 'c']
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Mapping

from .errors import InvalidArgumentError
from .graph import KnowledgeGraph

__all__ = ["personalized_pagerank", "call_centrality", "DEFAULT_ALPHA"]

DEFAULT_ALPHA = 0.5
_EPSILON = 1e-4
_MAX_PUSHES = 4000
_MAX_DEGREE = 128


def personalized_pagerank(
    moves: Mapping[str, tuple[str, ...]],
    seeds: Mapping[str, float],
    *,
    alpha: float = DEFAULT_ALPHA,
    epsilon: float = _EPSILON,
    max_pushes: int = _MAX_PUSHES,
    max_degree: int = _MAX_DEGREE,
) -> dict[str, float]:
    """Approximate personalized PageRank of the nodes near ``seeds``.

    Parameters
    ----------
    moves
        The neighbours of each node (walked in the order given).
    seeds
        Node → weight of the restart distribution (normalised here; nodes not in
        ``moves`` and weights that are not positive are ignored).
    alpha
        Probability of jumping back to a seed at each step, in (0, 1).
    epsilon, max_pushes, max_degree
        Bounds of the work (see the module documentation).

    Returns
    -------
    dict
        Node → its share of the walk's time (summing to at most 1); nodes never
        reached are absent.

    Raises
    ------
    InvalidArgumentError
        If ``alpha`` is not in (0, 1).
    """
    if not 0.0 < alpha < 1.0:
        raise InvalidArgumentError(f"alpha must be in (0, 1), got {alpha!r}")
    kept = {n: w for n, w in seeds.items() if n in moves and w > 0}
    total = sum(kept.values())
    if not total:
        return {}
    residual: dict[str, float] = {n: w / total for n, w in kept.items()}
    score: dict[str, float] = {}
    queue = deque(residual)
    queued = set(queue)
    pushes = 0
    while queue and pushes < max_pushes:
        node = queue.popleft()
        queued.discard(node)
        mass = residual.pop(node, 0.0)
        if not mass:
            continue
        pushes += 1
        following = moves[node]
        if not following or len(following) > max_degree:
            score[node] = score.get(node, 0.0) + mass
            continue
        score[node] = score.get(node, 0.0) + alpha * mass
        share = (1.0 - alpha) * mass / len(following)
        for other in following:
            value = residual.get(other, 0.0) + share
            residual[other] = value
            if other not in queued and value >= epsilon * max(len(moves[other]), 1):
                queue.append(other)
                queued.add(other)
    for node, mass in residual.items():  # what was never pushed stays where it is
        score[node] = score.get(node, 0.0) + alpha * mass
    return score


def call_centrality(graph: KnowledgeGraph) -> dict[str, float]:
    """Each function node's share of the calls: ``log(1 + callers)``, scaled to at most 1.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def a():\\n    return c()\\ndef b():\\n    return c()\\n"
    ...                           "def c():\\n    return 1\\n")])
    >>> {n: round(v, 2) for n, v in sorted(call_centrality(g).items())}
    {'fn:m.a': 0.0, 'fn:m.b': 0.0, 'fn:m.c': 1.0}
    """
    g = graph.nx
    counts: dict[str, int] = {}
    for node_id, attrs in g._node.items():
        if attrs["type"] == "function":
            counts[node_id] = sum(1 for data in g._pred[node_id].values()
                                  if data["type"] == "calls")
    top = math.log1p(max(counts.values(), default=0)) or 1.0
    return {n: math.log1p(c) / top for n, c in counts.items()}

"""Personalized PageRank over the knowledge–code graph, and the call graph's centrality.

The retriever fills what the dependency paths leave of its budget with the
function nodes a random walk from the question's seeds (its matched tags, the
functions on its paths, the functions that match it lexically) visits most,
as HippoRAG does over its knowledge graph. The walk moves along every edge in
either direction (calls, consumes, produces, references) and jumps back to a
seed with probability ``alpha`` at each step.

It is computed by *forward push* (Andersen, Chung and Lang, 2006), in
rounds: each round pushes the mass of every node holding at least
``epsilon``, so the work depends on ``epsilon``, ``rounds`` and
``max_pushes``, not on the size of the graph, and the neighbours of a round's
nodes are read in one batch. A node with more than ``max_degree`` neighbours
(a helper every function calls, a tag every function consumes) keeps what
reaches it instead of spreading it thinly over all of them. The order of
pushes is fixed (seeds in the order given, neighbours in the order read), so
the result is deterministic.

Examples
--------
>>> moves = {"a": ("b",), "b": ("a", "c"), "c": ("b",)}
>>> scores = personalized_pagerank(lambda ids: {n: moves[n] for n in ids}, {"a": 1.0})
>>> sorted(scores, key=scores.get, reverse=True)
['a', 'b', 'c']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from ..errors import InvalidArgumentError

__all__ = ["personalized_pagerank", "centrality_prior", "DEFAULT_ALPHA"]

DEFAULT_ALPHA = 0.5
_EPSILON = 1e-3
_MAX_PUSHES = 2000
_MAX_DEGREE = 128
_ROUNDS = 6


def personalized_pagerank(
    neighbours: Callable[[list[str]], Mapping[str, tuple[str, ...]]],
    seeds: Mapping[str, float],
    *,
    alpha: float = DEFAULT_ALPHA,
    epsilon: float = _EPSILON,
    max_pushes: int = _MAX_PUSHES,
    max_degree: int = _MAX_DEGREE,
    rounds: int = _ROUNDS,
) -> dict[str, float]:
    """Approximate personalized PageRank of the nodes near ``seeds``.

    Parameters
    ----------
    neighbours
        Called with a batch of node ids, returns the neighbours of each (in the
        order walked; ids it does not know may be left out). One call a round,
        so a graph on a server is read in a few round trips.
    seeds
        Node → weight of the restart distribution (normalised here; weights that
        are not positive are ignored).
    alpha
        Probability of jumping back to a seed at each step, in (0, 1).
    epsilon, max_pushes, max_degree, rounds
        Bounds of the work (see the module documentation): a node's mass is
        pushed while it is at least ``epsilon``, for at most ``rounds`` rounds.

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
    kept = {n: w for n, w in seeds.items() if w > 0}
    total = sum(kept.values())
    if not total:
        return {}
    residual: dict[str, float] = {n: w / total for n, w in kept.items()}
    score: dict[str, float] = {}
    known: dict[str, tuple[str, ...]] = {}
    pushes = 0
    for _ in range(rounds):
        active = [n for n, mass in residual.items() if mass >= epsilon][: max_pushes - pushes]
        if not active:
            break
        missing = [n for n in active if n not in known]
        if missing:
            found = neighbours(missing)
            known.update((n, tuple(found.get(n, ()))) for n in missing)
        pushes += len(active)
        for node in active:
            mass = residual.pop(node)
            following = known[node]
            if not following or len(following) > max_degree:
                score[node] = score.get(node, 0.0) + mass  # a hub keeps what reaches it
                continue
            score[node] = score.get(node, 0.0) + alpha * mass
            share = (1.0 - alpha) * mass / len(following)
            for other in following:
                residual[other] = residual.get(other, 0.0) + share
        if pushes >= max_pushes:
            break
    for node, mass in residual.items():  # what was never pushed stays where it is
        score[node] = score.get(node, 0.0) + alpha * mass
    return score


def centrality_prior(callers: int) -> float:
    """A function's prior from its number of callers: ``c / (1 + c)``, ``c = log(1 + callers)``.

    In [0, 1), growing with the callers, and computed from the function alone, so
    a graph store answers it from one node's edges.

    Examples
    --------
    >>> [round(centrality_prior(n), 2) for n in (0, 1, 10, 100)]
    [0.0, 0.41, 0.71, 0.82]
    """
    c = math.log1p(max(callers, 0))
    return c / (1.0 + c)

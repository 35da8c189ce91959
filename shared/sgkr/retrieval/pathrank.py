"""The functions on a question's dependency paths, ranked, and the callees they lead to.

A function scores the share of each path through it (a path counts as much as its
matched end tags are sure, over its length); after the path functions come, layer by
layer, the functions they call or use as values, each layer below the one calling it.
A filter (``keep``) decides what is shown; module bodies beyond ``scripts`` are left
out but still lead to their callees.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import MemoryStore
>>> code = "def f():\\n    return g()\\ndef g():\\n    return 1\\n"
>>> store = MemoryStore(build_graph([("m.py", code)]))
>>> rank_paths(store, [("fn:m.f",)], 5, callees=1, scripts=1)
[('fn:m.f', 1.0), ('fn:m.g', 0.5)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from ..stores import GraphReader, NodeKind

__all__ = ["rank_paths", "nearest_paths", "Keep", "CALLEE_WEIGHT"]

#: The ids among a batch of function nodes that pass a filter.
Keep = Callable[[list[str]], set[str]]
#: A layer of callees scores at most this share of the lowest score of the layer calling it.
CALLEE_WEIGHT = 0.5


def nearest_paths(reader: GraphReader, inputs: Sequence[str],
                  outputs: Sequence[str]) -> list[tuple[str, ...]]:
    """The one-edge paths from each input tag to its consumers and from each output tag's
    producers to it (when no path joins the question's tags), sorted."""
    consumers = reader.neighbours(inputs, "consumes", "out") if inputs else {}
    producers = reader.neighbours(outputs, "produces", "in") if outputs else {}
    paths: list[tuple[str, ...]] = [(t, f) for t in inputs for f in consumers.get(t, ())]
    paths += [(f, t) for t in outputs for f in producers.get(t, ())]
    return sorted(set(paths))


class _Shown:
    """What an answer shows of the nodes admitted: those passing the filter, module bodies
    up to ``scripts`` (the others are ``dropped``: they are not followed again)."""

    def __init__(self, kinds: Mapping[str, NodeKind], keep: Keep | None, scripts: int) -> None:
        self.kinds, self.keep, self.scripts_left = kinds, keep, scripts
        self.dropped: set[str] = set()
        self.nodes: list[str] = []

    def admit(self, nodes: list[str]) -> list[str]:
        """``nodes`` less the module bodies over the ``scripts`` cap (those go to dropped)."""
        passing = None if self.keep is None else self.keep(nodes)
        kept: list[str] = []
        for node in nodes:
            visible = passing is None or node in passing
            if visible and self.kinds[node] == "module":
                if self.scripts_left == 0:
                    self.dropped.add(node)
                    continue
                self.scripts_left -= 1
            kept.append(node)
            if visible:
                self.nodes.append(node)
        return kept


def rank_paths(reader: GraphReader, paths: Sequence[tuple[str, ...]], limit: int, *,
               callees: int, scripts: int, keep: Keep | None = None,
               sure: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """The path functions and up to ``callees`` layers of their callees, best first.

    Parameters
    ----------
    reader
        The graph.
    paths
        Node id paths (tags at their ends).
    limit
        Most functions returned.
    callees
        Layers of callees followed while fewer than ``limit`` are shown.
    scripts
        Most module bodies shown.
    keep
        The filter, if any.
    sure
        How sure each matched tag is (a path's weight: the mean of its ends'; default 1).

    Returns
    -------
    list of (str, float)
        Function ids and scores in (0, 1], best first.
    """
    weight, first, kinds = _path_weights(reader, paths, sure or {})
    shown = _Shown(kinds, keep, scripts)
    frontier = sorted(weight, key=lambda n: (-weight[n], first[n], n))
    shown.admit(frontier)
    top = max(weight.values(), default=1.0)
    score = {n: weight[n] / top for n in weight}
    # A module body left out still leads to the functions it calls.
    for _ in range(callees):
        if len(shown.nodes) >= limit or not frontier:
            break
        # Each layer of callees scores below the layer that calls it, so scores
        # fall with rank and a score cut-off keeps what SGKR ranks first.
        floor = min(score[n] for n in frontier)
        best = _callee_layer(reader, frontier, score, shown.dropped)
        kinds.update(reader.kinds(best))
        frontier = shown.admit(sorted(best, key=lambda n: (-best[n], n)))
        most = max((best[n] for n in frontier), default=1.0)
        score.update({n: floor * CALLEE_WEIGHT * best[n] / most for n in frontier})
    return [(n, max(round(score[n], 6), 1e-6)) for n in shown.nodes[:limit]]


def _path_weights(reader: GraphReader, paths: Sequence[tuple[str, ...]],
                  sure: Mapping[str, float],
                  ) -> tuple[dict[str, float], dict[str, tuple[int, int]], dict[str, NodeKind]]:
    """Each path function's weight, its first place (path, position), and every node's kind."""
    weight: dict[str, float] = defaultdict(float)
    first: dict[str, tuple[int, int]] = {}
    kinds = dict(reader.kinds({node for path in paths for node in path}))
    for index, path in enumerate(paths):
        # A path counts as much as its matched end tags are sure (their mean score).
        ends = [sure[n] for n in {path[0], path[-1]} if n in sure]
        share = (sum(ends) / len(ends) if ends else 1.0) / len(path)
        for position, node in enumerate(path):
            if kinds[node] != "tag":
                weight[node] += share
                first.setdefault(node, (index, position))
    return weight, first, kinds


def _callee_layer(reader: GraphReader, frontier: list[str], score: Mapping[str, float],
                  dropped: set[str]) -> dict[str, float]:
    """The functions the frontier calls or uses as values, not scored yet, each with the
    best score of a frontier node reaching it."""
    best: dict[str, float] = {}
    callees = reader.neighbours(frontier, "calls", "out")
    used = reader.neighbours(frontier, "references", "out")
    for node in frontier:
        for callee in (*callees[node], *used[node]):
            if callee not in score and callee not in dropped:
                best[callee] = max(best.get(callee, 0.0), score[node])
    return best

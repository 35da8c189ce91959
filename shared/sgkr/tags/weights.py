"""Tag weights: an inverse document frequency of each tag's words among the functions.

:class:`TagFrequency` counts, for each run of words of the tag labels, how many
functions consume or produce a tag holding it; :func:`tag_weights` turns the
counts into weights in [0, 1]. The graph is read, never written: the caller
sets the weights.

Examples
--------
>>> tag_weights(["tag:fee", "tag:row"], {"fee": 1, "row": 9}, 9)
{'tag:fee': 0.699, 'tag:row': 0.0}
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

from ..records import FunctionNode, TagNode
from .protocol import TagGraph

__all__ = ["TagFrequency", "tag_weights"]


class TagFrequency:
    """How many functions each tag's words belong to: the document frequencies of tag weights.

    A function's *bag* is every run of words (``set``, ``cookie``, ``set cookie``)
    of the labels of the tags it consumes or produces. A tag's document
    frequency is the number of functions whose bag holds its label: ``set`` is
    frequent when many functions handle a ``set cookie``, a ``set header``...
    An update recounts only the functions whose tags changed, so that its
    weights equal a fresh build's.

    Examples
    --------
    >>> from sgkr.graph import KnowledgeGraph
    >>> g = KnowledgeGraph()
    >>> for name in ("a", "b", "c"):
    ...     g.add_function(FunctionNode(f"fn:{name}", name, (name,), "", "", (), "function"))
    >>> g.add_tags([TagNode("tag:set cookie", "set cookie"), TagNode("tag:set header",
    ...             "set header"), TagNode("tag:set", "set")])
    >>> g.add_edge_rows([("fn:a", "tag:set cookie", "produces", None),
    ...                  ("fn:b", "tag:set header", "produces", None),
    ...                  ("fn:c", "tag:set", "produces", None)])
    >>> frequency = TagFrequency()
    >>> frequency.update(g, ["fn:a", "fn:b", "fn:c"])
    >>> weights = frequency.weigh(g)
    >>> weights["tag:set"] < weights["tag:set cookie"]
    True
    """

    def __init__(self) -> None:
        # Each function's bag, kept to be taken off when it changes (a tuple: a few times
        # smaller than a frozenset).
        self._bags: dict[str, tuple[str, ...]] = {}
        self._count: Counter[str] = Counter()
        self._runs: dict[str, tuple[str, ...]] = {}  # each tag id's runs of words, made once
        self._changed: set[str] = set()  # runs whose counts changed since the last weigh
        self._weighed = -1  # the number of functions at the last weigh

    def update(self, graph: TagGraph, nodes: Iterable[str]) -> None:
        """Count again the bags of ``nodes`` (function ids; those gone from ``graph`` drop)."""
        succ, pred = graph.adjacency()
        count, bags, runs = self._count, self._bags, self._runs
        for node in nodes:
            old = bags.pop(node, None)
            if old:
                count.subtract(old)
                self._changed.update(old)
            record = graph.get(node)
            if not isinstance(record, FunctionNode):
                continue
            bag: set[str] = set()
            for edges, kind in ((succ[node], "produces"), (pred[node], "consumes")):
                for tag, edge in edges.items():
                    if edge["type"] == kind:
                        found = runs.get(tag)
                        if found is None:
                            found = runs[tag] = _runs(tag)
                        bag.update(found)
            bags[node] = tuple(bag)
            count.update(bag)
            self._changed.update(bag)

    def weigh(self, graph: TagGraph) -> dict[str, float]:
        """The weight of every tag of ``graph`` (see :func:`tag_weights`), by tag id.

        Only the tags whose counts changed since the last call are weighed
        again, unless the number of functions changed (then every weight may).
        """
        functions = len(self._bags)
        if functions != self._weighed:
            tags = [t.id for t in graph.records() if isinstance(t, TagNode)]
        else:  # a tag's label is one of its runs: its count changed if its links did
            tags = [t for t in ("tag:" + key for key in self._changed)
                    if isinstance(graph.get(t), TagNode)]
        self._changed.clear()
        self._weighed = functions
        return tag_weights(tags, self._count, functions)


def tag_weights(tags: Iterable[str], frequency: Mapping[str, int], functions: int
                ) -> dict[str, float]:
    """Each tag's weight: ``log((n + 1) / (d + 1)) / log(n + 1)``, rounded to 3 decimals.

    ``n`` is the number of functions, ``d`` the number whose tags hold the
    tag's words (``frequency`` of its folded label); an inverse document
    frequency scaled to [0, 1]. With fewer than two functions every tag weighs 1.

    Examples
    --------
    >>> tag_weights(["tag:fee", "tag:row"], {"fee": 1, "row": 9}, 9)
    {'tag:fee': 0.699, 'tag:row': 0.0}
    """
    if functions < 2:
        return dict.fromkeys(tags, 1.0)
    top = math.log(functions + 1)
    by_count: dict[int, float] = {}  # a weight depends on the count only: few distinct ones
    weights: dict[str, float] = {}
    for t in tags:
        count = frequency.get(t[4:], 0)
        weight = by_count.get(count)
        if weight is None:
            weight = by_count[count] = round(
                max(0.0, math.log((functions + 1) / (count + 1)) / top), 3)
        weights[t] = weight
    return weights


def _runs(tag: str) -> tuple[str, ...]:
    """Every run of words of a tag's label (the id is ``tag:`` and the folded label)."""
    words = tag[4:].split(" ")
    return tuple(" ".join(words[start:end]) for start in range(len(words))
                 for end in range(start + 1, len(words) + 1))

"""Read-only views of a graph's adjacency, for the algorithms that make tables from it.

:meth:`~sgkr.graph.model.KnowledgeGraph.adjacency` hands out a
:class:`Neighbours` per direction: each node's neighbours with the
attributes of the edge to them (``type`` and, for calls and references,
``resolution``). A view reads the graph as it is (no copy) and cannot
change it: every mapping it gives out is read-only.

Examples
--------
>>> succ = {"a": {"b": {"type": "calls", "resolution": "exact"}}, "b": {}}
>>> view = Neighbours(succ)
>>> dict(view["a"]), "b" in view, len(view)
({'b': {'type': 'calls', 'resolution': 'exact'}}, True, 2)
>>> view["a"]["c"] = {}
Traceback (most recent call last):
...
TypeError: 'mappingproxy' object does not support item assignment
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

__all__ = ["Neighbours", "EdgeData"]

#: An edge's attributes: its ``type`` and, for calls and references, its ``resolution``.
EdgeData = Mapping[str, str]


class Neighbours(Mapping[str, Mapping[str, EdgeData]]):
    """Each node's neighbours in one direction, with their edges' attributes (read only).

    Parameters
    ----------
    adjacency
        Each node's neighbours and the attribute dicts of the edges to them,
        as networkx keeps them (read, never copied nor changed).
    """

    __slots__ = ("_adjacency",)

    def __init__(self, adjacency: Mapping[str, Mapping[str, EdgeData]]) -> None:
        self._adjacency = adjacency

    def __getitem__(self, node: str) -> Mapping[str, EdgeData]:
        return MappingProxyType(self._adjacency[node])

    def __contains__(self, node: object) -> bool:
        return node in self._adjacency

    def __iter__(self) -> Iterator[str]:
        return iter(self._adjacency)

    def __len__(self) -> int:
        return len(self._adjacency)

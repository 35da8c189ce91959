"""What the tag stage reads of the graph being built: its functions, calls and tag edges.

:class:`~sgkr.graph.KnowledgeGraph` has these methods; the tag stage reads through
this protocol and never writes: it hands back tag nodes and edge rows, which the
build's assembler writes.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> isinstance(KnowledgeGraph(), TagGraph)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol, runtime_checkable

from ..records import EdgeRow, FunctionNode, Resolution, TagNode

__all__ = ["TagGraph", "Adjacency", "Calls"]

#: Each caller's resolved calls (callee qualified name -> resolution), by qualified name.
Calls = Mapping[str, Mapping[str, Resolution]]

#: Each node's neighbours in one direction, with the attributes of the edges to them.
Adjacency = Mapping[str, Mapping[str, Mapping[str, str]]]


@runtime_checkable
class TagGraph(Protocol):
    """The reads of a graph the tag stage makes (see :class:`~sgkr.graph.KnowledgeGraph`)."""

    def __contains__(self, node_id: object) -> bool:
        """Whether ``node_id`` is a node."""

    def get(self, node_id: str) -> FunctionNode | TagNode | None:
        """The record of ``node_id``, or None."""

    def records(self) -> Iterator[FunctionNode | TagNode]:
        """Every node's record."""

    def find_many(self, names: Iterable[str]) -> dict[str, list[str]]:
        """The function ids each of ``names`` names (bare, qualified or an id)."""

    def finds(self, name: str, node_id: str) -> bool:
        """Whether ``name`` names the function ``node_id``."""

    def callees(self, node_id: str) -> list[str]:
        """The functions ``node_id`` calls."""

    def edges_of(self, nodes: Iterable[str], direction: str = "out") -> list[EdgeRow]:
        """The edges out of, into (``in``) or at either end of (``both``) ``nodes``."""

    def adjacency(self) -> tuple[Adjacency, Adjacency]:
        """Each node's successors and predecessors with their edges' attributes."""

"""Graph stores: where a retriever reads its graph (see :mod:`sgkr.stores.base`).

:func:`as_store` turns a :class:`~sgkr.graph.KnowledgeGraph` into the
in-memory store.

Examples
--------
>>> from sgkr import KnowledgeGraph
>>> as_store(KnowledgeGraph()).url
'memory:'
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..graph import KnowledgeGraph
from .base import GraphReader, GraphStore, NodeKind, Side, TagInfo
from .memory import MemoryStore

__all__ = ["GraphStore", "GraphReader", "TagInfo", "NodeKind", "Side", "MemoryStore",
           "as_store"]


def as_store(source: KnowledgeGraph | GraphStore) -> GraphStore:
    """``source`` as a store: a graph becomes a :class:`MemoryStore`, a store is kept."""
    if isinstance(source, KnowledgeGraph):
        return MemoryStore(source)
    if isinstance(source, GraphStore):
        return source
    raise InvalidArgumentError(f"expected a KnowledgeGraph or a GraphStore, got {type(source)}")

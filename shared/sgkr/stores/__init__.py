"""Graph stores: where a retriever reads its graph (see :mod:`sgkr.stores.base`).

:func:`as_store` turns a :class:`~sgkr.graph.KnowledgeGraph` into the
in-memory store; :func:`open_store` opens a store by URL
(``falkordb://host:port/name``), importing its client only then.

Examples
--------
>>> open_store("memory:")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: store URL 'memory:': expected falkordb://host:port/name
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..masking import mask_url
from .base import GraphReader, GraphStore, NodeKind, Side, TagInfo
from .memory import MemoryStore

__all__ = ["GraphStore", "GraphReader", "TagInfo", "NodeKind", "Side", "MemoryStore",
           "as_store", "as_reader", "listed_phrases", "open_store", "is_store_url"]

_SCHEMES = ("falkordb://",)


def is_store_url(text: str) -> bool:
    """Whether ``text`` is the URL of a graph store rather than a file path."""
    return isinstance(text, str) and text.startswith(_SCHEMES)


def as_store(source: KnowledgeGraph | GraphStore) -> GraphStore:
    """``source`` as a store: a graph becomes a :class:`MemoryStore`, a store is kept."""
    if isinstance(source, KnowledgeGraph):
        return MemoryStore(source)
    if isinstance(source, GraphStore):
        return source
    raise InvalidArgumentError(f"expected a KnowledgeGraph or a GraphStore, got {type(source)}")


def as_reader(source: KnowledgeGraph | GraphReader) -> GraphReader:
    """``source`` as a reader: a graph is read through a :class:`MemoryStore`, a reader kept."""
    return as_store(source).reader() if isinstance(source, KnowledgeGraph) else source


def listed_phrases(reader: GraphReader) -> dict[str, list[TagInfo]] | None:
    """Every tag phrase of ``reader`` and its tags; ``None`` if the store lists none.

    ``phrases`` is optional in the :class:`GraphReader` protocol: both built-in
    stores have it, a store of one's own may not.
    """
    phrases = getattr(reader, "phrases", None)
    return phrases() if callable(phrases) else None


def open_store(url: str, **options: Any) -> GraphStore:
    """Open the store at ``url`` (``falkordb://host:port/name``); ``options`` go to it.

    Raises
    ------
    InvalidArgumentError
        If the URL names no store SGKR knows, or the store's client is not installed.
    StoreError
        If the store cannot be reached.
    """
    if not is_store_url(url):
        raise InvalidArgumentError(
            f"store URL {mask_url(url)!r}: expected falkordb://host:port/name")
    from .falkor import FalkorDBStore

    return FalkorDBStore(url, **options)

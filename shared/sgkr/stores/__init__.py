"""Graph stores: where a retriever reads its graph (see :mod:`sgkr.stores.base`).

:func:`as_store` turns a :class:`~sgkr.graph.KnowledgeGraph` into the
in-memory store; :func:`open_store` opens a store by URL
(``falkor://host:port/name``, ``falkors://`` over TLS, or ``falkordb://``),
importing its client only then.

Examples
--------
>>> open_store("memory:")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sgkr.errors.InvalidArgumentError: store URL 'memory:': expected falkor://host:port/name \
(falkors:// for TLS, falkordb://)
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..masking import mask_url
from .base import (
    GraphReader,
    GraphStore,
    NamesReader,
    NodeKind,
    PhrasesReader,
    RankingReader,
    Side,
    TagInfo,
    TasksReader,
    VersionedReader,
)
from .memory import MemoryStore

__all__ = ["GraphStore", "GraphReader", "NamesReader", "RankingReader", "TagInfo", "NodeKind",
           "Side", "MemoryStore", "as_store", "as_reader", "listed_phrases", "open_store",
           "is_store_url", "PhrasesReader", "VersionedReader", "version_of", "TasksReader"]

#: What a URL starts with (RFC 3986): a file path never does.
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_EXPECTED = "expected falkor://host:port/name (falkors:// for TLS, falkordb://)"


def is_store_url(text: str) -> bool:
    """Whether ``text`` is a URL (``scheme://...``), so a graph store's, not a file path.

    :func:`open_store` refuses a scheme it does not know, naming the ones it does.

    Examples
    --------
    >>> is_store_url("falkors://db:6379/g"), is_store_url("graph.json")
    (True, False)
    """
    return isinstance(text, str) and _URL.match(text) is not None


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

    Listing them is optional (:class:`PhrasesReader`): both built-in stores do,
    a store of one's own may not.
    """
    return reader.phrases() if isinstance(reader, PhrasesReader) else None


def version_of(reader: GraphReader) -> str:
    """The version of the graph ``reader`` reads (:class:`VersionedReader`), ``""`` if its
    store keeps one version only (a graph in memory).

    Examples
    --------
    >>> from sgkr.graph import KnowledgeGraph
    >>> version_of(as_reader(KnowledgeGraph()))
    ''
    """
    return reader.version if isinstance(reader, VersionedReader) else ""


def open_store(url: str, **options: Any) -> GraphStore:
    """Open the store at ``url`` (``falkor://host:port/name``); ``options`` go to it.

    Raises
    ------
    InvalidArgumentError
        If the URL names no store SGKR knows, or the store's client is not installed.
    StoreError
        If the store cannot be reached.
    """
    if not is_store_url(url):
        raise InvalidArgumentError(f"store URL {mask_url(url)!r}: {_EXPECTED}")
    scheme = url.split("://", 1)[0]
    if scheme not in ("falkor", "falkors", "falkordb"):
        raise InvalidArgumentError(f"store URL scheme {scheme!r}: {_EXPECTED}")
    from .falkor import FalkorDBStore

    return FalkorDBStore(url, **options)

"""LlamaIndex adapter of SGKR: ``SGKRRetriever``, a drop-in for a vector retriever.

It converts SGKR's records into LlamaIndex nodes and holds no retrieval
logic: everything goes through :class:`sgkr.Retriever`.

Examples
--------
>>> from llama_index.core.retrievers import BaseRetriever
>>> from llama_index_sgkr import SGKRRetriever
>>> issubclass(SGKRRetriever, BaseRetriever)
True
"""

from __future__ import annotations

try:  # say which extra to install, not only which module is missing
    import llama_index.core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    from sgkr.extras import missing_extra

    raise ImportError(missing_extra("llama_index_sgkr", "llama-index", exc),
                      name=exc.name) from exc

from .fallback import retriever_fallback
from .filters import to_sgkr_filter
from .nodes import (
    EXCLUDED_EMBED_METADATA_KEYS,
    EXCLUDED_LLM_METADATA_KEYS,
    METADATA_KEYS,
    graph_nodes,
    to_node,
    to_node_with_score,
)
from .persist import GRAPH_FILENAME, OPTIONS_FILENAME
from .property_graph import from_property_graph_store, to_property_graph_store
from .retriever import SGKRRetriever

__all__ = [
    "SGKRRetriever",
    "graph_nodes",
    "to_node",
    "to_node_with_score",
    "retriever_fallback",
    "to_sgkr_filter",
    "to_property_graph_store",
    "from_property_graph_store",
    "METADATA_KEYS",
    "EXCLUDED_EMBED_METADATA_KEYS",
    "EXCLUDED_LLM_METADATA_KEYS",
    "GRAPH_FILENAME",
    "OPTIONS_FILENAME",
]

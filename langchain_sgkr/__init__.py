"""LangChain adapter of SGKR: ``SGKRRetriever``, one ``Document`` per retrieved function.

The adapter only converts: retrieval is :class:`sgkr.Retriever`'s.

Examples
--------
>>> from sgkr import build_graph
>>> from langchain_sgkr import SGKRRetriever, graph_documents
>>> graph = build_graph([("m.py", "def f():\\n    return 1\\n")])
>>> SGKRRetriever(graph=graph, k=3).k, [d.metadata["name"] for d in graph_documents(graph)]
(3, ['f'])
"""

from __future__ import annotations

try:  # say which extra to install, not only which module is missing
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    from sgkr.extras import missing_extra

    raise ImportError(missing_extra("langchain_sgkr", "langchain", exc), name=exc.name) from exc

from .documents import (
    DOCUMENT_PROMPT,
    PER_QUESTION_KEYS,
    SGKRDocument,
    graph_documents,
    to_document,
    to_documents,
)
from .fallback import retriever_fallback
from .retriever import SGKRRetriever

__all__ = [
    "SGKRRetriever",
    "SGKRDocument",
    "PER_QUESTION_KEYS",
    "DOCUMENT_PROMPT",
    "graph_documents",
    "retriever_fallback",
    "to_document",
    "to_documents",
]

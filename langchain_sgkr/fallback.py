"""Another LangChain retriever as SGKR's fallback for questions with no known tag.

:class:`sgkr.Retriever` calls its fallback as ``fallback(question, k)`` and
expects function node ids. :func:`retriever_fallback` adapts any LangChain
retriever whose documents carry the graph's ids, such as a BM25 retriever over
:func:`langchain_sgkr.graph_documents`.

Examples
--------
>>> from langchain_core.documents import Document
>>> from langchain_core.retrievers import BaseRetriever
>>> class Fixed(BaseRetriever):
...     def _get_relevant_documents(self, query, *, run_manager):
...         return [Document(id=i, page_content=i) for i in ("fn:a", "fn:b")]
>>> retriever_fallback(Fixed())("any question", 1)
['fn:a']
"""

from __future__ import annotations

from langchain_core.retrievers import BaseRetriever

from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.retriever import Fallback

__all__ = ["retriever_fallback"]


def retriever_fallback(retriever: BaseRetriever) -> Fallback:
    """A fallback for :class:`sgkr.Retriever` that asks a LangChain retriever for node ids.

    The LangChain retriever keeps its own number of results; the ids of its first
    ``k`` documents are used (``Document.id``, else ``metadata["id"]``), and
    SGKR drops ids that are not in its graph.

    Parameters
    ----------
    retriever
        Any LangChain ``BaseRetriever``.

    Returns
    -------
    Fallback
        ``fallback(question, k) -> list of node ids``, for
        ``SGKRRetriever(fallback=...)`` or ``sgkr.Retriever(fallback=...)``.

    Raises
    ------
    InvalidArgumentError
        If ``retriever`` is not a LangChain ``BaseRetriever``.

    Examples
    --------
    >>> retriever_fallback("bm25")
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: retriever must be a LangChain BaseRetriever, got str
    """
    if not isinstance(retriever, BaseRetriever):
        raise InvalidArgumentError(
            f"retriever must be a LangChain BaseRetriever, got {type(retriever).__name__}")

    def fallback(question: str, k: int) -> list[str]:
        ids = (doc.id or doc.metadata.get("id") for doc in retriever.invoke(question))
        return [str(i) for i in ids if i][:k]

    return fallback

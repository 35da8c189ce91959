"""Another LlamaIndex retriever as SGKR's fallback for questions with no known tag.

:class:`sgkr.Retriever` calls its fallback as ``fallback(question, k)`` and
expects function node ids. :func:`retriever_fallback` adapts any LlamaIndex
retriever whose nodes carry the graph's ids, such as a ``BM25Retriever``
over :func:`llama_index_sgkr.graph_nodes`.

Examples
--------
>>> from llama_index.core.retrievers import BaseRetriever
>>> from llama_index.core.schema import NodeWithScore, TextNode
>>> class Fixed(BaseRetriever):
...     def _retrieve(self, query_bundle):
...         return [NodeWithScore(node=TextNode(id_=i, text=i)) for i in ("fn:a", "fn:b")]
>>> retriever_fallback(Fixed())("any question", 1)
['fn:a']
"""

from __future__ import annotations

from llama_index.core.retrievers import BaseRetriever

from sgkr.errors import InvalidArgumentError
from sgkr.retrieval.retriever import Fallback

__all__ = ["retriever_fallback"]


def retriever_fallback(retriever: BaseRetriever) -> Fallback:
    """A fallback for :class:`sgkr.Retriever` that asks ``retriever`` for node ids.

    The LlamaIndex retriever keeps its own top-k; its first ``k`` node ids are
    used, and ids that are not in the graph are dropped by SGKR.

    Parameters
    ----------
    retriever
        Any LlamaIndex retriever.

    Returns
    -------
    Fallback
        ``fallback(question, k) -> list of node ids``.

    Raises
    ------
    InvalidArgumentError
        If ``retriever`` is not a LlamaIndex ``BaseRetriever``.

    Examples
    --------
    >>> retriever_fallback("bm25")
    Traceback (most recent call last):
    ...
    sgkr.errors.InvalidArgumentError: retriever must be a LlamaIndex BaseRetriever, got str
    """
    if not isinstance(retriever, BaseRetriever):
        raise InvalidArgumentError(
            f"retriever must be a LlamaIndex BaseRetriever, got {type(retriever).__name__}")

    def fallback(question: str, k: int) -> list[str]:
        return [hit.node.node_id for hit in retriever.retrieve(question)][:k]

    return fallback

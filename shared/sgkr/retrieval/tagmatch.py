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

import re
from collections.abc import Callable, Sequence

from ..algorithms.summary import PhraseWords
from ..graph.model import KnowledgeGraph
from ..records import TagMatch
from ..stores import GraphReader, PhrasesReader, TagInfo, as_reader
from ..text import fold
from .tags import FUNCTION_WORDS, VocabularyMatcher

__all__ = ["WeightedMatcher", "word_forms", "LEMMA_SCORE", "MIN_COVER", "PARTIAL_SCORE",
           "names_tag"]

#: Score of a tag named by another form of a question's word.
LEMMA_SCORE = 0.9
#: Partial matches covering less of their phrase are dropped.
MIN_COVER = 0.5
#: Most a partial match scores (times its cover): below :data:`LEMMA_SCORE`, so it can be
#: told from a tag the question names.
PARTIAL_SCORE = 0.8
_MAX_PARTIAL = 4
_TOKEN = re.compile(r"[A-Za-z0-9]+")
# English grammar words: a part of a phrase they are in is not what a question is about
# ("for" in "fee for refund").
_GRAMMAR = FUNCTION_WORDS | frozenset(
    {"for", "of", "in", "on", "to", "with", "by", "at", "from", "per", "as", "into", "onto",
     "over", "under", "about", "between", "than", "then", "that", "this", "these", "those",
     "be", "been", "being", "do", "does", "did", "done", "it", "its", "if", "there", "their",
     "they", "them", "we", "you", "your", "our", "my", "i", "me", "he", "she", "his", "her",
     "not", "no", "can", "could", "should", "would", "will", "shall", "may", "might", "must",
     "have", "has", "had", "when", "where", "while", "so", "such", "each", "every", "all",
     "any", "some", "same", "other", "one", "only", "also", "even", "up", "out", "off"})


def word_forms(word: str) -> list[str]:
    """Other forms a folded word may have in a vocabulary: its stem without -ing, -ed, -er.

    Examples
    --------
    >>> word_forms("charged"), word_forms("setting"), word_forms("fee")
    (['charg', 'charge'], ['sett', 'set', 'sette'], [])
    """
    forms: list[str] = []
    for suffix in ("ing", "ed", "er"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            forms.append(stem)
            if len(stem) >= 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # setting -> set
            forms.append(stem + "e")  # charged -> charge
    return [f for f in dict.fromkeys(forms) if f != word]


def names_tag(match: TagMatch) -> bool:
    """Whether the question names the tag (a phrase or another form of a word), not part of it.

    Examples
    --------
    >>> names_tag(TagMatch("tag:fee", "fee", "fees", 0, 4, "output")), names_tag(
    ...     TagMatch("tag:card scheme", "card scheme", "scheme", 0, 6, "input", 0.4))
    (True, False)
    """
    return match.score >= LEMMA_SCORE


def _covered(matches: Sequence[TagMatch]) -> Callable[[int], bool]:
    """Whether a place of the question is inside a match, asked of increasing places.

    One sweep over the matches' spans, sorted and merged, for all the question's words
    (a look through every match for every word was quadratic).
    """
    spans: list[list[int]] = []
    for start, end in sorted((m.start, m.end) for m in matches):
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    at = 0

    def covered(place: int) -> bool:
        nonlocal at
        while at < len(spans) and spans[at][1] <= place:
            at += 1
        return at < len(spans) and spans[at][0] <= place

    return covered


class WeightedMatcher:
    """The default tag extractor: exact phrases, other forms of words, partial phrases.

    Parameters
    ----------
    source
        The graph whose tag nodes make the vocabulary, or a reader of a graph store.
    """

    def __init__(self, source: KnowledgeGraph | GraphReader) -> None:
        self._reader: GraphReader = as_reader(source)
        self._exact = VocabularyMatcher(self._reader)
        self._vocabulary: PhraseWords | None = None

    def _words(self) -> PhraseWords | None:
        if self._vocabulary is None and isinstance(self._reader, PhrasesReader):
            self._vocabulary = self._reader.phrase_words()
        return self._vocabulary

    def prepare(self) -> None:
        """Read the vocabulary of partial matches now rather than on first need."""
        self._words()

    def __call__(self, question: str) -> list[TagMatch]:
        """The tags of ``question``, each with its score, exact matches first."""
        matches = self._exact(question)
        covered = _covered(matches)
        free: list[tuple[str, int, int]] = []
        for m in _TOKEN.finditer(question):
            if covered(m.start()):
                continue
            free.extend((w, m.start(), m.end()) for w in fold(m.group())
                        if w not in FUNCTION_WORDS)
        if not free:
            return matches
        seen = {m.tag_id for m in matches}
        forms = {w: word_forms(w) for w, _, _ in free}
        named = self._reader.phrase_tags({f for fs in forms.values() for f in fs})
        left: list[tuple[str, int, int]] = []
        for word, start, end in free:
            found = next((named[f] for f in forms[word] if f in named), None)
            if found is None:
                left.append((word, start, end))
                continue
            for tag in found:
                if tag.id not in seen:
                    seen.add(tag.id)
                    matches.append(TagMatch(tag.id, tag.label, question[start:end], start,
                                            end, tag.role, LEMMA_SCORE))
        matches += self._partial(question, left, seen)
        return sorted(matches, key=lambda m: (m.start, -m.score, m.tag_id))

    def _partial(self, question: str, left: list[tuple[str, int, int]],
                 seen: set[str]) -> list[TagMatch]:
        vocabulary = self._words() if left else None
        if vocabulary is None:
            return []
        place: dict[str, tuple[int, int]] = {}
        for word, start, end in left:
            if word in _GRAMMAR:
                continue
            for form in (word, *word_forms(word)):
                place.setdefault(form, (start, end))
        covers: list[tuple[str, float, tuple[int, int]]] = []
        for phrase in {p for w in place for p in vocabulary.phrases_of.get(w, ())}:
            words = set(phrase.split())
            if len(words) < 2:
                continue
            hit = words & place.keys()
            cover = (sum(vocabulary.idf(w) for w in hit)
                     / sum(vocabulary.idf(w) for w in words))
            if cover >= MIN_COVER:
                spans = sorted(place[w] for w in hit)
                covers.append((phrase, PARTIAL_SCORE * cover, (spans[0][0], spans[-1][1])))
        named = self._reader.phrase_tags([phrase for phrase, _, _ in covers])
        best: dict[str, tuple[float, str, tuple[int, int], TagInfo]] = {}
        for phrase, score, span in covers:
            for tag in named.get(phrase, ()):
                if tag.id in seen:
                    continue
                current = best.get(tag.id)
                if current is None or (score, -len(phrase)) > (current[0], -len(current[1])):
                    best[tag.id] = (score, phrase, span, tag)
        chosen = sorted(best.values(), key=lambda b: (-b[0], len(b[1]), b[3].id))[:_MAX_PARTIAL]
        return [TagMatch(tag.id, tag.label, question[start:end], start, end, tag.role,
                         round(score, 6))
                for score, _, (start, end), tag in chosen]

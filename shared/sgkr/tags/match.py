"""Question → tags: the one extractor a new question and an earlier one go through.

:class:`PhraseMatcher` is the paper's keyword matching: the tags whose folded label or
alias is a phrase of the question, longest first, never overlapping. :class:`ScoredMatcher`
(the retriever's default) adds, each match scored in (0, 1],

- the tags named by another form of a word the phrases left: ``charged``,
  ``charging`` → ``charge``; ``setting`` → ``set`` (score 0.9); a form counts
  only where the vocabulary has it, so no word list is needed;
- the tags with several words of which the question has some, not side by side
  (``"the scheme of the card"`` → ``card scheme``) or not all (``"which
  scheme"`` → ``card scheme``): their cover is the share of the phrase's words
  the question has, each word weighed by how rare it is among the vocabulary's
  phrases; under 0.5 they are dropped, at most four are kept, and each scores 0.8
  times its cover.

A tag the question names (score 0.9 or more, :func:`names_tag`) anchors the
dependency paths; one it names in part only seeds the retriever's walk.
:func:`split_roles` says which matched tags the question gives and which it asks for.
Both matchers read a :class:`PhraseSource`: a graph store's reader
(:mod:`sgkr.retrieval.tags` wraps a graph or store) or, at build time, the
:class:`~sgkr.tags.vocabulary.Vocabulary` of the tags being made.

Examples
--------
>>> from sgkr.records import TagNode
>>> from sgkr.tags.vocabulary import Vocabulary
>>> v = Vocabulary([TagNode("tag:card scheme", "card scheme"), TagNode("tag:charge",
...                 "charge")], {"tag:charge": "output"})
>>> [(m.label, m.score) for m in ScoredMatcher(v)("Which scheme charged the most?")]
[('card scheme', 0.4), ('charge', 0.9)]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Sequence
from typing import Protocol, runtime_checkable

from ..records import TagMatch
from ..text import fold
from .vocabulary import PhraseWords, TagInfo

__all__ = ["PhraseSource", "WordsSource", "PhraseMatcher", "ScoredMatcher", "split_roles",
           "word_forms", "names_tag", "FUNCTION_WORDS", "MAX_PHRASE_WORDS", "LEMMA_SCORE",
           "MIN_COVER", "PARTIAL_SCORE"]


@runtime_checkable
class PhraseSource(Protocol):
    """A tag vocabulary a matcher reads: the tags of folded phrases, and its longest phrase."""

    def longest_phrase(self) -> int:
        """Most words in a folded tag label or alias (0 without tags)."""

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags named by each phrase (folded words joined by spaces), sorted by id."""


@runtime_checkable
class WordsSource(PhraseSource, Protocol):
    """A vocabulary that also lists its phrases and their words (for partial matches)."""

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every folded phrase, with the tags it names."""

    def phrase_words(self) -> PhraseWords:
        """Each word of the phrases, with the phrases holding it."""


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:\.[0-9]+)?(?:['\u2019]s\b)?")
_ASKING = frozenset({"which", "what", "who", "whom", "how", "list", "name"})
_CUE_WINDOW = 4
#: Labels and aliases of more words are not matched whole (the weighted matcher still
#: matches them in part): each word of a question is tried as the start of a phrase
#: of up to this many words, so a 300-word alias made every question cost its length
#: times 300 squared.
MAX_PHRASE_WORDS = 12
#: Words of the wording of questions, never matched as a tag by themselves.
FUNCTION_WORDS = frozenset({"a", "an", "the", "and", "or", "what", "which", "who", "whom",
                             "whose", "how", "why", "is", "are", "was", "were", "given"})


class PhraseMatcher:
    """The paper's keyword matching: folded longest-phrase matching of labels and aliases.

    Parameters
    ----------
    source
        The vocabulary: each question asks it once for the tags named by the
        question's phrases (a graph store's reader, or a :class:`~sgkr.tags.vocabulary.
        Vocabulary`).
    """

    def __init__(self, source: PhraseSource) -> None:
        self._reader = source

    def lookup(self, phrase: str) -> list[str]:
        """Tag ids whose label or an alias folds to the same words as ``phrase``."""
        key = " ".join(fold(phrase))
        return [t.id for t in self._reader.phrase_tags([key]).get(key, [])]

    def __call__(self, question: str) -> list[TagMatch]:
        """Find the tags of ``question``, longest phrases first, without overlaps."""
        tokens: list[tuple[str, int, int]] = []
        for m in _TOKEN.finditer(question):
            tokens.extend((w, m.start(), m.end()) for w in fold(m.group()))
        longest = min(self._reader.longest_phrase(), MAX_PHRASE_WORDS) if tokens else 0
        words = [t[0] for t in tokens]
        spans = {(i, size): " ".join(words[i : i + size]) for i in range(len(tokens))
                 for size in range(min(longest, len(tokens) - i), 0, -1)}
        found = self._reader.phrase_tags(set(spans.values())) if spans else {}
        candidates: list[tuple[int, int]] = []
        for (i, size), phrase in spans.items():
            if phrase in found and (size > 1 or words[i] not in FUNCTION_WORDS):
                candidates.append((i, size))
        candidates.sort(key=lambda c: (-c[1], c[0]))
        taken: set[int] = set()
        chosen: list[tuple[int, int]] = []
        for i, size in candidates:
            span = set(range(i, i + size))
            if not span & taken:
                taken |= span
                chosen.append((i, size))
        # A tag named twice is one match, at its first place: a phrase's tags are read at
        # its first place only (a phrase that thousands of tags share, said a thousand
        # times, is not a million matches first).
        seen: set[str] = set()
        said: set[str] = set()
        unique: list[TagMatch] = []
        for i, size in sorted(chosen):
            phrase = spans[i, size]
            if phrase in said:
                continue
            said.add(phrase)
            start, end = tokens[i][1], tokens[i + size - 1][2]
            for tag in sorted(found[phrase], key=lambda t: t.id):
                if tag.id not in seen:
                    seen.add(tag.id)
                    unique.append(TagMatch(tag.id, tag.label, question[start:end],
                                           start, end, tag.role))
        return unique


#: Score of a tag named by another form of a question's word.
LEMMA_SCORE = 0.9
#: Partial matches covering less of their phrase are dropped.
MIN_COVER = 0.5
#: Most a partial match scores (times its cover): below :data:`LEMMA_SCORE`, so it can be
#: told from a tag the question names.
PARTIAL_SCORE = 0.8
_MAX_PARTIAL = 4
_WORD = re.compile(r"[A-Za-z0-9]+")
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


class ScoredMatcher:
    """Exact phrases, other forms of words, partial phrases: each match scored.

    Parameters
    ----------
    source
        The vocabulary; partial phrases need its words (:class:`WordsSource`).
    """

    def __init__(self, source: PhraseSource) -> None:
        self._reader = source
        self._exact = PhraseMatcher(source)
        self._vocabulary: PhraseWords | None = None

    def _words(self) -> PhraseWords | None:
        if self._vocabulary is None and isinstance(self._reader, WordsSource):
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
        for m in _WORD.finditer(question):
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


def split_roles(question: str, matches: Sequence[TagMatch]) -> tuple[list[str], list[str]]:
    """Input and output tag ids of a question.

    A tag that the graph only consumes is an input, one it only produces an
    output. A tag of role ``both`` is what the question asks for when a
    question word (which, what, how, ...) stands just before it, or when no
    output-only tag matched; otherwise it is given.

    Examples
    --------
    >>> m = [TagMatch("tag:card scheme", "card scheme", "card scheme", 6, 17, "both"),
    ...      TagMatch("tag:fee", "fee", "fee", 40, 43, "output")]
    >>> split_roles("Which card scheme has the lowest average fee?", m)
    ([], ['tag:card scheme', 'tag:fee'])
    """
    pure_output = any(m.role == "output" for m in matches)
    inputs: list[str] = []
    outputs: list[str] = []
    words: list[str] | None = None
    ends: list[int] = []
    for m in matches:
        if m.role == "input":
            inputs.append(m.tag_id)
        elif m.role == "output":
            outputs.append(m.tag_id)
        else:
            if words is None:  # the question's words, read once for every match
                found = list(_TOKEN.finditer(question))
                words, ends = [w.group().lower() for w in found], [w.end() for w in found]
            before = bisect.bisect_right(ends, m.start)  # the words ending before the match
            if m.start >= 0 and _ASKING.intersection(words[max(0, before - _CUE_WINDOW):before]):
                outputs.append(m.tag_id)
                continue
            inputs.append(m.tag_id)
            if not pure_output:
                outputs.append(m.tag_id)
    return list(dict.fromkeys(inputs)), list(dict.fromkeys(outputs))

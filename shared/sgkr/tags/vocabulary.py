"""The tag vocabulary a question is matched against: phrases, their tags, their words.

A store's reader answers these look-ups for a graph (:mod:`sgkr.stores`); a build
that matches earlier questions against the tags it is making uses :class:`Vocabulary`,
the same answers from tag records and their roles. :class:`TagInfo` is a tag as a
matcher sees it; :class:`PhraseWords` each word of the phrases, for partial matches.

Examples
--------
>>> v = Vocabulary([TagNode("tag:card scheme", "card scheme", ("scheme",))],
...                {"tag:card scheme": "input"})
>>> v.longest_phrase(), [t.id for t in v.phrase_tags(["scheme"])["scheme"]]
(2, ['tag:card scheme'])
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from ..records import Role, TagNode
from ..text import fold

__all__ = ["TagInfo", "PhraseWords", "Vocabulary"]


@dataclass(frozen=True)
class TagInfo:
    """A tag node as retrieval sees it: its id, its label, its role in the graph, and its
    weight (how specific it is, from 0 to 1: :attr:`sgkr.records.TagNode.weight`)."""

    id: str
    label: str
    role: Role
    weight: float = 1.0


@dataclass(frozen=True)
class PhraseWords:
    """Each word of a vocabulary's phrases, with the phrases holding it.

    A matcher that compares a question with every tag phrase reads the phrases
    of the question's words, and weighs a word by how rare it is among them.

    Examples
    --------
    >>> words = PhraseWords.of(["card scheme", "scheme", "fee"])
    >>> words.phrases_of["scheme"], round(words.idf("fee"), 3)
    (('card scheme', 'scheme'), 1.386)
    """

    count: int
    phrases_of: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, phrases: Iterable[str]) -> PhraseWords:
        """The words of ``phrases`` (distinct folded phrases, words split by spaces)."""
        found: dict[str, list[str]] = {}
        count = 0
        for phrase in phrases:
            count += 1
            for word in dict.fromkeys(phrase.split()):
                found.setdefault(word, []).append(phrase)
        return cls(count, {w: tuple(ps) for w, ps in found.items()})

    def idf(self, word: str) -> float:
        """``log(1 + phrases / phrases holding word)``: how rare ``word`` is among them."""
        return math.log(1 + self.count / len(self.phrases_of[word]))


class Vocabulary:
    """The phrases of tag records (labels and aliases, folded), each with its tags.

    Parameters
    ----------
    tags
        The tag records (a tag met twice keeps its first record).
    roles
        Each tag's role (``input``, ``output`` or ``both``; default ``input``).
    """

    def __init__(self, tags: Iterable[TagNode], roles: Mapping[str, Role]) -> None:
        found: dict[str, dict[str, TagInfo]] = {}
        for tag in tags:
            info = TagInfo(tag.id, tag.label, roles.get(tag.id, "input"), tag.weight)
            for phrase in (tag.label, *tag.aliases):
                key = " ".join(fold(phrase))
                if key:
                    found.setdefault(key, {}).setdefault(tag.id, info)
        self._phrases = {key: sorted(infos.values(), key=lambda t: t.id)
                         for key, infos in found.items()}
        self._longest = max((len(key.split()) for key in self._phrases), default=0)
        self._words: PhraseWords | None = None

    def longest_phrase(self) -> int:
        """Most words in a phrase (0 without tags)."""
        return self._longest

    def phrase_tags(self, phrases: Collection[str]) -> dict[str, list[TagInfo]]:
        """The tags named by each of ``phrases`` (folded words joined by spaces)."""
        return {p: list(self._phrases[p]) for p in phrases if p in self._phrases}

    def phrases(self) -> dict[str, list[TagInfo]]:
        """Every phrase, with the tags it names."""
        return {key: list(tags) for key, tags in self._phrases.items()}

    def phrase_words(self) -> PhraseWords:
        """Each word of the phrases, with the phrases holding it."""
        if self._words is None:
            self._words = PhraseWords.of(self._phrases)
        return self._words

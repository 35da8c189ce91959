"""Matching a question against the graph's tag vocabulary.

Labels and aliases are folded (case, plurals, snake_case, camelCase,
hyphens, punctuation, see :mod:`sgkr.text`); the longest phrase wins and
matches never overlap. A question's function words (``what``, ``and``,
``the``, ``given``, ...) are not matched on their own, even where a tag is
named so (``and_`` or a parameter ``what`` in a large code base): they are
how every question is worded, not what it is about. Each match carries its
role in the graph: ``input`` where the tag feeds functions, ``output`` where
functions produce it, ``both`` where both.

The default extractor is :class:`VocabularyMatcher`; any callable taking the
question and returning tag labels (an LLM, an embedding matcher) can stand
in for it, like LlamaIndex's ``entity_extract_fn``.

Examples
--------
>>> from sgkr.graph import KnowledgeGraph
>>> from sgkr.records import TagNode
>>> g = KnowledgeGraph()
>>> g.add_tag(TagNode("tag:card scheme", "card scheme", ("scheme",)))
>>> g.add_tag(TagNode("tag:fee", "fee"))
>>> [(m.label, m.text) for m in VocabularyMatcher(g)("Which card_schemes have the lowest Fees?")]
[('card scheme', 'card_schemes'), ('fee', 'Fees')]
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence

from ..algorithms.summary import tag_role
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import TagMatch
from ..stores import GraphReader, as_reader
from ..text import fold

__all__ = ["VocabularyMatcher", "TagExtractor", "tag_role", "resolve_labels", "split_roles",
           "FUNCTION_WORDS", "MAX_PHRASE_WORDS"]

#: A swappable tag extractor: the question in, tag matches or tag labels out.
TagExtractor = Callable[[str], Iterable["TagMatch | str"]]
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


class VocabularyMatcher:
    """The default tag extractor: folded longest-phrase matching of labels and aliases.

    Parameters
    ----------
    source
        The graph whose tag nodes make the vocabulary, or a reader of a graph
        store (:class:`~sgkr.stores.base.GraphReader`): each question asks it
        once for the tags named by the question's phrases.
    """

    def __init__(self, source: KnowledgeGraph | GraphReader) -> None:
        self._reader: GraphReader = as_reader(source)

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


def resolve_labels(
    matcher: VocabularyMatcher, source: KnowledgeGraph | GraphReader, question: str,
    found: Iterable[TagMatch | str],
) -> list[TagMatch]:
    """Turn what a custom extractor returned (matches, labels, aliases or ids) into matches.

    ``source`` is the graph (or a store's reader) that ``matcher`` matches against.

    Raises
    ------
    InvalidArgumentError
        If the extractor returned something that is neither a TagMatch nor a string.
    """
    reader = as_reader(source)
    items = list(found)
    for item in items:
        if not isinstance(item, (TagMatch, str)):
            raise InvalidArgumentError(
                f"tag extractor returned {item!r}; expected TagMatch or a tag label"
            )
    known = reader.kinds({i.tag_id if isinstance(i, TagMatch) else i for i in items})
    seen: set[str] = set()
    chosen: list[tuple[TagMatch | str, str]] = []  # in the extractor's order
    for item in items:
        if isinstance(item, TagMatch):
            ids = [item.tag_id] if item.tag_id in known else []
        else:
            ids = [item] if item.startswith("tag:") and item in known else matcher.lookup(item)
        for node_id in ids:
            if node_id not in seen:
                seen.add(node_id)
                chosen.append((item, node_id))
    tags = reader.tags({node_id for item, node_id in chosen if isinstance(item, str)})
    matches: list[TagMatch] = []
    for item, node_id in chosen:
        if isinstance(item, TagMatch):
            matches.append(item)
            continue
        at = question.lower().find(item.lower())
        start, end = (at, at + len(item)) if at >= 0 else (-1, -1)
        tag = tags[node_id]
        matches.append(TagMatch(node_id, tag.label, item, start, end, tag.role))
    return matches


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

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

import re
from collections.abc import Callable, Iterable, Sequence

from .errors import InvalidArgumentError
from .graph import KnowledgeGraph
from .records import Role, TagMatch
from .text import fold

__all__ = ["VocabularyMatcher", "TagExtractor", "tag_role", "resolve_labels", "split_roles"]

#: A swappable tag extractor: the question in, tag matches or tag labels out.
TagExtractor = Callable[[str], Iterable["TagMatch | str"]]
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:\.[0-9]+)?(?:['\u2019]s\b)?")
_ASKING = frozenset({"which", "what", "who", "whom", "how", "list", "name"})
_CUE_WINDOW = 4
# Words of the wording of questions, never matched as a tag by themselves.
_FUNCTION_WORDS = frozenset({"a", "an", "the", "and", "or", "what", "which", "who", "whom",
                             "whose", "how", "why", "is", "are", "was", "were", "given"})


def tag_role(graph: KnowledgeGraph, node_id: str) -> Role:
    """``input``, ``output`` or ``both``, from the tag's edges in ``graph``."""
    consumed = bool(graph.consumers(node_id))
    produced = bool(graph.producers(node_id))
    if consumed and produced:
        return "both"
    return "output" if produced else "input"


class VocabularyMatcher:
    """The default tag extractor: folded longest-phrase matching of labels and aliases.

    Parameters
    ----------
    graph
        The graph whose tag nodes make the vocabulary (read once, here).
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        self._phrases: dict[tuple[str, ...], list[str]] = {}
        self._labels: dict[str, str] = {}
        self._roles: dict[str, Role] = {}
        for tag in graph.tags():
            self._labels[tag.id] = tag.label
            self._roles[tag.id] = tag_role(graph, tag.id)
            for phrase in (tag.label, *tag.aliases):
                folded = fold(phrase)
                if folded and tag.id not in self._phrases.setdefault(folded, []):
                    self._phrases[folded].append(tag.id)
        self._longest = max((len(p) for p in self._phrases), default=0)

    def lookup(self, phrase: str) -> list[str]:
        """Tag ids whose label or an alias folds to the same words as ``phrase``."""
        return list(self._phrases.get(fold(phrase), []))

    def __call__(self, question: str) -> list[TagMatch]:
        """Find the tags of ``question``, longest phrases first, without overlaps."""
        tokens: list[tuple[str, int, int]] = []
        for m in _TOKEN.finditer(question):
            tokens.extend((w, m.start(), m.end()) for w in fold(m.group()))
        candidates: list[tuple[int, int]] = []
        for i in range(len(tokens)):
            for size in range(min(self._longest, len(tokens) - i), 0, -1):
                if tuple(t[0] for t in tokens[i : i + size]) in self._phrases and (
                        size > 1 or tokens[i][0] not in _FUNCTION_WORDS):
                    candidates.append((i, size))
        candidates.sort(key=lambda c: (-c[1], c[0]))
        taken: set[int] = set()
        matches: list[TagMatch] = []
        for i, size in candidates:
            span = set(range(i, i + size))
            if span & taken:
                continue
            taken |= span
            start, end = tokens[i][1], tokens[i + size - 1][2]
            phrase = tuple(t[0] for t in tokens[i : i + size])
            for node_id in self._phrases[phrase]:
                matches.append(TagMatch(node_id, self._labels[node_id], question[start:end],
                                        start, end, self._roles[node_id]))
        matches.sort(key=lambda m: (m.start, m.tag_id))
        seen: set[str] = set()
        unique: list[TagMatch] = []
        for match in matches:  # a tag named twice is one match, at its first place
            if match.tag_id not in seen:
                seen.add(match.tag_id)
                unique.append(match)
        return unique


def resolve_labels(
    matcher: VocabularyMatcher, graph: KnowledgeGraph, question: str,
    found: Iterable[TagMatch | str],
) -> list[TagMatch]:
    """Turn what a custom extractor returned (matches, labels, aliases or ids) into matches.

    Raises
    ------
    InvalidArgumentError
        If the extractor returned something that is neither a TagMatch nor a string.
    """
    matches: list[TagMatch] = []
    seen: set[str] = set()
    for item in found:
        if isinstance(item, TagMatch):
            if item.tag_id in graph and item.tag_id not in seen:
                seen.add(item.tag_id)
                matches.append(item)
            continue
        if not isinstance(item, str):
            raise InvalidArgumentError(
                f"tag extractor returned {item!r}; expected TagMatch or a tag label"
            )
        ids = [item] if item.startswith("tag:") and item in graph else matcher.lookup(item)
        for node_id in ids:
            if node_id in seen:
                continue
            seen.add(node_id)
            at = question.lower().find(item.lower())
            start, end = (at, at + len(item)) if at >= 0 else (-1, -1)
            matches.append(TagMatch(node_id, graph.tag(node_id).label, item, start, end,
                                    tag_role(graph, node_id)))
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
    for m in matches:
        if m.role == "input":
            inputs.append(m.tag_id)
        elif m.role == "output":
            outputs.append(m.tag_id)
        else:
            before = [w.lower() for w in _TOKEN.findall(question[: max(m.start, 0)])]
            if m.start >= 0 and _ASKING.intersection(before[-_CUE_WINDOW:]):
                outputs.append(m.tag_id)
                continue
            inputs.append(m.tag_id)
            if not pure_output:
                outputs.append(m.tag_id)
    return list(dict.fromkeys(inputs)), list(dict.fromkeys(outputs))

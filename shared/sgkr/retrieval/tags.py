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

from collections.abc import Callable, Iterable

from ..algorithms.summary import tag_role
from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import TagMatch
from ..stores import GraphReader, as_reader
from ..tags.match import FUNCTION_WORDS, MAX_PHRASE_WORDS, PhraseMatcher, split_roles

__all__ = ["VocabularyMatcher", "TagExtractor", "tag_role", "resolve_labels", "split_roles",
           "FUNCTION_WORDS", "MAX_PHRASE_WORDS"]

#: A swappable tag extractor: the question in, tag matches or tag labels out.
TagExtractor = Callable[[str], Iterable["TagMatch | str"]]


class VocabularyMatcher(PhraseMatcher):
    """The paper's keyword matching (:class:`~sgkr.tags.match.PhraseMatcher`) over a graph.

    Parameters
    ----------
    source
        The graph whose tag nodes make the vocabulary, or a reader of a graph
        store (:class:`~sgkr.stores.base.GraphReader`): each question asks it
        once for the tags named by the question's phrases.
    """

    def __init__(self, source: KnowledgeGraph | GraphReader) -> None:
        super().__init__(as_reader(source))


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

"""Tag labels and ids: a label's folded words make its id.

Examples
--------
>>> tag_id("Fee IDs"), tag_phrase("card_schemes")
('tag:fee id', 'card scheme')
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from ..errors import InvalidArgumentError
from ..records import TagNode
from ..text import fold, name_phrase

__all__ = ["tag_id", "merge_tag", "merged_tags", "tag_phrase", "name_tag_phrase", "label_ok",
           "tag_labels"]


def tag_id(label: str) -> str:
    """The node id of a tag: ``tag:`` and its folded words.

    Raises
    ------
    InvalidArgumentError
        If ``label`` has no words.

    Examples
    --------
    >>> tag_id("Fee IDs")
    'tag:fee id'
    """
    folded = fold(label)
    if not folded:
        raise InvalidArgumentError(f"tag label {label!r} has no words")
    return "tag:" + " ".join(folded)


def merge_tag(old: TagNode, new: TagNode) -> TagNode:
    """A tag met again: it keeps its label and weight and takes the new aliases.

    Examples
    --------
    >>> merge_tag(TagNode("tag:fee", "fee", ("charge",)), TagNode("tag:fee", "Fees", ("fee",
    ...           "cost"))).aliases
    ('charge', 'cost')
    """
    aliases = tuple(dict.fromkeys((*old.aliases, *new.aliases)))
    return TagNode(old.id, old.label, tuple(a for a in aliases if a != old.label), old.weight)


def merged_tags(tags: Iterable[TagNode]) -> list[TagNode]:
    """One record per tag id, merged as a graph merges them (:func:`merge_tag`), in order.

    Examples
    --------
    >>> [t.aliases for t in merged_tags([TagNode("tag:fee", "fee"),
    ...                                  TagNode("tag:fee", "fee", ("cost",))])]
    [('cost',)]
    """
    found: dict[str, TagNode] = {}
    for tag in tags:
        old = found.get(tag.id)
        found[tag.id] = tag if old is None else merge_tag(old, tag)
    return list(found.values())


@functools.lru_cache(maxsize=65_536)
def tag_phrase(name: str) -> str:
    """The folded words of a name, as one label (``card_schemes`` -> ``card scheme``)."""
    # The same parameter and key names recur across a code base: fold each one once.
    return " ".join(fold(name))


@functools.lru_cache(maxsize=65_536)
def name_tag_phrase(name: str) -> str:
    """The folded noun phrase of a function's name (``compute_average_fee`` -> ``average fee``).

    Examples
    --------
    >>> name_tag_phrase("compute_average_fee")
    'average fee'
    """
    return " ".join(fold(name_phrase(name)))


def label_ok(label: str) -> bool:
    """A label of at least two letters, not a number alone.

    Examples
    --------
    >>> label_ok("fee"), label_ok("x"), label_ok("2 3")
    (True, False, False)
    """
    return len(label) >= 2 and not label.replace(" ", "").isdigit()


def tag_labels(names: Iterable[str]) -> tuple[str, ...]:
    """The distinct good labels of ``names``, in order (dunder names left out).

    Examples
    --------
    >>> tag_labels(["card_scheme", "__init__", "x", "CardScheme", "amount"])
    ('card scheme', 'amount')
    """
    found = (tag_phrase(n) for n in names if not n.startswith("__"))
    return tuple(label for label in dict.fromkeys(found) if label_ok(label))

"""Whether a tag's phrase stands in code's names: where a solution mentions a tag.

Examples
--------
>>> mentions_phrase(("card", "scheme"), ["card_scheme", "amount"])
True
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from ..ingest.tokens import names_in
from ..records import Definition
from ..text import fold

__all__ = ["code_terms", "mentions_phrase", "mentions_any"]


def code_terms(d: Definition) -> list[str]:
    """Parameters, keys read and the names and short strings of a definition's code (read
    off its syntax tree: not its comments or docstring)."""
    return list(dict.fromkeys([*d.params, *d.keys_read, *names_in(d.code)]))


def mentions_phrase(phrase: Sequence[str], terms: Iterable[str]) -> bool:
    """Whether the folded ``phrase`` stands, contiguously, inside one of ``terms`` folded."""
    return bool(phrase) and mentions_any({tuple(phrase)}, terms)


def mentions_any(phrases: Collection[tuple[str, ...]], terms: Iterable[str]) -> bool:
    """Whether any of the folded ``phrases`` stands, contiguously, inside one of ``terms``.

    Each term is folded once and its word runs looked up in the set of
    phrases: the cost grows with the terms plus the phrases, not their product
    (a tag with thousands of aliases against a large solution).

    Examples
    --------
    >>> mentions_any({("card", "scheme"), ("fee",)}, ["get_card_scheme", "amount"])
    True
    """
    wanted = (phrases if isinstance(phrases, (set, frozenset)) and () not in phrases
              else {p for p in phrases if p})
    if not wanted:
        return False
    longest = max(map(len, wanted))
    for term in terms:
        folded = fold(term)
        count = len(folded)
        for start in range(count):
            for end in range(start + 1, min(count, start + longest) + 1):
                if folded[start:end] in wanted:
                    return True
    return False

"""The words of code as its syntax tree spells them."""

from __future__ import annotations

from sgkr.ingest.tokens import names_in, tokens_of


def test_names_are_identifiers_and_short_strings_not_comments_or_docstrings() -> None:
    code = ("def fee(rows):\n    '''Uses the card_scheme column.'''\n"
            "    # merchant_id in a comment\n    return rows['eur_amount'] + x.rate\n")
    assert names_in(code) == ("fee", "rows", "eur_amount", "x", "rate")


def test_long_or_multiline_strings_are_text() -> None:
    assert names_in("f('" + "a" * 81 + "', 'short')") == ("f", "short")


def test_tokens_are_the_leaves() -> None:
    assert tokens_of("a == b  # c") == frozenset({"a", "==", "b", "# c"})

"""Folding words: labels, identifiers and questions compare equal once folded."""

from __future__ import annotations

import random

import pytest

from sgkr.text import fold, singular, words


@pytest.mark.parametrize(("text", "folded"), [
    ("average fee", ("average", "fee")),
    ("fees", ("fee",)),
    ("Fee_IDs", ("fee", "id")),
    ("merchantCategoryCode", ("merchant", "category", "code")),
    ("the merchant's fees", ("the", "merchant", "fee")),
    ("fee2 rates", ("fee", "2", "rate")),
    ("  two  spaces ", ("two", "space")),
    ("", ()),
])
def test_fold(text: str, folded: tuple[str, ...]) -> None:
    assert fold(text) == folded


def test_lower_case_labels_fold_as_any_text() -> None:
    rng = random.Random(3)
    pieces = ["fee", "fees", "s", "ies", "status", " ", "  ", "A", "x2", "'s", "-", "_"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
        assert fold(text) == tuple(singular(w) for w in words(text)), repr(text)

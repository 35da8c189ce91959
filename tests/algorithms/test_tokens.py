"""The code-aware tokenizer: identifiers split and whole, stop words out, stems, repeats kept."""

from __future__ import annotations

import pytest

from sgkr.algorithms.tokens import STOP_WORDS, code_tokens, identifier_tokens, raw_words
from sgkr.errors import InvalidArgumentError

CASES = [
    # (text, tokens)
    ("get_chunksizes", ["get_chunksizes", "get", "chunksiz"]),
    ("getChunkSizes", ["getchunksizes", "get", "chunk", "size"]),
    ("HTTPAdapter", ["httpadapter", "http", "adapt"]),
    ("_private_helper", ["private_helper", "privat", "helper"]),
    ("__init__", ["init"]),
    ("x", ["x"]),
    ("rate_2", ["rate_2", "rate", "2"]),
    ("404", ["404"]),
    ("the and of", []),
    ("Requests are sent", ["request", "sent"]),
    ("numéro_café", ["numéro_café", "numéro", "café"]),
]


@pytest.mark.parametrize(("text", "tokens"), CASES)
def test_tokens(text: str, tokens: list[str]) -> None:
    assert code_tokens(text) == tokens


def test_repeats_are_kept_in_order() -> None:
    assert code_tokens("fee fee rate fee") == ["fee", "fee", "rate", "fee"]
    assert raw_words("a.b(c_d)") == ["a", "b", "c_d"]


def test_stop_words_are_lucenes_english_list() -> None:
    assert {"the", "a", "is", "not", "of"} <= STOP_WORDS and len(STOP_WORDS) == 33
    assert identifier_tokens("is_not_empty") == ("is_not_empty", "empti")


def test_not_text_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="text must be a string"):
        code_tokens(b"bytes")  # type: ignore[arg-type]

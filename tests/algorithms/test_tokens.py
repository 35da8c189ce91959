"""The code-aware tokenizer: identifiers split and whole, stop words and single characters
out, stems, repeats kept; on ASCII text the tokenizer of the strongest bm25s baseline."""

from __future__ import annotations

import pytest

from sgkr.algorithms.tokens import (
    STOP_WORDS,
    code_tokens,
    identifier_tokens,
    raw_words,
    words_tokens,
)
from sgkr.errors import InvalidArgumentError

CASES = [
    # (text, tokens): the parts, then the whole when compound, all stemmed
    ("get_chunksizes", ["get", "chunksiz", "get_chunks"]),
    ("getChunkSizes", ["get", "chunk", "size", "getchunks"]),
    ("HTTPAdapter", ["http", "adapt", "httpadapt"]),
    ("_private_helper", ["privat", "helper", "_private_help"]),
    ("__init__", ["init"]),
    ("x", []),  # one character
    ("rate_2", ["rate", "rate_2"]),
    ("404", ["404"]),
    ("the and of", []),
    ("Requests are sent", ["request", "sent"]),
    ("get_cookies get_cookie", ["get", "cooki", "get_cooki", "get", "cooki", "get_cooki"]),
    ("numéro_café", ["numéro", "café", "numéro_café"]),
]

@pytest.mark.parametrize(("text", "tokens"), CASES)
def test_tokens(text: str, tokens: list[str]) -> None:
    assert code_tokens(text) == tokens


def test_repeats_are_kept_in_order() -> None:
    assert code_tokens("fee fee rate fee") == ["fee", "fee", "rate", "fee"]
    assert raw_words("a.b(c_d)") == ["a", "b", "c_d"]


def test_stop_words_are_lucenes_english_list() -> None:
    assert {"the", "a", "is", "not", "of"} <= STOP_WORDS and len(STOP_WORDS) == 33
    assert identifier_tokens("is_not_empty") == ("empti", "is_not_empti")


def test_not_text_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="text must be a string"):
        code_tokens(b"bytes")  # type: ignore[arg-type]


def test_the_tokens_are_the_bm25s_baselines_recipe() -> None:
    """Word for word the recipe of issue 40: words ``[A-Za-z_][A-Za-z0-9_]*|\\d+``, each split
    at ``_`` and case changes, lower-cased, plus the whole word when it split; tokens of one
    character and bm25s' English stop words dropped; PyStemmer's English stems."""
    import re

    import Stemmer

    bm25s = pytest.importorskip("bm25s")
    stop = set(bm25s.stopwords.STOPWORDS_EN)
    stemmer = Stemmer.Stemmer("english")
    hump = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

    def recipe(text: str) -> list[str]:
        out = []
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+", text):
            parts = [p.lower() for piece in word.split("_") for p in hump.findall(piece)]
            parts += [word.lower()] if len(parts) > 1 else []
            out += stemmer.stemWords([p for p in parts if len(p) > 1 and p not in stop])
        return out

    text = ("Traceback: File 'requests/models.py', line 42, in prepare_content_length\n"
            "    self.headers['Content-Length'] = str(len(body)) # HTTPAdapter._get_conn x2\n"
            "__init__ of XMLHttpRequest2 is_not_empty a_b getURLParts IOError")
    assert code_tokens(text) == recipe(text)


def test_words_are_tokenized_together_as_one_by_one() -> None:
    words = [w for text, _ in CASES for w in raw_words(text)] + ["getFee", "getFee", "réSumé"]
    assert words_tokens(words) == [list(identifier_tokens(w)) for w in words]
    assert words_tokens([]) == []

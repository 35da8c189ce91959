"""A code-aware tokenizer: the words a question and a function's document are indexed by.

Each identifier is split at ``snake_case`` underscores and ``camelCase`` humps
and its parts lower-cased, and a compound identifier is kept whole as well
(lower-cased), so ``prepare_content_length`` yields ``prepar``, ``content``,
``length`` and ``prepare_content_length``: a report that names the identifier
matches it exactly, and one that says "content length" matches its parts.
Tokens of one character and English stop words (Lucene's list, the one
``bm25s`` uses) are left out, and every token is stemmed (Snowball's English
stemmer, through PyStemmer), the whole identifier too, so ``get_cookies``
matches ``get_cookie``. Repeated words are kept: a word a question repeats
counts as often as it appears. On ASCII text this is, token for token, the
tokenizer of the strongest plain ``bm25s`` baseline of bug localization we know.

Examples
--------
>>> code_tokens("def prepareContentLength(self, body):")
['def', 'prepar', 'content', 'length', 'preparecontentlength', 'self', 'bodi']
>>> code_tokens("Is the content-length header sent for GET requests?")
['content', 'length', 'header', 'sent', 'get', 'request']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import Stemmer

from ..errors import InvalidArgumentError

__all__ = ["code_tokens", "raw_words", "identifier_tokens", "words_tokens", "STOP_WORDS"]

#: Lucene's English stop words (the list ``bm25s`` calls ``"en"``).
STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
     "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
     "these", "they", "this", "to", "was", "will", "with"})
_WORD = re.compile(r"[^\W\d]\w*|\d+")
_HUMP = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STEMMER = Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=1 << 18)
def identifier_tokens(word: str) -> tuple[str, ...]:
    """The tokens of one identifier or word: its stemmed parts, then, when it has more than
    one part, the whole of it, lower-cased and stemmed.

    Examples
    --------
    >>> identifier_tokens("HTTPAdapter"), identifier_tokens("__init__"), identifier_tokens("a_b")
    (('http', 'adapt', 'httpadapt'), ('init',), ('a_b',))
    """
    return tuple(_STEMMER.stemWords(_parts(word)))


def words_tokens(words: Iterable[str]) -> list[list[str]]:
    """:func:`identifier_tokens` of each of ``words`` (a list for each), each distinct part
    stemmed once, in one call (what an index of many words pays).

    Examples
    --------
    >>> words_tokens(["getCookies", "cookie_jar"])
    [['get', 'cooki', 'getcooki'], ['cooki', 'jar', 'cookie_jar']]
    """
    parts = [_parts(word) for word in words]
    distinct = list({p: None for found in parts for p in found})
    stem = dict(zip(distinct, _STEMMER.stemWords(distinct), strict=True))
    return [[stem[p] for p in found] for found in parts]


def _parts(word: str) -> list[str]:
    """The parts of ``word`` to stem: split at ``_`` and case changes, lower-cased, the
    whole word too when it has more than one, single characters and stop words left out."""
    parts = [p.lower() for piece in word.split("_") if piece
             for p in (_HUMP.findall(piece) if piece.isascii() else (piece,))]
    if len(parts) > 1:
        parts.append(word.lower())
    return [p for p in parts if len(p) > 1 and p not in STOP_WORDS]


def code_tokens(text: str) -> list[str]:
    """The tokens of ``text``, in order, repeats kept (see the module documentation).

    Raises
    ------
    InvalidArgumentError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"text must be a string, got {type(text).__name__}")
    return [t for word in _WORD.findall(text) for t in identifier_tokens(word)]


def raw_words(text: str) -> list[str]:
    """The identifiers, words and numbers of ``text``, unsplit, in order.

    Examples
    --------
    >>> raw_words("x = getFee(rate_2) * 100")
    ['x', 'getFee', 'rate_2', '100']
    """
    return _WORD.findall(text)

"""The token counts of a lexical index's documents, and its BM25 impacts made from them.

:class:`~sgkr.algorithms.lexical.LexicalIndex` is made in two steps:

1. :func:`count_fields`: each document's words are split into tokens
   (:func:`~sgkr.algorithms.tokens.words_tokens`, each distinct word once)
   and counted by numpy: for each field, ``(word, document, count)`` triples, the
   words numbered by their place in the sorted vocabulary (:class:`Counts`);
2. :func:`weigh`: the BM25 impact of every triple, each field's times its
   weight, added up for each (word, document): the postings.

The counts are kept with an index made in this process, so that when a few
documents change (an update of a build), :func:`patched` counts only those
again and :func:`weigh` weighs every count again in one pass over arrays: the
postings are those of counting every document again, to the last bit (every
count and length is a whole number, added exactly whatever the order, and the
impacts are computed and added in the same order).

Examples
--------
>>> counts = count_fields([["get fee", "fee fee"]])
>>> counts.words, sorted(zip(*(a.tolist() for a in counts.fields[0])))  # (word, doc, count)
(['fee', 'get'], [(0, 0, 1), (0, 1, 2), (1, 0, 1)])
>>> again = patched(counts, np.array([-1, 0]), 2, [["set fee"]], np.array([1]))
>>> again.words, sorted(zip(*(a.tolist() for a in again.fields[0])))
(['fee', 'set'], [(0, 0, 2), (0, 1, 1), (1, 1, 1)])
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import InvalidArgumentError
from .tokens import raw_words, words_tokens

__all__ = ["Counts", "count_fields", "weigh", "patched", "K1", "B"]

#: BM25's term-frequency saturation and length normalisation (bm25s's defaults).
K1 = 1.5
B = 0.75

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int32]
Offsets = npt.NDArray[np.int64]
#: One field's counts: the word (its place in :attr:`Counts.words`), the document, the count.
Triples = tuple[Ints, Ints, Ints]
#: Documents counted together: the arrays of one count stay small (a few MB).
_CHUNK = 2048


@dataclass(frozen=True)
class Counts:
    """Each field's ``(word, document, count)`` triples, one for each word a document holds.

    Attributes
    ----------
    words
        The vocabulary, sorted: a word's number is its place here.
    fields
        For each field, three arrays of equal length: word numbers, document
        numbers and counts (a field's triples in any order, each pair once).
    documents
        The number of documents.
    """

    words: list[str]
    fields: tuple[Triples, ...]
    documents: int


def count_fields(fields: Sequence[Iterable[str]]) -> Counts:
    """The counts of documents given as fields: one iterable of texts per field, one text per
    document in each (the texts are read once, a chunk at a time, never all held).

    Examples
    --------
    >>> count_fields([["get_rate", "rate"], ["fee", "tax"]]).words
    ['fee', 'get', 'get_rat', 'rate', 'tax']
    """
    numbers: dict[str, int] = {}
    pieces = _Words(numbers)
    found: list[Triples] = []
    documents = 0
    for texts in fields:
        triples, count = _frequencies(texts, pieces)
        found.append(triples)
        documents = max(documents, count)
    words = sorted(numbers)
    rank = _ranks(numbers, {w: n for n, w in enumerate(words)})
    return Counts(words, tuple((rank[t], d, c) for t, d, c in found), documents)


def patched(counts: Counts, moved: npt.NDArray[np.int64], documents: int,
            fresh: Sequence[Sequence[str]], at: npt.NDArray[np.int64]) -> Counts:
    """``counts`` after some documents changed: each old document ``d`` is now ``moved[d]``
    (``-1``: gone, or counted again), and the texts ``fresh`` (one sequence per field)
    are the documents numbered ``at``; ``documents`` in all.

    Raises
    ------
    InvalidArgumentError
        If ``moved`` or ``fresh`` do not match ``counts``.
    """
    if len(moved) != counts.documents or len(fresh) != len(counts.fields) \
            or any(len(texts) != len(at) for texts in fresh):
        raise InvalidArgumentError("patched: the documents do not match the counts")
    numbers: dict[str, int] = {}
    pieces = _Words(numbers)
    new = [_frequencies(texts, pieces)[0] for texts in fresh]
    kept = []
    used = np.zeros(len(counts.words), dtype=bool)
    for word, doc, count in counts.fields:
        keep = moved[doc] >= 0
        kept.append((word[keep], moved[doc[keep]].astype(np.int32), count[keep]))
        used[kept[-1][0]] = True
    old = [counts.words[n] for n in np.flatnonzero(used).tolist()]
    words = sorted(set(old).union(numbers))
    place = {w: n for n, w in enumerate(words)}
    old_rank = np.full(len(counts.words), -1, dtype=np.int32)
    old_rank[used] = [place[w] for w in old]
    new_rank = _ranks(numbers, place)
    fields = tuple(
        (np.concatenate((old_rank[kw], new_rank[nw])),
         np.concatenate((kd, at[nd].astype(np.int32))), np.concatenate((kc, nc)))
        for (kw, kd, kc), (nw, nd, nc) in zip(kept, new, strict=True))
    return Counts(words, fields, documents)


def weigh(counts: Counts, weights: Sequence[float]) -> tuple[Offsets, Ints, Floats]:
    """The postings of ``counts``: each field's BM25 impacts times its weight, added up for
    each (word, document); ``indptr``, ``indices`` (documents) and ``data`` (impacts), as
    :meth:`LexicalIndex.from_arrays <sgkr.algorithms.lexical.LexicalIndex.from_arrays>`
    takes them.

    Examples
    --------
    >>> indptr, indices, data = weigh(count_fields([["get fee", "fee"]]), [1.0])
    >>> indptr.tolist(), indices.tolist()
    ([0, 2, 3], [0, 1, 0])
    """
    if len(weights) != len(counts.fields):
        raise InvalidArgumentError("weigh: one weight for each field")
    documents = max(counts.documents, 1)
    parts = [_bm25(triples, counts.documents, len(counts.words), weight)
             for triples, weight in zip(counts.fields, weights, strict=True)]
    keys = np.concatenate([w.astype(np.int64) * documents + d for w, d, _ in parts]) \
        if parts else np.zeros(0, dtype=np.int64)
    values = np.concatenate([v for _, _, v in parts]) if parts else np.zeros(0)
    del parts
    # The (word, document) pairs in order, each one's impacts added in the order of the
    # fields: a stable sort, then the sum of each run of equal keys.
    order = np.argsort(keys, kind="stable")
    keys = keys[order]  # one array sorted at a time: never both copies of both held
    values = values[order]
    del order
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if len(keys) \
        else np.zeros(0, dtype=np.int64)
    summed = np.add.reduceat(values, starts) if len(keys) else values
    del values
    unique = keys[starts]
    del keys
    per_word = np.bincount(unique // documents, minlength=len(counts.words))
    indptr = np.concatenate(([0], np.cumsum(per_word))).astype(np.int64)
    return indptr, (unique % documents).astype(np.int32), summed.astype(np.float32)


def _bm25(triples: Triples, documents: int, vocabulary: int, weight: float,
          ) -> tuple[Ints, Ints, npt.NDArray[np.float64]]:
    """BM25 (Lucene's: ``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))``, as bm25s scores
    it) of every (word, document, count) of one field, times ``weight``."""
    word, doc, count = triples
    tf = count.astype(np.float64)
    lengths = np.bincount(doc, weights=tf, minlength=documents)
    df = np.bincount(word, minlength=vocabulary).astype(np.float64)
    idf = np.log1p((documents - df + 0.5) / (df + 0.5))
    mean = lengths.mean() if documents and lengths.any() else 1.0
    norm = K1 * ((1 - B) + B * lengths / mean)
    return word, doc, weight * idf[word] * tf / (tf + norm[doc])


def _ranks(numbers: dict[str, int], place: dict[str, int]) -> Ints:
    """For each token number of ``numbers``, the place of its token in ``place``."""
    rank = np.zeros(len(numbers), dtype=np.int32)
    rank[list(numbers.values())] = [place[w] for w in numbers]
    return rank


def _frequencies(texts: Iterable[str], words: _Words) -> tuple[Triples, int]:
    """(token number, document, count) of every token of each text (the pieces of the
    texts numbered in ``words``), counted ``_CHUNK`` texts at a time; and the number of
    texts."""
    chunks: list[Triples] = []
    count = 0
    stream = iter(texts)
    while chunk := list(itertools.islice(stream, _CHUNK)):
        chunks.append(words.count(chunk, count))
        count += len(chunk)
    if not chunks:
        empty = np.zeros(0, dtype=np.int32)
        return (empty, empty, empty), 0
    token, doc, tf = zip(*chunks, strict=True)
    return (np.concatenate(token), np.concatenate(doc), np.concatenate(tf)), count


class _Numbering(dict[str | bytes, int]):
    """Each key's number, the next one given to a key met first (``numbering[key]``)."""

    def __missing__(self, key: str | bytes) -> int:
        number = self[key] = len(self)
        return number


#: Each ASCII character that cannot be in a word (``\w``) made a space, so that an ASCII
#: text's ``bytes.split()`` is its runs of word characters.
_SPACES = bytes(c if chr(c).isalnum() or c == 0x5F else 0x20 for c in range(128)) + b" " * 128


def _pieces(text: str) -> list[str] | list[bytes]:
    """The runs of word characters of an ASCII text (split in C), else its raw words.

    A run's raw words (:func:`~sgkr.algorithms.tokens.raw_words`) are the same read alone
    as in the text (no word crosses a character outside words), so each distinct run is
    split into them once (:meth:`_Words.count`).
    """
    return text.encode("ascii").translate(_SPACES).split() if text.isascii() \
        else raw_words(text)


class _Words:
    """The pieces (:func:`_pieces`) of texts, each numbered when first met and split into
    its token numbers once (new tokens numbered in ``numbers``); and the counts of the
    tokens of each chunk of texts."""

    def __init__(self, numbers: dict[str, int]) -> None:
        self.numbers = numbers
        self.seen = _Numbering()
        self.width = np.zeros(0, dtype=np.int64)  # each piece's number of tokens
        self.flat = np.zeros(0, dtype=np.int64)  # their token numbers, piece after piece

    def count(self, texts: Sequence[str], first: int) -> Triples:
        """:func:`_frequencies` of the texts numbered from ``first`` on.

        Python reads each text's pieces and numbers them; numpy counts each (piece, text)
        pair, spreads each pair over the piece's tokens and counts each (token, text) pair.
        """
        known = len(self.seen)
        pieces: list[int] = []
        sizes = np.zeros(len(texts), dtype=np.int64)
        for d, text in enumerate(texts):
            found = _pieces(text)
            pieces.extend(map(self.seen.__getitem__, found))
            sizes[d] = len(found)
        self._split(itertools.islice(self.seen, known, None))
        width_of = max(len(texts), 1)
        pairs, repeats = np.unique(np.asarray(pieces, dtype=np.int64) * width_of
                                   + np.repeat(np.arange(len(texts), dtype=np.int64), sizes),
                                   return_counts=True)
        piece, doc = pairs // width_of, pairs % width_of
        spread = self.width[piece]
        entry = np.repeat(np.arange(len(piece)), spread)
        starts = np.cumsum(self.width) - self.width
        offset = np.arange(len(entry)) - np.repeat(np.cumsum(spread) - spread, spread)
        token = self.flat[starts[piece][entry] + offset]
        unique, inverse = np.unique(token * width_of + doc[entry], return_inverse=True)
        tf = np.bincount(inverse, weights=repeats[entry], minlength=len(unique))
        return ((unique // width_of).astype(np.int32),
                (unique % width_of + first).astype(np.int32), tf.astype(np.int32))

    def _split(self, new: Iterable[str | bytes]) -> None:
        """Add the token numbers of the pieces ``new`` (new tokens numbered in ``numbers``)."""
        number = self.numbers.setdefault
        width: list[int] = []
        words: list[str] = []
        for piece in new:
            found = raw_words(piece.decode("ascii")) if isinstance(piece, bytes) else (piece,)
            width.append(len(found))
            words.extend(found)
        # Each piece's tokens are its words' tokens, in turn.
        tokens = words_tokens(words)
        lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
        each = np.asarray(width, dtype=np.int64)
        starts = np.cumsum(each) - each  # every piece has a word
        sizes = np.add.reduceat(lengths, starts) if len(each) else each
        flat = [number(t, len(self.numbers)) for found in tokens for t in found]
        self.width = np.concatenate((self.width, sizes))
        self.flat = np.concatenate((self.flat, np.asarray(flat, dtype=np.int64)))

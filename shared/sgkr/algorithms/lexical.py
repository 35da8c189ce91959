"""The first stage: BM25 over one document per function, with a code-aware tokenizer.

Each function node (module bodies aside) is indexed as two fields, both
tokenized by :func:`~sgkr.algorithms.tokens.code_tokens` (identifiers split and
kept whole, single characters and stop words out, Snowball stems):

- its **document**: ``"{file} {qualified name in its module}"``, then its
  knowledge (unless it is the code's own docstring) and its code: less the
  knowledge, the document of the strongest plain ``bm25s`` baseline of bug
  localization (:class:`sgkr.eval.baselines.CodeBM25Retriever`);
- its **name**: its dotted qualified name (``package.module.Class.method``), so a
  question naming the module, class or function finds it before the many functions
  that merely use those words.

Each field is scored by BM25 (``bm25s``: ``k1`` 1.5, ``b`` 0.75, Lucene's
variant), and a function's score is the document's score plus half the name's
(:data:`NAME_WEIGHT`). Both are folded, at build time, into one impact per
(word, function), the postings: a question's score for a function is the sum of
the impacts of its words, each counted as often as the question says it. The
postings are what :mod:`sgkr.algorithms.lexicalfile` persists beside graph.json
and a graph store pushes, so every interface ranks alike, to the last bit.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def set_timeout(request, seconds):\\n    request.t = seconds\\n"
...                           "def get_cookie(jar, name):\\n    return jar[name]\\n")])
>>> LexicalIndex(g).search("how do I set a timeout on a request?", 1)
[('fn:m.set_timeout', 1.0)]
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import weakref
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..ingest.sources import name_in_module
from ..records import FunctionNode
from .tokens import code_tokens, identifier_tokens, raw_words

__all__ = ["LexicalIndex", "function_document", "fingerprint", "indexed", "index_of", "attach",
           "attached", "weighted_postings", "add_up", "best_hits", "NAME_WEIGHT", "K1",
           "B"]

#: BM25's term-frequency saturation and length normalisation (bm25s's defaults).
K1 = 1.5
B = 0.75
#: Weight of the name field against the document's 1.
NAME_WEIGHT = 0.5

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int32]
Offsets = npt.NDArray[np.int64]


def function_document(node: FunctionNode) -> tuple[str, str]:
    """The two fields a function is indexed by: its document and its name.

    The document is ``"{file} {qualified name in its module}"``, a line, then its
    knowledge (unless it is the code's own docstring) and its code; the name is its
    dotted qualified name, module included. A function merged from copies (a helper
    every solution script repeats) is indexed at its first definition's file and
    qualified name, so that its copies do not lengthen its document.

    Examples
    --------
    >>> from sgkr.records import FunctionNode, SourceSpan
    >>> node = FunctionNode("fn:m.C.get", "get", ("m.C.get", "b.C.get"), "def get(self): ...",
    ...                     "Get it.", (SourceSpan("m.py", 1, 1), SourceSpan("b.py", 1, 1)),
    ...                     "method")
    >>> function_document(node)
    ('b.py C.get\\nGet it.\\n\\ndef get(self): ...', 'b.C.get')
    """
    files = [s.file for s in node.sources]
    name = min(node.qualnames, default=node.name)
    inside = name_in_module(node.qualnames, files, name)
    # Knowledge that is the code's own docstring is in the code already.
    first = node.knowledge.split("\n", 1)[0]
    text = node.code if not first or first in node.code else f"{node.knowledge}\n\n{node.code}"
    return f"{min(files, default='')} {inside}\n{text}", name


def fingerprint(nodes: Iterable[FunctionNode]) -> str:
    """A digest of what the index of ``nodes`` is made from (ids, files, names, text).

    An index persisted for a graph is used only if the graph's functions still
    give the same fingerprint.
    """
    nodes = list(nodes)
    digest = hashlib.blake2b(",".join(str(len(part)) for part in _parts(nodes)).encode(),
                             digest_size=16)
    # The parts joined by "\x1f", hashed one after another: no copy of every text at once.
    for n, part in enumerate(_parts(nodes)):
        digest.update(part.encode("utf-8", "surrogatepass") if not n else
                      b"\x1f" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _parts(nodes: Iterable[FunctionNode]) -> Iterator[str]:
    """What :func:`fingerprint` hashes of each node, in order."""
    for node in nodes:
        yield from (node.id, "\0".join(s.file for s in node.sources), "\0".join(node.qualnames),
                    node.knowledge, node.code)


def indexed(graph: KnowledgeGraph) -> list[FunctionNode]:
    """The function nodes an index of ``graph`` holds (module bodies aside), sorted by id."""
    return sorted((f for f in graph.functions() if f.kind != "module"), key=lambda f: f.id)


class LexicalIndex:
    """BM25 postings over the function nodes of a graph (see the module documentation).

    Parameters
    ----------
    graph
        The graph whose function nodes are indexed (read once, here).

    Attributes
    ----------
    ids
        The indexed function ids, sorted: a document's number is its place here.
    vocabulary
        Each word's number: its postings are ``indices[indptr[w]:indptr[w + 1]]``
        (documents) and ``data[...]`` (impacts).
    fingerprint
        :func:`fingerprint` of the indexed functions.
    lengths
        Each indexed function's length, the characters of its text (at least 1), which
        the walk prices (kept with the index, so a graph loaded back has them made).
    """

    def __init__(self, graph: KnowledgeGraph) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        nodes = indexed(graph)
        # Each document is made as it is counted: the texts are never all held at once.
        words, indptr, indices, data = weighted_postings(
            [(function_document(f)[0] for f in nodes), (function_document(f)[1] for f in nodes)],
            (1.0, NAME_WEIGHT))
        lengths = np.asarray([max(len(f.text), 1) for f in nodes], dtype=np.int64)
        self._set([f.id for f in nodes], words, indptr, indices, data, fingerprint(nodes),
                  lengths)

    @classmethod
    def from_arrays(cls, ids: Sequence[str], words: Sequence[str], indptr: Offsets,
                    indices: Ints, data: Floats, digest: str,
                    lengths: Offsets | None = None) -> LexicalIndex:
        """An index from its parts, as :mod:`~sgkr.algorithms.lexicalfile` reads them
        (checked there); without ``lengths``, every length is 1."""
        index = cls.__new__(cls)
        index._set(list(ids), list(words), indptr, indices, data, digest,
                   np.ones(len(ids), dtype=np.int64) if lengths is None else lengths)
        return index

    def _set(self, ids: list[str], words: list[str], indptr: Offsets, indices: Ints,
             data: Floats, digest: str, lengths: Offsets) -> None:
        self.ids = ids
        self.words = words
        self.vocabulary = {w: n for n, w in enumerate(words)}
        self.indptr, self.indices, self.data = indptr, indices, data
        self.fingerprint = digest
        self.lengths = lengths

    def length_of(self) -> dict[str, int]:
        """Each indexed function's length (see :attr:`lengths`), by id."""
        return dict(zip(self.ids, self.lengths.tolist(), strict=True))

    @property
    def size(self) -> int:
        """The number of indexed functions."""
        return len(self.ids)

    def postings(self, word: str) -> list[tuple[str, float]]:
        """The functions ``word`` occurs in, with its impact on each (a store pushes them)."""
        n = self.vocabulary.get(word)
        if n is None:
            return []
        start, end = int(self.indptr[n]), int(self.indptr[n + 1])
        return [(self.ids[d], float(v))
                for d, v in zip(self.indices[start:end].tolist(), self.data[start:end].tolist(),
                                strict=True)]

    def scores(self, question: str) -> dict[str, float]:
        """The BM25 score of every function sharing a word with ``question`` (unordered)."""
        found = self._scores(question)
        return {self.ids[d]: float(found[d]) for d in np.flatnonzero(found)}

    def search(self, question: str, k: int, *, scaled: bool = True) -> list[tuple[str, float]]:
        """The ``k`` best functions for ``question``, ties by id; their scores scaled to the
        best's 1.0, or the BM25 scores themselves (``scaled=False``)."""
        _check_k(k)
        found = self._scores(question)
        hits = np.flatnonzero(found > 0)
        if len(hits) > k:  # the k best, then every tie of the k-th
            cut = np.partition(found[hits], len(hits) - k)[len(hits) - k]
            hits = hits[found[hits] >= cut]
        order = hits[np.lexsort((hits, -found[hits]))][:k]
        if not scaled:
            return [(self.ids[d], float(found[d])) for d in order.tolist()]
        top = float(found[order[0]]) if len(order) else 1.0
        return [(self.ids[d], round(float(found[d]) / top, 6)) for d in order.tolist()]

    def _scores(self, question: str) -> npt.NDArray[np.float64]:
        found = np.zeros(len(self.ids), dtype=np.float64)
        for word in code_tokens(question):
            n = self.vocabulary.get(word)
            if n is not None:
                start, end = self.indptr[n], self.indptr[n + 1]
                found[self.indices[start:end]] += self.data[start:end]
        return found


# The index of each graph, with the revision it was made at (a changed graph gets a new one).
_ATTACHED: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, LexicalIndex]] = \
    weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def attach(graph: KnowledgeGraph, index: LexicalIndex) -> None:
    """Make ``index`` the one :func:`index_of` gives for ``graph`` as it is now (a loader
    read it from disk).

    The caller vouches that it indexes ``graph``'s functions
    (:func:`sgkr.algorithms.lexicalfile.read_index` checks the fingerprint).
    """
    if not isinstance(graph, KnowledgeGraph) or not isinstance(index, LexicalIndex):
        raise InvalidArgumentError("attach takes a KnowledgeGraph and a LexicalIndex")
    with _LOCK:
        _ATTACHED[graph] = (graph.revision, index)


def attached(graph: KnowledgeGraph) -> LexicalIndex | None:
    """The index :func:`index_of` gives for ``graph``, if it has one already (none is made)."""
    found = _ATTACHED.get(graph)
    return found[1] if found is not None and found[0] == graph.revision else None


def index_of(graph: KnowledgeGraph) -> LexicalIndex:
    """The lexical index of ``graph``: the one attached to it, or one made now (and attached).

    A graph changed since its index was made gets a new one.
    """
    found = attached(graph)
    if found is None:
        found = LexicalIndex(graph)
        attach(graph, found)
    return found


def add_up(words: Iterable[str],
           postings: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, float]:
    """Each function's score: the impacts of ``words`` (repeats counted) added in order.

    The order and the arithmetic (float64 over float32 impacts) are those of
    :meth:`LexicalIndex.scores`, so a graph store adding the same postings gets
    the same scores, to the last bit.

    Examples
    --------
    >>> add_up(["fee", "fee", "rate"], {"fee": [("fn:a", 0.5)], "rate": [("fn:b", 1.0)]})
    {'fn:a': 1.0, 'fn:b': 1.0}
    """
    found: dict[str, float] = {}
    for word in words:
        for node_id, impact in postings.get(word, ()):
            found[node_id] = found.get(node_id, 0.0) + impact
    return found


def best_hits(found: Mapping[str, float], k: int, *,
              scaled: bool = True) -> list[tuple[str, float]]:
    """The ``k`` best of ``found`` (function id -> score), ties by id, scaled to the best's 1.0
    (or not: ``scaled=False``), as :meth:`LexicalIndex.search` gives them.

    Examples
    --------
    >>> best_hits({"fn:a": 2.0, "fn:b": 4.0, "fn:c": 0.0}, 5)
    [('fn:b', 1.0), ('fn:a', 0.5)]
    """
    _check_k(k)
    best = sorted(((n, s) for n, s in found.items() if s > 0),
                  key=lambda item: (-item[1], item[0]))[:k]
    if not scaled:
        return best
    top = best[0][1] if best else 1.0
    return [(node_id, round(score / top, 6)) for node_id, score in best]


def _check_k(k: object) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")


def weighted_postings(fields: Sequence[Iterable[str]], weights: Sequence[float],
                      ) -> tuple[list[str], Offsets, Ints, Floats]:
    """BM25 postings of documents given as fields: one iterable of texts per field, one text
    per document in each, each field's scores times its weight, added up.

    Returns the words, sorted, and their postings: ``indptr``, ``indices``
    (documents) and ``data`` (impacts), as :meth:`LexicalIndex.from_arrays` takes them.

    Examples
    --------
    >>> words, indptr, indices, data = weighted_postings([["get fee", "fee"]], [1.0])
    >>> words, indptr.tolist(), indices.tolist()
    (['fee', 'get'], [0, 2, 3], [0, 1, 0])
    """
    numbers: dict[str, int] = {}
    parts = []
    documents = 1
    for texts, weight in zip(fields, weights, strict=True):
        found, count = _frequencies(texts, numbers)
        parts.append(_bm25(found, count, len(numbers), weight))
        documents = max(documents, count)
    words = sorted(numbers)
    rank = np.zeros(len(numbers), dtype=np.int64)
    rank[[numbers[w] for w in words]] = np.arange(len(words))
    keys = np.concatenate([rank[t] * documents + d for t, d, _ in parts]) if parts \
        else np.zeros(0, dtype=np.int64)
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
    counts = np.bincount(unique // documents, minlength=len(words))
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return words, indptr, (unique % documents).astype(np.int32), summed.astype(np.float32)


Triples = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.float64]]
#: Documents counted together: the arrays of one count stay small (a few MB).
_CHUNK = 2048


def _frequencies(texts: Iterable[str], numbers: dict[str, int]) -> tuple[Triples, int]:
    """(token number, document, count) of every token of each text (numbers of new tokens
    added to ``numbers``), counted ``_CHUNK`` texts at a time; and the number of texts.

    Each distinct word of the corpus is split into tokens once; the counting is numpy's.
    """
    split: dict[str, tuple[int, ...]] = {}
    chunks: list[Triples] = []
    count = 0
    stream = iter(texts)
    while chunk := list(itertools.islice(stream, _CHUNK)):
        chunks.append(_count(chunk, count, numbers, split))
        count += len(chunk)
    if not chunks:
        return (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0)), 0
    token, doc, tf = zip(*chunks, strict=True)
    return (np.concatenate(token), np.concatenate(doc), np.concatenate(tf)), count


def _count(texts: Sequence[str], first: int, numbers: dict[str, int],
           split: dict[str, tuple[int, ...]]) -> Triples:
    """:func:`_frequencies` of the texts numbered from ``first`` on (``split``: the token
    numbers of each word met so far)."""
    seen: dict[str, int] = {}
    words: list[int] = []
    repeats: list[int] = []
    sizes = np.zeros(len(texts), dtype=np.int64)
    for d, text in enumerate(texts):
        counted = Counter(raw_words(text))
        words.extend([seen.setdefault(w, len(seen)) for w in counted])
        repeats.extend(counted.values())
        sizes[d] = len(counted)
    tokens = [_split(w, numbers, split) for w in seen]
    width = np.asarray([len(t) for t in tokens], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(width)[:-1])) if len(width) else width
    flat = np.asarray([t for parts in tokens for t in parts], dtype=np.int64)
    word = np.asarray(words, dtype=np.int64)
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    spread = width[word] if len(word) else word
    entry = np.repeat(np.arange(len(word)), spread)
    offset = np.arange(len(entry)) - np.repeat(np.cumsum(spread) - spread, spread)
    token = flat[starts[word][entry] + offset] if len(entry) else entry
    width_of = max(len(texts), 1)
    unique, inverse = np.unique(token * width_of + doc[entry], return_inverse=True)
    tf = np.bincount(inverse, weights=np.asarray(repeats, dtype=np.float64)[entry],
                     minlength=len(unique))
    return ((unique // width_of).astype(np.int32), (unique % width_of + first).astype(np.int32),
            np.asarray(tf, dtype=np.float64))


def _split(word: str, numbers: dict[str, int], split: dict[str, tuple[int, ...]],
           ) -> tuple[int, ...]:
    """The token numbers of ``word`` (numbers of new tokens added to ``numbers``)."""
    found = split.get(word)
    if found is None:
        found = split[word] = tuple(numbers.setdefault(t, len(numbers))
                                    for t in identifier_tokens(word))
    return found


def _bm25(frequencies: Triples, documents: int, vocabulary: int, weight: float) -> Triples:
    """BM25 (Lucene's: ``idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))``, as bm25s scores
    it) of every (token, document, count) of one field, times ``weight``."""
    token, doc, tf = frequencies
    lengths = np.bincount(doc, weights=tf, minlength=documents)
    df = np.bincount(token, minlength=vocabulary).astype(np.float64)
    idf = np.log1p((documents - df + 0.5) / (df + 0.5))
    mean = lengths.mean() if documents and lengths.any() else 1.0
    norm = K1 * ((1 - B) + B * lengths / mean)
    return token, doc, weight * idf[token] * tf / (tf + norm[doc])

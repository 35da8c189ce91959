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
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..errors import InvalidArgumentError
from ..graph.derived import when_copied
from ..graph.model import KnowledgeGraph
from ..ingest.sources import name_in_module
from ..records import FunctionNode
from .counts import K1, B, Counts, count_fields, patched, weigh
from .tokens import code_tokens

__all__ = ["LexicalIndex", "KeptCounts", "function_document", "fingerprint", "indexed",
           "index_of", "attach", "attached", "patch_from", "weighted_postings", "add_up",
           "best_hits", "NAME_WEIGHT", "K1", "B"]

#: Weight of the name field against the document's 1.
NAME_WEIGHT = 0.5
_WEIGHTS = (1.0, NAME_WEIGHT)
#: An index is patched for a changed graph only where at most 1 / _PATCHED of its
#: functions changed; else it is made again.
_PATCHED = 4

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
    name = _name(node)
    inside = name_in_module(node.qualnames, files, name)
    # Knowledge that is the code's own docstring is in the code already.
    first = node.knowledge.split("\n", 1)[0]
    text = node.code if not first or first in node.code else f"{node.knowledge}\n\n{node.code}"
    return f"{min(files, default='')} {inside}\n{text}", name


def _name(node: FunctionNode) -> str:
    """The name field of ``node`` (:func:`function_document`'s second)."""
    return min(node.qualnames, default=node.name)


def fingerprint(nodes: Iterable[FunctionNode]) -> str:
    """A digest of what the index of ``nodes`` is made from (ids, files, names, text).

    An index persisted for a graph is used only if the graph's functions still
    give the same fingerprint. It is the digest of each node's own digest, so an
    index patched for a few changed functions digests only those again.
    """
    return _combined([_digest(node) for node in nodes])


def _digest(node: FunctionNode) -> bytes:
    """The digest of what the index reads of ``node``."""
    parts = (node.id, "\0".join(s.file for s in node.sources), "\0".join(node.qualnames),
             node.knowledge, node.code)
    digest = hashlib.blake2b(",".join(str(len(part)) for part in parts).encode(),
                             digest_size=16)
    for part in parts:
        digest.update(b"\x1f")
        digest.update(part.encode("utf-8", "surrogatepass"))
    return digest.digest()


def _combined(digests: Sequence[bytes]) -> str:
    return hashlib.blake2b(b"".join(digests), digest_size=16).hexdigest()


def indexed(graph: KnowledgeGraph) -> list[FunctionNode]:
    """The function nodes an index of ``graph`` holds (module bodies aside), sorted by id."""
    return sorted((f for f in graph.functions() if f.kind != "module"), key=lambda f: f.id)


@dataclass(frozen=True)
class _Made:
    """What an index made in this process keeps to be patched (:meth:`LexicalIndex.patched`):
    its counts, the records it indexed (None for counts kept from an earlier build: then a
    function is compared by its digest), the digest and the length of each."""

    counts: Counts
    place: dict[str, int]  # each indexed id's number
    records: list[FunctionNode] | None
    digests: list[bytes]
    lengths: Offsets


def _unchanged(made: _Made, n: int, node: FunctionNode) -> bool:
    """Whether ``node`` is indexed as the function ``made`` numbered ``n`` was."""
    if made.records is not None:
        return made.records[n] is node or made.records[n] == node
    return made.digests[n] == _digest(node)


@dataclass(frozen=True)
class KeptCounts:
    """What an index keeps to be patched by a later build (:meth:`LexicalIndex.kept`): the
    indexed ids, sorted, the digest of what the index read of each (:func:`fingerprint`'s
    parts), the counts and each function's length."""

    ids: list[str]
    digests: list[bytes]
    counts: Counts
    lengths: Offsets


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
        counts = count_fields([(function_document(f)[0] for f in nodes),
                               (_name(f) for f in nodes)])
        self._made(nodes, counts, np.asarray([max(len(f.text), 1) for f in nodes],
                                             dtype=np.int64), [_digest(f) for f in nodes])

    def _made(self, nodes: list[FunctionNode], counts: Counts, lengths: Offsets,
              digests: list[bytes]) -> None:
        indptr, indices, data = weigh(counts, _WEIGHTS)
        self._set([f.id for f in nodes], counts.words, indptr, indices, data,
                  _combined(digests), lengths)
        self._patchable: _Made | None = _Made(counts, {f.id: n for n, f in enumerate(nodes)},
                                              nodes, digests, lengths)

    def patched(self, graph: KnowledgeGraph) -> LexicalIndex | None:
        """The index of ``graph``, made from this one by counting again only the functions
        that differ (equal to :class:`LexicalIndex(graph) <LexicalIndex>`, to the last bit);
        None where this one cannot be patched (it was read from a file) or where most of
        the functions differ.

        Examples
        --------
        >>> from sgkr import build_graph
        >>> g = build_graph([("m.py", "def set_timeout(request):\\n    pass\\n"
        ...                           "def get_cookie(jar):\\n    pass\\n"
        ...                           "def send(request):\\n    pass\\n"
        ...                           "def close(request):\\n    pass\\n")])
        >>> h = build_graph([("m.py", "def set_timeout(request):\\n    pass\\n"
        ...                           "def get_cookie(jar):\\n    pass\\n"
        ...                           "def send(request):\\n    pass\\n"
        ...                           "def open_session(request):\\n    pass\\n")])
        >>> LexicalIndex(g).patched(h).search("session", 1)
        [('fn:m.open_session', 1.0)]
        """
        made = getattr(self, "_patchable", None)
        if made is None or not isinstance(graph, KnowledgeGraph):
            return None
        return _patch(made, graph)

    def kept(self) -> KeptCounts | None:
        """What a later build needs to patch this index (:func:`patch_from`); None for an
        index read from a file (it has no counts)."""
        made = getattr(self, "_patchable", None)
        if made is None:
            return None
        return KeptCounts(self.ids, made.digests, made.counts, made.lengths)

    @classmethod
    def from_arrays(cls, ids: Sequence[str], words: Sequence[str], indptr: Offsets,
                    indices: Ints, data: Floats, digest: str,
                    lengths: Offsets | None = None) -> LexicalIndex:
        """An index from its parts, as :mod:`~sgkr.algorithms.lexicalfile` reads them
        (checked there); without ``lengths``, every length is 1."""
        index = cls.__new__(cls)
        index._set(list(ids), list(words), indptr, indices, data, digest,
                   np.ones(len(ids), dtype=np.int64) if lengths is None else lengths)
        index._patchable = None
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


def _patch(made: _Made, graph: KnowledgeGraph) -> LexicalIndex | None:
    """:meth:`LexicalIndex.patched`, from what an index keeps to be patched."""
    nodes = indexed(graph)
    moved = np.full(len(made.digests), -1, dtype=np.int64)
    fresh: list[int] = []
    for n, node in enumerate(nodes):
        found = made.place.get(node.id)
        if found is not None and _unchanged(made, found, node):
            moved[found] = n
        else:
            fresh.append(n)
    if len(fresh) * _PATCHED > len(nodes):
        return None
    at = np.asarray(fresh, dtype=np.int64)
    documents = [function_document(nodes[n]) for n in fresh]
    counts = patched(made.counts, moved, len(nodes),
                     [[d[0] for d in documents], [d[1] for d in documents]], at)
    kept = np.flatnonzero(moved >= 0)
    lengths = np.ones(len(nodes), dtype=np.int64)
    lengths[moved[kept]] = made.lengths[kept]
    lengths[at] = [max(len(nodes[n].text), 1) for n in fresh]
    digests = [b""] * len(nodes)
    for old_n, new_n in zip(kept.tolist(), moved[kept].tolist(), strict=True):
        digests[new_n] = made.digests[old_n]
    for n in fresh:
        digests[n] = _digest(nodes[n])
    index = LexicalIndex.__new__(LexicalIndex)
    index._made(nodes, counts, lengths, digests)
    return index


# The index of each graph, with the revision it was made at (a changed graph gets a new one).
_ATTACHED: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, LexicalIndex]] = \
    weakref.WeakKeyDictionary()
# The index of the graph each graph was copied from, if it has none of its own yet: what
# an index of the copy is patched from (an update copies its graph, then changes a few files').
_CARRIED: weakref.WeakKeyDictionary[KnowledgeGraph, _Made] = weakref.WeakKeyDictionary()
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
        _CARRIED.pop(graph, None)


def attached(graph: KnowledgeGraph) -> LexicalIndex | None:
    """The index :func:`index_of` gives for ``graph``, if it has one already (none is made)."""
    found = _ATTACHED.get(graph)
    return found[1] if found is not None and found[0] == graph.revision else None


def index_of(graph: KnowledgeGraph) -> LexicalIndex:
    """The lexical index of ``graph``: the one attached to it, or one made now (and attached).

    A graph changed since its index was made gets a new one: the old one patched
    where few functions changed (:meth:`LexicalIndex.patched`), as for the copy an
    update makes of a graph whose index was made.
    """
    found = attached(graph)
    if found is None:
        base = _base(graph)
        found = (_patch(base, graph) if base is not None else None) or LexicalIndex(graph)
        attach(graph, found)
    return found


def _base(graph: KnowledgeGraph) -> _Made | None:
    """What the index ``graph`` had before it changed keeps to be patched, or that of the
    graph it was copied from, or of an earlier build (:func:`patch_from`)."""
    with _LOCK:
        found = _ATTACHED.get(graph)
        return getattr(found[1], "_patchable", None) if found is not None \
            else _CARRIED.get(graph)


def _carry(graph: KnowledgeGraph, copy: KnowledgeGraph) -> None:
    base = _base(graph)
    if base is not None:
        with _LOCK:
            _CARRIED[copy] = base


when_copied(_carry)


def patch_from(graph: KnowledgeGraph, kept: KeptCounts) -> None:
    """Make :func:`index_of` patch ``kept`` (what an earlier build's index kept,
    :meth:`LexicalIndex.kept`, trusted: check it first) into ``graph``'s index, comparing
    functions by their digests; unless ``graph`` has an index or a base already.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> g = build_graph([("m.py", "def get_fee(a):\\n    return a\\n")])
    >>> base = LexicalIndex(g).kept()
    >>> h = build_graph([("m.py", "def get_fee(a):\\n    return a\\n"
    ...                           "def set_fee(a):\\n    return a\\n")])
    >>> patch_from(h, base)
    >>> index_of(h).search("set", 1)
    [('fn:m.set_fee', 1.0)]
    """
    if not isinstance(graph, KnowledgeGraph) or not isinstance(kept, KeptCounts):
        raise InvalidArgumentError("patch_from takes a KnowledgeGraph and KeptCounts")
    base = _Made(kept.counts, {i: n for n, i in enumerate(kept.ids)}, None,
                 list(kept.digests), kept.lengths)
    with _LOCK:
        if graph not in _ATTACHED and graph not in _CARRIED:
            _CARRIED[graph] = base


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
    (documents) and ``data`` (impacts), as :meth:`LexicalIndex.from_arrays` takes them
    (:func:`~sgkr.algorithms.counts.count_fields`, then
    :func:`~sgkr.algorithms.counts.weigh`).

    Examples
    --------
    >>> words, indptr, indices, data = weighted_postings([["get fee", "fee"]], [1.0])
    >>> words, indptr.tolist(), indices.tolist()
    (['fee', 'get'], [0, 2, 3], [0, 1, 0])
    """
    counts = count_fields(fields)
    return counts.words, *weigh(counts, weights)

"""A built-in lexical scorer over function nodes: BM25 on names, identifiers and knowledge.

Each function node is a bag of folded words (:func:`sgkr.text.fold`): its
name (counted three times: a name is what a function is about), the names of
its class, its knowledge and its code. A question is scored with BM25
(``k1`` 1.2, ``b`` 0.75). Words common to most functions (``self``,
``return``, ``value``) weigh little by their inverse document frequency, so
no list of generic words is needed.

To keep a query cheap on a large code base, each word keeps only its
``postings`` best documents (by that word's BM25 contribution, computed once
here): a query adds up a few hundred numbers per word whatever the size of
the graph. Documents a common word reaches beyond its best ones would get a
small share from it anyway.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def set_timeout(request, seconds):\\n    request.t = seconds\\n"
...                           "def get_cookie(jar, name):\\n    return jar[name]\\n")])
>>> LexicalIndex(g).search("how do I set a timeout on a request?", 1)
[('fn:m.set_timeout', 1.0)]
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode
from ..text import fold

__all__ = ["LexicalIndex", "node_words", "question_words", "add_up", "best_hits",
           "DEFAULT_POSTINGS"]

DEFAULT_POSTINGS = 256
_K1 = 1.2
_B = 0.75
_NAME_REPEAT = 3
_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]*|[0-9]+")


@functools.lru_cache(maxsize=262_144)
def _folded(token: str) -> tuple[str, ...]:
    return fold(token)


def _text_words(text: str) -> list[str]:
    """:func:`sgkr.text.fold` of ``text``, a token at a time (identifiers recur: each is
    folded once)."""
    return [w for token in _TOKEN.findall(text) for w in _folded(token)]


def _counts(node: FunctionNode) -> Counter[str]:
    """:func:`node_words` counted, each distinct token of the code folded once."""
    counts: Counter[str] = Counter()
    for token, c in Counter(_TOKEN.findall(f"{node.knowledge}\n{node.code}")).items():
        for w in _folded(token):
            counts[w] += c
    counts.update(_head(node))
    return counts


def node_words(node: FunctionNode) -> list[str]:
    """The folded words a function node is indexed by: name three times, class, knowledge, code.

    Examples
    --------
    >>> from sgkr.records import FunctionNode
    >>> node_words(FunctionNode("fn:m.C.get_fees", "get_fees", ("m.C.get_fees",),
    ...                         "def get_fees(self): ...", "", (), "method"))
    ['get', 'fee', 'get', 'fee', 'get', 'fee', 'c', 'def', 'get', 'fee', 'self']
    """
    return _head(node) + _text_words(node.knowledge) + _text_words(node.code)


def _head(node: FunctionNode) -> list[str]:
    """The name's words three times, and a method's class's words."""
    name = _text_words(node.name) * _NAME_REPEAT
    if node.kind != "method":
        return name
    owners = {q.rsplit(".", 2)[-2] for q in node.qualnames if q.count(".") >= 2}
    return name + [w for o in sorted(owners) for w in _text_words(o)]


class LexicalIndex:
    """BM25 over the function nodes of a graph, with truncated impact-ordered postings.

    Parameters
    ----------
    graph
        The graph whose function nodes are indexed (read once, here).
    postings
        Most documents kept per word (its best ones).
    modules
        Whether module bodies are indexed too (the retriever's seeds are functions).
    """

    def __init__(self, graph: KnowledgeGraph, *, postings: int = DEFAULT_POSTINGS,
                 modules: bool = False) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        if not isinstance(postings, int) or isinstance(postings, bool) or postings < 1:
            raise InvalidArgumentError(f"postings must be a positive integer, got {postings!r}")
        nodes = [f for f in graph.functions() if modules or f.kind != "module"]
        self._index, self.idf = _build(((f.id, _counts(f)) for f in nodes), postings)
        self.size = len(nodes)

    @property
    def postings(self) -> dict[str, tuple[tuple[str, float], ...]]:
        """Each word's best documents with its BM25 contribution to each (a store pushes them)."""
        return self._index

    def scores(self, question: str) -> dict[str, float]:
        """BM25 score of every function node sharing a word with ``question`` (unordered)."""
        return add_up(question_words(question), self._index)

    def search(self, question: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best function nodes for ``question``, scores scaled to the best's 1.0."""
        return best_hits(self.scores(question), k)


def question_words(question: str) -> list[str]:
    """The distinct folded words of ``question``, in order: the words whose postings count."""
    return list(dict.fromkeys(_text_words(question)))


def best_hits(found: Mapping[str, float], k: int) -> list[tuple[str, float]]:
    """The ``k`` best of ``found`` (node -> BM25 score), scores scaled to the best's 1.0.

    Examples
    --------
    >>> best_hits({"fn:a": 2.0, "fn:b": 4.0, "fn:c": 0.0}, 5)
    [('fn:b', 1.0), ('fn:a', 0.5)]
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
    best = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k]
    top = best[0][1] if best else 1.0
    return [(node_id, round(score / top, 6)) for node_id, score in best if score > 0]


def add_up(words: Iterable[str],
           postings: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, float]:
    """Each node's BM25 score: its impacts in the postings of ``words``, added in their order.

    The order is fixed so that a graph store, given the same postings, adds the same
    floats in the same order as the index in memory: the same scores, to the last bit.
    """
    found: dict[str, float] = defaultdict(float)
    for word in words:
        for node_id, impact in postings.get(word, ()):
            found[node_id] += impact
    return found


def _build(docs: Iterable[tuple[str, Counter[str]]], postings: int,
           ) -> tuple[dict[str, tuple[tuple[str, float], ...]], dict[str, float]]:
    counts: list[tuple[str, Counter[str], int]] = []
    df: Counter[str] = Counter()
    for node_id, tf in docs:
        counts.append((node_id, tf, tf.total()))
        df.update(tf.keys())
    n = len(counts)
    mean = sum(length for _, _, length in counts) / n if n else 1.0
    idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
    lists: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for node_id, tf, length in counts:
        norm = _K1 * (1 - _B + _B * length / (mean or 1.0))
        for word, c in tf.items():
            lists[word].append((node_id, idf[word] * c * (_K1 + 1) / (c + norm)))
    index = {w: tuple(hits if len(hits) <= postings
                      else heapq.nsmallest(postings, hits, key=lambda h: (-h[1], h[0])))
             for w, hits in lists.items()}
    return index, idf

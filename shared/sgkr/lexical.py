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

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

from .errors import InvalidArgumentError
from .graph import KnowledgeGraph
from .records import FunctionNode
from .text import fold

__all__ = ["LexicalIndex", "node_words", "DEFAULT_POSTINGS"]

DEFAULT_POSTINGS = 256
_K1 = 1.2
_B = 0.75
_NAME_REPEAT = 3


def node_words(node: FunctionNode) -> list[str]:
    """The folded words a function node is indexed by (name three times, then the rest).

    Examples
    --------
    >>> from sgkr.records import FunctionNode
    >>> node_words(FunctionNode("fn:m.C.get_fees", "get_fees", ("m.C.get_fees",),
    ...                         "def get_fees(self): ...", "", (), "method"))
    ['get', 'fee', 'get', 'fee', 'get', 'fee', 'c', 'def', 'get', 'fee', 'self']
    """
    name = list(fold(node.name)) * _NAME_REPEAT
    owners = {q.rsplit(".", 2)[-2] for q in node.qualnames if q.count(".") >= 2}
    owner = [w for o in sorted(owners) for w in fold(o)] if node.kind == "method" else []
    return name + owner + list(fold(node.knowledge)) + list(fold(node.shown_code))


class LexicalIndex:
    """BM25 over the function nodes of a graph, with truncated impact-ordered postings.

    Parameters
    ----------
    graph
        The graph whose function nodes are indexed (read once, here).
    postings
        Most documents kept per word (its best ones).
    modules
        Whether module bodies are indexed too.
    """

    def __init__(self, graph: KnowledgeGraph, *, postings: int = DEFAULT_POSTINGS,
                 modules: bool = True) -> None:
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        if not isinstance(postings, int) or isinstance(postings, bool) or postings < 1:
            raise InvalidArgumentError(f"postings must be a positive integer, got {postings!r}")
        nodes = [f for f in graph.functions() if modules or f.kind != "module"]
        self._index, self.idf = _build(((f.id, node_words(f)) for f in nodes), postings)
        self.size = len(nodes)

    def scores(self, question: str) -> dict[str, float]:
        """BM25 score of every function node sharing a word with ``question`` (unordered)."""
        found: dict[str, float] = defaultdict(float)
        for word in dict.fromkeys(fold(question)):
            for node_id, impact in self._index.get(word, ()):
                found[node_id] += impact
        return found

    def search(self, question: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` best function nodes for ``question``, scores scaled to the best's 1.0."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
        found = self.scores(question)
        best = sorted(found.items(), key=lambda item: (-item[1], item[0]))[:k]
        top = best[0][1] if best else 1.0
        return [(node_id, round(score / top, 6)) for node_id, score in best if score > 0]


def _build(docs: Iterable[tuple[str, list[str]]], postings: int,
           ) -> tuple[dict[str, tuple[tuple[str, float], ...]], dict[str, float]]:
    counts: list[tuple[str, Counter[str], int]] = []
    df: Counter[str] = Counter()
    for node_id, found in docs:
        tf = Counter(found)
        counts.append((node_id, tf, len(found)))
        df.update(tf.keys())
    n = len(counts)
    mean = sum(length for _, _, length in counts) / n if n else 1.0
    idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
    lists: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for node_id, tf, length in counts:
        norm = _K1 * (1 - _B + _B * length / (mean or 1.0))
        for word, c in tf.items():
            lists[word].append((node_id, idf[word] * c * (_K1 + 1) / (c + norm)))
    index = {w: tuple(sorted(hits, key=lambda h: (-h[1], h[0]))[:postings])
             for w, hits in lists.items()}
    return index, idf

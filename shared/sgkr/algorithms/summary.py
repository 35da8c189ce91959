"""What retrieval reads of the whole graph, in one record made once and persisted with it.

A retriever over a graph in memory looks tags up by their folded phrases,
functions by their bare names, and weighs functions by how many call them.
Each of those tables reads every node of the graph: on the standard library
(12,000 tags, 17,000 functions) about a quarter of a second, which a lazy
retriever paid on its first question. :func:`summarize` makes them at build
time; the lexical index file beside graph.json carries them
(:mod:`sgkr.algorithms.lexicalfile`), so a retriever over a loaded graph
answers its first question as fast as the next. :func:`summary_of` gives the
summary attached to a graph (read from disk) or makes it (and attaches it).

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def total_fee(a):\\n    return fee(a)\\n"
...                           "def fee(a):\\n    return a\\n")])
>>> s = summarize(g)
>>> s.callers["fn:m.fee"], s.named["fee"], s.calling
(1, ('fn:m.fee',), 1)
>>> read_summary(summary_json(s), "x") == s
True
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from operator import attrgetter
from typing import Any

from ..errors import GraphFormatError, InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..graph.views import Neighbours
from ..records import Role, TagNode
from ..tags.vocabulary import PhraseWords
from ..text import fold

__all__ = ["GraphSummary", "PhraseWords", "tag_role", "summarize", "summary_of", "attach_summary",
           "summary_json", "read_summary"]

_by_id = attrgetter("id")
_ROLES: frozenset[str] = frozenset({"input", "output", "both"})


@dataclass(frozen=True)
class GraphSummary:
    """The whole-graph tables of retrieval (see the module documentation).

    Attributes
    ----------
    phrases
        Each folded phrase of a tag label or alias, with the ids of the tags it
        names, sorted.
    roles
        Each tag's role: ``input`` (only consumed), ``output`` (only produced)
        or ``both``.
    callers
        Each function node's number of callers (``calls`` edges into it),
        module bodies included.
    named
        The ids of the function nodes of each bare name (module bodies aside), sorted.
    calling
        How many function nodes call some function.
    words
        The words of the phrases.
    """

    phrases: Mapping[str, tuple[str, ...]]
    roles: Mapping[str, Role]
    callers: Mapping[str, int]
    named: Mapping[str, tuple[str, ...]]
    calling: int
    words: PhraseWords

    @cached_property
    def longest(self) -> int:
        """Most words in a phrase (counted once: every question asks)."""
        return max((p.count(" ") + 1 for p in self.phrases), default=0)


def summarize(graph: KnowledgeGraph) -> GraphSummary:
    """The :class:`GraphSummary` of ``graph`` (every node read once).

    Raises
    ------
    InvalidArgumentError
        If ``graph`` is not a :class:`~sgkr.graph.KnowledgeGraph`.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    succ, pred = graph.adjacency()
    phrases: dict[str, list[str]] = {}
    roles: dict[str, Role] = {}
    callers: dict[str, int] = {}
    named: dict[str, list[str]] = {}
    calling = 0
    for record in sorted(graph.records(), key=_by_id):  # by id: each list of ids is sorted
        node = record.id
        if isinstance(record, TagNode):
            roles[node] = _role(succ, pred, node)
            # Each phrase of a tag once (a label and an alias may fold alike).
            for key in dict.fromkeys(map(_phrase, (record.label, *record.aliases))):
                if key:
                    phrases.setdefault(key, []).append(node)
            continue
        callers[node] = sum(1 for d in pred[node].values() if d["type"] == "calls")
        calling += any(d["type"] == "calls" for d in succ[node].values())
        if record.kind != "module":
            named.setdefault(record.name, []).append(node)
    return GraphSummary({p: tuple(ids) for p, ids in phrases.items()}, roles, callers,
                        {n: tuple(ids) for n, ids in named.items()}, calling,
                        PhraseWords.of(phrases))


@functools.lru_cache(maxsize=1 << 16)
def _phrase(text: str) -> str:
    """The folded phrase of a tag's label or alias (the same labels come back at each save
    of a graph that is updated, and each fold costs a few regular expressions)."""
    return " ".join(fold(text))


def tag_role(graph: KnowledgeGraph, node_id: str) -> Role:
    """``input`` (only consumed), ``output`` (only produced) or ``both``, from the tag's
    edges in ``graph``.

    Examples
    --------
    >>> from sgkr.records import TagNode
    >>> g = KnowledgeGraph()
    >>> g.add_tag(TagNode("tag:fee", "fee"))
    >>> tag_role(g, "tag:fee")
    'input'
    """
    succ, pred = graph.adjacency()
    return _role(succ, pred, node_id)


def _role(succ: Neighbours, pred: Neighbours, tag: str) -> Role:
    # Only consumes edges leave a tag and only produces edges reach one.
    consumed, produced = bool(succ[tag]), bool(pred[tag])
    if consumed and produced:
        return "both"
    return "output" if produced else "input"


# The summary of each graph, with the revision it was made at (a changed graph gets a new one).
_ATTACHED: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, GraphSummary]] = \
    weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def attach_summary(graph: KnowledgeGraph, summary: GraphSummary) -> None:
    """Make ``summary`` the one :func:`summary_of` gives for ``graph`` as it is now.

    The caller vouches that it is ``graph``'s (:mod:`sgkr.algorithms.lexicalfile` checks
    that the graph file read is the one it was saved with, and its keys against the graph).
    """
    if not isinstance(graph, KnowledgeGraph) or not isinstance(summary, GraphSummary):
        raise InvalidArgumentError("attach_summary takes a KnowledgeGraph and a GraphSummary")
    with _LOCK:
        _ATTACHED[graph] = (graph.revision, summary)


def summary_of(graph: KnowledgeGraph) -> GraphSummary:
    """The summary of ``graph``: the one attached to it, or one made now (and attached).

    A graph changed since its summary was made gets a new one.
    """
    found = _ATTACHED.get(graph)
    if found is not None and found[0] == graph.revision:
        return found[1]
    summary = summarize(graph)
    attach_summary(graph, summary)
    return summary


def summary_json(summary: GraphSummary) -> dict[str, Any]:
    """``summary`` as JSON-ready data (what :func:`read_summary` reads back)."""
    return {"phrases": {p: list(ids) for p, ids in summary.phrases.items()},
            "roles": dict(summary.roles), "callers": dict(summary.callers),
            "named": {n: list(ids) for n, ids in summary.named.items()},
            "calling": summary.calling,
            "words": {w: list(ps) for w, ps in summary.words.phrases_of.items()}}


def read_summary(data: Any, where: str) -> GraphSummary:
    """The summary written as ``data`` by :func:`summary_json`, checked.

    Raises
    ------
    GraphFormatError
        If ``data`` does not have the shape and types of a summary; the message
        names ``where``.
    """
    if not isinstance(data, dict) or set(data) != {"phrases", "roles", "callers", "named",
                                                   "calling", "words"}:
        raise GraphFormatError(f"{where}: the summary must have phrases, roles, callers, "
                               "named, calling and words")
    phrases, named = _lists(data["phrases"], where, "phrases"), _lists(data["named"], where,
                                                                       "named")
    roles, callers, calling = data["roles"], data["callers"], data["calling"]
    if not isinstance(roles, dict) or not _all(roles.values(), str) \
            or not _ROLES.issuperset(roles.values()):
        raise GraphFormatError(f"{where}: each tag's role must be input, output or both")
    if not isinstance(callers, dict) or not set(map(type, callers.values())) <= {int} \
            or min(callers.values(), default=0) < 0:
        raise GraphFormatError(f"{where}: each function's callers must be a count")
    if type(calling) is not int or not 0 <= calling <= len(callers):
        raise GraphFormatError(f"{where}: calling must count some of the functions")
    if not roles.keys() >= set(chain.from_iterable(phrases.values())) \
            or not callers.keys() >= set(chain.from_iterable(named.values())):
        raise GraphFormatError(f"{where}: a phrase or a name lists an unknown node")
    words = _lists(data["words"], where, "words")
    if not phrases.keys() >= set(chain.from_iterable(words.values())):
        raise GraphFormatError(f"{where}: a word lists an unknown phrase")
    return GraphSummary(phrases, roles, callers, named, calling,
                        PhraseWords(len(phrases), words))


def _all(values: Iterable[Any], kind: type) -> bool:
    """Whether each of ``values`` is a ``kind`` (checked once for each type among them)."""
    return all(issubclass(t, kind) for t in set(map(type, values)))


def _lists(value: Any, where: str, what: str) -> dict[str, tuple[str, ...]]:
    # Never empty, as summarize makes them: a word of no phrase would weigh 1 / 0.
    if not isinstance(value, dict) or not _all(value.values(), list) \
            or not all(value.values()) \
            or not _all(chain.from_iterable(value.values()), str):
        raise GraphFormatError(f"{where}: {what} must map each key to a non-empty list of ids")
    return dict(zip(value, map(tuple, value.values()), strict=True))

"""The graph stage's score of each function it reaches, whatever ``k``.

``sure`` times the first stage's hits (the best 1) and ``1 - sure`` times
``walk`` times the walk's score (a personalized PageRank from the matched tags,
the path functions, the best hits and the named functions, times the centrality
prior, over the length to the ``brevity``; the best 1), where ``sure`` is how
sure the first stage is (:func:`lexical_hits`); plus ``mentions`` times the
mention scores of the functions the question names (the best 1), plus ``reuse``
times the share of the calling functions that call it (the helpers everything
reuses; off by default). The pools are fixed, so the order never depends on ``k``.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.stores import MemoryStore
>>> code = ("def parse_rate(text):\\n    return float(text)\\n"
...         "def total_fee(amount, text):\\n    return amount * parse_rate(text)\\n")
>>> store = MemoryStore(build_graph([("fees.py", code)]))
>>> hits = lexical_hits(store, "total_fee is wrong", evidence=10.0)
>>> scores = graph_scores(store, "total_fee is wrong", RetrieverOptions(), hits=hits)
>>> sorted(scores)  # the named function, and the helper it calls
['fn:fees.parse_rate', 'fn:fees.total_fee']
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..algorithms.walk import centrality_prior, personalized_pagerank
from ..records import TagMatch
from ..stores import RankingReader
from .mentions import mentions
from .options import DEFAULT_K, RetrieverOptions

__all__ = ["graph_scores", "walk_scores", "lexical_hits", "fused", "confidence", "POOL"]

#: The first stage's hits the graph stage scores (and the most-called functions it weighs).
POOL = 100
#: The best hits that seed the walk.
_SEEDS = DEFAULT_K
Hits = tuple[Mapping[str, float], float]


def lexical_hits(reader: RankingReader, question: str, *, evidence: float) -> Hits:
    """The first stage's :data:`POOL` best BM25 hits and how sure it is of them, from 0 to 1.

    BM25 is as sure as its best score ``s`` says: ``s / (s + evidence)``; a
    question of a few words matches weakly (``s`` near 10), a bug report that
    names the code strongly (``s`` in the hundreds).
    """
    found = dict(reader.lexical_search(question, POOL, scaled=False))
    top = max(found.values(), default=0.0)
    return found, top / (top + evidence) if top > 0 else 0.0


def confidence(reader: RankingReader, matches: Sequence[TagMatch], sure: float,
               named: Mapping[str, float] | None = None) -> float:
    """How sure SGKR is that the question is about this graph, from 0 to 1: the first
    stage's confidence ``sure`` (:func:`lexical_hits`); the best of its tag matches, each
    as sure as its match times the tag's specificity; or the best share of a name it gives
    as code (:func:`~sgkr.retrieval.mentions.mentions`: 1 for a name one function has);
    whichever is more.

    0 means the question matched nothing that tells: no word of the index, no specific
    tag, no function's name.

    Examples
    --------
    >>> from sgkr import build_graph
    >>> from sgkr.stores import MemoryStore
    >>> store = MemoryStore(build_graph([("m.py", "def fee(rate):\\n    return rate\\n")]))
    >>> confidence(store, [], 0.4), confidence(store, [], 0.0)
    (0.4, 0.0)
    """
    weights = reader.tags([m.tag_id for m in matches]) if matches else {}
    tagged = max((m.score * (weights[m.tag_id].weight if m.tag_id in weights else 1.0)
                  for m in matches), default=0.0)
    return max(sure, tagged, min(max((named or {}).values(), default=0.0), 1.0))


def graph_scores(reader: RankingReader, question: str, options: RetrieverOptions, *,
                 hits: Hits, matches: Sequence[TagMatch] = (),
                 ranked: Sequence[tuple[str, float]] = (),
                 named: Mapping[str, float] | None = None) -> dict[str, float]:
    """Each function's fused score (see the module documentation).

    Parameters
    ----------
    reader
        The graph.
    question
        The question.
    options
        The retriever's options (``mentions``, ``walk``, ``reuse``, ``centrality``,
        ``brevity``, ``fill``).
    hits
        The first stage's hits and how sure it is of them, from 0 to 1.
    matches
        The question's tags.
    ranked
        The path functions, scored.
    named
        The functions the question names (:func:`~sgkr.retrieval.mentions.mentions`), if
        found already.
    """
    o = options
    found, sure = hits
    ppr = o.fill == "ppr"
    if not o.mentions:
        named = {}
    elif named is None:
        named = mentions(question, reader)
    walk = walk_scores(reader, matches, ranked, found, named) if ppr else {}
    central = reader.most_called(POOL) if ppr and o.reuse else []
    kinds = reader.kinds({*walk, *central})
    reached = [n for n in {**walk, **dict.fromkeys(central)} if kinds.get(n, "tag") != "tag"]
    callers, size = reader.callers_and_sizes(reached)
    walked = {n: walk[n] * (1.0 + o.centrality * centrality_prior(callers[n]))
              / size[n] ** o.brevity for n in reached if n in walk}
    calling = reader.calling_count() if central else 0
    reused = {n: callers[n] / calling for n in central if n in callers} if calling else {}
    out = fused({}, ((sure, found), (o.mentions, named),
                     ((1.0 - sure) * o.walk if ppr else 0.0, walked)))
    for node, share in reused.items():
        out[node] = out.get(node, 0.0) + o.reuse * share
    return out


def walk_scores(reader: RankingReader, matches: Sequence[TagMatch],
                ranked: Sequence[tuple[str, float]], hits: Mapping[str, float],
                named: Mapping[str, float]) -> dict[str, float]:
    """The personalized PageRank walk from the question's seeds (tags and functions), over
    every edge either way."""
    seeds: dict[str, float] = defaultdict(float)
    # Each kind of seed (matched tags, path functions, lexical matches, named functions)
    # gets an equal share of the restart mass, split within it by score (a tag's: how
    # sure its match is times how specific the tag is): five generic tags do not drown
    # the one function named like the question, nor the reverse.
    specific = reader.tags([m.tag_id for m in matches]) if matches else {}
    tags = [(m.tag_id, m.score * (specific[m.tag_id].weight if m.tag_id in specific
                                  else 1.0)) for m in matches]
    best = sorted(hits.items(), key=lambda item: (-item[1], item[0]))[:_SEEDS]
    for group in (tags, ranked, best, sorted(named.items())):
        total = sum(score for _, score in group)
        for node, score in group:
            seeds[node] += score / total if total else 0.0
    return personalized_pagerank(reader.around, seeds)


def fused(hits: Mapping[str, float],
          weighted: Sequence[tuple[float, Mapping[str, float]]]) -> dict[str, float]:
    """``hits`` plus, for each ``(weight, scores)``, ``weight`` times the scores over their best.

    Examples
    --------
    >>> fused({"a": 1.0, "b": 0.5}, [(0.5, {"b": 2.0}), (0.1, {"c": 4.0, "a": 2.0})])
    {'a': 1.05, 'b': 1.0, 'c': 0.1}
    """
    out: dict[str, float] = dict(hits)
    for weight, scores in weighted:
        top = max(scores.values(), default=0.0)
        if weight and top > 0:
            for node, score in scores.items():
                out[node] = out.get(node, 0.0) + weight * score / top
    return out

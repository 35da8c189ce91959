"""The question's tags specific enough to say what it is about.

A tag's specificity is ``log((n + 1) / (d + 1)) / log(n + 1)`` for ``n``
functions and ``d`` functions consuming or producing it (an inverse document
frequency, scaled to [0, 1]); tags below the threshold are dropped (``get``,
``data`` or ``self`` inferred on every function say nothing).

Examples
--------
>>> specificity(functions=99, degree=0), specificity(functions=99, degree=99)
(1.0, 0.0)
"""

from __future__ import annotations

import math

from ..records import TagMatch
from ..stores import RankingReader

__all__ = ["specific_matches", "specificity"]


def specificity(*, functions: int, degree: int) -> float:
    """How specific a tag consumed or produced by ``degree`` of ``functions`` functions is."""
    return math.log((functions + 1) / (degree + 1)) / math.log(functions + 1)


def specific_matches(reader: RankingReader, matches: list[TagMatch],
                     threshold: float) -> list[TagMatch]:
    """``matches`` less the tags whose specificity is below ``threshold`` (all of them on a
    graph of fewer than two functions, or with a threshold of 0)."""
    if not matches or not threshold:
        return matches
    n = reader.function_count()
    if n < 2:
        return matches
    ids = [m.tag_id for m in matches]
    consumers = reader.neighbours(ids, "consumes", "out")
    producers = reader.neighbours(ids, "produces", "in")
    kept = []
    for m in matches:
        degree = len(set(consumers.get(m.tag_id, ())) | set(producers.get(m.tag_id, ())))
        if specificity(functions=n, degree=degree) >= threshold:
            kept.append(m)
    return kept

"""Retrieval metrics: recall, precision and full cover of gold functions; context size.

Functions are compared by bare name. Precision counts *distinct* gold names
found per retrieved node, so a duplicate copy of a gold function (as an
unmerged graph retrieves) counts as a wasted node. An empty retrieval has
precision 0.

Context tokens are counted by :func:`count_tokens`: the regular expression
``\\w+|[^\\w\\s]`` (runs of letters, digits and underscores, and single
punctuation marks), a tokenizer-free stand-in for an LLM's token count.

Examples
--------
>>> s = score_question(["a", "b"], ["a", "x", "a"])
>>> s.recall, s.precision, s.full_cover
(0.5, 0.3333333333333333, False)
>>> count_tokens("def f(x): return x+1")
10
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidArgumentError

__all__ = ["QuestionScore", "Summary", "score_question", "count_tokens", "summarize",
           "percentile"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class QuestionScore:
    """One retriever's score on one question."""

    recall: float
    precision: float
    full_cover: bool
    found: tuple[str, ...]
    missed: tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """Means over the questions of a dataset (latency: the median, in milliseconds)."""

    questions: int
    recall: float
    precision: float
    full_cover: float
    nodes: float
    tokens: float
    latency_ms_p50: float

    def to_dict(self) -> dict[str, float | int]:
        """Plain numbers for JSON."""
        return {"questions": self.questions, "recall": self.recall, "precision": self.precision,
                "full_cover": self.full_cover, "nodes": self.nodes, "tokens": self.tokens,
                "latency_ms_p50": self.latency_ms_p50}


def count_tokens(text: str) -> int:
    """Tokens of ``text`` by the regular expression ``\\w+|[^\\w\\s]``."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"text must be a string, got {type(text).__name__}")
    return len(_TOKEN.findall(text))


def score_question(gold: Sequence[str], retrieved: Sequence[str]) -> QuestionScore:
    """Score the bare names ``retrieved`` (one per node, best first) against ``gold``.

    Raises
    ------
    InvalidArgumentError
        If ``gold`` is empty (such a question cannot be scored).
    """
    wanted = list(dict.fromkeys(gold))
    if not wanted:
        raise InvalidArgumentError("gold must name at least one function")
    got = set(retrieved)
    found = tuple(g for g in wanted if g in got)
    missed = tuple(g for g in wanted if g not in got)
    precision = len(found) / len(retrieved) if retrieved else 0.0
    return QuestionScore(len(found) / len(wanted), precision, not missed, found, missed)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; 0 for no values.

    Examples
    --------
    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.5
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(scores: Sequence[QuestionScore], nodes: Sequence[int], tokens: Sequence[int],
              latencies_ms: Sequence[float]) -> Summary:
    """Means of per-question scores, nodes and tokens; median latency."""
    n = len(scores)
    if not (n == len(nodes) == len(tokens) == len(latencies_ms)):
        raise InvalidArgumentError("scores, nodes, tokens and latencies differ in length")

    def mean(values: Sequence[float]) -> float:
        return sum(values) / n if n else 0.0

    return Summary(
        questions=n,
        recall=mean([s.recall for s in scores]),
        precision=mean([s.precision for s in scores]),
        full_cover=mean([1.0 if s.full_cover else 0.0 for s in scores]),
        nodes=mean([float(x) for x in nodes]),
        tokens=mean([float(x) for x in tokens]),
        latency_ms_p50=percentile(latencies_ms, 50),
    )

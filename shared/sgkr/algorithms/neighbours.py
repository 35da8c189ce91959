"""The earlier questions most like a new one, and the votes of their solutions.

A graph built from solved tasks keeps each earlier question with the functions
its solution uses and the tags it grounds (:class:`~sgkr.records.SolvedTask`).
:class:`TaskIndex` indexes the questions by BM25 (the first stage's tokenizer and
scoring, :mod:`sgkr.algorithms.lexical`). An earlier question is as similar to a
new one as its BM25 score says, times ``1 +`` the share of the new question's tags
(each by its weight) that it grounds too: two questions worded alike that give or
ask for different things (the most expensive *ACI*, the most expensive *MCC*) are
told apart by their tags. :meth:`TaskIndex.votes` lets the ``n`` most similar vote
for what their solutions use, each with its similarity squared (the nearest
questions' solutions count most), and gives each function its share of the votes,
from 0 to 1: the estimated chance that a solution of a question like this one
uses it.

Examples
--------
>>> from sgkr.records import SolvedTask
>>> index = TaskIndex([SolvedTask("task:1", "What is the average fee?", ("fn:load", "fn:avg")),
...                    SolvedTask("task:2", "Which merchant pays most fees?", ("fn:load",))])
>>> [t for t, _ in index.neighbours("the average fee of a merchant", 5)]
['task:1', 'task:2']
>>> votes = index.votes("the average fee of a merchant", 5)
>>> votes.share["fn:load"], round(votes.share["fn:avg"], 2)
(1.0, 0.61)
>>> sorted(index.asked("Which merchant?"))
['fn:load']
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgumentError
from ..records import SolvedTask
from .counts import Counts, count_fields, weigh
from .lexical import LexicalIndex
from .tokens import code_tokens

__all__ = ["TaskIndex", "Votes", "POWER"]

#: A neighbour's vote is its BM25 similarity to this power: the nearest questions, whose
#: solutions most likely look like the new one's, count most.
POWER = 2.0


@dataclass(frozen=True)
class Votes:
    """What the neighbours' solutions use: each node's share of the votes, and who voted.

    ``voters`` lists, for each node, the ids of the neighbour tasks whose solution uses
    it, the most similar first.
    """

    share: dict[str, float]
    voters: dict[str, tuple[str, ...]]
    neighbours: tuple[tuple[str, float], ...] = ()


class TaskIndex:
    """BM25 over the questions of solved tasks (see the module documentation).

    Parameters
    ----------
    tasks
        The solved tasks of a graph.
    groups
        The group of each function node that :meth:`asked` scores as one document (the
        copies of one helper, say); a node not named is a group of its own.
    """

    def __init__(self, tasks: Sequence[SolvedTask],
                 groups: Mapping[str, str] | None = None) -> None:
        self.tasks = tuple(tasks)
        self._by_id = {t.id: t for t in self.tasks}
        counts = count_fields([[t.question for t in self.tasks]])
        self._index = LexicalIndex.from_arrays([t.id for t in self.tasks], counts.words,
                                               *weigh(counts, [1.0]), "")
        groups = groups or {}
        members: dict[str, dict[str, None]] = defaultdict(dict)
        for task in self.tasks:
            for node in task.uses:
                members[groups.get(node, node)][node] = None
        self._members = {g: tuple(nodes) for g, nodes in members.items()}
        self._asked = _asked_index(self.tasks, counts, groups)

    def neighbours(self, question: str, n: int) -> list[tuple[str, float]]:
        """The ``n`` tasks whose questions are most like ``question``, with their BM25 score,
        best first (ties by id); those sharing no word are left out."""
        if not isinstance(n, int) or n < 1:
            raise InvalidArgumentError(f"n must be a positive integer, got {n!r}")
        if not self.tasks:
            return []
        return self._index.search(question, n, scaled=False)

    def votes(self, question: str, n: int, tags: Mapping[str, float] | None = None) -> Votes:
        """The votes of the ``n`` nearest tasks for what their solutions use.

        ``tags``: the new question's tags (ids) with their weights; a task's similarity is
        its BM25 score times ``1 +`` the weighted share of them it grounds.
        """
        found = self.neighbours(question, n)
        weights = [(task, (score * (1.0 + self.overlap(task, tags or {}))) ** POWER)
                   for task, score in found]
        total = sum(w for _, w in weights)
        share: dict[str, float] = defaultdict(float)
        voters: dict[str, list[str]] = defaultdict(list)
        for task, weight in weights:
            for node in self._by_id[task].uses:
                share[node] += weight / total
                voters[node].append(task)
        return Votes({node: min(s, 1.0) for node, s in share.items()},
                     {node: tuple(v) for node, v in voters.items()}, tuple(found))

    def cover(self, question: str) -> float:
        """How much of ``question`` its most similar earlier question covers, from 0 to 1: the
        share of the question's words that one holds too, each word weighed by its inverse
        document frequency among the earlier questions (a word none of them has weighs
        most). 0 without a similar question.

        Examples
        --------
        >>> index = TaskIndex([SolvedTask("task:1", "What is the average fee?", ()),
        ...                    SolvedTask("task:2", "Which merchant pays most?", ())])
        >>> index.cover("the average fee"), round(index.cover("the average fee of a refund"), 2)
        (1.0, 0.44)
        """
        best = self.neighbours(question, 1)
        # Numbers are the values a question is asked about, not what it asks.
        words = {w for w in code_tokens(question) if not w.isdigit()}
        if not best or not words:
            return 0.0
        near = set(code_tokens(self._by_id[best[0][0]].question))
        weight = {w: self._idf(w) for w in words}
        return sum(weight[w] for w in words & near) / sum(weight.values())

    def _idf(self, word: str) -> float:
        """BM25's inverse document frequency of ``word`` among the questions."""
        index = self._index
        n = index.vocabulary.get(word)
        found = 0 if n is None else int(index.indptr[n + 1] - index.indptr[n])
        return math.log(1.0 + (index.size - found + 0.5) / (found + 0.5))

    def overlap(self, task_id: str, tags: Mapping[str, float]) -> float:
        """The weighted share of ``tags`` (id -> weight) that the task grounds (0 without tags).

        Examples
        --------
        >>> index = TaskIndex([SolvedTask("task:1", "q", (), ("tag:mcc",), ("tag:fee",))])
        >>> index.overlap("task:1", {"tag:mcc": 0.5, "tag:aci": 0.5})
        0.5
        """
        total = sum(tags.values())
        if not total:
            return 0.0
        task = self._by_id[task_id]
        grounded = {*task.inputs, *task.outputs}
        return sum(w for t, w in tags.items() if t in grounded) / total

    def task(self, task_id: str) -> SolvedTask:
        """The task of ``task_id``."""
        return self._by_id[task_id]

    def members(self, group: str) -> tuple[str, ...]:
        """The function nodes of ``group`` that solutions use (none for an unknown group)."""
        return self._members.get(group, ())

    def asked(self, question: str) -> dict[str, float]:
        """The BM25 score for ``question`` of each group of functions (see ``groups``) whose
        document, the questions of the solutions using it, shares a word with it."""
        return self._asked.scores(question)


def _asked_index(tasks: Sequence[SolvedTask], counts: Counts,
                 groups: Mapping[str, str]) -> LexicalIndex:
    """BM25 over one document per group: the questions of the tasks whose solutions use it,
    counted from the questions' own counts (each question split into words once)."""
    names: dict[str, int] = {}
    pairs = [(t, names.setdefault(groups.get(node, node), len(names)))
             for t, task in enumerate(tasks) for node in dict.fromkeys(task.uses)]
    pair_task = np.array([t for t, _ in pairs], dtype=np.int64)
    pair_group = np.array([g for _, g in pairs], dtype=np.int64)
    word, doc, count = counts.fields[0] if counts.fields else (np.zeros(0, np.int32),) * 3
    order = np.argsort(doc, kind="stable")
    word, doc, count = word[order], doc[order], count[order]
    per_task = np.bincount(doc, minlength=len(tasks)) if len(tasks) else np.zeros(0, np.int64)
    starts = np.concatenate(([0], np.cumsum(per_task)))[:-1] if len(tasks) else per_task
    # Every (word, count) of each task's question, once for each group its solution uses.
    sizes = per_task[pair_task] if len(pairs) else np.zeros(0, np.int64)
    first = np.repeat(starts[pair_task] - np.concatenate(([0], np.cumsum(sizes)))[:-1], sizes) \
        if len(pairs) else np.zeros(0, np.int64)
    rows = first + np.arange(int(sizes.sum()))
    keys = word[rows].astype(np.int64) * max(len(names), 1) + np.repeat(pair_group, sizes)
    unique, inverse = np.unique(keys, return_inverse=True)
    summed = np.bincount(inverse, weights=count[rows], minlength=len(unique))
    span = max(len(names), 1)
    grouped = Counts(counts.words, (((unique // span).astype(np.int32),
                                     (unique % span).astype(np.int32),
                                     summed.astype(np.int32)),), len(names))
    return LexicalIndex.from_arrays(list(names), counts.words, *weigh(grouped, [1.0]), "")

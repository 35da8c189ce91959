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

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgumentError
from ..records import FunctionNode, SolvedTask
from .counts import Counts, count_fields, weigh
from .lexical import LexicalIndex

__all__ = ["TaskIndex", "Votes", "POWER", "slot_key", "task_groups"]

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

    Attributes
    ----------
    members_of
        The function nodes of each group that solutions use.
    questions
        BM25 over the questions, one document per task (ids: the tasks' ids).
    asked_index
        BM25 over one document per group: the questions of the tasks using it.
    """

    def __init__(self, tasks: Sequence[SolvedTask],
                 groups: Mapping[str, str] | None = None) -> None:
        self.tasks = tuple(tasks)
        self._by_id = {t.id: t for t in self.tasks}
        groups = groups or {}
        members: dict[str, dict[str, None]] = defaultdict(dict)
        for task in self.tasks:
            for node in task.uses:
                members[groups.get(node, node)][node] = None
        self.members_of = {g: tuple(nodes) for g, nodes in members.items()}
        counts = count_fields([[t.question for t in self.tasks]])
        self.questions = LexicalIndex.from_arrays([t.id for t in self.tasks], counts.words,
                                                  *weigh(counts, [1.0]), "")
        self.asked_index = _asked_index(self.tasks, counts, groups)

    @classmethod
    def from_parts(cls, tasks: Sequence[SolvedTask], members: Mapping[str, tuple[str, ...]],
                   questions: LexicalIndex, asked: LexicalIndex) -> TaskIndex:
        """The index of ``tasks`` from its parts (:attr:`members_of`, :attr:`questions`,
        :attr:`asked_index`) made before, as :mod:`sgkr.algorithms.taskfile` reads them."""
        index = cls.__new__(cls)
        index.tasks = tuple(tasks)
        index._by_id = {t.id: t for t in index.tasks}
        index.members_of = dict(members)
        index.questions, index.asked_index = questions, asked
        return index

    def neighbours(self, question: str, n: int) -> list[tuple[str, float]]:
        """The ``n`` tasks whose questions are most like ``question``, with their BM25 score,
        best first (ties by id); those sharing no word are left out."""
        if not isinstance(n, int) or n < 1:
            raise InvalidArgumentError(f"n must be a positive integer, got {n!r}")
        if not self.tasks:
            return []
        return self.questions.search(question, n, scaled=False)

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
        return self.members_of.get(group, ())

    def asked(self, question: str) -> dict[str, float]:
        """The BM25 score for ``question`` of each group of functions (see ``groups``) whose
        document, the questions of the solutions using it, shares a word with it."""
        return self.asked_index.scores(question)


def slot_key(f: FunctionNode, solutions: Collection[str]) -> str:
    """The slot of function ``f``: its bare name (and kind) when a solution defines it, so
    that the copies of one helper share a slot; else the node itself.

    Examples
    --------
    >>> from sgkr.records import SourceSpan
    >>> f = FunctionNode("fn:a.load", "load", ("a.load",), "", "", (SourceSpan("a.py", 1, 2),),
    ...                  "function")
    >>> slot_key(f, {"a.py"}), slot_key(f, {"b.py"})
    ('function load', 'fn:a.load')
    """
    if f.kind != "module" and any(s.file in solutions for s in f.sources):
        return f"{f.kind} {f.name}"
    return f.id


def task_groups(tasks: Sequence[SolvedTask], functions: Mapping[str, FunctionNode]
                ) -> dict[str, str]:
    """The slot (:func:`slot_key`) of each function of ``functions`` (id -> record) that the
    solutions of ``tasks`` use."""
    solutions = {t.source for t in tasks}
    return {n: slot_key(f, solutions) for n, f in functions.items()}


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

"""Answers from a graph of solved tasks: the earlier questions' evidence, fused with the paths.

On a graph built from earlier questions with their solutions, a new question is
answered by one ranking of *slots*, a slot being one distinct function:

- copies of a helper that several solutions define under one name (merged or not:
  their code may differ a little) are one slot, shown by the copy with the most
  callers, the others noted as its variants;
- a slot scores its share of the votes of the nearest earlier questions (the weighted
  share of them whose solution uses it: :meth:`~sgkr.algorithms.neighbours.TaskIndex.votes`),
  plus ``w`` times each of three other pieces of evidence, each scaled to the best 1: the
  words of the earlier questions whose solutions use it
  (:meth:`~sgkr.algorithms.neighbours.TaskIndex.asked`), the words of its own document (the
  first stage's BM25), and the graph's own answer (the paper's dependency paths between
  the question's tags over the tags the earlier questions grounded, then the graph stage),
  ``w`` being the ``boost`` option (:data:`BOOST`): the votes carry this score, the other
  evidence orders the slots the votes leave close;
- the answer's first two slots (:data:`HEAD`) are the best by that score; after them, the
  best left by that score and the best left by the other evidence alone take turns: the
  votes find the helpers solutions of such questions share, the question's own evidence
  the functions specific to it, which few earlier solutions use (each slot once; a slot's
  score is the reciprocal of its rank);
- drivers take few slots: module bodies as many as ``scripts`` (default none), and
  ``main`` and ``run`` one between them, unless the question names them.

Each slot keeps the earlier questions that used it (provenance) and its variants.

Examples
--------
>>> from sgkr import build_graph
>>> from sgkr.tags import Example
>>> from sgkr.stores import MemoryStore
>>> load = "def load():\\n    return []\\n"
>>> ex = [Example("1", "What is the average fee?", "a.py",
...               load + "def average_fee(r):\\n    return 1\\nprint(average_fee(load()))\\n",
...               (), ()),
...       Example("2", "Which merchant is the largest?", "b.py",
...               load + "def largest(r):\\n    return 2\\nprint(largest(load()))\\n", (), ())]
>>> store = MemoryStore(build_graph([], examples=ex))
>>> found = solved_slots(store, TaskIndex(store.tasks()), "the average fee of a merchant",
...                      {}, [], scripts=0)
>>> [(s.node, s.voters) for s in found]
[('fn:load', ('task:1', 'task:2')), ('fn:a.average_fee', ('task:1',)), \
('fn:b.largest', ('task:2',))]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..algorithms.neighbours import POWER, TaskIndex, slot_key, task_groups
from ..algorithms.taskfile import task_index_of
from ..records import FunctionNode, SolvedTask
from ..stores import MemoryStore, RankingReader, TasksReader
from ..text import fold

__all__ = ["Slot", "solved_slots", "slot_key", "DRIVERS", "NEIGHBOURS", "BOOST", "HEAD",
           "has_tasks", "TaskCache"]

#: Earlier questions whose solutions vote for a new question's functions.
NEIGHBOURS = 20
#: What each other piece of evidence adds at most to a slot's share of the votes (chosen on
#: the first fold of payments, FinQA and ConvFinQA among 0.05, 0.1 and 0.2).
BOOST = 0.05
#: The first slots, the votes' (at the paper's FinQA budget, 2, the nearest questions'
#: solutions are the strongest evidence measured); then the votes and the question's own
#: evidence take turns.
HEAD = 2
#: Names of the functions that run a script: one slot between them, unless asked.
DRIVERS = frozenset({"main", "run"})



@dataclass(frozen=True)
class Slot:
    """One distinct function of an answer: the copy shown, its score, who used it, variants."""

    node: str
    score: float
    voters: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()


def has_tasks(reader: object) -> bool:
    """Whether ``reader`` reads a graph built from solved tasks."""
    return isinstance(reader, TasksReader) and bool(reader.tasks())


class TaskCache:
    """The :class:`~sgkr.algorithms.neighbours.TaskIndex` of the tasks a retriever reads,
    made once for each version of them (a retriever's clones share it)."""

    def __init__(self) -> None:
        self._made: tuple[tuple[SolvedTask, ...], TaskIndex] | None = None

    def index(self, reader: TasksReader) -> TaskIndex:
        """The index of ``reader``'s tasks (made now if they are new)."""
        if isinstance(reader, MemoryStore):  # saved with its graph, or made once for it
            return task_index_of(reader.graph)
        tasks = reader.tasks()
        made = self._made
        if made is None or made[0] is not tasks:
            used = {n for t in tasks for n in t.uses}
            made = self._made = (tasks, TaskIndex(tasks, task_groups(tasks,
                                                                     reader.functions(used))))
        return made[1]


def solved_slots(reader: RankingReader, index: TaskIndex, question: str,
                 lexical: Mapping[str, float], structure: Sequence[tuple[str, float]], *,
                 scripts: int, neighbours: int = NEIGHBOURS,
                 tags: Mapping[str, float] | None = None, boost: float = BOOST) -> list[Slot]:
    """Every slot of the answer to ``question``, best first (see the module documentation).

    Parameters
    ----------
    reader
        The graph.
    index
        Its solved tasks' index (:class:`TaskCache` makes it, grouped by slot).
    question
        The new question.
    lexical
        The first stage's BM25 scores.
    structure
        The answer of the graph without its earlier questions: the path functions, then the
        graph stage's, each with its score.
    scripts
        Most module bodies.
    neighbours
        Earlier questions that vote.
    tags
        The tags the question names, with their weights (an earlier question that
        grounds them too is the more similar).
    boost
        What each other piece of evidence adds at most to a slot's share of the votes.
    """
    votes = index.votes(question, neighbours, tags)
    asked = _best(index.asked(question).items(), _POOL)
    lexical = _best(lexical.items(), _POOL)
    found = [*votes.share, *lexical, *(n for n, _ in structure),
             *(n for g in asked for n in index.members(g))]
    records = reader.functions(set(found))
    solutions = {t.source for t in index.tasks}
    key = {n: slot_key(f, solutions) for n, f in records.items()}
    members: dict[str, list[str]] = {}
    for node in dict.fromkeys(found):
        if node in key:
            members.setdefault(key[node], []).append(node)
    share = _group_share(index, votes.neighbours, key, tags or {})
    # Module bodies are scored by the votes alone: they match a question's words best
    # (they hold its composition), and would set the scale of the evidence.
    code = {g for n, g in key.items() if records[n].kind != "module"}
    own = _evidence(({g: s for g, s in asked.items() if g in code},
                     _best_of(key, lexical.items(), code), _best_of(key, structure, code)))
    score = {g: share.get(g, 0.0) + boost * own.get(g, 0.0) for g in {*share, *own}}
    order = _alternate(sorted(score, key=lambda g: (-score[g], g)),
                       sorted(own, key=lambda g: (-own[g], g)) if boost else [], HEAD)
    callers, _ = reader.callers_and_sizes([n for n in records if records[n].kind != "module"])
    slots: list[Slot] = []
    drivers = _Drivers(question, scripts)
    for group in order:
        nodes = members[group]
        shown = min(nodes, key=lambda n: (-callers.get(n, 0), -len(votes.voters.get(n, ())), n))
        if drivers.admit(records[shown]):
            voters = tuple(dict.fromkeys(t for n in nodes for t in votes.voters.get(n, ())))
            slots.append(Slot(shown, round(1.0 / (len(slots) + 1), 6), voters,
                              tuple(n for n in nodes if n != shown)))
    return slots


def _evidence(parts: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Each slot's evidence other than the votes: the sum of each part scaled to the best 1."""
    total: dict[str, float] = {}
    for part in parts:
        top = max(part.values(), default=0.0) or 1.0
        for group, value in part.items():
            total[group] = total.get(group, 0.0) + value / top
    return total


def _alternate(first: Sequence[str], second: Sequence[str], head: int) -> list[str]:
    """The first ``head`` of ``first``, then ``second`` and ``first`` in turn, each once.

    Examples
    --------
    >>> _alternate(["a", "b", "c", "d"], ["x", "c", "y"], 2)
    ['a', 'b', 'x', 'c', 'd', 'y']
    """
    order = dict.fromkeys(first[:head])
    rest = first[head:]
    for i in range(max(len(rest), len(second))):
        for turn in (second, rest):
            if i < len(turn):
                order.setdefault(turn[i], None)
    return list(order)


#: The best of each other piece of evidence that a slot is scored by.
_POOL = 100


def _best(found: Iterable[tuple[str, float]], most: int) -> dict[str, float]:
    """The ``most`` best of ``found`` (ties by key), those above 0."""
    return dict(sorted(((n, s) for n, s in found if s > 0), key=lambda x: (-x[1], x[0]))[:most])


def _best_of(key: Mapping[str, str], found: Iterable[tuple[str, float]],
             groups: Collection[str]) -> dict[str, float]:
    """Each slot of ``groups``' best score among ``found`` (node, score)."""
    best: dict[str, float] = {}
    for node, value in found:
        group = key.get(node)
        if group is not None and group in groups:
            best[group] = max(best.get(group, 0.0), value)
    return best


def _group_share(index: TaskIndex, found: Sequence[tuple[str, float]],
                 key: Mapping[str, str], tags: Mapping[str, float]) -> dict[str, float]:
    """Each slot's share of the neighbours' votes: a solution votes once for a slot, however
    many of its copies it uses."""
    weights = [(task, (score * (1.0 + index.overlap(task, tags))) ** POWER)
               for task, score in found]
    total = sum(w for _, w in weights)
    share: dict[str, float] = {}
    for task, weight in weights:
        for group in {key[n] for n in index.task(task).uses if n in key}:
            share[group] = share.get(group, 0.0) + weight / total
    return share


class _Drivers:
    """How many driver slots are left: module bodies up to ``scripts``, one ``main``/``run``."""

    def __init__(self, question: str, scripts: int) -> None:
        self.words = set(fold(question))
        self.scripts = scripts
        self.named = 1

    def admit(self, f: FunctionNode) -> bool:
        if f.kind == "module":
            if self.scripts <= 0:
                return False
            self.scripts -= 1
        elif f.name in DRIVERS and f.name not in self.words:
            if self.named <= 0:
                return False
            self.named -= 1
        return True


"""Baselines that read a library of solved tasks: earlier questions and their solutions.

Each ranks bare function names for a new question (best first, whatever ``k``):

- :class:`FixedByName`: the names most of the library's solutions define, the same
  for every question (the paper's fixed nodes, counted by solutions);
- :class:`NearestQuestions`: the solutions of the earlier questions most like the
  new one (``bm25s`` over the questions, the code-aware tokenizer), each of the
  ``neighbours`` best voting for the functions its solution defines with its
  similarity;
- :class:`CodeAndQuestions`: ``bm25s`` over one document per function: its code and
  the questions of the solutions that define it.

Examples
--------
>>> from sgkr.tags import Example
>>> lib = [Example("1", "What is the average fee of a merchant?", "a.py",
...                "def load():\\n    pass\\ndef average_fee():\\n    pass\\n", (), ()),
...        Example("2", "Which card scheme is the cheapest?", "b.py",
...                "def load():\\n    pass\\ndef cheapest_scheme():\\n    pass\\n", (), ())]
>>> FixedByName(lib)("anything")[:1]
['load']
>>> NearestQuestions(lib)("The cheapest card scheme?")
['cheapest_scheme', 'load']
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from ..algorithms.tokens import code_tokens
from ..errors import InvalidArgumentError
from ..tags.examples import Example
from .datasets import solution_functions

__all__ = ["FixedByName", "NearestQuestions", "CodeAndQuestions", "defined_names",
           "NEIGHBOURS"]

#: Earlier questions whose solutions vote (the issue's baseline: the 20 most similar).
NEIGHBOURS = 20


def defined_names(library: Sequence[Example]) -> list[tuple[str, ...]]:
    """The bare names each solution of ``library`` defines (module bodies left out)."""
    return [solution_functions(e.path, e.code) for e in library]


def _ranked(votes: Mapping[str, float]) -> list[str]:
    return sorted(votes, key=lambda n: (-votes[n], n))


class FixedByName:
    """The names the most solutions define, for every question (ties by name)."""

    def __init__(self, library: Sequence[Example],
                 names: Sequence[tuple[str, ...]] | None = None) -> None:
        counts = Counter(n for defined in (names or defined_names(library)) for n in defined)
        self.names = _ranked({n: float(c) for n, c in counts.items()})

    def __call__(self, question: str) -> list[str]:
        return list(self.names)


class _QuestionIndex:
    """``bm25s`` over documents, queried with the code-aware tokenizer's words."""

    def __init__(self, documents: Sequence[str]) -> None:
        import bm25s

        self._bm25 = bm25s.BM25()
        self._size = len(documents)
        self._bm25.index([code_tokens(d) or [""] for d in documents], show_progress=False)

    def scores(self, question: str) -> list[float]:
        vocabulary = self._bm25.vocab_dict
        tokens = [t for t in code_tokens(question) if t in vocabulary]
        if not tokens or not self._size:
            return [0.0] * self._size
        return [float(s) for s in self._bm25.get_scores(tokens)]


class NearestQuestions:
    """The functions of the solutions of the ``neighbours`` earlier questions most like the
    new one, each solution voting with its BM25 similarity."""

    def __init__(self, library: Sequence[Example], neighbours: int = NEIGHBOURS,
                 names: Sequence[tuple[str, ...]] | None = None) -> None:
        if not isinstance(neighbours, int) or neighbours < 1:
            raise InvalidArgumentError(f"neighbours must be a positive integer, "
                                       f"got {neighbours!r}")
        self.neighbours = neighbours
        self._names = list(names or defined_names(library))
        self._index = _QuestionIndex([e.question for e in library])

    def __call__(self, question: str) -> list[str]:
        scores = self._index.scores(question)
        best = sorted((i for i, s in enumerate(scores) if s > 0),
                      key=lambda i: (-scores[i], i))[: self.neighbours]
        votes: dict[str, float] = defaultdict(float)
        for i in best:
            for name in self._names[i]:
                votes[name] += scores[i]
        return _ranked(votes)


class CodeAndQuestions:
    """``bm25s`` over each function's code and the questions of the solutions defining it."""

    def __init__(self, library: Sequence[Example],
                 names: Sequence[tuple[str, ...]] | None = None) -> None:
        from ..ingest.extract import extract_module

        code: dict[str, str] = {}
        asked: dict[str, list[str]] = defaultdict(list)
        for example, defined in zip(library, names or defined_names(library), strict=True):
            for d in extract_module(example.path, example.code).definitions:
                if d.kind != "module":
                    code.setdefault(d.name, d.code)
            for name in defined:
                asked[name].append(example.question)
        self.names = sorted(code)
        self._index = _QuestionIndex([code[n] + "\n" + "\n".join(asked[n]) for n in self.names])

    def __call__(self, question: str) -> list[str]:
        scores = self._index.scores(question)
        return [self.names[i] for i in sorted(
            (i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))]

"""The solved-tasks setting: a library of earlier questions with their solutions, new questions.

For each *split* the library is built into a graph and the split's questions are
asked; the gold of a question is what its own solution defines (by bare name) and
the library has. Splits:

- two folds, ``A`` and ``B``: the examples (or, when the dataset has questions of
  its own, those questions) halved by position, even and odd; fold ``A`` asks the
  even half of a library made of the odd half, fold ``B`` the reverse (a dataset
  with questions keeps its whole library in both);
- ``loo``: leave-one-out over the examples, each asked of a library of all others.

Every retriever ranks bare names, whatever ``k``; recall at each ``k`` counts the
distinct gold names among its first ``k`` slots. The *task-specific* gold leaves out
the helpers that a tenth or more of the library's solutions define. The context of the
first ``k`` slots is counted in tokens (:func:`~sgkr.eval.metrics.count_tokens`): SGKR's
documents as it returns them; a name another retriever ranks as the copy of it with the
most callers (knowledge and code), the copy SGKR would show.

Examples
--------
>>> from sgkr.tags import Example
>>> from sgkr.eval.datasets import Dataset
>>> code = "def load():\\n    pass\\ndef fee_{0}():\\n    return load()\\nfee_{0}()\\n"
>>> ex = tuple(Example(str(i), f"What is fee {i}?", f"s{i}.py", code.format(i), (), ())
...            for i in range(4))
>>> result = evaluate_solved(Dataset("toy", examples=ex), [SolvedSpec("fixed", "fixed")],
...                          ks=(1,), folds=("A",))
>>> result.summary("fixed", "A", 1)
(2, 1.0, None)
>>> result.tokens("fixed", "A", 1)  # def load ( ) : pass, and its module's name
12.0
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, get_args

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode
from ..retrieval.retriever import Retriever
from ..tags.examples import Example
from .datasets import Dataset, Question, gold_in_graph, solution_functions
from .library import CodeAndQuestions, FixedByName, NearestQuestions, defined_names
from .metrics import count_tokens

__all__ = ["SolvedSpec", "Split", "splits", "Library", "SolvedRecord", "SolvedResult",
           "evaluate_solved", "solved_specs", "format_solved", "KS", "COMMON_SHARE"]

#: The budgets: the paper's FinQA/ConvFinQA (2), its DABstep-like (5), and 8.
KS = (2, 5, 8)
#: A helper that this share of the library's solutions defines is not task-specific.
COMMON_SHARE = 0.1
Fold = Literal["A", "B", "loo"]
Kind = Literal["sgkr", "sgkr-code", "fixed", "neighbours", "code+questions", "dense"]
#: A question in; names best first, each with its context's tokens.
Ranker = Callable[[str], list[tuple[str, int]]]


@dataclass(frozen=True)
class SolvedSpec:
    """One retriever of the solved-tasks setting: its row name, kind and SGKR options."""

    name: str
    kind: Kind = "sgkr"
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in get_args(Kind):
            raise InvalidArgumentError(f"kind must be one of {get_args(Kind)}, got {self.kind!r}")


def solved_specs(*, dense: bool = True, ablations: bool = True) -> list[SolvedSpec]:
    """SGKR, SGKR on the code alone, the baselines of the setting, and SGKR's ablations: the
    earlier questions' votes off (``neighbours=0``: the paths over the tags they ground and
    the graph stage), and the paths' and the lexical match's raise off."""
    specs = [SolvedSpec("sgkr"), SolvedSpec("sgkr code-only", "sgkr-code"),
             SolvedSpec("fixed by name", "fixed"), SolvedSpec("nearest questions", "neighbours"),
             SolvedSpec("bm25 code+questions", "code+questions")]
    specs += [SolvedSpec("dense", "dense")] if dense else []
    if ablations:
        specs += [SolvedSpec("sgkr neighbours=0", options={"neighbours": 0}),
                  SolvedSpec("sgkr votes only", options={"boost": 0.0})]
    return specs


@dataclass(frozen=True)
class Split:
    """A library of solved tasks and the questions asked of it (gold: bare names)."""

    fold: Fold
    library: tuple[Example, ...]
    questions: tuple[Question, ...]


def splits(dataset: Dataset, folds: Sequence[Fold] = ("A", "B", "loo")) -> Iterator[Split]:
    """The splits of ``dataset`` named by ``folds`` (``loo`` only without questions)."""
    examples = dataset.examples
    if dataset.questions:
        halves = {"A": dataset.questions[0::2], "B": dataset.questions[1::2]}
        for fold in folds:
            if fold != "loo":
                yield Split(fold, examples, tuple(halves[fold]))
        return
    if len(examples) < 2:
        raise InvalidArgumentError(f"dataset {dataset.name!r}: the solved-tasks setting "
                                   "needs at least 2 examples")
    levels = dataset.meta.get("levels", {})
    for fold in folds:
        if fold == "loo":
            for i, held in enumerate(examples):
                yield Split(fold, examples[:i] + examples[i + 1:], (_asked(held, levels),))
        else:
            asked, kept = ((examples[0::2], examples[1::2]) if fold == "A"
                           else (examples[1::2], examples[0::2]))
            yield Split(fold, kept, tuple(_asked(e, levels) for e in asked))


def _asked(example: Example, levels: Mapping[str, str]) -> Question:
    return Question(example.id, example.question, solution_functions(example.path, example.code),
                    level=levels.get(example.id), answer=example.answer)


class Library:
    """What the retrievers of one split read: the library, its graphs, the names defined."""

    def __init__(self, dataset: Dataset, split: Split) -> None:
        self.dataset, self.split = dataset, split
        self.names = defined_names(split.library)

    @cached_property
    def graph(self) -> KnowledgeGraph:
        """The library built as given: solutions, their questions, the knowledge file."""
        return self.dataset.build(examples=self.split.library)

    @cached_property
    def code_graph(self) -> KnowledgeGraph:
        """The solutions alone: no question, no knowledge file."""
        from ..build.builder import build_graph

        return build_graph([(e.path, e.code) for e in self.split.library])

    @cached_property
    def tokens(self) -> dict[str, int]:
        """The tokens of each name's copy with the most callers in :attr:`graph` (knowledge
        and code), ties by id."""
        from ..stores import MemoryStore

        functions = [f for f in self.graph.functions() if f.kind != "module"]
        callers, _ = MemoryStore(self.graph).callers_and_sizes([f.id for f in functions])
        shown: dict[str, FunctionNode] = {}
        for f in sorted(functions, key=lambda f: (-callers.get(f.id, 0), f.id)):
            shown.setdefault(f.name, f)
        return {name: count_tokens(f.text) for name, f in shown.items()}

    @cached_property
    def common(self) -> frozenset[str]:
        """The names a tenth or more of the library's solutions define."""
        counts = Counter(n for defined in self.names for n in defined)
        least = max(1, math.ceil(COMMON_SHARE * len(self.split.library)))
        return frozenset(n for n, c in counts.items() if c >= least)


def _ranker(spec: SolvedSpec, lib: Library, model: Any, most: int) -> Ranker:
    library = lib.split.library
    if spec.kind in ("sgkr", "sgkr-code"):
        graph = lib.graph if spec.kind == "sgkr" else lib.code_graph
        retriever = Retriever(graph, **{"k": most, **dict(spec.options)})
        return lambda q: [(d.name, count_tokens(d.text)) for d in retriever.retrieve(q).documents]
    rank: Callable[[str], list[str]]
    if spec.kind == "fixed":
        rank = FixedByName(library, lib.names)
    elif spec.kind == "neighbours":
        rank = NearestQuestions(library, names=lib.names)
    elif spec.kind == "code+questions":
        rank = CodeAndQuestions(library, lib.names)
    else:
        from .baselines import DenseRetriever

        graph = lib.code_graph
        dense = DenseRetriever(graph, model, modules=False)
        rank = lambda q: [graph.function(i).name for i in dense(q, most)]  # noqa: E731
    tokens = lib.tokens
    return lambda q: [(n, tokens.get(n, 0)) for n in rank(q)[:most]]


@dataclass(frozen=True)
class SolvedRecord:
    """One retriever's ranking for one question of one split."""

    retriever: str
    fold: Fold
    question_id: str
    gold: tuple[str, ...]
    specific: tuple[str, ...]
    ranked: tuple[str, ...]
    tokens: tuple[int, ...] = ()

    def recall(self, k: int, *, specific: bool = False) -> float | None:
        """Distinct gold names among the first ``k`` slots over the gold (None: no gold)."""
        gold = self.specific if specific else self.gold
        if not gold:
            return None
        return len(set(self.ranked[:k]) & set(gold)) / len(gold)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"retriever": self.retriever, "fold": self.fold, "question_id": self.question_id,
                "gold": list(self.gold), "specific": list(self.specific),
                "ranked": list(self.ranked), "tokens": list(self.tokens)}


@dataclass(frozen=True)
class SolvedResult:
    """The solved-tasks evaluation of one dataset."""

    dataset: str
    ks: tuple[int, ...]
    retrievers: tuple[str, ...]
    folds: tuple[Fold, ...]
    records: tuple[SolvedRecord, ...]
    seconds: float

    def summary(self, retriever: str, fold: Fold, k: int
                ) -> tuple[int, float | None, float | None]:
        """Questions scored, mean recall at ``k`` (all gold) and mean task-specific recall."""
        rows = [r for r in self.records if r.retriever == retriever and r.fold == fold]
        every = [x for r in rows if (x := r.recall(k)) is not None]
        own = [x for r in rows if (x := r.recall(k, specific=True)) is not None]
        return (len(every), sum(every) / len(every) if every else None,
                sum(own) / len(own) if own else None)

    def tokens(self, retriever: str, fold: Fold, k: int) -> float | None:
        """The mean tokens of the first ``k`` slots' context (None: no question scored)."""
        rows = [sum(r.tokens[:k]) for r in self.records
                if r.retriever == retriever and r.fold == fold and r.gold]
        return sum(rows) / len(rows) if rows else None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON: the summaries, then every record."""
        summaries = {name: {fold: {str(k): {**dict(zip(("questions", "recall", "specific"),
                                                       self.summary(name, fold, k),
                                                       strict=True)),
                                            "tokens": self.tokens(name, fold, k)}
                                   for k in self.ks} for fold in self.folds}
                     for name in self.retrievers}
        return {"dataset": self.dataset, "ks": list(self.ks), "folds": list(self.folds),
                "seconds": round(self.seconds, 2), "summaries": summaries,
                "records": [r.to_dict() for r in self.records]}


def evaluate_solved(dataset: Dataset, specs: Sequence[SolvedSpec], *,
                    ks: Sequence[int] = KS, folds: Sequence[Fold] = ("A", "B", "loo"),
                    embedding_model: Any = None,
                    progress: Callable[[str, int, int], None] | None = None) -> SolvedResult:
    """Rank with each of ``specs`` the questions of every split of ``dataset``.

    Raises
    ------
    InvalidArgumentError
        If ``specs`` is empty or names repeat, or a ``k`` is not a positive integer.
    """
    started = time.perf_counter()
    names = [s.name for s in specs]
    if not specs or len(set(names)) != len(names):
        raise InvalidArgumentError(f"give retrievers with distinct names, got {names}")
    if not ks or any(not isinstance(k, int) or k < 1 for k in ks):
        raise InvalidArgumentError(f"ks must be positive integers, got {list(ks)}")
    if embedding_model is None and any(s.kind == "dense" for s in specs):
        from .baselines import default_embedding_model

        embedding_model = default_embedding_model()
    most = max(ks)
    records: list[SolvedRecord] = []
    every = list(splits(dataset, folds))
    for done, split in enumerate(every, start=1):
        lib = Library(dataset, split)
        asked = [(q, gold_in_graph(lib.graph, q.gold)) for q in split.questions]
        for spec in specs:
            rank = _ranker(spec, lib, embedding_model, most)
            for question, gold in asked:
                if gold:
                    ranked = rank(question.question)[:most]
                    records.append(SolvedRecord(
                        spec.name, split.fold, question.id, gold,
                        tuple(n for n in gold if n not in lib.common),
                        tuple(n for n, _ in ranked), tuple(t for _, t in ranked)))
        if progress is not None:
            progress(dataset.name, done, len(every))
    present = tuple(f for f in dict.fromkeys(folds) if any(r.fold == f for r in records))
    return SolvedResult(dataset.name, tuple(ks), tuple(names), present, tuple(records),
                        time.perf_counter() - started)


def format_solved(result: SolvedResult) -> str:
    """A plain-text table: a row per retriever and ``k``; recall (all / task-specific) and
    context tokens, a fold.

    Examples
    --------
    >>> r = SolvedResult("toy", (2,), ("fixed",), ("A",), (
    ...     SolvedRecord("fixed", "A", "1", ("a", "b"), ("b",), ("a", "c"), (40, 60)),), 0.0)
    >>> print(format_solved(r))
    toy (solved tasks; recall all / task-specific, tokens)
    retriever  k  A (n=1)
    fixed      2  0.500 / 0.000, 100
    """
    counts = {fold: result.summary(result.retrievers[0], fold, result.ks[0])[0]
              for fold in result.folds}
    head = ("retriever", "k", *(f"{fold} (n={counts[fold]})" for fold in result.folds))
    rows = [head]
    for name in result.retrievers:
        for k in result.ks:
            cells = []
            for fold in result.folds:
                _, every, own = result.summary(name, fold, k)
                tokens = result.tokens(name, fold, k)
                cells.append(" / ".join("-" if x is None else f"{x:.3f}" for x in (every, own))
                             + ", " + ("-" if tokens is None else f"{tokens:.0f}"))
            rows.append((name, str(k), *cells))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [f"{result.dataset} (solved tasks; recall all / task-specific, tokens)"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in rows]
    return "\n".join(lines)

"""Evaluation datasets: the folder format, loading it, and leave-one-out folds.

A dataset folder holds a knowledge base and the questions to score::

    dataset.json      optional manifest: {"name", "sources", "knowledge", "examples",
                      "questions"}; paths relative to the folder
    knowledge.json    optional sidecar (or .yaml/.yml), as for ``sgkr build``
    examples.jsonl    solved questions, as for ``sgkr build``
    questions.jsonl   optional: {"id", "question", "gold": [bare function names],
                      "level"?, "answer"?, "program"?, "report"?, "table"?}

Without a questions file the dataset is scored *leave-one-out*: for each
example, the graph is built from the other examples' solutions only, the
example's question is asked, and the gold functions are the functions of its
own solution (not its module body) that exist in that graph, by bare name.

Examples
--------
>>> from sgkr.tags import Example
>>> ex = [Example(str(i), f"q{i}", f"s{i}.py", f"def f{i}():\\n    return h()\\n"
...               "def h():\\n    return 1\\n", (), ()) for i in range(3)]
>>> ds = Dataset("toy", examples=tuple(ex))
>>> graph, question = next(ds.folds())
>>> question.id, question.gold
('0', ('h',))
>>> sorted(f.name for f in graph.functions())
['f1', 'f2', 'h']
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..build.builder import build_graph
from ..errors import InvalidArgumentError, KnowledgeFormatError, SourceError
from ..graph.model import KnowledgeGraph
from ..ingest.extract import extract_module
from ..ingest.files import parse_json, read_side_file, read_side_text
from ..ingest.sources import SourceInput
from ..tags.examples import Example, load_examples
from ..tags.sidecar import Sidecar, load_sidecar

__all__ = ["Question", "Dataset", "load_dataset", "load_questions", "write_dataset",
           "solution_functions", "gold_in_graph"]

_MANIFEST_KEYS = frozenset({"name", "sources", "knowledge", "examples", "questions"})
_QUESTION_KEYS = frozenset({"id", "question", "gold", "level", "answer", "program", "report",
                            "table"})


@dataclass(frozen=True)
class Question:
    """A question to score, with the bare names of the functions its solution needs.

    ``level`` is free text (``hard`` marks the paper's hard subset); ``answer``,
    ``program``, ``report`` and ``table`` are used only by end-to-end scoring.
    """

    id: str
    question: str
    gold: tuple[str, ...]
    level: str | None = None
    answer: str | None = None
    program: str = ""
    report: str = ""
    table: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The questions.jsonl entry (empty optional fields left out)."""
        data: dict[str, Any] = {"id": self.id, "question": self.question, "gold": list(self.gold)}
        for key in ("level", "answer", "program", "report"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.table:
            data["table"] = [list(row) for row in self.table]
        return data


@dataclass(frozen=True)
class Dataset:
    """A knowledge base and the questions scored against it.

    Attributes
    ----------
    name
        Shown in reports.
    sources
        Extra source files or folders, or ``(path, text)`` pairs, built into the graph
        (never in leave-one-out mode, where only the other examples are used).
    knowledge, examples
        The sidecar and the solved examples.
    questions
        The questions to score; empty: leave-one-out over ``examples``.
    root
        Folder the sources are relative to.

    A graph with no curated tag (no sidecar tags, no example tags) is built
    with inferred tags, as a user's own code would be (the build's default).
    """

    name: str
    sources: tuple[SourceInput, ...] = ()
    knowledge: Sidecar | None = None
    examples: tuple[Example, ...] = ()
    questions: tuple[Question, ...] = ()
    root: Path | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def leave_one_out(self) -> bool:
        """Whether the dataset is scored leave-one-out (it has no questions)."""
        return not self.questions

    def build(self, *, merge: str = "auto", examples: Sequence[Example] | None = None,
              infer_tags: bool | None = None) -> KnowledgeGraph:
        """The graph of the knowledge base (or of ``examples`` only, with no sources).

        ``infer_tags``: as :class:`~sgkr.build.options.BuildOptions` (``None``: infer tags
        when none are curated).
        """
        chosen = list(self.examples if examples is None else examples)
        sources = list(self.sources) if examples is None else []
        # With no curated tag the build infers them and says so in meta["curated_tags"].
        return build_graph(sources, knowledge=self.knowledge, examples=chosen, merge=merge,
                           root=self.root, infer_tags=infer_tags)

    def folds(self, *, merge: str = "auto", infer_tags: bool | None = None,
              ) -> Iterator[tuple[KnowledgeGraph, Question]]:
        """``(graph, question)`` pairs to score.

        With questions: one graph, each question with its gold. Leave-one-out:
        one graph per example, built from the others.
        """
        if not self.leave_one_out:
            graph = self.build(merge=merge, infer_tags=infer_tags)
            for question in self.questions:
                yield graph, replace(question, gold=gold_in_graph(graph, question.gold))
            return
        if len(self.examples) < 2:
            raise InvalidArgumentError(
                f"dataset {self.name!r}: leave-one-out needs at least 2 examples")
        for index, held in enumerate(self.examples):
            others = self.examples[:index] + self.examples[index + 1:]
            graph = self.build(merge=merge, examples=others, infer_tags=infer_tags)
            names = solution_functions(held.path, held.code)
            yield graph, Question(held.id, held.question, gold_in_graph(graph, names),
                                  level=self.meta.get("levels", {}).get(held.id),
                                  answer=held.answer)

    def bare(self, name: str | None = None) -> Dataset:
        """The same code and questions with no knowledge file and no example tags.

        Its graph is built with inferred tags only (the ``payments-bare`` dataset).

        Examples
        --------
        >>> from sgkr.tags import Example, TagRef
        >>> ds = Dataset("toy", examples=(Example("1", "q", "s.py", "x = 1", (TagRef("a"),), ()),))
        >>> b = ds.bare()
        >>> b.name, b.examples[0].inputs, b.knowledge
        ('toy-bare', (), None)
        """
        examples = tuple(replace(e, inputs=(), outputs=()) for e in self.examples)
        return replace(self, name=name or f"{self.name}-bare", knowledge=None, examples=examples)

    def with_questions(self, questions: Sequence[Question]) -> Dataset:
        """The same knowledge base with other questions."""
        return replace(self, questions=tuple(questions))


def solution_functions(path: str, code: str) -> tuple[str, ...]:
    """Bare names of the functions and methods a solution defines (module bodies left out).

    Examples
    --------
    >>> solution_functions("s.py", "def a():\\n    pass\\nclass C:\\n    def b(self):\\n"
    ...                    "        pass\\nprint(a())\\n")
    ('a', 'b')
    """
    module = extract_module(path, code)
    return tuple(dict.fromkeys(d.name for d in module.definitions if d.kind != "module"))


def gold_in_graph(graph: KnowledgeGraph, names: Sequence[str]) -> tuple[str, ...]:
    """The names among ``names`` that some non-module function node of ``graph`` bears."""
    present = {f.name for f in graph.functions() if f.kind != "module"}
    return tuple(n for n in dict.fromkeys(names) if n in present)


def load_questions(path: str | os.PathLike[str]) -> list[Question]:
    """Read a questions JSONL file.

    Raises
    ------
    KnowledgeFormatError
        Naming the file and line of a malformed entry.
    """
    file = Path(path)
    lines = read_side_text(file, f"questions file {file}", KnowledgeFormatError).splitlines()
    questions: list[Question] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            questions.append(_question(line, f"{file}:{number}", number))
    return questions


def _question(line: str, at: str, number: int) -> Question:
    entry = parse_json(line, at, KnowledgeFormatError)
    if not isinstance(entry, dict):
        raise KnowledgeFormatError(f"{at}: each line must be a JSON object")
    extra = set(entry) - _QUESTION_KEYS
    if extra:
        raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
    text, gold = entry.get("question"), entry.get("gold")
    if not isinstance(text, str) or not text.strip():
        raise KnowledgeFormatError(f"{at}: 'question' must be a non-empty string")
    if not isinstance(gold, list) or not all(isinstance(g, str) for g in gold):
        raise KnowledgeFormatError(f"{at}: 'gold' must be a list of function names")
    table = entry.get("table", [])
    if not isinstance(table, list) or not all(isinstance(r, list) for r in table):
        raise KnowledgeFormatError(f"{at}: 'table' must be a list of rows")
    answer = entry.get("answer")
    return Question(
        id=str(entry.get("id", number)), question=text, gold=tuple(gold),
        level=None if entry.get("level") is None else str(entry["level"]),
        answer=None if answer is None else str(answer),
        program=str(entry.get("program", "")), report=str(entry.get("report", "")),
        table=tuple(tuple(str(c) for c in row) for row in table),
    )


def load_dataset(folder: str | os.PathLike[str], *, questions: str | os.PathLike[str] | None = None,
                 leave_one_out: bool = False) -> Dataset:
    """Load a dataset folder (see the module documentation for its layout).

    Parameters
    ----------
    folder
        The dataset folder.
    questions
        A questions file to score instead of the folder's own.
    leave_one_out
        Score leave-one-out over the examples even if the folder has questions.

    Raises
    ------
    SourceError
        If ``folder`` is not a folder.
    KnowledgeFormatError
        If the manifest or a file it names is malformed or missing.
    """
    base = Path(folder)
    if not base.is_dir():
        raise SourceError(f"dataset folder does not exist: {base}")
    manifest = _manifest(base)
    knowledge_path = _first(base, manifest.get("knowledge"),
                            ("knowledge.json", "knowledge.yaml", "knowledge.yml"))
    examples_path = _first(base, manifest.get("examples"), ("examples.jsonl",))
    questions_path = Path(questions) if questions is not None else _first(
        base, manifest.get("questions"), ("questions.jsonl",))
    if examples_path is None and not manifest.get("sources"):
        raise KnowledgeFormatError(f"dataset {base}: no examples.jsonl and no sources")
    sources = tuple(str(base / s) for s in manifest.get("sources", []))
    return Dataset(
        name=str(manifest.get("name", base.resolve().name)),
        sources=sources,
        knowledge=load_sidecar(knowledge_path) if knowledge_path else None,
        examples=tuple(load_examples(examples_path)) if examples_path else (),
        questions=() if leave_one_out or questions_path is None
        else tuple(load_questions(questions_path)),
        root=base.resolve(),
        meta={"levels": _levels(examples_path)} if examples_path else {},
    )


def _levels(path: Path) -> dict[str, str]:
    """``level`` of each example (the examples loader keeps no level)."""
    levels: dict[str, str] = {}
    text = read_side_text(path, f"examples file {path}", KnowledgeFormatError)
    for number, line in enumerate(text.splitlines(), start=1):
        entry = parse_json(line, f"{path}:{number}", KnowledgeFormatError) if line.strip() else None
        if isinstance(entry, dict) and entry.get("level") is not None:
            levels[str(entry.get("id", number))] = str(entry["level"])
    return levels


def _manifest(base: Path) -> dict[str, Any]:
    path = base / "dataset.json"
    if not path.exists():
        return {}
    data = parse_json(read_side_file(path, str(path), KnowledgeFormatError), str(path),
                      KnowledgeFormatError)
    if not isinstance(data, dict) or set(data) - _MANIFEST_KEYS:
        raise KnowledgeFormatError(
            f"{path}: must be an object with keys among {sorted(_MANIFEST_KEYS)}")
    sources = data.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise KnowledgeFormatError(f"{path}: 'sources' must be a list of paths")
    return data


def _first(base: Path, named: object, defaults: Sequence[str]) -> Path | None:
    if named is not None:
        path = base / str(named)
        if not path.exists():
            raise KnowledgeFormatError(f"{base / 'dataset.json'} names a missing file: {path}")
        return path
    return next((base / d for d in defaults if (base / d).exists()), None)


def write_dataset(dataset: Dataset, folder: str | os.PathLike[str]) -> Path:
    """Write ``dataset`` as a folder that :func:`load_dataset` reads back.

    Examples' code is written inline (``code``), the sidecar as knowledge.json.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    if dataset.knowledge is not None:
        side = dataset.knowledge
        functions = {n: {k: v for k, v in (("knowledge", f.knowledge), ("inputs", list(f.inputs)),
                                            ("outputs", list(f.outputs))) if v}
                     for n, f in side.functions.items()}
        doc = {"functions": functions,
               "tags": {label: {"aliases": list(a)} for label, a in side.tags.items()}}
        write_atomic(out / "knowledge.json", json.dumps(doc, indent=1) + "\n")
    lines: list[str] = []
    for e in dataset.examples:
        entry: dict[str, Any] = {
            "id": e.id, "question": e.question, "code": e.code,
            "inputs": [{"tag": r.label, "functions": list(r.functions)} for r in e.inputs],
            "outputs": [{"tag": r.label, "functions": list(r.functions)} for r in e.outputs]}
        if e.answer is not None:
            entry["answer"] = e.answer
        lines.append(json.dumps(entry, ensure_ascii=False) + "\n")
    write_atomic(out / "examples.jsonl", "".join(lines))
    if dataset.questions:
        write_atomic(out / "questions.jsonl", "".join(
            json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in dataset.questions))
    write_atomic(out / "dataset.json", json.dumps({"name": dataset.name}) + "\n")
    return out

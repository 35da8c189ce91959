"""Solved tasks as a folder of solutions and a task list: the questions, matched by id.

The task list names each task's id and question: JSONL (one object a line), JSON (a
list of objects) or CSV (a header row), with the keys ``id`` (or ``task_id``) and
``question``, and optionally ``answer`` and ``level``; other keys are ignored (a
DABstep ``tasks.jsonl`` reads as it is). A task's solution is the Python file or
notebook of the folder (searched to any depth) whose name, less its suffix, is the
id, or ends with ``_`` or ``-`` and the id (``task_1273.py``, ``1273.ipynb``).

A task with no solution is skipped and counted; a solution of no task still goes
into the graph, as code (:attr:`TaskFolder.unused`). A malformed line, two tasks
with one id or two solutions for one task stop the load with an error naming the
file and line.

Examples
--------
>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "task_7.py").write_text("print(7)\\n")
>>> _ = (folder / "tasks.jsonl").write_text(json.dumps({"task_id": 7, "question": "Seven?"})
...                                          + "\\n" + json.dumps({"id": 8, "question": "?"}))
>>> found = load_task_folder(folder, folder / "tasks.jsonl")
>>> [(e.id, e.question, e.path) for e in found.examples], found.missing
([('7', 'Seven?', 'task_7.py')], ('8',))
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import KnowledgeFormatError
from ..ingest.files import FileRefused, parse_json, read_side_text
from ..ingest.notebook import NOTEBOOK_SUFFIX
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES
from ..ingest.walk import list_sources
from .examples import MAX_QUESTION_CHARS, Example, solution_code

__all__ = ["TaskFolder", "load_task_folder", "read_task_list"]

_SEPARATOR = re.compile(r"[_-]")


@dataclass(frozen=True)
class TaskFolder:
    """The examples of a folder of solutions and its task list.

    ``missing``: the ids of the tasks with no solution (skipped); ``unused``: the
    solution files of no task (built as code all the same).
    """

    examples: tuple[Example, ...]
    missing: tuple[str, ...] = ()
    unused: tuple[Path, ...] = ()


def read_task_list(path: str | os.PathLike[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(id, question, entry)`` of each task of a task list, in order (see the module docs).

    Raises
    ------
    KnowledgeFormatError
        Naming the file and line (or item) of a task without an id or a question, with a
        question over :data:`~sgkr.tags.examples.MAX_QUESTION_CHARS`, or of an id given twice.
    """
    file = Path(path)
    text = read_side_text(file, f"task list {file}", KnowledgeFormatError)
    tasks: list[tuple[str, str, dict[str, Any]]] = []
    seen: dict[str, str] = {}
    for at, entry in _entries(file, text):
        if not isinstance(entry, dict):
            raise KnowledgeFormatError(f"{at}: a task must be an object with its id and question")
        ident, question = entry.get("id", entry.get("task_id")), entry.get("question")
        if not isinstance(ident, (str, int)) or isinstance(ident, bool) or not str(ident).strip():
            raise KnowledgeFormatError(f"{at}: a task needs an 'id' (or 'task_id')")
        if not isinstance(question, str) or not question.strip():
            raise KnowledgeFormatError(f"{at}: 'question' must be a non-empty string")
        if len(question) > MAX_QUESTION_CHARS:
            raise KnowledgeFormatError(f"{at}: the question has {len(question):,} characters, "
                                       f"over the {MAX_QUESTION_CHARS:,} a question may have")
        key = str(ident).strip()
        if key in seen:
            raise KnowledgeFormatError(f"{at}: task id {key!r} again (first at {seen[key]})")
        seen[key] = at
        tasks.append((key, question, entry))
    return tasks


def _entries(file: Path, text: str) -> Iterator[tuple[str, Any]]:
    """Each task entry of the list, with the place it was read from."""
    suffix = file.suffix.lower()
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        for number, row in enumerate(reader, start=2):
            yield f"{file}:{number}", dict(row)
    elif suffix == ".json":
        data = parse_json(text, str(file), KnowledgeFormatError)
        items = data.get("tasks") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise KnowledgeFormatError(f"{file}: a JSON task list is a list of tasks")
        for number, item in enumerate(items):
            yield f"{file}: tasks[{number}]", item
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                at = f"{file}:{number}"
                yield at, parse_json(line, at, KnowledgeFormatError)


def load_task_folder(solutions: str | os.PathLike[str], tasks: str | os.PathLike[str], *,
                     max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> TaskFolder:
    """The examples of the folder ``solutions`` and the task list ``tasks``.

    Raises
    ------
    KnowledgeFormatError
        The folder is missing, the task list malformed (:func:`read_task_list`), a task
        has two solutions, or a solution cannot be read (naming it).
    """
    folder = Path(solutions)
    if not folder.is_dir():
        raise KnowledgeFormatError(f"solutions folder does not exist: {folder}")
    base = folder.resolve()
    files, _ = list_sources([base], base)
    by_id: dict[str, list[tuple[Path, str]]] = {}
    for path, rel in files:
        stem = rel.rsplit("/", 1)[-1].removesuffix(NOTEBOOK_SUFFIX).removesuffix(".py")
        # The name, and what follows each _ or - in it: task_1273 is 1273's, abc_1's, ...
        for key in {stem, *(stem[m.end():] for m in _SEPARATOR.finditer(stem))} - {""}:
            by_id.setdefault(key, []).append((path, rel))
    examples: list[Example] = []
    missing: list[str] = []
    used: set[str] = set()
    for ident, question, entry in read_task_list(tasks):
        found = by_id.get(ident, [])
        if len(found) > 1:
            names = ", ".join(rel for _, rel in found)
            raise KnowledgeFormatError(f"{tasks}: task {ident!r} has several solutions: {names}")
        if not found:
            missing.append(ident)
            continue
        path, rel = found[0]
        used.add(rel)
        examples.append(Example(ident, question, rel, _code(path, rel, max_file_bytes, base),
                                (), (), _text(entry.get("answer")), path))
    unused = tuple(path for path, rel in files if rel not in used)
    return TaskFolder(tuple(examples), tuple(missing), unused)


def _code(path: Path, rel: str, max_file_bytes: int, base: Path) -> str:
    try:
        return solution_code(path, max_file_bytes, roots=(str(base),))
    except (FileRefused, OSError, UnicodeDecodeError, ValueError) as exc:
        raise KnowledgeFormatError(f"solution file {rel}: {exc}") from exc


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)

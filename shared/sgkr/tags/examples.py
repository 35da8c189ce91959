"""Solved tasks (examples): earlier questions with the code that solved them.

An *examples* file is JSONL, one solved question a line::

    {"id": "1273", "question": "...", "file": "solutions/task_1273.py",
     "inputs": ["card scheme", {"tag": "transaction value", "functions": ["calculate_fee"]}],
     "outputs": ["average fee"], "answer": "0.120132"}

``code`` may replace ``file``; a ``file`` may be a Jupyter notebook (its code cells
are the solution). Tags are optional: an example without them grounds the tags of
its question (:mod:`sgkr.tags.questions`). A tag given as a plain label is attached
to the functions of that solution whose code mentions it (inputs) or whose name says
it (outputs), else to the solution's entry points.

Examples
--------
>>> import json, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "ex.jsonl").write_text(json.dumps(
...     {"id": "1", "question": "Average fee?", "code": "def fee():\\n    return 1\\n"}))
>>> [(e.id, e.path) for e in load_examples(folder / "ex.jsonl")]
[('1', 'ex/example_1.py')]
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import KnowledgeFormatError
from ..ingest.files import FileRefused, inside, parse_json, read_file, read_side_text, roots_of
from ..ingest.notebook import NOTEBOOK_READ_FACTOR, NOTEBOOK_SUFFIX, notebook_code
from ..ingest.sources import DEFAULT_MAX_FILE_BYTES, decode_source
from ..text import fold
from .sidecar import as_labels, as_mapping

__all__ = ["TagRef", "Example", "load_examples", "solution_code", "MAX_QUESTION_CHARS"]

#: The longest question read, in characters (an earlier one, or a new one a retriever is
#: asked): ten times the longest bug report of the SWE-bench questions we evaluate on.
MAX_QUESTION_CHARS = 100_000


@dataclass(frozen=True)
class TagRef:
    """A tag of an example; ``functions`` names the functions it attaches to, if given."""

    label: str
    functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Example:
    """One solved question: its solution code and its I/O tags."""

    id: str
    question: str
    path: str
    code: str
    inputs: tuple[TagRef, ...]
    outputs: tuple[TagRef, ...]
    answer: str | None = None
    source_file: Path | None = None


def load_examples(path: str | os.PathLike[str], *, roots: Sequence[str] = (),
                  max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[Example]:
    """Read an examples JSONL file; ``file`` entries are read relative to it.

    Parameters
    ----------
    path
        The JSONL file.
    roots
        Real folder paths, besides the examples file's folder, that solution
        files may lie in (a build gives its source folders).
    max_file_bytes
        Largest solution file read.

    Raises
    ------
    KnowledgeFormatError
        Naming the file and line of the first malformed entry, or a solution
        file that is missing, too large, not a regular file, or outside the
        examples file's folder and ``roots``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise KnowledgeFormatError(f"examples file must be a path, got {path!r}")
    file = Path(path)
    where = f"examples file {file}"
    text = read_side_text(file, where, KnowledgeFormatError)
    allowed = (*roots_of([file]), *roots)
    examples: list[Example] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        at = f"{file}:{number}"
        entry = parse_json(line, at, KnowledgeFormatError)
        example = _example(entry, at, file, number, allowed, max_file_bytes)
        if example.id in seen:
            raise KnowledgeFormatError(f"{at}: duplicate example id {example.id!r}")
        seen.add(example.id)
        examples.append(example)
    return examples


def _example(entry: Any, at: str, file: Path, number: int, allowed: Sequence[str],
             max_file_bytes: int) -> Example:
    entry = as_mapping(entry, at)
    known = {"id", "question", "code", "file", "inputs", "outputs", "answer", "level"}
    extra = set(entry) - known
    if extra:
        raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
    question = entry.get("question")
    if not isinstance(question, str) or not question.strip():
        raise KnowledgeFormatError(f"{at}: 'question' must be a non-empty string")
    if len(question) > MAX_QUESTION_CHARS:
        raise KnowledgeFormatError(f"{at}: the question has {len(question):,} characters, "
                                   f"over the {MAX_QUESTION_CHARS:,} a question may have")
    ident = str(entry.get("id", number))
    if "code" not in entry and "file" not in entry:
        raise KnowledgeFormatError(f"{at}: no solution: give its 'file' or its 'code'")
    if "code" in entry and "file" in entry:
        raise KnowledgeFormatError(f"{at}: give one of 'code' and 'file', not both")
    source_file: Path | None = None
    if "file" in entry:
        if not isinstance(entry["file"], str) or not entry["file"].strip():
            raise KnowledgeFormatError(f"{at}: 'file' must be a non-empty string")
        source_file, code = _solution(entry["file"], at, file, allowed, max_file_bytes)
        path = entry["file"]
    else:
        code = entry["code"]
        if not isinstance(code, str):
            raise KnowledgeFormatError(f"{at}: 'code' must be a string")
        safe = re.sub(r"[^A-Za-z0-9_]", "_", ident)
        path = f"{file.stem}/example_{safe}.py"
    answer = entry.get("answer")
    return Example(
        id=ident,
        question=question,
        path=path,
        code=code,
        inputs=_tag_refs(entry.get("inputs", []), f"{at}: inputs"),
        outputs=_tag_refs(entry.get("outputs", []), f"{at}: outputs"),
        answer=None if answer is None else str(answer),
        source_file=source_file,
    )


def _solution(name: str, at: str, file: Path, allowed: Sequence[str],
              max_file_bytes: int) -> tuple[Path, str]:
    """The real path and text of an example's solution file, read inside ``allowed`` only."""
    if "\x00" in name:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: a NUL byte in the name")
    real = os.path.realpath(file.parent / name)
    if not inside(real, allowed):
        raise KnowledgeFormatError(f"{at}: solution file {name!r} is outside the examples "
                                   "file's folder and the source folders")
    try:
        code = solution_code(real, max_file_bytes, roots=allowed)
    except FileRefused as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc}") from exc
    except OSError as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc.strerror or exc}"
                                   ) from exc
    except (UnicodeDecodeError, LookupError, ValueError) as exc:
        raise KnowledgeFormatError(f"{at}: solution file {name!r}: {exc}") from exc
    return Path(real), code


def solution_code(path: str | os.PathLike[str], max_file_bytes: int, *,
                  roots: Sequence[str]) -> str:
    """The Python code of a solution file: its text, or a notebook's code cells.

    Raises
    ------
    FileRefused, OSError
        The file is refused (not regular, too large, outside ``roots``) or unreadable.
    UnicodeDecodeError, ValueError
        It is not text, or not a notebook (a ``.ipynb`` file).
    """
    if str(path).endswith(NOTEBOOK_SUFFIX):
        raw = read_file(path, max_file_bytes * NOTEBOOK_READ_FACTOR, roots=roots)
        return notebook_code(raw.decode("utf-8-sig")).text
    return decode_source(read_file(path, max_file_bytes, roots=roots))


def _tag_refs(value: Any, at: str) -> tuple[TagRef, ...]:
    if not isinstance(value, list):
        raise KnowledgeFormatError(f"{at} must be a list")
    refs: list[TagRef] = []
    for item in value:
        if isinstance(item, str) and fold(item):
            refs.append(TagRef(item))
        elif isinstance(item, dict) and isinstance(item.get("tag"), str) and fold(item["tag"]):
            extra = set(item) - {"tag", "functions"}
            if extra:
                raise KnowledgeFormatError(f"{at}: unknown key(s) {sorted(extra)}")
            refs.append(TagRef(item["tag"], as_labels(item.get("functions", []), at)))
        else:
            raise KnowledgeFormatError(
                f"{at}: each tag is a label or {{'tag': label, 'functions': [...]}}, got {item!r}"
            )
    return tuple(refs)

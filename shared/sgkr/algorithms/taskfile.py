"""The solved tasks' index on disk, beside its graph: made once at build time, read at load.

A graph built from solved tasks (:attr:`~sgkr.graph.KnowledgeGraph.tasks`) answers a
question from their :class:`~sgkr.algorithms.neighbours.TaskIndex`: BM25 over the
earlier questions, and over each slot's questions. :func:`task_index_of` gives a
graph's index: the one saved with it, or one made on first use and kept for it.

``graph.json``'s is ``graph.tasks.npz`` in the same folder (:func:`tasks_path`), a
:class:`~sgkr.graph.derived.DerivedFile` of the graph (:data:`TASK_FILE`, registered
on import): a NumPy ``.npz`` archive of plain arrays only, read by
:mod:`sgkr.algorithms.npz`, which trusts none of it. Its JSON header holds the format
number, the SHA-256 digest of the graph file's bytes as its writer wrote them, the
tasks' ids, and each index's words (and the slots of the second); the arrays hold each
index's postings. It is used only with a graph file of that digest, once its task ids
are the graph's, in order, and its postings are checked to point inside the index; a
graph without solved tasks writes none.

Examples
--------
>>> import tempfile, pathlib
>>> from sgkr import KnowledgeGraph, build_graph
>>> from sgkr.tags import Example
>>> g = build_graph([], examples=[Example("1", "What is the average fee?", "a.py",
...                                       "def fee():\\n    return 1\\nfee()\\n", (), ())])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "graph.json"
>>> g.save(path)
>>> sorted(p.name for p in path.parent.iterdir())
['graph.json', 'graph.lexical.npz', 'graph.tasks.npz']
>>> loaded = KnowledgeGraph.load(path)
>>> [t for t, _ in task_index_of(loaded).neighbours("the average fee", 5)]
['task:1']
"""

from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GraphFormatError, InvalidArgumentError
from ..graph.derived import register
from ..graph.jsonfile import MAX_GRAPH_BYTES
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode
from .lexical import LexicalIndex
from .lexicalfile import FORMAT as TOKENS
from .neighbours import TaskIndex, task_groups
from .npz import read_derived, write_npz

__all__ = ["tasks_path", "task_index_of", "TaskFile", "TASK_FILE", "FORMAT"]

#: The layout of a saved task index; another (or another tokenizer's,
#: :data:`sgkr.algorithms.lexicalfile.FORMAT`) is made again.
FORMAT = 1
_SUFFIX = ".tasks.npz"
_PARTS = ("questions", "asked")
_ARRAYS: dict[str, type[np.generic]] = {
    "header": np.uint8, "members_indptr": np.int64,
    **{f"{part}_{name}": kind for part in _PARTS
       for name, kind in (("indptr", np.int64), ("indices", np.int32), ("data", np.float32))}}

# The index of each graph, with the revision it was made at (a changed graph gets a new one).
_ATTACHED: weakref.WeakKeyDictionary[KnowledgeGraph, tuple[int, TaskIndex]] = \
    weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def tasks_path(graph_file: str | os.PathLike[str]) -> Path:
    """Where the task index of the graph file ``graph_file`` is: ``NAME.tasks.npz`` beside it.

    Examples
    --------
    >>> tasks_path("out/graph.json").as_posix()
    'out/graph.tasks.npz'
    """
    if not isinstance(graph_file, (str, os.PathLike)) or not str(graph_file):
        raise InvalidArgumentError(f"graph path must be a file name, got {graph_file!r}")
    path = Path(graph_file)
    return path.with_name((path.stem if path.suffix == ".json" else path.name) + _SUFFIX)


def task_index_of(graph: KnowledgeGraph) -> TaskIndex:
    """The task index of ``graph``: the one loaded or made for it as it is now, else one made
    now (and kept for it)."""
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    found = _ATTACHED.get(graph)
    if found is not None and found[0] == graph.revision:
        return found[1]
    tasks = graph.tasks
    used = {n for t in tasks for n in t.uses}
    records = {n: r for n in used if isinstance(r := graph.get(n), FunctionNode)}
    return _attach(graph, TaskIndex(tasks, task_groups(tasks, records)))


def _attach(graph: KnowledgeGraph, index: TaskIndex) -> TaskIndex:
    with _LOCK:
        _ATTACHED[graph] = (graph.revision, index)
    return index


@dataclass(frozen=True)
class Saved:
    """A task index file read and checked on its own: its header and arrays, and its name."""

    header: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]]
    where: str


class TaskFile:
    """graph.tasks.npz as a :class:`~sgkr.graph.derived.DerivedFile` of graph.json: the task
    index, saved and loaded with its graph (module documentation)."""

    def path(self, graph_file: Path) -> Path:
        """``NAME.tasks.npz`` beside ``graph_file`` (:func:`tasks_path`)."""
        return tasks_path(graph_file)

    def write(self, graph: KnowledgeGraph, graph_file: Path, digest: str) -> None:
        """Write the task index of ``graph`` (made now unless it has one); none without
        solved tasks (a file left from an earlier graph is never used: its digest differs)."""
        if not graph.tasks:
            return
        index = task_index_of(graph)
        parts = dict(zip(_PARTS, (index.questions, index.asked_index), strict=True))
        members = [index.members(g) for g in index.asked_index.ids]
        header = {"format": FORMAT, "tokens": TOKENS, "graph_sha256": digest,
                  "members": [n for nodes in members for n in nodes],
                  "tasks": index.questions.ids, "questions_words": index.questions.words,
                  "asked_ids": index.asked_index.ids, "asked_words": index.asked_index.words}
        arrays = {f"{part}_{name}": getattr(found, name) for part, found in parts.items()
                  for name in ("indptr", "indices", "data")}
        import orjson  # here: importing sgkr does not load it

        sizes = np.array([0, *(len(nodes) for nodes in members)], dtype=np.int64)
        write_npz(tasks_path(graph_file), {
            "header": np.frombuffer(orjson.dumps(header), dtype=np.uint8),
            "members_indptr": np.cumsum(sizes), **arrays})

    def read(self, graph_file: Path) -> Saved | None:
        """The file beside ``graph_file`` read and checked on its own, or None (none, or
        another format).

        Raises
        ------
        GraphFormatError
            If the file is malformed; the message names it.
        """
        path = tasks_path(graph_file)
        if not os.path.lexists(path):
            return None
        where = str(path)
        header, arrays = read_derived(path, "task index", _ARRAYS, MAX_GRAPH_BYTES)
        if not isinstance(header, dict) or (header.get("format"), header.get("tokens")) != (
                FORMAT, TOKENS):
            return None
        for part, ids in (("questions", header.get("tasks")), ("asked", header.get("asked_ids"))):
            _check(arrays, part, ids, header.get(f"{part}_words"), where)
        members, indptr = header.get("members"), arrays["members_indptr"]
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members) \
                or len(indptr) != len(header["asked_ids"]) + 1 or indptr[0] != 0 \
                or indptr[-1] != len(members) or np.any(np.diff(indptr) < 0):
            raise GraphFormatError(f"{where}: the members do not match the groups")
        if not isinstance(header.get("graph_sha256"), str):
            raise GraphFormatError(f"{where}: no digest of its graph file")
        return Saved(header, arrays, where)

    def attach(self, graph: KnowledgeGraph, found: Saved, digest: str) -> None:
        """Give ``graph`` the index ``found`` if it was saved with this graph file and names
        the graph's tasks, in order.

        Raises
        ------
        GraphFormatError
            If it was saved with this graph file but names other tasks.
        """
        if found.header["graph_sha256"] != digest:
            return
        a, header = found.arrays, found.header
        if header["tasks"] != [t.id for t in graph.tasks] \
                or not set(header["members"]) <= {n for t in graph.tasks for n in t.uses}:
            raise GraphFormatError(f"{found.where}: the index names other tasks or functions "
                                   "than the graph's")
        questions, asked = (
            LexicalIndex.from_arrays(header[ids], header[f"{part}_words"], a[f"{part}_indptr"],
                                     a[f"{part}_indices"], a[f"{part}_data"], "")
            for part, ids in (("questions", "tasks"), ("asked", "asked_ids")))
        ends, nodes = a["members_indptr"].tolist(), header["members"]
        members = {g: tuple(nodes[ends[i]:ends[i + 1]])
                   for i, g in enumerate(header["asked_ids"])}
        _attach(graph, TaskIndex.from_parts(graph.tasks, members, questions, asked))


def _check(arrays: dict[str, npt.NDArray[Any]], part: str, ids: object, words: object,
           where: str) -> None:
    """Refuse ids or words that are not lists of distinct strings, or postings of the wrong
    shape or out of range (the types are :func:`~sgkr.algorithms.npz.read_npz`'s)."""
    if not _distinct(ids) or not _distinct(words):
        raise GraphFormatError(f"{where}: the {part} ids and words must be lists of distinct "
                               "strings")
    assert isinstance(ids, list) and isinstance(words, list)  # _distinct said so
    indptr, indices, data = (arrays[f"{part}_{n}"] for n in ("indptr", "indices", "data"))
    if len(indptr) != len(words) + 1 or indptr[0] != 0 or indptr[-1] != len(indices) \
            or len(data) != len(indices) or np.any(np.diff(indptr) < 0):
        raise GraphFormatError(f"{where}: the {part} postings do not match the words")
    if len(indices) and (indices.min() < 0 or indices.max() >= len(ids)):
        raise GraphFormatError(f"{where}: a {part} posting names no document")
    if not np.all(np.isfinite(data)) or np.any(data < 0):
        raise GraphFormatError(f"{where}: a {part} impact is not a finite non-negative number")


def _distinct(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value) \
        and len(set(value)) == len(value)


#: The task index, saved and loaded with every graph of solved tasks.
TASK_FILE = TaskFile()
register(TASK_FILE)

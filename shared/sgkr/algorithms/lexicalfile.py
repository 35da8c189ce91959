"""The lexical index and summary on disk, beside their graph: made once at build time, read at load.

``graph.json``'s index is ``graph.lexical.npz`` in the same folder
(:func:`index_path`): a NumPy ``.npz`` archive, stored uncompressed, of plain
arrays only (never pickled objects), read by :mod:`sgkr.algorithms.npz`, which
trusts none of it: a JSON header (the format number, the indexed function
ids, the words, the fingerprint of the functions it was made from) and the
postings (``indptr``, ``indices``, ``data``, ``lengths``). Saved with its
graph, the header also holds the graph's
:class:`~sgkr.algorithms.summary.GraphSummary` and the SHA-256 digest of the
graph file's bytes as its writer wrote them.

The file is a :class:`~sgkr.graph.derived.DerivedFile` of the graph
(:data:`LEXICAL_FILE`, registered on import): :meth:`KnowledgeGraph.save
<sgkr.graph.KnowledgeGraph.save>` writes it with graph.json, as one pair, and
:meth:`KnowledgeGraph.load <sgkr.graph.KnowledgeGraph.load>` reads it with
graph.json. The summary is used only if the graph file read has the digest
saved with it, the index also if its fingerprint is the graph's functions';
either only once its ids and keys are checked against the graph read (every
indexed function, every tag and function of the summary, and no other): a
retriever over the loaded graph then makes none of its tables on its first
question.

:func:`read_index` refuses what is malformed, naming the file and the reason
(an array of the wrong type or shape, a posting out of range, an archive
crafted or corrupted), and returns ``None`` for an index made from other
functions than the graph's (a graph rebuilt since) or by another version of
the tokenizer: such an index is rebuilt, never used.

Examples
--------
>>> import tempfile, pathlib
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def set_timeout(request, seconds):\\n    request.t = seconds\\n")])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "graph.lexical.npz"
>>> write_index(LexicalIndex(g), path)
>>> read_index(path, g).search("timeout", 1)
[('fn:m.set_timeout', 1.0)]
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np
import numpy.typing as npt

from ..errors import GraphFormatError, InvalidArgumentError
from ..graph.derived import register
from ..graph.jsonfile import MAX_GRAPH_BYTES
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode, TagNode
from .lexical import (
    K1,
    NAME_WEIGHT,
    B,
    LexicalIndex,
    attach,
    fingerprint,
    index_of,
    indexed,
)
from .npz import read_derived, write_npz
from .summary import GraphSummary, attach_summary, read_summary, summary_json, summary_of

__all__ = ["index_path", "write_index", "read_index", "save_graph", "load_graph", "FORMAT",
           "LexicalFile", "LEXICAL_FILE"]

#: The layout and the tokenizer of a persisted index; another is rebuilt.
FORMAT = 3
_SUFFIX = ".lexical.npz"
_ARRAYS: dict[str, type[np.generic]] = {"header": np.uint8, "indptr": np.int64,
                                        "indices": np.int32, "data": np.float32,
                                        "lengths": np.int64}


def index_path(graph_path: str | os.PathLike[str]) -> Path:
    """Where the index of the graph file ``graph_path`` is: ``NAME.lexical.npz`` beside it.

    Examples
    --------
    >>> index_path("out/graph.json").as_posix(), index_path("std").as_posix()
    ('out/graph.lexical.npz', 'std.lexical.npz')
    """
    if not isinstance(graph_path, (str, os.PathLike)) or not str(graph_path):
        raise InvalidArgumentError(f"graph path must be a file name, got {graph_path!r}")
    path = Path(graph_path)
    stem = path.stem if path.suffix == ".json" else path.name
    return path.with_name(stem + _SUFFIX)


def write_index(index: LexicalIndex, path: str | os.PathLike[str]) -> None:
    """Write ``index`` to ``path`` atomically (never through a symlink)."""
    if not isinstance(index, LexicalIndex):
        raise InvalidArgumentError(f"index must be a LexicalIndex, got {type(index)}")
    _write(index, path, {})


def _write(index: LexicalIndex, path: str | os.PathLike[str], more: dict[str, Any]) -> None:
    header = {"format": FORMAT, "k1": K1, "b": B, "name_weight": NAME_WEIGHT,
              "fingerprint": index.fingerprint, "ids": index.ids, "words": index.words, **more}
    write_npz(path, {"header": _header(header), "indptr": index.indptr,
                     "indices": index.indices, "data": index.data, "lengths": index.lengths})


@dataclass(frozen=True)
class Saved:
    """An index file read and checked on its own: its header and arrays, and its name."""

    header: dict[str, Any]
    arrays: dict[str, npt.NDArray[Any]]
    where: str

    def index(self, graph: KnowledgeGraph) -> LexicalIndex:
        """The index, once its ids are checked to be ``graph``'s indexed functions."""
        ids = self.header["ids"]
        _check_ids(ids, graph, self.where)
        return LexicalIndex.from_arrays(ids, self.header["words"], self.arrays["indptr"],
                                        self.arrays["indices"], self.arrays["data"],
                                        self.header["fingerprint"], self.arrays["lengths"])

    def summary(self, graph: KnowledgeGraph) -> GraphSummary:
        """The summary, once its keys are checked to be ``graph``'s tags and functions."""
        summary = read_summary(self.header["summary"], self.where)
        _check_keys(summary, graph, self.where)
        return summary


def read_index(path: str | os.PathLike[str], graph: KnowledgeGraph, *,
               max_bytes: int = MAX_GRAPH_BYTES) -> LexicalIndex | None:
    """The index at ``path`` if it was made from ``graph``'s functions, else ``None``.

    Raises
    ------
    GraphFormatError
        If the file cannot be read, is malformed, or names other functions
        than ``graph``'s while claiming to be made from them; the message names it.
    """
    found = _read(path, max_bytes)
    if found is None or found.header.get("fingerprint") != fingerprint(indexed(graph)):
        return None
    return found.index(graph)


def _read(path: str | os.PathLike[str], max_bytes: int) -> Saved | None:
    """The checked header and arrays of the index file ``path``; ``None`` if it was made
    by another format or tokenizer."""
    where = str(path)
    header, arrays = read_derived(path, "lexical index", _ARRAYS, max_bytes)
    if not isinstance(header, dict) or header.get("format") != FORMAT or (
            header.get("k1"), header.get("b"), header.get("name_weight")) != (K1, B,
                                                                              NAME_WEIGHT):
        return None
    ids, words = header.get("ids"), header.get("words")
    if not _strings(ids) or not _strings(words) or len(set(words)) != len(words) \
            or not isinstance(header.get("fingerprint"), str):
        raise GraphFormatError(f"{where}: the ids and words must be lists of distinct strings")
    _check(arrays, len(ids), len(words), where)
    return Saved(header, arrays, where)


class LexicalFile:
    """graph.lexical.npz as a :class:`~sgkr.graph.derived.DerivedFile` of graph.json: the
    lexical index and summary, saved and loaded with their graph (module documentation)."""

    def path(self, graph_file: Path) -> Path:
        """``NAME.lexical.npz`` beside ``graph_file`` (:func:`index_path`)."""
        return index_path(graph_file)

    def write(self, graph: KnowledgeGraph, graph_file: Path, digest: str) -> None:
        """Write the index and summary of ``graph`` (made now unless it has them)."""
        _write(index_of(graph), index_path(graph_file),
               {"graph_sha256": digest, "summary": summary_json(summary_of(graph))})

    def read(self, graph_file: Path) -> Saved | None:
        """The file beside ``graph_file`` read and checked, or None (none, or made by
        another format)."""
        where = index_path(graph_file)
        return _read(where, MAX_GRAPH_BYTES) if os.path.lexists(where) else None

    def attach(self, graph: KnowledgeGraph, found: Saved, digest: str) -> None:
        """Attach to ``graph`` the index and summary ``found`` that are its own."""
        if found.header.get("graph_sha256") == digest and "summary" in found.header:
            index, summary = found.index(graph), found.summary(graph)
            attach(graph, index)
            attach_summary(graph, summary)
        elif found.header.get("fingerprint") == fingerprint(indexed(graph)):
            attach(graph, found.index(graph))


#: The lexical index and summary, saved and loaded with every graph.
LEXICAL_FILE = LexicalFile()
register(LEXICAL_FILE)


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> None:
    """:meth:`graph.save(path) <sgkr.graph.KnowledgeGraph.save>`: graph.json and its lexical
    index and summary beside it."""
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    graph.save(path)


def load_graph(path: str | os.PathLike[str], *,
               warn: Callable[[str], None] | None = None) -> KnowledgeGraph:
    """:meth:`KnowledgeGraph.load(path, warn=warn) <sgkr.graph.KnowledgeGraph.load>`:
    graph.json and the index and summary saved with it."""
    return KnowledgeGraph.load(path, warn=warn)


def _check_ids(ids: list[str], graph: KnowledgeGraph, where: str) -> None:
    """Refuse ids that are not exactly the graph's indexed functions, sorted."""
    if ids != sorted(r.id for r in graph.records()
                     if isinstance(r, FunctionNode) and r.kind != "module"):
        raise GraphFormatError(f"{where}: the index names other functions than the graph's")


def _check_keys(summary: GraphSummary, graph: KnowledgeGraph, where: str) -> None:
    """Refuse a summary whose tags and functions are not exactly the graph's."""
    tags: set[str] = set()
    functions: set[str] = set()
    for record in graph.records():
        (tags if isinstance(record, TagNode) else functions).add(record.id)
    if summary.roles.keys() != tags or summary.callers.keys() != functions:
        raise GraphFormatError(f"{where}: the summary names other nodes than the graph's")


def _header(header: dict[str, Any]) -> npt.NDArray[np.uint8]:
    """The header's JSON as bytes: orjson's, or, for text it refuses (a lone surrogate),
    the standard encoder's."""
    import orjson  # here: importing sgkr (sgkr --version) does not load it

    try:
        return np.frombuffer(orjson.dumps(header), dtype=np.uint8)
    except TypeError:
        return _text(json.dumps(header, ensure_ascii=False))


def _text(text: str) -> npt.NDArray[np.uint8]:
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _strings(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(issubclass(t, str) for t in set(map(type, value)))


def _check(arrays: dict[str, npt.NDArray[Any]], documents: int, words: int, where: str) -> None:
    """Refuse postings of the wrong shape, or that point out of range (the types are
    :func:`~sgkr.algorithms.npz.read_npz`'s)."""
    indptr, indices, data = arrays["indptr"], arrays["indices"], arrays["data"]
    if len(indptr) != words + 1 or indptr[0] != 0 or indptr[-1] != len(indices) \
            or len(data) != len(indices) or np.any(np.diff(indptr) < 0):
        raise GraphFormatError(f"{where}: the postings do not match the words")
    if len(indices) and (indices.min() < 0 or indices.max() >= documents):
        raise GraphFormatError(f"{where}: a posting names no indexed function")
    if not np.all(np.isfinite(data)) or np.any(data < 0):
        raise GraphFormatError(f"{where}: an impact is not a finite non-negative number")
    lengths = arrays["lengths"]
    if len(lengths) != documents or (documents and lengths.min() < 1):
        raise GraphFormatError(f"{where}: the lengths do not match the functions")

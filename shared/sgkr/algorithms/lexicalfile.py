"""The lexical index on disk, beside its graph: made once at build time, read at load.

``graph.json``'s index is ``graph.lexical.npz`` in the same folder
(:func:`index_path`): a NumPy ``.npz`` archive, stored uncompressed, of plain
arrays only (never pickled objects): a JSON header (the format number, the
indexed function ids, the words, the fingerprint of the functions it was
made from) and the postings (``indptr``, ``indices``, ``data``, ``lengths``).
Saved with its graph (:func:`save_graph`), the header also holds the graph's
:class:`~sgkr.algorithms.summary.GraphSummary` and the SHA-256 digest of the
graph file: :func:`load_graph` uses both only if the graph file it read has
that digest, and then needs no fingerprint, so a retriever over the loaded
graph makes none of its tables on its first question.

:func:`read_index` refuses what is malformed, naming the file and the reason
(an array of the wrong type or shape, a posting out of range, a member that is
compressed or too large), and returns ``None`` for an index made from other
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

import hashlib
import io
import json
import os
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..atomic import write_atomic
from ..errors import GraphFormatError, InvalidArgumentError
from ..gcpause import paused_gc
from ..graph.jsonfile import MAX_GRAPH_BYTES, parse_graph_json, read_bytes
from ..graph.model import KnowledgeGraph
from ..ingest.files import FileRefused, opened, parse_json, read_side_file
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
from .summary import attach_summary, read_summary, summary_json, summary_of

__all__ = ["index_path", "write_index", "read_index", "save_graph", "load_graph", "FORMAT"]

#: The layout and the tokenizer of a persisted index; another is rebuilt.
FORMAT = 3
_SUFFIX = ".lexical.npz"
# Bytes of the graph file read at a time for its digest.
_BLOCK = 1 << 20
_ARRAYS = {"indptr": np.int64, "indices": np.int32, "data": np.float32, "lengths": np.int64}


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
    buffer = io.BytesIO()
    np.savez(buffer, header=_text(json.dumps(header, ensure_ascii=False)),
             indptr=index.indptr, indices=index.indices, data=index.data,
             lengths=index.lengths)
    with buffer.getbuffer() as view:  # the archive written from where it was made, not copied
        write_atomic(path, view)


def read_index(path: str | os.PathLike[str], graph: KnowledgeGraph, *,
               max_bytes: int = MAX_GRAPH_BYTES) -> LexicalIndex | None:
    """The index at ``path`` if it was made from ``graph``'s functions, else ``None``.

    Raises
    ------
    GraphFormatError
        If the file cannot be read or is malformed; the message names it.
    """
    found = _read(path, max_bytes)
    if found is None or found[0].get("fingerprint") != fingerprint(indexed(graph)):
        return None
    return _index(*found)


def _read(path: str | os.PathLike[str],
          max_bytes: int) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]] | None:
    """The checked header and arrays of the index file ``path``; ``None`` if it was made
    by another format or tokenizer."""
    where = str(path)
    raw = read_side_file(path, f"{where}: cannot read the lexical index", GraphFormatError,
                         limit=max_bytes)
    arrays = _members(raw, where, max_bytes)
    header = parse_json(bytes(arrays.pop("header")), where, GraphFormatError,
                        invalid="not a lexical index (its header is not JSON)")
    if not isinstance(header, dict) or header.get("format") != FORMAT or (
            header.get("k1"), header.get("b"), header.get("name_weight")) != (K1, B,
                                                                              NAME_WEIGHT):
        return None
    ids, words = header.get("ids"), header.get("words")
    if not isinstance(ids, list) or not isinstance(words, list) or not _strings(ids) \
            or not _strings(words) or len(set(words)) != len(words):
        raise GraphFormatError(f"{where}: the ids and words must be lists of distinct strings")
    _check(arrays, len(ids), len(words), where)
    return header, arrays


def _index(header: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> LexicalIndex:
    return LexicalIndex.from_arrays(header["ids"], header["words"], arrays["indptr"],
                                    arrays["indices"], arrays["data"], header["fingerprint"],
                                    arrays["lengths"])


def save_graph(graph: KnowledgeGraph, path: str | os.PathLike[str]) -> None:
    """Write ``graph`` to ``path`` (graph.json) and its lexical index and summary beside it.

    The index is the one :func:`~sgkr.algorithms.lexical.index_of` gives, the
    summary :func:`~sgkr.algorithms.summary.summary_of`'s: made now unless the
    graph has them, so a retriever over the graph loaded back answers its
    first question as fast as the next.
    """
    if not isinstance(graph, KnowledgeGraph):
        raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
    graph.save(path)
    # The digest of the bytes on disk: the summary is used only with this very file.
    digest = _file_digest(path)
    _write(index_of(graph), index_path(path),
           {"graph_sha256": digest, "summary": summary_json(summary_of(graph))})


def _file_digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 digest of the file ``path``, read a block at a time (never held whole)."""
    try:
        digest = hashlib.sha256()
        with opened(path, MAX_GRAPH_BYTES) as handle:  # a regular file, its size capped
            while block := handle.read(_BLOCK):
                digest.update(block)
        return digest.hexdigest()
    except FileRefused as exc:
        raise GraphFormatError(f"{path}: cannot read the graph file back: {exc}") from exc
    except OSError as exc:
        raise GraphFormatError(f"{path}: cannot read the graph file back: "
                               f"{exc.strerror or exc}") from exc


def load_graph(path: str | os.PathLike[str], *,
               warn: Callable[[str], None] | None = None) -> KnowledgeGraph:
    """Read graph.json (:meth:`~sgkr.graph.KnowledgeGraph.load`) and the index saved with it.

    An index that is missing, or was made for other functions, is made again on
    a retriever's first question; a malformed one is reported to ``warn``
    (default: :func:`warnings.warn`) and made again too: the graph is never refused
    for its index. The summary saved with it is used if the graph file is the
    one it was saved with, else made again on first use too.

    Raises
    ------
    GraphFormatError
        If the graph file cannot be read or is malformed.
    InvalidArgumentError
        If ``path`` is not a path.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"graph path must be a str or os.PathLike, got {path!r}")
    raw = read_bytes(Path(path))
    with paused_gc(long_lived=True):  # as KnowledgeGraph.load, which keeps no bytes
        graph = KnowledgeGraph.from_dict(parse_graph_json(raw, str(path)), where=str(path))
    digest = hashlib.sha256(raw).hexdigest()
    del raw
    where = index_path(path)
    if os.path.lexists(where):
        try:
            _attach_saved(graph, where, digest)
        except GraphFormatError as exc:
            (warn or warnings.warn)(f"{exc}; the index is made again")
    return graph


def _attach_saved(graph: KnowledgeGraph, where: Path, digest: str) -> None:
    """Attach to ``graph`` the index and summary of the file ``where`` that are its own."""
    found = _read(where, MAX_GRAPH_BYTES)
    if found is None:
        return
    header, arrays = found
    if header.get("graph_sha256") == digest and "summary" in header:
        summary = read_summary(header["summary"], str(where))
        attach(graph, _index(header, arrays))
        attach_summary(graph, summary)
    elif header.get("fingerprint") == fingerprint(indexed(graph)):
        attach(graph, _index(header, arrays))


def _text(text: str) -> npt.NDArray[np.uint8]:
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _members(raw: bytes, where: str, max_bytes: int) -> dict[str, npt.NDArray[Any]]:
    """The arrays of an uncompressed ``.npz``, read without pickle."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        infos = archive.infolist()
        names = {info.filename for info in infos}
        if names != {f"{n}.npy" for n in ("header", *_ARRAYS)}:
            raise GraphFormatError(f"{where}: not a lexical index (members {sorted(names)})")
        if any(i.compress_type != zipfile.ZIP_STORED or i.file_size > max_bytes for i in infos):
            raise GraphFormatError(f"{where}: a member is compressed or too large")
        return {i.filename[:-4]: np.lib.format.read_array(archive.open(i), allow_pickle=False)
                for i in infos}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise GraphFormatError(f"{where}: not a lexical index ({exc})") from exc


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check(arrays: dict[str, npt.NDArray[Any]], documents: int, words: int, where: str) -> None:
    """Refuse postings of the wrong type or shape, or that point out of range."""
    for name, dtype in _ARRAYS.items():
        array = arrays[name]
        if array.dtype != dtype or array.ndim != 1:
            raise GraphFormatError(f"{where}: {name} must be a 1-D {np.dtype(dtype).name} array")
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

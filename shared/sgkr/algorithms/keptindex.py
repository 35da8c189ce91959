"""The lexical index's counts kept in a build's cache, so that the next build counts again
only the functions that changed.

Counting the words of every function is most of what writing the lexical index costs
(:mod:`sgkr.algorithms.counts`). A :class:`~sgkr.build.incremental.GraphBuilder` keeps
the counts in memory and patches them after an update; a new ``sgkr build`` process
after a file changed had none and counted every function again.

:func:`keep_index` writes the counts of the index a build wrote to a file of its
cache's folder, one per output file, and a record of that file's size and SHA-256 among
the cache's records, signed like every record there
(:meth:`~sgkr.ingest.cache.ExtractCache.put_signed`) and keyed by the output file and
the code (:func:`kept_key`). :func:`reuse_index` reads them only where the record is
signed by this user's SGKR and the file is the one recorded, and gives the next build's
graph those counts to patch (:func:`~sgkr.algorithms.lexical.patch_from`): a function
whose digest (what the index reads of it: id, files, qualified names, knowledge, code) is
the one kept keeps its counts, the others are counted again. The index is the one
counting every function makes, to the last bit, whatever the kept counts were made from
(another tree, other options): they are only a place to start from. Nothing of the
earlier build's output files is read.

Examples
--------
>>> import tempfile
>>> from sgkr import build_graph
>>> from sgkr.algorithms.lexical import LexicalIndex, index_of
>>> from sgkr.ingest.cache import ExtractCache
>>> cache = ExtractCache(tempfile.mkdtemp())
>>> g = build_graph([("m.py", "def get_fee(a):\\n    return a\\n")])
>>> _ = index_of(g)
>>> keep_index(g, cache, "graph.json")
>>> h = build_graph([("m.py", "def get_fee(a):\\n    return a\\n"
...                           "def set_fee(a):\\n    return a\\n")])
>>> reuse_index(h, cache, "graph.json"), reuse_index(h, cache, "other.json")
(True, False)
>>> index_of(h).data.tobytes() == LexicalIndex(h).data.tobytes()
True
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..atomic import hashed, write_atomic
from ..build.fingerprint import code_fingerprint
from ..graph.model import KnowledgeGraph
from ..ingest.cache import ExtractCache
from ..ingest.files import FileRefused, read_file
from ..version import __version__
from .counts import Counts
from .lexical import KeptCounts, attached, patch_from

__all__ = ["kept_key", "keep_index", "reuse_index", "KEPT_FORMAT"]

#: Bumped whenever the layout of the kept counts changes.
KEPT_FORMAT = 1
_KIND = "sgkr-lexical-counts"
_DIGEST = 16  # bytes of each function's digest (blake2b, lexical._digest)
_FIELDS = 2  # the document and the name
_HEAD = struct.Struct("<Q")  # the length of the JSON header, first


def kept_key(output: str | os.PathLike[str]) -> str:
    """Where the record of the counts of the index written beside the graph file ``output``
    is kept, for this code (SGKR's sources, the tokenizer's libraries).

    Examples
    --------
    >>> kept_key("a/graph.json") == kept_key("b/graph.json")
    False
    """
    head = json.dumps([_KIND, KEPT_FORMAT, __version__, code_fingerprint(),
                       os.path.abspath(output)])
    return hashlib.sha256(head.encode("utf-8", "surrogatepass")).hexdigest()


def keep_index(graph: KnowledgeGraph, cache: ExtractCache,
               output: str | os.PathLike[str]) -> None:
    """Keep the counts of ``graph``'s index (the one its save beside the graph file
    ``output`` wrote) in ``cache``; nothing when it has none made in this process, or the
    cache cannot be written (the next build counts everything).

    The counts go to a file of the cache's folder, one per output file (a later version
    of SGKR writes over it), written one array at a time; a signed record holds its size
    and SHA-256.
    """
    index = attached(graph)
    kept = index.kept() if index is not None else None
    if kept is None:
        return
    key = kept_key(output)
    try:
        if not cache.usable():
            return
        digest = hashlib.sha256()
        path = write_atomic(cache.folder / _file_name(output), hashed(_pieces(kept), digest),
                            mode=0o600)
        record = {"kind": _KIND, "format": KEPT_FORMAT, "version": __version__, "key": key,
                  "file": path.name, "size": path.stat().st_size,
                  "sha256": digest.hexdigest()}
        cache.put_signed(key, json.dumps(record).encode("utf-8"))
    except (sqlite3.Error, OSError):
        pass


def reuse_index(graph: KnowledgeGraph, cache: ExtractCache,
                output: str | os.PathLike[str]) -> bool:
    """Give ``graph`` the counts kept for the graph file ``output`` to patch its index from;
    whether there were usable ones (their record signed by this user's SGKR for this code,
    the file's size and SHA-256 the record's, well formed)."""
    key, name = kept_key(output), _file_name(output)
    record = cache.get_signed_json(key)
    if not isinstance(record, dict) or record.get("kind") != _KIND \
            or record.get("format") != KEPT_FORMAT or record.get("key") != key \
            or record.get("file") != name or type(record.get("size")) is not int:
        return False
    try:
        payload = read_file(cache.folder / name, record["size"])
    except (FileRefused, OSError):
        return False
    if len(payload) != record["size"] \
            or hashlib.sha256(payload).hexdigest() != record.get("sha256"):
        return False
    kept = _decode(payload)
    if kept is None:
        return False
    patch_from(graph, kept)
    return True


def _file_name(output: str | os.PathLike[str]) -> str:
    """The file of the cache's folder the counts of the index beside ``output`` go to."""
    where = hashlib.sha256(os.path.abspath(output).encode("utf-8", "surrogatepass"))
    return f"lexical-{where.hexdigest()[:32]}.counts"


def _pieces(kept: KeptCounts) -> Iterator[bytes]:
    """The JSON header, then the digests, lengths and each field's triples as raw arrays
    (one array at a time: the whole is never held)."""
    fields = kept.counts.fields
    header = {"kind": _KIND, "format": KEPT_FORMAT, "version": __version__,
              "ids": kept.ids, "words": kept.counts.words,
              "documents": kept.counts.documents, "fields": [len(f[0]) for f in fields]}
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass")
    yield _HEAD.pack(len(head))
    yield head
    yield b"".join(kept.digests)
    yield np.asarray(kept.lengths, dtype="<i8").tobytes()
    for field in fields:
        for array in field:
            yield np.asarray(array, dtype="<i4").tobytes()


def _decode(payload: bytes) -> KeptCounts | None:
    """The counts :func:`_pieces` wrote, checked; None for another layout or anything
    malformed."""
    try:
        (size,) = _HEAD.unpack_from(payload)
        header = json.loads(payload[_HEAD.size:_HEAD.size + size].decode("utf-8",
                                                                        "surrogatepass"))
        return _arrays(header, memoryview(payload)[_HEAD.size + size:])
    except (ValueError, TypeError, KeyError, struct.error):
        return None


def _arrays(header: Any, body: memoryview) -> KeptCounts | None:
    if not isinstance(header, dict) or header.get("kind") != _KIND \
            or header.get("format") != KEPT_FORMAT or header.get("version") != __version__:
        return None
    ids, words, documents, sizes = (header["ids"], header["words"], header["documents"],
                                    header["fields"])
    if not _sorted_strings(ids) or not _sorted_strings(words) or documents != len(ids) \
            or not isinstance(sizes, list) or len(sizes) != _FIELDS \
            or not all(type(n) is int and n >= 0 for n in sizes):
        return None
    at = documents * _DIGEST
    if len(body) != at + 8 * documents + 12 * sum(sizes):
        return None
    digests = [bytes(body[n:n + _DIGEST]) for n in range(0, at, _DIGEST)]
    lengths = np.frombuffer(body, dtype="<i8", count=documents, offset=at).astype(np.int64)
    at += 8 * documents
    fields = []
    for n in sizes:
        word, doc, count = (np.frombuffer(body, dtype="<i4", count=n, offset=at + 4 * n * k)
                            .astype(np.int32) for k in range(3))
        at += 12 * n
        if n and (word.min() < 0 or word.max() >= len(words) or doc.min() < 0
                  or doc.max() >= documents or count.min() < 1):
            return None
        fields.append((word, doc, count))
    if documents and lengths.min() < 1:
        return None
    return KeptCounts(ids, digests, Counts(words, tuple(fields), documents), lengths)


def _sorted_strings(value: Any) -> bool:
    """A list of distinct strings in sorted order."""
    return isinstance(value, list) and all(type(v) is str for v in value) \
        and all(a < b for a, b in zip(value, value[1:], strict=False))


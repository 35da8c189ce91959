"""A build's lexical index counted in a forked process while this one resolves calls.

Counting the words of every function (:func:`~sgkr.algorithms.lexical.counted`) needs
the function nodes only, not the calls, tags or edges that a build adds after them. A
build of many functions hands them to :func:`count_later` as soon as they are made:
a forked copy of this process counts them while this one resolves the calls and
assembles the rest of the graph, then sends the counts back as plain arrays (JSON and
raw numbers, never pickle). :meth:`Pending.attach` makes the index of them
(:meth:`LexicalIndex.of_counted <sgkr.algorithms.lexical.LexicalIndex.of_counted>`,
the same to the last bit as one counted here) and attaches it to the graph, so that
saving the graph does not count again.

Where the graph's indexed functions are not, object for object, those counted (the
build changed a function node after handing them over), off Linux (:data:`FORKS`),
or where other threads run (a fork copies none of them, and any lock one holds
stays held in the copy), nothing is counted elsewhere: the index is made when the
graph is saved, as without this module.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("m.py", "def set_timeout(request):\\n    pass\\n")])
>>> pending = count_later(indexed(g), minimum=1)
>>> attached_here = pending.attach(g)  # False where it could not fork: then made below
>>> from sgkr.algorithms.lexical import index_of
>>> index_of(g).search("timeout", 1)
[('fn:m.set_timeout', 1.0)]
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import threading
from collections.abc import Sequence
from multiprocessing.connection import Connection

import numpy as np

from ..errors import InvalidArgumentError
from ..graph.model import KnowledgeGraph
from ..records import FunctionNode
from .counts import Counts
from .lexical import LexicalIndex, attach, counted, indexed

__all__ = ["Pending", "count_later", "MIN_FORKED", "FORKS"]

#: Fewer functions than this are counted when the graph is saved: forking costs more.
MIN_FORKED = 2000
#: Whether counts are made in a fork here: on Linux only (macOS's system libraries are
#: not safe to use in a forked child; Windows cannot fork).
FORKS = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
_DIGEST_BYTES = 16  # lexical._digest's


class Pending:
    """The counts of some function nodes, being made in a forked process (or not at all).

    Attributes
    ----------
    nodes : list of FunctionNode
        The nodes counted, in the order :func:`~sgkr.algorithms.lexical.indexed` gives.
    """

    __slots__ = ("nodes", "_process", "_pipe")

    def __init__(self, nodes: list[FunctionNode]) -> None:
        self.nodes = nodes
        self._process: multiprocessing.process.BaseProcess | None = None
        self._pipe: Connection | None = None

    def attach(self, graph: KnowledgeGraph) -> bool:
        """Attach the index of the counted nodes to ``graph`` when they are its indexed
        functions; whether it was attached (if not, the index is made when needed).

        Waits for the counting process, and ends it. Raises InvalidArgumentError if
        ``graph`` is not a KnowledgeGraph.
        """
        if not isinstance(graph, KnowledgeGraph):
            raise InvalidArgumentError(f"graph must be a KnowledgeGraph, got {type(graph)}")
        payload = self._receive()
        if payload is None:
            return False
        now = indexed(graph)
        if len(now) != len(self.nodes) or any(a is not b for a, b in zip(now, self.nodes,
                                                                           strict=True)):
            return False
        attach(graph, LexicalIndex.of_counted(now, *_decoded(payload, len(now))))
        return True

    def close(self) -> None:
        """End the counting process, if any, without waiting for what it counts."""
        process, pipe = self._process, self._pipe
        self._process = self._pipe = None
        if pipe is not None:
            pipe.close()
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join()

    def _receive(self) -> bytes | None:
        pipe, process = self._pipe, self._process
        if pipe is None or process is None:
            return None
        try:
            return pipe.recv_bytes()
        except (EOFError, OSError):  # it died: the index is made when needed
            return None
        finally:
            self.close()


def count_later(nodes: Sequence[FunctionNode], *, minimum: int | None = None) -> Pending:
    """Start counting the words of ``nodes`` (sorted by id, module bodies aside: as
    :func:`~sgkr.algorithms.lexical.indexed` gives them) in a forked process, when
    there are at least ``minimum`` of them (default :data:`MIN_FORKED`) and this
    process may fork.
    """
    pending = Pending(list(nodes))
    if len(nodes) < (MIN_FORKED if minimum is None else minimum) or not FORKS \
            or not _alone():
        return pending
    for stream in (sys.stdout, sys.stderr):  # what they buffer is written once, here
        if stream is not None:
            stream.flush()
    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_count, args=(pending.nodes, sending), daemon=True,
                              name="sgkr-lexical")
    process.start()
    sending.close()
    pending._process, pending._pipe = process, receiving
    return pending


def _alone() -> bool:
    """Whether this is the only thread of the process (a fork copies no other)."""
    return threading.active_count() == 1


def _count(nodes: list[FunctionNode], pipe: Connection) -> None:
    """The forked process: send the counts of ``nodes`` (:func:`_encoded`).

    It ends here, running nothing of the parent's (buffers, exit handlers) again and
    printing nothing: should it fail, or be interrupted, the parent finds the pipe
    closed and the index is made when the graph is saved.
    """
    code = 1
    try:
        pipe.send_bytes(_encoded(*counted(nodes)))
        pipe.close()
        code = 0
    finally:
        os._exit(code)


def _encoded(counts: Counts, lengths: np.ndarray, digests: list[bytes]) -> bytes:
    """A JSON header (words, documents, each field's size) and its length, then each
    field's word, document and count numbers (int32), the lengths (int64), the digests."""
    header = json.dumps({"words": counts.words, "documents": counts.documents,
                         "sizes": [len(word) for word, _, _ in counts.fields]}).encode()
    parts = [len(header).to_bytes(8, "little"), header]
    for triple in counts.fields:
        parts.extend(np.ascontiguousarray(a, dtype=np.int32).tobytes() for a in triple)
    parts.append(np.ascontiguousarray(lengths, dtype=np.int64).tobytes())
    parts.append(b"".join(digests))
    return b"".join(parts)


def _decoded(payload: bytes, documents: int) -> tuple[Counts, np.ndarray, list[bytes]]:
    """What :func:`_encoded` wrote, for ``documents`` nodes."""
    size = int.from_bytes(payload[:8], "little")
    header = json.loads(payload[8:8 + size])
    at = 8 + size
    fields = []
    for count in header["sizes"]:
        triple = []
        for _ in range(3):
            triple.append(np.frombuffer(payload, np.int32, count, at).copy())
            at += 4 * count
        fields.append((triple[0], triple[1], triple[2]))
    lengths = np.frombuffer(payload, np.int64, documents, at).copy()
    at += 8 * documents
    digests = [payload[i:i + _DIGEST_BYTES] for i in range(at, len(payload), _DIGEST_BYTES)]
    return Counts(header["words"], tuple(fields), header["documents"]), lengths, digests

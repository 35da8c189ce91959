"""Any retriever as SGKR's first stage: its results, mapped onto the graph's functions.

A user who has a retriever over their code (a vector store, a BM25 index of their
own) passes it as ``seed_retriever``; its results seed SGKR's graph stage in
place of the built-in BM25. Accepted, duck-typed (the core imports no framework):

- a LangChain retriever (``invoke(question)`` returns ``Document`` objects);
- a LlamaIndex retriever (``retrieve(question)`` returns ``NodeWithScore`` objects);
- a callable ``question -> results``, each a :class:`SeedHit` or a function node id.

A result names the graph's functions by, in turn: its id, when it is a function
node id (documents made by SGKR carry them); the functions its text defines (the
names of the ``def`` statements in it, found by tree-sitter, whose code the text
holds), within its file when its metadata names one (``file``, ``file_path``,
``source``, ``path``, ``filename``); and, with a file, the functions of that file
its lines overlap (``start_line``, ``end_line``) or whose code holds its text (a
chunk cut from inside a function). A result's score is the retriever's (the best
1), or ``1 / rank`` when it gives none; a function named by several results keeps
its best. The retriever is asked once per question, for as many results as it
gives, so SGKR's answer for ``k`` is still the first ``k`` of its answer for more.

Examples
--------
>>> from sgkr import build_graph
>>> g = build_graph([("fees.py", "def fee(amount):\\n    return 0.1 * amount\\n"
...                              "def rate():\\n    return 0.1\\n")])
>>> seeds = as_seed_retriever(lambda q: [SeedHit(text="def rate():\\n    return 0.1\\n")])
>>> seed_functions(seeds("what is the rate?"), g)
[('fn:fees.rate', 1.0)]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..errors import InvalidArgumentError, SGKRError
from ..graph.model import KnowledgeGraph
from ..stores import GraphReader, as_reader
from .mentions import NamedReader

__all__ = ["SeedHit", "SeedRetriever", "FilesReader", "as_seed_retriever", "seed_functions",
           "MAX_SEEDS"]

#: Most results of a seed retriever read per question.
MAX_SEEDS = 200
_FILE_KEYS = ("file", "file_path", "source", "path", "filename", "file_name")
_START_KEYS = ("start_line", "line", "first_line")
_END_KEYS = ("end_line", "last_line")
_ID_KEYS = ("id", "node_id")


@dataclass(frozen=True)
class SeedHit:
    """One result of a seed retriever, as SGKR reads it.

    Attributes
    ----------
    text
        The result's text (code, or knowledge and code).
    score
        The retriever's score (higher is better), if it gives one.
    node_id
        Its id, if it may be a graph node's.
    file, start_line, end_line
        Where it comes from, if its metadata says.
    """

    text: str = ""
    score: float | None = None
    node_id: str | None = None
    file: str | None = None
    start_line: int | None = None
    end_line: int | None = None


@runtime_checkable
class FilesReader(Protocol):
    """A reader that finds the functions of a file (the graph in memory): a result naming
    its file and lines is mapped onto the functions it overlaps."""

    def in_files(self, paths: Collection[str]) -> dict[str, list[tuple[str, int, int]]]:
        """The functions defined in the file each path names, with their first and last
        lines."""
        ...


#: What a retriever answers once wrapped: the question in, its results out.
SeedRetriever = Callable[[str], list[SeedHit]]


def as_seed_retriever(retriever: Any) -> SeedRetriever:
    """Wrap a LangChain or LlamaIndex retriever, or a callable, as a :data:`SeedRetriever`.

    Raises
    ------
    InvalidArgumentError
        If ``retriever`` is none of these.
    """
    if hasattr(retriever, "invoke") and callable(retriever.invoke):
        return lambda q: _first_results(retriever.invoke(q), _from_document)
    if hasattr(retriever, "retrieve") and callable(retriever.retrieve):
        return lambda q: _first_results(retriever.retrieve(q), _from_node)
    if callable(retriever):
        return lambda q: _first_results(retriever(q), _from_item)
    raise InvalidArgumentError(
        f"seed_retriever must be a LangChain or LlamaIndex retriever or a callable, got "
        f"{type(retriever).__name__}")


def _first_results(results: Any, read: Callable[[Any], SeedHit]) -> list[SeedHit]:
    """The first :data:`MAX_SEEDS` of ``results``, read as hits; no more are drawn (an
    endless generator is fine)."""
    try:
        first = list(itertools.islice(results, MAX_SEEDS))
    except TypeError as exc:
        raise InvalidArgumentError(f"seed_retriever: its results must be a list, got "
                                   f"{type(results).__name__}") from exc
    return [read(item) for item in first]


def seed_functions(hits: Sequence[SeedHit],
                   graph: KnowledgeGraph | GraphReader) -> list[tuple[str, float]]:
    """The functions ``hits`` name (see the module docs), best first, scores scaled to 1."""
    reader = as_reader(graph)
    scores = [h.score for h in hits]
    given = bool(scores) and all(s is not None and s > 0 for s in scores)
    top = max((float(s) for s in scores if s is not None), default=1.0) if given else 1.0
    ids = reader.kinds({h.node_id for h in hits if h.node_id is not None})
    names = {n for h in hits for n in _defined(h.text)}
    named: Mapping[str, Sequence[str]] = (
        reader.named(names) if names and isinstance(reader, NamedReader) else {})
    best: dict[str, float] = {}
    for rank, hit in enumerate(hits):
        score = float(hit.score) / top if given and hit.score is not None else 1.0 / (rank + 1)
        if hit.node_id is not None and ids.get(hit.node_id) in ("function", "method"):
            found = [hit.node_id]
        else:
            found = _defining(reader, hit, named) or _in_file(reader, hit)
        for node_id in found:
            best[node_id] = max(best.get(node_id, 0.0), score)
    return sorted(((n, round(s, 6)) for n, s in best.items()), key=lambda i: (-i[1], i[0]))


def _defining(reader: GraphReader, hit: SeedHit,
              named: Mapping[str, Sequence[str]]) -> list[str]:
    """The functions ``hit``'s text defines: named so, their code in it (in its file)."""
    ids = [i for n in _defined(hit.text) for i in named.get(n, ())]
    records = reader.functions(ids) if ids else {}
    files = _files(reader, hit)
    return list(dict.fromkeys(
        i for i in ids if i in records and records[i].code.strip() in hit.text
        and (files is None or i in files)))


def _files(reader: GraphReader, hit: SeedHit) -> dict[str, tuple[int, int]] | None:
    """The functions of ``hit``'s file, with their lines (``None``: no file, or no way to
    find one's functions)."""
    if hit.file is None or not isinstance(reader, FilesReader):
        return None
    found: Mapping[str, Sequence[tuple[str, int, int]]] = reader.in_files([hit.file])
    return {i: (a, b) for i, a, b in found.get(hit.file, ())}


def _in_file(reader: GraphReader, hit: SeedHit) -> list[str]:
    """The functions of ``hit``'s file that its lines overlap or whose code holds its text."""
    places = _files(reader, hit)
    if not places:
        return []
    if hit.start_line is not None:
        last = hit.end_line if hit.end_line is not None else hit.start_line
        return sorted(i for i, (a, b) in places.items() if a <= last and hit.start_line <= b)
    text = hit.text.strip()
    records = reader.functions(list(places)) if text else {}
    return sorted(i for i, f in records.items() if text in f.code)


def _defined(text: str) -> list[str]:
    """The names of the functions and methods ``text`` defines (tree-sitter, no execution)."""
    if "def " not in text:
        return []
    try:
        from ..ingest.extract import extract_module  # here: tree-sitter only for a seed's text

        found = extract_module("seed.py", text).definitions
    except (SGKRError, ValueError, RecursionError):
        return []
    return list(dict.fromkeys(d.name for d in found if d.kind != "module"))


def _from_item(item: Any) -> SeedHit:
    if isinstance(item, SeedHit):
        return _hit(item.text, {"file": item.file, "start_line": item.start_line,
                                "end_line": item.end_line}, item.node_id, item.score)
    if isinstance(item, str):
        return SeedHit(node_id=item)
    raise InvalidArgumentError(
        f"a seed retriever's result must be a SeedHit or a node id, got {type(item).__name__}")


def _from_document(document: Any) -> SeedHit:
    """A LangChain ``Document``: ``page_content``, ``metadata`` and perhaps ``id``."""
    metadata = getattr(document, "metadata", None) or {}
    return _hit(getattr(document, "page_content", ""), metadata,
                getattr(document, "id", None), None)


def _from_node(scored: Any) -> SeedHit:
    """A LlamaIndex ``NodeWithScore``: its node's content, metadata and id, and its score."""
    node = getattr(scored, "node", scored)
    get_content = getattr(node, "get_content", None)
    text = get_content() if callable(get_content) else getattr(node, "text", "")
    return _hit(text, getattr(node, "metadata", None) or {},
                getattr(node, "node_id", None), getattr(scored, "score", None))


def _hit(text: Any, metadata: Any, node_id: Any, score: Any) -> SeedHit:
    """A hit of what a result holds; what is not of its type (a text that is no string,
    metadata no mapping, a score no finite number) counts as not given."""
    metadata = metadata if isinstance(metadata, Mapping) else {}
    ids = [node_id, *(metadata.get(k) for k in _ID_KEYS)]
    given = score if score is not None else metadata.get("score")
    return SeedHit(
        text=text if isinstance(text, str) else "",
        score=_score(given),
        node_id=next((i for i in ids if isinstance(i, str) and i), None),
        file=_first(metadata, _FILE_KEYS, str),
        start_line=_first(metadata, _START_KEYS, int),
        end_line=_first(metadata, _END_KEYS, int))


def _score(given: Any) -> float | None:
    """``given`` as a finite float, or None (not a number, or too large: ``10**400``)."""
    if not isinstance(given, (int, float)) or isinstance(given, bool):
        return None
    try:
        value = float(given)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _first(metadata: Mapping[str, Any], keys: Collection[str], kind: type) -> Any:
    for key in keys:
        value = metadata.get(key)
        if isinstance(value, kind) and not isinstance(value, bool) and value != "":
            return value
    return None

"""Persisting a retriever: the graph, its lexical index and the retriever options.

``graph.json`` and its lexical index ``graph.lexical.npz`` are written by
:meth:`KnowledgeGraph.save <sgkr.graph.KnowledgeGraph.save>` and read back with their
validation by :meth:`KnowledgeGraph.load <sgkr.graph.KnowledgeGraph.load>` (so the first
question after loading costs what the next does); ``sgkr_retriever.json`` holds the
:class:`~sgkr.retrieval.retriever.RetrieverOptions`. Nothing is pickled. Callables (a
tag extractor, a fallback) are not persisted: pass them again when loading.

Examples
--------
>>> import tempfile
>>> from sgkr import Retriever, build_graph
>>> r = Retriever(build_graph([("m.py", "def f():\\n    return 1\\n")]), k=3)
>>> with tempfile.TemporaryDirectory() as folder:
...     save_retriever(r, folder)
...     graph, options = load_retriever(folder)
>>> options["k"], [f.id for f in graph.functions()]
(3, ['fn:m.f'])
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from sgkr.atomic import write_atomic
from sgkr.errors import GraphFormatError, InvalidArgumentError
from sgkr.graph import KnowledgeGraph
from sgkr.ingest.files import parse_json, read_side_file
from sgkr.retrieval.retriever import Retriever, RetrieverOptions

__all__ = ["GRAPH_FILENAME", "OPTIONS_FILENAME", "OPTIONS_SCHEMA_VERSION",
           "save_retriever", "load_retriever"]

GRAPH_FILENAME = "graph.json"
OPTIONS_FILENAME = "sgkr_retriever.json"
OPTIONS_SCHEMA_VERSION = 1


def save_retriever(retriever: Retriever, persist_dir: str | os.PathLike[str]) -> None:
    """Write ``graph.json``, its index and ``sgkr_retriever.json`` into ``persist_dir``.

    Raises
    ------
    InvalidArgumentError
        If ``retriever`` is not an :class:`sgkr.Retriever` or ``persist_dir``
        is not a path.

    Examples
    --------
    >>> import os, tempfile
    >>> from sgkr import Retriever, build_graph
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_retriever(Retriever(build_graph([("m.py", "x = 1\\n")])), folder)
    ...     sorted(os.listdir(folder))
    ['graph.json', 'graph.lexical.npz', 'sgkr_retriever.json']
    """
    if not isinstance(retriever, Retriever):
        raise InvalidArgumentError(
            f"retriever must be an sgkr.Retriever, got {type(retriever).__name__}")
    folder = _folder(persist_dir)
    folder.mkdir(parents=True, exist_ok=True)
    retriever.graph.save(folder / GRAPH_FILENAME)
    document = {"schema_version": OPTIONS_SCHEMA_VERSION,
                "options": retriever.options.to_dict()}
    write_atomic(folder / OPTIONS_FILENAME, json.dumps(document, indent=1) + "\n")


def load_retriever(
    persist_dir: str | os.PathLike[str],
) -> tuple[KnowledgeGraph, dict[str, Any]]:
    """Read what :func:`save_retriever` wrote: the graph and the options as a dict.

    Raises
    ------
    GraphFormatError
        If a file is missing or malformed; the message names the file.
    InvalidArgumentError
        If ``persist_dir`` is not a path.

    Examples
    --------
    >>> load_retriever("/nonexistent/folder")
    Traceback (most recent call last):
    ...
    sgkr.errors.GraphFormatError: /nonexistent/folder/sgkr_retriever.json: cannot read ...
    """
    folder = _folder(persist_dir)
    options = _read_options(folder / OPTIONS_FILENAME)
    return KnowledgeGraph.load(folder / GRAPH_FILENAME), options


def _folder(persist_dir: object) -> Path:
    if not isinstance(persist_dir, (str, os.PathLike)) or not str(persist_dir):
        raise InvalidArgumentError(f"persist_dir must be a folder path, got {persist_dir!r}")
    return Path(persist_dir)


def _read_options(file: Path) -> dict[str, Any]:
    where = f"{file}: cannot read retriever options"
    data = parse_json(read_side_file(file, where, GraphFormatError), str(file), GraphFormatError,
                      invalid="not a valid JSON options file")
    if not isinstance(data, dict) or not isinstance(data.get("options"), dict):
        raise GraphFormatError(f"{file}: expected an object with an 'options' object")
    if data.get("schema_version") != OPTIONS_SCHEMA_VERSION:
        raise GraphFormatError(
            f"{file}: unsupported schema_version {data.get('schema_version')!r} "
            f"(this version reads {OPTIONS_SCHEMA_VERSION})")
    try:
        return RetrieverOptions.from_dict(data["options"]).to_dict()
    except (InvalidArgumentError, TypeError) as exc:
        raise GraphFormatError(f"{file}: {exc}") from exc

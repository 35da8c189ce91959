"""What a build wrote, kept in its cache: a build of unchanged inputs writes nothing again.

After a build with a cache writes its files (graph.json and its lexical index),
:func:`store_record` keeps a :class:`BuildRecord` in the cache: the key of
everything the files were made from (:func:`build_key`), the size and SHA-256
of each file, and the build's report. The next build of the same inputs into
the same file finds the record (:func:`find_record`); when every file on disk
is still the one recorded (:meth:`BuildRecord.current`), there is nothing to
make: the files are left as they are and the report is the recorded one.

The key covers the text and path of every source read, what was skipped and
why, the plan (root, merge policy, tags inferred or not, the sidecar and the
examples as parsed), the output path, and the code that makes the files:
SGKR's own source files and the versions of the libraries whose results the
files hold (tree-sitter and its Python grammar, the stemmer, numpy, networkx).
A record is signed like a cache entry (:meth:`~sgkr.ingest.cache.ExtractCache.get_signed`):
one this user's SGKR did not write is not used.

Examples
--------
>>> import tempfile, pathlib
>>> from sgkr.build.builder import prepare_build
>>> from sgkr.build.options import BuildOptions
>>> from sgkr.records import BuildReport
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "m.py").write_text("def f():\\n    return 1\\n")
>>> prepared = prepare_build([folder], BuildOptions())
>>> key = build_key(prepared, folder / "graph.json")
>>> key == build_key(prepare_build([folder], BuildOptions()), folder / "graph.json")
True
>>> _ = (folder / "graph.json").write_text("{}")
>>> cache = ExtractCache(folder / "cache")
>>> store_record(cache, key, [folder / "graph.json"], BuildReport(1, 1, {}, 0, (), 0.1))
>>> find_record(cache, key).current()
True
>>> _ = (folder / "graph.json").write_text("{ }")
>>> find_record(cache, key).current()
False
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ingest.cache import ExtractCache
from ..ingest.files import FileRefused, opened
from ..records import BuildReport, Problem
from ..version import __version__
from .builder import PreparedBuild
from .fingerprint import code_fingerprint

__all__ = ["BuildRecord", "OutputFile", "build_key", "find_record", "store_record",
           "RECORD_FORMAT", "MAX_OUTPUT_BYTES"]

#: Bumped whenever the layout of a record changes.
RECORD_FORMAT = 2
#: The largest output file a record vouches for (larger ones are made again).
MAX_OUTPUT_BYTES = 4 << 30
_KIND = "sgkr-build"
_BLOCK = 1 << 20
_PROBLEM_KINDS = ("skipped", "syntax", "knowledge")


@dataclass(frozen=True)
class OutputFile:
    """A file a build wrote: its path (absolute), size in bytes and SHA-256 (hex)."""

    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class BuildRecord:
    """The files a build of the inputs :attr:`key` stands for wrote, and its report."""

    key: str
    outputs: tuple[OutputFile, ...]
    report: BuildReport

    def current(self) -> bool:
        """Whether every file recorded is on disk as it was written (a regular file of
        that size and SHA-256)."""
        return all(_describe(o.path) == o for o in self.outputs)


def build_key(prepared: PreparedBuild, output: str | os.PathLike[str]) -> str:
    """The SHA-256 of everything the files of ``prepared`` written to ``output`` depend on.

    Examples
    --------
    >>> from sgkr.build.builder import prepare_build
    >>> from sgkr.build.options import BuildOptions
    >>> a = prepare_build([("m.py", "x = 1\\n")], BuildOptions())
    >>> build_key(a, "g.json") == build_key(a, "other.json")
    False
    """
    plan = prepared.plan
    digest = hashlib.sha256()
    head = [_KIND, RECORD_FORMAT, __version__, code_fingerprint(), os.path.abspath(output),
            str(plan.base), plan.merge, plan.infer_tags, plan.curated_tags, len(prepared.files),
            [[p.file, p.reason, p.kind, p.line] for p in prepared.problems]]
    digest.update(json.dumps(head).encode("utf-8"))
    # Parsed, so that what the build reads of them counts, whatever their files' layout.
    digest.update(repr((plan.sidecar, plan.examples)).encode("utf-8", "surrogatepass"))
    for file in prepared.files:
        text = file.text.encode("utf-8", "surrogatepass")
        digest.update(f"\0{file.path}\0{len(text)}\0".encode("utf-8", "surrogatepass"))
        digest.update(text)
    return digest.hexdigest()


def find_record(cache: ExtractCache, key: str) -> BuildRecord | None:
    """The record of the build ``key`` in ``cache``; None when there is none usable (absent,
    unsigned, of another format, or malformed)."""
    value = cache.get_signed_json(_record_key(key))
    if value is None:
        return None
    try:
        return _record(value, key)
    except (ValueError, KeyError, TypeError):
        return None


def store_record(cache: ExtractCache, key: str, outputs: Sequence[str | os.PathLike[str]],
                 report: BuildReport) -> None:
    """Record that the build ``key`` wrote ``outputs`` (as they are on disk now) and made
    ``report``. A cache that cannot be written is left as it is (the next build costs more).
    """
    described = [_describe(os.path.abspath(path)) for path in outputs]
    if any(o is None for o in described):
        return
    data = {"kind": _KIND, "format": RECORD_FORMAT, "version": __version__, "key": key,
            "outputs": [[o.path, o.size, o.sha256] for o in described if o is not None],
            "report": report.to_dict()}
    try:
        cache.put_signed(_record_key(key), json.dumps(data).encode("utf-8"))
    except (sqlite3.Error, OSError):
        pass


def _record_key(key: str) -> str:
    """Where the record of build ``key`` is kept among the cache's entries (no entry's key:
    those are SHA-256 of other texts)."""
    return hashlib.sha256(f"{_KIND}\0{key}".encode("ascii")).hexdigest()


def _record(data: Any, key: str) -> BuildRecord | None:
    """The record in its JSON form, checked; None for another kind, format, version or key."""
    if (not isinstance(data, dict) or data.get("kind") != _KIND
            or data.get("format") != RECORD_FORMAT or data.get("version") != __version__
            or data.get("key") != key):
        return None
    outputs = tuple(OutputFile(_text(p), _count(n), _text(d)) for p, n, d in data["outputs"])
    return BuildRecord(key, outputs, _report(data["report"]))


def _report(data: dict[str, Any]) -> BuildReport:
    """A :class:`BuildReport` from :meth:`BuildReport.to_dict`'s form, checked."""
    problems = []
    for p in data["problems"]:
        line = p["line"]
        if p["kind"] not in _PROBLEM_KINDS or line is not None and _count(line) < 1:
            raise ValueError(f"not a problem: {p!r}")
        problems.append(Problem(_text(p["file"]), _text(p["reason"]), p["kind"], line))
    return BuildReport(
        files=_count(data["files"]), functions=_count(data["functions"]),
        call_edges=_counts(data["call_edges"]), tags=_count(data["tags"]),
        problems=tuple(problems), seconds=float(data["seconds"]),
        reference_edges=_counts(data["reference_edges"]),
        test_functions=_count(data["test_functions"]))


def _counts(data: Any) -> dict[str, int]:
    if not isinstance(data, dict):
        raise TypeError(f"expected counts by name, got {data!r}")
    return {_text(k): _count(v) for k, v in data.items()}


def _text(value: Any) -> str:
    if type(value) is not str:
        raise TypeError(f"expected a string, got {value!r}")
    return value


def _count(value: Any) -> int:
    if type(value) is not int or value < 0:
        raise TypeError(f"expected a count, got {value!r}")
    return value


def _describe(path: str) -> OutputFile | None:
    """The size and SHA-256 of the regular file ``path``; None when it is not one, or
    cannot be read."""
    digest = hashlib.sha256()
    size = 0
    try:
        with opened(path, MAX_OUTPUT_BYTES) as handle:
            while block := handle.read(_BLOCK):
                digest.update(block)
                size += len(block)
    except (FileRefused, OSError):
        return None
    return OutputFile(path, size, digest.hexdigest())

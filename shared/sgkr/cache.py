"""A content-hash cache of per-file extraction results, stored as JSON files.

A build looks each source file up by a key made of the cache format, the
SGKR version, the file's relative path and the exact bytes that are parsed
(the decoded text, UTF-8 encoded), so an unchanged file is not parsed again,
and a file that changed while a build was reading it can never be paired
with the extraction of other bytes. Entries are written to a temporary file
and renamed into place, so a crash mid-write leaves either the old entry or
none; an entry that is unreadable, truncated, or written by another version
is ignored and rewritten. Entries are JSON (never pickle).

Examples
--------
>>> import tempfile
>>> from sgkr.extract import extract_module
>>> text = "def f():\\n    return g()\\n"
>>> m = extract_module("m.py", text)
>>> cache = ExtractCache(tempfile.mkdtemp())
>>> key = cache_key("m.py", text)
>>> cache.get(key) is None
True
>>> cache.put(key, m)
>>> cache.get(key) == m
True
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from . import __version__
from .errors import InvalidArgumentError
from .records import (
    CallSite,
    ClassInfo,
    Definition,
    ImportBinding,
    ModuleExtract,
    Problem,
    SourceSpan,
)

__all__ = [
    "CACHE_FORMAT",
    "ExtractCache",
    "cache_key",
    "extract_to_json",
    "extract_from_json",
    "default_cache_dir",
]

#: Bumped whenever the extraction or the entry layout changes meaning.
CACHE_FORMAT = 2
_KIND = "sgkr-extract"
# A definition's derived knowledge is most often its docstring or its comment
# itself: the entry says which instead of repeating the text.
_SAME_AS_DOCSTRING, _SAME_AS_COMMENT = 0, 1
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
# Temporary files are named by process id and this counter.
_SERIAL = itertools.count()


def cache_key(path: str, text: str, *, module: str | None = None) -> str:
    """The cache key of a file: a SHA-256 of format, version, path, module and bytes.

    Examples
    --------
    >>> cache_key("a.py", "x = 1\\n") == cache_key("a.py", "x = 1\\n")
    True
    >>> cache_key("a.py", "x = 1\\n") == cache_key("b.py", "x = 1\\n")
    False
    """
    if not isinstance(path, str) or not isinstance(text, str):
        raise InvalidArgumentError(f"cache_key needs a str path and text, got {path!r}")
    digest = hashlib.sha256()
    head = f"{_KIND}/{CACHE_FORMAT}/{__version__}\0{path}\0{module or ''}\0"
    digest.update(head.encode("utf-8"))
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def default_cache_dir(output: str | os.PathLike[str]) -> Path:
    """The cache folder used next to a graph file: ``.sgkr-cache`` in its folder.

    Examples
    --------
    >>> default_cache_dir("out/graph.json").as_posix()
    'out/.sgkr-cache'
    """
    return Path(output).parent / ".sgkr-cache"


class ExtractCache:
    """Per-file extraction results under a folder, one JSON file per key.

    Parameters
    ----------
    folder
        Where entries live (created when the first entry is written).

    Attributes
    ----------
    hits, misses, writes
        Counters of this object's look-ups and writes.
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        if not isinstance(folder, (str, os.PathLike)):
            raise InvalidArgumentError(f"cache folder must be a path, got {folder!r}")
        self.folder = Path(folder)
        if self.folder.exists() and not self.folder.is_dir():
            raise InvalidArgumentError(f"cache folder {self.folder} is a file, not a folder")
        self.hits = 0
        self.misses = 0
        self.writes = 0

    def entry_path(self, key: str) -> Path:
        """The file holding the entry of ``key``: under one of 16 folders, by its first digit.

        Few folders: making a folder costs as much as writing an entry.
        """
        return self.folder / key[:1] / f"{key}.json"

    def get(self, key: str) -> ModuleExtract | None:
        """The cached extraction of ``key``, or None when absent or unusable."""
        found = read_entry(self.entry_path(key), key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, key: str, module: ModuleExtract) -> None:
        """Store ``module`` under ``key`` atomically (temporary file, then rename)."""
        write_entry(self.entry_path(key), key, module)
        self.writes += 1


def read_entry(file: Path, key: str) -> ModuleExtract | None:
    """Read one entry; None for a missing, corrupted or foreign file (a cache miss)."""
    try:
        raw = file.read_bytes()
    except OSError:
        return None
    try:
        data = json.loads(raw)
        if (not isinstance(data, dict) or data.get("kind") != _KIND
                or data.get("format") != CACHE_FORMAT or data.get("version") != __version__
                or data.get("key") != key):
            return None
        return extract_from_json(data["extract"])
    except (ValueError, KeyError, TypeError, IndexError, RecursionError):
        return None


def write_entry(file: Path, key: str, module: ModuleExtract) -> None:
    """Write one entry atomically; a crash leaves the old entry or none, never half of one."""
    write_entry_bytes(file, entry_bytes(key, module))


def entry_bytes(key: str, module: ModuleExtract) -> bytes:
    """The content of the entry of ``module`` under ``key``."""
    # ASCII JSON: lone surrogates of the source come back from their escapes.
    return _ENCODER.encode({"kind": _KIND, "format": CACHE_FORMAT, "version": __version__,
                            "key": key, "extract": extract_to_json(module)}).encode("ascii")


def write_entry_bytes(file: Path, data: bytes) -> None:
    """Write :func:`entry_bytes` to ``file`` atomically: a temporary file, then a rename."""
    fd, tmp = _temporary(file)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.close(fd)
        fd = -1
        os.replace(tmp, file)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise


def _temporary(file: Path) -> tuple[int, str]:
    """A new file beside ``file``, named for this process (cheaper than mkstemp's random names)."""
    tmp = str(file.parent / f".{file.name}.{os.getpid()}-{next(_SERIAL)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileNotFoundError:
            file.parent.mkdir(parents=True, exist_ok=True)
            return os.open(tmp, flags, 0o666), tmp
    except FileExistsError:  # left by a crashed process that had our pid
        return tempfile.mkstemp(prefix=f".{file.name}.", suffix=".tmp", dir=file.parent)


# -- JSON form of an extraction -------------------------------------------------------


def extract_to_json(module: ModuleExtract) -> dict[str, Any]:
    """The compact JSON form of a :class:`~sgkr.records.ModuleExtract` (lists, not objects)."""
    return {
        "path": module.path,
        "module": module.module,
        "package": module.is_package,
        "defs": [_definition_to_json(d) for d in module.definitions],
        "classes": [[c.qualname, c.name, list(c.bases)] for c in module.classes],
        "imports": [[b.scope, b.alias, b.target] for b in module.imports],
        "problems": [[p.file, p.reason, p.kind, p.line] for p in module.problems],
    }


def extract_from_json(data: dict[str, Any]) -> ModuleExtract:
    """Rebuild a :class:`~sgkr.records.ModuleExtract` from :func:`extract_to_json`'s form.

    Raises
    ------
    ValueError, KeyError, TypeError, IndexError
        When ``data`` is not of that form (a cache treats it as a miss).
    """
    path = _str(data["path"])
    return ModuleExtract(
        path=path,
        module=_str(data["module"]),
        is_package=bool(data["package"]),
        definitions=tuple(_definition_from_json(d, path) for d in data["defs"]),
        classes=tuple(ClassInfo(_str(q), _str(n), tuple(map(_str, b)))
                      for q, n, b in data["classes"]),
        imports=tuple(ImportBinding(_str(s), _str(a), _str(t)) for s, a, t in data["imports"]),
        problems=tuple(Problem(_str(f), _str(r), k, ln) for f, r, k, ln in data["problems"]),
    )


def _definition_to_json(d: Definition) -> list[Any]:
    knowledge: str | int | None = d.knowledge
    if knowledge is not None:
        if knowledge == d.docstring:
            knowledge = _SAME_AS_DOCSTRING
        elif knowledge == d.comment:
            knowledge = _SAME_AS_COMMENT
    inputs, outputs = d.inferred_inputs, d.inferred_outputs
    return [d.qualname, d.name, d.kind, d.code, d.span.file, d.span.start_line,
            d.span.end_line, d.docstring, d.comment, list(d.params), d.signature,
            [[c.kind, c.name, c.receiver, c.line] for c in d.calls],
            list(d.subscript_keys), d.enclosing_class, d.is_async, knowledge,
            None if inputs is None else list(inputs), None if outputs is None else list(outputs)]


def _definition_from_json(raw: list[Any], path: str) -> Definition:
    (qualname, name, kind, code, file, start, end, docstring, comment, params, signature,
     calls, keys, enclosing, is_async, knowledge, inputs, outputs) = raw
    if kind not in ("function", "method", "module"):
        raise ValueError(f"unknown definition kind {kind!r}")
    if type(knowledge) is int:
        if knowledge not in (_SAME_AS_DOCSTRING, _SAME_AS_COMMENT):
            raise ValueError(f"unknown knowledge reference {knowledge!r}")
        knowledge = _str(docstring if knowledge == _SAME_AS_DOCSTRING else comment)
    elif knowledge is not None:
        knowledge = _str(knowledge)
    return Definition(
        qualname=_str(qualname), name=_str(name), kind=kind, code=_str(code),
        span=SourceSpan(path if file == path else _str(file), int(start), int(end)),
        docstring=docstring, comment=comment, params=tuple(params), signature=signature,
        calls=tuple(CallSite(k, n, r, ln) for k, n, r, ln in calls),
        subscript_keys=tuple(keys), enclosing_class=enclosing, is_async=bool(is_async),
        knowledge=knowledge,
        inferred_inputs=None if inputs is None else tuple(map(_str, inputs)),
        inferred_outputs=None if outputs is None else tuple(map(_str, outputs)),
    )


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value

"""Reading files by SGKR's rules: regular files only, inside the roots, never blocking, capped.

Every file SGKR reads (sources, notebooks, ``.gitignore`` files, solution files,
knowledge, examples and question files, graph.json, retriever options) goes
through :func:`read_file`, or :func:`opened` to be read in chunks:

- the file's real path (symlinks resolved) must lie inside one of the roots
  given, when roots are given;
- it is opened without blocking (``O_NONBLOCK``, no controlling terminal) and
  used only when ``fstat`` says it is a regular file, so a FIFO, a socket or a
  device is refused instead of hanging or streaming forever;
- at most ``limit + 1`` bytes are read, whatever ``stat`` said, so a file that
  grows while it is read, or a size the file system misreports, is still refused.

Parsed JSON and YAML go through :func:`parse_json` / :func:`check_tree`: a
typed error names the file for bad JSON, nesting too deep, integers too long,
``NaN``, lone surrogates, and documents whose expanded size (YAML aliases
counted each time they are used) is over a limit.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "a.txt").write_text("hello")
>>> read_file(folder / "a.txt", 10, roots=roots_of([folder]))
b'hello'
>>> read_file(folder / "a.txt", 3)
Traceback (most recent call last):
...
sgkr.ingest.files.FileRefused: file too large (5 bytes > 3)
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import SGKRError

__all__ = [
    "FileRefused",
    "read_file",
    "opened",
    "CappedReader",
    "read_side_file",
    "read_side_text",
    "inside",
    "roots_of",
    "parse_json",
    "check_tree",
    "parse_large_json",
    "MAX_SIDE_FILE_BYTES",
    "MAX_EXPANDED_ITEMS",
]

# Knowledge, examples and question files: far above any real one.
MAX_SIDE_FILE_BYTES = 64_000_000
# Strings, numbers, lists and objects of a parsed side file, each character of a
# string counted (YAML aliases are counted every time they are used).
MAX_EXPANDED_ITEMS = 64_000_000
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
_CHUNK = 1 << 20
# A lone surrogate can reach parsed JSON only through a \\uD800-\\uDFFF escape.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class FileRefused(SGKRError):
    """A file is not read: outside the roots, not a regular file, or over the size limit."""


def inside(real: str, roots: Iterable[str]) -> bool:
    """Whether the real path ``real`` is one of ``roots`` or lies under one.

    Examples
    --------
    >>> inside("/a/b/c.py", ["/a/b"]), inside("/a/bc.py", ["/a/b"])
    (True, False)
    """
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def roots_of(paths: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    """The real paths a build may read under: each folder given, each file's folder.

    A file given by a symlink counts by the folder of the link, not of its target.
    """
    roots: list[str] = []
    for path in paths:
        given = Path(path).absolute()
        folder = given if given.is_dir() else given.parent
        roots.append(os.path.realpath(folder))
    return tuple(dict.fromkeys(roots))


@contextmanager
def opened(path: str | os.PathLike[str], limit: int, *,
           roots: Sequence[str] | None = None) -> Iterator[CappedReader]:
    """A regular file opened by the rules of :func:`read_file`, to read in pieces.

    Its real path, type and size are checked before it is handed out; the
    reader gives at most ``limit + 1`` bytes, so a file that grew since is found.

    Raises
    ------
    FileRefused, OSError
        As :func:`read_file`.
    """
    real = os.path.realpath(path)
    if roots is not None and not inside(real, roots):
        raise FileRefused("outside the folders given (a symlink leading out?)")
    # The real path is opened: a link swapped in since is not followed.
    fd = os.open(real, _FLAGS | getattr(os, "O_NOFOLLOW", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused("not a regular file (a FIFO, device or socket)")
        if info.st_size > limit:
            raise FileRefused(f"file too large ({info.st_size} bytes > {limit})")
        handle = os.fdopen(fd, "rb", buffering=_CHUNK)
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield CappedReader(handle, limit + 1)


class CappedReader:
    """A binary reader that stops after ``left`` bytes in all."""

    def __init__(self, handle: BinaryIO, left: int) -> None:
        self._handle = handle
        self._left = left

    def read(self, size: int = -1) -> bytes:
        size = self._left if size < 0 else min(size, self._left)
        data = self._handle.read(size)
        self._left -= len(data)
        return data


def read_file(path: str | os.PathLike[str], limit: int, *,
              roots: Sequence[str] | None = None) -> bytes:
    """The bytes of a regular file, read by the rules in the module doc.

    Parameters
    ----------
    path
        The file.
    limit
        Most bytes read; a larger file is refused.
    roots
        Real folder paths (see :func:`roots_of`) the file's real path must lie
        under; ``None``: anywhere.

    Raises
    ------
    FileRefused
        Outside the roots, not a regular file, or larger than ``limit``.
    OSError
        The file cannot be opened or read.
    """
    with opened(path, limit, roots=roots) as handle:
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = handle.read(_CHUNK)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    if total > limit:
        raise FileRefused(f"file too large (over {limit} bytes when read)")
    return b"".join(chunks)


def read_side_file(path: str | os.PathLike[str], where: str, error: type[SGKRError], *,
                   limit: int = MAX_SIDE_FILE_BYTES) -> bytes:
    """:func:`read_file` of a file the user named (no roots), every failure as ``error``."""
    try:
        return read_file(path, limit)
    except FileRefused as exc:
        raise error(f"{where}: {exc}") from exc
    except OSError as exc:
        raise error(f"{where}: {exc.strerror or exc}") from exc


def read_side_text(path: str | os.PathLike[str], where: str, error: type[SGKRError], *,
                   limit: int = MAX_SIDE_FILE_BYTES) -> str:
    """:func:`read_side_file` decoded as UTF-8 (a BOM allowed)."""
    try:
        return read_side_file(path, where, error, limit=limit).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_json(raw: bytes | str, where: str, error: type[Exception], *,
               invalid: str = "invalid JSON") -> Any:
    """Parse JSON text (a UTF-8 BOM allowed) or raise ``error`` naming ``where``.

    Refused: invalid JSON, not UTF-8, nesting too deep, integers of more than
    4,300 digits, ``NaN`` / ``Infinity``, lone surrogates.

    Examples
    --------
    >>> from sgkr.errors import KnowledgeFormatError
    >>> parse_json(b'\\xef\\xbb\\xbf{"a": 1}', "k.json", KnowledgeFormatError)
    {'a': 1}
    >>> parse_json('[NaN]', "k.json", KnowledgeFormatError)
    Traceback (most recent call last):
    ...
    sgkr.errors.KnowledgeFormatError: k.json: invalid JSON: NaN is not a JSON number
    """
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    else:
        text = raw[1:] if raw.startswith("\ufeff") else raw
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: {invalid}: {exc.msg} at line {exc.lineno} "
                    f"column {exc.colno}") from exc
    except RecursionError as exc:
        raise error(f"{where}: {invalid}: nested too deeply") from exc
    except ValueError as exc:  # NaN, or an integer over the digit limit
        raise error(f"{where}: {invalid}: {_first_line(str(exc))}") from exc
    probe = text.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if _escapes_surrogate(probe):
        check_tree(data, where, error, budget=None)
    return data


def _escapes_surrogate(raw: bytes) -> bool:
    """Whether JSON text ``raw`` escapes a surrogate (``\\ud800``): a backslash that no
    backslash escapes, then ``uD800`` to ``uDFFF``. Code in JSON text that spells such an
    escape itself has its backslash escaped (``\\\\ud800``: a test of the standard
    library's), and is no surrogate.

    Examples
    --------
    >>> _escapes_surrogate(rb'["\\ud800"]'), _escapes_surrogate(rb'["\\\\ud800"]')
    (True, False)
    """
    for hit in _SURROGATE_ESCAPE.finditer(raw):
        start = before = hit.start()
        while before and raw[before - 1] == 0x5C:  # the backslashes before it: linear in all
            before -= 1
        if (start - before) % 2 == 0:
            return True
    return False


def parse_large_json(raw: bytes, where: str, error: type[Exception], *,
                     invalid: str = "invalid JSON") -> Any:
    """:func:`parse_json` of a large document (graph.json, the header of its index).

    orjson parses it straight from its bytes: in half the time, and at a
    third of the peak memory of the standard parser, which first makes a text
    copy. What orjson refuses is parsed again by :func:`parse_json`, which
    says why in the same words (a lone surrogate, ``NaN``, bad UTF-8, nesting).
    One difference: an integer of more than 64 bits is read as a float.

    Examples
    --------
    >>> from sgkr.errors import GraphFormatError
    >>> parse_large_json(b'\\xef\\xbb\\xbf{"a": [1, 2.5]}', "g.json", GraphFormatError)
    {'a': [1, 2.5]}
    >>> parse_large_json(b'["\\\\ud800"]', "g.json", GraphFormatError)
    Traceback (most recent call last):
    ...
    sgkr.errors.GraphFormatError: g.json: text holds a lone surrogate ('\\ud800'), which is not \
Unicode text
    """
    import orjson  # here: importing sgkr (sgkr --version) does not load it

    try:
        return orjson.loads(memoryview(raw)[3:] if raw.startswith(codecs.BOM_UTF8) else raw)
    except orjson.JSONDecodeError:
        return parse_json(raw, where, error, invalid=invalid)


def check_tree(data: Any, where: str, error: type[Exception], *,
               budget: int | None = MAX_EXPANDED_ITEMS) -> None:
    """Refuse parsed data holding a lone surrogate, or larger than ``budget`` once expanded.

    Each list, object, scalar and string character counts one against the
    budget, every time it is reached: a YAML alias used a million times counts
    a million times, and the walk stops as soon as the budget is spent (a
    self-referencing document included).

    Examples
    --------
    >>> from sgkr.errors import KnowledgeFormatError
    >>> check_tree({"a": ["\\ud800"]}, "k.json", KnowledgeFormatError)
    Traceback (most recent call last):
    ...
    sgkr.errors.KnowledgeFormatError: k.json: text holds a lone surrogate ('\\ud800'), ...
    """
    left = budget
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            cost = len(item) + 1
            if not item.isascii():
                _check_text(item, where, error)
        elif isinstance(item, dict):
            cost = 1
            for key, value in item.items():
                stack.append(key)
                stack.append(value)
        elif isinstance(item, (list, tuple)):
            cost = 1
            stack.extend(item)
        else:
            cost = 1
        if left is not None:
            left -= cost
            if left < 0:
                raise error(f"{where}: expands to more than {budget:,} items and characters "
                            "(YAML aliases used many times?)")


def _check_text(text: str, where: str, error: type[Exception]) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end]
        raise error(f"{where}: text holds a lone surrogate ({bad!r}), which is not "
                    "Unicode text") from exc


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


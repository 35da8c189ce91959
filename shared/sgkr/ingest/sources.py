"""Finding and reading the Python files of a build, reporting what cannot be read.

Folders are walked for ``*.py`` files and Jupyter notebooks (``*.ipynb``,
read by :mod:`sgkr.ingest.notebook`) by :mod:`sgkr.ingest.walk`, which says what
it skips and why. Each file is decoded by :mod:`sgkr.ingest.decode` (BOM, PEP 263
coding line, else UTF-8); binary, empty, oversized and undecodable files are
skipped with a :class:`~sgkr.records.Problem`.

Examples
--------
>>> files, problems = read_sources([("pkg/mod.py", "def f():\\n    return 1\\n")])
>>> files[0].path, files[0].module
('pkg/mod.py', 'pkg.mod')
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgumentError, SourceError
from ..records import Problem
from .decode import SOURCE_ENCODINGS, decode_source, decoded, is_text, shown_path
from .files import FileRefused, read_file, roots_of
from .notebook import (
    MAX_NOTEBOOK_CONTAINERS,
    NOTEBOOK_READ_FACTOR,
    containers,
    without_outputs,
)
from .walk import SOURCE_SUFFIXES, list_sources

__all__ = [
    "nothing_read",
    "SourceFile",
    "SourceInput",
    "read_sources",
    "split_sources",
    "memory_files",
    "common_root",
    "module_name",
    "is_test_file",
    "name_in_module",
    "decode_source",
    "list_sources",
    "read_source",
    "decoded",
    "shown_path",
    "check_patterns",
    "check_max_file_bytes",
    "DEFAULT_MAX_FILE_BYTES",
    "SOURCE_ENCODINGS",
    "SOURCE_SUFFIXES",
]

SourceInput = str | os.PathLike[str] | tuple[str, str]
DEFAULT_MAX_FILE_BYTES = 5_000_000


@dataclass(frozen=True)
class SourceFile:
    """One decoded source file: its path relative to the build root and its text."""

    path: str
    text: str

    @property
    def module(self) -> str:
        """The dotted module name of the file (see :func:`module_name`)."""
        return module_name(self.path)

    @property
    def is_package(self) -> bool:
        """Whether the file is a package's ``__init__.py``."""
        return self.path.rsplit("/", 1)[-1] == "__init__.py"


def module_name(path: str) -> str:
    """Return the dotted module name of a relative path.

    A top folder named ``src`` is the ``src`` layout's, not a package: ``src/flask/app.py``
    is the module ``flask.app``, as it is imported.

    Examples
    --------
    >>> module_name("pkg/sub/__init__.py"), module_name("pkg/mod.py"), module_name("nb.ipynb")
    ('pkg.sub', 'pkg.mod', 'nb')
    >>> module_name("src/flask/app.py"), module_name("src/flask/__init__.py")
    ('flask.app', 'flask')
    """
    parts = path.replace("\\", "/").split("/")
    while parts and parts[0] in ("", "."):
        parts = parts[1:]
    if len(parts) > 1 and parts[0] == "src" and parts[1] not in ("__init__.py", ""):
        parts = parts[1:]
    last = parts[-1] if parts else ""
    for suffix in SOURCE_SUFFIXES:
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    if last == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    elif parts:
        parts[-1] = last
    return ".".join(p for p in parts if p and p != ".")


def name_in_module(qualnames: Sequence[str], files: Sequence[str], default: str = "") -> str:
    """The qualified name of a definition inside its module, as a developer says it
    (``Flask.dispatch_request``, ``App.__init__``, ``outer.inner``): of its first file (in
    sorted order), the qualified name that module holds, less the module's name.

    ``default`` when no qualified name lies in that module (a name given by hand).

    Examples
    --------
    >>> name_in_module(["flask.app.Flask.dispatch_request"], ["src/flask/app.py"])
    'Flask.dispatch_request'
    >>> name_in_module(["b.run", "a.run"], ["b.py", "a.py"]), name_in_module([], [], "f")
    ('run', 'f')
    """
    file = min(files, default="")
    module = module_name(file) if file else ""
    inside = [q[len(module) + 1:] if module else q for q in qualnames
              if not module or q.startswith(f"{module}.")]
    return min(inside, default=default or min(qualnames, default=""))


@functools.lru_cache(maxsize=1 << 16)
def is_test_file(path: str) -> bool:
    """Whether a relative path holds tests, by pytest's and unittest's conventions.

    A file is a test file when a folder on its path is named ``tests``, ``test`` or
    ``testing``, or its name is ``test_*.py``, ``*_test.py``, ``tests.py`` or
    ``conftest.py`` (notebooks alike).

    Examples
    --------
    >>> [is_test_file(p) for p in ("tests/app.py", "pkg/test_app.py", "pkg/app_test.py",
    ...                            "conftest.py", "pkg/testing/util.py", "pkg/app.py",
    ...                            "pkg/contest.py", "pkg/latest.py")]
    [True, True, True, True, True, False, False, False]
    """
    parts = path.replace("\\", "/").split("/")
    if any(p in _TEST_FOLDERS for p in parts[:-1]):
        return True
    stem = parts[-1]
    for suffix in SOURCE_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return stem.startswith("test_") or stem.endswith("_test") or stem in ("conftest", "tests")


_TEST_FOLDERS = frozenset({"tests", "test", "testing"})


def common_root(paths: Sequence[Path]) -> Path:
    """Return the deepest folder containing every path (a file counts by its folder)."""
    if not paths:
        return Path.cwd()
    dirs = [str(p if p.is_dir() else p.parent) for p in paths]
    return Path(os.path.commonpath(dirs))


def read_sources(
    sources: Iterable[SourceInput],
    *,
    root: str | os.PathLike[str] | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    exclude: Sequence[str] = (),
    gitignore: bool = True,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[list[SourceFile], list[Problem]]:
    """Read the Python files and notebooks named by ``sources``.

    Parameters
    ----------
    sources
        Files, folders, or in-memory ``(relative path, text)`` pairs.
    root
        Folder the reported paths are relative to; by default the deepest
        folder holding every file and folder given.
    max_file_bytes
        Files larger than this are skipped and reported.
    exclude
        Glob patterns; a file is left out when its relative path, or the name
        of one of its folders, matches one (``tests``, ``*/migrations/*``).
    gitignore
        Leave out what the ``.gitignore`` files inside the folders walked ignore
        (a file or folder given by name is read all the same).
    progress
        Called as ``progress("read", done, total)`` once the files are listed,
        then as they are read.

    Returns
    -------
    files, problems
        The decoded files, sorted by path, and what was skipped, with reasons.

    Raises
    ------
    SourceError
        If a given path does not exist.
    InvalidArgumentError
        If an entry of ``sources`` is of an unknown type.
    """
    check_max_file_bytes(max_file_bytes)
    exclude = check_patterns(exclude)
    memory, disk = split_sources(sources)
    base = Path(root).resolve() if root is not None else common_root([p.resolve() for p in disk])
    files, problems = memory_files(memory)
    found, walk_problems = list_sources(disk, base, exclude=exclude, skip=files,
                                        gitignore=gitignore)
    problems.extend(walk_problems)
    _read_found(found, roots_of(disk), max_file_bytes, progress, files, problems)
    return [files[k] for k in sorted(files)], problems


def _read_found(found: Sequence[tuple[Path, str]], roots: Sequence[str], max_file_bytes: int,
                progress: Callable[[str, int, int], None] | None,
                files: dict[str, SourceFile], problems: list[Problem]) -> None:
    """Read the listed files into ``files`` by relative path; what is skipped into
    ``problems``."""
    for done, (path, rel) in enumerate(found):
        if progress is not None and done % 100 == 0:
            progress("read", done, len(found))
        text, problem = read_source(path, rel, max_file_bytes, roots=roots)
        if problem is not None:
            problems.append(problem)
        elif text is not None:
            files[rel] = SourceFile(rel, text)
    if progress is not None and found:
        progress("read", len(found), len(found))


def split_sources(sources: Iterable[SourceInput]) -> tuple[list[tuple[str, str]], list[Path]]:
    """The in-memory ``(path, text)`` pairs and the paths on disk of ``sources``, checked.

    Raises
    ------
    SourceError
        If a path does not exist.
    InvalidArgumentError
        If an entry is neither a path nor a ``(path, text)`` pair of strings.

    Examples
    --------
    >>> split_sources([("m.py", "x = 1")])
    ([('m.py', 'x = 1')], [])
    """
    memory: list[tuple[str, str]] = []
    disk: list[Path] = []
    for item in sources:
        if isinstance(item, tuple):
            if len(item) != 2 or not all(isinstance(x, str) for x in item):
                raise InvalidArgumentError(
                    f"an in-memory source must be a (path, text) pair of strings, got {item!r}"
                )
            memory.append(item)
        elif isinstance(item, (str, os.PathLike)):
            path = Path(item)
            if not path.exists():
                raise SourceError(f"source path does not exist: {os.fspath(item)}")
            disk.append(path)
        else:
            raise InvalidArgumentError(f"unknown source {item!r}: give a path or (path, text)")
    return memory, disk


def memory_files(memory: list[tuple[str, str]]) -> tuple[dict[str, SourceFile], list[Problem]]:
    """The in-memory sources by relative path, and those that are not Unicode text.

    Examples
    --------
    >>> files, problems = memory_files([("a\\\\m.py", "x = 1"), ("n.py", "\\ud800")])
    >>> list(files), [p.reason for p in problems]
    (['a/m.py'], ['not Unicode text (a lone surrogate)'])
    """
    files: dict[str, SourceFile] = {}
    problems: list[Problem] = []
    for name, content in memory:
        rel = name.replace("\\", "/")
        if not (is_text(rel) and is_text(content)):
            problems.append(Problem(shown_path(rel), "not Unicode text (a lone surrogate)"))
            continue
        files[rel] = SourceFile(rel, content)
    return files, problems


def check_max_file_bytes(value: object) -> int:
    """``value`` when it is a positive integer; else an :class:`InvalidArgumentError`."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise InvalidArgumentError(f"max_file_bytes must be a positive integer, got {value!r}")
    return value


def check_patterns(exclude: object) -> tuple[str, ...]:
    """``exclude`` as a tuple of glob patterns (one string is one pattern), else an error.

    Examples
    --------
    >>> check_patterns(["tests", "*/migrations/*"]), check_patterns("tests")
    (('tests', '*/migrations/*'), ('tests',))
    """
    if isinstance(exclude, str):
        return (exclude,)
    if not isinstance(exclude, Iterable) or isinstance(exclude, bytes):
        raise InvalidArgumentError(f"exclude must be glob patterns (strings), got {exclude!r}")
    patterns = tuple(exclude)
    if not all(isinstance(p, str) for p in patterns):
        raise InvalidArgumentError(f"exclude must be glob patterns (strings), got {exclude!r}")
    return patterns


def read_source(path: Path, rel: str, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, *,
                roots: Sequence[str] | None = None) -> tuple[str | None, Problem | None]:
    """Read and decode one file: its text, or the problem that makes it skipped.

    The one place source files are read, by the rules of :func:`sgkr.ingest.files.read_file`:
    a regular file whose real path lies inside ``roots`` (default: the folder
    ``path`` is in), opened without blocking, at most ``max_file_bytes`` read.
    A notebook is read up to :data:`sgkr.ingest.notebook.NOTEBOOK_READ_FACTOR` times
    that, and its outputs dropped; the limit applies to what is left.

    Examples
    --------
    >>> import tempfile
    >>> empty = Path(tempfile.mkdtemp()) / "e.py"
    >>> _ = empty.write_text("")
    >>> read_source(empty, "e.py")
    (None, Problem(file='e.py', reason='empty file', kind='skipped', line=None))
    """
    if not is_text(rel):
        return None, Problem(shown_path(rel), "file name is not UTF-8")
    if roots is None:
        roots = roots_of([path.parent])
    notebook = rel.endswith(".ipynb")
    try:
        data = read_file(path, max_file_bytes * (NOTEBOOK_READ_FACTOR if notebook else 1),
                         roots=roots)
    except FileRefused as exc:
        return None, Problem(rel, str(exc))
    except OSError as exc:
        return None, Problem(rel, f"not readable: {exc.strerror or exc}")
    text, problem = decoded(data, rel)
    if text is None or not notebook:
        return text, problem
    return _without_outputs(text, rel, max_file_bytes)


def _without_outputs(text: str, rel: str,
                     max_file_bytes: int) -> tuple[str | None, Problem | None]:
    """A notebook's text without its outputs, refused when still over the size limit, or
    when its JSON holds too many objects and arrays to parse in bounded memory."""
    if (count := containers(text)) > MAX_NOTEBOOK_CONTAINERS:
        return None, Problem(rel, f"notebook too large to read: {count:,} JSON objects and "
                                  f"arrays (at most {MAX_NOTEBOOK_CONTAINERS:,})")
    slim = without_outputs(text)
    size = len(slim.encode("utf-8", "surrogatepass"))
    if size > max_file_bytes:
        return None, Problem(rel, f"notebook too large without its outputs "
                                  f"({size} bytes > {max_file_bytes})")
    return slim, None


#: Skipped files named in the error of a build that read none.
_NAMED = 5


def nothing_read(where: str, problems: Sequence[Problem]) -> SourceError:
    """The error of a build that found no source to read in ``where``, naming the files it
    skipped and why (the first few, on one line).

    Examples
    --------
    >>> print(nothing_read("src", [Problem("a.py", "not UTF-8 text")]))
    found no Python source to read in src: 1 file skipped (a.py: not UTF-8 text)
    """
    skipped = [p for p in problems if p.kind == "skipped"]
    if not skipped:
        return SourceError(f"found no Python source to read in {where}")
    named = "; ".join(" ".join(str(p).split()) for p in skipped[:_NAMED])
    more = f"; and {len(skipped) - _NAMED} more" if len(skipped) > _NAMED else ""
    count = f"{len(skipped)} file{'s' if len(skipped) > 1 else ''}"
    return SourceError(f"found no Python source to read in {where}: {count} skipped "
                       f"({named}{more})")

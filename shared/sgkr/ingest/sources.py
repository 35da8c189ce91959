"""Finding and reading the Python files of a build, reporting what cannot be read.

Folders are walked for ``*.py`` files and Jupyter notebooks (``*.ipynb``,
read by :mod:`sgkr.ingest.notebook`); symlinks that loop or lead outside the
tree are skipped, and so are what ``.gitignore`` files ignore, virtual
environments, ``node_modules`` and build folders (see :mod:`sgkr.ingest.ignore`),
unless given by name. Each file
is decoded by its BOM or PEP 263 coding line, else as UTF-8; binary, empty,
oversized and undecodable files are skipped with a :class:`~sgkr.records.Problem`.

Examples
--------
>>> files, problems = read_sources([("pkg/mod.py", "def f():\\n    return 1\\n")])
>>> files[0].path, files[0].module
('pkg/mod.py', 'pkg.mod')
"""

from __future__ import annotations

import codecs
import fnmatch
import os
import re
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidArgumentError, SourceError
from ..records import Problem
from .files import FileRefused, read_file, roots_of
from .ignore import GITIGNORE_MAX_BYTES, IgnoreRules, left_out_folder, silently_skipped
from .notebook import NOTEBOOK_READ_FACTOR, without_outputs

__all__ = [
    "SourceFile",
    "SourceInput",
    "read_sources",
    "split_sources",
    "memory_files",
    "common_root",
    "module_name",
    "decode_source",
    "list_sources",
    "read_source",
    "decoded",
    "shown_path",
    "check_patterns",
    "check_max_file_bytes",
    "DEFAULT_MAX_FILE_BYTES",
    "SOURCE_ENCODINGS",
]

SourceInput = str | os.PathLike[str] | tuple[str, str]
DEFAULT_MAX_FILE_BYTES = 5_000_000
#: The suffixes of the files a folder's walk reads.
SOURCE_SUFFIXES = (".py", ".ipynb")
_GITIGNORED = "ignored by .gitignore"
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
#: The encodings a coding line may name (their canonical names): Unicode, the
#: single-byte code pages and the East Asian multi-byte ones, each decoded in
#: time linear in the file. Others (``punycode``, quadratic: a 400 KB file took
#: 8 s; ``idna``, ``utf-7``, ``unicode_escape``; ``rot13``, ``zlib``, which are
#: not text encodings) are refused.
SOURCE_ENCODINGS = frozenset({
    "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le",
    "utf-32-be", "ascii", "cp037", "cp1006", "cp1026", "cp1125", "cp1140", "cp273", "cp424",
    "cp437", "cp500", "cp720", "cp737", "cp775", "cp850", "cp852", "cp855", "cp856", "cp857",
    "cp858", "cp860", "cp861", "cp862", "cp863", "cp864", "cp865", "cp866", "cp869", "cp874",
    "cp875", "cp932", "cp949", "cp950", *(f"cp125{i}" for i in range(9)),
    *(f"iso8859-{i}" for i in (*range(1, 12), 13, 14, 15, 16)), "koi8-r", "koi8-t", "koi8-u",
    "kz1048", "ptcp154", "tis-620", "hp-roman8", "mac-arabic", "mac-croatian", "mac-cyrillic",
    "mac-farsi", "mac-greek", "mac-iceland", "mac-latin2", "mac-roman", "mac-romanian",
    "mac-turkish", "big5", "big5hkscs", "euc_jis_2004", "euc_jisx0213", "euc_jp", "euc_kr",
    "gb18030", "gb2312", "gbk", "hz", "iso2022_jp", "iso2022_jp_1", "iso2022_jp_2",
    "iso2022_jp_2004", "iso2022_jp_3", "iso2022_jp_ext", "iso2022_kr", "johab", "shift_jis",
    "shift_jis_2004", "shift_jisx0213",
})


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

    Examples
    --------
    >>> module_name("pkg/sub/__init__.py"), module_name("pkg/mod.py"), module_name("nb.ipynb")
    ('pkg.sub', 'pkg.mod', 'nb')
    """
    parts = path.replace("\\", "/").split("/")
    last = parts[-1]
    for suffix in SOURCE_SUFFIXES:
        if last.endswith(suffix):
            last = last[: -len(suffix)]
            break
    if last == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    else:
        parts[-1] = last
    return ".".join(p for p in parts if p and p != ".")


def decode_source(data: bytes) -> str:
    """Decode Python source bytes by BOM, PEP 263 coding line, or UTF-8.

    Raises
    ------
    UnicodeError, LookupError
        When the bytes are not text in the declared or default encoding, or the
        coding line names an encoding not in :data:`SOURCE_ENCODINGS`.

    Examples
    --------
    >>> decode_source(b"# coding: latin-1\\nx = '\\xe9'\\n")[-4:]
    "'é'\\n"
    >>> decode_source(b"# coding: punycode\\nx = 1\\n")
    Traceback (most recent call last):
    ...
    LookupError: coding 'punycode' is not a source encoding SGKR reads
    """
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16")
    for line in data.split(b"\n", 2)[:2]:
        found = _CODING.match(line)
        if found:
            return data.decode(_source_encoding(found.group(1).decode("ascii")))
    return data.decode("utf-8")


def _source_encoding(name: str) -> str:
    """The canonical name of the encoding a coding line names, if it is one SGKR reads.

    Emacs' ``utf-8-unix`` and ``latin-1-dos`` are read as Python reads them.
    """
    low = name.lower().replace("_", "-")
    if low.startswith(("utf-8-", "latin-1-", "iso-8859-1-", "iso-latin-1-")):
        name = "utf-8" if low.startswith("utf-8") else "iso-8859-1"
    try:
        canonical = codecs.lookup(name).name
    except LookupError:
        raise LookupError(f"unknown encoding {name!r} in the coding line") from None
    if canonical not in SOURCE_ENCODINGS:
        raise LookupError(f"coding {name!r} is not a source encoding SGKR reads")
    return canonical


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
    roots = roots_of(disk)
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
    return [files[k] for k in sorted(files)], problems


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
        if not (_is_text(rel) and _is_text(content)):
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


def list_sources(
    paths: Sequence[Path],
    base: Path,
    *,
    exclude: Sequence[str] = (),
    skip: Container[str] = (),
    gitignore: bool = True,
) -> tuple[list[tuple[Path, str]], list[Problem]]:
    """The Python files under ``paths``, without reading them.

    Parameters
    ----------
    paths
        Existing files and folders.
    base
        The resolved folder relative paths are taken from.
    exclude
        Glob patterns, as in :func:`read_sources`.
    skip
        Relative paths to leave out (files given in memory).
    gitignore
        As in :func:`read_sources`.

    Returns
    -------
    files, problems
        ``(path, relative path)`` of each file, each once, in walk order, and
        the folders and links skipped, with reasons.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "m.py").write_text("x = 1\\n")
    >>> [rel for _, rel in list_sources([folder], folder.resolve())[0]]
    ['m.py']
    """
    found: list[tuple[Path, str]] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    for path in paths:
        for item, where in _walk(path, base, exclude, gitignore):
            if isinstance(where, Problem):
                problems.append(where)
            elif where not in skip and where not in seen:
                seen.add(where)
                found.append((item, where))
    return found, _unless_named(problems, paths, base)


def _unless_named(problems: list[Problem], paths: Sequence[Path], base: Path) -> list[Problem]:
    """Without the folders left out of one walk that hold a path given by name."""
    named = [_relative(p, base) for p in paths]
    return [p for p in problems
            if not (p.reason == _GITIGNORED or p.reason.endswith(" left out"))
            or not any(n == p.file or n.startswith(p.file + "/") for n in named)]


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    if not patterns:
        return False
    parts = rel.rstrip("/").split("/")
    folders = parts if rel.endswith("/") else parts[:-1]
    path = rel.rstrip("/")
    return any(
        fnmatch.fnmatchcase(path, p) or any(fnmatch.fnmatchcase(d, p) for d in folders)
        for p in patterns
    )


def _relative(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return Path(os.path.relpath(path.resolve(), base)).as_posix()


def _walk(start: Path, base: Path, exclude: Sequence[str], gitignore: bool = True,
          ) -> Iterable[tuple[Path, str | Problem]]:
    """Yield (file, relative path) for each Python file, or (folder, Problem) for a skip."""
    if not start.is_dir():
        yield start, _relative(start, base)
        return
    top = start.resolve()
    seen = {top}
    files_seen: set[Path] = set()
    # (folder, its real path, relative path, the .gitignore rules above it): a real path
    # is resolved only through links.
    stack = [(top, top, _relative(top, base), IgnoreRules())]
    while stack:
        folder, real_folder, rel_folder, rules = stack.pop()
        prefix = "" if rel_folder in ("", ".") else rel_folder + "/"
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            yield folder, Problem(rel_folder, f"folder not readable: {exc.strerror}")
            continue
        if folder is not top:
            reason = left_out_folder(folder.name, {e.name for e in entries})
            if reason is not None:
                yield folder, Problem(rel_folder, reason)
                continue
        if gitignore:
            rules, problem = _with_gitignore(rules, entries, prefix)
            if problem is not None:
                yield folder, problem
        subdirs: list[tuple[Path, Path, str, IgnoreRules]] = []
        for entry in entries:
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if silently_skipped(entry.name) or _excluded(rel + "/", exclude):
                    continue
                path = Path(entry.path)
                if rules.ignored(rel, is_dir=True):
                    yield path, Problem(rel, _GITIGNORED)
                    continue
                link = entry.is_symlink()
                real = path.resolve() if link else real_folder / entry.name
                if link and (
                        real in seen or real in top.parents or top not in (real, *real.parents)):
                    yield path, Problem(rel, "symlink to a folder outside or in a loop")
                    continue
                seen.add(real)
                subdirs.append((path, real, rel, rules))
            elif entry.name.endswith(SOURCE_SUFFIXES) and not _excluded(rel, exclude):
                found = _source_entry(entry, rel, rules, real_folder, files_seen)
                if found is not None:
                    yield found
        stack.extend(reversed(subdirs))


def _source_entry(entry: os.DirEntry[str], rel: str, rules: IgnoreRules, real_folder: Path,
                  files_seen: set[Path]) -> tuple[Path, str | Problem] | None:
    """(file, relative path) of a source file met while walking, (file, Problem) for a
    skip, or None for a file already met through another path."""
    if rules.ignored(rel, is_dir=False):
        return Path(entry.path), Problem(rel, _GITIGNORED)
    link = entry.is_symlink()
    if link and not os.path.exists(entry.path):
        return Path(entry.path), Problem(rel, "broken symlink")
    # A file reached twice (through a symlinked folder) is read once.
    real = Path(entry.path).resolve() if link else real_folder / entry.name
    if real in files_seen:
        return None
    files_seen.add(real)
    return Path(entry.path), rel


def _with_gitignore(rules: IgnoreRules, entries: Sequence[os.DirEntry[str]], prefix: str,
                    ) -> tuple[IgnoreRules, Problem | None]:
    """``rules`` and those of the folder's ``.gitignore``, if it has one that is a regular file."""
    entry = next((e for e in entries if e.name == ".gitignore"), None)
    if entry is None or not entry.is_file(follow_symlinks=False):
        return rules, None
    rel = prefix + entry.name
    try:
        data = read_file(entry.path, GITIGNORE_MAX_BYTES)
        return rules.with_gitignore(prefix, data.decode("utf-8", "replace").splitlines()), None
    except FileRefused as exc:
        return rules, Problem(rel, f"not applied: {exc}")
    except OSError as exc:
        return rules, Problem(rel, f"not applied: not readable: {exc.strerror or exc}")
    except ValueError as exc:
        return rules, Problem(rel, f"not applied: {exc}")


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
    if not _is_text(rel):
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
    """A notebook's text without its outputs, refused when still over the size limit."""
    slim = without_outputs(text)
    size = len(slim.encode("utf-8", "surrogatepass"))
    if size > max_file_bytes:
        return None, Problem(rel, f"notebook too large without its outputs "
                                  f"({size} bytes > {max_file_bytes})")
    return slim, None


def decoded(data: bytes, rel: str) -> tuple[str | None, Problem | None]:
    """The text of a source file's bytes, or the problem that makes it skipped."""
    if not data.strip():
        return None, Problem(rel, "empty file")
    try:
        text = decode_source(data)
    except (UnicodeError, LookupError) as exc:
        return None, Problem(rel, f"not decodable as text: {exc}")
    if "\x00" in text:
        return None, Problem(rel, "binary file (NUL bytes)")
    if not _is_text(text):
        return None, Problem(rel, "not Unicode text (a lone surrogate)")
    return text, None


def shown_path(rel: str) -> str:
    """``rel`` with bytes that are not UTF-8 (kept as surrogates by the OS layer) as U+FFFD."""
    if _is_text(rel):
        return rel
    try:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return rel.encode("utf-8", "replace").decode("utf-8")


def _is_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

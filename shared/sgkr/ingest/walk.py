"""Walking folders for the Python files and notebooks of a build, without reading them.

Symlinks that loop or lead outside the tree are skipped, and so are what
``.gitignore`` files ignore, virtual environments, ``node_modules`` and build
folders (see :mod:`sgkr.ingest.ignore`), unless given by name; each skip is a
:class:`~sgkr.records.Problem`.

Examples
--------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> _ = (folder / "m.py").write_text("x = 1\\n")
>>> _ = (folder / "notes.txt").write_text("not code\\n")
>>> [rel for _, rel in list_sources([folder], folder.resolve())[0]]
['m.py']
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..records import Problem
from .files import FileRefused, read_file
from .ignore import GITIGNORE_MAX_BYTES, IgnoreRules, left_out_folder, silently_skipped

__all__ = ["list_sources", "relative_path", "SOURCE_SUFFIXES"]

#: The suffixes of the files a folder's walk reads.
SOURCE_SUFFIXES = (".py", ".ipynb")
_GITIGNORED = "ignored by .gitignore"
Found = tuple[Path, str | Problem]


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
    named = [relative_path(p, base) for p in paths]
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


def relative_path(path: Path, base: Path) -> str:
    """``path`` (resolved) relative to the resolved folder ``base``, with ``/``; ``..``
    where it lies outside.

    Examples
    --------
    >>> relative_path(Path("/srv/app/pkg/m.py"), Path("/srv/app"))
    'pkg/m.py'
    """
    try:
        return path.resolve().relative_to(base).as_posix()
    except ValueError:
        return Path(os.path.relpath(path.resolve(), base)).as_posix()


@dataclass(frozen=True)
class _Folder:
    """A folder to walk: its path, its real path (resolved only through links), its
    relative path and the ``.gitignore`` rules above it."""

    path: Path
    real: Path
    rel: str
    rules: IgnoreRules


@dataclass
class _Walk:
    """One walk from ``top``: the real folders and files met so far."""

    top: Path
    exclude: Sequence[str]
    gitignore: bool
    seen: set[Path] = field(default_factory=set)
    files_seen: set[Path] = field(default_factory=set)
    todo: list[_Folder] = field(default_factory=list)

    def folder(self, folder: _Folder) -> Iterator[Found]:
        """The files and skips of one folder; its subfolders to walk go on ``self.todo``."""
        prefix = "" if folder.rel in ("", ".") else folder.rel + "/"
        try:
            entries = sorted(os.scandir(folder.path), key=lambda e: e.name)
        except OSError as exc:
            yield folder.path, Problem(folder.rel, f"folder not readable: {exc.strerror}")
            return
        if folder.path is not self.top:
            reason = left_out_folder(folder.path.name, {e.name for e in entries})
            if reason is not None:
                yield folder.path, Problem(folder.rel, reason)
                return
        rules = folder.rules
        if self.gitignore:
            rules, problem = _with_gitignore(rules, entries, prefix)
            if problem is not None:
                yield folder.path, problem
        subfolders: list[_Folder] = []
        for entry in entries:
            rel = prefix + entry.name
            if _is_dir(entry):
                found = self._subfolder(entry, rel, rules, folder.real)
                if isinstance(found, _Folder):
                    subfolders.append(found)
                elif found is not None:
                    yield found
            elif entry.name.endswith(SOURCE_SUFFIXES) and not _excluded(rel, self.exclude):
                source = _source_entry(entry, rel, rules, folder.real, self.files_seen)
                if source is not None:
                    yield source
        self.todo.extend(reversed(subfolders))

    def _subfolder(self, entry: os.DirEntry[str], rel: str, rules: IgnoreRules,
                   real_folder: Path) -> _Folder | Found | None:
        """The subfolder to walk, the skip it is, or None when it is left out silently."""
        if silently_skipped(entry.name) or _excluded(rel + "/", self.exclude):
            return None
        path = Path(entry.path)
        if rules.ignored(rel, is_dir=True):
            return path, Problem(rel, _GITIGNORED)
        link = entry.is_symlink()
        real = path.resolve() if link else real_folder / entry.name
        if link and (real in self.seen or real in self.top.parents
                     or self.top not in (real, *real.parents)):
            return path, Problem(rel, "symlink to a folder outside or in a loop")
        self.seen.add(real)
        return _Folder(path, real, rel, rules)


def _walk(start: Path, base: Path, exclude: Sequence[str], gitignore: bool = True,
          ) -> Iterator[Found]:
    """Yield (file, relative path) for each Python file, or (folder, Problem) for a skip."""
    if not start.is_dir():
        yield start, relative_path(start, base)
        return
    top = start.resolve()
    walk = _Walk(top, exclude, gitignore, seen={top})
    walk.todo.append(_Folder(top, top, relative_path(top, base), IgnoreRules()))
    while walk.todo:
        yield from walk.folder(walk.todo.pop())


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


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

"""Which files and folders a walk of the sources leaves out, and why.

Left out by default, unless given by name: hidden folders and ``__pycache__``
(silently), virtual environments (a folder holding ``pyvenv.cfg`` or
``conda-meta``), ``site-packages``, ``dist-packages``, ``node_modules``, build
folders (``build`` or ``dist`` that are not packages, ``*.egg-info``), and
what the ``.gitignore`` files met on the way ignore (the deeper file
deciding, as git does; patterns matched in linear time by
:mod:`sgkr.ingest.wildmatch`).

Examples
--------
>>> rules = IgnoreRules().with_gitignore("", ["*.log", "/generated/"])
>>> rules.ignored("generated", is_dir=True), rules.ignored("src/app.py", is_dir=False)
(True, False)
>>> left_out_folder("build", {"lib", "bdist.linux"})
'build folder left out'
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from .wildmatch import GitPattern

__all__ = ["IgnoreRules", "GitIgnore", "left_out_folder", "silently_skipped",
           "GITIGNORE_MAX_BYTES", "MAX_GITIGNORE_GLOBS"]

#: A ``.gitignore`` larger than this is not applied (and reported).
GITIGNORE_MAX_BYTES = 1_000_000
#: A ``.gitignore`` with more patterns holding wildcards is not applied (and reported):
#: each is tried on every path of its folder (patterns without one are looked up).
MAX_GITIGNORE_GLOBS = 1_000
_SILENT = frozenset({"__pycache__"})
_NAMED = {
    "node_modules": "node_modules left out",
    "site-packages": "site-packages left out",
    "dist-packages": "site-packages left out",
}
_VENV_MARKERS = ("pyvenv.cfg", "conda-meta")


def silently_skipped(name: str) -> bool:
    """Whether a folder met on a walk is skipped without a word (hidden, ``__pycache__``).

    Examples
    --------
    >>> silently_skipped(".git"), silently_skipped("__pycache__"), silently_skipped("src")
    (True, True, False)
    """
    return name.startswith(".") or name in _SILENT


def left_out_folder(name: str, entries: Collection[str]) -> str | None:
    """The reason a folder met on a walk is left out, from its name and entries; else None.

    Parameters
    ----------
    name
        The folder's name.
    entries
        The names in it.

    Examples
    --------
    >>> left_out_folder("env", {"pyvenv.cfg", "lib", "bin"})
    'virtual environment left out'
    >>> left_out_folder("build", {"__init__.py", "steps.py"}) is None  # a package named build
    True
    """
    if name in _NAMED:
        return _NAMED[name]
    if any(marker in entries for marker in _VENV_MARKERS):
        return "virtual environment left out"
    if name.endswith(".egg-info") or (name in ("build", "dist") and "__init__.py" not in entries):
        return "build folder left out"
    return None


@dataclass(frozen=True)
class IgnoreRules:
    """The ``.gitignore`` files in force in one folder of a walk, outermost first.

    Each is kept with the relative path of its folder (``""`` or ending in ``/``),
    in the same terms as the paths it is asked about.
    """

    specs: tuple[tuple[str, GitIgnore], ...] = ()

    def with_gitignore(self, prefix: str, lines: Iterable[str]) -> IgnoreRules:
        """These rules and those of a ``.gitignore`` in the folder ``prefix``.

        Raises
        ------
        ValueError
            If a line is not a valid pattern, or the file has more than
            :data:`MAX_GITIGNORE_GLOBS` patterns with wildcards.
        """
        ignore = GitIgnore(lines)
        if not ignore.patterns:
            return self
        return IgnoreRules((*self.specs, (prefix, ignore)))

    def ignored(self, rel: str, *, is_dir: bool) -> bool:
        """Whether the file or folder at ``rel`` is ignored (the deepest match decides).

        ``rel`` is asked about as a walk meets it: its folders were asked about
        first (a file in an ignored folder is never met).
        """
        for prefix, ignore in reversed(self.specs):
            if not rel.startswith(prefix):
                continue
            verdict = ignore.verdict(rel[len(prefix):], is_dir=is_dir)
            if verdict is not None:
                return verdict
        return False


class GitIgnore:
    """The patterns of one ``.gitignore``: the last one matching a path decides.

    Patterns without a wildcard are looked up by name or path; only the others
    are tried, each in time linear in the path (:mod:`sgkr.ingest.wildmatch`).

    Examples
    --------
    >>> rules = GitIgnore(["*.log", "!keep.log", "/build/"])
    >>> rules.verdict("a.log", is_dir=False), rules.verdict("keep.log", is_dir=False)
    (True, False)
    >>> rules.verdict("src/build", is_dir=True) is None
    True
    """

    def __init__(self, lines: Iterable[str]) -> None:
        self.patterns: list[GitPattern] = []
        self._names: dict[str, list[int]] = defaultdict(list)
        self._paths: dict[str, list[int]] = defaultdict(list)
        self._globs: list[int] = []
        for number, line in enumerate(lines, start=1):
            try:
                pattern = GitPattern.parse(line)
            except ValueError as exc:
                raise ValueError(f"line {number}: {exc}") from None
            if pattern is None:
                continue
            index = len(self.patterns)
            self.patterns.append(pattern)
            if pattern.literal is None:
                self._globs.append(index)
            else:
                (self._paths if pattern.anchored else self._names)[pattern.literal].append(index)
        if len(self._globs) > MAX_GITIGNORE_GLOBS:
            raise ValueError(f"more than {MAX_GITIGNORE_GLOBS} patterns with wildcards")

    def verdict(self, rel: str, *, is_dir: bool) -> bool | None:
        """True (ignored) or False (re-included) by the last pattern matching ``rel``; else None."""
        names = rel.split("/")
        found = -1
        for index in (*self._names.get(names[-1], ()), *self._paths.get(rel, ())):
            if index > found and (is_dir or not self.patterns[index].folders_only):
                found = index
        for index in reversed(self._globs):
            if index < found:
                break
            if self.patterns[index].matches_names(names, is_dir=is_dir):
                found = index
                break
        return None if found < 0 else self.patterns[found].include

"""Which files and folders a walk of the sources leaves out, and why.

Left out by default, unless given by name: hidden folders and ``__pycache__``
(silently), virtual environments (a folder holding ``pyvenv.cfg`` or
``conda-meta``), ``site-packages``, ``dist-packages``, ``node_modules``, build
folders (``build`` or ``dist`` that are not packages, ``*.egg-info``), and
what the ``.gitignore`` files met on the way ignore (read with ``pathspec``,
the deeper file deciding, as git does).

Examples
--------
>>> rules = IgnoreRules().with_gitignore("", ["*.log", "/generated/"])
>>> rules.ignored("generated/", is_dir=True), rules.ignored("src/app.py", is_dir=False)
(True, False)
>>> left_out_folder("build", {"lib", "bdist.linux"})
'build folder left out'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import pathspec

__all__ = ["IgnoreRules", "left_out_folder", "silently_skipped", "GITIGNORE_MAX_BYTES"]

#: A ``.gitignore`` larger than this is not applied (and reported).
GITIGNORE_MAX_BYTES = 1_000_000
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
    in the same terms as the paths it is asked about, and, when none of its
    patterns re-includes (``!``), one regular expression for all of them.
    """

    specs: tuple[tuple[str, pathspec.GitIgnoreSpec, re.Pattern[str] | None], ...] = ()

    def with_gitignore(self, prefix: str, lines: Iterable[str]) -> IgnoreRules:
        """These rules and those of a ``.gitignore`` in the folder ``prefix``.

        Raises
        ------
        ValueError
            If a line is not a valid pattern.
        """
        spec = pathspec.GitIgnoreSpec.from_lines(list(lines))
        if not any(p.include is not None for p in spec.patterns):
            return self
        return IgnoreRules((*self.specs, (prefix, spec, _any_match(spec))))

    def ignored(self, rel: str, *, is_dir: bool) -> bool:
        """Whether the file or folder at ``rel`` is ignored (the deepest match decides)."""
        for prefix, spec, any_match in reversed(self.specs):
            if not rel.startswith(prefix):
                continue
            local = rel[len(prefix):] + ("/" if is_dir else "")
            if any_match is not None:
                if any_match.search(local):
                    return True
                continue
            verdict = spec.check_file(local).include
            if verdict is not None:
                return verdict
        return False


def _any_match(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    """One expression matching what some pattern of ``spec`` matches; None if one has ``!``.

    Without a re-including pattern, a path is ignored exactly when some pattern
    matches it: one search instead of one per pattern (a walk asks for every file).
    """
    parts: list[str] = []
    for pattern in spec.patterns:
        if pattern.include is None:
            continue
        regex = getattr(pattern, "regex", None)
        if pattern.include is False or not isinstance(regex, re.Pattern):
            return None
        parts.append(_GROUP_NAME.sub("(?:", regex.pattern))
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts))
    except re.error:
        return None


# The named groups of pathspec's expressions, which may not repeat in one expression.
_GROUP_NAME = re.compile(r"\(\?P<\w+>")

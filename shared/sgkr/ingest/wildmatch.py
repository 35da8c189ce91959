"""``.gitignore`` patterns, matched in time linear in the path (no backtracking).

A pattern is read as git reads it: ``#`` comments, ``!`` re-includes,
trailing spaces dropped unless escaped, a trailing ``/`` for folders only, a
pattern without another ``/`` matching a name at any depth and one with a
``/`` matching the path from the ``.gitignore``'s folder. Inside a name, ``*``
matches any run of characters, ``?`` one, ``[a-z]`` / ``[!a-z]`` / ``[^a-z]``
a class (with ``[:alpha:]`` and the other POSIX classes) and ``\\`` escapes;
``**`` as a whole path component matches any number of folders (``**/x``,
``a/**/b``, ``a/**``).

Regular-expression engines backtrack on ``a*a*a*...b``: with 30 stars one
path took minutes. Here a name is matched piece by piece: the text between
two stars is found at its leftmost place (a leftmost match never needs to be
undone, so no place is tried twice), and runs of folders between ``**`` are
found the same way among the path's components. A pattern costs at most
its length times the path's length, in C, and most far less.

Examples
--------
>>> p = GitPattern.parse("a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b")
>>> p.matches("a" * 200, is_dir=False)
False
>>> GitPattern.parse("docs/**/*.md").matches("docs/x/y/index.md", is_dir=False)
True
>>> GitPattern.parse("build/").matches("src/build", is_dir=False)
False
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["GitPattern", "MAX_PATTERN_CHARS"]

#: Longer lines of a ``.gitignore`` are refused: longer than any path they could match.
MAX_PATTERN_CHARS = 4096
# A name matcher: the name in, whether it matches out (a truth value).
Name = Callable[[str], object]
_POSIX = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "blank": " \\t", "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\r\\f\\v", "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


@dataclass(frozen=True)
class GitPattern:
    """One line of a ``.gitignore``, compiled.

    Attributes
    ----------
    text
        The line as written.
    include
        True when a match ignores the path; False for a ``!`` pattern (a match re-includes it).
    folders_only
        The line ended with ``/``: it matches folders only.
    anchored
        The line has a ``/`` before its end: it matches the whole path from the
        ``.gitignore``'s folder, else the last component at any depth.
    parts
        One matcher per path component, ``None`` for ``**``.
    literal
        The path (or name, when not anchored) the pattern stands for when it
        has no wildcard, else None: such patterns are looked up, not tried.
    """

    text: str
    include: bool
    folders_only: bool
    anchored: bool
    parts: tuple[Name | None, ...]
    literal: str | None

    @classmethod
    def parse(cls, line: str) -> GitPattern | None:
        """The pattern of a ``.gitignore`` line; None for a blank line or a comment.

        Raises
        ------
        ValueError
            If the line is longer than :data:`MAX_PATTERN_CHARS` or a ``[`` class is invalid.
        """
        if len(line) > MAX_PATTERN_CHARS:
            raise ValueError(f"a pattern is longer than {MAX_PATTERN_CHARS} characters")
        text = _trailing_spaces_dropped(line)
        if not text or text.startswith("#") or _escapes_last(text):
            return None  # a blank line, a comment, or a lone '\\' at the end (git never matches)
        include = not text.startswith("!")
        if not include:
            text = text[1:]
        folders_only = text.endswith("/")
        body = text[:-1] if folders_only else text
        if not body:
            return None
        components = _split(body)
        anchored = "/" in body  # even inside a class, as git reads it
        if body.startswith("/"):
            components = components[1:]  # '/x' is 'x' from the .gitignore's folder
        parts = _parts(components)
        literal = "/".join(components) if all(_plain(c) for c in components) else None
        return cls(line, include, folders_only, anchored, parts, literal)

    def matches(self, path: str, *, is_dir: bool) -> bool:
        """Whether the pattern matches ``path`` (relative to its ``.gitignore``, no end ``/``)."""
        return self.matches_names(path.split("/"), is_dir=is_dir)

    def matches_names(self, names: Sequence[str], *, is_dir: bool) -> bool:
        """:meth:`matches` of a path given as its components."""
        if self.folders_only and not is_dir:
            return False
        if not self.anchored:
            head = self.parts[0]
            return head is None or bool(head(names[-1]))
        return _components_match(self.parts, names)


def _trailing_spaces_dropped(line: str) -> str:
    """``line`` less its trailing spaces, except one escaped by a backslash."""
    text = line.rstrip(" ")
    if len(text) < len(line) and _escapes_last(text):
        text += " "  # 'name\ ' keeps its space
    return text


def _escapes_last(text: str) -> bool:
    """Whether ``text`` ends with an odd run of backslashes (escaping what follows)."""
    run = len(text) - len(text.rstrip("\\"))
    return run % 2 == 1


def _split(body: str) -> list[str]:
    """The components of a pattern: split at each ``/`` (``\\/`` too, as git reads it), but
    not inside a ``[...]`` class."""
    components: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "[":
            end = _bracket(body, i)[1]
            current.append(body[i : end + 1])
            i = end + 1
            continue
        if c == "\\" and i + 1 < len(body):
            if body[i + 1] == "/":
                components.append("".join(current))
                current = []
            else:
                current.append(body[i : i + 2])
            i += 2
            continue
        if c == "/":
            components.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    components.append("".join(current))
    return components


def _plain(component: str) -> bool:
    return not any(c in component for c in "*?[\\")


def _parts(components: Sequence[str]) -> tuple[Name | None, ...]:
    parts: list[Name | None] = []
    for component in components:
        if len(component) >= 2 and component.strip("*") == "":  # '**', '***': any folders
            if not parts or parts[-1] is not None:  # a/**/**/b is a/**/b
                parts.append(None)
        else:
            parts.append(_name_matcher(component))
    return tuple(parts)


def _components_match(parts: Sequence[Name | None], names: Sequence[str]) -> bool:
    """Whether ``names`` (a path's components) match ``parts``, ``None`` matching any run.

    The runs of matchers between two ``**`` are placed leftmost, one after the
    other; a final ``**`` needs at least one component (``a/**`` is what is
    inside ``a``, not ``a``).
    """
    runs: list[list[Name]] = [[]]
    for part in parts:
        if part is None:
            runs.append([])
        else:
            runs[-1].append(part)
    if len(runs) == 1:
        return len(names) == len(runs[0]) and _run_at(runs[0], names, 0)
    first, middle, last = runs[0], runs[1:-1], runs[-1]
    end = len(names) - len(last)
    if end < len(first) or not _run_at(first, names, 0) or not _run_at(last, names, end):
        return False
    at = len(first)
    for run in middle:
        found = next((i for i in range(at, end - len(run) + 1) if _run_at(run, names, i)), None)
        if found is None:
            return False
        at = found + len(run)
    return end - at >= (1 if not last else 0)


def _run_at(run: Sequence[Name], names: Sequence[str], at: int) -> bool:
    return all(match(names[at + i]) for i, match in enumerate(run))


def _name_matcher(glob: str) -> Name:
    """A matcher of one path component by ``glob`` (no ``/`` in either)."""
    if _escapes_last(glob) or not glob:
        return _never  # git matches no name with a pattern ending in a lone backslash
    pieces = _pieces(glob)
    if len(pieces) == 1:
        if pieces[0][1]:  # no star, no wildcard: a plain comparison
            literal = pieces[0][0]
            return literal.__eq__
        return re.compile(f"(?s:{pieces[0][0]})\\Z").match
    # Every piece between two stars is found at its leftmost place after the one
    # before, inside a lookahead, which the engine never goes back into: the
    # expression cannot backtrack (the construction fnmatch uses since 3.9).
    body = [pieces[0][0]]
    for number, (piece, _) in enumerate(pieces[1:-1]):
        body.append(f"(?=(?P<g{number}>.*?{piece}))(?P=g{number})")
    body.append(f".*{pieces[-1][0]}\\Z")
    return re.compile("(?s:" + "".join(body) + ")").match


def _never(name: str) -> bool:
    return False


def _pieces(glob: str) -> list[tuple[str, bool]]:
    """The regular expressions of the text between stars, each with whether it is plain text.

    For a glob without a star, one piece; its expression is the plain text itself
    when the piece is plain (no ``?``, no class).
    """
    pieces: list[tuple[str, bool]] = []
    atoms: list[str] = []
    plain: list[str] = []
    is_plain = True
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            while i < len(glob) and glob[i] == "*":
                i += 1
            pieces.append(("".join(atoms), False))
            atoms, plain, is_plain = [], [], True
            continue
        if c == "?":
            atoms.append("[^/]")
            is_plain = False
        elif c == "[":
            atom, i = _bracket(glob, i)
            atoms.append(atom)
            is_plain = is_plain and atom == re.escape("[")
            plain.append("[")
            i += 1
            continue
        else:
            if c == "\\" and i + 1 < len(glob):
                i += 1
                c = glob[i]
            atoms.append(re.escape(c))
            plain.append(c)
        i += 1
    if not pieces and is_plain:
        return [("".join(plain), True)]
    pieces.append(("".join(atoms), False))
    return pieces


def _bracket(glob: str, start: int) -> tuple[str, int]:
    """The expression of the class opening at ``start`` and where it closes.

    A ``[`` with no closing ``]`` is the character itself.
    """
    i = start + 1
    negated = i < len(glob) and glob[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    first = True
    while i < len(glob) and (glob[i] != "]" or first):
        first = False
        c = glob[i]
        if c == "[" and glob.startswith("[:", i):
            close = glob.find(":]", i + 2)
            name = glob[i + 2 : close] if close >= 0 else None
            if name is not None and name in _POSIX:
                items.append(_POSIX[name])
                i = close + 2
                continue
            if name is not None and name.isalpha():
                raise ValueError(f"unknown character class [:{name}:]")
        if c == "\\" and i + 1 < len(glob):
            i += 1
            c = glob[i]
        if glob.startswith("-", i + 1) and i + 2 < len(glob) and glob[i + 2] != "]":
            high, i = glob[i + 2], i + 3
            if high == "\\" and i < len(glob):
                high, i = glob[i], i + 1
            items.append(f"{_in_class(c)}-{_in_class(high)}" if c <= high else "")
            continue
        items.append(_in_class(c))
        i += 1
    if i >= len(glob):
        return re.escape("["), start  # never closed: a plain '['
    inside = "".join(items)
    if not inside:
        return ("[^/]" if negated else "(?!)"), i
    return f"[{'^/' if negated else ''}{inside}]", i


def _in_class(c: str) -> str:
    return "\\" + c if c in "\\]^-[" else c

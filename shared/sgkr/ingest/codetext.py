"""The text of a definition: its code cut out and dedented, its docstring and comment.

Docstrings and comments are text (knowledge), never read as code.

Examples
--------
>>> dedent_at("def f():\\n        return 1", 4)
'def f():\\n    return 1'
>>> clean_docstring("'''Fee.\\n\\n    In cents.'''")
'Fee.\\n\\nIn cents.'
"""

from __future__ import annotations

from tree_sitter import Node

from .syntax import Source

__all__ = ["docstring_of", "module_docstring", "comment_above", "clean_docstring",
           "dedent_at", "dedent", "indent_rest", "code_of"]

# First bytes of a string literal: a quote or a prefix letter (a keyword may start so too).
_STRING_STARTS = frozenset(bytes([c]) for c in b"\"'rRuUbBfF")
# What a blank line may hold, and what a margin is made of.
_BLANKS = " \t"


def code_of(source: Source, node: Node) -> str:
    """The code of ``node``, dedented to its first line's margin."""
    return dedent_at(source.text_of(node), node.start_point[1])


def docstring_of(source: Source, body: Node | None) -> str | None:
    """The docstring opening a definition's ``body``, cleaned as :func:`inspect.cleandoc`."""
    if body is None:
        return None
    # Most bodies do not open with a string literal: tell from its first byte.
    if not source.has_error and source.src[body.start_byte : body.start_byte + 1] \
            not in _STRING_STARTS:
        return None
    if not body.named_child_count:
        return None
    first = body.named_child(0)
    if first is not None and first.type == "expression_statement" and is_string_statement(first):
        return clean_docstring(source.text_of(first.named_child(0)))
    return None


def module_docstring(source: Source, statement: Node) -> str | None:
    """The docstring of a module whose first statement is ``statement``, if it is one."""
    if statement.type == "expression_statement" and is_string_statement(statement):
        return clean_docstring(source.text_of(statement.named_child(0))) or ""
    return None


def comment_above(source: Source, row: int, line_start: int) -> str | None:
    """The comment lines right above line ``row`` (0-based), which starts at byte
    ``line_start``; a ``#!`` line ends them."""
    if source.plain_lines():
        # Most definitions have no comment above: the line above tells.
        if not line_start:
            return None
        text = source.text
        above = text.rfind("\n", 0, line_start - 1) + 1
        if not text[above : line_start - 1].lstrip().startswith("#"):
            return None
    lines = source.lines()
    if not 0 < row <= len(lines) or not lines[row - 1].lstrip().startswith("#"):
        return None
    found: list[str] = []
    index = row - 1
    while 0 <= index < len(lines):
        stripped = lines[index].strip()
        if not stripped.startswith("#") or stripped.startswith("#!"):
            break
        found.append(stripped.lstrip("#").strip())
        index -= 1
    return "\n".join(reversed(found)).strip() or None


def is_string_statement(node: Node) -> bool:
    """Whether an expression statement is a string literal alone (a docstring's form)."""
    if node.named_child_count != 1:
        return False
    only = node.named_child(0)
    return only is not None and only.type in ("string", "concatenated_string")


def clean_docstring(literal: str) -> str | None:
    """The text of a string literal used as a docstring, its quotes and margin removed."""
    text = literal
    for prefix_len in range(0, 3):
        if text[prefix_len : prefix_len + 1] in ('"', "'"):
            text = text[prefix_len:]
            break
    for quote in ('"""', "'''", '"', "'"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            text = text[len(quote) : -len(quote)]
            break
    # After indent_rest no margin is common to all lines and no line is only
    # spaces: dedenting again would change nothing.
    cleaned = indent_rest(text).strip()
    return cleaned or None


def indent_rest(text: str) -> str:
    """The first line stripped, the others dedented together (:func:`inspect.cleandoc`'s rule)."""
    lines = text.expandtabs().splitlines()
    if len(lines) <= 1:
        return text.strip()
    # dedent of the other lines, line by line: a docstring has few lines, and three
    # regex passes over them cost more. Without tabs a margin is spaces only.
    rest = lines[1:]
    margin = min((len(line) - len(line.lstrip(" ")) for line in rest if line.strip(" ")),
                 default=0)
    return lines[0].strip() + "\n" + "\n".join(
        [line[margin:] if line.strip(" ") else "" for line in rest])


def dedent_at(text: str, column: int) -> str:
    """The code of a node cut out at ``column`` of its first line, dedented, blank-trimmed.

    The same as ``dedent(" " * column + text).strip("\\n")`` (for one line,
    without the margin), but when every line of the node keeps the margin of its
    first line, as the lines of a definition nearly always do, the margin is
    removed with one ``str.replace`` once no line is found short of it.

    Examples
    --------
    >>> dedent_at("def f():\\n        return 1\\n    \\n", 4)
    'def f():\\n    return 1'
    """
    if not text or text[0] in " \t\n":
        return dedent(" " * column + text if "\n" in text else text).strip("\n")
    if "\n" not in text:  # one line, starting with code: nothing to dedent or trim
        return text
    if column:
        margin = " " * column
        lines = text.split("\n")
        if any(not line.startswith(margin) and line.strip(_BLANKS) for line in lines[1:]):
            return dedent(margin + text).strip("\n")
        text = text.replace("\n" + margin, "\n")
    if " \n" in text or "\t\n" in text or text[-1] in _BLANKS:
        text = "\n".join([line if line.strip(_BLANKS) else "" for line in text.split("\n")])
    return text.strip("\n")


def dedent(text: str) -> str:
    """:func:`textwrap.dedent`, in linear time: one pass over the lines.

    textwrap compiles a regular expression of the common margin on every call,
    which costs seconds per call on the margins of deeply nested code. Lines
    of spaces and tabs only are emptied and do not count towards the margin.

    Examples
    --------
    >>> dedent("    a = 1\\n  \\n        b = 2\\n")
    'a = 1\\n\\n    b = 2\\n'
    """
    lines = text.split("\n")
    margins: list[str] = []
    for index, line in enumerate(lines):
        rest = line.lstrip(_BLANKS)
        if rest:
            margins.append(line[: len(line) - len(rest)])
        elif line:
            lines[index] = ""
    cut = _common_length(margins) if margins else 0
    if cut:
        lines = [line[cut:] for line in lines]
    return "\n".join(lines)


def _common_length(strings: list[str]) -> int:
    """The length of the longest common prefix of ``strings`` (not empty).

    :func:`os.path.commonprefix` without its ``os.fspath`` call per string,
    which costs more than the comparison on long docstrings.
    """
    first, last = min(strings), max(strings)
    for index, char in enumerate(first):
        if char != last[index]:
            return index
    return len(first)

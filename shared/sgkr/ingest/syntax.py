"""Python's syntax trees: the parser, the query of ``python.scm``, and a file's text by node.

This module and the ones that read captures (``sgkr.ingest.calls``, ``values``,
``signature``, ``imports``, ``scopes``, ``extract``) are the only code of the core
that knows tree-sitter.

Examples
--------
>>> source = Source("m.py", "m", "x = pkg.mod.f()\\n")
>>> root = source.parse()
>>> call = root.named_children[0].named_children[0].named_children[1]
>>> source.dotted(call.child_by_field_name("function"))
'pkg.mod.f'
>>> parse_only("def f(:\\n")
True
"""

from __future__ import annotations

import threading
from importlib import resources

import tree_sitter_python
from tree_sitter import Language, Node, Parser, Query, QueryCursor

from ..records import Problem

__all__ = ["LANGUAGE", "QUERY", "MAX_DEPTH", "Source", "parser", "parse_only", "captures_of",
           "deeper_than", "syntax_problems", "line_of"]

LANGUAGE = Language(tree_sitter_python.language())
#: The one query run over each file (``python.scm``, shipped with this package).
QUERY = Query(LANGUAGE, resources.files("sgkr.ingest").joinpath("python.scm")
              .read_text(encoding="utf-8"))
#: How deep in a syntax tree facts are read. Python itself compiles no code nested so
#: deeply; the query engine's cost and results go wrong far beyond it, so what lies
#: deeper is left out, and the file's problems say so.
MAX_DEPTH = 10_000
_LOCAL = threading.local()
_MAX_SYNTAX_REPORTS = 3
# A node longer than this is told a dotted name by its structure, not its text: reading the
# text of each link of a long chain (``a.b().b()...``) would cost the square of its length.
_SHORT = 256
_CONSTANTS = ("None.", "True.", "False.")


def parser() -> Parser:
    """This thread's parser (a parser is not shared between threads)."""
    found: Parser | None = getattr(_LOCAL, "parser", None)
    if found is None:
        found = _LOCAL.parser = Parser(LANGUAGE)
    return found


def parse_only(text: str) -> bool:
    """Parse ``text`` with tree-sitter and nothing else; return whether it had errors.

    Used by benchmarks as the reference cost of reading a file.
    """
    return bool(parser().parse(text.encode("utf-8", "surrogatepass")).root_node.has_error)


def line_of(node: Node) -> int:
    """The 1-based line a node starts on."""
    return node.start_point[0] + 1


class Source:
    """The text of one file as its syntax tree's nodes see it (byte offsets).

    Parameters
    ----------
    path
        The file's path relative to the build root.
    module
        Its dotted module name.
    text
        The decoded source text.
    """

    __slots__ = ("path", "module", "text", "src", "ascii", "is_package", "has_error",
                 "_lines", "_plain_lines")

    def __init__(self, path: str, module: str, text: str) -> None:
        self.path = path
        self.module = module
        self.text = text
        self.src = text.encode("utf-8", "surrogatepass")
        # Byte offsets are character offsets in ASCII text: slice the str, decode nothing.
        self.ascii = len(self.src) == len(text)
        self.is_package = path.rsplit("/", 1)[-1] == "__init__.py"
        self.has_error = True  # until a parse says otherwise: the careful paths
        self._lines: list[str] | None = None
        self._plain_lines: bool | None = None

    def parse(self) -> Node:
        """The root of the file's syntax tree."""
        root = parser().parse(self.src).root_node
        self.has_error = root.has_error
        return root

    def text_of(self, node: Node | None) -> str:
        """The text of ``node`` ("" for None)."""
        if node is None:
            return ""
        if self.ascii:
            return self.text[node.start_byte : node.end_byte]
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def between(self, start: int, end: int) -> str:
        """The text between two byte offsets."""
        if self.ascii:
            return self.text[start:end]
        return self.src[start:end].decode("utf-8", "replace")

    def dotted(self, node: Node) -> str | None:
        """The text of a name or a dotted name (``a.b.c``); None for other expressions.

        Linear in the node's length however deeply dotted names and calls nest.
        """
        kind = node.type
        if kind != "attribute":
            return self.text_of(node) if kind == "identifier" else None
        start, end = node.start_byte, node.end_byte
        if end - start > _SHORT and not _names_only(node):
            return None
        text = self.text[start:end] if self.ascii \
            else self.src[start:end].decode("utf-8", "replace")
        # An attribute's text is its object's, a dot and a name: names and dots alone
        # when its object is a name or a dotted name.
        if not text.replace(".", "").isidentifier():
            parts = [p.strip() for p in text.split(".")]  # ``a . b``, a line break between
            if not all(map(str.isidentifier, parts)):
                return None
            text = ".".join(parts)
        # ``None.x`` is spelt as a name but is not one.
        return None if text.startswith(_CONSTANTS) else text

    def lines(self) -> list[str]:
        """The file's lines (as :meth:`str.splitlines` cuts them)."""
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

    def plain_lines(self) -> bool:
        """Whether the text is ASCII with ``\\n`` as its only line break."""
        if self._plain_lines is None:
            text = self.text
            self._plain_lines = self.ascii and not any(c in text for c in "\r\v\f\x1c\x1d\x1e")
        return self._plain_lines


def _names_only(node: Node) -> bool:
    """Whether an ``attribute`` node is names joined by dots, told by its structure."""
    while node.type == "attribute":
        found = node.child_by_field_name("object")
        if found is None:
            return False
        node = found
    return node.type == "identifier"


def captures_of(root: Node) -> dict[str, list[Node]]:
    """The query's captures in the tree under ``root``, down to :data:`MAX_DEPTH`."""
    cursor = QueryCursor(QUERY)
    cursor.set_max_start_depth(MAX_DEPTH)
    return cursor.captures(root)


def deeper_than(root: Node, limit: int = MAX_DEPTH) -> bool:
    """Whether a tree has a node ``limit`` levels below ``root``.

    Only subtrees holding enough nodes to be that deep are walked: a few nodes of
    ordinary code, the path down a pathological one.
    """
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth >= limit:
            return True
        need = limit - depth
        stack.extend((child, depth + 1) for child in node.children
                     if child.descendant_count >= need)
    return False


def syntax_problems(root: Node, path: str) -> list[Problem]:
    """The first syntax error of a tree, as a problem naming its line (none without one)."""
    errors: list[Node] = []
    stack = [root]
    while stack and len(errors) < _MAX_SYNTAX_REPORTS:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            errors.append(node)
            continue
        stack.extend(reversed([c for c in node.children if c.has_error or c.is_missing]))
    if not errors:
        return []
    first = errors[0]
    what = f"missing {first.type}" if first.is_missing else "invalid syntax"
    return [Problem(path, f"syntax error: {what}; read as far as the parser could",
                    kind="syntax", line=line_of(first))]

"""The words of a piece of code as its syntax tree spells them: names, strings, tokens.

Read for the few definitions that need them (the functions of an example's
solution, copies of a function compared before they merge), so a definition
does not carry them.

Examples
--------
>>> names_in("def fee(rows):\\n    # card_scheme in a comment\\n    return rows['eur_amount']\\n")
('fee', 'rows', 'eur_amount')
>>> sorted(tokens_of("x = f(1)"))
['(', ')', '1', '=', 'f', 'x']
"""

from __future__ import annotations

import functools

from tree_sitter import Query, QueryCursor

from .syntax import LANGUAGE, parser

__all__ = ["names_in", "tokens_of"]

_NAMES = Query(LANGUAGE, """
[(identifier) (string_content)] @name
(expression_statement (string (string_content) @text))
""")
# The longest string read as a word: longer ones are text.
_LONGEST_STRING = 80


@functools.lru_cache(maxsize=4096)
def names_in(code: str) -> tuple[str, ...]:
    """The identifiers and the short one-line strings of ``code``, in order, once each;
    comments and docstrings are text, not code, and give none."""
    src = code.encode("utf-8", "surrogatepass")
    captures = QueryCursor(_NAMES).captures(parser().parse(src).root_node)
    text = {node.start_byte for node in captures.get("text", ())}
    found: dict[str, None] = {}
    for node in sorted(captures.get("name", ()), key=lambda n: n.start_byte):
        start, end = node.start_byte, node.end_byte
        if node.type == "string_content" and (
                start in text or end - start > _LONGEST_STRING or b"\n" in src[start:end]):
            continue
        found.setdefault(src[start:end].decode("utf-8", "replace"))
    return tuple(found)


def tokens_of(code: str) -> frozenset[str]:
    """The set of the leaf tokens of ``code`` (names, numbers, strings, operators)."""
    src = code.encode("utf-8", "surrogatepass")
    cursor = parser().parse(src).walk()
    found: set[str] = set()
    while True:
        node = cursor.node
        if node is not None and node.child_count == 0 and node.end_byte > node.start_byte:
            found.add(src[node.start_byte:node.end_byte].decode("utf-8", "replace"))
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while cursor.goto_parent():
            if cursor.goto_next_sibling():
                break
        else:
            return frozenset(found)

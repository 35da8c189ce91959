"""A function's header, read off its syntax tree: its parameters and return annotation.

For a map of a code base (:mod:`sgkr.retrieval.overview`): what a reader needs
to call a function, without its body. Decorators are left out; a header written
over several lines comes back on one.

Examples
--------
>>> header_of("@cache\\nasync def fee(rule: Rule,\\n        amount=0) -> float:\\n    return 1\\n")
Header(asynchronous=True, parameters='(rule: Rule, amount=0)', returns='float')
>>> header_of("x = 1\\n") is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

from .syntax import parser

__all__ = ["Header", "header_of"]


@dataclass(frozen=True)
class Header:
    """The header of a ``def``: whether ``async``, its parameter list as written (with its
    parentheses, on one line) and its return annotation (empty: none)."""

    asynchronous: bool
    parameters: str
    returns: str


def header_of(code: str) -> Header | None:
    """The header of the function ``code`` opens with (None: it opens with no ``def``)."""
    src = code.encode("utf-8", "surrogatepass")
    root = parser().parse(src).root_node
    node = root.named_children[0] if root.named_children else None
    if node is not None and node.type == "decorated_definition":
        node = node.child_by_field_name("definition")
    if node is None or node.type != "function_definition":
        return None

    def text(field: str) -> str:
        part = node.child_by_field_name(field)
        if part is None:
            return ""
        return " ".join(src[part.start_byte:part.end_byte].decode("utf-8", "replace").split())

    return Header(asynchronous=node.children[0].type == "async",
                  parameters=text("parameters"), returns=text("return_type"))

"""A definition's parameters and their kinds, read off its signature's syntax tree.

Examples
--------
>>> from .syntax import Source
>>> source = Source("m.py", "m", "def f(a, /, b=1, *args, c, **kw):\\n    pass\\n")
>>> node = source.parse().named_children[0]
>>> [(p.name, p.kind.name, p.default) for p in parameters_of(source, node)]
[('a', 'POSITIONAL_ONLY', False), ('b', 'POSITIONAL', True), ('args', 'VAR_POSITIONAL', \
False), ('c', 'KEYWORD_ONLY', False), ('kw', 'VAR_KEYWORD', False)]
"""

from __future__ import annotations

from tree_sitter import Node

from ..records import Parameter, ParameterKind
from .syntax import Source

__all__ = ["parameters_of"]

_SPLATS = {"list_splat_pattern": ParameterKind.VAR_POSITIONAL,
           "dictionary_splat_pattern": ParameterKind.VAR_KEYWORD}
_DEFAULTS = ("default_parameter", "typed_default_parameter")


def parameters_of(source: Source, definition: Node) -> tuple[Parameter, ...]:
    """The parameters of a ``function_definition`` node, in order, with their kinds."""
    node = definition.child_by_field_name("parameters")
    if node is None:
        return ()
    found: list[Parameter] = []
    kind = ParameterKind.POSITIONAL
    for child in node.named_children:
        what = child.type
        if what == "positional_separator":  # ``/``: those before are positional only
            found = [Parameter(p.name, ParameterKind.POSITIONAL_ONLY, p.default) for p in found]
            continue
        if what == "keyword_separator":  # ``*``: those after are keyword only
            kind = ParameterKind.KEYWORD_ONLY
            continue
        if what == "typed_parameter" and child.named_child_count:
            inner = child.named_children[0]  # ``*args: int``, ``**kw: str``
            if inner.type in _SPLATS:
                what, child = inner.type, inner
        parameter = _parameter(source, child, what, kind)
        if parameter is not None:
            found.append(parameter)
            if parameter.kind is ParameterKind.VAR_POSITIONAL:
                kind = ParameterKind.KEYWORD_ONLY
    return tuple(found)


def _parameter(source: Source, node: Node, what: str, kind: ParameterKind) -> Parameter | None:
    """One parameter node of type ``what``, in a part of the signature of ``kind``."""
    kind = _SPLATS.get(what, kind)
    named = node if what == "identifier" else node.child_by_field_name("name")
    if named is None:
        named = next((c for c in node.named_children if c.type == "identifier"), None)
    if named is None or named.type != "identifier":
        return None
    return Parameter(source.text_of(named), kind, what in _DEFAULTS)

"""A definition's parameters and their kinds, read off its signature's syntax tree.

Examples
--------
>>> from .syntax import Source
>>> source = Source("m.py", "m", "def f(a, /, b=1, *args, c, **kw):\\n    pass\\n")
>>> node = source.parse().named_children[0]
>>> [(p.name, p.kind.name, p.default) for p in parameters_of(source, node)]
[('a', 'POSITIONAL_ONLY', False), ('b', 'POSITIONAL', True), ('args', 'VAR_POSITIONAL', \
False), ('c', 'KEYWORD_ONLY', False), ('kw', 'VAR_KEYWORD', False)]

An annotation tells the classes a parameter's value is of:

>>> source = Source("m.py", "m", "def f(a: Foo, b: m.Bar | None, c: 'Foo', d: list[Foo]):"
...                              "\\n    pass\\n")
>>> [p.types for p in parameters_of(source, source.parse().named_children[0])]
[('Foo',), ('m.Bar',), ('Foo',), ()]
"""

from __future__ import annotations

from tree_sitter import Node

from ..records import Parameter, ParameterKind
from .syntax import Source

__all__ = ["parameters_of"]

_SPLATS = {"list_splat_pattern": ParameterKind.VAR_POSITIONAL,
           "dictionary_splat_pattern": ParameterKind.VAR_KEYWORD}
_DEFAULTS = ("default_parameter", "typed_default_parameter")
_TYPED = ("typed_parameter", "typed_default_parameter")
# Annotations whose arguments are the classes a value may be of.
_UNIONS = frozenset({"Optional", "Union"})
# Annotations that tell no class.
_ANY = frozenset({"Any", "object"})


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
    annotation = node.child_by_field_name("type") if what in _TYPED else None
    types = tuple(_classes(source, annotation) or ()) if annotation is not None else ()
    return Parameter(source.text_of(named), kind, what in _DEFAULTS, types)


def _classes(source: Source, node: Node) -> list[str] | None:
    """The classes an annotation names (a union's, an ``Optional``'s, a string's); None
    when it tells none (a generic such as ``list[Foo]``, a callable)."""
    what = node.type
    if what == "type":
        return _classes(source, node.named_children[0]) if node.named_child_count else None
    if what in ("identifier", "attribute"):
        dotted = source.dotted(node)
        return None if dotted is None or dotted.rpartition(".")[2] in _ANY else [dotted]
    if what == "none":
        return []
    if what == "binary_operator":  # ``Foo | None``
        sides = [_classes(source, side) for side in node.named_children]
        return None if any(side is None for side in sides) else [c for side in sides
                                                                   for c in side or ()]
    if what == "string":  # ``"Foo"``: a name written ahead of its definition
        text = "".join(source.text_of(c) for c in node.named_children
                       if c.type == "string_content")
        return [text] if text and all(p.isidentifier() for p in text.split(".")) else None
    if what in ("generic_type", "subscript") and node.named_child_count > 1:
        head, *rest = node.named_children
        if source.text_of(head).rpartition(".")[2] not in _UNIONS:
            return None
        items = [t for r in rest for t in (r.named_children if r.type == "type_parameter"
                                           else [r])]
        found = [_classes(source, item) for item in items]
        return None if any(f is None for f in found) else [c for f in found for c in f or ()]
    return None

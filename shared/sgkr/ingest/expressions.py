"""One expression read as a fact: a called name, what a value gives, a string literal.

Examples
--------
>>> from .syntax import Source
>>> source = Source("m.py", "m", "x = A().run\\n")
>>> value = source.parse().named_children[0].named_children[0].named_children[1]
>>> attribute_call(source, value)
CallSite(kind='attribute', name='run', receiver=Ref(name='A', called=True, index=()), \
line=1, arity=None, index=())
"""

from __future__ import annotations

from tree_sitter import Node

from ..records import Arity, BindingKind, CallSite, Index, Ref, Selector, Slice
from .syntax import Source, line_of

__all__ = ["NAMES", "CONTAINERS", "SEQUENCES", "ITEM_OF", "attribute_call", "named_call",
           "given", "passed", "subscripted", "integer_value", "string_value",
           "TAKES_NO_FUNCTION", "name_like", "key_like"]

#: Node types of a name or a dotted name.
NAMES = ("identifier", "attribute")
#: Literals holding items.
CONTAINERS = frozenset({"list", "tuple", "set", "dictionary", "expression_list"})
#: Literals holding items in order.
SEQUENCES = frozenset({"list", "tuple", "expression_list"})
#: Calls whose result is an item of their first argument.
ITEM_OF = frozenset({"next", "iter", "reversed", "list", "tuple", "set", "frozenset",
                     "sorted", "enumerate"})
#: Builtins that never call what they are given: what is passed to them tells nothing.
TAKES_NO_FUNCTION = frozenset({
    "isinstance", "issubclass", "len", "print", "str", "int", "float", "bool", "repr",
    "getattr", "hasattr", "setattr", "delattr", "type", "id", "hash", "super", "format",
    "range", "open", "vars", "callable", "list", "tuple", "set", "frozenset", "dict",
    "next", "iter", "reversed", "enumerate", "zip", "bytes", "ord", "chr", "abs"})
# The longest string literal read as a value (a key, a column name): longer ones are text.
_LONGEST_STRING = 82


def attribute_call(source: Source, function: Node, arity: Arity | None = None) -> CallSite:
    """The call site of a called attribute, ``function`` (``x.f``, ``A().f``, ``super().f``),
    passing ``arity``."""
    dotted = source.dotted(function)
    if dotted is not None:
        receiver, _, name = dotted.rpartition(".")
        return CallSite("attribute", name, Ref(receiver), line_of(function), arity)
    obj = function.child_by_field_name("object")
    attr = function.child_by_field_name("attribute")
    line = line_of(attr) if attr is not None else line_of(function)
    name = source.text_of(attr)
    if obj is not None and obj.type == "call":
        func = obj.child_by_field_name("function")
        if func is not None and func.type == "identifier" and source.text_of(func) == "super":
            return CallSite("super", name, None, line, arity)
        made = source.dotted(func) if func is not None else None  # ``A().m()``
        return CallSite("attribute", name, None if made is None else Ref(made, called=True),
                        line, arity)
    held = source.dotted(obj) if obj is not None else None  # names across lines
    return CallSite("attribute", name, None if held is None else Ref(held), line, arity)


def named_call(source: Source, node: Node, arity: Arity | None = None) -> CallSite | None:
    """A name or dotted name as a call site passing ``arity`` (a decorator, given the
    function under it), or used as a value (None)."""
    if node.type == "identifier":
        return CallSite("plain", source.text_of(node), None, line_of(node), arity)
    site = attribute_call(source, node, arity)
    return site if site.receiver is not None else None


def given(source: Source, value: Node) -> list[tuple[Ref, BindingKind]]:
    """What the expression ``value`` gives: a name, what a named call returns (an
    assignment of it), what a container holds."""
    kind = value.type
    if kind == "call":
        function = value.child_by_field_name("function")
        callee = source.dotted(function) if function is not None else None
        if callee is None:
            return []
        if callee in ITEM_OF:  # ``next(it)``, ``list(xs)``: items of it
            args = value.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None \
                and args.named_child_count else None
            item = source.dotted(first) if first is not None else None
            return [] if item is None else [(Ref(item), BindingKind.HOLDS)]
        return [(Ref(callee, called=True), BindingKind.ASSIGNED)]
    if kind in NAMES:
        dotted = source.dotted(value)
        return [] if dotted is None else [(Ref(dotted), BindingKind.HOLDS)]
    if kind == "subscript":  # an item of a container holds what the container holds
        ref = subscripted(source, value)
        return [] if ref is None else [(ref, BindingKind.HOLDS)]
    found: list[tuple[Ref, BindingKind]] = []
    if kind not in CONTAINERS:
        return found
    for child in value.named_children:  # a container: the names it holds
        held = child.child_by_field_name("value") if child.type == "pair" else child
        dotted = source.dotted(held) if held is not None else None
        if dotted is not None:
            found.append((Ref(dotted), BindingKind.HOLDS))
    return found


def passed(source: Source, value: Node) -> list[Ref]:
    """What an argument passes: a name, the items of a container written out, or what a
    named function returns (``A()``)."""
    kind = value.type
    if kind in NAMES:
        dotted = source.dotted(value)
        return [] if dotted is None else [Ref(dotted)]
    if kind == "call":
        function = value.child_by_field_name("function")
        dotted = source.dotted(function) if function is not None else None
        return [] if dotted is None or dotted in TAKES_NO_FUNCTION else [
            Ref(dotted, called=True)]
    if kind in CONTAINERS:
        return [ref for ref, _ in given(source, value)]
    return []


def subscripted(source: Source, node: Node) -> Ref | None:
    """A subscript of a name (``xs[0]``, ``xs[1:3][0]``, ``d[key]``) as the name with the
    subscripts syntax tells; a key it does not tell leaves them all out (``xs[i + 1]`` is
    ``xs``). None when no name is subscripted, or an item of an item is (``xs[0][1]``).

    Examples
    --------
    >>> source = Source("m.py", "m", "xs[1:3][-1]\\n")
    >>> str(subscripted(source, source.parse().named_children[0].named_children[0]))
    'xs[1:3][-1]'
    """
    selectors: list[Selector | None] = []
    while node.type == "subscript":
        keys = node.children_by_field_name("subscript")
        selectors.append(_selector(source, keys[0]) if len(keys) == 1 else None)
        value = node.child_by_field_name("value")
        if value is None:
            return None
        node = value
    dotted = source.dotted(node)
    # Slices, then one item or slice: what was read before, when an item of an item
    # (``xs[0][1]``) or a subscript of an unknown slice was not.
    if dotted is None or not all(isinstance(s, Slice) for s in selectors[1:]):
        return None
    selectors.reverse()
    known = [s for s in selectors if s is not None]
    return Ref(dotted, index=tuple(known) if len(known) == len(selectors) else ())


def _selector(source: Source, key: Node) -> Selector | None:
    """What one subscript key picks, when syntax tells: an integer literal or a name
    (an item), or a slice whose bounds are."""
    if key.type != "slice":
        bound = _bound(source, key)
        return None if bound is None else Index(bound)
    bounds: list[int | str | None] = [None, None, None]
    part = 0
    for child in key.children:
        if child.type == ":":
            part += 1
        elif child.type != "comment" and part < 3:
            bound = _bound(source, child)
            if bound is None:
                return None
            bounds[part] = bound
    return Slice(*bounds)


def _bound(source: Source, node: Node) -> int | str | None:
    """An integer literal's value (``2``, ``-1``), or a dotted name (``K``, ``ext.K``)."""
    if node.type in NAMES:
        return source.dotted(node)
    return integer_value(source, node)


def integer_value(source: Source, node: Node) -> int | None:
    """The value of an integer literal, negated or not (``2``, ``-1``, ``0x10``)."""
    sign = 1
    if node.type == "unary_operator":
        operator = node.child_by_field_name("operator")
        argument = node.child_by_field_name("argument")
        if operator is None or argument is None or source.text_of(operator) not in "-+":
            return None
        sign = -1 if source.text_of(operator) == "-" else 1
        node = argument
    if node.type != "integer":
        return None
    try:
        return sign * int(source.text_of(node).replace("_", ""), 0)
    except ValueError:  # ``0777``, ``1j``: no integer Python 3 reads
        return None


def string_value(source: Source, node: Node) -> str | None:
    """The value of a short plain string literal written on one line (``"amount"``); None
    for another expression, a prefixed string (``f"..."``, ``b"..."``) or one with escapes."""
    if node.type != "string" or node.end_byte - node.start_byte > _LONGEST_STRING:
        return None
    text = source.text_of(node)
    quote = text[:1]
    if quote not in ("'", '"') or len(text) < 2 or text[-1] != quote or text[:3] == quote * 3:
        return None
    value = text[1:-1]
    return None if quote in value or "\\" in value or "\n" in value else value


def name_like(text: str) -> bool:
    """Whether a string's value reads like a name (a column): ``amount``, ``eur_amount``."""
    return 2 <= len(text) <= 41 and text.isascii() and text[0].isalpha() \
        and text.replace("_", "").isalnum()


def key_like(text: str) -> bool:
    """Whether a string's value reads like a key: a name, or words (``card scheme``,
    ``Content-Type``)."""
    return 1 <= len(text) <= 41 and text.isascii() and text[0].isalpha() \
        and text.replace("_", "").replace("-", "").replace(" ", "").isalnum()

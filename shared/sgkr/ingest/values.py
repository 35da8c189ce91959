"""What names are given: assignments, loops, ``as`` names, defaults, returns; names used
as values; string keys and attributes read.

Examples
--------
>>> from .syntax import Source, captures_of
>>> source = Source("m.py", "m", "x = Parser(path)\\nrow['fee'] = x\\n")
>>> items = value_facts(source, captures_of(source.parse()))
>>> sorted(what.name for _, _, what, _ in items)
['BINDING', 'BINDING', 'CHANGE', 'KEY_READ', 'KEY_WRITTEN', 'USE']
>>> sorted(str(fact.value) for _, _, what, fact in items if what is Fact.BINDING)
['Parser()', 'x']
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tree_sitter import Node

from ..records import Binding, BindingKind, NameChange, Position, Ref, ValueUse
from .expressions import (
    NAMES,
    SEQUENCES,
    given,
    integer_value,
    key_like,
    name_like,
    named_call,
    string_value,
)
from .scopes import Fact, Item
from .syntax import Source

__all__ = ["value_facts"]

_BINDS = ("bind", "bind.for", "bind.as", "bind.default")
# What an assignment's right side is when the query reads it as a binding (python.scm).
_BOUND = frozenset({"identifier", "attribute", "call", "list", "tuple", "set", "dictionary",
                    "assignment", "subscript"})
# An assignment's targets that may write items: ``xs[0] = f``, ``a, xs[1] = ...``.
_SUBSCRIPTS = frozenset({"subscript", "pattern_list", "tuple_pattern"})
# Items standing for more than one item, or for none: the positions after them are not known.
_SPLATS = frozenset({"list_splat", "parenthesized_list_splat", "dictionary_splat"})


def value_facts(source: Source, captures: dict[str, list[Node]]) -> list[Item]:
    """The bindings, returns, value uses, keys and attributes read of one file's captures."""
    items: list[Item] = []
    add = items.append
    _returns(source, captures, items)
    for kind in _BINDS:
        for node in captures.get(kind, ()):
            start, end = node.start_byte, node.end_byte
            for binding in _bindings(source, node, kind):
                add((start, end, Fact.BINDING, binding))
            left = node.child_by_field_name("left") if kind == "bind" else None
            if left is not None and left.type in _SUBSCRIPTS:
                targets = [left] if left.type == "subscript" else left.named_children
                for key in _keys_written(source, targets):
                    add((start, end, Fact.KEY_WRITTEN, key))
                for name in _subscripted_targets(source, targets):
                    add((start, end, Fact.CHANGE, NameChange(name)))
    for node in captures.get("key", ()):
        index = node.child_by_field_name("subscript")
        text = string_value(source, index) if index is not None else None
        if text is not None:
            add((node.start_byte, node.end_byte, Fact.KEY_READ, text))
    for node in captures.get("use", ()):
        _add_use(source, node, items)
    _items(source, captures.get("use.items", ()), items)
    _reads(source, captures, items)
    _changes(source, captures, items)
    return items


def _changes(source: Source, captures: dict[str, list[Node]], items: list[Item]) -> None:
    """The names given an integer literal or changed in ways no binding records."""
    for node in captures.get("change", ()):
        name = node.child_by_field_name("left") or node.child_by_field_name("name")
        value = node.child_by_field_name("right") or node.child_by_field_name("value")
        if name is None or value is None or value.type in _BOUND:
            continue  # ``x: int`` gives no value; a binding tells what the others give
        items.append((node.start_byte, node.end_byte, Fact.CHANGE,
                      NameChange(source.text_of(name), integer_value(source, value))))
    names = [*captures.get("change.name", ())]
    for node in captures.get("change.names", ()):
        for child in node.named_children:
            names.extend(child.named_children if child.type == "expression_list" else [child])
    for node in names:  # ``del xs[0]``, ``xs[0] += 1``: xs changes
        dotted = source.dotted(_base(node))
        if dotted is not None:
            items.append((node.start_byte, node.end_byte, Fact.CHANGE, NameChange(dotted)))


def _returns(source: Source, captures: dict[str, list[Node]], items: list[Item]) -> None:
    """What ``return`` and ``yield`` give, and the name a ``return`` gives alone."""
    for kind in ("bind.return", "bind.yield"):
        for node in captures.get(kind, ()):
            for ref, _ in given(source, node):
                items.append((node.start_byte, node.end_byte, Fact.RETURN, ref))
    for node in captures.get("bind.return", ()):
        if node.type == "identifier":  # ``return fee``: the result is called fee
            items.append((node.start_byte, node.end_byte, Fact.RESULT, source.text_of(node)))


def _items(source: Source, containers: Iterable[Node], items: list[Item]) -> None:
    """The names held by list, tuple and set literals (used as values), and their strings
    that read like names."""
    for container in containers:
        for node in container.named_children:
            if node.type in NAMES:
                _add_use(source, node, items)
            elif node.type == "string":
                text = string_value(source, node)
                if text is not None and name_like(text):
                    items.append((node.start_byte, node.end_byte, Fact.STRING, text))


def _reads(source: Source, captures: dict[str, list[Node]], items: list[Item]) -> None:
    """The attributes read, not called, of names: ``df.amount``."""
    called = {node.end_byte for node in captures.get("call.attr", ())}
    for node in captures.get("read", ()):
        if node.end_byte in called:
            continue
        read = source.text_of(node).split(".")
        if len(read) == 2:
            items.append((node.start_byte, node.end_byte, Fact.READ,
                          (read[0].strip(), read[1].strip())))


def _add_use(source: Source, node: Node, items: list[Item]) -> None:
    site = named_call(source, node)
    if site is not None:
        items.append((node.start_byte, node.end_byte, Fact.USE, ValueUse(site)))


def _keys_written(source: Source, targets: list[Node]) -> Iterator[str]:
    """The string keys an assignment to ``targets`` writes: ``row["fee"] = ...``,
    ``a["x"], b["y"] = ...``."""
    for target in targets:
        if target.type == "subscript":
            key = target.child_by_field_name("subscript")
            text = string_value(source, key) if key is not None else None
            if text is not None and key_like(text):
                yield text


def _subscripted_targets(source: Source, targets: list[Node]) -> Iterator[str]:
    """The names whose items an assignment to ``targets`` sets: ``xs[0] = f``,
    ``xs[1:], y = ...``."""
    for target in targets:
        if target.type == "subscript":
            dotted = source.dotted(_base(target))
            if dotted is not None:
                yield dotted


def _base(node: Node) -> Node:
    """The expression subscripted by ``node`` (``xs`` of ``xs[0][1]``), or ``node``."""
    while node.type == "subscript":
        value = node.child_by_field_name("value")
        if value is None:
            break
        node = value
    return node


def _bindings(source: Source, node: Node, kind: str) -> list[Binding]:
    """What an assignment, a ``for`` loop, an ``as`` name or a parameter's default
    (``kind``, the capture's) gives which name."""
    if kind == "bind.as":
        return _as_bindings(source, node)
    if kind == "bind.default":
        name = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        return [] if name is None or value is None else _bound(source, source.text_of(name),
                                                                value)
    left = node.child_by_field_name("left")
    value = node.child_by_field_name("right")
    while value is not None and value.type == "assignment":  # ``a = b = f``
        value = value.child_by_field_name("right")
    if left is None or value is None:
        return []
    if kind == "bind.for":  # each item of a container, or what a generator yields
        return [b for target in _targets(source, left) for b in _holding(source, target, value)]
    if left.type == "subscript":  # ``d[k] = f``: d holds f
        held = left.child_by_field_name("value")
        target = source.dotted(held) if held is not None else None
        return [] if target is None else _bound(source, target, value)
    if left.type in ("pattern_list", "tuple_pattern"):
        return _unpacked(source, left, value)
    target = source.dotted(left)
    return [] if target is None else _assigned(source, target, value)


def _assigned(source: Source, target: str, value: Node) -> list[Binding]:
    """The bindings of ``target = value``: a list or tuple written out binds each name it
    holds where it stands (``xs = [f, g]``: f at 0, g at 1, of 2)."""
    if value.type not in SEQUENCES:
        return _bound(source, target, value)
    items = [c for c in value.named_children if c.type != "comment"]
    if any(c.type in _SPLATS for c in items):
        return _bound(source, target, value)
    found: list[Binding] = []
    for index, item in enumerate(items):
        dotted = source.dotted(item)
        if dotted is not None:
            found.append(Binding(target, Ref(dotted), BindingKind.HOLDS,
                                 Position(index, len(items))))
    return found


def _as_bindings(source: Source, node: Node) -> list[Binding]:
    """``with A() as a``: a holds what A() gives; ``except (E, F) as e``: e is an E or an F."""
    alias = node.child_by_field_name("alias")
    value = node.named_children[0] if node.named_child_count else None
    target = source.text_of(alias.named_children[0]) if alias is not None \
        and alias.named_child_count else None
    if target is None or value is None:
        return []
    if value.type == "call":
        return _holding(source, target, value)
    classes = value.named_children if value.type == "tuple" else [value]
    return [Binding(target, Ref(dotted, called=True), BindingKind.ASSIGNED)
            for dotted in map(source.dotted, classes) if dotted is not None]


def _bound(source: Source, target: str, value: Node) -> list[Binding]:
    """The bindings of ``target`` to the expression ``value`` by an assignment."""
    return [Binding(target, ref, kind) for ref, kind in given(source, value)]


def _holding(source: Source, target: str, value: Node) -> list[Binding]:
    """``target`` holds what ``value`` gives, not assigned: ``with A() as a``."""
    return [Binding(target, ref) for ref, _ in given(source, value)]


def _targets(source: Source, left: Node) -> list[str]:
    """The names a ``for`` loop's or an assignment's target binds (``x`` or ``a, *b``)."""
    if left.type in NAMES:
        dotted = source.dotted(left)
        return [] if dotted is None else [dotted]
    found: list[str] = []
    for child in left.named_children:
        if child.type == "list_splat_pattern" and child.named_child_count:
            child = child.named_children[0]
        dotted = source.dotted(child)
        if dotted is not None:
            found.append(dotted)
    return found


def _unpacked(source: Source, left: Node, value: Node) -> list[Binding]:
    """``a, *b = f, g, h``: item by item when the right side is written out (a starred
    target takes the rest); otherwise each target may hold any item."""
    targets = left.named_children
    if value.type not in ("expression_list", "tuple", "list") or any(
            c.type in ("list_splat", "parenthesized_list_splat") for c in value.named_children):
        return [b for target in _targets(source, left) for b in _bound(source, target, value)]
    items = value.named_children
    found: list[Binding] = []
    for index, target in enumerate(targets):
        starred = target.type == "list_splat_pattern"
        if starred and target.named_child_count:
            target = target.named_children[0]
        name = source.dotted(target)
        if name is None:
            continue
        rest = len(targets) - index - 1
        for item in items[index:len(items) - rest] if starred else items[index:index + 1]:
            found.extend(_bound(source, name, item))
    return found

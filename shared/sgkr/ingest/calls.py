"""Call sites, and what each call is passed, read off the captures of one file.

A call's arguments give: the names passed as values (:class:`~sgkr.records.ValueUse`),
the values passed and their slots (:class:`~sgkr.records.Argument`), what a container
is given by its adding methods (``xs.append(f)``), and, for tags, the keywords that
pass data, the string keys read (``row.get("fee")``) and the strings passed that read
like names (``groupby("merchant")``).

Examples
--------
>>> from .syntax import Source, captures_of
>>> source = Source("m.py", "m", "apply(fee, key=tax)\\n")
>>> items = call_facts(source, captures_of(source.parse()))
>>> [(what.name, getattr(fact, "slot", None)) for _, _, what, fact in items]
[('CALL', None), ('USE', None), ('ARGUMENT', 0), ('KEYWORD', None), ('USE', None), \
('ARGUMENT', 'key')]
"""

from __future__ import annotations

from tree_sitter import Node

from ..records import Argument, Arity, Binding, CallSite, Ref, ValueUse
from .expressions import (
    NAMES,
    TAKES_NO_FUNCTION,
    attribute_call,
    key_like,
    name_like,
    named_call,
    passed,
    string_value,
    subscripted,
)
from .scopes import Fact, Item
from .syntax import Source, line_of

__all__ = ["call_facts", "may_call", "arity_of", "ADDERS"]

#: Methods that add their arguments to the container they are called on.
ADDERS = frozenset({"append", "add", "insert", "appendleft", "setdefault", "put", "extend",
                    "update"})
_NONE, _ONE = Arity(0), Arity(1)
# Methods of builtin types: the calls of them are too many to tell a parameter anything,
# but for those that add to a container.
_BUILTIN_METHODS = frozenset(
    name for kind in (str, bytes, list, dict, set) for name in dir(kind)) - ADDERS
# Methods reading a key given as their first argument: ``row.get("fee")``.
_KEY_READERS = frozenset({"get", "pop", "setdefault"})
# Literal values: a keyword given one sets an option (``ascending=False``), it passes no data.
_LITERALS = frozenset({"integer", "float", "string", "concatenated_string", "true", "false",
                       "none", "unary_operator", "ellipsis"})


def call_facts(source: Source, captures: dict[str, list[Node]]) -> list[Item]:
    """The call sites of one file's captures, and what their arguments pass."""
    items: list[Item] = []
    add = items.append
    # Each argument list by where the function before it ends (a node's parent is found
    # from the root down, through every earlier sibling: quadratic over a long module),
    # its items read once, for the call's arity and for what it passes.
    lists = [(_before(source, node.start_byte), node, node.named_children)
             for node in captures.get("use.args", ())]
    lists_at = {end: children for end, _, children in lists}
    # Each call by where its function ends: its argument list finds it so (calls chained
    # as ``f(x).g()`` start together, but their functions end apart).
    calls_at: dict[int, CallSite] = {}
    for node in captures.get("call.plain", ()):
        start, end = node.start_byte, node.end_byte
        call = calls_at[end] = CallSite("plain", source.text_of(node), None, line_of(node),
                                        _arity(source, node, lists_at))
        add((start, end, Fact.CALL, call))
    for node in captures.get("call.attr", ()):
        call = calls_at[node.end_byte] = attribute_call(source, node,
                                                        _arity(source, node, lists_at))
        add((node.start_byte, node.end_byte, Fact.CALL, call))
    _other_calls(source, captures, items)
    # A class's bases are an argument list after its name: no call.
    classes = {node.end_byte for node in captures.get("class.name", ())}
    for function_end, node, children in lists:
        if children and function_end not in classes:
            _arguments(source, node, children, calls_at.get(function_end), items)
    return items


def _other_calls(source: Source, captures: dict[str, list[Node]], items: list[Item]) -> None:
    """Decorators (and what they decorate), ``raise E``, ``g()()`` and ``x[k]()``."""
    add = items.append
    for node in captures.get("call.deco", ()):
        deco = named_call(source, node, _ONE)  # given the function under it
        dotted = source.dotted(node)
        if deco is not None and dotted is not None:
            add((node.start_byte, node.end_byte, Fact.CALL, deco))
            add((node.start_byte, node.start_byte, Fact.DECORATOR, (deco, dotted)))
    for node in captures.get("call.raise", ()):
        name = source.text_of(node)
        if name[:1].isupper():  # ``raise E`` makes an E; a lower-case name holds one
            add((node.start_byte, node.end_byte, Fact.CALL,
                 CallSite("plain", name, None, line_of(node), _NONE)))
    for node in captures.get("call.result", ()):
        dotted = source.dotted(node)
        if dotted is not None:
            add((node.start_byte, node.end_byte, Fact.CALL,
                 CallSite("result", dotted, None, line_of(node))))
    for node in captures.get("call.sub", ()):
        held = subscripted(source, node)
        if held is not None:
            add((node.start_byte, node.end_byte, Fact.CALL,
                 CallSite("subscript", held.name, None, line_of(node), index=held.index)))


def _arity(source: Source, function: Node, lists_at: dict[int, list[Node]]) -> Arity | None:
    """What the call of ``function`` passes, read from its argument list when captured."""
    arguments = lists_at.get(function.end_byte)
    if arguments is not None:
        return _arguments_arity(source, arguments)
    return arity_of(source, function.parent)  # ``f(x for x in xs)``: no argument list


def arity_of(source: Source, call: Node | None) -> Arity | None:
    """What the ``call`` node passes (None: no argument list is found).

    Examples
    --------
    >>> from .syntax import Source
    >>> source = Source("m.py", "m", "f(1, x, key=2)\\n")
    >>> call = source.parse().named_children[0].named_children[0]
    >>> arity_of(source, call)
    Arity(positional=2, keywords=('key',), unpacked=False)
    """
    arguments = call.child_by_field_name("arguments") if call is not None else None
    if arguments is None:
        return None
    if arguments.type != "argument_list":  # ``f(x for x in xs)``
        return _ONE
    return _arguments_arity(source, arguments.named_children)


def _arguments_arity(source: Source, arguments: list[Node]) -> Arity:
    """What the items of an argument list pass."""
    positional = 0
    keywords: list[str] = []
    unpacked = False
    for child in arguments:
        kind = child.type
        if kind == "keyword_argument":
            name = child.child_by_field_name("name")
            if name is not None:
                keywords.append(source.text_of(name))
        elif kind in ("list_splat", "dictionary_splat"):
            unpacked = True
        elif kind != "comment":
            positional += 1
    return Arity(positional, tuple(keywords), unpacked)


def _before(source: Source, at: int) -> int:
    """Where what stands before byte ``at`` ends, spaces and line continuations aside:
    where the function of a call ends, given where its argument list starts."""
    src = source.src
    while at > 0 and src[at - 1 : at] in (b" ", b"\t", b"\n", b"\r", b"\\"):
        at -= 1
    return at


def may_call(call: CallSite) -> bool:
    """Whether what is passed to ``call`` may be called by it: not a builtin known never
    to call its arguments, nor a method of a builtin type (but for those adding to a
    container), nor a method of an unknown receiver."""
    if call.kind == "super":
        return False
    if call.kind != "plain":
        return call.receiver is not None and call.name not in _BUILTIN_METHODS
    return call.name not in TAKES_NO_FUNCTION


def _arguments(source: Source, arguments: Node, children: list[Node], call: CallSite | None,
               items: list[Item]) -> None:
    """Add what a call's ``arguments`` (their items ``children``) pass to ``items``: each
    name as a value use of the call, and each name, container of names or named call's
    result as an :class:`~sgkr.records.Argument`; a name added to a container
    (``xs.append(f)``) is held by it; the keywords, keys and name-like strings for tags."""
    # What is passed stands where the argument list does (in the order of the calls).
    where = (arguments.start_byte, arguments.end_byte)
    told = call is not None and may_call(call)
    holder = call.receiver if told and call is not None and call.name in ADDERS else None
    position: int | None = 0
    for child in children:
        kind = child.type
        slot: int | str | None
        if kind == "keyword_argument":
            value = child.child_by_field_name("value")
            name = child.child_by_field_name("name")
            slot = source.text_of(name) if name is not None else None
            if slot and value is not None and value.type not in _LITERALS:
                items.append((child.start_byte, child.end_byte, Fact.KEYWORD, slot))
        elif kind in ("list_splat", "dictionary_splat"):
            position = None  # later positions are not known
            continue
        else:
            value, slot = child, position
            if kind == "string":  # a key read, or a name-like string
                _strings(source, child, call, position, items)
            if position is not None:
                position += 1
        if value is None:
            continue
        refs = _passed_refs(source, value, call, where, items) if value.type in NAMES else (
            passed(source, value) if told and slot is not None else [])
        if not told or slot is None or call is None:
            continue
        for ref in refs:
            if holder is not None and not holder.called:  # a list's, or a method's
                items.append((*where, Fact.BINDING, Binding(holder.name, ref)))
            items.append((*where, Fact.ARGUMENT, Argument(call, slot, ref)))


def _passed_refs(source: Source, value: Node, call: CallSite | None, where: tuple[int, int],
                 items: list[Item]) -> list[Ref]:
    """A name passed: its value use of the call, and the name as an argument's value."""
    site = named_call(source, value)
    if site is None:
        return []
    items.append((*where, Fact.USE, ValueUse(site, call)))
    return [Ref(site.callee)]


def _strings(source: Source, child: Node, call: CallSite | None, position: int | None,
             items: list[Item]) -> None:
    """A string passed at ``position``: a key read (``row.get("fee")``) or a name-like string."""
    text = string_value(source, child)
    if text is None:
        return
    if position == 0 and call is not None and call.kind == "attribute" \
            and call.name in _KEY_READERS:
        if key_like(text):
            items.append((child.start_byte, child.end_byte, Fact.KEY_READ, text))
    elif name_like(text):
        items.append((child.start_byte, child.end_byte, Fact.STRING, text))

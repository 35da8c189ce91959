"""The scopes of a file (functions and classes) and the facts each one holds.

The query's captures come unordered; each fact is given, by its position, to
the innermost function around it (or to the module body), in source order.

Examples
--------
>>> from .syntax import Source, captures_of
>>> source = Source("m.py", "m", "class A:\\n    def f(self):\\n        pass\\n")
>>> scopes = scopes_of(source, captures_of(source.parse()))
>>> [(s.qualname, s.is_class) for s in scopes]
[('m.A', True), ('m.A.f', False)]
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter

from tree_sitter import Node

from ..records import Argument, Binding, BindingKind, CallSite, NameChange, Ref, ValueUse
from .syntax import Source

__all__ = ["Fact", "Item", "Scope", "scopes_of", "place", "kept"]


class Fact(str, enum.Enum):
    """What a captured fact is: the name of the list of :class:`Scope` that holds it."""

    CALL = "calls"
    USE = "uses"
    BINDING = "bindings"
    #: A name given an integer literal, or changed in ways no binding records.
    CHANGE = "changes"
    RETURN = "returns"
    #: The name a ``return`` statement gives back alone.
    RESULT = "results"
    ARGUMENT = "arguments"
    #: A decorator of the function defined after it: (its call site, its dotted name).
    DECORATOR = "decorated"
    IMPORT = "imports"
    KEY_READ = "keys_read"
    KEY_WRITTEN = "keys_written"
    KEYWORD = "keywords"
    STRING = "strings"
    #: ``df.amount``: (the name, the attribute), kept for a function's parameters.
    READ = "reads"


#: A fact found at a place: (start byte, end byte, what, the fact).
Item = tuple[int, int, Fact, object]
_START_END = itemgetter(0, 1)


@dataclass(slots=True)
class Scope:
    """A function, a class or the module body, and the facts found in it (source order)."""

    start: int
    end: int
    name: str
    node: Node | None
    is_class: bool
    parent: Scope | None = None
    qualname: str = ""
    calls: list[CallSite] = field(default_factory=list)
    uses: list[ValueUse] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    changes: list[NameChange] = field(default_factory=list)
    returns: list[Ref] = field(default_factory=list)
    results: list[str] = field(default_factory=list)
    arguments: list[Argument] = field(default_factory=list)
    decorators: list[str] = field(default_factory=list)
    imports: list[Node] = field(default_factory=list)
    keys_read: list[str] = field(default_factory=list)
    keys_written: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)
    reads: list[tuple[str, str]] = field(default_factory=list)


def scopes_of(source: Source, captures: dict[str, list[Node]]) -> list[Scope]:
    """The functions and classes of a file, in source order, with their qualnames."""
    scopes = _captured(source, captures, "def", False) + _captured(source, captures, "class",
                                                                   True)
    scopes.sort(key=lambda s: (s.start, -s.end))
    stack: list[Scope] = []
    for scope in scopes:
        while stack and stack[-1].end <= scope.start:
            stack.pop()
        scope.parent = stack[-1] if stack else None
        prefix = scope.parent.qualname if scope.parent else source.module
        scope.qualname = f"{prefix}.{scope.name}" if prefix else scope.name
        stack.append(scope)
    return scopes


def _captured(source: Source, captures: dict[str, list[Node]], kind: str,
              is_class: bool) -> list[Scope]:
    """The scopes of the definitions captured as ``kind``, paired with their names."""
    # Captures are not in source order; a definition's name comes before anything
    # nested in it, so the definitions and the names sort alike.
    nodes = sorted(captures.get(kind, ()), key=_start_byte)
    names = sorted(captures.get(kind + ".name", ()), key=_start_byte)
    return [Scope(node.start_byte, node.end_byte, source.text_of(name), node, is_class)
            for node, name in zip(nodes, names, strict=True)]


def place(source: Source, scopes: list[Scope], items: list[Item]) -> Scope:
    """Give each fact of ``items`` to its innermost enclosing function; return the module
    body's scope (the facts outside every function)."""
    module = Scope(0, len(source.src), source.module, None, False, qualname=source.module)
    functions = [s for s in scopes if not s.is_class]
    starts = [s.start for s in scopes]
    items.sort(key=_START_END)
    stack: list[Scope] = []
    index = 0
    for pos, _, what, fact in items:
        while stack and stack[-1].end <= pos:
            stack.pop()
        while index < len(functions) and functions[index].start <= pos:
            scope = functions[index]
            index += 1
            while stack and stack[-1].end <= scope.start:
                stack.pop()
            if scope.end > pos:
                stack.append(scope)
        owner = stack[-1] if stack else module
        if what is Fact.DECORATOR:
            _decorate(owner, scopes, starts, pos, fact)  # type: ignore[arg-type]
        else:
            getattr(owner, what).append(fact)
    return module


def _decorate(owner: Scope, scopes: list[Scope], starts: list[int], pos: int,
              decorator: tuple[CallSite, str]) -> None:
    """A decorator at ``pos`` in ``owner`` of the definition after it: the function is
    passed to the decorator where it is written, and the decorator noted in the function.

    Decorators come outermost first: the one written above another is passed what the
    one below returns (``@a @b def f``: ``a`` is given ``b(f)``)."""
    following = bisect_right(starts, pos)
    if following == len(scopes) or scopes[following].is_class:
        return
    decorated = scopes[following]
    site, dotted = decorator
    # The function as the enclosing scope names it: through the classes around it.
    path = decorated.qualname[len(owner.qualname) + 1:] if owner.qualname else decorated.qualname
    function = Ref(path)
    if decorated.decorators:  # the decorator above is given what this one returns
        arguments = owner.arguments
        above = next((i for i in range(len(arguments) - 1, -1, -1)
                      if arguments[i].slot == 0 and arguments[i].value == function), None)
        if above is not None:
            arguments[above] = Argument(arguments[above].call, 0, Ref(dotted, called=True))
    owner.arguments.append(Argument(site, 0, function))
    decorated.decorators.append(dotted)


def kept(scope: Scope, params: Iterable[str], *, local: bool = True
         ) -> tuple[tuple[ValueUse, ...], tuple[Binding, ...]]:
    """The value uses and bindings of ``scope`` that can tell anything.

    A name that is a parameter or is assigned in the scope is a local variable:
    its uses are no function of the sources by scoping. A local (``local``) name's
    binding is kept only when the scope calls it, calls through it, returns it or
    passes it, or gives it to a name kept. Linear in the bindings.
    """
    bindings = scope.bindings
    locals_ = {b.target for b in bindings}.union(params)
    uses = tuple([u for u in scope.uses
                  if u.site.kind != "plain" or u.site.name not in locals_])
    if not local or not bindings:
        return uses, tuple(bindings)
    by_target: dict[str, list[int]] = {}
    for i, b in enumerate(bindings):
        by_target.setdefault(b.target, []).append(i)
    keep = [False] * len(bindings)
    used = [r.name.partition(".")[0] for r in scope.returns]
    used += [c.name if c.receiver is None else c.receiver.name.partition(".")[0]
             for c in scope.calls]
    more = [i for i, b in enumerate(bindings) if "." in b.target]
    seen: set[str] = set()
    while used or more:  # what a kept binding is given is used too
        for name in used:
            if name not in seen:
                seen.add(name)
                more.extend(by_target.get(name, ()))
        used = []
        for i in more:
            if not keep[i]:
                keep[i] = True
                used.append(bindings[i].value.name.partition(".")[0])
        more = []
    # A name given another name and passed on (``h = fee; apply(h)``); not what a call
    # returns, which would name the callee's output (tag inference reads those).
    passed = {a.value.name.partition(".")[0] for a in scope.arguments}
    return uses, tuple([b for b, k in zip(bindings, keep, strict=True)
                        if k or b.kind is BindingKind.HOLDS and b.target in passed])


def _start_byte(node: Node) -> int:
    return node.start_byte

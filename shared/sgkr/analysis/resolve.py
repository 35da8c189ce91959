"""Resolution of call sites to the definitions they call, across all files of a build.

A call is ``exact`` when scoping, an import, an alias, ``self.``/``cls.``/
``super()`` or a class name tells which definition it reaches; ``name`` when
only the bare name matches definitions in the sources. Builtins and names
bound to modules outside the sources are not resolved.

A call is ``inferred`` when what a name, a ``self.`` attribute or a called
function's return value holds tells it: ``p = Parser(); p.feed()``,
``self.tok = Tokenizer()`` in ``__init__`` then ``self.tok.next()`` in another
method (fields of base classes included), ``h = fee; h()``,
``HANDLERS = {"fee": fee}; HANDLERS[k]()``, ``make().run()`` where ``make``
returns ``Parser()``. A parameter holds what the calls of the sources reaching
its function pass it (``def apply(fn): fn()`` and ``apply(fee)``), positional,
keyword, default, ``*args`` or ``**kwargs``; a decorated name holds what its
decorators return (a wrapper, which calls the function); ``self.m()`` reaches
the overrides of ``m`` in subclasses too. Each is read off the assignments,
arguments and returns the extraction kept (:class:`~sgkr.records.Binding`), on
demand, a few steps deep; a call that may reach more than :data:`FANOUT_LIMIT`
definitions gives ``name`` edges instead (none beyond twice as many). A receiver
known to hold an object of the sources that has no such method is not guessed by
name.

A function used as a value (:class:`~sgkr.records.ValueUse`: passed to a call
outside the sources, stored or returned) is a reference, resolved only when
scoping, an import or ``self.``/``cls.`` tells which function it is (``exact``),
or ``inferred`` for a local name passed to a function known to call it (``map``,
``sorted``, ``functools.partial``...); one passed to a function of the sources
is left to that function's calls (its parameter holds it).

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> a = extract_module("a.py", "from b import g as h\\ndef f():\\n    h()\\n")
>>> b = extract_module("b.py", "def g():\\n    pass\\n")
>>> resolve_calls([a, b])
[('a.f', 'b.g', 'exact')]
"""

from __future__ import annotations

import builtins
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from ..records import (
    Argument,
    BindingKind,
    CallSite,
    Definition,
    ModuleExtract,
    ParameterKind,
    Ref,
    Resolution,
    ValueUse,
)

__all__ = ["resolve_calls", "CallResolver", "CallEdge", "NAME_MATCH_LIMIT", "FANOUT_LIMIT",
           "flatten"]

CallEdge = tuple[str, str, Resolution]
_T = TypeVar("_T")
_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")
#: A bare-name call matching more definitions than this is left unresolved.
NAME_MATCH_LIMIT = 3
#: An inferred call reaching more definitions than this gives ``name`` edges (at most
#: twice as many; beyond, none).
FANOUT_LIMIT = 4
# How many assignments and returns an inference follows, one from another.
_INFER_DEPTH = 5
_RANK = {"exact": 3, "inferred": 2, "name": 1}
_NOTHING: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
_BUILTINS = frozenset(dir(builtins))
# Methods of builtin types and common protocols: ``x.append()`` says nothing about x.
_COMMON_METHODS = frozenset(
    name
    for kind in (dict, list, str, set, bytes, int, float, tuple, frozenset, object)
    for name in dir(kind)
) | frozenset({"close", "read", "write", "open", "run", "main", "start", "stop", "send",
               "get", "put", "add", "update", "reset", "flush", "apply", "call"})
_MAX_DEPTH = 8
# A parameter is inferred from the calls of its function's name, at most this many.
_CALLERS_LIMIT = 24
# Functions outside the sources known to call what they are passed (a local name passed
# to another call outside the sources, ``functools.wraps(fn)``, is not taken as used).
_CALLING = frozenset({"map", "filter", "sorted", "min", "max", "reduce", "partial",
                      "starmap", "apply", "applymap", "agg", "aggregate", "transform", "pipe",
                      "submit", "Thread", "Process", "Timer", "call_soon", "run_in_executor",
                      "sort", "groupby", "accumulate", "takewhile", "dropwhile",
                      "filterfalse", "register", "connect", "add_done_callback"})
# A nesting of parameter inferences that allows none.
_NO_PARAMETERS = 1 << 20
# Methods whose result is what their object holds: ``d.get(k)``, ``d.items()``.
_READERS = frozenset({"get", "pop", "setdefault", "values", "items", "copy", "popleft"})


def resolve_calls(modules: Sequence[ModuleExtract]) -> list[CallEdge]:
    """Resolve every call site of ``modules`` to definitions of the same build.

    Parameters
    ----------
    modules
        Extracted files of one build.

    Returns
    -------
    list of (caller qualname, callee qualname, resolution)
        One entry per distinct caller and callee, ``exact`` preferred over
        ``name``, sorted.
    """
    return flatten(CallResolver(modules).resolve_modules(modules))


def flatten(calls: dict[str, dict[str, Resolution]]) -> list[CallEdge]:
    """The sorted ``(caller, callee, resolution)`` list of per-caller call maps.

    Examples
    --------
    >>> flatten({"m.g": {"m.h": "name"}, "m.f": {"m.h": "exact", "m.g": "exact"}})
    [('m.f', 'm.g', 'exact'), ('m.f', 'm.h', 'exact'), ('m.g', 'm.h', 'name')]
    """
    return sorted((a, b, how) for a, targets in calls.items() for b, how in targets.items())


class CallResolver:
    """The look-up tables of one build's modules, to resolve call sites against.

    The tables can be updated module by module (:meth:`replace`), so that an
    incremental rebuild re-resolves only the callers a change can reach.

    Parameters
    ----------
    modules
        Extracted files of one build, in build order.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> a = extract_module("a.py", "import b\\ndef f():\\n    b.g()\\n")
    >>> b = extract_module("b.py", "def g():\\n    pass\\n")
    >>> resolver = CallResolver([a, b])
    >>> resolver.resolve_modules([a])
    {'a.f': {'b.g': 'exact'}}
    >>> resolver.replace([b], [extract_module("b.py", "def h():\\n    pass\\n")])
    True
    >>> resolver.resolve_modules([a])
    {}
    """

    def __init__(self, modules: Sequence[ModuleExtract]) -> None:
        self.defs: dict[str, Definition] = {}
        self.classes: dict[str, tuple[str, ...]] = {}
        self.class_module: dict[str, str] = {}
        self.modules: set[str] = set()
        self.bindings: dict[str, dict[str, str]] = defaultdict(dict)
        self.wildcards: dict[str, list[str]] = defaultdict(list)
        self.functions_by_name: dict[str, list[str]] = defaultdict(list)
        self.callables_by_name: dict[str, list[str]] = defaultdict(list)
        # Which module filled each qualname-keyed entry; keys filled by two modules
        # depend on build order, so they cannot be updated one module at a time.
        self.owner: dict[str, str] = {}
        self.shared: set[str] = set()
        self.by_module: dict[str, ModuleExtract] = {}
        # Answers read off the tables, kept until the tables change (_add, _remove):
        # a build resolves the same names, methods and bases again and again.
        self._bound: dict[tuple[str, str], str | None] = {}
        self._found: dict[str, list[str] | None] = {}
        self._methods: dict[tuple[str, str], str | None] = {}
        self._class_bases: dict[str, list[str]] = {}
        # The scopes that bind a name of their own: modules, and the functions holding
        # a definition, a class or an import. Other functions' scopes are not looked in.
        # A removed module's scopes stay: looking in them finds nothing.
        self._binders: set[str] = set()
        # What each scope's names and ``return`` are given; each class's ``self.`` fields.
        self.assigned: dict[str, dict[str, list[tuple[str, str]]]] = {}
        self.fields: dict[str, dict[str, list[tuple[str, str, str]]]] = {}
        # The names passed to calls, by the callee's last name: (definition, callee, slot,
        # name passed), read to infer what a parameter holds.
        self.passed: dict[str, list[tuple[str, CallSite, str, str]]] = defaultdict(list)
        self._subclasses: dict[str, list[str]] | None = None
        self._nesting = 0
        # What the call sites passing names reach (without parameters' values), and the
        # modules read to tell: the same whichever definition asks.
        self._site_targets: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}
        self._locals: dict[tuple[str, str], bool] = {}
        self._parameters: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}
        self._overridden: dict[tuple[str, str], tuple[tuple[list[str], Resolution],
                                                      frozenset[str]]] = {}
        #: The modules whose tables each module's inferred calls were read off (made as
        #: modules are resolved), and the keys of :meth:`keys_of` they read: an update
        #: resolves a module again when one of them changed.
        self.depends: dict[str, set[str]] = {}
        self._inferred: dict[tuple[str, str | None, str], tuple[frozenset[str],
                                                                 frozenset[str]]] = {}
        self._reading: set[str] | None = None
        self._chains: dict[str, tuple[str, ...]] = {}
        self._seen: dict[tuple[str, str, Ref | None], tuple[list[str], Resolution]] = {}
        for module in modules:
            self._add(module)

    def _forget(self) -> None:
        """Drop the answers read off the tables: they are about to change."""
        for memo in (self._bound, self._found, self._methods, self._class_bases,
                     self._inferred, self._chains, self._site_targets, self._locals,
                     self._parameters, self._overridden):
            if memo:
                memo.clear()
        self._subclasses = None

    def _add(self, module: ModuleExtract) -> None:
        self._forget()
        name = module.module
        if name in self.by_module:
            self.shared.add(name)
        self.by_module.setdefault(name, module)
        self.modules.add(name)
        owner = self.owner
        binds = self._binders.add
        binds(name)
        for d in module.definitions:
            q = d.qualname
            binds(q.rpartition(".")[0])
            if owner.setdefault(q, name) != name:
                self.shared.add(q)
            elif d.bindings or d.returns or d.decorators or d.arguments:
                self._add_bindings(d)
            self.defs.setdefault(q, d)
            if d.kind != "module":
                self.callables_by_name[d.name].append(q)
                if d.kind == "function":
                    self.functions_by_name[d.name].append(q)
        for c in module.classes:
            binds(c.qualname.rpartition(".")[0])
            if owner.setdefault(c.qualname, name) != name:
                self.shared.add(c.qualname)
            self.classes.setdefault(c.qualname, c.bases)
            self.class_module[c.qualname] = name
        for b in module.imports:
            binds(b.scope)
            if owner.setdefault(b.scope, name) != name:
                self.shared.add(b.scope)
            if b.alias == "*":
                self.wildcards[b.scope].append(b.target)
            else:
                self.bindings[b.scope].setdefault(b.alias, b.target)

    def _add_bindings(self, d: Definition) -> None:
        table = self.assigned.setdefault(d.qualname, {})
        cls = d.enclosing_class
        for a in d.arguments:
            self.passed[a.call.name].append(_passed(d.qualname, a))
        if d.returns:
            table["return"] = [_bound(ref, BindingKind.ASSIGNED) for ref in d.returns]
        if d.decorators:
            table["@"] = [("name", decorator) for decorator in d.decorators]
        for b in d.bindings:
            kind, value = _bound(b.value, b.kind)
            table.setdefault(b.target, []).append((kind, value))
            head, _, attr = b.target.partition(".")
            if cls is not None and head == "self" and attr and "." not in attr:
                self.fields.setdefault(cls, {}).setdefault(attr, []).append(
                    (d.qualname, kind, value))

    def _remove(self, module: ModuleExtract) -> None:
        self._forget()
        name = module.module
        del self.by_module[name]
        self.modules.discard(name)
        self.depends.pop(name, None)
        for d in module.definitions:
            if self.owner.get(d.qualname) == name:
                self.assigned.pop(d.qualname, None)
                for a in d.arguments:
                    _drop(self.passed, a.call.name, _passed(d.qualname, a))
                if d.enclosing_class is not None:
                    self.fields.pop(d.enclosing_class, None)
            self.owner.pop(d.qualname, None)
            self.defs.pop(d.qualname, None)
            if d.kind != "module":
                _drop(self.callables_by_name, d.name, d.qualname)
                if d.kind == "function":
                    _drop(self.functions_by_name, d.name, d.qualname)
        for c in module.classes:
            self.owner.pop(c.qualname, None)
            self.classes.pop(c.qualname, None)
            self.class_module.pop(c.qualname, None)
        for b in module.imports:
            self.owner.pop(b.scope, None)
            self.bindings.pop(b.scope, None)
            self.wildcards.pop(b.scope, None)

    @staticmethod
    def keys_of(module: ModuleExtract) -> set[str]:
        """What ``module`` gives inferences in other modules, as :attr:`depends` names it:
        the calls it passes names to (``#args:`` and the callee's last name), the bases
        of its classes (``#sub:`` and the base's last name)."""
        keys = {"#sub:" + base.rpartition(".")[2] for c in module.classes for base in c.bases}
        keys.update("#args:" + a.call.name for d in module.definitions for a in d.arguments)
        return keys

    def replace(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]) -> bool:
        """Swap the tables of ``old`` modules for those of ``new`` ones.

        Returns False, changing nothing, when a module or key is shared with
        another module of the build (build order would decide between them):
        the caller then makes a new resolver from all modules.
        """
        names = {m.module for m in old}
        for module in (*old, *new):
            keys = [module.module, *(d.qualname for d in module.definitions),
                    *(c.qualname for c in module.classes), *(b.scope for b in module.imports)]
            if any(k in self.shared or self.owner.get(k, module.module) != module.module
                   and self.owner.get(k) not in names for k in keys):
                return False
            if module in new and module.module in self.by_module and module.module not in names:
                return False
        for module in old:
            self._remove(module)
        for module in new:
            self._add(module)
        return True

    def resolve_modules(self, modules: Iterable[ModuleExtract],
                        refs: dict[str, dict[str, Resolution]] | None = None
                        ) -> dict[str, dict[str, Resolution]]:
        """Call maps ``{caller: {callee: resolution}}`` of every definition of ``modules``.

        ``refs``, when given, receives the reference maps ``{user: {function:
        resolution}}`` of the same definitions (a pair that is a call is left out).
        """
        calls: dict[str, dict[str, Resolution]] = {}
        for module in modules:
            self._reading = self.depends[module.module] = set()
            for d in module.definitions:
                # Inferences are kept for one definition only: what it infers is then
                # the same whichever definitions were resolved before it (and an update
                # equals a fresh build), cycles of assignments included.
                self._inferred.clear()
                self.resolve_definition(d, module.module, calls)
                if refs is not None and (d.uses or d.arguments):
                    self.resolve_uses(d, module.module, calls.get(d.qualname, {}), refs)
            self._reading.discard(module.module)
            self._reading = None
        return calls

    def resolve_uses(self, d: Definition, module: str, called: dict[str, Resolution],
                     refs: dict[str, dict[str, Resolution]]) -> None:
        """Add the functions ``d`` uses as values to ``refs[d.qualname]`` (not those in
        ``called``, nor ``d`` itself)."""
        # Names passed to a call outside the sources known to call them.
        passed = [a for a in d.arguments if a.call.name in _CALLING]
        if not d.uses and not passed:
            return
        scopes = self._scopes(d, module)
        cls = self._enclosing_class(d)
        chain = self._chain(d.qualname)
        found: dict[str, Resolution] = {}
        for use in d.uses:
            for target in self._used(cls, scopes, chain, use):
                if target not in called and target != d.qualname:
                    found[target] = "exact"
        for a in passed:
            if not self._is_local(chain, a.value.name.partition(".")[0]):
                continue
            for target in self._passed_out(cls, scopes, chain, a.call, str(a.value)):
                if target not in called and target not in found and target != d.qualname:
                    found[target] = "inferred"
        if found:
            refs[d.qualname] = dict(sorted(found.items()))

    def _passed_out(self, cls: str | None, scopes: list[str], chain: tuple[str, ...],
                    site: CallSite, value: str) -> list[str]:
        """The functions a local name ``value`` holds, passed to a call ``site`` outside
        the sources (``map(fn, xs)``); none when passed to the sources, whose parameters
        then hold them."""
        callees, how = self._resolve(cls, scopes, chain, site)
        if callees and how != "name":
            return []
        functions = sorted(v[2:] for v in self._infer(chain, cls, value, 0)
                           if v.startswith("f:"))
        return functions if len(functions) <= FANOUT_LIMIT else []

    def _used(self, cls: str | None, scopes: list[str], chain: tuple[str, ...],
              use: ValueUse) -> list[str]:
        """The functions ``use`` names, when syntax tells and it is not passed to the
        sources (whose own calls then tell what it does)."""
        call = use.argument_of
        if call is not None:
            key = (call.kind, call.name, call.receiver)
            resolved = self._seen.get(key)
            if resolved is None:
                resolved = self._seen[key] = self._resolve(cls, scopes, chain, call)
            if resolved[1] != "name" and resolved[0]:
                return []
        return self._named_exactly(cls, scopes, use.site)

    def _named_exactly(self, cls: str | None, scopes: list[str], site: CallSite) -> list[str]:
        """The function a name used as a value is, when syntax alone tells."""
        if site.kind == "plain":
            target = self._target_of(scopes, site.name)
        elif _receiver(site) in ("self", "cls"):
            method = self._method(cls, site.name) if cls is not None else None
            target = method
        elif site.receiver is not None:
            head, _, rest = str(site.receiver).partition(".")
            bound = self._target_of(scopes, head)
            target = ".".join(p for p in (bound, rest, site.name) if p) if bound else None
        else:
            return []
        if target is None or target in self.classes:
            return []
        found = self._lookup(target, 0)
        if not found or target in self.modules:
            return []
        return found

    def resolve_definition(self, d: Definition, module: str,
                           calls: dict[str, dict[str, Resolution]]) -> None:
        """Add the callees of ``d`` to ``calls[d.qualname]`` (``exact`` wins over ``name``)."""
        if not d.calls:
            return
        targets_of = calls.get(d.qualname)
        if targets_of is None:
            targets_of = calls[d.qualname] = {}
        scopes = self._scopes(d, module)
        cls = self._enclosing_class(d)
        chain = self._chain(d.qualname)
        # The same call written again in a definition (its line aside) resolves alike;
        # resolve_uses reads what the calls its arguments are passed to reach.
        seen = self._seen
        seen.clear()
        for call in d.calls:
            key = (call.kind, call.name, call.receiver)
            if key in seen:
                continue
            targets, how = seen[key] = self._resolve(cls, scopes, chain, call)
            rank = _RANK[how]
            for target in targets:
                if rank > _RANK.get(targets_of.get(target, ""), 0):
                    targets_of[target] = how
            # A parameter holds a function as passed (a decorator's, undecorated).
            if len(targets) == 1 and how != "name" and not (
                    how == "inferred" and call.receiver is None
                    and self._is_local(chain, call.name)):
                more, how = self._also(cls, call, targets[0], how == "exact")
                rank = _RANK[how]
                for target in more:
                    if rank > _RANK.get(targets_of.get(target, ""), 0):
                        targets_of[target] = how
        if not targets_of:
            del calls[d.qualname]

    # -- one call --------------------------------------------------------------

    def _resolve(
        self, cls: str | None, scopes: list[str], chain: tuple[str, ...], call: CallSite
    ) -> tuple[list[str], Resolution]:
        """The callees of ``call``, made in a definition of class ``cls`` seeing ``scopes``
        (its own bindings in ``chain``)."""
        if call.kind == "plain":
            found = None if self._is_local(chain, call.name) \
                else self._name_in_scope(scopes, call.name)
            if found is not None:
                return found, "exact"
            inferred = self._called(chain, cls, call.name, None)
            if inferred is not None:
                return inferred
            if call.name in _BUILTINS:
                return [], "exact"
            return self._by_name(call.name, self.functions_by_name), "name"
        if call.kind == "subscript":
            return self._called(chain, cls, call.name, None) or ([], "exact")
        if call.kind == "result":  # ``make()()``: what the returned values are
            return self._reached(self._returned(chain, cls, call.name, 0)) or ([], "exact")
        if call.kind == "super":
            if cls is None:
                return [], "exact"
            for base in self._bases(cls):
                method = self._method(base, call.name)
                if method is not None:
                    return [method], "exact"
            return [], "exact"
        receiver = _receiver(call)
        if receiver is not None and receiver.endswith("()"):  # ``A().m()``
            made = self._returned(chain, cls, receiver[:-2], 0)
            reached = self._reached(self._attribute(made, call.name, 0)) if made else None
            if reached is not None:
                return reached
        elif receiver in ("self", "cls") and cls is not None:
            method = self._method(cls, call.name)
            if method is not None:
                return [method], "exact"
        elif receiver is not None:
            head, _, rest = receiver.partition(".")
            target = self._target_of(scopes, head)
            if target is not None:
                dotted = ".".join(p for p in (target, rest, call.name) if p)
                found = self._lookup(dotted, 0)
                if found is not None:
                    return found, "exact"
                if target not in self.classes and not self._is_internal(target):
                    return [], "exact"
        if receiver is not None:
            inferred = self._called(chain, cls, receiver, call.name)
            if inferred is not None:
                return inferred
        if call.name in _COMMON_METHODS or call.name.startswith("__"):
            return [], "name"
        return self._by_name(call.name, self.callables_by_name), "name"

    # -- inference ---------------------------------------------------------------

    def _called(self, chain: tuple[str, ...], cls: str | None, dotted: str,
                attr: str | None) -> tuple[list[str], Resolution] | None:
        """What calling ``dotted`` (or its ``attr``) reaches, by what it holds; None when
        nothing is known of it."""
        if not self._may_know(chain, cls, dotted):
            return None
        values = self._infer(chain, cls, dotted, 0)
        if not values:
            return None
        if attr is not None:
            values = self._attribute(values, attr, 0)
        return self._reached(values)

    def _reached(self, values: Iterable[str]) -> tuple[list[str], Resolution] | None:
        """What calling a name holding ``values`` reaches (None: nothing known), and how
        sure that is: a function itself, a class's ``__init__``, an object's ``__call__``."""
        targets: set[str] = set()
        for value in values:
            kind, name = value[:2], value[2:]
            if kind == "f:":
                targets.add(name)
            elif kind in ("c:", "i:"):
                method = self._method(name, "__init__" if kind == "c:" else "__call__")
                if method is not None:
                    targets.add(method)
        if not targets:
            return None
        return _bounded(sorted(targets))

    def _also(self, cls: str | None, call: CallSite, target: str,
              exact: bool) -> tuple[list[str], Resolution]:
        """What a call reaching ``target`` (``exact``: by syntax) may reach as well: the
        overrides of a ``self.`` method in subclasses, what its decorators made of it."""
        if exact and _receiver(call) in ("self", "cls") and cls is not None:
            return self._overrides(cls, call.name)
        decorators = self.assigned.get(target, {}).get("@")
        if not decorators:
            return [], "exact"
        self._read(target)
        return self._reached(v for v in self._decorated(target, decorators)
                             if v != "f:" + target) or ([], "exact")

    def _overrides(self, cls: str, name: str) -> tuple[list[str], Resolution]:
        """The methods ``name`` of the classes derived from ``cls`` (kept for the build,
        with the modules read to tell)."""
        def overrides() -> tuple[list[str], Resolution]:
            found = [f"{sub}.{name}" for sub in self._descendants(cls)
                     if self._own_method(f"{sub}.{name}")]
            return _bounded(found) if found else ([], "exact")

        return self._kept(self._overridden, (cls, name), overrides)

    def _own_method(self, qualname: str) -> bool:
        d = self.defs.get(qualname)
        if d is None or d.kind != "method":
            return False
        self._read(qualname)
        return True

    def _descendants(self, cls: str) -> list[str]:
        """The classes of the sources derived from ``cls``, nearest first."""
        subclasses = self._subclasses
        if subclasses is None:
            subclasses = self._subclasses = defaultdict(list)
            for name in self.classes:
                for base in self._bases(name):
                    subclasses[base].append(name)
        order: list[str] = []
        frontier = [cls]
        for current in frontier:
            if self._reading is not None:
                self._reading.add("#sub:" + current.rpartition(".")[2])
            for sub in subclasses.get(current, ()):
                if sub not in order and sub != cls:
                    order.append(sub)
                    frontier.append(sub)
        return order

    def _decorated(self, function: str, decorators: list[tuple[str, str]]) -> set[str]:
        """What the name of the decorated ``function`` holds: each decorator of the
        sources (innermost first) called with what the one before made."""
        chain = self._chain(function)[1:]
        values = {"f:" + function}
        if not chain:
            return values
        cls = self._enclosing_of(chain[0])
        for _, decorator in reversed(decorators):
            made: set[str] = set()
            for value in self._infer(chain, cls, decorator, 0):
                if value.startswith("f:"):
                    made |= self._applied(value[2:], values)
            values = made or values
        return values

    def _applied(self, function: str, given: set[str]) -> set[str]:
        """What ``function`` returns when its first parameter is given ``given``."""
        d = self.defs.get(function)
        returns = self.assigned.get(function, {}).get("return")
        if d is None or not returns:
            return set()
        self._read(function)
        first = d.params[0] if d.params else None
        found: set[str] = set()
        rest = [(kind, value) for kind, value in returns
                if not (kind == "name" and value == first)]
        if len(rest) < len(returns):
            found |= given
        if rest:
            found |= self._bound_values(self._chain(function), d.enclosing_class, rest, 0)
        return found

    def _may_know(self, chain: tuple[str, ...], cls: str | None, dotted: str) -> bool:
        """Whether an inference of ``dotted`` can find anything: its head is ``self``/``cls``
        or assigned in ``chain`` (names bound by scoping alone were looked up already)."""
        head = dotted.partition(".")[0]
        if head in ("self", "cls"):
            return cls is not None
        assigned = self.assigned
        return any(head in assigned[s] for s in chain if s in assigned) \
            or self._is_local(chain, head) \
            or "." in dotted and self._target_of([s for s in chain if s in self._binders],
                                                 head) is not None

    def _chain(self, qualname: str) -> tuple[str, ...]:
        """The scopes whose assignments a name used in ``qualname`` may come from."""
        known = self._chains.get(qualname)
        if known is not None:
            return known
        chain = [qualname]
        current = qualname
        while current and current not in self.modules:
            current = current.rpartition(".")[0]
            if current and current not in self.classes:
                chain.append(current)
        found = self._chains[qualname] = tuple(chain)
        return found

    def _infer(self, chain: tuple[str, ...], cls: str | None, dotted: str,
               depth: int) -> frozenset[str]:
        """What ``dotted`` may hold, seen from ``chain``: ``f:`` functions, ``c:`` classes,
        ``i:`` instances and ``m:`` modules of the sources."""
        key = (chain[0], cls, dotted)
        known = self._inferred.get(key)
        if known is None:
            if depth > _INFER_DEPTH:
                return frozenset()
            self._inferred[key] = _NOTHING  # a cycle of assignments ends here
            reading, self._reading = self._reading, set()
            try:
                values = self._infer_new(chain, cls, dotted, depth)
                known = self._inferred[key] = (values, frozenset(self._reading))
            finally:
                inner, self._reading = self._reading, reading
            if reading is not None:
                reading |= inner
        elif self._reading is not None:
            self._reading |= known[1]
        return known[0]

    def _infer_new(self, chain: tuple[str, ...], cls: str | None, dotted: str,
                   depth: int) -> frozenset[str]:
        if dotted.endswith("()"):  # what a call gives (``with A() as a``)
            return self._returned(chain, cls, dotted[:-2], depth)
        head, _, rest = dotted.partition(".")
        values = self._head(chain, cls, head, depth)
        for attr in rest.split(".") if rest else ():
            if not values:
                break
            values = self._attribute(values, attr, depth)
        return values

    def _head(self, chain: tuple[str, ...], cls: str | None, head: str,
              depth: int) -> frozenset[str]:
        if head in ("self", "cls") and cls is not None:
            self._read(cls)
            return frozenset([("i:" if head == "self" else "c:") + cls])
        if not self._is_local(chain, head):
            scopes = [s for s in chain if s in self._binders and s not in self.classes]
            target = self._target_of(scopes, head)
            if target is not None:
                return self._static(target)
        for scope in chain:
            bindings = self.assigned.get(scope, {}).get(head)
            d = self.defs.get(scope)
            param = d is not None and d.kind != "module" and head in d.params
            if bindings or param:
                self._read(scope)
                inner = self._chain(scope)
                found = self._bound_values(inner, self._enclosing_of(scope), bindings,
                                           depth) if bindings else frozenset()
                if param:
                    found |= self._parameter(scope, head, depth)
                return found
        return frozenset()

    def _is_local(self, chain: tuple[str, ...], name: str) -> bool:
        """Whether ``name`` is a parameter of a function of ``chain`` or assigned in one,
        before a scope binding it by a definition or an import."""
        key = (chain[0], name)
        known = self._locals.get(key)
        if known is None:
            known = self._locals[key] = self._find_local(chain, name)
        return known

    def _find_local(self, chain: tuple[str, ...], name: str) -> bool:
        for scope in chain:
            d = self.defs.get(scope)
            if d is None or d.kind == "module":
                return False
            if name in d.params or name in self.assigned.get(scope, ()):
                return True
            if scope in self._binders and self._bound_in(scope, name) is not None:
                return False
        return False

    def _parameter(self, function: str, param: str, depth: int) -> frozenset[str]:
        """What the parameter ``param`` of ``function`` is given by the calls of the
        sources that reach it (at most :data:`_CALLERS_LIMIT` calls by its name).

        Asked from a definition, it is read afresh and kept for the build (the same
        for every definition asking); asked while reading one, it is read once more
        deep, no further."""
        d = self.defs[function]
        cls = d.enclosing_class
        name = cls.rpartition(".")[2] if d.name == "__init__" and cls else d.name
        if self._reading is not None:
            self._reading.add("#args:" + name)
        passed = self.passed.get(name, ())
        if not passed or len(passed) > _CALLERS_LIMIT or depth > _INFER_DEPTH:
            return frozenset()
        if self._nesting:
            return self._given(d, param, passed, depth) if self._nesting == 1 else frozenset()
        return self._kept(self._parameters, (function, param),
                          lambda: self._given(d, param, passed, 0))

    def _given(self, d: Definition, param: str, passed: list[tuple[str, CallSite, str, str]],
               depth: int) -> frozenset[str]:
        slots = _slots(d, param)
        found: set[str] = set()
        self._nesting += 1
        try:
            for caller, callee, slot, value in passed:
                found |= self._passed_to(caller, callee, slot, value, d, slots, depth)
        finally:
            self._nesting -= 1
        return frozenset(found)

    def _passed_to(self, caller: str, site: CallSite, slot: str, value: str,
                   function: Definition, slots: _Slots, depth: int) -> frozenset[str]:
        """What ``value``, passed in ``slot`` of a call of ``callee`` made in ``caller``,
        gives the parameter of ``function`` described by ``slots`` (nothing: another
        call)."""
        positional, star, keyword, dstar, param = slots
        if not slot.isdigit():  # a keyword reaches its parameter, else ``**kwargs``
            if not (slot == param and param in keyword or dstar == param and slot not in keyword):
                return frozenset()
        elif param not in positional[int(slot):int(slot) + 2] and star != param:
            return frozenset()  # not reached however many parameters come first
        d = self.defs.get(caller)
        module = self.owner.get(caller)
        if d is None or module is None:
            return frozenset()
        scopes = self._scopes(d, module)
        if slot.isdigit():
            index = int(slot) + self._offset(function, site, scopes)
            if index < len(positional):
                if positional[index] != param:
                    return frozenset()
            elif star != param:
                return frozenset()
        cls = self._enclosing_class(d)
        chain = self._chain(caller)
        if function.qualname not in self._site_reaches(caller, site, cls, scopes, chain):
            return frozenset()
        self._read(caller)
        if value.endswith("()"):
            return self._returned(chain, cls, value[:-2], depth + 1)
        return self._infer(chain, cls, value, depth + 1)

    def _site_reaches(self, caller: str, site: CallSite, cls: str | None, scopes: list[str],
                      chain: tuple[str, ...]) -> frozenset[str]:
        """What the call ``site`` of ``caller`` reaches, but through parameters' values
        (kept for the build: read afresh, it is the same for every definition asking)."""
        def reaches() -> frozenset[str]:
            targets, how = self._resolve(cls, scopes, chain, site)
            return frozenset() if how == "name" else frozenset(targets)

        return self._kept(self._site_targets, (caller, f"{site.receiver}.{site.name}"),
                          reaches, nesting=_NO_PARAMETERS)

    def _kept(self, table: dict[_K, tuple[_V, frozenset[str]]], key: _K,
              compute: Callable[[], _V], nesting: int = 0) -> _V:
        """``compute()``, read once for the build in a clean context (no inference of
        the definition asking, ``nesting`` parameter inferences deep) and kept in
        ``table`` with the modules it read, which count as read by whoever asks: so
        it is the same for every definition asking, and an update still equals a build."""
        known = table.get(key)
        if known is None:
            saved = self._inferred, self._nesting, self._reading
            self._inferred, self._nesting, self._reading = {}, nesting, set()
            try:
                known = table[key] = (compute(), frozenset(self._reading))
            finally:
                self._inferred, self._nesting, self._reading = saved
        if self._reading is not None:
            self._reading |= known[1]
        return known[0]

    def _offset(self, d: Definition, site: CallSite, scopes: list[str]) -> int:
        """How many parameters of ``d`` a call ``site`` fills before its arguments
        (``self`` of a method called on an object or made by its class)."""
        if d.kind != "method" or not d.params or d.params[0] not in ("self", "cls"):
            return 0
        if d.name == "__init__" or d.params[0] == "cls":
            return 1
        receiver = _receiver(site)
        head = receiver.partition(".")[0] if receiver else None
        target = self._target_of(scopes, head) if head else None
        return 0 if target is not None and target in self.classes else 1

    def _bound_values(self, chain: tuple[str, ...], cls: str | None,
                      bindings: list[tuple[str, str]], depth: int) -> frozenset[str]:
        found: set[str] = set()
        for kind, value in bindings:
            if kind == "call":
                found.update(self._returned(chain, cls, value, depth + 1))
            else:
                found.update(self._infer(chain, cls, value, depth + 1))
        return frozenset(found)

    def _returned(self, chain: tuple[str, ...], cls: str | None, callee: str,
                  depth: int) -> frozenset[str]:
        """What calling ``callee`` (a dotted name, or ``f()`` for what f returns) returns."""
        if callee.endswith("()"):
            values = self._returned(chain, cls, callee[:-2], depth + 1)
        else:
            values = self._infer(chain, cls, callee, depth)
        if not values:
            holder, _, method = callee.rpartition(".")
            if method in _READERS and holder:  # ``d.get(k)``: what d holds
                return self._infer(chain, cls, holder, depth)
            if holder.endswith("()"):  # ``A().m()``
                made = self._returned(chain, cls, holder[:-2], depth + 1)
                values = self._attribute(made, method, depth) if made else values
        return frozenset(self._results(values, depth))

    def _results(self, callees: frozenset[str], depth: int) -> set[str]:
        """What calling each of ``callees`` returns."""
        found: set[str] = set()
        if depth > _INFER_DEPTH:
            return found
        for value in callees:
            if value.startswith("c:"):
                found.add("i:" + value[2:])
            elif value.startswith("f:"):
                function = value[2:]
                returns = self.assigned.get(function, {}).get("return")
                if returns:
                    self._read(function)
                    found.update(self._bound_values(self._chain(function),
                                                    self._enclosing_of(function), returns,
                                                    depth + 1))
        return found

    def _attribute(self, values: frozenset[str], attr: str, depth: int) -> frozenset[str]:
        """What the attribute ``attr`` of each of ``values`` may hold."""
        found: set[str] = set()
        for value in values:
            kind, name = value[:2], value[2:]
            if kind == "m:":
                found.update(self._static(f"{name}.{attr}"))
            elif kind in ("i:", "c:"):
                method = self._method(name, attr)
                if method is not None:
                    found.add("f:" + method)
                    continue
                nested = f"{name}.{attr}"
                if nested in self.classes:
                    found.add("c:" + nested)
                    continue
                for current in self._lineage(name):
                    for where, how, held in self.fields.get(current, {}).get(attr, ()):
                        self._read(where)
                        found.update(self._bound_values(self._chain(where), current,
                                                        [(how, held)], depth))
        return frozenset(found)

    def _static(self, target: str) -> frozenset[str]:
        """What a name bound by scoping or an import holds (nothing outside the sources)."""
        self._read(target)
        cls = self._class_alias(target, 0)
        if cls is not None:
            return frozenset(["c:" + cls])
        if target in self.modules:
            return frozenset(["m:" + target])
        found = self._lookup(target, 0)
        return frozenset("f:" + f for f in found or ())

    def _lineage(self, cls: str) -> list[str]:
        """``cls`` and the classes it derives from in the sources, nearest first."""
        order = [cls]
        for current in order:
            self._read(current)
            order.extend(b for b in self._bases(current) if b not in order)
        return order

    def _enclosing_of(self, qualname: str) -> str | None:
        d = self.defs.get(qualname)
        return d.enclosing_class if d is not None else None

    def _read(self, qualname: str) -> None:
        """Note that an inference read the tables of the module holding ``qualname``."""
        if self._reading is None:
            return
        module = self.owner.get(qualname)
        if module is None:
            head = qualname
            while head and head not in self.modules:
                head = head.rpartition(".")[0]
            module = head or qualname.partition(".")[0]
        self._reading.add(module)

    def _by_name(self, name: str, table: dict[str, list[str]]) -> list[str]:
        found = table.get(name, ())
        return list(found) if 0 < len(found) <= NAME_MATCH_LIMIT else []

    # -- scopes ----------------------------------------------------------------

    def _scopes(self, d: Definition, module: str) -> list[str]:
        """The scopes a name used in ``d`` is looked up in, innermost first.

        Classes are left out, and so are the functions that bind no name.
        """
        binders = self._binders
        scopes: list[str] = []
        qualname = d.qualname
        while qualname and qualname != module:
            if qualname in binders and qualname not in self.classes:
                scopes.append(qualname)
            qualname = qualname.rpartition(".")[0]
        scopes.append(module)
        return scopes

    def _name_in_scope(self, scopes: list[str], name: str) -> list[str] | None:
        target = self._target_of(scopes, name)
        if target is None:
            return None
        found = self._lookup(target, 0)
        if found is None and not self._is_internal(target):
            return []  # bound to something outside the sources: not a node
        return found

    def _target_of(self, scopes: list[str], name: str) -> str | None:
        """The absolute dotted name ``name`` is bound to, looked up in ``scopes``."""
        bound = self._bound
        for scope in scopes:
            key = (scope, name)
            if key in bound:
                target = bound[key]
            else:
                target = bound[key] = self._bound_in(scope, name)
            if target is not None:
                return target
        return None

    def _bound_in(self, scope: str, name: str) -> str | None:
        """What ``name`` is bound to in ``scope`` itself."""
        local = f"{scope}.{name}"
        found = self.defs.get(local)
        if found is not None and found.kind != "module" or local in self.classes:
            return local
        bound = self.bindings[scope].get(name) if scope in self.bindings else None
        if bound is not None:
            return bound
        for wildcard in self.wildcards.get(scope, ()):
            candidate = f"{wildcard}.{name}"
            if self._lookup(candidate, 0):
                return candidate
        return None

    def _is_internal(self, target: str) -> bool:
        head = target
        while head:
            if head in self.modules:
                return True
            head = head.rpartition(".")[0]
        return False

    # -- look-ups --------------------------------------------------------------

    def _lookup(self, target: str, depth: int) -> list[str] | None:
        """Definitions that calling ``target`` reaches; None when not in the sources.

        The list is shared by the calls that reach ``target``: it is only read.
        """
        if depth:
            return self._find_reached(target, depth)
        found = self._found
        if target in found:
            return found[target]
        result = found[target] = self._find_reached(target, 0)
        return result

    def _find_reached(self, target: str, depth: int) -> list[str] | None:
        if depth > _MAX_DEPTH:
            return None
        d = self.defs.get(target)
        if d is not None and d.kind != "module":
            return [target]
        if target in self.classes:
            init = self._method(target, "__init__")
            return [init] if init else []
        if target in self.modules:
            return []
        prefix, _, last = target.rpartition(".")
        if not prefix:
            return None
        if prefix in self.classes:
            method = self._method(prefix, last)
            return [method] if method else None
        if prefix in self.modules:
            bound = self.bindings.get(prefix, {}).get(last)
            if bound is not None and bound != target:
                return self._lookup(bound, depth + 1)
            for wildcard in self.wildcards.get(prefix, ()):
                found = self._lookup(f"{wildcard}.{last}", depth + 1)
                if found:
                    return found
            return None
        return None

    def _enclosing_class(self, d: Definition) -> str | None:
        if d.enclosing_class:
            return d.enclosing_class
        qualname = d.qualname.rpartition(".")[0]
        while qualname:
            if qualname in self.classes:
                return qualname
            qualname = qualname.rpartition(".")[0]
        return None

    def _bases(self, cls: str) -> list[str]:
        """The classes ``cls`` derives from, found in the sources (a list only read)."""
        found = self._class_bases.get(cls)
        if found is None:
            found = self._class_bases[cls] = self._find_bases(cls)
        return found

    def _find_bases(self, cls: str) -> list[str]:
        module = self.class_module.get(cls, "")
        found: list[str] = []
        for base in self.classes.get(cls, ()):
            head, _, rest = base.partition(".")
            candidates = [f"{module}.{base}"]
            bound = self.bindings.get(module, {}).get(head)
            if bound is not None:
                candidates.insert(0, ".".join(p for p in (bound, rest) if p))
            scope = cls.rpartition(".")[0]
            if scope != module:
                candidates.append(f"{scope}.{base}")
            for candidate in candidates:
                resolved = self._class_alias(candidate, 0)
                if resolved is not None:
                    found.append(resolved)
                    break
        return found

    def _class_alias(self, target: str, depth: int) -> str | None:
        if target in self.classes:
            return target
        if depth > _MAX_DEPTH:
            return None
        prefix, _, last = target.rpartition(".")
        bound = self.bindings.get(prefix, {}).get(last)
        if bound is not None and bound != target:
            return self._class_alias(bound, depth + 1)
        return None

    def _method(self, cls: str, name: str) -> str | None:
        key = (cls, name)
        methods = self._methods
        if key in methods:
            return methods[key]
        found = methods[key] = self._find_method(cls, name)
        return found

    def _find_method(self, cls: str, name: str) -> str | None:
        seen: set[str] = set()
        stack = [cls]
        while stack:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.add(current)
            candidate = f"{current}.{name}"
            d = self.defs.get(candidate)
            if d is not None and d.kind == "method":
                return candidate
            stack.extend(self._bases(current))
        return None


def _bounded(found: list[str]) -> tuple[list[str], Resolution]:
    """Targets found by inference, ``name`` edges above the fan-out limit."""
    if len(found) <= FANOUT_LIMIT:
        return found, "inferred"
    return (found, "name") if len(found) <= 2 * FANOUT_LIMIT else ([], "name")


#: A function's positional parameters, its ``*`` and keyword-only ones, its ``**`` one,
#: and the parameter asked about.
_Slots = tuple[tuple[str, ...], str | None, frozenset[str], str | None, str]


def _slots(d: Definition, param: str = "") -> _Slots:
    """The parameters of ``d`` by how arguments reach them."""
    star = dstar = None
    positional: list[str] = []
    keyword: list[str] = []
    for p in d.parameters:
        if p.kind is ParameterKind.VAR_POSITIONAL:
            star = p.name
        elif p.kind is ParameterKind.VAR_KEYWORD:
            dstar = p.name
        elif p.kind is ParameterKind.KEYWORD_ONLY:
            keyword.append(p.name)
        else:
            positional.append(p.name)
            if p.kind is ParameterKind.POSITIONAL:
                keyword.append(p.name)
    return (tuple(positional), star, frozenset(keyword), dstar, param)


def _passed(caller: str, argument: Argument) -> tuple[str, CallSite, str, str]:
    """An argument as the table of passed values holds it: the caller, the call, the
    slot and the value (``f()`` for what f returns)."""
    return caller, argument.call, str(argument.slot), str(argument.value)


def _bound(value: Ref, kind: BindingKind) -> tuple[str, str]:
    """A value given a name, as the tables hold it: ``("call", f)`` for what calling
    ``f`` gives, ``("name", v)`` for what ``v`` holds (``f()`` for what f gives)."""
    if value.called and kind is BindingKind.ASSIGNED:
        return "call", value.name
    return "name", str(value)


def _receiver(site: CallSite) -> str | None:
    """A call site's receiver as written (``A()`` for what A gives)."""
    return None if site.receiver is None else str(site.receiver)


def _drop(table: dict[str, list[_T]], name: str, qualname: _T) -> None:
    found = table.get(name)
    if found is not None:
        if qualname in found:
            found.remove(qualname)
        if not found:
            del table[name]

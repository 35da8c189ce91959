"""What names hold: values flowing through assignments, attributes and returns.

:meth:`ValueFlow.infer` tells which :class:`~sgkr.analysis.values.Value` an
expression of a definition may hold, read off the bindings the extraction kept:
a name bound by scoping or an import holds what it names; a local name what it
is assigned (and, for a parameter, what the calls of the sources pass it: a
:class:`ParameterSource`); ``a.b`` the attribute ``b`` of what ``a`` holds (a
module's name, a class's method or nested class, a ``self.`` field assigned in
the class or a base); ``f()`` what ``f``'s values return (an instance of a class,
what a function's ``return`` and ``yield`` give); ``fs[0]`` the item of a list
written out that the subscript picks (:mod:`~sgkr.analysis.sequences`). The flow is
followed on demand,
:data:`INFER_DEPTH` steps deep; a cycle of assignments ends where it began.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.classes import Hierarchy
>>> from sgkr.analysis.scopes import Names
>>> from sgkr.analysis.tables import Tables
>>> m = extract_module("m.py", "class A:\\n    def run(self):\\n        pass\\n"
...                            "def make():\\n    return A()\\ndef use():\\n    a = make()\\n"
...                            "    a.run()\\n")
>>> tables = Tables([m])
>>> hierarchy = Hierarchy(tables)
>>> flow = ValueFlow(tables, Names(tables, hierarchy))
>>> flow.infer(Context(), flow.frame_of("m.use"), Ref("a.run"), 0)
frozenset({Value(kind=<Kind.FUNCTION: 1>, qualname='m.A.run')})
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from ..records import Ref
from .context import Context, Subclasses
from .scopes import Names
from .sequences import Sequences
from .tables import Tables
from .values import NOTHING, Frame, Kind, Value, class_, external, function, instance, module

__all__ = ["ValueFlow", "ParameterSource", "INFER_DEPTH", "READERS"]

#: How many assignments and returns an inference follows, one from another.
INFER_DEPTH = 5
#: Methods whose result is what their object holds: ``d.get(k)``, ``d.items()``.
READERS = frozenset({"get", "pop", "setdefault", "values", "items", "copy", "popleft"})


class ParameterSource(Protocol):
    """What tells the values a parameter is given (:mod:`sgkr.analysis.parameters`)."""

    def values(self, ctx: Context, function: str, param: str, depth: int) -> frozenset[Value]:
        """What the parameter ``param`` of ``function`` may hold."""


class _NoParameters:
    def values(self, ctx: Context, function: str, param: str, depth: int) -> frozenset[Value]:
        return NOTHING


class ValueFlow:
    """Inference of what expressions hold, over the tables of a build.

    Parameters
    ----------
    tables, names
        The build's tables and its name look-ups.
    parameters
        What parameters are given; by default nothing is known of them.
    """

    def __init__(self, tables: Tables, names: Names,
                 parameters: ParameterSource | None = None) -> None:
        self.tables = tables
        self.names = names
        self.hierarchy = names.hierarchy
        self.parameters: ParameterSource = parameters or _NoParameters()
        self.sequences = Sequences(tables, names)
        self._frames: dict[str, Frame] = {}

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        self._frames.clear()
        self.sequences.forget()

    def read(self, ctx: Context, qualname: str) -> None:
        """Note that ``ctx`` read the tables of the module holding ``qualname``."""
        ctx.reading.add(self.tables.module_of(qualname))

    def frame_of(self, qualname: str) -> Frame:
        """Where the names of the definition ``qualname`` are looked up."""
        frame = self._frames.get(qualname)
        if frame is None:
            d = self.tables.defs.get(qualname)
            frame = self._frames[qualname] = Frame(self.names.chain(qualname),
                                                   d.enclosing_class if d is not None else None)
        return frame

    # -- expressions ---------------------------------------------------------------

    def infer(self, ctx: Context, frame: Frame, ref: Ref, depth: int) -> frozenset[Value]:
        """What ``ref`` may hold, seen from ``frame`` (``depth`` steps into the flow)."""
        key = (frame.chain[0], frame.cls, ref)
        known = ctx.memo.get(key)
        if known is not None:
            return known
        if depth > INFER_DEPTH:
            return NOTHING
        ctx.memo[key] = NOTHING  # a cycle of assignments ends here
        if ref.called:
            values = self.returned(ctx, frame, ref.name, depth)
        elif ref.index:
            values = self._item(ctx, frame, ref, depth)
        else:
            head, _, rest = ref.name.partition(".")
            values = self._head(ctx, frame, head, depth)
            for attr in rest.split(".") if rest else ():
                if not values:
                    break
                values = self.attribute(ctx, values, attr, depth)
        ctx.memo[key] = values
        return values

    def _item(self, ctx: Context, frame: Frame, ref: Ref, depth: int) -> frozenset[Value]:
        """What an item or a slice of a name holds (``fs[0]``, ``fs[1:]``): the items its
        subscripts pick (:mod:`~sgkr.analysis.sequences`), or else what the name holds."""
        scope = self._assigning(frame, ref.name)
        if scope is not None:
            picked = self.sequences.picked(ctx, frame, scope, ref.name, ref.index)
            if picked is not None:
                self.read(ctx, scope)
                return self.bound_values(ctx, self.frame_of(scope), picked, depth)
        return self.infer(ctx, frame, Ref(ref.name), depth)

    def _assigning(self, frame: Frame, name: str) -> str | None:
        """The scope of ``frame`` whose assignments give the plain ``name`` its values;
        None for a dotted name, a parameter, a name bound by scoping or an import."""
        names, tables = self.names, self.tables
        if "." in name or not names.is_local(frame.chain, name) and names.target_of(
                names.binding_scopes(frame.chain), name) is not None:
            return None
        for scope in frame.chain:
            if name in tables.params.get(scope, ()):
                return None
            if name in tables.assigned.get(scope, ()):
                return scope
        return None

    def _head(self, ctx: Context, frame: Frame, head: str, depth: int) -> frozenset[Value]:
        cls, names = frame.cls, self.names
        if head in ("self", "cls") and cls is not None:
            self.read(ctx, cls)
            return frozenset([instance(cls) if head == "self" else class_(cls)])
        if not names.is_local(frame.chain, head):
            target = names.target_of(names.binding_scopes(frame.chain), head)
            if target is not None:
                return self.static(ctx, target)
        tables = self.tables
        for scope in frame.chain:
            bound = tables.assigned.get(scope, {}).get(head)
            d = tables.defs.get(scope)
            param = d is not None and d.kind != "module" and head in tables.params[scope]
            if bound or param:
                self.read(ctx, scope)
                found = self.bound_values(ctx, self.frame_of(scope), bound, depth) \
                    if bound else NOTHING
                if param:
                    found |= self.parameters.values(ctx, scope, head, depth)
                    found |= self.annotated(ctx, scope, head)
                return found
        return NOTHING

    def annotated(self, ctx: Context, function: str, param: str) -> frozenset[Value]:
        """What the annotation of the parameter ``param`` of ``function`` says it holds: an
        object of a class of the sources (or of a class derived from it), or of a class
        outside them."""
        d = self.tables.defs[function]
        types = next((p.types for p in d.parameters if p.name == param), ())
        if not types:
            return NOTHING
        names = self.names
        scopes = names.binding_scopes(names.chain(function)[1:])
        found: set[Value] = set()
        for dotted in types:
            head, _, rest = dotted.partition(".")
            target = names.target_of(scopes, head)
            if target is None:  # a builtin, or a name nothing binds
                continue
            full = ".".join(p for p in (target, rest) if p)
            self.read(ctx, full)
            cls = self.hierarchy.class_alias(full)
            if cls is not None:
                derived = self.hierarchy.descendants(cls)
                ctx.reading.update(Subclasses(c.rpartition(".")[2]) for c in [cls, *derived])
                found.update(map(instance, [cls, *derived]))
            elif not self.tables.is_internal(full):
                found.add(external(full))
        return frozenset(found)

    def bound_values(self, ctx: Context, frame: Frame, bound: Iterable[Ref],
                     depth: int) -> frozenset[Value]:
        """What a name given each of the ``bound`` expressions holds."""
        found: set[Value] = set()
        depth += 1
        for ref in bound:
            if ref.called:  # as :meth:`given`
                found.update(self.returned(ctx, frame, ref.name, depth))
            else:
                found.update(self.infer(ctx, frame, ref, depth))
        return frozenset(found)

    def given(self, ctx: Context, frame: Frame, ref: Ref, depth: int) -> frozenset[Value]:
        """What a name given ``ref`` holds: a call's result is read afresh each time (a
        recursion through returns ends at :data:`INFER_DEPTH`), a name's is kept."""
        if ref.called:
            return self.returned(ctx, frame, ref.name, depth)
        return self.infer(ctx, frame, ref, depth)

    def static(self, ctx: Context, target: str) -> frozenset[Value]:
        """What a name bound by scoping or an import to ``target`` holds (nothing outside
        the sources)."""
        self.read(ctx, target)
        cls = self.hierarchy.class_alias(target)
        if cls is not None:
            return frozenset([class_(cls)])
        if target in self.tables.modules:
            return frozenset([module(target)])
        return frozenset(map(function, self.names.lookup(target) or ()))

    def attribute(self, ctx: Context, values: frozenset[Value], attr: str,
                  depth: int) -> frozenset[Value]:
        """What the attribute ``attr`` of each of ``values`` may hold."""
        found: set[Value] = set()
        tables, hierarchy = self.tables, self.hierarchy
        for kind, name in values:
            if kind is Kind.MODULE:
                found.update(self.static(ctx, f"{name}.{attr}"))
            elif kind in (Kind.CLASS, Kind.INSTANCE):
                method = hierarchy.method(name, attr)
                if method is not None:
                    found.add(function(method))
                elif f"{name}.{attr}" in tables.classes:
                    found.add(class_(f"{name}.{attr}"))
                else:
                    found.update(self._field(ctx, name, attr, depth))
        return frozenset(found)

    def _field(self, ctx: Context, cls: str, attr: str, depth: int) -> set[Value]:
        """What the ``self.`` field ``attr`` of ``cls`` (or of a base) is assigned; when
        none assigns it, what the classes derived from ``cls`` assign it (an object of
        ``cls`` without the field is one of theirs)."""
        lineage = self.hierarchy.lineage(cls)
        for current in lineage:
            self.read(ctx, current)
        fields = self.tables.fields
        if any(attr in fields.get(c, ()) for c in lineage):
            return self._assigned_in(ctx, lineage, attr, depth)
        derived = self.hierarchy.descendants(cls)
        ctx.reading.update(Subclasses(c.rpartition(".")[2]) for c in [cls, *derived])
        return self._assigned_in(ctx, derived, attr, depth)

    def _assigned_in(self, ctx: Context, classes: Iterable[str], attr: str,
                     depth: int) -> set[Value]:
        """What the methods of ``classes`` assign to ``self.attr``."""
        found: set[Value] = set()
        for current in classes:
            for field in self.tables.fields.get(current, {}).get(attr, ()):
                self.read(ctx, field.where)
                # a field is held by the class of the method assigning it: ``current``
                found.update(self.bound_values(ctx, self.frame_of(field.where),
                                               [field.value], depth))
        return found

    # -- calls ---------------------------------------------------------------------

    def returned(self, ctx: Context, frame: Frame, callee: str, depth: int) -> frozenset[Value]:
        """What calling the dotted name ``callee`` returns."""
        values = self.infer(ctx, frame, Ref(callee), depth)
        if not values:
            holder, _, method = callee.rpartition(".")
            if method in READERS and holder:  # ``d.get(k)``: what d holds
                return self.infer(ctx, frame, Ref(holder), depth)
        return self.results(ctx, values, depth)

    def results(self, ctx: Context, callees: Iterable[Value], depth: int) -> frozenset[Value]:
        """What calling each of ``callees`` returns."""
        found: set[Value] = set()
        if depth > INFER_DEPTH:
            return NOTHING
        for kind, name in callees:
            if kind is Kind.CLASS:
                found.add(instance(name))
            elif kind is Kind.FUNCTION:
                returns = self.tables.returns.get(name)
                if returns:
                    self.read(ctx, name)
                    found.update(self.bound_values(ctx, self.frame_of(name), returns,
                                                   depth + 1))
        return frozenset(found)

    def decorated(self, ctx: Context, decorated: str, decorators: Sequence[str]) -> set[Value]:
        """What the name of the ``decorated`` function holds: each decorator of the
        sources (innermost first) called with what the one before made."""
        values: set[Value] = {function(decorated)}
        chain = self.names.chain(decorated)[1:]
        if not chain:
            return values
        d = self.tables.defs.get(chain[0])
        frame = Frame(chain, d.enclosing_class if d is not None else None)
        for decorator in reversed(decorators):
            made: set[Value] = set()
            for kind, name in self.infer(ctx, frame, Ref(decorator), 0):
                if kind is Kind.FUNCTION:
                    made |= self._applied(ctx, name, values)
            values = made or values
        return values

    def _applied(self, ctx: Context, decorator: str, given: set[Value]) -> set[Value]:
        """What the function ``decorator`` returns when its first parameter is given ``given``."""
        d = self.tables.defs.get(decorator)
        returns = self.tables.returns.get(decorator)
        if d is None or not returns:
            return set()
        self.read(ctx, decorator)
        first = Ref(d.parameters[0].name) if d.parameters else None
        found: set[Value] = set()
        rest = [ref for ref in returns if ref != first]
        if len(rest) < len(returns):
            found |= given
        if rest:
            frame = Frame(self.names.chain(decorator), d.enclosing_class)
            found |= self.bound_values(ctx, frame, rest, 0)
        return found

"""One call site to the definitions it reaches, and how surely.

A call is ``exact`` when scoping, an import, an alias, ``self.``/``cls.``/
``super()`` or a class name tells which definition it reaches; ``inferred`` when
what the called name, the receiver or a called function's result holds tells it
(:mod:`sgkr.analysis.flow`); ``name`` when only the bare name matches definitions
of the sources (at most :data:`NAME_MATCH_LIMIT`; of those, the ones whose parameters
can take what the call passes, :mod:`sgkr.analysis.signatures`). Builtins and names bound to
modules outside the sources reach nothing. A call that may reach more than
:data:`~sgkr.analysis.values.FANOUT_LIMIT` definitions gives ``name`` edges
(none beyond twice as many). ``self.m()`` reaches the overrides of ``m`` in
subclasses too, and a call of a decorated function what its decorators made.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.resolve import CallResolver
>>> m = extract_module("m.py", "class P:\\n    def feed(self):\\n        pass\\n"
...                            "def run():\\n    p = P()\\n    p.feed()\\n")
>>> resolver = CallResolver([m])
>>> calls: dict[str, dict[str, Resolution]] = {}
>>> _ = resolver.calls.definition_calls(Context(), resolver.tables.defs["m.run"], "m", calls)
>>> calls
{'m.run': {'m.P.feed': 'inferred'}}
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from ..records import Arity, CallSite, Definition, Ref, Resolution, Selector
from .context import Context, Read, Subclasses, kept
from .flow import ValueFlow
from .signatures import accepts, bound_arguments
from .values import NO_EDGE, NO_GUESS, RANK, Frame, Kind, Reach, Value, bounded, function

__all__ = ["CallSites", "NAME_MATCH_LIMIT", "CallKey", "Seen", "call_key", "is_self",
           "merge_reach"]

#: A bare-name call matching more definitions than this is left unresolved.
NAME_MATCH_LIMIT = 3
_BUILTINS = frozenset(dir(builtins))
# Methods of builtin types and common protocols: ``x.append()`` says nothing about x.
_COMMON_METHODS = frozenset(
    name
    for kind in (dict, list, str, set, bytes, int, float, tuple, frozenset, object)
    for name in dir(kind)
) | frozenset({"close", "read", "write", "open", "run", "main", "start", "stop", "send",
               "get", "put", "add", "update", "reset", "flush", "apply", "call"})

#: A call site as a definition's calls are told apart (its line aside).
CallKey = tuple[str, str, Ref | None, Arity | None, tuple[Selector, ...]]
#: The calls of one definition, resolved.
Seen = dict[CallKey, Reach]


def call_key(call: CallSite) -> CallKey:
    """What tells ``call`` apart from the other calls of its definition."""
    return (call.kind, call.name, call.receiver, call.arity, call.index)


def is_self(receiver: Ref | None) -> bool:
    """Whether a receiver is ``self`` or ``cls``."""
    return receiver is not None and not receiver.called and receiver.name in ("self", "cls")


def merge_reach(found: dict[str, Resolution], reach: Reach) -> None:
    """Add the targets of ``reach`` to ``found``, keeping each target's surest edge."""
    rank = RANK[reach.how]
    for target in reach.targets:
        known = found.get(target)
        if known is None or rank > RANK[known]:
            found[target] = reach.how


class CallSites:
    """Resolution of call sites over a build's value flow.

    Parameters
    ----------
    flow
        What names hold in the build.
    """

    def __init__(self, flow: ValueFlow) -> None:
        self.flow = flow
        self.names = flow.names
        self.tables = flow.tables
        self.hierarchy = flow.hierarchy
        # Kept for the build: the overrides of each class's methods.
        self._overrides: dict[tuple[str, str], tuple[Reach, frozenset[Read]]] = {}
        self._frames: dict[str, Frame] = {}

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        self._overrides.clear()
        self._frames.clear()

    def frame(self, d: Definition) -> Frame:
        """Where the names used in ``d`` are looked up (``self`` of its class, or of the
        method it is nested in)."""
        frame = self._frames.get(d.qualname)
        if frame is None:
            frame = self._frames[d.qualname] = Frame(self.names.chain(d.qualname),
                                                     self.names.enclosing_class(d))
        return frame

    def definition_calls(self, ctx: Context, d: Definition, module: str,
                         calls: dict[str, dict[str, Resolution]]) -> Seen:
        """Add the callees of ``d`` to ``calls[d.qualname]`` (``exact`` wins over ``name``);
        return each call resolved."""
        seen: Seen = {}
        if not d.calls:
            return seen
        found = calls.setdefault(d.qualname, {})
        scopes = self.names.scopes_of(d, module)
        frame = self.frame(d)
        for call in d.calls:
            key = call_key(call)
            if key in seen:
                continue
            reach = seen[key] = self.resolve(ctx, frame, scopes, call)
            # A parameter holds a function as passed (a decorator's, undecorated).
            if len(reach.targets) == 1 and reach.how != "name" and not (
                    reach.how == "inferred" and call.receiver is None
                    and self.names.is_local(frame.chain, call.name)):
                also, kept_target = self._also(ctx, frame, call, reach.targets[0],
                                               reach.how == "exact")
                merge_reach(found, also)
                if not kept_target:
                    continue
            merge_reach(found, reach)
        if not found:
            del calls[d.qualname]
        return seen

    def resolve(self, ctx: Context, frame: Frame, scopes: list[str], call: CallSite) -> Reach:
        """The callees of ``call``, made in ``frame`` seeing ``scopes``."""
        if call.kind == "plain":
            return self._plain(ctx, frame, scopes, call.name, call.arity)
        if call.kind == "subscript":
            return self.called(ctx, frame, Ref(call.name, index=call.index), None) or NO_EDGE
        if call.kind == "result":  # ``make()()``: what the returned values are
            return self.reached(self.flow.returned(ctx, frame, call.name, 0)) or NO_EDGE
        if call.kind == "super":
            return self._super(frame.cls, call.name)
        return self._attribute(ctx, frame, scopes, call)

    def _plain(self, ctx: Context, frame: Frame, scopes: list[str], name: str,
               arity: Arity | None) -> Reach:
        names = self.names
        found = None if names.is_local(frame.chain, name) else names.name_in_scope(scopes, name)
        if found is not None:
            return Reach(tuple(found), "exact")
        inferred = self.called(ctx, frame, Ref(name), None)
        if inferred is not None:
            return inferred
        if name in _BUILTINS:
            return NO_EDGE
        return self._by_name(name, self.tables.functions_by_name, arity)

    def _super(self, cls: str | None, name: str) -> Reach:
        """``super().name()`` in ``cls``: the next ``name`` along its method resolution
        order."""
        defs = self.tables.defs
        for base in self.hierarchy.lineage(cls)[1:] if cls is not None else ():
            d = defs.get(f"{base}.{name}")
            if d is not None and d.kind == "method":
                return Reach((d.qualname,), "exact")
        return NO_EDGE

    def _attribute(self, ctx: Context, frame: Frame, scopes: list[str],
                   call: CallSite) -> Reach:
        receiver = call.receiver
        if receiver is None:
            return self._guessed(call, False)
        if receiver.called:  # ``A().m()``
            made = self.flow.returned(ctx, frame, receiver.name, 0)
            reach = self.reached(self.flow.attribute(ctx, made, call.name, 0)) if made else None
            return reach if reach is not None else self._guessed(call, False)
        if receiver.name in ("self", "cls") and frame.cls is not None:
            method = self.hierarchy.method(frame.cls, call.name)
            if method is not None:
                return Reach((method,), "exact")
        else:
            static = self._static_attribute(scopes, receiver.name, call.name)
            if static is not None:
                return static
        inferred = self.called(ctx, frame, receiver, call.name)
        if inferred is not None:
            return inferred
        head = receiver.name.partition(".")[0]
        return self._guessed(call, self.names.target_of(scopes, head) in self.tables.modules)

    def _static_attribute(self, scopes: list[str], receiver: str, name: str) -> Reach | None:
        """``mod.f()``, ``Class.m()``: what scoping tells; None: it does not."""
        head, _, rest = receiver.partition(".")
        target = self.names.target_of(scopes, head)
        if target is None:
            return None
        found = self.names.lookup(".".join(p for p in (target, rest, name) if p))
        if found is not None:
            return Reach(tuple(found), "exact")
        if target not in self.tables.classes and not self.tables.is_internal(target):
            return NO_EDGE
        return None

    def _guessed(self, call: CallSite, functions: bool) -> Reach:
        """A method called on a receiver nothing is known of: by its name (a function
        too when the receiver names a module of the sources)."""
        name = call.name
        if name in _COMMON_METHODS or name.startswith("__"):
            return NO_GUESS
        return self._by_name(name, self.tables.callables_by_name, call.arity, functions)

    def _by_name(self, name: str, table: dict[str, list[str]], arity: Arity | None,
                 functions: bool = True) -> Reach:
        """The definitions of the bare ``name`` (when at most :data:`NAME_MATCH_LIMIT`)
        that can take what the call passes (``arity``; through an object for a method):
        methods, and unless not ``functions`` the functions of a module's top level (a
        nested function is named in its enclosing function only)."""
        found = table.get(name, ())
        if not 0 < len(found) <= NAME_MATCH_LIMIT:
            return NO_GUESS
        defs, modules = self.tables.defs, self.tables.modules
        kept_ = []
        for q in found:
            d = defs.get(q)
            if d is None or (d.kind == "method" or functions and q.rpartition(".")[0] in modules
                             ) and (arity is None or accepts(d, arity, bound_arguments(d))):
                kept_.append(q)
        return Reach(tuple(kept_), "name")

    # -- inference -----------------------------------------------------------------

    def called(self, ctx: Context, frame: Frame, held: Ref, attr: str | None) -> Reach | None:
        """What calling ``held`` (or its ``attr``) reaches, by what it holds; None when
        nothing is known of it."""
        if not self._may_know(frame, held):
            return None
        values = self.flow.infer(ctx, frame, held, 0)
        if not values:
            return None
        if attr is not None:  # a method of an object outside the sources: none of theirs
            outside = any(kind is Kind.EXTERNAL for kind, _ in values)
            values = self.flow.attribute(ctx, values, attr, 0)
            if outside and not values:
                return NO_EDGE
        return self.reached(values)

    def _may_know(self, frame: Frame, held: Ref) -> bool:
        """Whether an inference of ``held`` can find anything: its head is ``self``/``cls``
        or assigned in ``frame`` (names bound by scoping alone were looked up already)."""
        head = held.name.partition(".")[0]
        if head in ("self", "cls"):
            return frame.cls is not None
        assigned, names = self.tables.assigned, self.names
        return any(head in assigned[s] for s in frame.chain if s in assigned) \
            or names.is_local(frame.chain, head) \
            or "." in held.name and names.target_of(
                [s for s in frame.chain if s in self.tables.binders], head) is not None

    def reached(self, values: Iterable[Value]) -> Reach | None:
        """What calling a name holding ``values`` reaches (None: nothing known): a function
        itself, a class's ``__init__``, an object's ``__call__``."""
        targets: set[str] = set()
        method = self.hierarchy.method
        outside = False
        for kind, name in values:
            if kind is Kind.FUNCTION:
                targets.add(name)
            elif kind in (Kind.CLASS, Kind.INSTANCE):
                found = method(name, "__init__" if kind is Kind.CLASS else "__call__")
                if found is not None:
                    targets.add(found)
            else:
                outside = outside or kind is Kind.EXTERNAL
        if not targets:
            return NO_EDGE if outside else None
        return bounded(sorted(targets))

    def _also(self, ctx: Context, frame: Frame, call: CallSite, target: str,
              exact: bool) -> tuple[Reach, bool]:
        """What a call reaching ``target`` (``exact``: by syntax) may reach as well: the
        overrides of a ``self.`` method in subclasses, what its decorators made of it;
        and whether it still reaches ``target`` itself (not when its decorators of the
        sources made the name hold other functions only)."""
        if exact and is_self(call.receiver) and frame.cls is not None:
            return self._overridden(ctx, frame.cls, call.name), True
        decorators = self.tables.decorators.get(target)
        if not decorators:
            return NO_EDGE, True
        self.flow.read(ctx, target)
        made = self.flow.decorated(ctx, target, decorators)
        reach = self.reached(v for v in made if v != function(target))
        if reach is None:
            return NO_EDGE, True
        return reach, function(target) in made or not reach.targets

    def _overridden(self, ctx: Context, cls: str, name: str) -> Reach:
        """The methods ``name`` of the classes derived from ``cls`` (kept for the build)."""
        def overrides(inner: Context) -> Reach:
            subclasses = self.hierarchy.descendants(cls)
            inner.reading.update(Subclasses(c.rpartition(".")[2]) for c in [cls, *subclasses])
            found = []
            for sub in subclasses:
                d = self.tables.defs.get(f"{sub}.{name}")
                if d is not None and d.kind == "method":
                    self.flow.read(inner, d.qualname)
                    found.append(d.qualname)
            return bounded(found) if found else NO_EDGE

        return kept(self._overrides, (cls, name), ctx, overrides)

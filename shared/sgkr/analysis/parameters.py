"""What a parameter holds: the values the calls of the sources pass it.

``def apply(fn): fn()`` and ``apply(fee)`` elsewhere: ``fn`` holds ``fee``. The
calls passing values are found by the callee's last name (at most
:data:`CALLERS_LIMIT`), kept only when the call reaches the function (its
resolution without parameters' values) and its argument lands on the parameter:
by position (after ``self`` for a method called on an object), by keyword, or
gathered by ``*args`` and ``**kwargs``.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.resolve import CallResolver
>>> m = extract_module("m.py", "def apply(x, fn=None):\\n    fn(x)\\ndef fee(x):\\n"
...                            "    return x\\napply(1, fn=fee)\\n")
>>> resolver = CallResolver([m])
>>> resolver.parameters.values(Context(), "m.apply", "fn", 0)
frozenset({Value(kind=<Kind.FUNCTION: 1>, qualname='m.fee')})
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import CallSite, Definition, ParameterKind
from .calls import CallKey, CallSites, call_key
from .context import TOP, Arguments, Context, Read, kept
from .flow import INFER_DEPTH
from .tables import Passed
from .values import NOTHING, Frame, Value

__all__ = ["ParameterFlow", "CALLERS_LIMIT"]

#: A parameter is inferred from the calls of its function's name, at most this many.
CALLERS_LIMIT = 24


@dataclass(frozen=True, slots=True)
class _Slots:
    """A function's parameters by how arguments reach them, and the one asked about."""

    #: By position (positional-only ones, then the others), in order.
    positional: tuple[str, ...]
    #: ``*args``.
    star: str | None
    #: By keyword (positional ones, then keyword-only ones).
    keywords: frozenset[str]
    #: ``**kwargs``.
    double_star: str | None
    param: str


class ParameterFlow:
    """The values parameters are given, over a build's call sites (see the module).

    Parameters
    ----------
    calls
        The call sites' resolution (whose value flow this feeds).
    """

    def __init__(self, calls: CallSites) -> None:
        self.calls = calls
        self.flow = calls.flow
        self.names = calls.names
        self.tables = calls.tables
        # Kept for the build: each parameter's values, each passing call's callees.
        self._values: dict[tuple[str, str], tuple[frozenset[Value], frozenset[Read]]] = {}
        self._sites: dict[tuple[str, CallKey], tuple[frozenset[str], frozenset[Read]]] = {}

    def forget(self) -> None:
        """Drop the answers kept: the tables changed."""
        self._values.clear()
        self._sites.clear()

    def values(self, ctx: Context, function: str, param: str, depth: int) -> frozenset[Value]:
        """What the parameter ``param`` of ``function`` is given by the calls of the
        sources that reach it.

        Asked from a definition, it is read in a context of its own and kept for the
        build; asked while reading one, it is read once more deep, no further."""
        d = self.tables.defs[function]
        cls = d.enclosing_class
        name = cls.rpartition(".")[2] if d.name == "__init__" and cls else d.name
        ctx.reading.add(Arguments(name))
        passed = self.tables.passed.get(name, ())
        if not passed or len(passed) > CALLERS_LIMIT or depth > INFER_DEPTH:
            return NOTHING
        if ctx.parameters >= TOP:
            return kept(self._values, (function, param), ctx,
                        lambda inner: self._given(inner.deeper(), d, param, passed, 0))
        if ctx.parameters == 1:
            return self._given(ctx.deeper(), d, param, passed, depth)
        return NOTHING

    def _given(self, ctx: Context, d: Definition, param: str, passed: list[Passed],
               depth: int) -> frozenset[Value]:
        slots = _slots(d, param)
        found: set[Value] = set()
        for p in passed:
            found |= self._passed_to(ctx, p, d, slots, depth)
        return frozenset(found)

    def _passed_to(self, ctx: Context, p: Passed, function: Definition, slots: _Slots,
                   depth: int) -> frozenset[Value]:
        """What ``p`` gives the parameter of ``function`` described by ``slots`` (nothing:
        another parameter, or a call of another function)."""
        argument = p.argument
        if not _may_land(argument.slot, slots):
            return NOTHING
        d = self.tables.defs.get(p.caller)
        module = self.tables.owner.get(p.caller)
        if d is None or module is None:
            return NOTHING
        site = argument.call
        scopes = self.names.scopes_of(d, module)
        if isinstance(argument.slot, int):
            index = argument.slot + self._offset(function, site, scopes)
            if index < len(slots.positional):
                if slots.positional[index] != slots.param:
                    return NOTHING
            elif slots.star != slots.param:
                return NOTHING
        frame = self.calls.frame(d)
        if function.qualname not in self._reaches(ctx, p.caller, site, frame, scopes):
            return NOTHING
        self.flow.read(ctx, p.caller)
        return self.flow.given(ctx, frame, argument.value, depth + 1)

    def _reaches(self, ctx: Context, caller: str, site: CallSite, frame: Frame,
                 scopes: list[str]) -> frozenset[str]:
        """What the call ``site`` of ``caller`` reaches, but through parameters' values
        (kept for the build)."""
        def reaches(inner: Context) -> frozenset[str]:
            reach = self.calls.resolve(inner, frame, scopes, site)
            return frozenset() if reach.how == "name" else frozenset(reach.targets)

        return kept(self._sites, (caller, call_key(site)), ctx, reaches,
                    parameters=0)

    def _offset(self, d: Definition, site: CallSite, scopes: list[str]) -> int:
        """How many parameters of ``d`` a call ``site`` fills before its arguments
        (``self`` of a method called on an object or made by its class)."""
        first = d.parameters[0].name if d.parameters else None
        if d.kind != "method" or first not in ("self", "cls"):
            return 0
        if d.name == "__init__" or first == "cls":
            return 1
        receiver = site.receiver
        head = receiver.name.partition(".")[0] if receiver and not receiver.called else None
        target = self.names.target_of(scopes, head) if head else None
        return 0 if target is not None and target in self.tables.classes else 1


def _may_land(slot: int | str, slots: _Slots) -> bool:
    """Whether an argument at ``slot`` can reach the parameter asked about, however many
    parameters the call fills first: a keyword its own parameter, or ``**kwargs``."""
    param = slots.param
    if isinstance(slot, str):
        return slot == param and param in slots.keywords \
            or slots.double_star == param and slot not in slots.keywords
    return param in slots.positional[slot:slot + 2] or slots.star == param


def _slots(d: Definition, param: str) -> _Slots:
    """The parameters of ``d`` by how arguments reach them."""
    positional: list[str] = []
    keywords: list[str] = []
    star = double_star = None
    for p in d.parameters:
        if p.kind is ParameterKind.VAR_POSITIONAL:
            star = p.name
        elif p.kind is ParameterKind.VAR_KEYWORD:
            double_star = p.name
        elif p.kind is ParameterKind.KEYWORD_ONLY:
            keywords.append(p.name)
        else:
            positional.append(p.name)
            if p.kind is ParameterKind.POSITIONAL:
                keywords.append(p.name)
    return _Slots(tuple(positional), star, frozenset(keywords), double_star, param)

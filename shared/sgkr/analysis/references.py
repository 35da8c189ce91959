"""Functions used as values: ``references`` edges.

A function passed to a call outside the sources, stored or returned
(:class:`~sgkr.records.ValueUse`) is a reference of the definition using it,
resolved only when scoping, an import or ``self.``/``cls.`` tells which function it
is (``exact``), or ``inferred`` for a local name passed to a function known to call
it (:data:`CALLING`: ``map``, ``sorted``, ``functools.partial``...). One passed to
a function of the sources is left to that function's calls (its parameter holds
it).

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.resolve import CallResolver
>>> m = extract_module("m.py", "def fee(row):\\n    return 1\\n"
...                            "def fees(rows):\\n    return list(map(fee, rows))\\n")
>>> resolver = CallResolver([m])
>>> refs: dict[str, dict[str, Resolution]] = {}
>>> resolver.resolve_modules([m], refs)
{}
>>> refs
{'m.fees': {'m.fee': 'exact'}}
"""

from __future__ import annotations

from ..records import Argument, CallSite, Definition, Resolution, ValueUse
from .calls import CallSites, Seen, call_key, is_self
from .context import Context
from .values import FANOUT_LIMIT, Frame, Kind

__all__ = ["definition_references", "CALLING"]

#: Functions outside the sources known to call what they are passed (a local name
#: passed to another call outside the sources, ``functools.wraps(fn)``, is not taken as
#: used).
CALLING = frozenset({"map", "filter", "sorted", "min", "max", "reduce", "partial",
                     "starmap", "apply", "applymap", "agg", "aggregate", "transform", "pipe",
                     "submit", "Thread", "Process", "Timer", "call_soon", "run_in_executor",
                     "sort", "groupby", "accumulate", "takewhile", "dropwhile",
                     "filterfalse", "register", "connect", "add_done_callback"})


def definition_references(calls: CallSites, ctx: Context, d: Definition, module: str,
                          called: dict[str, Resolution], seen: Seen) -> dict[str, Resolution]:
    """The functions ``d`` uses as values (not those in ``called``, nor ``d`` itself),
    sorted; ``seen``: the calls of ``d`` resolved."""
    passed = [a for a in d.arguments if a.call.name in CALLING]
    if not d.uses and not passed:
        return {}
    names = calls.names
    scopes = names.scopes_of(d, module)
    frame = calls.frame(d)
    found: dict[str, Resolution] = {}
    for use in d.uses:
        for target in _used(calls, ctx, frame, scopes, use, seen):
            if target not in called and target != d.qualname:
                found[target] = "exact"
    for a in passed:
        if not names.is_local(frame.chain, a.value.name.partition(".")[0]):
            continue
        for target in _passed_out(calls, ctx, frame, scopes, a):
            if target not in called and target not in found and target != d.qualname:
                found[target] = "inferred"
    return dict(sorted(found.items()))


def _passed_out(calls: CallSites, ctx: Context, frame: Frame, scopes: list[str],
                a: Argument) -> list[str]:
    """The functions a local name holds, passed to a call outside the sources
    (``map(fn, xs)``); none when passed to the sources, whose parameters then hold them."""
    reach = calls.resolve(ctx, frame, scopes, a.call)
    if reach.targets and reach.how != "name":
        return []
    functions = sorted(name for kind, name in calls.flow.infer(ctx, frame, a.value, 0)
                       if kind is Kind.FUNCTION)
    return functions if len(functions) <= FANOUT_LIMIT else []


def _used(calls: CallSites, ctx: Context, frame: Frame, scopes: list[str], use: ValueUse,
          seen: Seen) -> list[str]:
    """The functions ``use`` names, when syntax tells and it is not passed to the
    sources (whose own calls then tell what it does)."""
    call = use.argument_of
    if call is not None:
        key = call_key(call)
        reach = seen.get(key)
        if reach is None:
            reach = seen[key] = calls.resolve(ctx, frame, scopes, call)
        if reach.how != "name" and reach.targets:
            return []
    return _named_exactly(calls, frame.cls, scopes, use.site)


def _named_exactly(calls: CallSites, cls: str | None, scopes: list[str],
                   site: CallSite) -> list[str]:
    """The function a name used as a value is, when syntax alone tells."""
    names, tables = calls.names, calls.tables
    if site.kind == "plain":
        target = names.target_of(scopes, site.name)
    elif is_self(site.receiver):
        target = calls.hierarchy.method(cls, site.name) if cls is not None else None
    elif site.receiver is not None and not site.receiver.called:
        head, _, rest = site.receiver.name.partition(".")
        bound = names.target_of(scopes, head)
        target = ".".join(p for p in (bound, rest, site.name) if p) if bound else None
    else:
        return []
    if target is None or target in tables.classes:
        return []
    found = names.lookup(target)
    if not found or target in tables.modules:
        return []
    return found

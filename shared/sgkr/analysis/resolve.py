"""Resolution of call sites to the definitions they call, across all files of a build.

The stages, each a module:

- :mod:`~sgkr.analysis.tables`: the facts of the build's modules by qualified name;
- :mod:`~sgkr.analysis.classes` and :mod:`~sgkr.analysis.scopes`: what names mean by
  scoping, imports and inheritance alone;
- :mod:`~sgkr.analysis.flow` and :mod:`~sgkr.analysis.parameters`: what names hold
  (:mod:`~sgkr.analysis.values`), through assignments, attributes, returns and the
  arguments of calls;
- :mod:`~sgkr.analysis.calls`: each call site to the definitions it reaches, ``exact``,
  ``inferred`` or ``name``; :mod:`~sgkr.analysis.references`: the functions used as
  values.

:class:`CallResolver` puts them together for a build, and keeps what each module's
inferences read (:mod:`~sgkr.analysis.context`) so that an update resolves again the
modules a change can reach.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> a = extract_module("a.py", "from b import g as h\\ndef f():\\n    h()\\n")
>>> b = extract_module("b.py", "def g():\\n    pass\\n")
>>> resolve_calls([a, b])
[('a.f', 'b.g', 'exact')]
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence

from ..records import ModuleExtract, Resolution
from .calls import NAME_MATCH_LIMIT, CallSites
from .classes import Hierarchy
from .context import Arguments, Context, Read, Subclasses
from .flow import ValueFlow
from .parameters import ParameterFlow
from .references import definition_references
from .scopes import Names
from .tables import Tables
from .values import FANOUT_LIMIT

__all__ = ["resolve_calls", "CallResolver", "CallEdge", "NAME_MATCH_LIMIT", "FANOUT_LIMIT",
           "flatten"]

CallEdge = tuple[str, str, Resolution]
#: Each caller's callees (or each user's functions), with how each was resolved.
CallMap = dict[str, dict[str, Resolution]]


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


def flatten(calls: CallMap) -> list[CallEdge]:
    """The sorted ``(caller, callee, resolution)`` list of per-caller call maps.

    Examples
    --------
    >>> flatten({"m.g": {"m.h": "name"}, "m.f": {"m.h": "exact", "m.g": "exact"}})
    [('m.f', 'm.g', 'exact'), ('m.f', 'm.h', 'exact'), ('m.g', 'm.h', 'name')]
    """
    return sorted((a, b, how) for a, targets in calls.items() for b, how in targets.items())


class CallResolver:
    """The tables of one build's modules, to resolve call sites against.

    The tables can be updated module by module (:meth:`replace`), so that an
    incremental rebuild re-resolves only the callers a change can reach.

    Parameters
    ----------
    modules
        Extracted files of one build, in build order.

    Attributes
    ----------
    depends : dict
        What each module's inferences read (made as modules are resolved): an
        update resolves a module again when one of them changed (:meth:`readers`).

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
        self.tables = Tables(modules)
        self.hierarchy = Hierarchy(self.tables)
        self.names = Names(self.tables, self.hierarchy)
        self.flow = ValueFlow(self.tables, self.names)
        self.calls = CallSites(self.flow)
        self.parameters = ParameterFlow(self.calls)
        # The flow asks the parameters, which ask the call sites, which ask the flow: a
        # weak link closes the loop, so a resolver no one holds is freed at once with the
        # facts it reads, not at the next full collection.
        self.flow.parameters = weakref.proxy(self.parameters)
        self.depends: dict[str, set[Read]] = {}

    @property
    def by_module(self) -> dict[str, ModuleExtract]:
        """The build's modules by name."""
        return self.tables.by_module

    def replace(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]) -> bool:
        """Swap the tables of ``old`` modules for those of ``new`` ones.

        Returns False, changing nothing, when a module or key is shared with
        another module of the build (build order would decide between them):
        the caller then makes a new resolver from all modules.
        """
        if not self.tables.replace(old, new):
            return False
        for module in old:
            self.depends.pop(module.module, None)
        self.forget()
        return True

    def forget(self) -> None:
        """Drop what the parts keep of their answers (their tables stay): the next
        question is answered again from the tables."""
        for part in (self.hierarchy, self.names, self.flow, self.calls, self.parameters):
            part.forget()

    def resolve_modules(self, modules: Iterable[ModuleExtract],
                        refs: CallMap | None = None) -> CallMap:
        """Call maps ``{caller: {callee: resolution}}`` of every definition of ``modules``.

        ``refs``, when given, receives the reference maps ``{user: {function:
        resolution}}`` of the same definitions (a pair that is a call is left out).
        """
        calls: CallMap = {}
        for module in modules:
            reading: set[Read] = set()
            for d in module.definitions:
                # Inferences are kept for one definition only: what it infers is then
                # the same whichever definitions were resolved before it (and an update
                # equals a fresh build), cycles of assignments included.
                ctx = Context(reading=reading)
                seen = self.calls.definition_calls(ctx, d, module.module, calls)
                if refs is not None and (d.uses or d.arguments):
                    found = definition_references(self.calls, ctx, d, module.module,
                                                  calls.get(d.qualname, {}), seen)
                    if found:
                        refs[d.qualname] = found
            reading.discard(module.module)
            self.depends[module.module] = reading
            # What names, call sites and parameters hold is asked mostly about the module
            # at hand: dropped after each, these answers do not pile up over a build (one
            # asked again is made again, the same); those about classes and values stay.
            for part in (self.names, self.calls, self.parameters):
                part.forget()
        return calls

    def readers(self, changed: Iterable[ModuleExtract]) -> set[str]:
        """The modules of the build whose inferences read what the ``changed`` modules
        (before or after a change) give: their tables, the subclasses of their classes'
        bases, the values they pass to calls."""
        touched: set[Read] = set()
        for module in changed:
            touched.add(module.module)
            touched.update(keys_of(module))
        return {name for name, read in self.depends.items()
                if name in self.tables.by_module and not read.isdisjoint(touched)}


def keys_of(module: ModuleExtract) -> set[Read]:
    """What ``module`` gives inferences in other modules besides its tables: the
    subclasses of its classes' bases, the values it passes to calls."""
    keys: set[Read] = {Subclasses(base.rpartition(".")[2])
                       for c in module.classes for base in c.bases}
    keys.update(Arguments(a.call.name) for d in module.definitions for a in d.arguments)
    return keys

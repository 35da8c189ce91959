"""Which modules' calls may resolve differently after some modules changed.

An update resolves calls again only in the changed modules, in modules
importing from them (directly or through re-exports), and in modules calling
a bare name whose matches changed. :class:`ImportIndex` keeps the inverted
import tables that answer this without looking at every module.

Examples
--------
>>> from sgkr.ingest.extract import extract_module
>>> from sgkr.analysis.resolve import CallResolver
>>> a = extract_module("a.py", "def f():\\n    return 1\\n")
>>> b = extract_module("b.py", "from a import f\\ndef g():\\n    return f()\\n")
>>> c = extract_module("c.py", "def h():\\n    return 2\\n")
>>> index = ImportIndex([a, b, c])
>>> sorted(index.to_resolve(CallResolver([a, b, c]), [a], [a], set()))
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import attrgetter, itemgetter

from ..records import ModuleExtract, Parameter
from .resolve import NAME_MATCH_LIMIT, CallResolver
from .signatures import bound_arguments

__all__ = ["ImportIndex", "Candidate", "Matches", "matches", "rematched", "affected_modules"]

_NAME = attrgetter("name")
_CALLS = attrgetter("calls")
#: A definition a bare name matches, with what tells the calls it takes: its
#: parameters and how many arguments a call through an object fills first.
Candidate = tuple[str, tuple[Parameter, ...], int]
#: The functions, and the callables, that a bare name matches (see :mod:`sgkr.analysis.resolve`).
Matches = tuple[tuple[Candidate, ...], tuple[Candidate, ...]]


def matches(resolver: CallResolver, name: str) -> Matches:
    """What a bare-name call of ``name`` may resolve to."""
    tables = resolver.tables
    defs = tables.defs

    def candidates(qualnames: list[str]) -> tuple[Candidate, ...]:
        return tuple(sorted(((q, d.parameters, bound_arguments(d)) if (d := defs.get(q))
                             else (q, (), 0) for q in qualnames), key=itemgetter(0)))

    return (candidates(tables.functions_by_name.get(name, [])),
            candidates(tables.callables_by_name.get(name, [])))


def rematched(old: Matches, new: Matches) -> bool:
    """Whether a bare-name call of this name may now resolve differently."""
    return any(a != b and (len(a) <= NAME_MATCH_LIMIT or len(b) <= NAME_MATCH_LIMIT)
               for a, b in zip(old, new, strict=True))


def affected_modules(resolver: CallResolver, index: ImportIndex,
                     old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]) -> set[str] | None:
    """Make ``resolver`` and ``index`` take the change of ``old`` modules into ``new``; the
    modules whose calls may now resolve differently.

    None, changing nothing, when the resolver refuses the change (build order would decide
    what a name is): then every module is resolved again.

    Examples
    --------
    >>> from sgkr.ingest.extract import extract_module
    >>> a = extract_module("a.py", "def f():\\n    return 1\\n")
    >>> b = extract_module("b.py", "from a import f\\ndef g():\\n    return f()\\n")
    >>> c = extract_module("c.py", "def h():\\n    return 2\\n")
    >>> resolver = CallResolver([a, b, c])
    >>> _ = resolver.resolve_modules([a, b, c])
    >>> sorted(affected_modules(resolver, ImportIndex([a, b, c]), [a], [a]))
    ['a', 'b']
    """
    names = {d.name for m in (*old, *new) for d in m.definitions if d.kind != "module"}
    before = {n: matches(resolver, n) for n in names}
    if not resolver.replace(old, new):
        return None
    changed = {n for n in names if rematched(before[n], matches(resolver, n))}
    index.replace(old, new)
    redo = index.to_resolve(resolver, old, new, changed)
    # Modules whose inferred calls read the tables of a changed module.
    return redo | resolver.readers((*old, *new))


class ImportIndex:
    """Inverted import tables, each from a dotted name to the modules whose imports...

    - ``imports_within``: name it or something within it (any scope);
    - ``imports_module``: name it exactly (any scope);
    - ``passes_member``: pass on its members (module level: a name's parent,
      a wildcard's module);
    - ``passes_module``: name it exactly (module level).
    """

    def __init__(self, modules: Sequence[ModuleExtract]) -> None:
        self.imports_within: dict[str, set[str]] = {}
        self.imports_module: dict[str, set[str]] = {}
        self.passes_member: dict[str, set[str]] = {}
        self.passes_module: dict[str, set[str]] = {}
        self.replace([], modules)

    def replace(self, old: Sequence[ModuleExtract], new: Sequence[ModuleExtract]) -> None:
        """Take the imports of ``old`` out of the tables and put those of ``new`` in."""
        for module in old:
            for table, keys in self._keys(module):
                for key in keys:
                    table[key].discard(module.module)
        for module in new:
            for table, keys in self._keys(module):
                for key in keys:
                    table.setdefault(key, set()).add(module.module)

    def to_resolve(self, resolver: CallResolver, old: Sequence[ModuleExtract],
                   new: Sequence[ModuleExtract], rematched: set[str]) -> set[str]:
        """Modules whose calls may resolve differently after ``old`` became ``new``.

        ``rematched``: bare names whose matches changed.
        """
        changed = {m.module for m in (*old, *new)}
        # A module that appeared or went changes what a name bound to it is.
        appeared = {m.module for m in old} ^ {m.module for m in new}
        # Modules whose module-level imports pass names of changed modules on
        # (re-exports): a look-up follows a binding into the module it names a
        # member of, and stops at a module bound as a whole.
        exporters = set(changed)
        frontier = [*changed, *(m for a in appeared for m in self.passes_module.get(a, ()))]
        while frontier:
            name = frontier.pop()
            exporters.add(name)
            frontier += [m for m in self.passes_member.get(name, ()) if m not in exporters]
        redo = {m.module for m in new}
        for name in exporters:
            redo.update(self.imports_within.get(name, ()))
        for name in _prefixes(exporters):
            redo.update(self.imports_module.get(name, ()))
        if rematched:
            # Every call of the build is looked at: iterated in C, not by a generator.
            redo.update(name for name, module in resolver.by_module.items()
                        if name not in redo and not rematched.isdisjoint(map(
                            _NAME, chain.from_iterable(map(_CALLS, module.definitions)))))
        return {n for n in redo if n in resolver.by_module}

    def _keys(self, module: ModuleExtract) -> list[tuple[dict[str, set[str]], set[str]]]:
        """The keys ``module`` has in each table."""
        targets = {b.target for b in module.imports}
        top = [b for b in module.imports if b.scope == module.module]
        top_targets = {b.target for b in top}
        return [(self.imports_within, _prefixes(targets) | targets),
                (self.imports_module, targets),
                (self.passes_member,
                 _prefixes(top_targets) | {b.target for b in top if b.alias == "*"}),
                (self.passes_module, top_targets)]


def _prefixes(names: set[str]) -> set[str]:
    """Proper dotted prefixes of ``names`` (``a`` and ``a.b`` for ``a.b.c``)."""
    found: set[str] = set()
    for name in names:
        parts = name.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return found
